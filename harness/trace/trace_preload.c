/*
 * libzkbench-trace.so: the LD_PRELOAD allocation tracer of `zkbench watch
 * --trace`. Interposes the C allocator, anonymous mmap/munmap/mremap,
 * mprotect (commits of PROT_NONE reservations), sbrk/brk (an allocator of
 * the program's own), _exit, and the CUDA runtime's allocation calls (where
 * libcudart is linked dynamically), and hands them to the writer
 * (trace_io.h): allocations of at least ZKBENCH_TRACE_MIN bytes one by one
 * with their stack, smaller ones counted per calling address and sampled;
 * what the real allocator maps for itself as its own class. The real
 * functions come from dlsym(RTLD_NEXT); while that runs, a small static
 * arena serves dlsym's own calloc.
 */
/* both mmap and mmap64 are defined here: no 64-bit-offset redirection */
#undef _FILE_OFFSET_BITS
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <malloc.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "harness/trace/trace_io.h"

#define EXPORT __attribute__((visibility("default")))

/* the CUDA runtime's prototypes (cudaError_t is an int-sized enum, a
 * stream a pointer), so no CUDA header is needed; and the exported API */
EXPORT int cudaMalloc(void **p, size_t n);
EXPORT int cudaMallocAsync(void **p, size_t n, void *stream);
EXPORT int cudaFree(void *p);
EXPORT int cudaFreeAsync(void *p, void *stream);
EXPORT int cudaMallocHost(void **p, size_t n);
EXPORT int cudaHostAlloc(void **p, size_t n, unsigned flags);
EXPORT int cudaFreeHost(void *p);
EXPORT void zkbench_trace_mark(const char *name);
EXPORT void zkbench_trace_kind(const char *name);
EXPORT int zkbench_trace_in_cuda(void);
EXPORT void zkbench_trace_set_cuda_probe(int (*probe)(void));

static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static void (*real_free)(void *);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);
static void *(*real_memalign)(size_t, size_t);
static void *(*real_valloc)(size_t);
static void *(*real_pvalloc)(size_t);
static size_t (*real_usable)(void *);
static void *(*real_mmap)(void *, size_t, int, int, int, off_t);
static int (*real_munmap)(void *, size_t);
static void *(*real_mremap)(void *, size_t, size_t, int, ...);
static int (*real_mprotect)(void *, size_t, int);
static void *(*real_sbrk)(intptr_t);
static int (*real_brk)(void *);

static int resolving;
static int glibc_heap; /* the real malloc is glibc's: its chunk header can be read */
static volatile int ready; /* the writer is open */
static uint64_t min_bytes = 1u << 20;
static __thread int in_cuda __attribute__((tls_model("initial-exec")));
/* inside the real allocator: what it maps then is its own (class 'a') */
static __thread int in_alloc __attribute__((tls_model("initial-exec")));
static const void *alloc_base; /* the real malloc's module, when it is not libc */
static size_t page = 4096;

#define IN_ALLOC(expr) (in_alloc++, (expr)); in_alloc--

static size_t page_up(size_t n)
{
    return (n + page - 1) & ~(page - 1);
}

/* Whether a mapping call returning to ra is the allocator's own: made
 * inside one of its calls, or from its module (a background thread). */
static bool by_allocator(void *ra)
{
    if (in_alloc)
        return true;
    Dl_info info;
    return alloc_base && dladdr(ra, &info) && info.dli_fbase == alloc_base;
}

/* ---- the bootstrap arena (dlsym's calloc before malloc is known) ---- */

static char boot_buf[1 << 16] __attribute__((aligned(16)));
static size_t boot_used;

static void *boot_alloc(size_t n)
{
    size_t need = ((n + 15) & ~(size_t)15) + 16;
    size_t at = __atomic_fetch_add(&boot_used, need, __ATOMIC_RELAXED);
    if (at + need > sizeof boot_buf)
        return NULL;
    *(size_t *)(boot_buf + at) = n;
    return boot_buf + at + 16;
}

