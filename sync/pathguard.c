/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pathguard: every change to the local workspace goes through a directory
 * descriptor resolved beneath the root, with openat2(2) where the kernel
 * has it and an O_NOFOLLOW openat(2) walk where it does not.  The contract
 * is in pathguard.h; the reasoning in docs/pathguard.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/openat2.h>

#include "buf.h"
#include "error.h"
#include "pathguard.h"
#include "pathguard_int.h"
#include "xmalloc.h"

#ifndef SYS_openat2
#define SYS_openat2	__NR_openat2
#endif

#define PG_TMP_TRIES	8	/* fresh temporary names tried on EEXIST */
#define PG_RESOLVE	(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | \
			    RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)
#define PG_DIR_FLAGS	(O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define PG_TMP_FLAGS	(O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)
#define PG_GIT_WHY	"a .git is never changed by clawssh"
#define PG_KEPT		1	/* pg_rmtree_at: a .git beneath was kept */

struct pathguard {
	int	 fd;		/* O_PATH | O_DIRECTORY on the root */
	char	*path;		/* the root's real path */
	dev_t	 dev;		/* the root's st_dev, st_ino when opened */
	ino_t	 ino;
};

/* How one directory path is walked: for whom, and whether to create. */
struct pg_walk {
	struct pathguard	*pg;
	const char		*rel;	/* the entry named in messages */
	const char		*dir;	/* the directory path being walked */
	int			 create; /* mkdirat missing components */
	mode_t			 mode;	/* for the last one when creating */
};

static int	pg_openat2_ok = -1;	/* -1 not probed yet, 0 no, 1 yes */
static int	pg_walk_forced;		/* pathguard_force_walk */

/* Fail with "ENTRY: what" with entry escaped. */
int
pg_refuse(char **cause, int err, const char *entry, const char *what)
{
	char	*e;

	if (cause == NULL)
		return err;
	e = pathguard_escape(entry);
	*cause = xasprintf("%s: %s", e, what);
	free(e);
	return err;
}

/* Fail with "ENTRY: what: strerror(errno)", mapping errno. */
static int
pg_errno(char **cause, const char *entry, const char *what)
{
	int	 err = errno, r;
	char	*m;

	m = xasprintf("%s: %s", what, strerror(err));
	r = pg_refuse(cause, claw_err_from_errno(err), entry, m);
	free(m);
	return r;
}

/*
 * Fail for the walk w at the first len bytes of w->dir:
 * "ENTRY: what PREFIX", plus ": strerror(errno)" if with_errno.
 */
static int
pg_where(const struct pg_walk *w, size_t len, int err, const char *what,
    int with_errno, char **cause)
{
	char	*prefix, *e, *m;
	int	 saved = errno;

	if (cause == NULL)
		return err;
	prefix = xstrndup(w->dir, len);
	e = pathguard_escape(prefix);
	if (with_errno)
		m = xasprintf("%s %s: %s", what, e, strerror(saved));
	else
		m = xasprintf("%s %s", what, e);
	pg_refuse(cause, err, w->rel, m);
	free(m);
	free(e);
	free(prefix);
	return err;
}


/* Call openat2(2) with flags and resolve; retry the kernel's EAGAIN. */
static int
pg_openat2(int dfd, const char *path, int flags, uint64_t resolve)
{
	struct open_how	how;
	int		fd, tries = 0;

	memset(&how, 0, sizeof how);
	how.flags = (uint64_t)flags;
	how.resolve = resolve;
	do {
		fd = (int)syscall(SYS_openat2, dfd, path, &how, sizeof how);
	} while (fd == -1 && errno == EAGAIN && ++tries < 4);
	return fd;
}

/* Find out once whether openat2(2) with our resolve flags works. */
static void
pg_probe(int rootfd)
{
	int	fd;

	if (pg_openat2_ok != -1)
		return;
	if ((fd = pg_openat2(rootfd, ".", PG_DIR_FLAGS, PG_RESOLVE)) != -1) {
		close(fd);
		pg_openat2_ok = 1;
	} else if (errno == ENOSYS || errno == E2BIG || errno == EINVAL ||
	    errno == EPERM)
		pg_openat2_ok = 0;
}

