/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The file tools on the local workspace: every path is resolved by
 * pathguard_resolve (links followed only while they stay inside), then
 * used through pathguard, which refuses any link on the way.  Nothing
 * in .git is ever changed: not by its name, not through a link.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "error.h"
#include "fdio.h"
#include "fstore_int.h"
#include "pathguard.h"
#include "xmalloc.h"

/* One prepared write or removal of a commit. */
struct fl_step {
	char	*rel;		/* resolved */
	char	*tmp;		/* written: temporary name */
	int	 fd;
	unsigned mode;
};

/* Fill st from sb (and the link target read beneath the root). */
static int
fl_fill(struct fstore *fs, const char *rel, const struct stat *sb,
    struct fstore_stat *st, char **cause)
{
	memset(st, 0, sizeof *st);
	st->type = S_ISREG(sb->st_mode) ? 'f' : S_ISDIR(sb->st_mode) ? 'd' :
	    S_ISLNK(sb->st_mode) ? 'l' : 'o';
	st->mode = sb->st_mode & 07777;
	st->size = (uint64_t)sb->st_size;
	st->mtime_sec = sb->st_mtim.tv_sec;
	st->mtime_nsec = sb->st_mtim.tv_nsec;
	if (st->type == 'l')
		return pathguard_readlink(fs->pg, rel, &st->link, cause);
	return 0;
}

/* Read len bytes at off from fd into out. */
static int
fl_pread(int fd, const char *path, uint64_t off, uint64_t len,
    struct buf *out, char **cause)
{
	char	chunk[65536];
	ssize_t	n;

	while (len > 0) {
		n = pread(fd, chunk, len < sizeof chunk ? (size_t)len :
		    sizeof chunk, (off_t)off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return claw_fail_errno(cause, path, "read");
		if (n == 0)
			break;
		buf_append(out, chunk, (size_t)n);
		off += (uint64_t)n;
		len -= (uint64_t)n;
	}
	return 0;
}

/* Read a local file. */
int
fstore_local_read(struct fstore *fs, const char *path, uint64_t off,
    uint64_t lim, struct buf *out, unsigned *mode, char **cause)
{
	struct stat	 sb;
	char		*rel = NULL;
	uint64_t	 len;
	int		 fd = -1, r;

	if ((r = pathguard_resolve(fs->pg, path, &rel, cause)) != 0 ||
	    (r = pathguard_open_read(fs->pg, rel, &fd, cause)) != 0)
		goto out;
	if (fstat(fd, &sb) == -1) {
		r = claw_fail_errno(cause, path, "stat");
		goto out;
	}
	if (!S_ISREG(sb.st_mode)) {
		r = claw_fail(cause, CLAW_ERR_INVAL, "%s: %s", path,
		    S_ISDIR(sb.st_mode) ? "is a directory" :
		    "not a regular file");
		goto out;
	}
	len = off >= (uint64_t)sb.st_size ? 0 : (uint64_t)sb.st_size - off;
	if (lim != 0 && lim < len)
		len = lim;
	if (len > FSTORE_FILE_MAX) {
		r = claw_fail(cause, CLAW_ERR_INVAL, "%s: over %d MiB; read "
		    "it in parts with --offset and --limit", path,
		    FSTORE_FILE_MAX >> 20);
		goto out;
	}
	if ((r = fl_pread(fd, path, off, len, out, cause)) == 0 &&
	    mode != NULL)
		*mode = sb.st_mode & 07777;
out:
	if (fd != -1)
		close(fd);
	free(rel);
	return r;
}

/* Stat a local entry. */
int
fstore_local_stat(struct fstore *fs, const char *path,
    struct fstore_stat *st, char **cause)
{
	struct stat	 sb;
	char		*rel = NULL;
	int		 r;

