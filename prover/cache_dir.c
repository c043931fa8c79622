/* The cache folder; see cache_dir.h. */
#include "prover/cache_dir.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int cache_dir_default(char *out, size_t cap)
{
    const char *env = getenv("ZKBENCH_PARAMS_DIR");
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    char path[4096];
    int n;
    if (env && *env)
        n = snprintf(path, sizeof path, "%s", env);
    else if (xdg && *xdg)
        n = snprintf(path, sizeof path, "%s/zkbench/params", xdg);
    else if (home && *home)
        n = snprintf(path, sizeof path, "%s/.cache/zkbench/params", home);
    else
        n = snprintf(path, sizeof path, "/tmp/zkbench-params");
    if (n < 0 || (size_t)n >= sizeof path || (size_t)n >= cap)
        return -ENAMETOOLONG;
    memcpy(out, path, (size_t)n + 1);
    return 0;
}

int cache_dir_make(const char *path)
{
    char tmp[4096];
    size_t len = strlen(path);
    if (len == 0)
        return -EINVAL;
    if (len >= sizeof tmp)
        return -ENAMETOOLONG;
    memcpy(tmp, path, len + 1);
    for (char *p = tmp + 1;; p++) {
        bool last = *p == 0;
        if (*p != '/' && !last)
            continue;
        *p = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST)
            return -errno;
        if (last)
            return 0;
        *p = '/';
    }
}
