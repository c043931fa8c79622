/*
 * Address to function/file/line for trace_collect (trace_symbols.h), with
 * libdw's dwfl over the process's recorded module maps.
 */
#define _GNU_SOURCE
#include "harness/trace/trace_symbols.h"

#include <ctype.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cache_ent {
    uint64_t addr;
    bool used;
    struct trace_frame f;
};

struct trace_syms {
    Dwfl *dwfl;
    char **strs; /* every string handed out */
    size_t nstrs, capstrs;
    struct cache_ent *cache;
    size_t ncache, capcache;
};

static const Dwfl_Callbacks dwfl_cb = {
    .find_elf = dwfl_linux_proc_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
};

int trace_syms_new(trace_syms_t **ret, const char *maps, size_t len)
{
    *ret = NULL;
    trace_syms_t *s = calloc(1, sizeof *s);
    if (!s)
        return -ENOMEM;
    /* never ask a debuginfod server: the collector runs offline and fast */
    unsetenv("DEBUGINFOD_URLS");
    s->dwfl = dwfl_begin(&dwfl_cb);
    if (!s->dwfl) {
        free(s);
        return -EIO;
    }
    if (len) {
        FILE *f = fmemopen((void *)maps, len, "r");
        if (f) {
            dwfl_report_begin(s->dwfl);
            dwfl_linux_proc_maps_report(s->dwfl, f);
            dwfl_report_end(s->dwfl, NULL, NULL);
            fclose(f);
        }
    }
    *ret = s;
    return 0;
}

void trace_syms_free(trace_syms_t *s)
{
    if (!s)
        return;
    if (s->dwfl)
        dwfl_end(s->dwfl);
    for (size_t i = 0; i < s->nstrs; i++)
        free(s->strs[i]);
    free(s->strs);
    free(s->cache);
    free(s);
}

static const char *keep(trace_syms_t *s, const char *text)
{
    if (!text)
        return NULL;
    if (s->nstrs == s->capstrs) {
        size_t cap = s->capstrs ? 2 * s->capstrs : 256;
        char **p = realloc(s->strs, cap * sizeof *p);
        if (!p)
            return NULL;
        s->strs = p;
        s->capstrs = cap;
    }
    char *d = strdup(text);
    if (d)
        s->strs[s->nstrs++] = d;
    return d;
}

void trace_syms_sanitize(char *t)
{
    for (; *t; t++)
        if (*t == ',' || *t == '"' || *t == '\'' || isspace((unsigned char)*t) || (unsigned char)*t < 32 ||
            *t == ';')
            *t = '_';
}

/* ---- demangling (the common shapes only) ---- */

static bool read_len(const char **p, size_t *n)
{
    if (!isdigit((unsigned char)**p))
        return false;
    size_t v = 0;
    while (isdigit((unsigned char)**p))
        v = v * 10 + (size_t)(*(*p)++ - '0');
    *n = v;
    return true;
}

static void append(char *out, size_t cap, const char *s, size_t n)
{
    size_t l = strlen(out);
    if (l + n + 1 > cap)
        n = cap > l + 1 ? cap - l - 1 : 0;
    memcpy(out + l, s, n);
    out[l + n] = 0;
}

/* Skips a template argument list starting at 'I' (nested I...E counted). */
static void skip_template(const char **p)
{
    int depth = 0;
    do {
        if (**p == 'L') { /* a literal (Li3E): its digits are a value, not a length */
            while (**p && **p != 'E')
                (*p)++;
        } else if (**p == 'I')
            depth++;
        else if (**p == 'E')
            depth--;
        else if (isdigit((unsigned char)**p)) {
            size_t n;
            read_len(p, &n);
            while (n-- && **p)
                (*p)++;
            continue;
        }
        if (**p)
            (*p)++;
    } while (**p && depth > 0);
}

static bool rust_hash(const char *id, size_t n)
{
    if (n != 17 || id[0] != 'h')
        return false;
    for (size_t i = 1; i < n; i++)
        if (!isxdigit((unsigned char)id[i]))
            return false;
    return true;
}

/* Rust v0 identifier: [s<base62>_] [u] <decimal> [_] <bytes> */
static bool v0_ident(const char **p, const char **id, size_t *n)
{
    if (**p == 's') {
        while (**p && **p != '_')
            (*p)++;
        if (!**p)
            return false;
        (*p)++;
    }
    if (**p == 'u')
        return false; /* punycode: not handled */
    if (!read_len(p, n))
        return false;
    if (**p == '_')
        (*p)++;
    if (strnlen(*p, *n) < *n)
        return false;
    *id = *p;
    *p += *n;
    return true;
}