static bool is_boot(const void *p)
{
    return (const char *)p >= boot_buf && (const char *)p < boot_buf + sizeof boot_buf;
}

/* dlsym's object pointer into a function pointer (ISO C has no cast) */
#define RESOLVE(var, name)                                                                                       \
    do {                                                                                                         \
        void *sym_ = dlsym(RTLD_NEXT, name);                                                                     \
        memcpy(&(var), &sym_, sizeof(var));                                                                      \
    } while (0)

static void resolve(void)
{
    if (resolving)
        return;
    resolving = 1;
    RESOLVE(real_calloc, "calloc");
    RESOLVE(real_malloc, "malloc");
    RESOLVE(real_realloc, "realloc");
    RESOLVE(real_free, "free");
    RESOLVE(real_posix_memalign, "posix_memalign");
    RESOLVE(real_aligned_alloc, "aligned_alloc");
    RESOLVE(real_memalign, "memalign");
    RESOLVE(real_valloc, "valloc");
    RESOLVE(real_pvalloc, "pvalloc");
    RESOLVE(real_usable, "malloc_usable_size");
    RESOLVE(real_mmap, "mmap");
    RESOLVE(real_munmap, "munmap");
    RESOLVE(real_mremap, "mremap");
    RESOLVE(real_mprotect, "mprotect");
    RESOLVE(real_sbrk, "sbrk");
    RESOLVE(real_brk, "brk");
    resolving = 0;
}

/* libzkbench-cupti.so's "inside a driver allocation call on this thread",
 * set by it at its start (zkbench_trace_set_cuda_probe); NULL without it. */
static int (*_Atomic cuda_probe)(void);

/* A new allocation p of n bytes whose caller's return address is ra. Host
 * memory that the CUDA runtime or driver maps inside one of its allocation
 * calls (pinned pages, staging) belongs to the call, which is recorded as
 * such: it is only counted with the small ones. */
static inline void note(void *p, size_t n, int cls, void *ra)
{
    if (!p || !ready || tio_busy)
        return;
    int (*probe)(void) = atomic_load_explicit(&cuda_probe, memory_order_relaxed);
    if (n < min_bytes || in_cuda || (probe && probe())) {
        tio_small((uintptr_t)ra, n);
        /* one in every TIO_SAMPLE_PERIOD bytes, on average, gets its stack */
        if (cls == TIO_HEAP && n < min_bytes && !in_cuda && tio_sample_due(n)) {
            tio_busy = 1;
            tio_alloc((uintptr_t)p, n, TIO_SAMPLED, 0, 1);
            tio_busy = 0;
        }
        return;
    }
    tio_busy = 1;
    tio_alloc((uintptr_t)p, n, cls, 0, 1);
    tio_busy = 0;
}

/* A sampled small block ends: its F line (the filter: one load, no lock). */
static inline void unnote_sampled(void *p)
{
    if (tio_any_sampled() && tio_maybe_sampled((uintptr_t)p)) {
        tio_busy = 1;
        tio_free((uintptr_t)p, TIO_SAMPLED);
        tio_busy = 0;
    }
}

/* Before p goes back to the allocator: true when it was recorded. */
static inline bool unnote_heap(void *p)
{
    if (!ready || tio_busy)
        return false;
    if (!tio_maybe_live((uintptr_t)p)) {
        unnote_sampled(p);
        return false;
    }
    /* a region holding a recorded block holds small ones too: the block's
     * size tells them apart before any lock. glibc's chunk size sits just
     * before p, on the line free reads anyway; malloc_usable_size would
     * also read the next chunk's header (a second miss) */
    if (glibc_heap ? (((const size_t *)p)[-1] & ~(size_t)7) < min_bytes : real_usable && real_usable(p) < min_bytes) {
        unnote_sampled(p);
        return false;
    }
    tio_busy = 1;
    bool was = tio_free((uintptr_t)p, TIO_HEAP);
    tio_busy = 0;
    return was;
}

