/* SPDX-License-Identifier: BSD-2-Clause */
/* Small helpers of clawssh-agent: messages, memory, fds, /proc. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

/* "clawssh: MESSAGE" on stderr, in one write. */
static void
agent_vwarn(const char *fmt, va_list ap)
{
	char	buf[1024];
	int	n;

	n = snprintf(buf, sizeof(buf), "clawssh: ");
	vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	n = (int)strlen(buf);
	buf[n++] = '\n';
	(void)write_all(STDERR_FILENO, buf, (size_t)n);
}

/* Say something on stderr. */
void
agent_warn(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	agent_vwarn(fmt, ap);
	va_end(ap);
}

/* Say something on stderr and exit AGENT_EXIT_ERR. */
void
agent_die(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	agent_vwarn(fmt, ap);
	va_end(ap);
	exit(AGENT_EXIT_ERR);
}

/* malloc or abort. */
void *
xmalloc(size_t n)
{
	void	*p;

	if ((p = malloc(n == 0 ? 1 : n)) == NULL)
		abort();
	return p;
}

/* calloc or abort. */
void *
xcalloc(size_t n, size_t size)
{
	void	*p;

	if ((p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size)) == NULL)
		abort();
	return p;
}

/* realloc of n * size bytes, overflow checked, or abort. */
void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size)
		abort();
	if ((p = realloc(p, n * size == 0 ? 1 : n * size)) == NULL)
		abort();
	return p;
}

/* strdup or abort. */
char *
xstrdup(const char *s)
{
	size_t	 n = strlen(s) + 1;
	char	*t = xmalloc(n);

	memcpy(t, s, n);
	return t;
}

/* snprintf that dies on truncation. */
void
xsnprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		agent_die("path too long");
}

/* Set or clear FD_CLOEXEC. */
int
fd_set_cloexec(int fd, int on)
{
	int	fl;

	if ((fl = fcntl(fd, F_GETFD)) == -1)
		return -errno;
	fl = on ? fl | FD_CLOEXEC : fl & ~FD_CLOEXEC;
	if (fcntl(fd, F_SETFD, fl) == -1)
		return -errno;
	return 0;
}

/* Set or clear O_NONBLOCK. */
int
fd_set_nonblock(int fd, int on)
{
	int	fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1)
		return -errno;
	fl = on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK;
	if (fcntl(fd, F_SETFL, fl) == -1)
		return -errno;
	return 0;
}

/* Move fd to want, closing fd (dup2 keeps want without CLOEXEC). */
int
fd_move(int fd, int want)
{
	if (fd == want)
		return fd_set_cloexec(fd, 0);
	if (dup2(fd, want) == -1)
		return -errno;
	close(fd);
	return 0;
}

