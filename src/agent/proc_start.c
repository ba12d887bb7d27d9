/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh-agent proc-start: the process tool's start and its supervisor,
 * in place of process_start.sh and process_supervisor.sh (a sh, a holder
 * subshell, a marker loop that forks sleep every second, setsid -w, and
 * split starting a filter sh per chunk: one process here, plus the
 * command).  It writes the layout of docs/process.md, which proc_ops.c
 * and the scripts read:
 *
 *   proc-start SANDBOX HANDLE CAP CHUNK NAME CMD ARGV...
 *
 * run in the workspace with the command's environment exported (the
 * exec wrapper's).  It makes SANDBOX/procs/HANDLE (umask 077), starts
 * the supervisor in a session of its own, and prints "clawssh-started
 * HANDLE" once the command runs and its pid file is there; refusals are
 * "clawssh-error: MESSAGE" and status 3, as the script's.
 *
 * The supervisor holds the stdin FIFO "in" open read-write (the holder:
 * the command never reads end-of-file until "process write --eof" writes
 * a line to "ctl", or the command ends), runs the command as the leader
 * of a new session with stdin from "in" and stdout and stderr into a
 * pipe, cuts that pipe into chunks log.NNNNNN of CHUNK bytes (pruning
 * under the lock before each new one, as split's filter did), touches
 * the sandbox's last-used every minute while the command runs, writes
 * rc (128+N for signal N) when it exits and done once the pipe closes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "proc.h"

#define START_WAIT_MS	10000		/* the script's 100 naps */
#define START_NAME_MAX	64		/* process.h's PROCESS_NAME_MAX */
#define START_CMD_MAX	4096		/* PROCESS_CMD_MAX */
#define START_CHUNKS	999999ULL	/* split -a 6 -d's last suffix */
#define START_TOUCH_MS	60000		/* last-used while it runs */

/* The supervisor's state. */
struct sup {
	int		 sdfd, dfd;
	int		 hold;		/* "in" read-write, until released */
	int		 ctl;		/* "ctl", until released */
	int		 out;		/* the output pipe, until its end */
	int		 log;		/* the chunk being written, or -1 */
	pid_t		 pid;
	int		 exited;
	unsigned long long cap, chunk;
	unsigned long long k;		/* the chunk's number */
	unsigned long long fill;	/* bytes in it */
};

static int	sup_chld[2] = { -1, -1 };	/* SIGCHLD's self-pipe */

/* SIGCHLD: wake the supervisor's poll. */
static void
sup_on_chld(int sig)
{
	int	saved = errno;

	(void)sig;
	(void)write(sup_chld[1], "c", 1);
	errno = saved;
}

/* Whether h is a process handle: "p" and 8 lowercase hex digits. */
static int
start_handle_ok(const char *h)
{
	size_t	i;

	if (h[0] != 'p' || strlen(h) != 9)
		return 0;
	for (i = 1; i < 9; i++)
		if (!((h[i] >= '0' && h[i] <= '9') ||
		    (h[i] >= 'a' && h[i] <= 'f')))
			return 0;
	return 1;
}

/* A one-line field of at most max bytes (no newline): whether s is. */
static int
start_field_ok(const char *s, size_t max)
{
	return *s != '\0' && strlen(s) <= max && strchr(s, '\n') == NULL;
}

/* A number argument up to max, or the refusal. */
static unsigned long long
start_num(const char *s, unsigned long long max)
{
	unsigned long long	v;

	if (!proc_digits(s) || strlen(s) > 11 ||
	    (v = strtoull(s, NULL, 10)) == 0 || v > max)
		proc_fail("bad arguments to proc-start");
	return v;
}

/* Write "TEXT\n" to name below dfd, made new, no link followed: 0 or -1. */
static int
start_put(int dfd, const char *name, const char *text)
{
	size_t	n = strlen(text);
	char	*line = xmalloc(n + 2);
	int	fd, rc;

	memcpy(line, text, n);
	memcpy(line + n, "\n", 2);
	if ((fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1) {
		free(line);
		return -1;
	}
	rc = write_all(fd, line, n + 1);
	free(line);
	if (close(fd) != 0 || rc != 0)
		return -1;
	return 0;
}

/*
 * Make SANDBOX/procs/HANDLE with its FIFOs and its description files: the
 * directory's descriptor, or the script's refusal.
 */
static int
start_dir(int sdfd, const char *sd, const char *h, unsigned long long cap,
    unsigned long long chunk, const char *name, const char *cmd)
{
	char	cap_s[24], chunk_s[24], t0[24];
	int	procs, dfd;

	if (mkdirat(sdfd, "procs", 0700) == -1 && errno != EEXIST)
		proc_fail("cannot create %s/procs/%s", sd, h);
	if ((procs = openat(sdfd, "procs", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1)
		proc_fail("%s/procs is a symbolic link", sd);
	if (mkdirat(procs, h, 0700) == -1 || (dfd = openat(procs, h,
	    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		proc_fail("cannot create %s/procs/%s", sd, h);
	close(procs);
	if (mkfifoat(dfd, "in", 0600) == -1 ||
	    mkfifoat(dfd, "ctl", 0600) == -1)
		proc_fail("cannot create FIFOs in %s/procs/%s", sd, h);
	snprintf(cap_s, sizeof(cap_s), "%llu", cap);
	snprintf(chunk_s, sizeof(chunk_s), "%llu", chunk);
	snprintf(t0, sizeof(t0), "%lld", (long long)time(NULL));
	if (start_put(dfd, "max", cap_s) != 0 ||
	    start_put(dfd, "chunk", chunk_s) != 0 ||
	    start_put(dfd, "name", name) != 0 ||
	    start_put(dfd, "cmd", cmd) != 0 ||
	    start_put(dfd, "start", t0) != 0)
		proc_fail("cannot write %s/procs/%s", sd, h);
	return dfd;
}

/* Give the holder up: the command reads end-of-file once no writer is left. */
static void
sup_release(struct sup *s)
{
	if (s->hold != -1)
		close(s->hold);
	if (s->ctl != -1)
		close(s->ctl);
	s->hold = s->ctl = -1;
}

/* Start chunk s->k, the older ones pruned first as split's filter did. */
static void
sup_chunk_open(struct sup *s)
{
	char	name[24];

	if (s->k > START_CHUNKS)
		return;		/* split's names ran out: drained, not kept */
	if (proc_lock(s->dfd, 20) == 0) {
		proc_prune(s->dfd, s->cap - s->chunk);
		proc_unlock(s->dfd);
	}
	snprintf(name, sizeof(name), "log.%06llu", s->k);
	s->log = openat(s->dfd, name, O_WRONLY | O_CREAT | O_TRUNC |
	    O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
}

/*
 * Append output to the log: chunk k holds bytes k * chunk up to the
 * next, so a chunk that could not be opened or written still counts.
 */
static void
sup_put(struct sup *s, const char *p, size_t n)
{
	size_t	take;

	while (n > 0) {
		if (s->fill == 0)
			sup_chunk_open(s);
		take = n;
		if (take > s->chunk - s->fill)
			take = (size_t)(s->chunk - s->fill);
		if (s->log != -1 && write_all(s->log, p, take) != 0) {
			close(s->log);
			s->log = -1;
		}
		s->fill += take;
		p += take;
		n -= take;
		if (s->fill == s->chunk) {
			if (s->log != -1)
				close(s->log);
			s->log = -1;
			s->fill = 0;
			s->k++;
		}
	}
}

/* Reap the command: rc (128+N for signal N), and the holder released. */
static void
sup_reap(struct sup *s)
{
	char	text[24];
	int	status;
	pid_t	w;

	while ((w = waitpid(-1, &status, WNOHANG)) > 0) {
		if (w != s->pid || s->exited)
			continue;
		snprintf(text, sizeof(text), "%d\n", WIFEXITED(status) ?
		    WEXITSTATUS(status) : 128 + WTERMSIG(status));
		proc_put_file(s->dfd, "rc.t", text);
		(void)renameat(s->dfd, "rc.t", s->dfd, "rc");
		s->exited = 1;
		sup_release(s);
	}
}

/* One readable descriptor of the loop. */
static void
sup_ready(struct sup *s, int fd)
{
	char	buf[64 * 1024];
	ssize_t	n;

	n = read(fd, buf, sizeof(buf));
	if (fd == sup_chld[0])
		sup_reap(s);
	else if (fd == s->ctl && n > 0)
		sup_release(s);			/* process write --eof */
	else if (fd == s->out && n > 0)
		sup_put(s, buf, (size_t)n);
	else if (fd == s->out && (n == 0 || (errno != EINTR &&
	    errno != EAGAIN))) {
		close(s->out);
		s->out = -1;
	}
}

/*
 * Until the command has exited and its output pipe closed (descendants
 * may hold it longer): copy output, reap, release on "ctl", and touch
 * last-used every minute while it runs.
 */
static void
sup_loop(struct sup *s)
{
	struct pollfd	pf[3];
	uint64_t	next = 0, now;
	int		n, i, timeout;

	while (s->out != -1 || !s->exited) {
		now = mono_ms();
		if (!s->exited && now >= next) {
			(void)utimensat(s->sdfd, "last-used", NULL,
			    AT_SYMLINK_NOFOLLOW);
			next = now + START_TOUCH_MS;
		}
		n = 0;
		pf[n].fd = sup_chld[0];
		pf[n++].events = POLLIN;
		if (s->out != -1) {
			pf[n].fd = s->out;
			pf[n++].events = POLLIN;
		}
		if (s->ctl != -1) {
			pf[n].fd = s->ctl;
			pf[n++].events = POLLIN;
		}
		timeout = s->exited ? -1 : (int)(next - now);
		if (poll(pf, (nfds_t)n, timeout) == -1) {
			if (errno != EINTR)
				proc_nap();
			continue;
		}
		for (i = 0; i < n; i++)
			if (pf[i].revents != 0)
				sup_ready(s, pf[i].fd);
	}
}

/*
 * The command's side of the fork: a session of its own, stdin from "in",
 * stdout and stderr into out, the caller's umask and signals; ex gets
 * errno if it cannot be run (closed on exec otherwise).
 */
static void __attribute__((__noreturn__))
sup_child(const struct sup *s, int out, int ex, mode_t um, char **argv)
{
	sigset_t	none;
	int		in, e;

	(void)setsid();
	signal(SIGCHLD, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	umask(um);
	if ((in = openat(s->dfd, "in", O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1 || dup2(in, 0) == -1 || dup2(out, 1) == -1 ||
	    dup2(out, 2) == -1)
		e = errno;
	else {
		execvp(argv[0], argv);
		e = errno;
		dprintf(2, "clawssh: cannot run %s: %s\n", argv[0],
		    strerror(e));
	}
	(void)write(ex, &e, sizeof(e));
	_exit(e == ENOENT ? 127 : 126);
}

/*
 * Fork the command; once it has its session (its exec, or its failure,
 * seen on a pipe) write its pid file: 0, or -1 when that failed (the
 * command then killed).
 */
static int
sup_spawn(struct sup *s, mode_t um, char **argv)
{
	char	text[24];
	int	out[2], ex[2], e;
	ssize_t	n;

	if (pipe2(out, O_CLOEXEC) == -1 || pipe2(ex, O_CLOEXEC) == -1 ||
	    (s->pid = fork()) == -1)
		return -1;
	if (s->pid == 0)
		sup_child(s, out[1], ex[1], um, argv);
	close(out[1]);
	close(ex[1]);
	s->out = out[0];
	while ((n = read(ex[0], &e, sizeof(e))) == -1 && errno == EINTR)
		;
	close(ex[0]);
	proc_put_ident(s->dfd, "pid", (long)s->pid);	/* not reaped yet */
	snprintf(text, sizeof(text), "%ld\n", (long)s->pid);
	proc_put_file(s->dfd, "pid.t", text);
	if (renameat(s->dfd, "pid.t", s->dfd, "pid") != 0) {
		kill(-s->pid, SIGKILL);
		kill(s->pid, SIGKILL);
		return -1;
	}
	return 0;
}

/*
 * The supervisor (proc-start's child): a session of its own with nothing
 * of the caller's open, then the command, its output and its end.  It
 * tells the caller on ready: 's' once the command runs, 'f' if not.
 */
static void __attribute__((__noreturn__))
sup_main(struct sup *s, int ready, mode_t um, char **argv)
{
	struct sigaction	sa;
	char			text[24];
	int			nul, keep[3], ok;

	(void)setsid();
	if ((nul = open("/dev/null", O_RDWR | O_CLOEXEC)) != -1) {
		(void)dup2(nul, 0);
		(void)dup2(nul, 1);
		(void)dup2(nul, 2);
	}
	keep[0] = s->sdfd;
	keep[1] = s->dfd;
	keep[2] = ready;
	if (keep[0] > keep[1]) {
		keep[0] = s->dfd;
		keep[1] = s->sdfd;
	}
	if (keep[2] < keep[1]) {	/* ready came last, but be sure */
		keep[2] = keep[1];
		keep[1] = ready;
	}
	fd_close_from(3, keep, 3);
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	proc_put_ident(s->dfd, "sup", (long)getpid());
	snprintf(text, sizeof(text), "%ld\n", (long)getpid());
	proc_put_file(s->dfd, "sup", text);
	s->hold = proc_fifo(s->dfd, "in");
	s->ctl = proc_fifo(s->dfd, "ctl");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sup_on_chld;
	sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
	ok = s->hold != -1 && s->ctl != -1 &&
	    fd_set_nonblock(s->ctl, 1) == 0 &&
	    pipe2(sup_chld, O_CLOEXEC | O_NONBLOCK) == 0 &&
	    sigaction(SIGCHLD, &sa, NULL) == 0 && sup_spawn(s, um, argv) == 0;
	(void)write_all(ready, ok ? "s" : "f", 1);
	close(ready);
	if (s->pid <= 0)
		_exit(PROC_FAIL);
	sup_loop(s);
	if (s->log != -1)
		close(s->log);
	if (proc_lock(s->dfd, 100) == 0) {
		proc_prune(s->dfd, s->cap);
		proc_unlock(s->dfd);
	}
	proc_put_file(s->dfd, "done", "");
	_exit(0);
}

/* Wait up to START_WAIT_MS for the supervisor's word: whether it ran. */
static int
start_wait(int ready)
{
	struct pollfd	pf;
	uint64_t	end = mono_ms() + START_WAIT_MS, now;
	char		c = 0;

	pf.fd = ready;
	pf.events = POLLIN;
	while ((now = mono_ms()) < end) {
		if (poll(&pf, 1, (int)(end - now)) == -1 && errno != EINTR)
			return 0;
		if (pf.revents != 0)
			return read(ready, &c, 1) == 1 && c == 's';
	}
	return 0;
}

/* proc-start SANDBOX HANDLE CAP CHUNK NAME CMD ARGV...: see the top. */
int
proc_start_main(int argc, char **argv)
{
	struct sup	s;
	const char	*sd = argv[1], *h = argv[2];
	mode_t		 um = umask(077);
	int		 ready[2];
	pid_t		 pid;

	if (argc < 8) {
		fprintf(stderr, "usage: clawssh-agent proc-start SANDBOX "
		    "HANDLE CAP CHUNK NAME CMD ARGV...\n");
		return AGENT_EXIT_ERR;
	}
	memset(&s, 0, sizeof(s));
	s.log = s.out = s.hold = s.ctl = -1;
	s.cap = start_num(argv[3], PROC_CAP_MAX);
	s.chunk = start_num(argv[4], PROC_CHUNK_MAX);
	if (!start_handle_ok(h) || s.chunk > s.cap ||
	    !start_field_ok(argv[5], START_NAME_MAX) ||
	    !start_field_ok(argv[6], START_CMD_MAX) || argv[7][0] == '\0')
		proc_fail("bad arguments to proc-start");
	s.sdfd = proc_sandbox(sd);
	s.dfd = start_dir(s.sdfd, sd, h, s.cap, s.chunk, argv[5], argv[6]);
	if (pipe2(ready, O_CLOEXEC) == -1 || (pid = fork()) == -1)
		proc_fail("process %s did not start: %s", h, strerror(errno));
	if (pid == 0) {
		close(ready[0]);
		sup_main(&s, ready[1], um, argv + 7);
	}
	close(ready[1]);
	if (!start_wait(ready[0]))
		proc_fail("process %s did not start", h);
	printf("clawssh-started %s\n", h);
	return fflush(stdout) == 0 ? 0 : PROC_FAIL;
}