/* ---- the C allocator ---- */

EXPORT void *malloc(size_t n)
{
    if (__builtin_expect(!real_malloc, 0)) {
        resolve();
        if (!real_malloc)
            return boot_alloc(n);
    }
    void *p = IN_ALLOC(real_malloc(n));
    note(p, n, TIO_HEAP, __builtin_return_address(0));
    return p;
}

EXPORT void *calloc(size_t k, size_t n)
{
    if (__builtin_expect(!real_calloc, 0)) {
        resolve();
        if (!real_calloc) {
            size_t total;
            if (__builtin_mul_overflow(k, n, &total))
                return NULL;
            return boot_alloc(total); /* static storage: already zero */
        }
    }
    void *p = IN_ALLOC(real_calloc(k, n));
    size_t total;
    if (p && !__builtin_mul_overflow(k, n, &total))
        note(p, total, TIO_HEAP, __builtin_return_address(0));
    return p;
}

EXPORT void free(void *p)
{
    if (!p || is_boot(p))
        return;
    if (__builtin_expect(!real_free, 0)) {
        resolve();
        if (!real_free)
            return;
    }
    unnote_heap(p);
    in_alloc++;
    real_free(p);
    in_alloc--;
}

EXPORT void *realloc(void *p, size_t n)
{
    if (__builtin_expect(!real_realloc, 0))
        resolve();
    if (p && is_boot(p)) {
        void *q = malloc(n);
        if (q) {
            size_t old = *(size_t *)((char *)p - 16);
            memcpy(q, p, old < n ? old : n);
        }
        return q;
    }
    if (!real_realloc)
        return p ? NULL : boot_alloc(n);
    /* the old block leaves the table before the allocator may hand its
     * address to another thread */
    bool was = p && unnote_heap(p);
    void *q = IN_ALLOC(real_realloc(p, n));
    if (!q && n && was) {
        tio_busy = 1; /* it failed: the old block is still there */
        tio_alloc((uintptr_t)p, real_usable(p), TIO_HEAP, 0, 1);
        tio_busy = 0;
    }
    note(q, n, TIO_HEAP, __builtin_return_address(0));
    return q;
}

EXPORT int posix_memalign(void **ret, size_t align, size_t n)
{
    if (!real_posix_memalign)
        resolve();
    if (!real_posix_memalign)
        return ENOMEM;
    int rc = IN_ALLOC(real_posix_memalign(ret, align, n));
    if (rc == 0)
        note(*ret, n, TIO_HEAP, __builtin_return_address(0));
    return rc;
}

EXPORT void *aligned_alloc(size_t align, size_t n)
{
    if (!real_aligned_alloc)
        resolve();
    void *p = IN_ALLOC(real_aligned_alloc ? real_aligned_alloc(align, n) : NULL);
    note(p, n, TIO_HEAP, __builtin_return_address(0));
    return p;
}

EXPORT void *memalign(size_t align, size_t n)
{
    if (!real_memalign)
        resolve();
    void *p = IN_ALLOC(real_memalign ? real_memalign(align, n) : NULL);
    note(p, n, TIO_HEAP, __builtin_return_address(0));
    return p;
}

EXPORT void *valloc(size_t n)
{
    if (!real_valloc)
        resolve();
    void *p = IN_ALLOC(real_valloc ? real_valloc(n) : NULL);
    note(p, n, TIO_HEAP, __builtin_return_address(0));
    return p;
}

EXPORT void *pvalloc(size_t n)
{
    if (!real_pvalloc)
        resolve();
    void *p = IN_ALLOC(real_pvalloc ? real_pvalloc(n) : NULL);
    note(p, n, TIO_HEAP, __builtin_return_address(0));
    return p;
}

/* ---- anonymous mappings, matched by range ---- */

