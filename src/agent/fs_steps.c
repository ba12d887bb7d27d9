/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The file tools' steps as processes of the agent's own, run in the
 * sandbox's environment (serve's EXEC with FRAME_EXEC_SELF), in place of
 * the shell steps of src/tools/fstore_scripts.h, whose sh, stat, find
 * and dd cost a remote call several process starts each.  Each keeps its
 * step's contract: started in the workspace, it resolves PATH as real()
 * does (a link is followed only while it stays in the workspace), refuses
 * what the step refuses with the same "clawssh-error:" lines and status
 * 3, and writes what the step writes.
 *
 *   fs-read PATH OFFSET LIMIT CAP   "clawssh-mode MODE LEN", then LEN
 *                                   bytes from OFFSET (FSTORE_SCRIPT_READ);
 *                                   one check more: the opened file must
 *                                   still be in the workspace
 *   fs-stat PATH                    one record named x, as find -printf
 *                                   '%y %m %s %T@ x\0%l\0' (..._STAT)
 *   fs-ls PATH                      a record per file, directory or link
 *                                   in it, named as find's %P (..._LIST)
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"

#define FSR_FAIL	3		/* the shell step's clawfail status */
#define FSR_CHUNK	(64 * 1024)

/* Say why on stderr as the shell step does, and exit 3. */
static void __attribute__((__noreturn__, format(printf, 1, 2)))
fsr_fail(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	step_error(fmt, ap);
	va_end(ap);
	exit(FSR_FAIL);
}

/* The workspace: the physical cwd, or the step's refusal. */
static void
fsr_ws(char *ws)
{
	if (getcwd(ws, PATH_MAX) == NULL || ws[0] != '/')
		fsr_fail("the sandbox workspace is missing");
}

/* Whether path is ws or under it. */
static int
fsr_inside(const char *ws, const char *path)
{
	size_t	n = strlen(ws);

	return strncmp(path, ws, n) == 0 && (path[n] == '\0' ||
	    path[n] == '/' || (n == 1 && ws[0] == '/'));
}

/*
 * readlink -f of link into out (PATH_MAX): the link's target made
 * absolute and real; its last component may be missing.  0 or -1.
 */
static int
fsr_readlink_f(const char *link, char *out)
{
	char	 target[PATH_MAX], full[2 * PATH_MAX], dir[PATH_MAX];
	char	*slash;
	size_t	 dlen, blen;
	ssize_t	 n;

	if (realpath(link, out) != NULL)
		return 0;
	if (errno != ENOENT ||
	    (n = readlink(link, target, sizeof target - 1)) <= 0)
		return -1;
	target[n] = '\0';
	if (target[0] == '/')
		snprintf(full, sizeof full, "%s", target);
	else {
		snprintf(full, sizeof full, "%s", link);
		slash = strrchr(full, '/');
		snprintf(slash + 1, sizeof full - (size_t)(slash + 1 - full),
		    "%s", target);
	}
	if ((slash = strrchr(full, '/')) == NULL)
		return -1;
	*slash = '\0';
	if (realpath(*full != '\0' ? full : "/", dir) == NULL)
		return -1;
	if (strcmp(dir, "/") == 0)
		dir[0] = '\0';
	dlen = strlen(dir);
	blen = strlen(slash + 1);
	if (dlen + 1 + blen >= PATH_MAX)
		return -1;
	memcpy(out, dir, dlen);
	out[dlen] = '/';
	memcpy(out + dlen + 1, slash + 1, blen + 1);
	return 0;
}

/*
 * FSTORE_SCRIPT_PRELUDE's real(): walk p's components from ws; a link
 * is replaced by its real target, which must be inside ws; the first
 * missing component ends the walk with the rest appended.
 */
