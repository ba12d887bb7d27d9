/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scanning a local tree into a manifest: an openat(2) walk that never
 * follows a symlink, with optional SHA-256 of new and changed files.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "error.h"
#include "log.h"
#include "manifest.h"
#include "manifest_int.h"
#include "xmalloc.h"

/* Store a cause for path and the current errno; return the mapped code. */
int
mscan_errno(struct scan *s, const char *path, const char *what)
{
	int	err = errno;

	*s->cause = xasprintf("%s: %s: %s", *path == '\0' ? "." : path,
	    what, strerror(err));
	return claw_err_from_errno(err);
}

/* Return 1 for errno values that mean the path changed under the scan. */
int
mscan_raced(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ELOOP;
}

/* Return the manifest type for a stat mode, or 0 for other types. */
static int
scan_type(mode_t mode)
{
	if (S_ISREG(mode))
		return MANIFEST_FILE;
	if (S_ISDIR(mode))
		return MANIFEST_DIR;
	if (S_ISLNK(mode))
		return MANIFEST_LINK;
	return 0;
}

/* Copy size, mtime and mode from st into e. */
static void
scan_fill(struct manifest_entry *e, const struct stat *st)
{
	e->size = e->type == MANIFEST_DIR ? 0 : (uint64_t)st->st_size;
	e->mtime_sec = (int64_t)st->st_mtim.tv_sec;
	e->mtime_nsec = st->st_mtim.tv_nsec;
	e->mode = st->st_mode & 0777;
}

