/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tar streams: libarchive on one side, pathguard on the other.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <archive.h>
#include <archive_entry.h>

#include "archive_lazy.h"

#include "error.h"
#include "fdio.h"
#include "log.h"
#include "manifest.h"
#include "pathguard.h"
#include "sha256.h"
#include "tarstream.h"
#include "xmalloc.h"

#define TS_CHUNK	(64 * 1024)
#define TS_CHANGED	1	/* ts_copy: not what was asked for */
#define TS_SWEEP_MAX	4096	/* directories swept per stream */

static const unsigned char	ts_zeros[TS_CHUNK];

/* A directory whose mode and time are set after its content. */
struct ts_dir {
	char		*path;
	mode_t		 mode;
	struct timespec	 mtime;
};

/* Extraction state. */
struct ts_x {
	struct pathguard		*pg;
	struct archive			*a;
	tarstream_read_fn		 rd;
	void				*arg;
	struct tarstream_limits		 lim;
	struct tarstream_stats		*st;
	uint64_t			 entries;	/* in this stream */
	uint64_t			 bytes;		/* in this stream */
	struct ts_dir			*dirs;
	size_t				 ndirs;
	mode_t				 umask;		/* read once */
	const struct tarstream_expect	*ex;		/* or NULL */
	const struct manifest_entry	**want;		/* ex's, sorted */
	unsigned char			*seen;		/* per want */
	struct sha256			 md;		/* for hashes */
	int				 hashing;	/* this file */
	unsigned char			 got[SHA256_LEN]; /* its hash */
	char				**swept;	/* directories */
	size_t				 nswept;
};

/* libarchive's read callback: pull from the caller's source. */
static la_ssize_t
ts_read_cb(struct archive *a, void *data, const void **buf)
{
	struct ts_x	*x = data;
	ssize_t		 n;

	if ((n = x->rd(x->arg, buf)) < 0)
		archive_set_error(a, EIO, "reading the stream failed");
	return n;
}

/* Log and count a refused entry (msg names it); extraction goes on. */
static int
ts_refused(struct ts_x *x, const char *msg)
{
	log_warn("refused %s", msg);
	x->st->refused++;
	return 0;
}

/* Refuse the entry name for the reason why. */
static int
ts_refuse(struct ts_x *x, const char *name, const char *why)
{
	char	*esc = pathguard_escape(name != NULL ? name : "(no name)");
	char	*msg = xasprintf("%s: %s", esc, why);

	ts_refused(x, msg);
	free(msg);
	free(esc);
	return 0;
}

/*
 * Sort a pathguard failure for entry name: a judgment on the entry is a
 * refusal (0); a replaced root or an I/O failure stops everything.
 */
static int
ts_verdict(struct ts_x *x, const char *name, int r, char *why, char **cause)
{
	if (r == CLAW_ERR_INVAL || r == CLAW_ERR_PERM ||
	    r == CLAW_ERR_EXISTS || r == CLAW_ERR_NOTFOUND) {
		if (why != NULL)	/* pathguard's messages name it */
			ts_refused(x, why);
		else
			ts_refuse(x, name, claw_strerror(r));
		free(why);
		return pathguard_check_root(x->pg, cause);
	}
	*cause = why != NULL ? why : xstrdup(claw_strerror(r));
	return r;
}

/* Normalise an entry name: drop leading "./" and trailing '/'. */
static char *
ts_name(const char *raw)
{
	size_t	len;

	while (raw[0] == '.' && raw[1] == '/')
		raw += 2;
	len = strlen(raw);
	while (len > 1 && raw[len - 1] == '/')
		len--;
	return xstrndup(raw, len);
}

/*
 * Return 1 if e is the directory entry of the root itself ("./" or "."
 * once normalised, as "tar -cf - ." writes first): it is left as it is.
 */
static int
ts_is_root(struct archive_entry *e, const char *name)
{
	return (name[0] == '\0' || strcmp(name, ".") == 0) &&
	    archive_entry_filetype(e) == AE_IFDIR &&
	    archive_entry_hardlink(e) == NULL;
}

