/* g2.c: being written. */
typedef int zkb_placeholder_g2;