static void
fsr_real(const char *ws, const char *p, char *r)
{
	char		 cand[PATH_MAX], n[PATH_MAX];
	const char	*rest = p, *slash, *c;
	struct stat	 st;
	size_t		 clen;

	snprintf(r, PATH_MAX, "%s", ws);
	while (*rest != '\0') {
		slash = strchr(rest, '/');
		clen = slash != NULL ? (size_t)(slash - rest) : strlen(rest);
		if ((clen == 1 && rest[0] == '.') ||
		    (clen == 2 && rest[0] == '.' && rest[1] == '.') ||
		    clen == 0)
			fsr_fail("%s: not a plain path in the workspace", p);
		if ((size_t)snprintf(cand, sizeof cand, "%s/%.*s", r,
		    (int)clen, rest) >= sizeof cand)
			fsr_fail("%s: cannot resolve %.*s", p, (int)clen, rest);
		c = rest;
		rest = slash != NULL ? slash + 1 : rest + clen;
		if (lstat(cand, &st) == 0 && S_ISLNK(st.st_mode)) {
			if (fsr_readlink_f(cand, n) != 0)
				fsr_fail("%s: cannot resolve %.*s", p,
				    (int)clen, c);
			if (!fsr_inside(ws, n))
				fsr_fail("%s: a symbolic link on the way "
				    "leads outside the workspace", p);
			memcpy(r, n, strlen(n) + 1);
		} else if (lstat(cand, &st) == 0)
			memcpy(r, cand, strlen(cand) + 1);
		else {
			if ((size_t)snprintf(r, PATH_MAX, "%s%s%s", cand,
			    *rest != '\0' ? "/" : "", rest) >= PATH_MAX)
				fsr_fail("%s: cannot resolve it", p);
			return;
		}
	}
}

/* A decimal argument, or the usage. */
static unsigned long long
fsr_number(const char *s)
{
	unsigned long long	v;
	char			*end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (*s < '0' || *s > '9' || *end != '\0' || errno != 0) {
		fprintf(stderr, "clawssh-agent fs-read: bad number %s\n", s);
		exit(AGENT_EXIT_ERR);
	}
	return v;
}

/* The opened file must still be in ws (a link swapped in is refused). */
static void
fsr_check_open(const char *ws, const char *p, int fd)
{
	char	proc[64], at[PATH_MAX];
	ssize_t	n;

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	if ((n = readlink(proc, at, sizeof at - 1)) <= 0)
		return;		/* no /proc: the walk's check stands */
	at[n] = '\0';
	if (!fsr_inside(ws, at))
		fsr_fail("%s: a symbolic link on the way leads outside the "
		    "workspace", p);
}

