/* A process's start time; see proc_stat.h. */
#include "harness/run/proc_stat.h"

#include <stdio.h>
#include <string.h>

/* The command name (field 2) may hold spaces and parentheses: the fields
 * are counted from its end. */
unsigned long long proc_stat_start_ticks(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    unsigned long long v = 0;
    for (int field = 2; p && *p && field < 22; p++)
        if (*p == ' ')
            field++;
    if (p && sscanf(p, "%llu", &v) != 1)
        v = 0;
    return v;
}


void proc_stat_boot_id(char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f)
        return;
    if (!fgets(out, (int)cap, f))
        out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
}