/* Make room for an entry of type want at name (0 or a pathguard error). */
static int
ts_clear(struct ts_x *x, const char *name, mode_t want, char **why)
{
	struct stat	sb;
	int		r;

	r = pathguard_lstat(x->pg, name, &sb, why);
	if (r == CLAW_ERR_NOTFOUND) {
		free(*why);
		*why = NULL;
		return 0;
	}
	if (r != 0 || (sb.st_mode & S_IFMT) == want ||
	    (!S_ISDIR(sb.st_mode) && want != S_IFDIR))
		return r;
	x->st->deleted++;
	return pathguard_remove_tree(x->pg, name, why);
}

/* pwrite all len bytes of buf at off into fd; -1 and errno on failure. */
static int
ts_pwrite(int fd, const void *buf, size_t len, off_t off)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		if ((n = pwrite(fd, p, len, off)) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
		off += n;
	}
	return 0;
}

/* Hash n zero bytes (a hole) into md. */
static void
ts_md_zeros(struct sha256 *md, int64_t n)
{
	size_t	k;

	for (; n > 0; n -= (int64_t)k) {
		k = n < TS_CHUNK ? (size_t)n : TS_CHUNK;
		sha256_update(md, ts_zeros, k);
	}
}

/*
 * Start hashing the content if w has a hash to compare with, or the
 * caller is told of the files written (ex->written).
 */
static void
ts_md_begin(struct ts_x *x, const struct manifest_entry *w)
{
	x->hashing = (w != NULL && w->have_hash) ||
	    (x->ex != NULL && x->ex->written != NULL);
	if (x->hashing)
		sha256_init(&x->md);
}

/*
 * Finish hashing into x->got (the tail from at to size is a hole); 0, or
 * TS_CHANGED when w has a hash and the content is not that.
 */
static int
ts_md_end(struct ts_x *x, const struct manifest_entry *w, int64_t at,
    int64_t size)
{
	if (!x->hashing)
		return 0;
	ts_md_zeros(&x->md, size - at);
	sha256_final(&x->md, x->got);
	if (w != NULL && w->have_hash &&
	    memcmp(x->got, w->hash, MANIFEST_HASH_LEN) != 0)
		return TS_CHANGED;
	return 0;
}

/*
 * Write one data block of len bytes at off (after at, where the last
 * ended), hashing it and the hole before it if the file is hashed.
 */
static int
ts_block(struct ts_x *x, int fd, const void *buf, size_t len, int64_t off,
    int64_t at, char **why)
{
	if (x->hashing) {
		ts_md_zeros(&x->md, off - at);
		sha256_update(&x->md, buf, len);
	}
	if (ts_pwrite(fd, buf, len, (off_t)off) == -1) {
		*why = xasprintf("write failed: %s", strerror(errno));
		return CLAW_ERR_IO;
	}
	return 0;
}

/*
 * Copy the entry's data blocks into fd at their offsets, in order and
 * within its declared size; a hole between them is skipped, so it stays
 * a hole, and ftruncate gives the file its size.  TS_CHANGED if w has a
 * hash and the content is not that.
 */
static int
ts_copy(struct ts_x *x, int fd, int64_t size, const struct manifest_entry *w,
    char **why)
{
	const void	*buf;
	size_t		 len;
	la_int64_t	 off;
	int64_t		 at = 0;
	int		 r;

	ts_md_begin(x, w);
	while ((r = archive_read_data_block(x->a, &buf, &len, &off)) ==
	    ARCHIVE_OK) {
		if (off < at || off > size || (int64_t)len > size - off) {
			*why = xstrdup(off < at ? "data blocks out of order" :
			    "data beyond the entry's size");
			return CLAW_ERR_INVAL;
		}
		if (len > 0 && (r = ts_block(x, fd, buf, len, off, at,
		    why)) != 0)
			return r;
		at = off + (int64_t)len;
	}
	if (r != ARCHIVE_EOF) {
		*why = xasprintf("tar stream: %s", archive_error_string(x->a));
		return CLAW_ERR_PARSE;
	}
	if (ftruncate(fd, size) == -1) {
		*why = xasprintf("write failed: %s", strerror(errno));
		return CLAW_ERR_IO;
	}
	return ts_md_end(x, w, at, size);
}

