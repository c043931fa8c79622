/* encode.c: being written. */
typedef int zkb_placeholder_encode;