/* Return 1 if resolutions use openat2(2) now. */
static int
pg_use_openat2(void)
{
	return !pg_walk_forced && pg_openat2_ok == 1;
}

/* Resolve with the O_NOFOLLOW walk if on, for tests. */
void
pathguard_force_walk(int on)
{
	pg_walk_forced = on != 0;
}

/* Name the resolver in use. */
const char *
pathguard_resolver(void)
{
	return pg_use_openat2() ? "openat2" : "walk";
}

/* Open the directory name beneath dfd, refusing symlinks; -1 and errno. */
static int
pg_open_one(int dfd, const char *name)
{
	if (pg_use_openat2())
		return pg_openat2(dfd, name, PG_DIR_FLAGS, PG_RESOLVE);
	return openat(dfd, name, PG_DIR_FLAGS);
}

/* Explain why the component name (first len bytes of w->dir) failed. */
static int
pg_step_fail(const struct pg_walk *w, int dfd, const char *name, size_t len,
    char **cause)
{
	struct stat	st;
	int		err = errno;

	if ((err == ELOOP || err == ENOTDIR) &&
	    fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode))
			return pg_where(w, len, CLAW_ERR_PERM,
			    "goes through a symbolic link at", 0, cause);
		if (!S_ISDIR(st.st_mode))
			return pg_where(w, len, CLAW_ERR_EXISTS,
			    "not a directory:", 0, cause);
	}
	if (err == EXDEV)
		return pg_where(w, len, CLAW_ERR_PERM,
		    "crosses a mount point at", 0, cause);
	if (err == ENOENT)
		return pg_where(w, len, CLAW_ERR_NOTFOUND,
		    "no such directory:", 0, cause);
	errno = err;
	return pg_where(w, len, claw_err_from_errno(err),
	    "cannot open directory", 1, cause);
}

/*
 * Step from dfd into the component name, the first len bytes of w->dir,
 * creating it first if asked; set *fdp to it.
 */
static int
pg_step(const struct pg_walk *w, int dfd, const char *name, size_t len,
    int *fdp, char **cause)
{
	struct stat	st;
	mode_t		mode = w->dir[len] == '\0' ? w->mode : 0777;
	int		fd;

	if (w->create && mkdirat(dfd, name, mode) == -1 && errno != EEXIST)
		return pg_where(w, len, claw_err_from_errno(errno),
		    "cannot create directory", 1, cause);
	if ((fd = pg_open_one(dfd, name)) == -1)
		return pg_step_fail(w, dfd, name, len, cause);
	if (fstat(fd, &st) == -1 || st.st_dev != w->pg->dev) {
		close(fd);
		return pg_where(w, len, CLAW_ERR_PERM,
		    "crosses a mount point at", 0, cause);
	}
	*fdp = fd;
	return 0;
}

/* Walk w->dir from the root a component at a time; set *fdp to it. */
static int
pg_walk_dir(const struct pg_walk *w, int *fdp, char **cause)
{
	char	*copy, *p;
	size_t	 n;
	int	 fd, nfd = -1, r = 0;

	if ((fd = fcntl(w->pg->fd, F_DUPFD_CLOEXEC, 0)) == -1)
		return pg_errno(cause, w->rel, "cannot duplicate root");
	copy = xstrdup(w->dir);
	for (p = copy; *p != '\0'; p += n + 1) {
		n = pg_comp_len(p);
		p[n] = '\0';
		r = pg_step(w, fd, p, (size_t)(p - copy) + n, &nfd, cause);
		close(fd);
		if (r != 0)
			break;
		fd = nfd;
		if (w->dir[p - copy + n] == '\0')
			break;
	}
	free(copy);
	if (r == 0)
		*fdp = fd;
	return r;
}

/*
 * Open w->dir ("" for the root) beneath the root in one openat2(2) call,
 * or by the walk; a refusal is explained by walking.
 */
static int
pg_open_dir(const struct pg_walk *w, int *fdp, char **cause)
{
	const char	*path = *w->dir == '\0' ? "." : w->dir;
	int		 fd, err, r;

	if (!pg_use_openat2())
		return pg_walk_dir(w, fdp, cause);
	if ((fd = pg_openat2(w->pg->fd, path, PG_DIR_FLAGS, PG_RESOLVE)) !=
	    -1) {
		*fdp = fd;
		return 0;
	}
	err = errno;
	if ((r = pg_walk_dir(w, &fd, cause)) != 0)
		return r;
	close(fd);
	errno = err;
	return pg_errno(cause, w->rel, "cannot open parent directory");
}

