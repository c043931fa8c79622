/*
 * What the trace writer's files share inside the tracing libraries
 * (trace_io.c: the file, lines, stacks, live table; trace_small.c: the
 * small counters and the sampler; trace_ranges.c: mapped ranges). Hidden:
 * the libraries are built with -fvisibility=hidden.
 */
#ifndef ZKB_TRACE_IO_IMPL_H
#define ZKB_TRACE_IO_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* one event line, built without stdio */
struct tio_line {
    char b[1536];
    size_t n;
};
void tio_put_str(struct tio_line *l, const char *s);
void tio_put_ch(struct tio_line *l, char c);
void tio_put_u64(struct tio_line *l, uint64_t v);
void tio_put_hex(struct tio_line *l, uint64_t v);
void tio_put_name(struct tio_line *l, const char *s);
/* Appends '\n' and writes the line in one write(2); a failure turns tracing off. */
void tio_write_line(struct tio_line *l);

/* Opens the files at the first event that needs them (recorded: an A line,
 * a mark, a kind; else a small count); whether they are open. */
bool tio_ensure_open(bool recorded);
/* Whether the file is open (nothing was recorded before). */
bool tio_file_open(void);
/* The calling thread's kind id (zkbench_kind), 0 none. */
int tio_cur_kind(void);
/* The calling stack (skip frames of the caller's own left out), its S line
 * written once: the site id. */
uint64_t tio_take_stack(int skip);
void tio_a_line(uintptr_t ptr, uint64_t bytes, uint64_t site, int kind, int cls, int device);
void tio_f_line(uintptr_t ptr, int cls);

/* trace_small.c: PID-N.small made at path (0, or -ENOSPC with nothing
 * left); dropped in a fork child; its lock around fork */
int tio_small_create(const char *path, uint64_t min);
void tio_small_drop(void);
void tio_small_lock(void);
void tio_small_unlock(void);

/* trace_ranges.c: its lock around fork; cleared in a fork child */
void tio_ranges_lock(void);
void tio_ranges_unlock(void);
void tio_ranges_clear(void);

#endif
