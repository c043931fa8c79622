/*
 * The words and units of the diagnosis (analyze_names.c): the verdicts,
 * the layer and regressor names, bytes for people and sizes from text.
 * The bottom of harness/diagnose/: it includes nothing of it.
 */
#ifndef ZKB_ANALYZE_NAMES_H
#define ZKB_ANALYZE_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MIB (1024.0 * 1024.0)
#define GIB (1024.0 * 1024.0 * 1024.0)

/* Memory layers, lowest first (DESIGN.md's L0..L3 and GPU). */
enum {
    ANALYZE_L_TRACKED,  /* L0: sum of live_<kind> of host kinds */
    ANALYZE_L_HEAP,     /* L1: je_allocated */
    ANALYZE_L_RESIDENT, /* L2: je_resident */
    ANALYZE_L_RSS,      /* L3: rss */
    ANALYZE_L_OUTSIDE,  /* L3 - L2: rss - je_resident, memory outside the heap */
    ANALYZE_L_GPU,      /* gpu_used */
    ANALYZE_NLAYERS
};

/* Regressors of the fit, besides the intercept. */
enum {
    ANALYZE_X_SYNTH,  /* n_synth */
    ANALYZE_X_QUEUE,  /* q_gpu */
    ANALYZE_X_GPU,    /* n_gpu */
    ANALYZE_X_FINISH, /* n_finish */
    ANALYZE_X_BLOCKED, /* n_blocked (0 in runs recorded before it existed) */
    ANALYZE_X_PROOFS, /* proofs_done: its coefficient g is the leak rate */
    ANALYZE_NX
};

typedef enum {
    ANALYZE_LEAK,
    ANALYZE_QUEUE_PILEUP,
    ANALYZE_HELD_TOO_LONG,
    ANALYZE_RETENTION,
    ANALYZE_CAPACITY,
    ANALYZE_HEALTHY, /* the order is the verdict's priority */
    ANALYZE_INCONCLUSIVE, /* the data cannot decide: the result says what would */
} analyze_verdict_t;

/* The seven verdict names: "leak", "queue-pileup", "held-too-long",
 * "retention", "capacity", "healthy", "inconclusive". */
const char *analyze_verdict_name(analyze_verdict_t v);
/* Layer names as in samples.csv ("tracked", "je_allocated", "je_resident",
 * "rss", "outside_heap", "gpu_used"). */
const char *analyze_layer_name(int layer);
const char *analyze_x_name(int x);

/* Bytes for people: "1.50 GiB", "12.3 MiB", "4.0 KiB", "512 B"; "n/a" when
 * not finite. Returns buf. */
char *analyze_fmt_bytes(char *buf, size_t len, double v);

/* Memory held over time, given in GiB*s, in the unit that shows it:
 * "1.25 GiB*s", "3.2 MiB*s", "12.0 KiB*s", "0 B*s"; "n/a" when not finite
 * (issue 25: "0.00 GiB*s" for a run that held a few MiB*s). Returns buf. */
char *analyze_fmt_area(char *buf, size_t len, double gib_s);

/* Parses a size: "128G", "755GiB", "64000000000", "512M", "1.5T" (binary
 * units; a bare number is bytes). Returns false when malformed. */
bool analyze_parse_size(uint64_t *ret, const char *text);

#endif