/*
 * Check the root and rel, then open rel's parent beneath the root (making
 * missing directories if create); set *fdp and *base (into rel).
 */
static int
pg_parent(struct pathguard *pg, const char *rel, int create, int *fdp,
    const char **base, char **cause)
{
	struct pg_walk	 w = { pg, rel, NULL, 0, 0777 };
	const char	*slash;
	char		*dir;
	int		 r;

	if ((r = pathguard_check_root(pg, cause)) != 0 ||
	    (r = pathguard_name_check(rel, cause)) != 0)
		return r;
	if ((slash = strrchr(rel, '/')) == NULL)
		dir = xstrdup("");
	else
		dir = xstrndup(rel, (size_t)(slash - rel));
	w.dir = dir;
	if ((r = pg_open_dir(&w, fdp, create ? NULL : cause)) != 0 && create) {
		w.create = 1;
		r = pg_walk_dir(&w, fdp, cause);
	}
	free(dir);
	if (r == 0)
		*base = slash == NULL ? rel : slash + 1;
	return r;
}

/*
 * pg_parent for a call that changes rel: a protected rel (see
 * pathguard_name_protected) is refused first.
 */
static int
pg_parent_change(struct pathguard *pg, const char *rel, int create, int *fdp,
    const char **base, char **cause)
{
	if (pathguard_name_protected(rel))
		return pg_refuse(cause, CLAW_ERR_PERM, rel, PG_GIT_WHY);
	return pg_parent(pg, rel, create, fdp, base, cause);
}

/*
 * Turn a missing parent (r, with message c) into success for operations
 * where missing is fine; pass anything else on to cause.
 */
static int
pg_missing_ok(int r, char *c, char **cause)
{
	if (r == CLAW_ERR_NOTFOUND)
		r = 0;
	if (r != 0 && cause != NULL)
		*cause = c;
	else
		free(c);
	return r;
}

/* Open the workspace root. */
int
pathguard_open(const char *root, struct pathguard **out, char **cause)
{
	struct pathguard	*pg;
	struct stat		 st;
	char			*real;
	int			 fd, r;

	if ((real = realpath(root, NULL)) == NULL)
		return pg_errno(cause, root, "cannot resolve workspace root");
	if ((fd = open(real, PG_DIR_FLAGS)) == -1 || fstat(fd, &st) == -1) {
		r = pg_errno(cause, real, "cannot open workspace root");
		if (fd != -1)
			close(fd);
		free(real);
		return r;
	}
	pg = xcalloc(1, sizeof *pg);
	pg->fd = fd;
	pg->path = real;
	pg->dev = st.st_dev;
	pg->ino = st.st_ino;
	if ((r = pathguard_check_root(pg, cause)) != 0) {
		pathguard_close(pg);
		return r;
	}
	pg_probe(fd);
	*out = pg;
	return 0;
}

/* Close pg; NULL is fine. */
void
pathguard_close(struct pathguard *pg)
{
	if (pg == NULL)
		return;
	close(pg->fd);
	free(pg->path);
	free(pg);
}

/* Return the root's real path. */
const char *
pathguard_root(const struct pathguard *pg)
{
	return pg->path;
}

