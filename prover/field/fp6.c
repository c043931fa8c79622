/* fp6.c: being written. */
typedef int zkb_placeholder_fp6;