/* Copy left bytes of fd from off to stdout; short if the file shrank. */
static int
fsr_copy(int fd, unsigned long long off, unsigned long long left)
{
	static char	buf[FSR_CHUNK];
	ssize_t		n, w;
	size_t		k, done;

	while (left > 0) {
		k = left < sizeof buf ? (size_t)left : sizeof buf;
		n = pread(fd, buf, k, (off_t)off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? 0 : -1;
		for (done = 0; done < (size_t)n; done += (size_t)w) {
			w = write(STDOUT_FILENO, buf + done, (size_t)n - done);
			if (w == -1 && errno == EINTR)
				w = 0;
			else if (w <= 0)
				return -1;
		}
		off += (unsigned long long)n;
		left -= (unsigned long long)n;
	}
	return 0;
}

/* clawssh-agent fs-read PATH OFFSET LIMIT CAP; see the top. */
int
fs_read_main(int argc, char **argv)
{
	char			 ws[PATH_MAX], r[PATH_MAX];
	const char		*p;
	struct stat		 st;
	unsigned long long	 off, lim, cap, left;
	int			 fd;

	if (argc != 5) {
		fprintf(stderr, "usage: clawssh-agent fs-read PATH OFFSET "
		    "LIMIT CAP\n");
		return AGENT_EXIT_ERR;
	}
	p = argv[1];
	off = fsr_number(argv[2]);
	lim = fsr_number(argv[3]);
	cap = fsr_number(argv[4]);
	fsr_ws(ws);
	fsr_real(ws, p, r);
	if (stat(r, &st) != 0)
		fsr_fail("%s: no such file", p);
	if (S_ISDIR(st.st_mode))
		fsr_fail("%s: is a directory", p);
	if (!S_ISREG(st.st_mode))
		fsr_fail("%s: not a regular file (a FIFO, socket or device)",
		    p);
	fd = open(r, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -1 || fstat(fd, &st) != 0)
		fsr_fail("%s: cannot read", p);
	if (!S_ISREG(st.st_mode))
		fsr_fail("%s: not a regular file (a FIFO, socket or device)",
		    p);
	fsr_check_open(ws, p, fd);
	left = (unsigned long long)st.st_size > off ?
	    (unsigned long long)st.st_size - off : 0;
	if (lim != 0 && lim < left)
		left = lim;
	if (left > cap)
		fsr_fail("%s: over %llu MiB; read it in parts with --offset "
		    "and --limit", p, cap / 1048576);
	printf("clawssh-mode %o %llu\n", (unsigned)(st.st_mode & 07777),
	    left);
	if (fflush(stdout) != 0 || fsr_copy(fd, off, left) != 0)
		return 1;
	return 0;
}

/* find's %y for st (lstat's). */
static char
fsr_type(const struct stat *st)
{
	if (S_ISREG(st->st_mode))
		return 'f';
	if (S_ISDIR(st->st_mode))
		return 'd';
	if (S_ISLNK(st->st_mode))
		return 'l';
	if (S_ISFIFO(st->st_mode))
		return 'p';
	if (S_ISSOCK(st->st_mode))
		return 's';
	if (S_ISCHR(st->st_mode))
		return 'c';
	return S_ISBLK(st->st_mode) ? 'b' : 'U';
}

/*
 * One listing record of find -printf '%y %m %s %T@ NAME\0%l\0' for the
 * entry at path (lstat'd, not followed).  0, or -1 if it is gone.
 */
static int
fsr_record(const char *path, const char *name, int only_fdl)
{
	struct stat	st;
	char		target[PATH_MAX];
	ssize_t		n = 0;
	long long	sec;
	char		t;

	if (lstat(path, &st) != 0)
		return -1;
	t = fsr_type(&st);
	if (only_fdl && t != 'f' && t != 'd' && t != 'l')
		return 0;
	if (t == 'l' && (n = readlink(path, target, sizeof target - 1)) < 0)
		n = 0;
	target[n] = '\0';
	sec = (long long)st.st_mtim.tv_sec;
	printf("%c %o %llu %s%lld.%09ld %s%c%s%c", t,
	    (unsigned)(st.st_mode & 07777),
	    (unsigned long long)st.st_size, sec < 0 ? "-" : "",
	    sec < 0 ? -sec : sec, (long)st.st_mtim.tv_nsec, name, '\0',
	    target, '\0');
	return 0;
}

/* clawssh-agent fs-stat PATH; see the top. */
int
fs_stat_main(int argc, char **argv)
{
	char		ws[PATH_MAX], r[PATH_MAX];
	const char	*p;
	struct stat	st;

	if (argc != 2) {
		fprintf(stderr, "usage: clawssh-agent fs-stat PATH\n");
		return AGENT_EXIT_ERR;
	}
	p = argv[1];
	fsr_ws(ws);
	fsr_real(ws, p, r);
	if (lstat(r, &st) != 0 || fsr_record(r, "x", 0) != 0)
		fsr_fail("%s: no such file or directory", *p != '\0' ? p : ".");
	return fflush(stdout) == 0 ? 0 : 1;
}

/* clawssh-agent fs-ls PATH; see the top. */
int
fs_ls_main(int argc, char **argv)
{
	char		 ws[PATH_MAX], r[PATH_MAX], path[2 * PATH_MAX];
	const char	*p;
	struct stat	 st;
	struct dirent	*d;
	DIR		*dir;

	if (argc != 2) {
		fprintf(stderr, "usage: clawssh-agent fs-ls PATH\n");
		return AGENT_EXIT_ERR;
	}
	p = argv[1];
	fsr_ws(ws);
	fsr_real(ws, p, r);
	if (stat(r, &st) != 0 || !S_ISDIR(st.st_mode))
		fsr_fail("%s: not a directory", *p != '\0' ? p : ".");
	if ((dir = opendir(r)) == NULL)
		fsr_fail("%s: cannot enter", p);
	while ((d = readdir(dir)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", r, d->d_name);
		(void)fsr_record(path, d->d_name, 1);
	}
	closedir(dir);
	return fflush(stdout) == 0 ? 0 : 1;
}