/* Check that the remembered path still names the opened root. */
int
pathguard_check_root(struct pathguard *pg, char **cause)
{
	struct stat	st;

	if (lstat(pg->path, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_dev == pg->dev && st.st_ino == pg->ino)
		return 0;
	return claw_fail(cause, CLAW_ERR_PERM,
	    "workspace root %s was replaced; sync stopped", pg->path);
}

/* Create rel and its missing parents as directories. */
int
pathguard_mkdirs(struct pathguard *pg, const char *rel, mode_t mode,
    char **cause)
{
	struct pg_walk	w = { pg, rel, rel, 1, (mode & 0777) | 0700 };
	int		fd, r;

	if ((r = pathguard_check_root(pg, cause)) != 0 ||
	    (r = pathguard_name_check(rel, cause)) != 0)
		return r;
	if (pathguard_name_protected(rel))
		return pg_refuse(cause, CLAW_ERR_PERM, rel, PG_GIT_WHY);
	if ((r = pg_walk_dir(&w, &fd, cause)) != 0)
		return r;
	close(fd);
	return 0;
}

/* Set *name to a fresh PATHGUARD_TMP_PREFIX name. */
static char *
pg_tmp_name(void)
{
	uint64_t	rnd;

	arc4random_buf(&rnd, sizeof rnd);
	return xasprintf("%s%016llx", PATHGUARD_TMP_PREFIX,
	    (unsigned long long)rnd);
}

/*
 * Create a fresh temporary entry in dfd for rel: a symbolic link to target,
 * or if target is NULL a file opened into *fdp.  Set *tmpp to its name.
 */
static int
pg_tmp_make(int dfd, const char *rel, const char *target, int *fdp,
    char **tmpp, char **cause)
{
	char	*tmp = NULL;
	int	 i, fd, err = EEXIST;

	for (i = 0; i < PG_TMP_TRIES && err == EEXIST; i++) {
		tmp = pg_tmp_name();
		if (target != NULL)
			fd = symlinkat(target, dfd, tmp);
		else
			fd = openat(dfd, tmp, PG_TMP_FLAGS, 0600);
		if (fd != -1) {
			if (fdp != NULL)
				*fdp = fd;
			*tmpp = tmp;
			return 0;
		}
		err = errno;
		free(tmp);
	}
	errno = err;
	return pg_errno(cause, rel, "cannot create temporary file");
}

/* Check that tmp is a name pathguard_write_begin could have made. */
static int
pg_tmp_check(const char *rel, const char *tmp, char **cause)
{
	size_t	plen = strlen(PATHGUARD_TMP_PREFIX);

	if (tmp == NULL || strncmp(tmp, PATHGUARD_TMP_PREFIX, plen) != 0 ||
	    strchr(tmp, '/') != NULL || pathguard_name_check(tmp, NULL) != 0)
		return pg_refuse(cause, CLAW_ERR_INVAL, rel,
		    "invalid temporary file name");
	return 0;
}

/* Rename tmp over base in dfd, refusing to replace a directory. */
static int
pg_replace(int dfd, const char *tmp, const char *base, const char *rel,
    char **cause)
{
	if (renameat(dfd, tmp, dfd, base) == 0)
		return 0;
	if (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST)
		return pg_refuse(cause, CLAW_ERR_EXISTS, rel,
		    "is a directory; remove it first");
	return pg_errno(cause, rel, "cannot rename into place");
}

/* Set the mode and modification time of the open file fd. */
static int
pg_fd_meta(int fd, const char *rel, mode_t mode,
    const struct timespec *mtime, char **cause)
{
	struct timespec	ts[2];

	if (fchmod(fd, mode & 0777) == -1)
		return pg_errno(cause, rel, "cannot change mode");
	if (mtime == NULL)
		return 0;
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1] = *mtime;
	if (futimens(fd, ts) == -1)
		return pg_errno(cause, rel, "cannot set modification time");
	return 0;
}

/* Start writing rel: make its parents and a temporary file beside it. */
int
pathguard_write_begin(struct pathguard *pg, const char *rel, int *fd,
    char **tmp, char **cause)
{
	const char	*base;
	int		 dfd, r;

	if ((r = pg_parent_change(pg, rel, 1, &dfd, &base, cause)) != 0)
		return r;
	r = pg_tmp_make(dfd, rel, NULL, fd, tmp, cause);
	close(dfd);
	return r;
}

/* Finish a write: set mode and time on fd, rename tmp over rel. */
int
pathguard_write_commit(struct pathguard *pg, const char *rel,
    const char *tmp, int fd, mode_t mode, const struct timespec *mtime,
    char **cause)
{
	const char	*base;
	int		 dfd = -1, r;

	if ((r = pg_tmp_check(rel, tmp, cause)) != 0 ||
	    (r = pg_parent_change(pg, rel, 0, &dfd, &base, cause)) != 0)
		goto out;
	if ((r = pg_fd_meta(fd, rel, mode, mtime, cause)) == 0)
		r = pg_replace(dfd, tmp, base, rel, cause);
	if (r != 0)
		unlinkat(dfd, tmp, 0);
out:
	if (fd != -1)
		close(fd);
	if (dfd != -1)
		close(dfd);
	return r;
}