/*
 * Check the byte cap for an entry of size bytes.  The cap counts this
 * stream only (x->bytes never passes it), whatever st held before.
 */
static int
ts_bytes(struct ts_x *x, int64_t size, char **cause)
{
	if (size < 0 || (uint64_t)size > x->lim.max_bytes - x->bytes) {
		*cause = xasprintf("tar stream exceeds %llu bytes (limit); "
		    "stopped", (unsigned long long)x->lim.max_bytes);
		return CLAW_ERR_PERM;
	}
	x->bytes += (uint64_t)size;
	x->st->bytes += (uint64_t)size;
	return 0;
}

/* Note that the asked-for entry name was left as it is, and why. */
static int
ts_skip(struct ts_x *x, const char *name, int why)
{
	char	*esc = pathguard_escape(name);

	if (why == TARSTREAM_SKIP_CHANGED) {
		log_warn("%s: changed on the host during the pull; left for "
		    "the next sync", esc);
		x->st->changed++;
	} else {
		log_warn("%s: asked for but not sent by the host; left for "
		    "the next sync", esc);
		x->st->missing++;
	}
	if (x->ex->skipped != NULL)
		x->ex->skipped(x->ex->arg, name, why);
	free(esc);
	return 0;
}

/*
 * Before the first file written in name's directory, remove what killed
 * extractions left there (tarstream_sweep); the directories are
 * remembered up to a bound, the last one first.
 */
static void
ts_sweep_once(struct ts_x *x, const char *name)
{
	const char	*slash = strrchr(name, '/');
	char		*dir;
	size_t		 i, len = slash != NULL ? (size_t)(slash - name) : 0;

	for (i = x->nswept; i > 0; i--) {
		if (strlen(x->swept[i - 1]) == len &&
		    strncmp(x->swept[i - 1], name, len) == 0)
			return;
	}
	if (x->nswept >= TS_SWEEP_MAX)
		return;
	dir = xstrndup(name, len);
	(void)tarstream_sweep(x->pg, dir);
	x->swept = xreallocarray(x->swept, x->nswept + 1, sizeof *x->swept);
	x->swept[x->nswept++] = dir;
}

/*
 * Extract a regular file through a temporary name; w, unless NULL, is
 * what was asked for.  What is at name is removed (a directory) or
 * replaced only once the content is in and as asked.
 */
static int
ts_file(struct ts_x *x, struct archive_entry *e, const char *name,
    const struct manifest_entry *w, char **cause)
{
	struct timespec	 ts;
	int64_t		 size = archive_entry_size(e);
	char		*why = NULL, *tmp = NULL;
	int		 fd, r;

	if ((r = ts_bytes(x, size, cause)) != 0)
		return r;
	ts_sweep_once(x, name);
	if ((r = pathguard_write_begin(x->pg, name, &fd, &tmp, &why)) != 0)
		return ts_verdict(x, name, r, why, cause);
	(void)flock(fd, LOCK_EX | LOCK_NB);	/* live: not for a sweep */
	if ((r = ts_copy(x, fd, size, w, &why)) == 0 &&
	    (r = ts_clear(x, name, S_IFREG, &why)) == 0) {
		ts.tv_sec = archive_entry_mtime(e);
		ts.tv_nsec = archive_entry_mtime_nsec(e);
		r = pathguard_write_commit(x->pg, name, tmp, fd,
		    archive_entry_perm(e) & ~x->umask, &ts, &why);
		fd = -1;
	}
	if (fd != -1)
		pathguard_write_abort(x->pg, name, tmp, fd);
	free(tmp);
	if (r == TS_CHANGED)
		return ts_skip(x, name, TARSTREAM_SKIP_CHANGED);
	if (r != 0)
		return ts_verdict(x, name, r, why, cause);
	x->st->files++;
	if (x->ex != NULL && x->ex->written != NULL)
		x->ex->written(x->ex->arg, name, size, &ts, x->got);
	return 0;
}

