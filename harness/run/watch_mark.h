/*
 * Proof boundaries from a program's log (`zkbench watch --mark REGEX`):
 * the command's stdout and stderr come through two pipes; a thread passes
 * every byte on to watch's own stdout and stderr as it arrives (the user
 * still sees the log, in order), and counts each complete line that
 * matches the POSIX extended regex, appending a row to marks.csv
 * (t_ms,pid,source,name; source "output"). The count is what the sampler
 * writes as proofs_done. docs/watch.md describes the files. Nothing here
 * prints.
 */
#ifndef ZKB_WATCH_MARK_H
#define ZKB_WATCH_MARK_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct watch_mark watch_mark_t;

/* Compiles regex (REG_EXTENDED | REG_NOSUB). Returns 0, or -EINVAL with
 * regerror's text in err. */
int watch_mark_new(watch_mark_t **ret, const char *regex, char *err, size_t errlen);
/* --mark-file: the lines matched are those a log file gets from now on
 * (followed from its end as it grows; rotated or truncated, from the new
 * start), not the command's output, which then passes untouched; the
 * marks.csv rows' source is "file". Call before watch_mark_open. 0, or
 * -errno (-EINVAL: neither a regular file nor a FIFO). */
int watch_mark_follow(watch_mark_t *m, const char *path);
/* Creates path (marks.csv) with its header, and the two pipes. After a
 * fork, the child calls watch_mark_child; the parent watch_mark_start.
 * 0 or -errno. */
int watch_mark_open(watch_mark_t *m, const char *path);
/* In the forked child: the pipes become its stdout and stderr.
 * Async-signal-safe. 0 or -errno. */
int watch_mark_child(const watch_mark_t *m);
/* In the parent: closes the child's ends and starts the thread. pid: the
 * command (marks.csv's pid); t0: the run's start, run_clock_now() seconds.
 * SIGPIPE is ignored from here on (a closed stdout must not kill watch).
 * 0 or -errno. */
int watch_mark_start(watch_mark_t *m, pid_t pid, double t0);
/* Matching lines so far (read each sampler tick). */
const _Atomic uint64_t *watch_mark_counter(const watch_mark_t *m);
/* After the command ended: passes on what is left until both pipes reach
 * end of file (or for at most linger_ms more, when a process the command
 * started keeps them open), then stops the thread. */
void watch_mark_finish(watch_mark_t *m, unsigned linger_ms);
/* Finishes if needed, closes everything, frees m; NULL accepted. */
/* The first error writing marks.csv (-errno), 0 when none (NULL: 0); call
 * after watch_mark_finish. The file keeps the rows written before it. */
int watch_mark_error(const watch_mark_t *m);
void watch_mark_free(watch_mark_t *m);

#endif