/* Abandon a write: close fd and remove tmp. */
int
pathguard_write_abort(struct pathguard *pg, const char *rel,
    const char *tmp, int fd)
{
	const char	*base;
	int		 dfd, r;

	if (fd != -1)
		close(fd);
	if ((r = pg_tmp_check(rel, tmp, NULL)) != 0 ||
	    (r = pg_parent(pg, rel, 0, &dfd, &base, NULL)) != 0)
		return r;
	if (unlinkat(dfd, tmp, 0) == -1 && errno != ENOENT)
		r = claw_err_from_errno(errno);
	close(dfd);
	return r;
}

/* Create the symbolic link rel -> target, replacing a file or link. */
int
pathguard_symlink(struct pathguard *pg, const char *rel, const char *target,
    char **cause)
{
	const char	*base;
	char		*tmp;
	int		 dfd, r;

	if ((r = pathguard_check_root(pg, cause)) != 0 ||
	    (r = pathguard_link_check(rel, target, cause)) != 0 ||
	    (r = pg_parent_change(pg, rel, 1, &dfd, &base, cause)) != 0)
		return r;
	if ((r = pg_tmp_make(dfd, rel, target, NULL, &tmp, cause)) == 0) {
		if ((r = pg_replace(dfd, tmp, base, rel, cause)) != 0)
			unlinkat(dfd, tmp, 0);
		free(tmp);
	}
	close(dfd);
	return r;
}

static int	pg_rmtree_at(struct pathguard *, int, const char *,
		    const char *, char **);

/*
 * Remove every entry of the open directory d, named path in messages, but
 * a .git: PG_KEPT if one was kept here or deeper, else 0 or negative.
 */
static int
pg_rmtree_entries(struct pathguard *pg, DIR *d, const char *path,
    char **cause)
{
	struct dirent	*de;
	char		*sub;
	size_t		 len;
	int		 r, kept = 0;

	for (errno = 0; (de = readdir(d)) != NULL; errno = 0) {
		len = strlen(de->d_name);
		if (pg_is_dots(de->d_name, len))
			continue;
		if (pg_is_git(de->d_name, len)) {
			kept = PG_KEPT;
			continue;
		}
		if (unlinkat(dirfd(d), de->d_name, 0) == 0 || errno == ENOENT)
			continue;
		sub = xasprintf("%s/%s", path, de->d_name);
		if (errno == EISDIR)
			r = pg_rmtree_at(pg, dirfd(d), de->d_name, sub, cause);
		else
			r = pg_errno(cause, sub, "cannot remove");
		free(sub);
		if (r < 0)
			return r;
		kept |= r;
	}
	if (errno != 0)
		return pg_errno(cause, path, "cannot read directory");
	return kept;
}

/*
 * Remove the directory name in dfd and all beneath it, without following;
 * PG_KEPT (the directory stays) when a .git beneath it was kept.
 */
static int
pg_rmtree_at(struct pathguard *pg, int dfd, const char *name,
    const char *path, char **cause)
{
	struct stat	 st;
	DIR		*d;
	int		 fd, r;

	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return errno == ENOENT ? 0 :
		    pg_errno(cause, path, "cannot open directory");
	if (fstat(fd, &st) == -1 || st.st_dev != pg->dev) {
		close(fd);
		return pg_refuse(cause, CLAW_ERR_PERM, path,
		    "is a mount point");
	}
	if ((d = fdopendir(fd)) == NULL) {
		r = pg_errno(cause, path, "cannot read directory");
		close(fd);
		return r;
	}
	r = pg_rmtree_entries(pg, d, path, cause);
	closedir(d);
	if (r == 0 && unlinkat(dfd, name, AT_REMOVEDIR) == -1 &&
	    errno != ENOENT)
		r = pg_errno(cause, path, "cannot remove directory");
	return r;
}

/*
 * Remove rel, a non-directory, or if tree a directory with everything
 * beneath it; a missing rel or parent is fine.
 */
