/*
 * A process's start time (field 22 of /proc/PID/stat, clock ticks since
 * boot): with the pid and the boot id it names one process for good, so a
 * run.json's writer can be told from a later process given the same pid.
 */
#ifndef ZKB_PROC_STAT_H
#define ZKB_PROC_STAT_H

#include <stddef.h>
#include <sys/types.h>

/* 0 when there is no such process (or its stat cannot be read). */
unsigned long long proc_stat_start_ticks(pid_t pid);
/* This boot's id (/proc/sys/kernel/random/boot_id) into out; "" when it
 * cannot be read. */
void proc_stat_boot_id(char *out, size_t cap);

#endif