/* Create a directory now; its mode and time are set at the end. */
static int
ts_dir(struct ts_x *x, struct archive_entry *e, const char *name,
    char **cause)
{
	struct ts_dir	*d;
	char		*why = NULL;
	int		 r;

	if ((r = ts_clear(x, name, S_IFDIR, &why)) != 0 ||
	    (r = pathguard_mkdirs(x->pg, name, 0700, &why)) != 0)
		return ts_verdict(x, name, r, why, cause);
	x->dirs = xreallocarray(x->dirs, x->ndirs + 1, sizeof *x->dirs);
	d = &x->dirs[x->ndirs++];
	d->path = xstrdup(name);
	d->mode = archive_entry_perm(e) & ~x->umask;
	d->mtime.tv_sec = archive_entry_mtime(e);
	d->mtime.tv_nsec = archive_entry_mtime_nsec(e);
	x->st->dirs++;
	return 0;
}

/*
 * Create a symbolic link, after pathguard judged its target: a refused
 * link must not remove what is at its name.
 */
static int
ts_link(struct ts_x *x, struct archive_entry *e, const char *name,
    char **cause)
{
	const char	*target = archive_entry_symlink(e);
	char		*why = NULL;
	int		 r;

	if (target == NULL)
		return ts_refuse(x, name, "symbolic link without a target");
	if ((r = pathguard_link_check(name, target, &why)) != 0 ||
	    (r = ts_clear(x, name, S_IFLNK, &why)) != 0 ||
	    (r = pathguard_symlink(x->pg, name, target, &why)) != 0)
		return ts_verdict(x, name, r, why, cause);
	x->st->links++;
	return 0;
}

/* Order manifest entry pointers by path, for qsort and bsearch. */
static int
ts_want_cmp(const void *a, const void *b)
{
	const struct manifest_entry	*const *ea = a, *const *eb = b;

	return strcmp((*ea)->path, (*eb)->path);
}

/* Return the index of name among x->want, or -1. */
static ssize_t
ts_want_find(const struct ts_x *x, const char *name)
{
	struct manifest_entry		 key;
	const struct manifest_entry	*kp = &key, **hit;

	if (x->want == NULL)
		return -1;
	key.path = (char *)(uintptr_t)name;
	hit = bsearch(&kp, x->want, x->ex->nwant, sizeof *x->want,
	    ts_want_cmp);
	return hit == NULL ? -1 : hit - x->want;
}

/* Return 1 if name is equal to or below one of ex's tops. */
static int
ts_under_tops(const struct tarstream_expect *ex, const char *name)
{
	size_t	i, len;

	for (i = 0; i < ex->ntops; i++) {
		len = strlen(ex->tops[i]);
		if (len > 0 && strncmp(name, ex->tops[i], len) == 0 &&
		    (name[len] == '\0' || name[len] == '/'))
			return 1;
	}
	return 0;
}

/* Return 1 if entry e is still what w describes. */
static int
ts_same(struct archive_entry *e, const struct manifest_entry *w)
{
	const char	*target;
	long		 nsec = archive_entry_mtime_nsec(e);

	switch (archive_entry_filetype(e)) {
	case AE_IFREG:
		return w->type == MANIFEST_FILE && archive_entry_size(e) >= 0 &&
		    (uint64_t)archive_entry_size(e) == w->size &&
		    archive_entry_mtime(e) == w->mtime_sec &&
		    (nsec == 0 || nsec == w->mtime_nsec);
	case AE_IFDIR:
		return w->type == MANIFEST_DIR;
	case AE_IFLNK:
		target = archive_entry_symlink(e);
		return w->type == MANIFEST_LINK && target != NULL &&
		    w->link != NULL && strcmp(target, w->link) == 0;
	}
	return 0;
}

/*
 * Judge entry e (name) against what was asked for: set *w to its want
 * entry (NULL if taken by a top or nothing was said) and return 0 to go
 * on, or 1 when it was refused or skipped.
 */