static int
pg_remove(struct pathguard *pg, const char *rel, int tree, char **cause)
{
	const char	*base;
	char		*c = NULL;
	int		 dfd, r;

	r = pg_parent_change(pg, rel, 0, &dfd, &base, &c);
	if (r != 0)
		return pg_missing_ok(r, c, cause);
	if (unlinkat(dfd, base, 0) == -1 && errno != ENOENT) {
		if (errno == EISDIR && tree)
			r = pg_rmtree_at(pg, dfd, base, rel, cause);
		else if (errno == EISDIR)
			r = pg_refuse(cause, CLAW_ERR_EXISTS, rel,
			    "is a directory");
		else
			r = pg_errno(cause, rel, "cannot remove");
	}
	close(dfd);
	if (r == PG_KEPT)
		r = pg_refuse(cause, CLAW_ERR_PERM, rel, "holds a .git, which "
		    "is never removed: kept it, removed the rest");
	return r;
}

/* Remove the non-directory rel; missing is fine. */
int
pathguard_unlink(struct pathguard *pg, const char *rel, char **cause)
{
	return pg_remove(pg, rel, 0, cause);
}

/* Remove rel and everything beneath it; missing is fine. */
int
pathguard_remove_tree(struct pathguard *pg, const char *rel, char **cause)
{
	return pg_remove(pg, rel, 1, cause);
}

/* Set the mode (unless a link) and modification time of rel. */
int
pathguard_set_meta(struct pathguard *pg, const char *rel, mode_t mode,
    const struct timespec *mtime, char **cause)
{
	struct timespec	 ts[2];
	struct stat	 st;
	const char	*base;
	int		 dfd, r;

	if ((r = pg_parent_change(pg, rel, 0, &dfd, &base, cause)) != 0)
		return r;
	if (fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == -1)
		r = pg_errno(cause, rel, "cannot stat");
	else if (!S_ISLNK(st.st_mode) &&
	    fchmodat(dfd, base, mode & 0777, AT_SYMLINK_NOFOLLOW) == -1 &&
	    errno != EOPNOTSUPP)
		r = pg_errno(cause, rel, "cannot change mode");
	else if (mtime != NULL) {
		ts[0].tv_sec = 0;
		ts[0].tv_nsec = UTIME_OMIT;
		ts[1] = *mtime;
		if (utimensat(dfd, base, ts, AT_SYMLINK_NOFOLLOW) == -1)
			r = pg_errno(cause, rel,
			    "cannot set modification time");
	}
	close(dfd);
	return r;
}

/* Fail renaming from to to with "FROM: what TO[: strerror]". */
static int
pg_rename_fail(char **cause, int err, const char *from, const char *to,
    const char *what)
{
	char	*e, *m;
	int	 saved = errno;

	if (cause == NULL)
		return err;
	e = pathguard_escape(to);
	if (err == CLAW_ERR_PERM || err == CLAW_ERR_EXISTS)
		m = xasprintf("%s %s", what, e);
	else
		m = xasprintf("%s %s: %s", what, e, strerror(saved));
	pg_refuse(cause, err, from, m);
	free(m);
	free(e);
	return err;
}

/* Rename from to to, both beneath the root. */
int
pathguard_rename(struct pathguard *pg, const char *from, const char *to,
    char **cause)
{
	const char	*fbase, *tbase;
	int		 fdf = -1, fdt = -1, r;

	if ((r = pathguard_check_root(pg, cause)) != 0 ||
	    (r = pathguard_name_check(from, cause)) != 0 ||
	    (r = pathguard_name_check(to, cause)) != 0)
		return r;
	if (pg_depth(to) < pg_depth(from))
		return pg_rename_fail(cause, CLAW_ERR_PERM, from, to,
		    "cannot move to the shallower");
	if ((r = pg_parent_change(pg, from, 0, &fdf, &fbase, cause)) != 0 ||
	    (r = pg_parent_change(pg, to, 0, &fdt, &tbase, cause)) != 0)
		goto out;
	if (renameat(fdf, fbase, fdt, tbase) == -1) {
		if (errno == EISDIR || errno == ENOTEMPTY || errno == EEXIST)
			r = pg_rename_fail(cause, CLAW_ERR_EXISTS, from, to,
			    "a directory is in the way at");
		else
			r = pg_rename_fail(cause, claw_err_from_errno(errno),
			    from, to, "cannot rename to");
	}
out:
	if (fdf != -1)
		close(fdf);
	if (fdt != -1)
		close(fdt);
	return r;
}