/* Rust v0 paths made of crate roots and nested names only. */
static bool v0_path(const char **p, char *buf, size_t cap, int depth)
{
    const char *id;
    size_t n;
    if (depth > 32)
        return false;
    if (**p == 'C') {
        (*p)++;
        if (!v0_ident(p, &id, &n))
            return false;
        append(buf, cap, id, n);
        return true;
    }
    if (**p != 'N' || !(*p)[1])
        return false;
    char ns = (*p)[1];
    *p += 2;
    if (!v0_path(p, buf, cap, depth + 1) || !v0_ident(p, &id, &n))
        return false;
    append(buf, cap, "::", 2);
    if (ns == 'C')
        append(buf, cap, "{closure}", 9);
    else
        append(buf, cap, id, n);
    return true;
}

/* Rust legacy escapes: $LT$ -> <, $u7b$ -> {, .. -> :: */
static void rust_unescape(char *t)
{
    static const struct {
        const char *esc, *rep;
    } map[] = {{"$LT$", "<"}, {"$GT$", ">"},  {"$RF$", "&"},  {"$BP$", "*"},  {"$C$", ","},
               {"$SP$", "@"}, {"$u7b$", "{"}, {"$u7d$", "}"}, {"$u20$", " "}, {"$u27$", "'"},
               {"$u5b$", "["}, {"$u5d$", "]"}, {"$u7e$", "~"}, {"..", "::"}};
    char *r = t, *w = t;
    while (*r) {
        if (r[0] == '_' && r[1] == '$' && (r == t || r[-1] == ':')) {
            r++; /* an identifier starting with an escape gets a '_' before it */
            continue;
        }
        size_t i;
        for (i = 0; i < sizeof map / sizeof map[0]; i++)
            if (strncmp(r, map[i].esc, strlen(map[i].esc)) == 0)
                break;
        if (i < sizeof map / sizeof map[0]) {
            for (const char *q = map[i].rep; *q;)
                *w++ = *q++;
            r += strlen(map[i].esc);
        } else {
            *w++ = *r++;
        }
    }
    *w = 0;
}

bool trace_syms_demangle(char *out, size_t cap, const char *m)
{
    if (!m)
        m = ""; /* a frame without a symbol */
    if (strncmp(m, "_R", 2) == 0) {
        char buf[512] = "";
        const char *p = m + 2;
        if (v0_path(&p, buf, sizeof buf, 0)) {
            snprintf(out, cap, "%s", buf);
            return true;
        }
        snprintf(out, cap, "%s", m);
        return false;
    }
    static const struct {
        const char *mangled, *name;
    } special[] = {{"_Znwm", "operator new"},   {"_Znam", "operator new[]"}, {"_ZdlPv", "operator delete"},
                   {"_ZdaPv", "operator delete[]"}, {"_ZnwmRKSt9nothrow_t", "operator new"}};
    snprintf(out, cap, "%s", m);
    if (strncmp(m, "_Z", 2) != 0)
        return false;
    for (size_t i = 0; i < sizeof special / sizeof special[0]; i++)
        if (strncmp(m, special[i].mangled, strlen(special[i].mangled)) == 0 &&
            (strcmp(special[i].mangled, "_Znwm") != 0 || m[5] == 0 || m[5] == 'S')) {
            snprintf(out, cap, "%s", special[i].name);
            return true;
        }
    char buf[512] = "";
    const char *p = m + 2;
    if (*p == 'L') /* internal linkage */
        p++;
    const char *last = NULL;
    size_t last_n = 0;
    if (*p == 'N') {
        p++;
        while (*p == 'K' || *p == 'V' || *p == 'r')
            p++;
        int parts = 0;
        while (*p && *p != 'E') {
            if (*p == 'L') {
                p++;
                continue;
            }
            if (p[0] == 'S' && p[1] == 't') {
                append(buf, sizeof buf, "std", 3);
                parts++;
                p += 2;
                continue;
            }
            if (*p == 'I') {
                skip_template(&p);
                append(buf, sizeof buf, "<>", 2);
                continue;
            }
            if ((p[0] == 'C' || p[0] == 'D') && isdigit((unsigned char)p[1]) && last) {
                append(buf, sizeof buf, "::", 2);
                if (p[0] == 'D')
                    append(buf, sizeof buf, "~", 1);
                append(buf, sizeof buf, last, last_n);
                p += 2;
                parts++;
                continue;
            }
            size_t n;
            if (!read_len(&p, &n) || strnlen(p, n) < n)
                break;
            if (rust_hash(p, n)) {
                p += n;
                continue;
            }
            if (parts++)
                append(buf, sizeof buf, "::", 2);
            append(buf, sizeof buf, p, n);
            last = p;
            last_n = n;
            p += n;
        }
        if (!parts)
            return false;
        if (strchr(buf, '$') || strstr(buf, ".."))
            rust_unescape(buf);
    } else {
        size_t n;
        if (p[0] == 'S' && p[1] == 't') {
            append(buf, sizeof buf, "std::", 5);
            p += 2;
        }
        if (!read_len(&p, &n) || strnlen(p, n) < n)
            return false;
        append(buf, sizeof buf, p, n);
    }
    snprintf(out, cap, "%s", buf);
    return true;
}