/* Write all of p: short writes, EINTR, EAGAIN (waits) retried. */
int
write_all(int fd, const void *p, size_t n)
{
	struct pollfd	 pfd;
	const char	*s = p;
	ssize_t		 w;

	while (n > 0) {
		if ((w = write(fd, s, n)) == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				pfd.fd = fd;
				pfd.events = POLLOUT;
				(void)poll(&pfd, 1, -1);
				continue;
			}
			if (errno == EINTR)
				continue;
			return -errno;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The steps' refusal line; see agent.h. */
void
step_error(const char *fmt, va_list ap)
{
	fputs("clawssh-error: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* Open a directory below root, following no link; see agent.h. */
int
dir_open_nofollow(int root, const char *dir)
{
	char	comp[NAME_MAX + 1];
	int	fd, next;
	size_t	n;

	if ((fd = openat(root, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1)
		return -1;
	while (*dir != '\0') {
		n = strcspn(dir, "/");
		if (n > NAME_MAX) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		memcpy(comp, dir, n);
		comp[n] = '\0';
		next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		close(fd);
		if (next == -1)
			return -1;
		fd = next;
		dir += n + (dir[n] == '/');
	}
	return fd;
}

/* Read at most max - 1 bytes of path, NUL-terminated. */
ssize_t
read_file(const char *path, char *buf, size_t max)
{
	size_t	len = 0;
	ssize_t	n;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return -errno;
	while (len + 1 < max) {
		if ((n = read(fd, buf + len, max - 1 - len)) == -1) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	return (ssize_t)len;
}

/* Monotonic milliseconds. */
uint64_t
mono_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Field 22 of /proc/PID/stat, counted after the command's last ')'. */
int
proc_starttime(pid_t pid, unsigned long long *ticks)
{
	char		 path[64], buf[1024], *p;
	int		 i;
	ssize_t		 n;

	xsnprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((n = read_file(path, buf, sizeof(buf))) < 0)
		return (int)n;
	if ((p = strrchr(buf, ')')) == NULL)
		return -EINVAL;
	for (i = 2; i < 22 && p != NULL; i++)	/* p is before field i+1 */
		p = strchr(p + 1, ' ');
	if (p == NULL)
		return -EINVAL;
	*ticks = strtoull(p + 1, NULL, 10);
	return 0;
}

/* The basename of RUNDIR's parent: the sandbox's id. */
char *
box_id(const char *rundir)
{
	char	*s = xstrdup(rundir), *e, *b;

	e = s + strlen(s);
	while (e > s && e[-1] == '/')	/* RUNDIR's trailing slashes */
		*--e = '\0';
	while (e > s && e[-1] != '/')	/* RUNDIR's own name */
		*--e = '\0';
	while (e > s && e[-1] == '/')
		*--e = '\0';
	b = strrchr(s, '/');
	b = xstrdup(b == NULL ? s : b + 1);
	free(s);
	return b;
}

/* Close fds lo..hi (close_range where there is one). */
static void
fd_close_range(int lo, int hi)
{
	int	fd;

	if (lo > hi)
		return;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lo, (unsigned)hi, 0) == 0)
		return;
#endif
	if (hi > 65535)
		hi = 65535;
	for (fd = lo; fd <= hi; fd++)
		(void)close(fd);
}

/* Close every fd from lo up but keep[0..n) (sorted ascending). */
void
fd_close_from(int lo, const int *keep, int n)
{
	int	i;

	for (i = 0; i < n; i++) {
		if (keep[i] < lo)
			continue;
		fd_close_range(lo, keep[i] - 1);
		lo = keep[i] + 1;
	}
	fd_close_range(lo, INT_MAX);
}

/*
 * 1 if the process pid that started at ticks is gone: no such process,
 * a zombie, or another process with its pid.
 */
int
proc_gone(pid_t pid, unsigned long long ticks)
{
	unsigned long long	 now;
	char			 path[64], buf[1024], *p;

	if (proc_starttime(pid, &now) != 0 || now != ticks)
		return 1;
	xsnprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if (read_file(path, buf, sizeof(buf)) < 0 ||
	    (p = strrchr(buf, ')')) == NULL)
		return 1;
	return p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* SIGKILL pid's children (a pid namespace's init dies with them), then pid. */
void
proc_kill_tree(pid_t pid)
{
	char	 path[96], buf[4096], *p, *e;
	long	 c;

	xsnprintf(path, sizeof(path), "/proc/%ld/task/%ld/children",
	    (long)pid, (long)pid);
	if (read_file(path, buf, sizeof(buf)) >= 0) {
		for (p = buf; *p != '\0'; p = e) {
			c = strtol(p, &e, 10);
			if (e == p)
				break;
			if (c > 0)
				(void)kill((pid_t)c, SIGKILL);
		}
	}
	(void)kill(pid, SIGKILL);
}

/* Write out the buffer; see agent.h. */
int
obuf_flush(struct obuf *o)
{
	int	r;

	if (o->err == 0 && o->len > 0 &&
	    (r = write_all(o->fd, o->buf, o->len)) != 0)
		o->err = -r;
	o->len = 0;
	return o->err != 0 ? -1 : 0;
}

/* Append to the buffer; see agent.h. */
int
obuf_put(struct obuf *o, const void *p, size_t n)
{
	size_t	k;

	while (n > 0 && o->err == 0) {
		if (o->len == sizeof o->buf)
			(void)obuf_flush(o);
		k = sizeof o->buf - o->len < n ? sizeof o->buf - o->len : n;
		memcpy(o->buf + o->len, p, k);
		o->len += k;
		p = (const char *)p + k;
		n -= k;
	}
	return o->err != 0 ? -1 : 0;
}
