/* fp12.c: being written. */
typedef int zkb_placeholder_fp12;