/* Return 1 if a and b have the same size and mtime. */
static int
scan_same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* Feed the whole of fd to the digest; 0, or read's error (errno set). */
static int
scan_digest(struct scan *s, int fd, off_t *got)
{
	ssize_t	n;

	if (s->chunk == NULL)
		s->chunk = xmalloc(SCAN_CHUNK);
	sha256_init(&s->md);
	*got = 0;
	while ((n = read(fd, s->chunk, SCAN_CHUNK)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return claw_err_from_errno(errno);
		sha256_update(&s->md, s->chunk, (size_t)n);
		*got += n;
	}
	return 0;
}

/*
 * Hash the open file fd into e, taking size and mtime from fd itself; a
 * file that changes while it is read keeps no hash.
 */
static int
scan_hash_fd(struct scan *s, int fd, struct manifest_entry *e)
{
	struct stat	before, after;
	off_t		got;

	if (fstat(fd, &before) != 0)
		return mscan_errno(s, e->path, "cannot stat");
	if (!S_ISREG(before.st_mode)) {
		log_debug("%s: no longer a file, left out", e->path);
		e->type = SCAN_GONE;
		return 0;
	}
	scan_fill(e, &before);
	if (scan_digest(s, fd, &got) != 0)
		return mscan_errno(s, e->path, "cannot hash");
	if (fstat(fd, &after) != 0)
		return mscan_errno(s, e->path, "cannot stat");
	if (got != before.st_size || !scan_same_stat(&before, &after)) {
		log_debug("%s: changed while hashing", e->path);
		return 0;
	}
	sha256_final(&s->md, e->hash);
	e->have_hash = 1;
	return 0;
}

/* Whether p is a hashed file as e is on disk (same size and mtime). */
static int
scan_same(const struct manifest_entry *p, const struct manifest_entry *e)
{
	return p != NULL && p->type == MANIFEST_FILE && p->have_hash &&
	    p->size == e->size && p->mtime_sec == e->mtime_sec &&
	    p->mtime_nsec == e->mtime_nsec;
}

/* Give e (a regular file called name in dirfd) its hash, if wanted. */
static int
scan_hash(struct scan *s, int dirfd, const char *name,
    struct manifest_entry *e)
{
	const struct manifest_entry	*p;
	int				 fd, r;

	if ((s->flags & MANIFEST_HASH_CHANGED) == 0)
		return 0;
	p = manifest_find(s->prev, e->path);
	if (!scan_same(p, e) && s->prev != NULL && s->prev->known != NULL)
		p = manifest_find(s->prev->known, e->path);
	if (scan_same(p, e)) {
		memcpy(e->hash, p->hash, sizeof(e->hash));
		e->have_hash = 1;
		return 0;
	}
	fd = openat(dirfd, name,
	    O_RDONLY|O_NOFOLLOW|O_CLOEXEC|O_NONBLOCK|O_NOCTTY);
	if (fd == -1 && mscan_raced(errno)) {
		log_debug("%s: vanished, left out", e->path);
		e->type = SCAN_GONE;
		return 0;
	}
	if (fd == -1)
		return mscan_errno(s, e->path, "cannot open");
	r = scan_hash_fd(s, fd, e);
	close(fd);
	return r;
}

/* Read the target of the symlink name in dirfd into e. */
static int
scan_link(struct scan *s, int dirfd, const char *name,
    struct manifest_entry *e)
{
	char	buf[MANIFEST_PATH_MAX + 1];
	ssize_t	n;

	if ((n = readlinkat(dirfd, name, buf, sizeof(buf))) == -1) {
		if (!mscan_raced(errno) && errno != EINVAL)
			return mscan_errno(s, e->path, "cannot read link");
		log_debug("%s: vanished, left out", e->path);
		e->type = SCAN_GONE;
		return 0;
	}
	if (n == 0 || (size_t)n > MANIFEST_PATH_MAX) {
		log_warn("%s: link target empty or too long, left out",
		    e->path);
		e->type = SCAN_GONE;
		return 0;
	}
	e->link = xstrndup(buf, (size_t)n);
	return 0;
}

/* Return reldir/name (or name at the root) and its length in *lenp. */
static char *
scan_join(const char *reldir, const char *name, size_t *lenp)
{
	size_t	dlen = strlen(reldir), nlen = strlen(name), len;
	char	*p;

	len = dlen == 0 ? nlen : dlen + 1 + nlen;
	*lenp = len;
	p = xmalloc(len + 1);
	if (dlen != 0) {
		memcpy(p, reldir, dlen);
		p[dlen] = '/';
		dlen++;
	}
	memcpy(p + dlen, name, nlen + 1);
	return p;
}

/* Ask the skip callback about path; 1 to leave it out, 0, or an error. */
static int
scan_ask(struct scan *s, int dirfd, const char *reldir, const char *path,
    int is_dir)
{
	int	r;

	if (s->skip == NULL)
		return 0;
	if ((r = s->skip(s->arg, dirfd, reldir, path, is_dir)) < 0) {
		*s->cause = xasprintf("%s: skip callback failed: %s",
		    path == NULL ? (*reldir == '\0' ? "." : reldir) : path,
		    claw_strerror(r));
		return r;
	}
	return path == NULL ? 0 : r != 0;
}

/* Fill the new entry e for name in dirfd from st: link target, hash. */
static int
scan_record(struct scan *s, int dirfd, const char *name,
    struct manifest_entry *e, const struct stat *st)
{
	scan_fill(e, st);
	if (e->type == MANIFEST_LINK)
		return scan_link(s, dirfd, name, e);
	if (e->type == MANIFEST_FILE)
		return scan_hash(s, dirfd, name, e);
	return 0;
}

/*
 * Judge and record the entry name of directory dirfd (relative path
 * reldir); *is_dir is set to 1 if it is a directory to enter.
 */
int
mscan_entry(struct scan *s, int dirfd, const char *reldir, const char *name,
    int *is_dir)
{
	struct manifest_entry	*e;
	struct stat		 st;
	char			*path;
	size_t			 len, top;
	int			 type, r;

	*is_dir = 0;
	path = scan_join(reldir, name, &len);
	if ((top = manifest_path_over(path, len)) != 0) {
		manifest_over_add(&s->over, path, top);	/* not entered */
		free(path);
		return 0;
	}
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		r = errno == ENOENT ? 0 : mscan_errno(s, path, "cannot stat");
		free(path);
		return r;
	}
	if ((type = scan_type(st.st_mode)) == 0) {
		log_debug("%s: not a file, directory or link, left out", path);
		free(path);
		return 0;
	}
	if ((r = scan_ask(s, dirfd, reldir, path, type == MANIFEST_DIR)) != 0) {
		free(path);
		return r < 0 ? r : 0;
	}
	e = manifest_add(s->m);
	e->path = path;
	e->type = type;
	*is_dir = type == MANIFEST_DIR;
	return scan_record(s, dirfd, name, e, &st);
}

