/*
 * The limit a run's analysis fits pw into, as `zkbench analyze` takes it:
 * --ram SIZE | --mem-limit SIZE and --margin PCT. analyze, plot and report
 * share these, so that a figure and a report show the analysis that
 * `analyze` prints for the same options.
 */
#ifndef ZKB_LIMIT_OPTS_H
#define ZKB_LIMIT_OPTS_H

#include "harness/cli/cli.h"
#include "harness/diagnose/analyze.h"

enum { LIMIT_OPT_RAM = 'r', LIMIT_OPT_MEM_LIMIT = 'L', LIMIT_OPT_MARGIN = 'm' };

/* The three entries of an option table (cli_opt_t), in this order. */
#define LIMIT_OPTS                                                                                                 \
    {"ram", LIMIT_OPT_RAM, "SIZE", "the memory pw must fit (755GiB, 128G, 64000000000;\n"                       \
                                   "default: the run's --mem-limit, else its machine's RAM)"},                    \
        {"mem-limit", LIMIT_OPT_MEM_LIMIT, "SIZE", "the same for a memory cgroup's limit"},                       \
        {"margin", LIMIT_OPT_MARGIN, "PCT", "percent of SIZE kept free (default 10; 0 for a memory cgroup's limit)"}

/* The defaults: the run's own limit, analyze_margin's margin. */
#define LIMIT_OPTS_INIT {.ram_bytes = 0, .margin = -1}

/* Takes option key with value val into o when it is one of LIMIT_OPTS:
 * 1 taken, 0 not one of them, -1 malformed or a second limit (one line
 * printed, "command: ..."; the command exits 2). */
int limit_opt_take(analyze_opts_t *o, int key, const char *val, const char *command);

#endif