static int
ts_expected(struct ts_x *x, struct archive_entry *e, const char *name,
    const struct manifest_entry **w)
{
	ssize_t	i;

	*w = NULL;
	if (x->ex == NULL || x->ex->any)
		return 0;
	if ((i = ts_want_find(x, name)) != -1) {
		if (x->seen[i]) {
			ts_refuse(x, name, "sent twice");
			return 1;
		}
		x->seen[i] = 1;
		*w = x->want[i];
		if (archive_entry_hardlink(e) == NULL && !ts_same(e, *w)) {
			ts_skip(x, name, TARSTREAM_SKIP_CHANGED);
			return 1;
		}
		return 0;
	}
	if (ts_under_tops(x->ex, name))
		return 0;
	ts_refuse(x, name, "not asked for");
	return 1;
}

/* Judge one entry and hand it to the right writer. */
static int
ts_entry(struct ts_x *x, struct archive_entry *e, char **cause)
{
	const struct manifest_entry	*w = NULL;
	const char			*raw = archive_entry_pathname(e);
	char				*name, *why = NULL;
	int				 r;

	if (raw == NULL)
		return ts_refuse(x, NULL, "entry without a name");
	name = ts_name(raw);
	if (ts_is_root(e, name))
		r = 0;
	else if (pathguard_name_check(name, &why) != 0) {
		r = ts_refused(x, why);
		free(why);
	} else if (pathguard_name_protected(name))
		r = ts_refuse(x, name, "a .git is never written by a pull");
	else if (ts_expected(x, e, name, &w) != 0)
		r = 0;
	else if (archive_entry_hardlink(e) != NULL)
		r = ts_refuse(x, name, "hard links are not accepted");
	else if (archive_entry_filetype(e) == AE_IFREG)
		r = ts_file(x, e, name, w, cause);
	else if (archive_entry_filetype(e) == AE_IFDIR)
		r = ts_dir(x, e, name, cause);
	else if (archive_entry_filetype(e) == AE_IFLNK)
		r = ts_link(x, e, name, cause);
	else
		r = ts_refuse(x, name, "devices, FIFOs and sockets are not "
		    "accepted");
	free(name);
	return r;
}

/*
 * Set the mode and time of d, unless a later entry replaced the directory
 * (a file or link there keeps its own).
 */
static void
ts_dir_meta(struct ts_x *x, const struct ts_dir *d)
{
	struct stat	 sb;
	char		*why = NULL;

	if (pathguard_lstat(x->pg, d->path, &sb, &why) != 0 ||
	    (S_ISDIR(sb.st_mode) && pathguard_set_meta(x->pg, d->path,
	    d->mode, &d->mtime, &why) != 0)) {
		log_debug("%s", why);
		free(why);
	}
}

/* Set directory modes and times, deepest first, then free the list. */
static void
ts_dirs_finish(struct ts_x *x, int apply)
{
	size_t	i;

	for (i = x->ndirs; i > 0; i--) {
		if (apply)
			ts_dir_meta(x, &x->dirs[i - 1]);
		free(x->dirs[i - 1].path);
	}
	free(x->dirs);
	x->dirs = NULL;
	x->ndirs = 0;
}

/* Read headers until the end; see tarstream.h. */
static int
ts_loop(struct ts_x *x, char **cause)
{
	struct archive_entry	*e;
	int			 r, rc;

	while ((r = archive_read_next_header(x->a, &e)) == ARCHIVE_OK ||
	    r == ARCHIVE_WARN) {
		if (++x->entries > x->lim.max_entries) {
			*cause = xasprintf("tar stream has more than %llu "
			    "entries (limit); stopped",
			    (unsigned long long)x->lim.max_entries);
			return CLAW_ERR_PERM;
		}
		if ((rc = pathguard_check_root(x->pg, cause)) != 0 ||
		    (rc = ts_entry(x, e, cause)) != 0)
			return rc;
	}
	if (r != ARCHIVE_EOF) {
		*cause = xasprintf("malformed tar stream: %s",
		    archive_error_string(x->a));
		return CLAW_ERR_PARSE;
	}
	return 0;
}