	if (*path == '\0')
		r = pathguard_check_root(fs->pg, cause) == 0 &&
		    lstat(pathguard_root(fs->pg), &sb) == 0 ? 0 :
		    claw_fail(cause, CLAW_ERR_IO, "workspace root is gone");
	else if ((r = pathguard_resolve(fs->pg, path, &rel, cause)) == 0)
		r = pathguard_lstat(fs->pg, rel, &sb, cause);
	if (r == 0)
		r = fl_fill(fs, rel, &sb, st, cause);
	free(rel);
	return r;
}

/* Open the directory at rel ("" for the root) for reading. */
static int
fl_opendir(struct fstore *fs, const char *path, const char *rel, DIR **dp,
    char **cause)
{
	struct stat	sb;
	int		fd, r;

	if (*rel == '\0')
		fd = open(pathguard_root(fs->pg), O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
	else if ((r = pathguard_open_read(fs->pg, rel, &fd, cause)) != 0)
		return r;
	if (fd == -1)
		return claw_fail_errno(cause, path, "open");
	if (fstat(fd, &sb) == -1 || !S_ISDIR(sb.st_mode) ||
	    (*dp = fdopendir(fd)) == NULL) {
		close(fd);
		return claw_fail(cause, CLAW_ERR_INVAL, "%s: not a directory",
		    path);
	}
	return 0;
}

/* Add the entry name of dir rel to the listing. */
static int
fl_add(struct fstore *fs, const char *rel, const char *name,
    struct fstore_entry **out, size_t *n, char **cause)
{
	struct stat	 sb;
	char		*child;
	int		 r;

	child = *rel == '\0' ? xstrdup(name) : xasprintf("%s/%s", rel, name);
	if ((r = pathguard_lstat(fs->pg, child, &sb, cause)) == 0) {
		*out = xreallocarray(*out, *n + 1, sizeof **out);
		if ((r = fl_fill(fs, child, &sb, &(*out)[*n].st, cause)) ==
		    0)
			(*out)[(*n)++].name = xstrdup(name);
	} else if (r == CLAW_ERR_NOTFOUND) {	/* gone meanwhile */
		free(*cause);
		*cause = NULL;
		r = 0;
	}
	free(child);
	return r;
}

/* List a local directory. */
int
fstore_local_list(struct fstore *fs, const char *path,
    struct fstore_entry **out, size_t *n, char **cause)
{
	struct fstore_entry	*e = NULL;
	struct dirent		*d;
	DIR			*dir = NULL;
	char			*rel = NULL;
	size_t			 k = 0;
	int			 r;

	if (*path == '\0')
		rel = xstrdup("");
	else if ((r = pathguard_resolve(fs->pg, path, &rel, cause)) != 0)
		return r;
	if ((r = fl_opendir(fs, path, rel, &dir, cause)) != 0)
		goto out;
	while (r == 0 && (d = readdir(dir)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		if (k == FSTORE_LIST_MAX)
			r = claw_fail(cause, CLAW_ERR_INVAL, "%s: over %d "
			    "entries", path, FSTORE_LIST_MAX);
		else
			r = fl_add(fs, rel, d->d_name, &e, &k, cause);
	}
	closedir(dir);
out:
	free(rel);
	if (r != 0) {
		fstore_entries_free(e, k);
		return r;
	}
	*out = e;
	*n = k;
	return 0;
}

/*
 * Refuse a change of path (as given) that names .git or whose resolution
 * rel (links followed; NULL: not yet) lies in it: a link the sandbox
 * made, such as cfg.txt -> .git/config, must not turn a write of cfg.txt
 * into one of .git/config.
 */
static int
fl_protected(const char *path, const char *rel, char **cause)
{
	char	*ep, *er;
	int	 r = 0;

	if (!pathguard_name_protected(path) && !pathguard_name_protected(rel))
		return 0;
	ep = pathguard_escape(path);
	er = pathguard_escape(rel);
	if (pathguard_name_protected(path))
		r = claw_fail(cause, CLAW_ERR_PERM, "%s: inside .git: the file "
		    "tools never change .git", ep);
	else
		r = claw_fail(cause, CLAW_ERR_PERM, "%s: leads into .git (%s) "
		    "through a symbolic link: the file tools never change "
		    ".git", ep, er);
	free(er);
	free(ep);
	return r;
}

/* Prepare one change: resolve it, check it, write the new content. */
static int
fl_prepare(struct fstore *fs, const struct fstore_change *c,
    struct fl_step *s, char **cause)
{
	struct stat	sb;
	int		r, exists;

	if ((r = fl_protected(c->path, NULL, cause)) != 0 ||
	    (r = pathguard_resolve(fs->pg, c->path, &s->rel, cause)) != 0 ||
	    (r = fl_protected(c->path, s->rel, cause)) != 0)
		return r;
	r = pathguard_lstat(fs->pg, s->rel, &sb, NULL);
	exists = r == 0;
	if (exists && S_ISDIR(sb.st_mode))
		return claw_fail(cause, CLAW_ERR_EXISTS, "%s: is a directory",
		    c->path);
	if (c->data == NULL && !exists)
		return claw_fail(cause, CLAW_ERR_NOTFOUND, "%s: no such file",
		    c->path);
	if (c->create_only && exists)
		return claw_fail(cause, CLAW_ERR_EXISTS, "%s: already exists",
		    c->path);
	if (c->data == NULL)
		return 0;
	s->mode = c->mode >= 0 ? (unsigned)c->mode : exists ?
	    sb.st_mode & 0777 : 0644;
	if ((r = pathguard_write_begin(fs->pg, s->rel, &s->fd, &s->tmp,
	    cause)) != 0)
		return r;
	if (fdio_write_all(s->fd, c->data, c->len) != 0)
		return claw_fail_errno(cause, c->path, "write");
	return 0;
}

/* Apply prepared steps: renames, then removals. */
static int
fl_finish(struct fstore *fs, const struct fstore_change *ch,
    struct fl_step *s, size_t n, char **cause)
{
	size_t	i;
	int	r = 0;

	for (i = 0; r == 0 && i < n; i++) {
		if (ch[i].data == NULL)
			continue;
		r = pathguard_write_commit(fs->pg, s[i].rel, s[i].tmp,
		    s[i].fd, s[i].mode, NULL, cause);
		s[i].fd = -1;
		free(s[i].tmp);
		s[i].tmp = NULL;
	}
	for (i = 0; r == 0 && i < n; i++) {
		if (ch[i].data == NULL)
			r = pathguard_unlink(fs->pg, s[i].rel, cause);
	}
	return r;
}

/* Apply changes locally. */
int
fstore_local_commit(struct fstore *fs, const struct fstore_change *ch,
    size_t n, char **cause)
{
	struct fl_step	*s = xcalloc(n + 1, sizeof *s);
	size_t		 i;
	int		 r = 0;

	for (i = 0; i < n; i++)
		s[i].fd = -1;
	for (i = 0; r == 0 && i < n; i++)
		r = fl_prepare(fs, &ch[i], &s[i], cause);
	if (r == 0)
		r = fl_finish(fs, ch, s, n, cause);
	for (i = 0; i < n; i++) {
		if (s[i].tmp != NULL)
			pathguard_write_abort(fs->pg, s[i].rel, s[i].tmp,
			    s[i].fd);
		free(s[i].tmp);
		free(s[i].rel);
	}
	free(s);
	return r;
}
