/* Proof and public-input files; see proof_files.h. */
#include "harness/formats/proof_files.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arith/curve/encode.h"

/* Writes data to path through a temporary file and a rename, so a failure
 * never leaves a half-written file where a good one was expected. */
static int write_atomic(const char *path, const void *data, size_t len, char *msg, size_t cap)
{
    char tmp[4096];
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path) >= sizeof tmp) {
        snprintf(msg, cap, "%s: path too long", path);
        return -ENAMETOOLONG;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        snprintf(msg, cap, "%s: cannot write: %s", path, strerror(e));
        return -e;
    }
    fchmod(fd, 0644);
    const char *p = data;
    size_t left = len;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(tmp);
            snprintf(msg, cap, "%s: write failed: %s", path, strerror(e));
            return -e;
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0 || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        snprintf(msg, cap, "%s: write failed: %s", path, strerror(e));
        return -e;
    }
    return 0;
}

int proof_file_write(const char *path, const groth16_proof_t *proofs, size_t n, char *msg, size_t cap)
{
    uint8_t *buf = malloc(n * GROTH16_PROOF_BYTES + 1);
    if (!buf) {
        snprintf(msg, cap, "%s: out of memory", path);
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        groth16_proof_write(buf + i * GROTH16_PROOF_BYTES, &proofs[i]);
    int rc = write_atomic(path, buf, n * GROTH16_PROOF_BYTES, msg, cap);
    free(buf);
    return rc;
}

int proof_file_read(const char *path, groth16_proof_t **proofs, size_t *n, char *msg, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        int e = errno;
        snprintf(msg, cap, "%s: cannot open: %s", path, strerror(e));
        return -e;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        snprintf(msg, cap, "%s: not a regular file", path);
        return -EINVAL;
    }
    size_t size = (size_t)st.st_size;
    if (size == 0 || size % GROTH16_PROOF_BYTES) {
        fclose(f);
        snprintf(msg, cap, "%s: %zu bytes is not a whole number of %d-byte proofs", path, size,
                 GROTH16_PROOF_BYTES);
        return -EINVAL;
    }
    size_t k = size / GROTH16_PROOF_BYTES;
    uint8_t *buf = malloc(size);
    groth16_proof_t *out = malloc(k * sizeof *out);
    int rc = 0;
    if (!buf || !out) {
        snprintf(msg, cap, "%s: out of memory", path);
        rc = -ENOMEM;
    } else if (fread(buf, 1, size, f) != size) {
        snprintf(msg, cap, "%s: read failed", path);
        rc = -EIO;
    } else {
        for (size_t i = 0; i < k && rc == 0; i++) {
            int e = groth16_proof_read(&out[i], buf + i * GROTH16_PROOF_BYTES);
            if (e < 0) {
                snprintf(msg, cap, "%s: proof %zu: %s", path, i, encode_strerror(e));
                rc = -EINVAL;
            }
        }
    }
    fclose(f);
    free(buf);
    if (rc < 0) {
        free(out);
        return rc;
    }
    *proofs = out;
    *n = k;
    return 0;
}

int public_file_write(const char *path, const fr_t *inputs, size_t n, size_t n_inputs, char *msg, size_t cap)
{
    json_t *all = json_array();
    for (size_t i = 0; i < n && all; i++) {
        json_t *row = json_array();
        for (size_t j = 0; j < n_inputs && row; j++) {
            char dec[ENCODE_FR_DEC_BYTES];
            encode_fr_to_dec(dec, sizeof dec, &inputs[i * n_inputs + j]);
            json_array_append_new(row, json_string(dec));
        }
        json_array_append_new(all, row);
    }
    char *text = all ? json_dumps(all, JSON_INDENT(1) | JSON_COMPACT) : NULL;
    json_decref(all);
    if (!text) {
        snprintf(msg, cap, "%s: out of memory", path);
        return -ENOMEM;
    }
    size_t len = strlen(text);
    text = realloc(text, len + 2);
    text[len] = '\n';
    int rc = write_atomic(path, text, len + 1, msg, cap);
    free(text);
    return rc;
}

int public_file_read(const char *path, fr_t **inputs, size_t *n, size_t *n_inputs, char *msg, size_t cap)
{
    json_error_t jerr;
    json_t *all = json_load_file(path, 0, &jerr);
    if (!all) {
        if (jerr.line < 0)
            snprintf(msg, cap, "%s: cannot read: %s", path, jerr.text);
        else
            snprintf(msg, cap, "%s: line %d: %s", path, jerr.line, jerr.text);
        return -EINVAL;
    }
    int rc = -EINVAL;
    fr_t *out = NULL;
    if (!json_is_array(all) || json_array_size(all) == 0) {
        snprintf(msg, cap, "%s: expected a non-empty array with one array of inputs per partition", path);
        goto done;
    }
    size_t k = json_array_size(all);
    json_t *first = json_array_get(all, 0);
    if (!json_is_array(first)) {
        snprintf(msg, cap, "%s: partition 0: expected an array of decimal strings", path);
        goto done;
    }
    size_t ni = json_array_size(first);
    out = malloc((k * ni + 1) * sizeof *out);
    if (!out) {
        snprintf(msg, cap, "%s: out of memory", path);
        rc = -ENOMEM;
        goto done;
    }
    for (size_t i = 0; i < k; i++) {
        json_t *row = json_array_get(all, i);
        if (!json_is_array(row) || json_array_size(row) != ni) {
            snprintf(msg, cap, "%s: partition %zu: expected an array of %zu decimal strings", path, i, ni);
            goto done;
        }
        for (size_t j = 0; j < ni; j++) {
            const char *s = json_string_value(json_array_get(row, j));
            int e = encode_fr_from_dec(&out[i * ni + j], s);
            if (e < 0) {
                snprintf(msg, cap, "%s: partition %zu input %zu: %s", path, i, j,
                         s ? encode_strerror(e) : "not a string");
                goto done;
            }
        }
    }
    *inputs = out;
    out = NULL;
    *n = k;
    *n_inputs = ni;
    rc = 0;
done:
    free(out);
    json_decref(all);
    return rc;
}