/* Take ex into x: a sorted copy of its want, and one seen flag each. */
static void
ts_expect_init(struct ts_x *x, const struct tarstream_expect *ex)
{
	x->ex = ex;
	if (ex == NULL || ex->nwant == 0)
		return;
	x->want = xreallocarray(NULL, ex->nwant, sizeof *x->want);
	memcpy(x->want, ex->want, ex->nwant * sizeof *x->want);
	qsort(x->want, ex->nwant, sizeof *x->want, ts_want_cmp);
	x->seen = xcalloc(ex->nwant, 1);
}

/* Count and report the entries of want the stream never held. */
static void
ts_expect_finish(struct ts_x *x)
{
	size_t	i;

	for (i = 0; x->want != NULL && i < x->ex->nwant; i++) {
		if (!x->seen[i])
			ts_skip(x, x->want[i]->path, TARSTREAM_SKIP_MISSING);
	}
}

/* Whether tar streams can be made here; see tarstream.h. */
int
tarstream_ready(char **cause)
{
	return archive_lazy_load(cause);
}

/* Extract a hostile tar stream; see tarstream.h. */
int
tarstream_extract_expect(struct pathguard *pg, tarstream_read_fn rd,
    void *arg, const struct tarstream_limits *lim,
    const struct tarstream_expect *ex, struct tarstream_stats *st,
    char **cause)
{
	struct tarstream_stats	 local;
	struct ts_x		 x;
	int			 rc;

	if ((rc = archive_lazy_load(cause)) != 0)
		return rc;
	memset(&x, 0, sizeof x);
	memset(&local, 0, sizeof local);
	x.pg = pg;
	x.rd = rd;
	x.arg = arg;
	x.st = st != NULL ? st : &local;
	x.lim.max_entries = lim != NULL ? lim->max_entries :
	    TARSTREAM_MAX_ENTRIES;
	x.lim.max_bytes = lim != NULL ? lim->max_bytes : TARSTREAM_MAX_BYTES;
	x.umask = umask(0);
	umask(x.umask);
	ts_expect_init(&x, ex);
	if ((x.a = archive_read_new()) == NULL)
		abort();
	archive_read_support_format_tar(x.a);
	if (archive_read_open2(x.a, &x, NULL, ts_read_cb, NULL, NULL) !=
	    ARCHIVE_OK) {
		*cause = xasprintf("tar stream: %s",
		    archive_error_string(x.a));
		rc = CLAW_ERR_PARSE;
	} else if ((rc = ts_loop(&x, cause)) == 0)
		ts_expect_finish(&x);
	ts_dirs_finish(&x, rc == 0);
	archive_read_free(x.a);
	free(x.want);
	free(x.seen);
	while (x.nswept > 0)
		free(x.swept[--x.nswept]);
	free(x.swept);
	return rc;
}

/* Extract a hostile tar stream, taking any entry; see tarstream.h. */
int
tarstream_extract(struct pathguard *pg, tarstream_read_fn rd, void *arg,
    const struct tarstream_limits *lim, struct tarstream_stats *st,
    char **cause)
{
	return tarstream_extract_expect(pg, rd, arg, lim, NULL, st, cause);
}

/* Creation state. */
struct ts_c {
	struct pathguard	*pg;
	struct archive		*a;
	tarstream_write_fn	 wr;
	void			*arg;
	struct tarstream_stats	*st;
	int			 wr_failed;	/* the sink failed */
	int			 mute;		/* drop what comes */
};

/*
 * libarchive's write callback: push to the caller's sink.  A failing sink
 * is noted in c->wr_failed, not reported: libarchive 3.6 leaks its filter
 * state when an archive is freed after a fatal error.  Once muted,
 * everything is dropped.
 */
static la_ssize_t
ts_write_cb(struct archive *a, void *data, const void *buf, size_t len)
{
	struct ts_c	*c = data;

	if (!c->mute && c->wr(c->arg, buf, len) != 0) {
		c->wr_failed = 1;
		c->mute = 1;
	}
	return (la_ssize_t)len;
}

