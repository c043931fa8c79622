/* The zkbench commands main() dispatches to: each takes its own argc/argv
 * (argv[0] is the command name) and returns the exit status; each declares
 * its options and usage once, in its cli_cmd_t (cli.h). */
#ifndef ZKB_COMMANDS_H
#define ZKB_COMMANDS_H

#include "harness/cli/cli.h"

extern const cli_cmd_t cli_cmd_selfcheck, cli_cmd_bench, cli_cmd_bench_prover, cli_cmd_setup, cli_cmd_prove,
    cli_cmd_prove_zkey, cli_cmd_verify, cli_cmd_batch, cli_cmd_analyze, cli_cmd_plot, cli_cmd_check, cli_cmd_sweep,
    cli_cmd_watch, cli_cmd_report, cli_cmd_params_verify, cli_cmd_trace_collect;

int cmd_setup(int argc, char **argv);
int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
/* The options both verify commands take (--vk, --proof, --public, --help):
 * -1 to go on with the three paths set, else the exit status. */
int cmd_verify_args(int argc, char **argv, const char **vk_path, const char **proof_path, const char **public_path);
int cmd_batch(int argc, char **argv);
/* batch's checks of its arguments (argv[0] "batch"), with no side effect:
 * -1 when they pass, else the exit status after one error line (sweep
 * checks what it forwards before it writes anything). */
int cmd_batch_check(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_watch(int argc, char **argv);
/* zkbench params verify (argv[0] "params", argv[1] "verify"). */
int cmd_params(int argc, char **argv);
/* zkbench trace collect (argv[0] "trace", argv[1] "collect"). */
int cmd_trace(int argc, char **argv);

#endif
