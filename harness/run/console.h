/*
 * What batch and watch print while they run (README, "Main job"): the
 * header at once, one line per long phase (loading or generating the
 * parameters), then
 *   - on a terminal, one live line redrawn with \r: proofs done, elapsed
 *     time, RSS now and peak, and an ETA that counts down and never rises;
 *   - elsewhere (a pipe, a CI log), one line per completed proof and, during
 *     a long proof or phase, a line at least every CONSOLE_HEARTBEAT_S
 *     saying what is running; nothing is redrawn.
 * Every time printed is seconds since the run's start on the run clock
 * (run_clock.h): the origin of the t_ms columns of the run's CSVs. Sizes
 * are fmt_bytes's. With quiet only console_final lines are printed (errors
 * go to stderr through errmsg_print / cli_error either way).
 */
#ifndef ZKB_CONSOLE_H
#define ZKB_CONSOLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>


/* Seconds between two lines off a terminal while nothing completes. */
#define CONSOLE_HEARTBEAT_S 10.0

/* The ETA: a deadline set only when a proof completes and counted down in
 * between. A completion can move the deadline earlier, never later, so
 * the seconds shown never rise and are never negative; only a deadline
 * that has passed with proofs left (overdue) is replaced by the next
 * completion's estimate. The estimate is on the slow side (the slower of
 * the mean and the last time per proof) so that an overdue ETA is rare. */
typedef struct {
    double deadline; /* run clock seconds the countdown reaches 0 at */
    double t_last;   /* the last completion (run clock) */
    bool known;      /* a proof has completed */
    bool overdue;    /* the deadline passed with proofs left */
    bool finished;   /* every proof is done */
} console_eta_t;

void console_eta_init(console_eta_t *e);
/* done of count proofs are complete at now (run clock, s); the work began
 * at t_work and the first proof completed at t_first_done. Time per proof:
 * with two or more done, the mean since the first completion (the
 * pipeline's fill is not counted twice) or the time since the previous
 * completion, whichever is longer; with one, the first proof's time. */
void console_eta_update(console_eta_t *e, double now, double t_work, double t_first_done, unsigned done,
                        unsigned count);
/* Seconds left at now: >= 0, never above an earlier answer unless the
 * ETA was overdue in between; NAN before the first completion. Sets
 * e->overdue when the deadline has passed with proofs left. */
double console_eta_left(console_eta_t *e, double now);

/* A duration for people: "42 s", "3m05s", "2h04m" (whole seconds, rounded
 * up, so a countdown reaches 0 s only when it is due). Returns buf. */
const char *console_fmt_duration(char buf[32], double seconds);

typedef struct {
    FILE *out;
    bool tty;        /* out is a terminal: live lines */
    bool quiet;      /* only console_final */
    size_t live_len; /* length of the live line on screen; 0: none */
    double t0;       /* run start (run clock); 0 until console_start */
    double last_line, last_draw; /* run clock of the last line written / live redraw */
    /* a long phase (console_phase) */
    char phase[160];
    double phase_t;
    /* the work (console_work) */
    double t_work, t_first_done;
    double last_done_ms; /* t_done_ms of the last proof completed (proofs.csv's clock) */
    unsigned count, done, partitions;
    console_eta_t eta;
} console_t;

/* out: usually stdout; a terminal when isatty(fileno(out)). */
void console_init(console_t *c, FILE *out, bool quiet);
/* The run's start on the run clock: every time printed is since t0. */
void console_start(console_t *c, double t0);
/* A line (printf format, no trailing newline) unless quiet; a live line on
 * screen is ended first. */
void console_say(console_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A line printed even when quiet: the final verdict. */
void console_final(console_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends the live line (a newline), if one is on screen. */
void console_end_live(console_t *c);

/* A long phase begins: one line "WHAT ..." now; console_phase_tick then
 * keeps it alive (live line on a terminal, a line every heartbeat
 * elsewhere) until console_phase_end. */
void console_phase(console_t *c, const char *what);
void console_phase_tick(console_t *c, uint64_t rss);
void console_phase_end(console_t *c);

/* A completed proof, with its times as proofs.csv has them (ms since the
 * run's start). */
typedef struct {
    unsigned order;         /* 1 for the first to complete, ... */
    unsigned proof;         /* proofs.csv's proof */
    double t_submit_ms, t_done_ms;
    int verified;           /* 1, 0, or -1 when not verified */
} console_proof_t;

/* What the pipeline is doing: partitions in each state. */
typedef struct {
    unsigned long long synthesizing, waiting, queued, proving, finishing, done;
} console_occ_t;

/* The proofs begin now: count proofs of partitions partitions each. */
void console_work(console_t *c, unsigned count, unsigned partitions);
/* A proof completed (pipeline's proof_done; times as in proofs.csv): one
 * line off a terminal, a redraw on one. rss, peak: the latest sample. */
void console_proof(console_t *c, const console_proof_t *p, uint64_t rss, uint64_t peak);
/* Between completions (pipeline's progress): the live line, or off a
 * terminal a line when a heartbeat is due saying what is running (occ:
 * NULL when unknown). */
void console_progress(console_t *c, const console_occ_t *occ, uint64_t rss, uint64_t peak);

/* A watch between samples: the live line (elapsed, RSS, peak) on a
 * terminal, elsewhere a line every heartbeat. */
void console_watch(console_t *c, uint64_t rss, uint64_t peak);

#endif