/* Describe libarchive's last error as the cause. */
static int
ts_aerr(struct ts_c *c, const char *path, char **cause)
{
	*cause = xasprintf("%s: %s", path, archive_error_string(c->a));
	return CLAW_ERR_IO;
}

/*
 * Send len bytes of one file's content from off: read from fd, or zeros
 * for a hole (the writer drops them: they are not in the stream).
 */
static int
ts_send_range(struct ts_c *c, int fd, const char *path, off_t off,
    off_t len, int hole, char **cause)
{
	char		 buf[TS_CHUNK];
	const void	*p;
	ssize_t		 n;

	while (len > 0 && !c->mute) {
		n = len < TS_CHUNK ? (ssize_t)len : TS_CHUNK;
		p = hole ? (const void *)ts_zeros : buf;
		if (!hole && (n = pread(fd, buf, (size_t)n, off)) == -1 &&
		    errno == EINTR)
			continue;
		if (n == -1) {
			*cause = xasprintf("%s: %s", path, strerror(errno));
			return CLAW_ERR_IO;
		}
		if (n == 0) {		/* shrank while we read: pad */
			p = ts_zeros;
			n = len < TS_CHUNK ? (ssize_t)len : TS_CHUNK;
		}
		if (archive_write_data(c->a, p, (size_t)n) != n)
			return ts_aerr(c, path, cause);
		off += n;
		len -= n;
	}
	return 0;
}

/*
 * Send one file's content, as much as its header announced: the regions
 * of e's sparse map (data and the holes between), or all of it.
 */
static int
ts_send_data(struct ts_c *c, struct archive_entry *e, int fd,
    const char *path, off_t size, char **cause)
{
	la_int64_t	off, len;
	off_t		at = 0;
	int		r = 0;

	if (archive_entry_sparse_reset(e) > 0) {
		while (r == 0 && archive_entry_sparse_next(e, &off, &len) ==
		    ARCHIVE_OK) {
			if ((r = ts_send_range(c, fd, path, at, off - at, 1,
			    cause)) == 0)
				r = ts_send_range(c, fd, path, off, len, 0,
				    cause);
			at = off + len;
		}
	}
	if (r == 0)
		r = ts_send_range(c, fd, path, at, size - at,
		    archive_entry_sparse_count(e) > 0, cause);
	if (r != 0)
		return r;
	c->st->bytes += (uint64_t)size;
	c->st->files++;
	return 0;
}

/*
 * Give e the sparse map of fd (size bytes) if the file has holes: its
 * data regions by SEEK_DATA and SEEK_HOLE.  Without holes, with too many
 * regions or where lseek cannot say, e has none and the file goes whole.
 */
static void
ts_sparse_map(struct archive_entry *e, int fd, const struct stat *sb)
{
	off_t	data, hole = 0;
	size_t	n = 0;

	if (sb->st_size == 0 || (off_t)sb->st_blocks * 512 >= sb->st_size)
		return;
	while (hole < sb->st_size && n <= TARSTREAM_SPARSE_MAX) {
		if ((data = lseek(fd, hole, SEEK_DATA)) == -1 && errno == ENXIO)
			break;		/* a hole to the end */
		if (data == -1 || (hole = lseek(fd, data, SEEK_HOLE)) == -1 ||
		    hole <= data)
			goto whole;
		if (hole > sb->st_size)
			hole = sb->st_size;
		archive_entry_sparse_add_entry(e, data, hole - data);
		n++;
	}
	if (n == 0)		/* all hole: GNU tar's map, one empty region */
		archive_entry_sparse_add_entry(e, sb->st_size, 0);
	if (n <= TARSTREAM_SPARSE_MAX)
		return;
whole:
	archive_entry_sparse_clear(e);
}

