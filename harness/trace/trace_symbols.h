/*
 * Symbolizes the addresses of one traced process (its module maps, from the
 * M lines of a trace file) with libdw: function, source file and line where
 * DWARF has them, the ELF symbol table otherwise, module+offset at least.
 * Also the site labels of trace_collect: CSV-safe, e.g. leak_step@leak.c:14.
 */
#ifndef ZKB_TRACE_SYMBOLS_H
#define ZKB_TRACE_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct trace_syms trace_syms_t;

/* One resolved address. Strings are owned by the trace_syms_t. */
struct trace_frame {
    const char *module;   /* path of the module, "" when unknown */
    uint64_t module_off;  /* address - module base */
    const char *function; /* demangled, CSV-safe; NULL when unknown */
    uint64_t func_off;    /* address - function start */
    const char *file;     /* source file (full path), NULL when unknown */
    int line;             /* 0 when unknown */
    bool wrapper;         /* inside the tracer, the allocator or an allocation wrapper */
    char label[256];      /* CSV-safe: func@file:line, func+0xOFF or module+0xOFF */
};

/* maps: /proc/PID/maps lines of the process, '\n'-separated. *ret NULL-safe
 * to free with trace_syms_free. 0, or -errno (libdw could not start). */
int trace_syms_new(trace_syms_t **ret, const char *maps, size_t len);
void trace_syms_free(trace_syms_t *s);
/* Resolves a return address (looked up at addr - 1, the call). */
void trace_syms_resolve(trace_syms_t *s, uint64_t addr, struct trace_frame *out);

/* Makes text CSV-safe in place: no commas, quotes, spaces or control bytes. */
void trace_syms_sanitize(char *text);
/* A simple Itanium/Rust-legacy demangler: "_ZN3foo3barEv" -> "foo::bar";
 * false (out = mangled) for what it does not know. */
bool trace_syms_demangle(char *out, size_t cap, const char *mangled);

#endif
