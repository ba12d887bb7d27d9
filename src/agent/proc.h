/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the process tool's agent commands share (proc_ops.c: list, poll,
 * log, wait, kill, write; proc_start.c: start and the supervisor): the
 * state directory's caps, its lock, the log's pruning, the scripts'
 * refusal.  docs/process.md describes the layout.
 */
#ifndef CLAW_AGENT_PROC_H
#define CLAW_AGENT_PROC_H

#define PROC_FAIL	3			/* clawfail's status */
#define PROC_CHUNK_MAX	1073741824ULL		/* process_open.sh's caps */
#define PROC_CAP_MAX	17179869184ULL

/*
 * "clawssh-error: MESSAGE" on stderr as clawfail says it, the lock given
 * back if this process holds one, and exit PROC_FAIL.
 */
void	proc_fail(const char *fmt, ...)
	    __attribute__((__noreturn__, format(printf, 1, 2)));
/* The scripts' clawnap: a tenth of a second. */
void	proc_nap(void);
/* Whether s is a non-empty run of digits. */
int	proc_digits(const char *s);
/*
 * Open SANDBOX (not a link, with a workspace directory) with umask 077
 * set and its last-used touched: a descriptor, or the scripts' refusal.
 */
int	proc_sandbox(const char *sd);
/*
 * The mkdir lock "lock" below dfd within tries naps, a lock older than a
 * minute broken: 0, or -1 if it stayed taken.
 */
int	proc_lock(int dfd, int tries);
void	proc_unlock(int dfd);
/*
 * Delete the oldest log chunks below dfd until the rest fit in limit
 * bytes, never the newest; quietly nothing when they cannot be listed.
 */
void	proc_prune(int dfd, unsigned long long limit);
/* Write text to name below dfd, made or emptied, no link followed. */
void	proc_put_file(int dfd, const char *name, const char *text);

/*
 * A process's identity, "BOOT_ID START" (/proc/PID/stat's start time in
 * ticks since this boot), into out: 0, or -1 when pid is gone.  Its
 * writer puts it in NAME.ident beside the pid file NAME (pid, sup).
 */
#define PROC_IDENT_MAX	80
int	proc_ident(long pid, char *out, size_t len);
/* Write pid's identity to NAME.ident below dfd (nothing if pid is gone). */
void	proc_put_ident(int dfd, const char *name, long pid);

/*
 * Whether the pid file name below dfd still names its process: alive,
 * with the identity of name.ident (a pid file without one, from before
 * identities were kept, is taken at its word).  Pids come round, and
 * all of them after a reboot: a pid of a process long gone is another
 * process by now, and its group and session are not ours to signal.
 */
int	proc_ours(int dfd, const char *name);
/* Open the FIFO name below dfd read-write, no link followed; or -1. */
int	proc_fifo(int dfd, const char *name);

#endif /* CLAW_AGENT_PROC_H */
