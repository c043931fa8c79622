/*
 * Units, kind colours and run names of the figures (plot_style.h).
 */
#include "harness/plot/plot_style.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prover/mem.h"

plot_unit_t plot_unit_for(double max_bytes)
{
    static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = isfinite(max_bytes) ? fabs(max_bytes) : 0, div = 1;
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        div *= 1024.0;
        u++;
    }
    return (plot_unit_t){div, unit[u]};
}

/* By enum mem_kind: host kinds in distinct hues, each device kind a lighter
 * shade of its host kind's hue (pairs of the "tab20" palette). */
static const char *const kind_color[] = {
    [MEM_KIND_PARAMS] = "#1f77b4",  [MEM_KIND_CIRCUIT] = "#9467bd", [MEM_KIND_AUX] = "#2ca02c",
    [MEM_KIND_ABC] = "#ff7f0e",     [MEM_KIND_NTT] = "#17becf",     [MEM_KIND_H] = "#bcbd22",
    [MEM_KIND_MSM] = "#d62728",     [MEM_KIND_PENDING] = "#e377c2", [MEM_KIND_PINNED] = "#8c564b",
    [MEM_KIND_OTHER] = "#7f7f7f",   [MEM_KIND_GPU_PARAMS] = "#aec7e8", [MEM_KIND_GPU_ABC] = "#ffbb78",
    [MEM_KIND_GPU_NTT] = "#9edae5", [MEM_KIND_GPU_H] = "#dbdb8d",   [MEM_KIND_GPU_MSM] = "#ff9896",
    [MEM_KIND_GPU_OTHER] = "#c7c7c7",
};
_Static_assert(sizeof kind_color / sizeof *kind_color == MEM_KIND_COUNT, "a colour for every kind of prover/mem.h");

/* Names that are not kinds of prover/mem.h (older runs): darker hues that
 * none of the kinds above use. */
static const char *const extra_color[] = {"#393b79", "#637939", "#8c6d31", "#843c39",
                                          "#7b4173", "#3182bd", "#31a354", "#756bb1"};

static int kind_index(const char *kind)
{
    for (int k = 0; k < MEM_KIND_COUNT; k++)
        if (strcmp(kind, mem_kind_name((enum mem_kind)k)) == 0)
            return k;
    return -1;
}

const char *plot_kind_color(const char *kind)
{
    int k = kind_index(kind);
    if (k >= 0)
        return kind_color[k];
    unsigned h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)kind; *p; p++)
        h = (h ^ *p) * 16777619u;
    return extra_color[h % (sizeof extra_color / sizeof *extra_color)];
}

bool plot_kind_is_device(const char *kind)
{
    return strncmp(kind, "gpu_", 4) == 0;
}

int plot_kind_cmp(const char *a, const char *b)
{
    int ka = kind_index(a), kb = kind_index(b);
    if (ka >= 0 && kb >= 0)
        return (ka > kb) - (ka < kb);
    if (ka >= 0 || kb >= 0)
        return ka >= 0 ? -1 : 1;
    return strcmp(a, b);
}

const char *plot_run_name(char *buf, size_t len, const char *run_dir)
{
    char abs[PATH_MAX];
    const char *p = realpath(run_dir, abs) ? abs : run_dir;
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        n--;
    size_t s = n;
    while (s > 0 && p[s - 1] != '/')
        s--;
    if (n - s == 0) /* "/" */
        snprintf(buf, len, "/");
    else
        snprintf(buf, len, "%.*s", (int)(n - s), p + s);
    return buf;
}

void plot_words_add(char *buf, size_t len, const char *word)
{
    size_t n = strlen(buf);
    if (n && n + 1 < len)
        buf[n++] = ' ';
    while (*word && n + 1 < len)
        buf[n++] = *word++;
    buf[n < len ? n : len - 1] = '\0';
}
