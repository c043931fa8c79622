/* The zkbench commands main() dispatches to: each takes its own argc/argv
 * (argv[0] is the command name) and returns the exit status. */
#ifndef ZKB_COMMANDS_H
#define ZKB_COMMANDS_H

int cmd_setup(int argc, char **argv);
int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_watch(int argc, char **argv);

#endif
