/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The process tool's host side as the agent's own commands, in place of
 * the sh scripts of src/tools/process_scripts.h (process_list.sh,
 * _poll, _log, _wait, _kill, _write), whose head, tr, cat, tail, wc and
 * mv cost a call a dozen process starts.  Each keeps its script's
 * contract: the same directory layout (the supervisor, process_start.sh
 * and process_supervisor.sh, still writes it), the same lock (a mkdir,
 * broken when older than a minute), the same output and the same
 * refusals ("clawssh-error: MESSAGE" on stderr, status 3).  They run on
 * the host as the user, outside any sandbox; the state files are read
 * as hostile (bounded, no link followed below SANDBOX).
 *
 *   proc-list SANDBOX                  a state line per process
 *   proc-poll SANDBOX HANDLE           state, "clawssh-out DROPPED LEN",
 *                                      LEN bytes since the last poll
 *   proc-log SANDBOX HANDLE [LINES]    as poll, the kept log or its end
 *   proc-wait SANDBOX HANDLE DS        up to DS tenths for the end
 *   proc-kill SANDBOX HANDLE SIGNUM ESCALATE GRACE
 *   proc-write SANDBOX HANDLE EOF      stdin to the process's FIFO
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "proc.h"

#define PROC_CHUNKS_MAX	4096			/* log chunks looked at */
#define PROC_STR_(x)	#x
#define PROC_STR(x)	PROC_STR_(x)
#define PROC_IO		(64 * 1024)
#define PROC_LOCK_STALE	60			/* seconds: a dead holder's */
#define PROC_LINE_MAX	(4096 + 256)		/* a state line */

/* One process directory, opened. */
struct proc {
	const char	*sd;		/* SANDBOX */
	const char	*h;		/* HANDLE */
	int		 sdfd;
	int		 dfd;		/* SANDBOX/procs/HANDLE */
	unsigned long long cap, chunk;
};

/* The log's kept chunks, opened, their sizes taken under the lock. */
struct proc_log {
	int		 fd[PROC_CHUNKS_MAX];
	off_t		 size[PROC_CHUNKS_MAX];
	size_t		 n;
	unsigned long long first;	/* the first kept chunk's number */
	unsigned long long total;
};

static volatile sig_atomic_t proc_lock_dfd = -1;

/* Say why as clawfail does, and exit 3. */
void
proc_fail(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	step_error(fmt, ap);
	va_end(ap);
	if (proc_lock_dfd != -1)
		unlinkat(proc_lock_dfd, "lock", AT_REMOVEDIR);
	exit(PROC_FAIL);
}

/* TERM, INT, HUP: give the lock back, then end as the script's trap. */
static void
proc_on_signal(int sig)
{
	(void)sig;
	if (proc_lock_dfd != -1)
		unlinkat(proc_lock_dfd, "lock", AT_REMOVEDIR);
	_exit(143);
}

/* The scripts' clawnap: a tenth of a second. */
void
proc_nap(void)
{
	struct timespec	ts = { 0, 100 * 1000 * 1000 };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * "head -c max FILE | tr -d '\n'" below dfd, without following a link:
 * the length, or -1 when it cannot be read.  out has max + 1 bytes.
 */
static ssize_t
proc_read_field(int dfd, const char *name, char *out, size_t max)
{
	size_t	len = 0, i, j;
	ssize_t	n;
	int	fd;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC | O_NOCTTY)) == -1)
		return -1;
	while (len < max && (n = read(fd, out + len, max - len)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			close(fd);
			return -1;
		}
		len += (size_t)n;
	}
	close(fd);
	for (i = j = 0; i < len; i++)
		if (out[i] != '\n')
			out[j++] = out[i];
	out[j] = '\0';
	return (ssize_t)j;
}

