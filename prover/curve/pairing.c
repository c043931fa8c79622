/* pairing.c: being written. */
typedef int zkb_placeholder_pairing;
