/* `zkbench bench prover`: setup and proving time per partition, by stage. */
#ifndef ZKB_BENCH_PROVER_H
#define ZKB_BENCH_PROVER_H

int bench_prover_main(int argc, char **argv);

#endif
