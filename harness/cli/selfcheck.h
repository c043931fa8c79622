/* `zkbench selfcheck`: known-answer checks of the arithmetic on this machine. */
#ifndef ZKB_SELFCHECK_H
#define ZKB_SELFCHECK_H

int selfcheck_main(int argc, char **argv);

#endif
