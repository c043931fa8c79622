/*
 * The iden3 binary container (see binfile.h): mapping, section table,
 * prime identification and the error line every reader fills.
 */
#include "prover/iden3/binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arith/field/fp.h"
#include "arith/field/fr.h"

int iden3_error(iden3_error_t *err, int code, const char *path, const char *fmt, ...)
{
    if (err) {
        int k = snprintf(err->msg, sizeof err->msg, "%s: ", path ? path : "(null)");
        if (k < 0 || (size_t)k >= sizeof err->msg)
            k = 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg + k, sizeof err->msg - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return code;
}

void iden3_binfile_close(iden3_binfile_t *f)
{
    if (!f)
        return;
    if (f->data && f->size)
        munmap((void *)f->data, f->size);
    f->data = NULL;
    f->size = 0;
}

int iden3_binfile_open(iden3_binfile_t *f, const char *path, const char magic[4], uint32_t max_version,
                       iden3_error_t *err)
{
    memset(f, 0, sizeof *f);
    f->path = path;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int e = errno;
        return iden3_error(err, -e, path, "cannot open: %s", strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) < 0) {
        int e = errno;
        close(fd);
        return iden3_error(err, -e, path, "cannot stat: %s", strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return iden3_error(err, -EINVAL, path, "not a regular file");
    }
    size_t size = (size_t)st.st_size;
    if (size < 12) {
        close(fd);
        return iden3_error(err, -EINVAL, path, "truncated: %zu bytes, shorter than the 12-byte header of a .%.4s file",
                           size, magic);
    }
    void *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (m == MAP_FAILED)
        return iden3_error(err, -e, path, "cannot map: %s", strerror(e));
    f->data = m;
    f->size = size;
    const uint8_t *d = f->data;
    if (memcmp(d, magic, 4) != 0) {
        char got[5];
        for (int i = 0; i < 4; i++)
            got[i] = (d[i] >= 0x20 && d[i] < 0x7f) ? (char)d[i] : '?';
        got[4] = 0;
        iden3_binfile_close(f);
        return iden3_error(err, -EINVAL, path, "not a .%.4s file: magic '%s', expected '%.4s'", magic, got, magic);
    }
    f->version = iden3_u32(d + 4);
    if (f->version < 1 || f->version > max_version) {
        iden3_binfile_close(f);
        return iden3_error(err, -EINVAL, path, "unsupported .%.4s version %u (this reader knows 1..%u)", magic,
                           f->version, max_version);
    }
    uint32_t n = iden3_u32(d + 8);
    uint64_t off = 12;
    for (uint32_t i = 0; i < n; i++) {
        if (size - off < 12) {
            iden3_binfile_close(f);
            return iden3_error(err, -EINVAL, path,
                               "truncated: section header %u of %u at byte %llu is past the end (%zu bytes)", i + 1,
                               n, (unsigned long long)off, size);
        }
        uint32_t type = iden3_u32(d + off);
        uint64_t len = iden3_u64(d + off + 4);
        off += 12;
        if (len > size - off) {
            iden3_binfile_close(f);
            return iden3_error(err, -EINVAL, path,
                               "truncated: section %u declares %llu bytes at byte %llu, the file has only %llu more",
                               type, (unsigned long long)len, (unsigned long long)off,
                               (unsigned long long)(size - off));
        }
        if (type <= IDEN3_MAX_SECTION) {
            if (f->sec_present[type]) {
                iden3_binfile_close(f);
                return iden3_error(err, -EINVAL, path, "section %u appears twice", type);
            }
            f->sec_present[type] = true;
            f->sec_off[type] = off;
            f->sec_size[type] = len;
        }
        off += len;
    }
    if (off != size) {
        iden3_binfile_close(f);
        return iden3_error(err, -EINVAL, path, "%llu bytes after the last of %u sections",
                           (unsigned long long)(size - off), n);
    }
    return 0;
}

int iden3_binfile_section(const uint8_t **data, uint64_t *size, const iden3_binfile_t *f, uint32_t type,
                          const char *what, iden3_error_t *err)
{
    if (type > IDEN3_MAX_SECTION || !f->sec_present[type])
        return iden3_error(err, -EINVAL, f->path, "section %u (%s) is missing", type, what);
    *data = f->data + f->sec_off[type];
    *size = f->sec_size[type];
    return 0;
}

static bool limbs_eq(const uint8_t *p, uint32_t n8, const uint64_t *limbs, size_t n)
{
    if (n8 != n * 8)
        return false;
    for (size_t i = 0; i < n; i++)
        if (iden3_u64(p + 8 * i) != limbs[i])
            return false;
    return true;
}

enum iden3_prime iden3_prime_identify(const uint8_t *p, uint32_t n8)
{
    /* alt_bn128: r and q (EIP-196), least significant limb first. */
    static const uint64_t bn128_r[4] = {0x43e1f593f0000001ull, 0x2833e84879b97091ull, 0xb85045b68181585dull,
                                        0x30644e72e131a029ull};
    static const uint64_t bn128_q[4] = {0x3c208c16d87cfd47ull, 0x97816a916871ca8dull, 0xb85045b68181585dull,
                                        0x30644e72e131a029ull};
    if (limbs_eq(p, n8, FR_MODULUS, 4))
        return IDEN3_PRIME_BLS12_381_R;
    if (limbs_eq(p, n8, FP_MODULUS, 6))
        return IDEN3_PRIME_BLS12_381_Q;
    if (limbs_eq(p, n8, bn128_r, 4))
        return IDEN3_PRIME_BN128_R;
    if (limbs_eq(p, n8, bn128_q, 4))
        return IDEN3_PRIME_BN128_Q;
    return IDEN3_PRIME_OTHER;
}

const char *iden3_prime_name(enum iden3_prime p)
{
    switch (p) {
    case IDEN3_PRIME_BLS12_381_R: return "the bls12381 scalar field";
    case IDEN3_PRIME_BLS12_381_Q: return "the bls12381 base field";
    case IDEN3_PRIME_BN128_R: return "the bn128 scalar field";
    case IDEN3_PRIME_BN128_Q: return "the bn128 base field";
    default: return "an unsupported prime";
    }
}
