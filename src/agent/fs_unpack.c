/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fs-unpack: a mirror push's host side as one process of the agent's
 * own, run in the sandbox's environment from its workspace (serve's
 * EXEC with FRAME_EXEC_SELF), in place of the shell step of
 * sync/transfer_stage.c (TRANSFER_FIX_PARENTS, then the staged unpack),
 * whose sh, tar, find, flock and mv cost a push five to eight process
 * starts.  The same contract, step for step:
 *
 *   stdin: the parents of the pushed paths, a line each, then a line
 *   ".", then the tar stream of the paths (sync/tarstream.c writes it).
 *   1. Each parent that is a symbolic link or not a directory is
 *      removed (so that the push makes a real directory there).
 *   2. Stages that dead pushes left (.clawssh-tmp-push.*) are removed.
 *   3. The stream is unpacked whole into a new stage in the workspace,
 *      under a lock; a bad stream changes nothing more.
 *   4. Each staged entry is renamed into place, parents first: a
 *      directory the workspace has is entered; anything else replaces
 *      what is there (a directory in the way of a file is removed); a
 *      new directory moves whole.
 *   5. The directories the stream held that were entered get its modes
 *      and times; the stage goes.
 * Failures say "clawssh-error: ..." on stderr and exit 1, as the shell
 * step's fail does.  Nothing is followed: every name is opened from a
 * directory descriptor with O_NOFOLLOW.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "fs_tar.h"

#define FSU_STAGE_PREFIX	".clawssh-tmp-push."	/* TRANSFER_STAGE_PREFIX */
#define FSU_CHUNK		(64 * 1024)
#define FSU_DEPTH_MAX		1024	/* directories deep, for rm -rf */

/* stdin, buffered: the parents' lines, then the tar stream. */
struct fsu_in {
	char	buf[FSU_CHUNK];
	size_t	at, len;
};

/* A directory the stream held: its mode and time, set at the end. */
struct fsu_dir {
	char		*path;
	mode_t		 mode;
	struct timespec	 mtime;
};

struct fsu {
	struct fsu_in	 in;
	int		 ws;		/* the workspace */
	int		 stage;		/* STAGE/t */
	char		 name[64];	/* STAGE */
	int		 lock;		/* STAGE.lock, flocked */
	struct fsu_dir	*dirs;
	size_t		 ndirs;
};

static struct fsu	*fsu_cur;	/* for fsu_fail's clean-up */

static int	fsu_rm_rf(int dfd, const char *name, int depth);

/* Remove the stage and its lock; fail's "rm -rf -- $s $s.lock". */
static void
fsu_drop_stage(struct fsu *u)
{
	char	lock[sizeof u->name + 8];

	if (u->name[0] == '\0')
		return;
	(void)fsu_rm_rf(u->ws, u->name, 0);
	snprintf(lock, sizeof lock, "%s.lock", u->name);
	(void)unlinkat(u->ws, lock, 0);
	u->name[0] = '\0';
}

/* Say why as the shell step does, drop the stage, exit 1. */
static void __attribute__((__noreturn__, format(printf, 1, 2)))
fsu_fail(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	step_error(fmt, ap);
	va_end(ap);
	if (fsu_cur != NULL)
		fsu_drop_stage(fsu_cur);
	exit(1);
}

/* Up to len bytes of stdin, the buffer first: count, 0 at its end, -1. */
static ssize_t
fsu_read(void *arg, void *p, size_t len)
{
	struct fsu_in	*in = arg;
	ssize_t		 n;
	size_t		 k;

	if (in->at < in->len) {
		k = in->len - in->at < len ? in->len - in->at : len;
		memcpy(p, in->buf + in->at, k);
		in->at += k;
		return (ssize_t)k;
	}
	do
		n = read(STDIN_FILENO, p, len);
	while (n == -1 && errno == EINTR);
	return n;
}

