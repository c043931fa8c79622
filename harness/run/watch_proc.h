/*
 * The command `zkbench watch -- CMD` starts, and what ties its life to
 * watch's (docs/watch.md, "Signals"):
 * - the command runs in a process group of its own, so that a signal watch
 *   passes on reaches every process of it (a shell script's children too);
 *   on a terminal that group gets the terminal, as a shell's job does, and
 *   watch takes it back at the end;
 * - the command gets PR_SET_PDEATHSIG(SIGKILL): watch killed, it is killed;
 * - a guardian process (outside the group, in a session of its own) waits
 *   on a pipe from watch; when watch ends without releasing it (a
 *   supervisor's SIGKILL, a crash) it SIGKILLs the command's group and,
 *   with --mem-limit, every process left in the command's cgroup, so no
 *   process of the command outlives watch.
 * Library code: nothing printed, errors as -errno.
 */
#ifndef ZKB_WATCH_PROC_H
#define ZKB_WATCH_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/*
 * Whether cmd0 can be run as execvp would run it: a path (with a '/') to
 * an executable regular file, or a name found on $PATH. 0, or -ENOENT (not
 * found), -EACCES (not executable), -EISDIR (a folder), with one line in
 * err naming it.
 */
int watch_proc_check_command(const char *cmd0, char *err, size_t errlen);

/* Whether pid is a process with memory of its own to sample: -ESRCH (no
 * such process, or a zombie), -EINVAL (a kernel thread), with one line in
 * err naming it. */
int watch_proc_check_pid(pid_t pid, char *err, size_t errlen);

/* Hands the terminal on stdin to process group pgid when this process's
 * group has it in the foreground; returns whether it did (then
 * watch_proc_take_terminal gives it back). */
bool watch_proc_give_terminal(pid_t pgid);
void watch_proc_take_terminal(void);

/* In the command's child, after fork and before exec: its own process
 * group, the terminal when watch had it (give_terminal), and SIGKILL when
 * watch dies. parent: watch's pid. 0 or -errno. */
int watch_proc_child_setup(pid_t parent, bool terminal);

/*
 * Starts the guardian of process group pgid (and, when cgroup_dir is not
 * NULL, of every process in that cgroup folder). Returns the write end of
 * its pipe (close-on-exec), or -errno. watch_proc_guard_release tells it
 * the command ended as watch meant (it exits without a kill) and closes
 * the pipe; a watch that ends without that has its command killed.
 */
int watch_proc_guard_start(pid_t pgid, const char *cgroup_dir);
void watch_proc_guard_release(int *fd);

/* Whether any process of group pgid is left. */
bool watch_proc_group_alive(pid_t pgid);

/* True when pid has ended: gone, or a zombie its parent has not reaped. */
bool watch_proc_ended(pid_t pid);
/* After the sampler found no memory to read: whether the process ended
 * (the run is then empty, not an error). A command (child) is reaped into
 * *status; a --pid process gets about a second to finish exiting. */
bool watch_proc_ended_early(pid_t pid, bool child, int *status);

/* The watched command line in out (cap bytes; for the metrics' labels):
 * cmd's words joined by spaces, or without cmd /proc/PID/cmdline's ("" when
 * unreadable). */
void watch_proc_cmdline(char *out, size_t cap, char **cmd, pid_t pid);

#endif
