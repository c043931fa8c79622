/*
 * Partition states from a watched program's own marks (zkbench_mark:
 * "synth start", "synth end", "prove start 7", ...): replayed in time
 * order into the occupancy columns batch writes (n_synth, n_blocked,
 * q_gpu, n_gpu, n_finish, partitions_admitted, partitions_done) of the
 * watch run's samples.csv, so analyze fits the per-state capacity model
 * from them as from a batch. The grammar and the counting rule are in
 * docs/watch.md, "Partition states from marks". Nothing here prints.
 */
#ifndef ZKB_MARK_STATES_H
#define ZKB_MARK_STATES_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* The states a mark can name, each with the samples.csv column it counts
 * into (in the capacity model: synthesizing, waiting, waiting, proving,
 * finishing). */
enum mark_state {
    MARK_STATE_SYNTH,  /* n_synth */
    MARK_STATE_WAIT,   /* n_blocked */
    MARK_STATE_QUEUE,  /* q_gpu */
    MARK_STATE_PROVE,  /* n_gpu */
    MARK_STATE_FINISH, /* n_finish */
    MARK_STATE_COUNT
};

/* The samples.csv column of s ("n_synth", ...); NULL for no state. */
const char *mark_state_column(enum mark_state s);
/* The state's word in messages ("synth", "wait", "queue", "prove", "finish"). */
const char *mark_state_word(enum mark_state s);

typedef struct {
    enum mark_state state;
    bool start;   /* "start"; false: "end" */
    char id[64];  /* the partition id, "" when the mark names none */
} mark_state_mark_t;

/* Parses a mark's name: "STATE start|end [ID]", words separated by
 * blanks, case ignored. 1: a state mark, *out filled; 0: no state word
 * first (an ordinary mark, e.g. "proof done"); -EINVAL: a state word
 * followed by something else ("synth stop", "synth", "prove end 1 2", an
 * ID past 63 bytes): a malformed state mark. */
int mark_state_parse(mark_state_mark_t *out, const char *name);

/* What a replay saw. */
typedef struct {
    size_t marks;           /* state marks counted */
    size_t with_id, without_id;
    size_t partitions;      /* entries into a state from none (partitions_admitted at the end) */
    int most[MARK_STATE_COUNT]; /* the largest count of each state over the run */
    size_t unmatched_ends;  /* an end of a state the partition (or the process) was not in */
    char unmatched_first[160];
    size_t repeated_starts; /* a start of the state a partition is already in */
    char repeated_first[160];
    size_t malformed;       /* a state word, then no start/end: not counted */
    char malformed_first[160];
    size_t open_at_end;     /* partitions still in a state after the last mark */
    size_t rows;            /* samples.csv rows filled */
} mark_states_t;

/* Reads DIR/marks.csv (rows of source "api", from zkbench_mark); when it
 * holds state marks, rewrites DIR/samples.csv with the occupancy columns
 * filled on every row (the state counts after every mark at or before the
 * row's t_ms), through a temporary file renamed over it. No marks.csv, or
 * no state mark in it: samples.csv untouched, sum->marks 0. Returns 0, or
 * a negative errno with one line in err (a marks.csv or samples.csv that
 * cannot be read, a samples.csv without the occupancy columns, a failed
 * write: the old samples.csv stays). */
int mark_states_fill(const char *dir, mark_states_t *sum, char *err, size_t errlen);

/* The summary as run.json's "mark_states" object (new reference; NULL
 * when out of memory). */
json_t *mark_states_json(const mark_states_t *sum);
/* One line for notes and the console, e.g. "1 end without a start (synth
 * end at 0.12 s), not counted"; "" when the marks were balanced. */
void mark_states_problems(char *out, size_t cap, const mark_states_t *sum);

#endif