/*
 * Read every entry of the directory dirfd, recording them, and return the
 * indexes of the subdirectories to enter in *subs (allocated).
 */
static int
scan_read(struct scan *s, int dirfd, const char *reldir, size_t **subs,
    size_t *nsubs)
{
	struct dirent	*de;
	DIR		*dir;
	size_t		 cap = 0;
	int		 fd, is_dir, r = 0;

	if ((fd = dup(dirfd)) == -1 || (dir = fdopendir(fd)) == NULL) {
		r = mscan_errno(s, reldir, "cannot read directory");
		if (fd != -1)
			close(fd);
		return r;
	}
	for (errno = 0; r == 0 && (de = readdir(dir)) != NULL; errno = 0) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		r = mscan_entry(s, dirfd, reldir, de->d_name, &is_dir);
		if (r != 0 || !is_dir)
			continue;
		if (*nsubs == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			*subs = xreallocarray(*subs, cap, sizeof(**subs));
		}
		(*subs)[(*nsubs)++] = s->m->n - 1;
	}
	if (r == 0 && errno != 0)
		r = mscan_errno(s, reldir, "cannot read directory");
	closedir(dir);
	return r;
}

/* Enter the subdirectory recorded as entry i, found in dirfd. */
static int
scan_subdir(struct scan *s, int dirfd, size_t i, int depth)
{
	struct manifest_entry	*e = &s->m->e[i];
	const char		*name;
	int			 fd, r;

	name = strrchr(e->path, '/');
	name = name == NULL ? e->path : name + 1;
	fd = openat(dirfd, name, O_RDONLY|O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC);
	if (fd == -1 && mscan_raced(errno)) {
		log_debug("%s: vanished, left out", e->path);
		e->type = SCAN_GONE;
		return 0;
	}
	if (fd == -1)
		return mscan_errno(s, e->path, "cannot open directory");
	/* e may move as entries are added below; its path string does not. */
	r = mscan_dir(s, fd, e->path, depth + 1);
	close(fd);
	return r;
}

/* Scan the open directory dirfd (relative path reldir) and below. */
int
mscan_dir(struct scan *s, int dirfd, const char *reldir, int depth)
{
	size_t	*subs = NULL, nsubs = 0, i;
	int	 r;

	if (depth > MANIFEST_MAX_DEPTH) {	/* mscan_entry left it out */
		*s->cause = xasprintf("%s: nested deeper than %d directories",
		    reldir, MANIFEST_MAX_DEPTH);
		return CLAW_ERR_UNSUPPORTED;
	}
	if ((r = scan_ask(s, dirfd, reldir, NULL, 1)) != 0)
		return r;
	r = scan_read(s, dirfd, reldir, &subs, &nsubs);
	for (i = 0; r == 0 && i < nsubs; i++)
		r = scan_subdir(s, dirfd, subs[i], depth);
	free(subs);
	return r;
}

/* Drop the entries that vanished during the scan. */
void
mscan_compact(struct manifest *m)
{
	size_t	i, j;

	for (i = j = 0; i < m->n; i++) {
		if (m->e[i].type == SCAN_GONE) {
			free(m->e[i].path);
			free(m->e[i].link);
		} else
			m->e[j++] = m->e[i];
	}
	m->n = j;
}

/* Scan the tree below rootfd into a new manifest; see manifest.h. */
int
manifest_scan(int rootfd, const struct manifest *prev, manifest_skip_cb skip,
    void *arg, int flags, struct manifest **out, char **cause)
{
	struct scan	s;
	int		fd, r;

	memset(&s, 0, sizeof(s));
	s.m = manifest_new();
	s.prev = prev;
	s.skip = skip;
	s.arg = arg;
	s.flags = flags;
	s.cause = cause;
	if ((fd = openat(rootfd, ".", O_RDONLY|O_DIRECTORY|O_CLOEXEC)) == -1)
		r = mscan_errno(&s, "", "cannot open directory");
	else {
		r = mscan_dir(&s, fd, "", 0);
		close(fd);
	}
	free(s.chunk);
	if (r != 0) {
		free(s.over.first);
		manifest_free(s.m);
		return r;
	}
	manifest_over_report(&s.over, "local, not sent");
	mscan_compact(s.m);
	manifest_sort(s.m);
	*out = s.m;
	return 0;
}
