/* The parameter cache; see param_cache.h. */
#include "harness/param_cache.h"

#include "harness/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int param_cache_dir(char *out, size_t cap, char *err, size_t err_cap)
{
    const char *env = getenv("ZKBENCH_PARAMS_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    int n;
    if (env && *env)
        n = snprintf(out, cap, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(out, cap, "%s/zkbench/params", xdg);
    else if (home && *home)
        n = snprintf(out, cap, "%s/.cache/zkbench/params", home);
    else
        n = snprintf(out, cap, "/tmp/zkbench-params");
    if (n < 0 || (size_t)n >= cap) {
        snprintf(err, err_cap, "parameter cache path too long");
        return -ENAMETOOLONG;
    }
    int rc = cli_mkdir_p(out);
    if (rc < 0)
        snprintf(err, err_cap, "cannot create the parameter cache %s: %s (set ZKBENCH_PARAMS_DIR)", out,
                 strerror(-rc));
    return rc;
}

/* A file name from the circuit's canonical spec, without the partition
 * count (the keys do not depend on it). */
static void cache_name(char *out, size_t cap, const circuit_t *circ)
{
    size_t k = 0;
    for (const char *s = circ->spec; *s && k + 1 < cap; s++) {
        if (strncmp(s, "partitions=", 11) == 0) {
            while (*s && *s != ',')
                s++;
            if (!*s)
                break;
            continue;
        }
        char ch = *s;
        out[k++] = (ch == ':' || ch == ',' || ch == '=') ? '-' : ch;
    }
    while (k > 0 && out[k - 1] == '-')
        k--;
    out[k] = 0;
}

int param_cache_load(groth16_params_t **ret, const circuit_t *circ, const groth16_shape_t *shape,
                     unsigned threads, bool *generated, char *path_out, size_t path_cap, char *err,
                     size_t err_cap)
{
    char dir[4096], name[512];
    int rc = param_cache_dir(dir, sizeof dir, err, err_cap);
    if (rc < 0)
        return rc;
    cache_name(name, sizeof name, circ);
    if ((size_t)snprintf(path_out, path_cap, "%s/%s.params", dir, name) >= path_cap) {
        snprintf(err, err_cap, "parameter cache path too long");
        return -ENAMETOOLONG;
    }
    *generated = false;
    if (access(path_out, R_OK) != 0) {
        groth16_params_t *pk;
        if ((rc = groth16_setup(&pk, shape, /* seed= */ 1, threads)) < 0) {
            snprintf(err, err_cap, "generating parameters for %s failed: %s", circ->spec, strerror(-rc));
            return rc;
        }
        params_error_t perr;
        char vk_path[4200];
        snprintf(vk_path, sizeof vk_path, "%.4090s.vk", path_out);
        rc = params_write(path_out, pk, &perr);
        if (rc == 0)
            rc = params_vk_write(vk_path, &pk->vk, &perr);
        params_free(pk);
        if (rc < 0) {
            snprintf(err, err_cap, "%s", perr.msg);
            return rc;
        }
        *generated = true;
    }
    params_error_t perr;
    rc = params_read(ret, path_out, PARAMS_NO_SUBGROUP_CHECK, threads, &perr);
    if (rc < 0) {
        snprintf(err, err_cap, "%s (delete it to regenerate)", perr.msg);
        return rc;
    }
    if (groth16_params_check(*ret, shape, err, err_cap) < 0) {
        params_free(*ret);
        *ret = NULL;
        return -EINVAL;
    }
    return 0;
}
