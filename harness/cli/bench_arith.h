/* `zkbench bench`: the arithmetic benchmark table (field, curve, pairing). */
#ifndef ZKB_BENCH_ARITH_H
#define ZKB_BENCH_ARITH_H

int bench_arith_main(int argc, char **argv);

#endif