static void *do_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off, void *ra)
{
    if (!real_mmap && !resolving)
        resolve();
    void *r = real_mmap ? real_mmap(addr, len, prot, flags, fd, off) : tio_sys_mmap(addr, len, prot, flags, fd, off);
    if (r == MAP_FAILED || !ready || tio_busy)
        return r;
    size_t n = page_up(len);
    tio_busy = 1;
    if (!(flags & MAP_ANONYMOUS)) {
        if (flags & MAP_FIXED) /* a file mapping replaces whatever was there */
            tio_unmap((uintptr_t)r, n);
    } else if (prot == PROT_NONE) {
        tio_map((uintptr_t)r, n, 0, /* reserve= */ true, 1); /* not memory until committed */
    } else if (by_allocator(ra)) {
        tio_map((uintptr_t)r, n, TIO_ALLOCATOR, false, 1);
    } else if (len >= min_bytes) {
        tio_map((uintptr_t)r, n, TIO_MMAP, false, 1);
    } else {
        if (flags & MAP_FIXED)
            tio_unmap((uintptr_t)r, n);
        tio_small((uintptr_t)ra, len);
    }
    tio_busy = 0;
    return r;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    return do_mmap(addr, len, prot, flags, fd, off, __builtin_return_address(0));
}

EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
    return do_mmap(addr, len, prot, flags, fd, (off_t)off, __builtin_return_address(0));
}

EXPORT int munmap(void *addr, size_t len)
{
    if (!real_munmap && !resolving)
        resolve();
    /* cut before the call: once it returns, another thread may be given the
     * range again and record it */
    if (ready && !tio_busy) {
        tio_busy = 1;
        tio_unmap((uintptr_t)addr, page_up(len));
        tio_busy = 0;
    }
    return real_munmap ? real_munmap(addr, len) : tio_sys_munmap(addr, len);
}

EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
    void *new_addr = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        new_addr = va_arg(ap, void *);
        va_end(ap);
    }
    if (!real_mremap && !resolving)
        resolve();
    void *r = real_mremap ? real_mremap(old, old_len, new_len, flags, new_addr)
                          : (void *)syscall(SYS_mremap, old, old_len, new_len, flags, new_addr);
    if (r != MAP_FAILED && ready && !tio_busy) {
        tio_busy = 1;
        tio_remap((uintptr_t)old, page_up(old_len), (uintptr_t)r, page_up(new_len), 1);
        tio_busy = 0;
    }
    return r;
}

/* Reserve-then-commit (WebAssembly, the JVM, Go): PROT_NONE, then mprotect. */
EXPORT int mprotect(void *addr, size_t len, int prot)
{
    if (!real_mprotect && !resolving)
        resolve();
    int rc = real_mprotect ? real_mprotect(addr, len, prot) : (int)syscall(SYS_mprotect, addr, len, prot);
    if (rc == 0 && ready && !tio_busy) {
        tio_busy = 1;
        tio_protect((uintptr_t)addr, page_up(len), prot == PROT_NONE,
                    by_allocator(__builtin_return_address(0)) ? TIO_ALLOCATOR : TIO_MMAP, 1);
        tio_busy = 0;
    }
    return rc;
}

/* The program break: what an allocator of its own grows with. */
static void brk_moved(uintptr_t from, uintptr_t to, void *ra)
{
    if (from == to || !ready || tio_busy)
        return;
    tio_busy = 1;
    if (to > from)
        tio_map(from, to - from, by_allocator(ra) ? TIO_ALLOCATOR : TIO_MMAP, false, 2);
    else
        tio_unmap(to, from - to);
    tio_busy = 0;
}

EXPORT void *sbrk(intptr_t inc)
{
    if (!real_sbrk && !resolving)
        resolve();
    if (!real_sbrk) {
        errno = ENOMEM;
        return (void *)-1;
    }
    void *old = real_sbrk(inc);
    if (old != (void *)-1 && inc)
        brk_moved((uintptr_t)old, (uintptr_t)old + (uintptr_t)inc, __builtin_return_address(0));
    return old;
}

