/*
 * A process tree read every sampler tick (`zkbench watch`): the watched
 * process, its descendants (unless children are off) and any extra roots
 * (a cgroup's processes), each read from /proc/PID/status through a
 * descriptor kept open while the process lives. Children are found through
 * /proc/PID/task/TID/children (or, where the kernel lacks that file, by a
 * scan of /proc for the parent pid). A process once found stays watched
 * while it lives, even when its parent exits and it is reparented; one that
 * ends is dropped. docs/watch.md describes the columns.
 */
#ifndef ZKB_PROC_TREE_H
#define ZKB_PROC_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* One process as read in the last tick; bytes. */
struct proc_tree_proc {
    pid_t pid, ppid;
    char comm[32]; /* /proc/PID/status Name, made CSV-safe */
    uint64_t rss, rss_anon, rss_file, rss_shmem, vm_lck, vm_pin, hwm;
    /* smaps_rollup (proc_tree_set_smaps): Pss counts a page shared by k
     * processes 1/k in each, so a tree's sum counts it once */
    uint64_t pss, smaps_anon, swap;
    bool has_smaps;
};

typedef struct proc_tree proc_tree_t;

/* root: the top process (0: none, extra roots only); children: follow the
 * descendants of every root. The environment variable ZKBENCH_PROC_TREE=scan
 * forces the /proc scan (tests). *ret is freed with proc_tree_free.
 * Returns 0 or -errno. */
int proc_tree_new(proc_tree_t **ret, pid_t root, bool children);
/* Reads every process of the tree now: root, extra[0..n_extra) and, with
 * children, their descendants. Returns the number of processes read (0:
 * none alive), or -errno. */
int proc_tree_read(proc_tree_t *t, const pid_t *extra, size_t n_extra);
/* The processes of the last read, root first; valid until the next read. */
const struct proc_tree_proc *proc_tree_procs(const proc_tree_t *t, size_t *n);
/* Reads smaps_rollup too, for every process found from now on (a walk of
 * its page tables in the kernel: costs more the more it maps). */
void proc_tree_set_smaps(proc_tree_t *t, bool on);
/* Closes every descriptor and frees t; NULL accepted. */
void proc_tree_free(proc_tree_t *t);

/* procs.csv: the header line; and one row per process of the last read,
 * formatted into buf (cap bytes): returns the length the rows need, as
 * snprintf does, so a result >= cap means buf was too small. */
void proc_tree_write_header(FILE *f);
size_t proc_tree_format_rows(const proc_tree_t *t, double t_ms, char *buf, size_t cap);

/* Copies text into out (cap bytes, NUL-terminated, truncated) so that it
 * is one CSV field without quoting: ',' becomes ';', '"' becomes '\'',
 * control characters a space. */
void proc_tree_csv_safe(char *out, size_t cap, const char *text);

#endif