/* fstatat rel beneath the root without following it. */
int
pathguard_lstat(struct pathguard *pg, const char *rel, struct stat *st,
    char **cause)
{
	struct stat	 sb;
	const char	*base;
	int		 dfd, r;

	if ((r = pg_parent(pg, rel, 0, &dfd, &base, cause)) != 0)
		return r;
	if (fstatat(dfd, base, &sb, AT_SYMLINK_NOFOLLOW) == -1)
		r = pg_errno(cause, rel, "cannot stat");
	else
		*st = sb;
	close(dfd);
	return r;
}

/* Open the file rel for reading beneath the root, following no link. */
int
pathguard_open_read(struct pathguard *pg, const char *rel, int *fd,
    char **cause)
{
	const char	*base;
	int		 dfd, r, f;

	if ((r = pg_parent(pg, rel, 0, &dfd, &base, cause)) != 0)
		return r;
	f = openat(dfd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK);
	if (f == -1)
		r = pg_errno(cause, rel, "cannot open");
	else
		*fd = f;
	close(dfd);
	return r;
}

/* Read the target of the symbolic link rel beneath the root. */
int
pathguard_readlink(struct pathguard *pg, const char *rel, char **target,
    char **cause)
{
	const char	*base;
	char		 buf[PATH_MAX];
	ssize_t		 n;
	int		 dfd, r;

	if ((r = pg_parent(pg, rel, 0, &dfd, &base, cause)) != 0)
		return r;
	n = readlinkat(dfd, base, buf, sizeof buf);
	if (n == -1)
		r = pg_errno(cause, rel, "cannot read link");
	else if ((size_t)n >= sizeof buf)
		r = claw_fail(cause, CLAW_ERR_INVAL, "%s: link target too long",
		    rel);
	else
		*target = xstrndup(buf, (size_t)n);
	close(dfd);
	return r;
}

/*
 * Open the longest existing prefix of rel (of length *len on return)
 * beneath the root, following links that stay beneath it.
 */
static int
pg_open_prefix(struct pathguard *pg, const char *rel, size_t *len)
{
	char	*p = xstrdup(rel), *slash;
	int	 fd;

	for (;;) {
		fd = pg_openat2(pg->fd, *p == '\0' ? "." : p,
		    O_PATH | O_CLOEXEC, RESOLVE_BENEATH |
		    RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV);
		if (fd != -1 || errno != ENOENT || *p == '\0')
			break;
		if ((slash = strrchr(p, '/')) != NULL)
			*slash = '\0';
		else
			*p = '\0';
	}
	*len = strlen(p);
	free(p);
	return fd;
}

/* Resolve rel, following links that stay beneath the root. */
int
pathguard_resolve(struct pathguard *pg, const char *rel, char **out,
    char **cause)
{
	char	 proc[64], real[PATH_MAX];
	size_t	 len, rootlen = strlen(pg->path);
	ssize_t	 n;
	int	 fd, r;

	if ((r = pathguard_check_root(pg, cause)) != 0 ||
	    (r = pathguard_name_check(rel, cause)) != 0)
		return r;
	if (!pg_use_openat2()) {
		*out = xstrdup(rel);
		return 0;
	}
	if ((fd = pg_open_prefix(pg, rel, &len)) == -1) {
		if (errno == EXDEV || errno == ELOOP)
			return pg_refuse(cause, CLAW_ERR_PERM, rel, "a symbolic "
			    "link on the way leads outside the workspace");
		return pg_errno(cause, rel, "cannot resolve");
	}
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	n = readlink(proc, real, sizeof real - 1);
	close(fd);
	if (n == -1)
		return pg_errno(cause, rel, "cannot resolve");
	real[n] = '\0';
	if (strncmp(real, pg->path, rootlen) != 0 ||
	    (real[rootlen] != '\0' && real[rootlen] != '/'))
		return pg_refuse(cause, CLAW_ERR_PERM, rel,
		    "resolves outside the workspace");
	if (real[rootlen] == '\0')
		*out = xstrdup(rel + len + (rel[len] == '/'));
	else if (rel[len] == '\0')
		*out = xstrdup(real + rootlen + 1);
	else
		*out = xasprintf("%s/%s", real + rootlen + 1, rel + len + 1);
	return 0;
}