/* One line of stdin (without its newline) into line: 0, or -1 at EOF. */
static int
fsu_line(struct fsu_in *in, char *line, size_t max)
{
	size_t	n = 0;
	ssize_t	r;

	for (;;) {
		if (in->at == in->len) {
			do
				r = read(STDIN_FILENO, in->buf, sizeof in->buf);
			while (r == -1 && errno == EINTR);
			if (r <= 0)
				return -1;
			in->at = 0;
			in->len = (size_t)r;
		}
		if (in->buf[in->at] == '\n') {
			in->at++;
			line[n] = '\0';
			return 0;
		}
		if (n + 1 == max)
			fsu_fail("a parent's name is too long");
		line[n++] = in->buf[in->at++];
	}
}

/* Split path into its directory (in buf) and last name: that name. */
static const char *
fsu_split(const char *path, char *buf, size_t len)
{
	const char	*slash = strrchr(path, '/');

	if (slash == NULL) {
		buf[0] = '\0';
		return path;
	}
	if ((size_t)(slash - path) >= len)
		fsu_fail("%s: name too long", path);
	memcpy(buf, path, (size_t)(slash - path));
	buf[slash - path] = '\0';
	return slash + 1;
}

/* Step 1: a parent that is a link or no directory is removed. */
static void
fsu_fix_parent(struct fsu *u, char *p)
{
	char		 dir[PATH_MAX];
	const char	*last;
	struct stat	 st;
	int		 dfd;

	if (tar_path_clean(p) != 0)
		fsu_fail("%s: not a plain path in the workspace", p);
	last = fsu_split(p, dir, sizeof dir);
	if ((dfd = dir_open_nofollow(u->ws, dir)) == -1)
		return;			/* nothing there, or not ours */
	if (fstatat(dfd, last, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    !S_ISDIR(st.st_mode) && unlinkat(dfd, last, 0) == -1)
		fsu_fail("%s: cannot remove: %s", p, strerror(errno));
	close(dfd);
}

/* rm -rf of name in dfd, depth levels down already: 0 or -1. */
static int
fsu_rm_rf(int dfd, const char *name, int depth)
{
	struct dirent	*d;
	struct stat	 st;
	DIR		*dir;
	int		 fd, rc = 0;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return errno == ENOENT ? 0 : -1;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0) == -1 && errno != ENOENT ? -1 : 0;
	if (depth >= FSU_DEPTH_MAX) {
		errno = ELOOP;
		return -1;
	}
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((d = readdir(dir)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		if (fsu_rm_rf(fd, d->d_name, depth + 1) == -1)
			rc = -1;
	}
	closedir(dir);
	if (unlinkat(dfd, name, AT_REMOVEDIR) == -1 && errno != ENOENT)
		rc = -1;
	return rc;
}

/* Whether name is in dfd (a link counts). */
static int
fsu_exists(int dfd, const char *name)
{
	struct stat	st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* Whether name in dfd was last changed over secs seconds ago. */
static int
fsu_old(int dfd, const char *name, time_t secs)
{
	struct stat	st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    time(NULL) - st.st_mtime > secs;
}

/* Whether nobody holds the lock file name in dfd (flock). */
static int
fsu_unheld(int dfd, const char *name)
{
	int	fd, free_;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return 0;
	free_ = flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return free_;
}

/*
 * Step 2, TRANSFER_STAGE_CLEAN: a lock file without its stage, unheld
 * and over 3 s old, goes; a stage whose lock nobody holds goes with it;
 * a stage without a lock file, once over a minute old.
 */
static void
fsu_clean_stages(struct fsu *u)
{
	struct dirent	*d;
	struct stat	 st;
	DIR		*dir;
	char		 other[NAME_MAX + 8];
	size_t		 n, plen = strlen(FSU_STAGE_PREFIX);
	int		 fd;

	if ((fd = openat(u->ws, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1 || (dir = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return;
	}
	while ((d = readdir(dir)) != NULL) {
		if (strncmp(d->d_name, FSU_STAGE_PREFIX, plen) != 0 ||
		    fstatat(u->ws, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		n = strlen(d->d_name);
		if (n > 5 && strcmp(d->d_name + n - 5, ".lock") == 0) {
			snprintf(other, sizeof other, "%.*s", (int)(n - 5),
			    d->d_name);
			if (S_ISREG(st.st_mode) && !fsu_exists(u->ws, other) &&
			    fsu_old(u->ws, d->d_name, 3) &&
			    fsu_unheld(u->ws, d->d_name))
				(void)unlinkat(u->ws, d->d_name, 0);
			continue;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		snprintf(other, sizeof other, "%s.lock", d->d_name);
		if (!fsu_exists(u->ws, other) ? !fsu_old(u->ws, d->d_name, 60) :
		    !fsu_unheld(u->ws, other))
			continue;
		(void)fsu_rm_rf(u->ws, d->d_name, 0);
		(void)unlinkat(u->ws, other, 0);
	}
	closedir(dir);
}

/* Step 3's start: the locked stage and its "t", where the stream goes. */
static void
fsu_make_stage(struct fsu *u)
{
	char		lock[sizeof u->name + 8];
	uint64_t	rnd;
	int		fd;

	if (getentropy(&rnd, sizeof rnd) != 0)
		rnd = (uint64_t)getpid() << 32 ^ (uint64_t)time(NULL);
	snprintf(u->name, sizeof u->name, FSU_STAGE_PREFIX "%016llx",
	    (unsigned long long)rnd);
	snprintf(lock, sizeof lock, "%s.lock", u->name);
	if ((u->lock = openat(u->ws, lock, O_WRONLY | O_CREAT | O_TRUNC |
	    O_NOFOLLOW | O_CLOEXEC, 0666)) == -1)
		fsu_fail("cannot make the push's stage: %s", strerror(errno));
	(void)flock(u->lock, LOCK_EX | LOCK_NB);
	if (mkdirat(u->ws, u->name, 0700) == -1 ||
	    (fd = openat(u->ws, u->name, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1)
		fsu_fail("cannot make the push's stage: %s", strerror(errno));
	if (mkdirat(fd, "t", 0777) == -1 ||
	    (u->stage = openat(fd, "t", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		fsu_fail("cannot make the push's stage: %s", strerror(errno));
	close(fd);
}

/*
 * The directory of path in the stage, made as tar makes the parents it
 * was not sent (0777 less the umask): a descriptor.
 */
static int
fsu_stage_dir(struct fsu *u, const char *dir)
{
	char	 part[PATH_MAX];
	int	 fd;
	size_t	 n = 0;

	if ((fd = dir_open_nofollow(u->stage, dir)) != -1 || errno != ENOENT)
		goto out;
	while (dir[n] != '\0') {
		n += strcspn(dir + n, "/");
		memcpy(part, dir, n);
		part[n] = '\0';
		if (mkdirat(u->stage, part, 0777) == -1 && errno != EEXIST)
			break;
		n += dir[n] == '/';
	}
	fd = dir_open_nofollow(u->stage, dir);
out:
	if (fd == -1)
		fsu_fail("%s: cannot unpack: %s", dir, strerror(errno));
	return fd;
}

/* Copy the entry's data into fd (segments at their offsets). */
static void
fsu_write_data(struct tar_rd *t, const struct tar_entry *e, int fd)
{
	static char	 buf[FSU_CHUNK];
	struct tar_seg	 whole = { 0, e->stored };
	const struct tar_seg *s = e->segs != NULL ? e->segs : &whole;
	size_t		 i, n = e->segs != NULL ? e->nsegs : 1;
	uint64_t	 off, left;
	ssize_t		 r, w;

	for (i = 0; i < n; i++) {
		for (off = s[i].off, left = s[i].size; left > 0; ) {
			r = tar_data(t, buf, left < sizeof buf ?
			    (size_t)left : sizeof buf);
			if (r <= 0)
				fsu_fail("%s: %s", e->path, r < 0 ? t->err :
				    "the stream ends inside it");
			if ((w = pwrite(fd, buf, (size_t)r, (off_t)off)) != r)
				fsu_fail("%s: cannot write: %s", e->path,
				    w < 0 ? strerror(errno) : "short write");
			off += (uint64_t)r;
			left -= (uint64_t)r;
		}
	}
	if (ftruncate(fd, (off_t)e->size) == -1)
		fsu_fail("%s: cannot write: %s", e->path, strerror(errno));
}

/* Unpack one entry into the stage (tar -xp: its mode and time kept). */
static void
fsu_unpack_entry(struct fsu *u, struct tar_rd *t, struct tar_entry *e)
{
	char		 dir[PATH_MAX];
	const char	*last = fsu_split(e->path, dir, sizeof dir);
	struct timespec	 ts[2];
	int		 dfd = fsu_stage_dir(u, dir), fd;

	ts[0] = e->mtime;
	ts[1] = e->mtime;
	if (e->type == TAR_DIR) {
		if (mkdirat(dfd, last, 0700) == -1 && errno != EEXIST)
			fsu_fail("%s: cannot unpack: %s", e->path,
			    strerror(errno));
		u->dirs = xreallocarray(u->dirs, u->ndirs + 1,
		    sizeof *u->dirs);
		u->dirs[u->ndirs].path = xstrdup(e->path);
		u->dirs[u->ndirs].mode = e->mode;
		u->dirs[u->ndirs++].mtime = e->mtime;
	} else {
		(void)fsu_rm_rf(dfd, last, 0);	/* sent twice */
		if (e->type == TAR_SYMLINK) {
			if (symlinkat(e->link, dfd, last) == -1)
				fsu_fail("%s: cannot unpack: %s", e->path,
				    strerror(errno));
			(void)utimensat(dfd, last, ts, AT_SYMLINK_NOFOLLOW);
		} else {
			if ((fd = openat(dfd, last, O_WRONLY | O_CREAT |
			    O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
				fsu_fail("%s: cannot unpack: %s", e->path,
				    strerror(errno));
			fsu_write_data(t, e, fd);
			if (fchmod(fd, e->mode) == -1 ||
			    futimens(fd, ts) == -1 || close(fd) == -1)
				fsu_fail("%s: cannot unpack: %s", e->path,
				    strerror(errno));
		}
	}
	close(dfd);
}

/* Give the stage's directory path the stream's mode and time. */
static void
fsu_dir_meta(int root, const struct fsu_dir *d)
{
	struct timespec	ts[2];
	int		fd;

	if ((fd = dir_open_nofollow(root, d->path)) == -1)
		return;
	ts[0] = d->mtime;
	ts[1] = d->mtime;
	if (fchmod(fd, d->mode) == -1 || futimens(fd, ts) == -1)
		fsu_fail("%s: cannot set its mode and time: %s", d->path,
		    strerror(errno));
	close(fd);
}

/* Step 3: the whole stream into the stage, then its directories' times. */
static void
fsu_unpack(struct fsu *u)
{
	struct tar_entry	e;
	struct tar_rd		t;
	char			buf[TAR_BLOCK * 8];
	size_t			i;
	int			r;

	tar_init(&t, fsu_read, &u->in);
	while ((r = tar_next(&t, &e)) == 1) {
		if (strcmp(e.path, ".") == 0 || strcmp(e.path, "./") == 0) {
			tar_entry_clear(&e);	/* the workspace itself */
			continue;
		}
		if (tar_path_clean(e.path) != 0)
			fsu_fail("%s: not a plain path in the workspace",
			    e.path);
		fsu_unpack_entry(u, &t, &e);
		tar_entry_clear(&e);
	}
	if (r < 0)
		fsu_fail("the pushed tar stream: %s", t.err);
	while (fsu_read(&u->in, buf, sizeof buf) > 0)
		;			/* the end's padding: all of stdin */
	for (i = u->ndirs; i > 0; i--)
		fsu_dir_meta(u->stage, &u->dirs[i - 1]);
}

/*
 * Step 4 in one directory: each staged entry of sdir into wdir (path
 * names it, for messages and the descent).
 */
static void
fsu_move_dir(int sdir, int wdir, const char *path, int depth)
{
	struct dirent	 *d;
	struct stat	  ss, ws;
	char		**names = NULL, sub[PATH_MAX];
	size_t		  n = 0, i;
	DIR		 *dir;
	int		  fd, s2, w2, have;

	if (depth >= FSU_DEPTH_MAX || (fd = dup(sdir)) == -1 ||
	    (dir = fdopendir(fd)) == NULL)
		fsu_fail("%s: cannot move into place", path);
	rewinddir(dir);
	while ((d = readdir(dir)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		names = xreallocarray(names, n + 1, sizeof *names);
		names[n++] = xstrdup(d->d_name);
	}
	closedir(dir);
	for (i = 0; i < n; i++) {
		snprintf(sub, sizeof sub, "%s%s%s", path, *path ? "/" : "",
		    names[i]);
		if (fstatat(sdir, names[i], &ss, AT_SYMLINK_NOFOLLOW) == -1)
			fsu_fail("%s: %s", sub, strerror(errno));
		have = fstatat(wdir, names[i], &ws, AT_SYMLINK_NOFOLLOW) == 0;
		if (S_ISDIR(ss.st_mode) && have && S_ISDIR(ws.st_mode)) {
			if ((s2 = openat(sdir, names[i], O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1 ||
			    (w2 = openat(wdir, names[i], O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
				fsu_fail("%s: %s", sub, strerror(errno));
			fsu_move_dir(s2, w2, sub, depth + 1);
			close(s2);
			close(w2);
		} else {
			if (have && (S_ISDIR(ss.st_mode) ||
			    S_ISDIR(ws.st_mode)) &&
			    fsu_rm_rf(wdir, names[i], 0) == -1)
				fsu_fail("%s: cannot remove: %s", sub,
				    strerror(errno));
			if (renameat(sdir, names[i], wdir, names[i]) == -1)
				fsu_fail("%s: cannot move into place: %s",
				    sub, strerror(errno));
		}
		free(names[i]);
	}
	free(names);
}

/* Steps 4 and 5: into place, entered directories' modes and times. */
static void
fsu_finish(struct fsu *u)
{
	struct stat	st;
	size_t		i;
	int		fd;

	fsu_move_dir(u->stage, u->ws, "", 0);
	for (i = u->ndirs; i > 0; i--) {
		if ((fd = dir_open_nofollow(u->stage, u->dirs[i - 1].path)) == -1)
			continue;	/* moved whole, times and all */
		close(fd);
		if (fstatat(u->ws, u->dirs[i - 1].path, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
			fsu_dir_meta(u->ws, &u->dirs[i - 1]);
	}
	close(u->stage);
	fsu_drop_stage(u);
}

/* clawssh-agent fs-unpack: see the top of this file. */
int
fs_unpack_main(int argc, char **argv)
{
	static struct fsu	u;
	char			line[PATH_MAX];

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: clawssh-agent fs-unpack < PARENTS-TAR\n");
		return AGENT_EXIT_ERR;
	}
	if ((u.ws = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		fsu_fail("the sandbox workspace is missing");
	for (;;) {
		if (fsu_line(&u.in, line, sizeof line) != 0)
			fsu_fail("the push's list of parents ends early");
		if (strcmp(line, ".") == 0)
			break;
		fsu_fix_parent(&u, line);
	}
	fsu_clean_stages(&u);
	fsu_cur = &u;
	fsu_make_stage(&u);
	fsu_unpack(&u);
	fsu_finish(&u);
	return 0;
}