/* Fill the header fields common to every type. */
static void
ts_header(struct archive_entry *e, const char *path, const struct stat *sb)
{
	archive_entry_set_pathname(e, path);
	archive_entry_set_mode(e, sb->st_mode & (S_IFMT | 0777));
	archive_entry_set_mtime(e, sb->st_mtim.tv_sec, sb->st_mtim.tv_nsec);
	archive_entry_set_size(e, S_ISREG(sb->st_mode) ? sb->st_size : 0);
}

/* Add a regular file: open it beneath the root, header, then content. */
static int
ts_add_file(struct ts_c *c, struct archive_entry *e, const char *path,
    char **cause)
{
	struct stat	sb;
	int		fd, r;

	if ((r = pathguard_open_read(c->pg, path, &fd, cause)) != 0)
		return r;
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		close(fd);
		log_debug("%s: no longer a regular file; skipped", path);
		return 0;
	}
	ts_header(e, path, &sb);
	ts_sparse_map(e, fd, &sb);
	if (archive_write_header(c->a, e) != ARCHIVE_OK)
		r = ts_aerr(c, path, cause);
	else
		r = ts_send_data(c, e, fd, path, sb.st_size, cause);
	close(fd);
	return r;
}

/* Add one path of whatever type it has now. */
static int
ts_add(struct ts_c *c, const char *path, char **cause)
{
	struct archive_entry	*e;
	struct stat		 sb;
	char			*target = NULL;
	int			 r;

	if ((r = pathguard_lstat(c->pg, path, &sb, cause)) != 0) {
		if (r != CLAW_ERR_NOTFOUND)
			return r;
		free(*cause);
		*cause = NULL;
		return 0;
	}
	if ((e = archive_entry_new()) == NULL)
		abort();
	if (S_ISREG(sb.st_mode))
		r = ts_add_file(c, e, path, cause);
	else if (S_ISDIR(sb.st_mode) || (S_ISLNK(sb.st_mode) &&
	    (r = pathguard_readlink(c->pg, path, &target, cause)) == 0)) {
		ts_header(e, path, &sb);
		if (target != NULL)
			archive_entry_set_symlink(e, target);
		if (archive_write_header(c->a, e) != ARCHIVE_OK)
			r = ts_aerr(c, path, cause);
		else if (target != NULL)
			c->st->links++;
		else
			c->st->dirs++;
	} else if (r == 0)
		log_debug("%s: not a file, directory or link; skipped", path);
	free(target);
	archive_entry_free(e);
	return r;
}

/* Write a tar stream of paths; see tarstream.h. */
int
tarstream_create(struct pathguard *pg, char *const *paths, size_t n,
    tarstream_write_fn wr, void *arg, struct tarstream_stats *st,
    char **cause)
{
	struct tarstream_stats	 local;
	struct ts_c		 c;
	size_t			 i;
	int			 rc;

	if ((rc = archive_lazy_load(cause)) != 0)
		return rc;
	memset(&local, 0, sizeof local);
	memset(&c, 0, sizeof c);
	c.pg = pg;
	c.wr = wr;
	c.arg = arg;
	c.st = st != NULL ? st : &local;
	if ((c.a = archive_write_new()) == NULL)
		abort();
	archive_write_set_format_pax(c.a);	/* mtime to the nanosecond */
	archive_write_set_bytes_per_block(c.a, 0);
	if (archive_write_open2(c.a, &c, NULL, ts_write_cb, NULL, NULL) !=
	    ARCHIVE_OK)
		rc = ts_aerr(&c, "tar stream", cause);
	for (i = 0; rc == 0 && !c.mute && i < n; i++)
		rc = ts_add(&c, paths[i], cause);
	if (rc == 0 && archive_write_close(c.a) != ARCHIVE_OK)
		rc = ts_aerr(&c, "tar stream", cause);
	if (rc == 0 && c.wr_failed) {
		*cause = xstrdup("tar stream: writing the stream failed");
		rc = CLAW_ERR_IO;
	}
	/*
	 * After a failure, the padding and end-of-archive blocks that freeing
	 * writes are dropped, so the stream cannot read as complete.  (Not
	 * archive_write_fail: the same leak.)
	 */
	if (rc != 0)
		c.mute = 1;
	archive_write_free(c.a);
	return rc;
}