/* ---- what counts as a wrapper, not the user's allocation site ---- */

static bool wrapper_module(const char *path)
{
    static const char *const mods[] = {"libzkbench-trace.so", "libzkbench-cupti.so", "libc.so", "libc-",
                                       "libstdc++.so", "libgcc_s.so", "ld-linux", "libcuda.so", "libcupti.so",
                                       "libcudart.so", "libjemalloc.so", "libtcmalloc", "libc++.so",
                                       "libc++abi.so", "libpthread.so", "libdl.so"};
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    for (size_t i = 0; i < sizeof mods / sizeof mods[0]; i++)
        if (strncmp(base, mods[i], strlen(mods[i])) == 0)
            return true;
    return false;
}

static bool wrapper_function(const char *fn)
{
    static const char *const prefixes[] = {"operator new", "operator delete", "__rust_alloc", "__rust_realloc",
                                           "__rdl_", "__rg_", "alloc::", "<alloc::", "std::alloc", "__gnu_cxx::",
                                           "std::allocator", "std::__new_allocator", "std::allocator_traits",
                                           "__cudart", "cudart::", "zkbench_trace_",
                                           /* a static CUDA runtime's internal functions */
                                           "libcudart_static_",
                                           /* C++ and Rust standard libraries allocate for their caller */
                                           "std::", "core::"};
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(fn, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    /* the CUDA runtime's entry points in a statically linked program */
    return strncmp(fn, "cuda", 4) == 0 && isupper((unsigned char)fn[4]);
}

/* ---- resolution ---- */

static size_t cache_slot(uint64_t a, size_t cap)
{
    return (size_t)(a * 0x9e3779b97f4a7c15ull >> 24) & (cap - 1);
}

/* Under parent, the DIE of the function containing pc (through namespaces
 * and types, where Rust and C++ nest them), then inside it the outermost
 * inlined subroutine containing pc (through lexical blocks): 1 when found. */
static int find_inlined(Dwarf_Die *parent, Dwarf_Addr pc, bool in_function, Dwarf_Die *inl, int depth)
{
    Dwarf_Die c;
    if (depth > 64 || dwarf_child(parent, &c) != 0)
        return 0;
    do {
        int tag = dwarf_tag(&c);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine || tag == DW_TAG_lexical_block) {
            if (dwarf_haspc(&c, pc) != 1)
                continue;
            if (tag == DW_TAG_inlined_subroutine && in_function) {
                *inl = c;
                return 1;
            }
            return find_inlined(&c, pc, in_function || tag == DW_TAG_subprogram, inl, depth + 1);
        }
        if (!in_function && (tag == DW_TAG_namespace || tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
                             tag == DW_TAG_module || tag == DW_TAG_union_type)) {
            if (find_inlined(&c, pc, false, inl, depth + 1))
                return 1;
        }
    } while (dwarf_siblingof(&c, &c) == 0);
    return 0;
}

/* pc inside code inlined into its function: the file and line where the
 * function makes that call (DW_AT_call_file/line), not a line of the
 * callee (Rust's alloc.rs, a C++ header). */
static void call_site(Dwfl_Module *m, uint64_t pc, const char **file, int *line)
{
    Dwarf_Addr bias = 0;
    Dwarf_Die *cu = dwfl_module_addrdie(m, pc, &bias);
    Dwarf_Die inl;
    if (!cu || find_inlined(cu, pc - bias, false, &inl, 0) != 1)
        return;
    Dwarf_Attribute a;
    Dwarf_Word fidx = 0, cl = 0;
    Dwarf_Files *files;
    size_t nfiles;
    if (dwarf_formudata(dwarf_attr(&inl, DW_AT_call_file, &a), &fidx) == 0 &&
        dwarf_formudata(dwarf_attr(&inl, DW_AT_call_line, &a), &cl) == 0 && cl > 0 &&
        dwarf_getsrcfiles(cu, &files, &nfiles) == 0 && fidx < nfiles) {
        const char *name = dwarf_filesrc(files, fidx, NULL, NULL);
        if (name) {
            *file = name;
            *line = (int)cl;
        }
    }
}