/* Whether s is a non-empty run of digits (case ''|*[!0-9]*). */
int
proc_digits(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

/* Whether name exists below dfd (a link counts, as [ -e ] of it would). */
static int
proc_exists(int dfd, const char *name)
{
	struct stat	st;

	return fstatat(dfd, name, &st, 0) == 0;
}

/* Identify pid; see proc.h. */
int
proc_ident(long pid, char *out, size_t len)
{
	char	path[64], stat[1024], boot[64], *rp, *end;
	size_t	n;
	int	field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (pid <= 0 || read_file(path, stat, sizeof(stat)) <= 0 ||
	    (rp = strrchr(stat, ')')) == NULL ||
	    read_file("/proc/sys/kernel/random/boot_id", boot,
	    sizeof(boot)) <= 0)
		return -1;
	/* ") state ppid ...": the start time is the 20th word after it */
	for (field = 1, rp++; field < 20 && rp != NULL; field++)
		rp = strchr(rp + 1, ' ');
	if (rp == NULL || (n = strspn(++rp, "0123456789")) == 0 || n > 20)
		return -1;
	if ((end = strchr(boot, '\n')) != NULL)
		*end = '\0';
	return snprintf(out, len, "%s %.*s", boot, (int)n, rp) < (int)len ?
	    0 : -1;
}

/* Whether the pid file name below dfd names its process still; proc.h. */
int
proc_ours(int dfd, const char *name)
{
	char	buf[25], file[32], want[PROC_IDENT_MAX + 1];
	char	now[PROC_IDENT_MAX];
	ssize_t	n;
	long	pid;

	if (proc_read_field(dfd, name, buf, 24) < 0 || !proc_digits(buf) ||
	    strlen(buf) > 9 || (pid = strtol(buf, NULL, 10)) <= 1)
		return 0;
	if (proc_ident(pid, now, sizeof(now)) != 0)
		return 0;		/* gone */
	snprintf(file, sizeof(file), "%s.ident", name);
	if ((n = proc_read_field(dfd, file, want, PROC_IDENT_MAX)) < 0 &&
	    errno != ENOENT)
		return 0;
	if (n <= 0)
		return 1;	/* recorded before idents were, or without */
	return strcmp(want, now) == 0;
}

/*
 * clawstate [WAIT]: the state line of the process in dfd into line
 * (PROC_LINE_MAX), newline included; with wait, an exited one gets up to
 * 5 s for its output to be complete.
 */
static void
proc_state(int dfd, const char *h, int wait, char *line)
{
	char		 rc[25] = "", nm[101] = "", t0[25] = "", cm[4097] = "";
	const char	*st = "running";
	int		 n;

	if (proc_exists(dfd, "rc")) {
		for (n = 0; wait && !proc_exists(dfd, "done") && n < 50; n++)
			proc_nap();
		if (proc_read_field(dfd, "rc", rc, 24) < 0)
			rc[0] = '\0';
		st = proc_exists(dfd, "killed") ? "killed" : "exited";
	} else if (!proc_ours(dfd, "sup"))
		st = "lost";
	if (proc_read_field(dfd, "name", nm, 100) < 0)
		nm[0] = '\0';
	if (proc_read_field(dfd, "start", t0, 24) < 0)
		t0[0] = '\0';
	if (proc_read_field(dfd, "cmd", cm, 4096) < 0)
		cm[0] = '\0';
	snprintf(line, PROC_LINE_MAX, "clawssh-proc %s %s %s %s %s %s\n", h,
	    nm[0] != '\0' ? nm : "-", st, rc[0] != '\0' ? rc : "-",
	    t0[0] != '\0' ? t0 : "0", cm);
}

/* touch -c SANDBOX/last-used, as each script does; a failure is fine. */
static void
proc_touch(int sdfd)
{
	(void)utimensat(sdfd, "last-used", NULL, AT_SYMLINK_NOFOLLOW);
}

/*
 * Open SANDBOX (not a link, with a workspace directory): its descriptor,
 * or the scripts' refusal.
 */
int
proc_sandbox(const char *sd)
{
	struct stat	st;
	int		fd;

	umask(077);
	if ((fd = open(sd, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || fstatat(fd, "workspace", &st, 0) != 0 ||
	    !S_ISDIR(st.st_mode))
		proc_fail("sandbox %s no longer exists on this host", sd);
	proc_touch(fd);
	return fd;
}

/* A number file of p (max, chunk, pid): process_open.sh's num. */
static unsigned long long
proc_num(struct proc *p, const char *name)
{
	char	buf[19];

	if (proc_read_field(p->dfd, name, buf, 18) < 0 || !proc_digits(buf))
		proc_fail("garbled state file %s/procs/%s/%s", p->sd, p->h,
		    name);
	return strtoull(buf, NULL, 10);
}

/* process_open.sh: SANDBOX and its process HANDLE, checked. */
static void
proc_open(struct proc *p, const char *sd, const char *h)
{
	int	procs;

	p->sd = sd;
	p->h = h;
	p->sdfd = proc_sandbox(sd);
	if ((procs = openat(p->sdfd, "procs", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1 || strchr(h, '/') != NULL ||
	    (p->dfd = openat(procs, h, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		proc_fail("no process %s in this sandbox", h);
	close(procs);
	p->cap = proc_num(p, "max");
	p->chunk = proc_num(p, "chunk");
	if (p->chunk == 0 || p->chunk > PROC_CHUNK_MAX ||
	    p->cap > PROC_CAP_MAX)
		proc_fail("garbled state files %s/procs/%s/max, "
		    "%s/procs/%s/chunk", sd, h, sd, h);
}

/*
 * clawlock tries: the mkdir lock within tries naps, a lock older than a
 * minute broken; 0, or -1 if it stayed taken.
 */
int
proc_lock(int dfd, int tries)
{
	struct stat	st;
	int		n = 0;

	while (mkdirat(dfd, "lock", 0700) == -1) {
		if (errno != EEXIST)
			return -1;
		if (fstatat(dfd, "lock", &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    time(NULL) - st.st_mtime > PROC_LOCK_STALE &&
		    unlinkat(dfd, "lock", AT_REMOVEDIR) == 0)
			continue;	/* a stale one, broken (not a link) */
		if (++n > tries)
			return -1;
		proc_nap();
	}
	proc_lock_dfd = dfd;
	return 0;
}

/* clawunlock. */
void
proc_unlock(int dfd)
{
	proc_lock_dfd = -1;
	unlinkat(dfd, "lock", AT_REMOVEDIR);
}

/* Order chunk names: split's are fixed-width, so as the glob sorts. */
static int
proc_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Free what proc_chunk_list made. */
static void
proc_names_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * The names log.[0-9]* below dfd, sorted, into *v (a NULL-ended array)
 * and *n: 0, or -1 with *why (opening the directory failed, or over
 * PROC_CHUNKS_MAX of them).
 */
static int
proc_chunk_list(int dfd, char ***v, size_t *n, const char **why)
{
	DIR		*dir;
	struct dirent	*de;
	int		 fd;

	*v = NULL;
	*n = 0;
	*why = "cannot read the log";
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1 || (dir = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	while ((de = readdir(dir)) != NULL) {
		if (strncmp(de->d_name, "log.", 4) != 0 ||
		    !isdigit((unsigned char)de->d_name[4]))
			continue;
		if (*n == PROC_CHUNKS_MAX) {
			closedir(dir);
			proc_names_free(*v, *n);
			*v = NULL;
			*n = 0;
			*why = "cannot read the log: over "
			    PROC_STR(PROC_CHUNKS_MAX) " chunks";
			return -1;
		}
		*v = xreallocarray(*v, *n + 2, sizeof(**v));
		(*v)[(*n)++] = xstrdup(de->d_name);
	}
	closedir(dir);
	if (*n > 1)
		qsort(*v, *n, sizeof(**v), proc_name_cmp);
	return 0;
}

/* proc_chunk_list, or the scripts' refusal. */
static char **
proc_chunk_names(int dfd, size_t *n)
{
	const char	 *why;
	char		**v;

	if (proc_chunk_list(dfd, &v, n, &why) != 0)
		proc_fail("%s", why);
	return v;
}

/* The size of the chunk name below dfd, 0 if it is not a plain file. */
static unsigned long long
proc_chunk_size(int dfd, const char *name)
{
	struct stat	st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
	    !S_ISREG(st.st_mode))
		return 0;
	return (unsigned long long)st.st_size;
}

/*
 * clawprune LIMIT: delete the oldest chunks until the rest fit in limit
 * bytes, never the newest (split may be writing it).
 */
void
proc_prune(int dfd, unsigned long long limit)
{
	unsigned long long	 tot = 0, sz;
	const char		 *why;
	char			**v;
	size_t			 n, i;

	if (proc_chunk_list(dfd, &v, &n, &why) != 0)
		return;		/* the reader that follows says why */
	for (i = 0; i < n; i++)
		tot += proc_chunk_size(dfd, v[i]);
	for (i = 0; i + 1 < n && tot > limit; i++) {
		sz = proc_chunk_size(dfd, v[i]);
		tot -= sz;
		unlinkat(dfd, v[i], 0);
	}
	proc_names_free(v, n);
}

/*
 * Open the kept chunks and take their sizes (under the lock: what split
 * appends later is the next poll's).
 */
static void
proc_log_open(int dfd, struct proc_log *l)
{
	struct stat	  st;
	char		**v, *end;
	size_t		  n, i;

	memset(l, 0, sizeof(*l));
	v = proc_chunk_names(dfd, &n);
	if (n > 0) {
		l->first = strtoull(v[0] + 4, &end, 10);
		if (*end != '\0')
			l->first = 0;
	}
	for (i = 0; i < n; i++) {
		if ((l->fd[i] = openat(dfd, v[i], O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_CLOEXEC | O_NOCTTY)) == -1 ||
		    fstat(l->fd[i], &st) != 0 || !S_ISREG(st.st_mode))
			proc_fail("cannot read the log");
		l->size[i] = st.st_size;
		l->total += (unsigned long long)st.st_size;
		l->n = i + 1;
	}
	proc_names_free(v, n);
}

/* Read n bytes at off of the kept log into buf, or refuse. */
static void
proc_log_pread(const struct proc_log *l, unsigned long long off, char *buf,
    size_t n)
{
	unsigned long long	left;
	size_t			i = 0, want;
	ssize_t			r;

	while (n > 0) {
		while (i < l->n && off >= (unsigned long long)l->size[i])
			off -= (unsigned long long)l->size[i++];
		if (i == l->n)
			proc_fail("cannot read the log");
		left = (unsigned long long)l->size[i] - off;
		want = n < left ? n : (size_t)left;
		if ((r = pread(l->fd[i], buf, want, (off_t)off)) == -1 &&
		    errno == EINTR)
			continue;
		if (r <= 0)
			proc_fail("cannot read the log");
		buf += r;
		n -= (size_t)r;
		off += (unsigned long long)r;
	}
}

/* Write the kept log from off to its end to stdout. */
static void
proc_log_put(const struct proc_log *l, unsigned long long off)
{
	char	buf[PROC_IO];
	size_t	n;

	fflush(stdout);
	while (off < l->total) {
		n = l->total - off < sizeof(buf) ? (size_t)(l->total - off) :
		    sizeof(buf);
		proc_log_pread(l, off, buf, n);
		if (write_all(STDOUT_FILENO, buf, n) != 0)
			exit(PROC_FAIL);
		off += n;
	}
}

/* Where tail -n lines of the kept log starts. */
static unsigned long long
proc_log_tail(const struct proc_log *l, unsigned long long lines)
{
	unsigned long long	 end = l->total, pos;
	char			 buf[PROC_IO], c;
	size_t			 n, i;

	if (lines == 0)
		return end;
	if (end > 0) {
		proc_log_pread(l, end - 1, &c, 1);
		if (c == '\n')
			end--;		/* the last line's own newline */
	}
	for (pos = end; pos > 0; pos -= n) {
		n = pos < sizeof(buf) ? (size_t)pos : sizeof(buf);
		proc_log_pread(l, pos - n, buf, n);
		for (i = n; i > 0; i--)
			if (buf[i - 1] == '\n' && --lines == 0)
				return pos - n + i;
	}
	return 0;
}

/* Close what proc_log_open opened. */
static void
proc_log_close(struct proc_log *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		close(l->fd[i]);
	l->n = 0;
}

/* Take p's lock as poll and log do, with the scripts' traps. */
static void
proc_take_lock(struct proc *p)
{
	struct sigaction	sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = proc_on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (proc_lock(p->dfd, 100) != 0)
		proc_fail("process %s is busy", p->h);
}

/* The "polled" offset, as poll.sh reads it (garbage: 0). */
static unsigned long long
proc_polled(int dfd)
{
	char	buf[19];

	if (proc_read_field(dfd, "polled", buf, 18) < 0 || !proc_digits(buf))
		return 0;
	return strtoull(buf, NULL, 10);
}

/* Write the new "polled" offset: polled.t, then renamed. */
static void
proc_set_polled(int dfd, unsigned long long v)
{
	char	buf[32];
	int	fd, n;

	n = snprintf(buf, sizeof(buf), "%llu\n", v);
	unlinkat(dfd, "polled.t", 0);
	if ((fd = openat(dfd, "polled.t", O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
		return;
	if (write_all(fd, buf, (size_t)n) == 0 && close(fd) == 0)
		(void)renameat(dfd, "polled.t", dfd, "polled");
	else
		close(fd);
}

/* proc-poll SANDBOX HANDLE: the state and the output since last time. */
static int
proc_poll(const char *sd, const char *h)
{
	struct proc		p;
	struct proc_log		l;
	unsigned long long	from, dropped, lost = 0, got;
	char			line[PROC_LINE_MAX];

	proc_open(&p, sd, h);
	proc_state(p.dfd, h, 1, line);
	proc_take_lock(&p);
	proc_prune(p.dfd, p.cap);
	from = proc_polled(p.dfd);
	proc_log_open(p.dfd, &l);
	dropped = l.first * p.chunk;
	if (from < dropped) {
		lost = dropped - from;
		from = dropped;
	}
	got = l.total > from - dropped ? l.total - (from - dropped) : 0;
	proc_set_polled(p.dfd, from + got);
	proc_unlock(p.dfd);
	printf("%sclawssh-out %llu %llu\n", line, lost, got);
	proc_log_put(&l, l.total - got);
	proc_log_close(&l);
	return 0;
}

/* proc-log SANDBOX HANDLE [LINES]: the kept log, or its last lines. */
static int
proc_logcmd(const char *sd, const char *h, const char *lines)
{
	struct proc		p;
	struct proc_log		l;
	unsigned long long	lost, from = 0;
	char			line[PROC_LINE_MAX];

	proc_open(&p, sd, h);
	proc_state(p.dfd, h, 1, line);
	proc_take_lock(&p);
	proc_prune(p.dfd, p.cap);
	proc_log_open(p.dfd, &l);
	proc_unlock(p.dfd);
	lost = l.first * p.chunk;
	if (lines[0] != '\0') {
		if (!proc_digits(lines))
			proc_fail("bad line count %s", lines);
		from = proc_log_tail(&l, strtoull(lines, NULL, 10));
		if (from != 0)
			lost = 0;
	}
	printf("%sclawssh-out %llu %llu\n", line, lost, l.total - from);
	proc_log_put(&l, from);
	proc_log_close(&l);
	return 0;
}

/* proc-wait SANDBOX HANDLE DS: up to DS tenths, then the state line. */
static int
proc_waitcmd(const char *sd, const char *h, const char *ds)
{
	struct proc	p;
	long		lim = 0, n;
	char		line[PROC_LINE_MAX];

	proc_open(&p, sd, h);
	if (proc_digits(ds) && strlen(ds) < 9)
		lim = strtol(ds, NULL, 10);
	for (n = 0; !proc_exists(p.dfd, "rc") && n < lim; n++) {
		if (!proc_ours(p.dfd, "sup"))
			break;
		proc_nap();
	}
	proc_state(p.dfd, h, 1, line);
	fputs(line, stdout);
	return 0;
}

/* Send sig to every process whose session is sid (pkill -s SID). */
static int
proc_signal_session(pid_t sid, int sig)
{
	DIR		*dir;
	struct dirent	*de;
	char		 path[64], buf[1024], *rp;
	long		 pid, s;
	int		 found = 0;

	if ((dir = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(dir)) != NULL) {
		if (!proc_digits(de->d_name) || strlen(de->d_name) > 9)
			continue;
		pid = strtol(de->d_name, NULL, 10);
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		/* pid (comm) state ppid pgrp session ... */
		if (read_file(path, buf, sizeof(buf)) <= 0 ||
		    (rp = strrchr(buf, ')')) == NULL ||
		    sscanf(rp + 1, " %*c %*d %*d %ld", &s) != 1 || s != sid)
			continue;
		found = 1;
		if (sig != 0)
			kill((pid_t)pid, sig);
	}
	closedir(dir);
	return found;
}

/* Whether the group or session of pid still has a process. */
static int
proc_group_alive(pid_t pid)
{
	return kill(-pid, 0) == 0 || proc_signal_session(pid, 0);
}

/* Write text to name below dfd, made or emptied, no link followed. */
void
proc_put_file(int dfd, const char *name, const char *text)
{
	int	fd;

	if ((fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC |
	    O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600)) == -1)
		return;
	(void)write_all(fd, text, strlen(text));
	close(fd);
}

/* Write pid's identity beside its pid file; see proc.h. */
void
proc_put_ident(int dfd, const char *name, long pid)
{
	char	ident[PROC_IDENT_MAX], file[32], line[PROC_IDENT_MAX + 2];

	if (proc_ident(pid, ident, sizeof(ident)) != 0)
		return;
	snprintf(file, sizeof(file), "%s.ident", name);
	snprintf(line, sizeof(line), "%s\n", ident);
	proc_put_file(dfd, file, line);
}

/* proc-kill SANDBOX HANDLE SIGNUM ESCALATE GRACE. */
static int
proc_killcmd(const char *sd, const char *h, const char *signum,
    const char *esc, const char *grace)
{
	struct proc		p;
	unsigned long long	pid;
	long			sig, g, i;
	char			text[32];

	proc_open(&p, sd, h);
	pid = proc_num(&p, "pid");
	if (pid <= 1 || pid > INT_MAX)
		proc_fail("garbled state file %s/procs/%s/pid", sd, h);
	if (!proc_digits(signum) || strlen(signum) > 2 ||
	    (sig = strtol(signum, NULL, 10)) < 1 || sig >= NSIG ||
	    !proc_digits(grace) || strlen(grace) > 6)
		proc_fail("bad arguments to proc-kill");
	g = strtol(grace, NULL, 10);
	/* gone without its rc (its supervisor killed, a reboot): its pid
	   may be another process's by now */
	if (proc_exists(p.dfd, "rc") || !proc_ours(p.dfd, "pid")) {
		puts("clawssh-exited");
		return 0;
	}
	snprintf(text, sizeof(text), "%ld\n", sig);
	proc_put_file(p.dfd, "killed", text);
	kill(-(pid_t)pid, (int)sig);
	proc_signal_session((pid_t)pid, (int)sig);
	if (strcmp(esc, "1") == 0) {
		for (i = 0; proc_group_alive((pid_t)pid) && i < g; i++)
			proc_nap();
		kill(-(pid_t)pid, SIGKILL);
		proc_signal_session((pid_t)pid, SIGKILL);
	}
	for (i = 0; !proc_exists(p.dfd, "rc") && i < g; i++)
		proc_nap();
	puts("clawssh-killed");
	return 0;
}

/* Open name below dfd read-write, a FIFO, no link followed; or -1. */
int
proc_fifo(int dfd, const char *name)
{
	struct stat	st;
	int		fd;

	if ((fd = openat(dfd, name, O_RDWR | O_NOFOLLOW | O_CLOEXEC |
	    O_NOCTTY)) == -1)
		return -1;
	if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* proc-write SANDBOX HANDLE EOF: stdin to the FIFO, then maybe its end. */
static int
proc_writecmd(const char *sd, const char *h, const char *eof)
{
	struct proc	p;
	struct stat	st;
	char		buf[PROC_IO];
	ssize_t		n;
	int		in, ctl;

	proc_open(&p, sd, h);
	if (fstatat(p.dfd, "in", &st, 0) != 0 || !S_ISFIFO(st.st_mode) ||
	    fstatat(p.dfd, "ctl", &st, 0) != 0 || !S_ISFIFO(st.st_mode))
		proc_fail("process %s has no stdin FIFO", h);
	if (proc_exists(p.dfd, "rc"))
		proc_fail("process %s has exited", h);
	signal(SIGPIPE, SIG_IGN);
	if ((in = proc_fifo(p.dfd, "in")) == -1)
		proc_fail("cannot write to process %s", h);
	while ((n = read(STDIN_FILENO, buf, sizeof(buf))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || write_all(in, buf, (size_t)n) != 0)
			proc_fail("cannot write to process %s", h);
	}
	close(in);
	if (strcmp(eof, "1") == 0 && (ctl = proc_fifo(p.dfd, "ctl")) != -1) {
		(void)write_all(ctl, "x\n", 2);
		close(ctl);
	}
	puts("clawssh-written");
	return 0;
}

/* proc-list SANDBOX: a state line per process directory. */
static int
proc_list(const char *sd)
{
	DIR		*dir;
	struct dirent	*de;
	const char	*h;
	char		 line[PROC_LINE_MAX];
	size_t		 i;
	int		 sdfd = proc_sandbox(sd), fd, dfd;

	if ((fd = openat(sdfd, "procs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || (dir = fdopendir(fd)) == NULL)
		return 0;
	while ((de = readdir(dir)) != NULL) {
		h = de->d_name;
		if (h[0] != 'p' || strlen(h) != 9)
			continue;
		for (i = 1; i < 9; i++)
			if (!isdigit((unsigned char)h[i]) &&
			    (h[i] < 'a' || h[i] > 'f'))
				break;
		if (i < 9 || (dfd = openat(fd, h, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) == -1)
			continue;
		proc_state(dfd, h, 0, line);
		fputs(line, stdout);
		close(dfd);
	}
	closedir(dir);
	return 0;
}

/* clawssh-agent proc-*: see the top of this file. */
int
proc_main(int argc, char **argv)
{
	const char	*cmd = argv[0];
	int		 rc;

	if (strcmp(cmd, "proc-list") == 0 && argc == 2)
		rc = proc_list(argv[1]);
	else if (strcmp(cmd, "proc-poll") == 0 && argc == 3)
		rc = proc_poll(argv[1], argv[2]);
	else if (strcmp(cmd, "proc-log") == 0 && (argc == 3 || argc == 4))
		rc = proc_logcmd(argv[1], argv[2], argc == 4 ? argv[3] : "");
	else if (strcmp(cmd, "proc-wait") == 0 && argc == 4)
		rc = proc_waitcmd(argv[1], argv[2], argv[3]);
	else if (strcmp(cmd, "proc-kill") == 0 && argc == 6)
		rc = proc_killcmd(argv[1], argv[2], argv[3], argv[4],
		    argv[5]);
	else if (strcmp(cmd, "proc-write") == 0 && argc == 4)
		rc = proc_writecmd(argv[1], argv[2], argv[3]);
	else {
		fprintf(stderr, "usage: clawssh-agent proc-list SANDBOX | "
		    "proc-poll|proc-log|proc-wait|proc-kill|proc-write "
		    "SANDBOX HANDLE ...\n");
		return AGENT_EXIT_ERR;
	}
	if (fflush(stdout) != 0)
		return PROC_FAIL;
	return rc;
}