EXPORT int brk(void *addr)
{
    if (!real_brk && !resolving)
        resolve();
    if (!real_brk || !real_sbrk) {
        errno = ENOMEM;
        return -1;
    }
    void *old = real_sbrk(0);
    int rc = real_brk(addr);
    if (rc == 0 && old != (void *)-1)
        brk_moved((uintptr_t)old, (uintptr_t)addr, __builtin_return_address(0));
    return rc;
}

/* ---- _exit: an exit too (shells end so), with its X line ---- */

EXPORT __attribute__((noreturn)) void _exit(int status);
EXPORT __attribute__((noreturn)) void _Exit(int status);

static __attribute__((noreturn)) void exit_now(const char *name, int status)
{
    if (ready && !tio_busy) {
        tio_busy = 1;
        tio_exit();
        tio_busy = 0; /* a vfork child shares this thread's memory with its parent */
    }
    void (*real)(int);
    void *sym = dlsym(RTLD_NEXT, name);
    memcpy(&real, &sym, sizeof real);
    if (real)
        real(status);
    for (;;)
        syscall(SYS_exit_group, status);
}

EXPORT void _exit(int status)
{
    exit_now("_exit", status);
}

EXPORT void _Exit(int status)
{
    exit_now("_Exit", status);
}

/* ---- the CUDA runtime, where it is a shared library ---- */

#define CUDA_ERROR_INIT 3 /* cudaErrorInitializationError */

static int cuda_device(void)
{
    static int (*get)(int *);
    static int looked;
    if (!looked) {
        RESOLVE(get, "cudaGetDevice");
        looked = 1;
    }
    int d = 0;
    if (!get || get(&d) != 0)
        d = 0;
    return d;
}

static void cuda_note(void *p, size_t n, int cls, int device)
{
    if (!p || !ready || tio_busy)
        return;
    tio_busy = 1; /* every CUDA allocation is recorded, whatever its size */
    tio_alloc((uintptr_t)p, n, cls, device, 1);
    tio_busy = 0;
}

static void cuda_unnote(void *p, int cls)
{
    if (!p || !ready || tio_busy || !tio_maybe_live((uintptr_t)p))
        return;
    tio_busy = 1;
    tio_free((uintptr_t)p, cls);
    tio_busy = 0;
}

typedef int (*alloc_fn)(void **, size_t);
typedef int (*alloc_async_fn)(void **, size_t, void *);
typedef int (*host_alloc_fn)(void **, size_t, unsigned);
typedef int (*free_fn)(void *);
typedef int (*free_async_fn)(void *, void *);

#define CUDA_REAL(name, type)                                                                                    \
    static type real;                                                                                            \
    if (!real)                                                                                                   \
        RESOLVE(real, name);                                                                                     \
    if (!real)                                                                                                   \
    return CUDA_ERROR_INIT

EXPORT int cudaMalloc(void **p, size_t n)
{
    CUDA_REAL("cudaMalloc", alloc_fn);
    in_cuda++;
    int rc = real(p, n);
    in_cuda--;
    if (rc == 0 && p)
        cuda_note(*p, n, TIO_GPU, cuda_device());
    return rc;
}

EXPORT int cudaMallocAsync(void **p, size_t n, void *stream)
{
    CUDA_REAL("cudaMallocAsync", alloc_async_fn);
    in_cuda++;
    int rc = real(p, n, stream);
    in_cuda--;
    if (rc == 0 && p)
        cuda_note(*p, n, TIO_GPU, cuda_device());
    return rc;
}

EXPORT int cudaFree(void *p)
{
    CUDA_REAL("cudaFree", free_fn);
    cuda_unnote(p, TIO_GPU);
    in_cuda++;
    int rc = real(p);
    in_cuda--;
    return rc;
}

