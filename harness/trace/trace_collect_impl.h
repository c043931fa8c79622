/*
 * What the collector's two files share (trace_collect.c reads the trace
 * files, trace_collect_out.c labels the sites and writes the CSV files):
 * the buffers, sites and marks of one collection.
 */
#ifndef ZKB_TRACE_COLLECT_IMPL_H
#define ZKB_TRACE_COLLECT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness/trace/trace_collect.h"

#define MAX_FRAMES 32 /* frames of a stack the collector keeps */

struct tbuf {
    uint64_t t_alloc, t_free; /* ns; t_free 0: never freed */
    uint64_t bytes;
    size_t site;  /* index into sites */
    size_t kind;  /* index into kinds + 1; 0: none */
    int device;   /* -1 host, else the GPU */
    char cls;     /* the A line's class letter */
    double weight; /* bytes a sampled block stands for (class 's'); 0 otherwise */
};

/* A site is a stack: key is its frame labels from the site outwards,
 * joined by '\x01' (below any label byte, so sorting keys sorts stacks
 * frame by frame); label is the shortest prefix that no other site has. */
struct tsite {
    char *key;
    char label[256];
    char *function, *file, *module;
    int line;
    bool allocator; /* memory the allocator mapped for itself */
    bool merged;    /* small counters only, added to the one stack that starts at its frame */
    uint64_t n_allocs, bytes_total, n_small, bytes_small, never_freed, n_never_freed, n_sampled;
    double sampled_est, never_freed_sampled_est;
};

struct tmark {
    uint64_t t;
    int pid;
    char *name;
};

struct stack {
    uint64_t hash;
    int n;
    uint64_t f[MAX_FRAMES];
};

struct collect {
    struct tbuf *bufs;
    size_t nbufs, capbufs;
    struct tsite *sites;
    size_t nsites, capsites;
    size_t *site_index; /* open addressing over labels: site + 1, 0 empty */
    size_t cap_index;
    char **kinds;
    size_t nkinds, capkinds;
    struct tmark *marks;
    size_t nmarks, capmarks;
    bool symbols;
    size_t n_static;         /* processes with an allocator of their own */
    uint64_t t_first;        /* the earliest header time (ns) */
    char static_note[256];   /* the first one's W line */
};

uint64_t tc_str_hash(const char *s);
/* A CSV field, quoted where it must be; NULL writes nothing. */
void tc_csv_field(FILE *f, const char *s);
/* DIR/NAME opened with mode; NULL with a line in err. */
FILE *tc_open_out(const char *dir, const char *name, const char *mode, char *err, size_t errlen);
/* Labels the sites and writes buffers.csv, sites.csv and (marks) the api
 * marks to marks.csv; fills sum. 0, or -errno with a line in err. */
int tc_write_outputs(struct collect *c, const char *run_dir, double t0, bool marks,
                     struct trace_collect_summary *sum, char *err, size_t errlen);

#endif