static void resolve_uncached(trace_syms_t *s, uint64_t addr, struct trace_frame *f)
{
    memset(f, 0, sizeof *f);
    f->module = "";
    uint64_t pc = addr ? addr - 1 : 0;
    Dwfl_Module *m = s->dwfl ? dwfl_addrmodule(s->dwfl, pc) : NULL;
    if (m) {
        Dwarf_Addr start = 0;
        const char *mname = dwfl_module_info(m, NULL, &start, NULL, NULL, NULL, NULL, NULL);
        f->module = keep(s, mname ? mname : "");
        if (!f->module)
            f->module = "";
        f->module_off = addr - start;
        GElf_Off off = 0;
        GElf_Sym sym;
        const char *fn = dwfl_module_addrinfo(m, pc, &off, &sym, NULL, NULL, NULL);
        if (fn) {
            char raw[512], dem[512];
            snprintf(raw, sizeof raw, "%s", fn);
            char *ver = strchr(raw, '@'); /* a symbol version: __libc_start_main@@GLIBC_2.34 */
            if (ver && ver != raw)
                *ver = 0;
            /* a compiler's clone of the function is the function: big_leak.isra.0 */
            static const char *const clones[] = {".isra.", ".constprop.", ".part.", ".cold", ".lto_priv.",
                                                 ".localalias", ".llvm."};
            for (size_t i = 0; i < sizeof clones / sizeof clones[0]; i++) {
                char *c = strstr(raw, clones[i]);
                if (c && c != raw)
                    *c = 0;
            }
            trace_syms_demangle(dem, sizeof dem, raw);
            f->function = keep(s, dem);
            f->func_off = off + 1;
        }
        Dwfl_Line *ln = dwfl_module_getsrc(m, pc);
        int line = 0;
        const char *src = ln ? dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL) : NULL;
        call_site(m, pc, &src, &line);
        if (src && line > 0) {
            f->file = keep(s, src);
            f->line = line;
        }
    }
    f->wrapper = (f->module[0] && wrapper_module(f->module)) || (f->function && wrapper_function(f->function));
    const char *modbase = strrchr(f->module, '/');
    modbase = modbase ? modbase + 1 : f->module[0] ? f->module : "unknown";
    if (f->function && f->file) {
        const char *fb = strrchr(f->file, '/');
        snprintf(f->label, sizeof f->label, "%s@%s:%d", f->function, fb ? fb + 1 : f->file, f->line);
    } else if (f->function) {
        snprintf(f->label, sizeof f->label, "%s+0x%llx", f->function, (unsigned long long)f->func_off);
    } else {
        snprintf(f->label, sizeof f->label, "%s+0x%llx", modbase, (unsigned long long)(m ? f->module_off : addr));
    }
    trace_syms_sanitize(f->label);
}

void trace_syms_resolve(trace_syms_t *s, uint64_t addr, struct trace_frame *out)
{
    if (2 * (s->ncache + 1) > s->capcache) {
        size_t cap = s->capcache ? 2 * s->capcache : 1024;
        struct cache_ent *t = calloc(cap, sizeof *t);
        if (t) {
            for (size_t i = 0; i < s->capcache; i++)
                if (s->cache[i].used) {
                    size_t j = cache_slot(s->cache[i].addr, cap);
                    while (t[j].used)
                        j = (j + 1) & (cap - 1);
                    t[j] = s->cache[i];
                }
            free(s->cache);
            s->cache = t;
            s->capcache = cap;
        }
    }
    if (!s->capcache || 2 * (s->ncache + 1) > s->capcache) {
        resolve_uncached(s, addr, out);
        return;
    }
    size_t j = cache_slot(addr, s->capcache);
    while (s->cache[j].used) {
        if (s->cache[j].addr == addr) {
            *out = s->cache[j].f;
            return;
        }
        j = (j + 1) & (s->capcache - 1);
    }
    resolve_uncached(s, addr, out);
    s->cache[j].used = true;
    s->cache[j].addr = addr;
    s->cache[j].f = *out;
    s->ncache++;
}