EXPORT int cudaFreeAsync(void *p, void *stream)
{
    CUDA_REAL("cudaFreeAsync", free_async_fn);
    cuda_unnote(p, TIO_GPU);
    in_cuda++;
    int rc = real(p, stream);
    in_cuda--;
    return rc;
}

EXPORT int cudaMallocHost(void **p, size_t n)
{
    CUDA_REAL("cudaMallocHost", alloc_fn);
    in_cuda++;
    int rc = real(p, n);
    in_cuda--;
    if (rc == 0 && p)
        cuda_note(*p, n, TIO_PINNED, 0);
    return rc;
}

EXPORT int cudaHostAlloc(void **p, size_t n, unsigned flags)
{
    CUDA_REAL("cudaHostAlloc", host_alloc_fn);
    in_cuda++;
    int rc = real(p, n, flags);
    in_cuda--;
    if (rc == 0 && p)
        cuda_note(*p, n, TIO_PINNED, 0);
    return rc;
}

EXPORT int cudaFreeHost(void *p)
{
    CUDA_REAL("cudaFreeHost", free_fn);
    cuda_unnote(p, TIO_PINNED);
    in_cuda++;
    int rc = real(p);
    in_cuda--;
    return rc;
}

/* ---- the program's API (zkbench_trace.h) and the CUPTI library's ---- */

EXPORT void zkbench_trace_mark(const char *name)
{
    if (!ready)
        return;
    int was = tio_busy;
    tio_busy = 1;
    tio_mark(name);
    tio_busy = was;
}

EXPORT void zkbench_trace_kind(const char *name)
{
    if (!ready)
        return;
    int was = tio_busy;
    tio_busy = 1;
    tio_kind(name);
    tio_busy = was;
}

/* Nonzero inside an interposed CUDA call: the CUPTI library leaves those
 * to this one, so nothing is recorded twice. */
EXPORT void zkbench_trace_set_cuda_probe(int (*probe)(void))
{
    atomic_store(&cuda_probe, probe);
}

EXPORT int zkbench_trace_in_cuda(void)
{
    return in_cuda;
}

/* ---- start, fork, exit ---- */

static void trace_start(void);
static void (*const trace_start_addr)(void) = trace_start; /* an address inside this library */

__attribute__((constructor)) static void trace_start(void)
{
    resolve();
    tio_busy = 1;
    void *frames[2];
    backtrace(frames, 2); /* loads the unwinder now, not inside a malloc */
    Dl_info info;
    void *m;
    memcpy(&m, &real_malloc, sizeof m);
    glibc_heap = m && dladdr(m, &info) && info.dli_fname && strstr(info.dli_fname, "/libc.so");
    if (m && !glibc_heap && dladdr(m, &info))
        alloc_base = info.dli_fbase; /* jemalloc, tcmalloc, ... as a shared library */
    long ps = sysconf(_SC_PAGESIZE);
    if (ps > 0)
        page = (size_t)ps;
    int rc = tio_init("", /* small_table= */ true);
    if (rc == 0) {
        min_bytes = tio_min();
        tio_atfork(&ready);
        ready = 1;
        /* a malloc that is not this library's comes first (an allocator
         * linked into the executable): our malloc is never called, the
         * allocator's mmap and brk calls are what can be seen */
        void *def = dlsym(RTLD_DEFAULT, "malloc");
        Dl_info self, other;
        if (def && dladdr((void *)(uintptr_t)trace_start_addr, &self) && dladdr(def, &other) &&
            other.dli_fbase != self.dli_fbase) {
            tio_note_static_allocator(other.dli_fname && other.dli_fname[0] ? other.dli_fname : "the executable");
        }
    }
    tio_busy = 0;
}

__attribute__((destructor)) static void trace_end(void)
{
    if (!ready)
        return;
    tio_busy = 1;
    tio_exit();
    tio_busy = 0;
}
