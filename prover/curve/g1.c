/* g1.c: being written. */
typedef int zkb_placeholder_g1;
