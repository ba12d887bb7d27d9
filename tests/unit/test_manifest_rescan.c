/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for manifest_rescan: a long, seeded run of random changes to
 * a real tree, each batch's journal paths rescanned and the result checked
 * against a full scan; then ignore rules, links on the way, type changes,
 * replaced directories and the argument errors.  Each test works in its
 * own mkdtemp directory, removed afterwards.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "compat.h"
#include "buf.h"
#include "error.h"
#include "ignore.h"
#include "manifest.h"
#include "xmalloc.h"
#include "tmpdir.h"

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

#define PROP_ROUNDS	200	/* batches of changes in the property test */
#define PROP_SEED	20240611u
#define PROP_FLOOR	30	/* entries below which nothing big goes */

/* Create the file path in dirfd holding content. */
static void
put(int dirfd, const char *path, const char *content)
{
	size_t	len = strlen(content);
	int	fd;

	fd = openat(dirfd, path, O_WRONLY|O_CREAT|O_TRUNC, 0644);
	assert_true(fd != -1);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* Create the directory path in dirfd. */
static void
mkd(int dirfd, const char *path)
{
	assert_int_equal(mkdirat(dirfd, path, 0755), 0);
}

/* Remove rel (below t's tree) and everything below it. */
static void
rmrf(struct tmptree *t, const char *rel)
{
	char	*abs;

	abs = xasprintf("%s/tree/%s", t->top, rel);
	assert_int_equal(tmpdir_remove(abs), 0);
	free(abs);
}

/* Scan t's tree, which must succeed. */
static struct manifest *
scan(struct tmptree *t, manifest_skip_cb skip, void *arg, int flags)
{
	struct manifest	*m = NULL;
	char		*cause = NULL;

	if (manifest_scan(t->fd, NULL, skip, arg, flags, &m, &cause) != 0)
		fail_msg("scan failed: %s", cause);
	return m;
}

/* Scan t's tree with the ignore rules of its files (and defaults). */
static struct manifest *
scan_ignore(struct tmptree *t, int flags)
{
	struct manifest	*m;
	struct ignore	*ig = NULL;
	char		*cause = NULL;

	assert_int_equal(ignore_new(NULL, 0, &ig, &cause), 0);
	m = scan(t, ignore_skip_cb, ig, flags);
	ignore_free(ig);
	return m;
}

/* Rescan paths[0..n) of t's tree from prev, which must succeed. */
static struct manifest *
rescan(struct tmptree *t, const struct manifest *prev, const char *const *paths,
    size_t n, manifest_skip_cb skip, void *arg, int flags)
{
	struct manifest	*m = NULL;
	char		*cause = NULL;

	if (manifest_rescan(t->fd, prev, (char *const *)(uintptr_t)paths, n,
	    skip, arg, flags, &m, &cause) != 0)
		fail_msg("rescan failed: %s", cause);
	assert_non_null(m);
	return m;
}

/* Rescan with fresh ignore rules, as a sync after a restart would. */
static struct manifest *
rescan_ignore(struct tmptree *t, const struct manifest *prev,
    const char *const *paths, size_t n, int flags)
{
	struct manifest	*m;
	struct ignore	*ig = NULL;
	char		*cause = NULL;

	assert_int_equal(ignore_new(NULL, 0, &ig, &cause), 0);
	m = rescan(t, prev, paths, n, ignore_skip_cb, ig, flags);
	ignore_free(ig);
	return m;
}

/* Expect manifest_rescan to fail with want, leaving *out alone. */
static void
rescan_fail(struct tmptree *t, const struct manifest *prev,
    const char *const *paths, size_t n, int want, const char *fragment)
{
	struct manifest	 untouched, *m = &untouched;
	char		*cause = NULL;
	int		 rc;

	rc = manifest_rescan(t->fd, prev, (char *const *)(uintptr_t)paths, n,
	    NULL, NULL, 0, &m, &cause);
	if (rc != want)
		fail_msg("rescan of %s gave %d, want %d", n > 0 ? paths[0] :
		    "nothing", rc, want);
	assert_ptr_equal(m, &untouched);
	assert_non_null(cause);
	if (fragment != NULL && strstr(cause, fragment) == NULL)
		fail_msg("cause \"%s\" does not name %s", cause, fragment);
	free(cause);
}

/* Describe e in one line (path first) into s. */
static void
entry_str(const struct manifest_entry *e, char *s, size_t len)
{
	char	hash[9] = "-";

	if (e->have_hash)
		snprintf(hash, sizeof(hash), "%02x%02x%02x%02x", e->hash[0],
		    e->hash[1], e->hash[2], e->hash[3]);
	snprintf(s, len, "%s %c %03o %llu %lld.%09ld %s %s", e->path,
	    e->type, e->mode, (unsigned long long)e->size,
	    (long long)e->mtime_sec, e->mtime_nsec, hash,
	    e->link != NULL ? e->link : "-");
}

/* Return 1 if a and b agree; directory mtimes only if dir_mtime. */
static int
entry_same(const struct manifest_entry *a, const struct manifest_entry *b,
    int dir_mtime)
{
	if (strcmp(a->path, b->path) != 0 || a->type != b->type ||
	    a->size != b->size || a->mode != b->mode ||
	    a->have_hash != b->have_hash ||
	    (a->have_hash && memcmp(a->hash, b->hash, sizeof(a->hash)) != 0))
		return 0;
	if ((a->link == NULL) != (b->link == NULL) ||
	    (a->link != NULL && strcmp(a->link, b->link) != 0))
		return 0;
	if (a->type == MANIFEST_DIR && !dir_mtime)
		return 1;
	return a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

/*
 * Assert that got equals want entry by entry.  Without dir_mtime the
 * mtimes of directories are not compared: a journal does not list a
 * directory whose entries changed (inotify reports the entries), so a
 * rescan keeps its old mtime, which no sync decision reads.
 */
static void
assert_same(const char *what, const struct manifest *got,
    const struct manifest *want, int dir_mtime)
{
	char	g[512], w[512];
	size_t	i;

	for (i = 0; i < got->n || i < want->n; i++) {
		strlcpy(g, "(none)", sizeof(g));
		strlcpy(w, "(none)", sizeof(w));
		if (i < got->n)
			entry_str(&got->e[i], g, sizeof(g));
		if (i < want->n)
			entry_str(&want->e[i], w, sizeof(w));
		if (i >= got->n || i >= want->n ||
		    !entry_same(&got->e[i], &want->e[i], dir_mtime))
			fail_msg("%s: entry %zu is %s, want %s", what, i, g, w);
	}
}

/* Return the number of entries of m whose path contains s. */
static size_t
count_matching(const struct manifest *m, const char *s)
{
	size_t	i, k = 0;

	for (i = 0; i < m->n; i++)
		k += strstr(m->e[i].path, s) != NULL;
	return k;
}

/* A skip callback that keeps everything and logs what it was told. */
static int
log_cb(void *arg, int dirfd, const char *reldir, const char *relpath,
    int is_dir)
{
	struct buf	*b = arg;

	(void)dirfd;
	if (relpath == NULL)
		buf_appendf(b, "D[%s]|", reldir);
	else
		buf_appendf(b, "E[%s]%d|", relpath, is_dir);
	return 0;
}

/*
 * The property test.  Journal paths follow inotify: a changed, made or
 * removed entry is listed; a directory made or moved in is listed with
 * everything below it; one removed or moved out is listed alone; the
 * directory holding a change is not listed.
 */

/* A growing list of journal paths; sorted and made unique when done. */
struct paths {
	char	**v;
	size_t	  n, cap;
};

/* Add a copy of path to p. */
static void
paths_add(struct paths *p, const char *path)
{
	if (p->n == p->cap) {
		p->cap = p->cap == 0 ? 16 : p->cap * 2;
		p->v = xreallocarray(p->v, p->cap, sizeof(*p->v));
	}
	p->v[p->n++] = xstrdup(path);
}

/* Order strings, for qsort. */
static int
paths_cmp(const void *a, const void *b)
{
	const char	*const *sa = a, *const *sb = b;

	return strcmp(*sa, *sb);
}

/* Sort p and drop duplicates, as the daemon does before handing it out. */
static void
paths_done(struct paths *p)
{
	size_t	i, o;

	if (p->n > 1)
		qsort(p->v, p->n, sizeof(*p->v), paths_cmp);
	for (i = o = 0; i < p->n; i++) {
		if (o > 0 && strcmp(p->v[o - 1], p->v[i]) == 0)
			free(p->v[i]);
		else
			p->v[o++] = p->v[i];
	}
	p->n = o;
}

/* Empty p. */
static void
paths_clear(struct paths *p)
{
	size_t	i;

	for (i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

/* The property test's state. */
struct prop {
	struct tmptree	*t;
	struct manifest	*now;		/* the tree as it is, to pick from */
	struct paths	 dirty;		/* this batch's journal */
	uint32_t	 rng;
	long		 clock;		/* file mtimes handed out */
	size_t		 ran[13];	/* changes made, per prop_ops kind */
};

static const char *const file_names[] = { "f0", "f1", "f2" };
static const char *const dir_names[] = { "d0", "d1", "d2" };
static const char *const link_names[] = { "l0", "l1" };
static const char *const link_targets[] = { "f0", "d0", "../d1",
    "/nonexistent/x", "l0" };

/* Return a number below n from p's generator (xorshift32). */
static size_t
rnd(struct prop *p, size_t n)
{
	p->rng ^= p->rng << 13;
	p->rng ^= p->rng >> 17;
	p->rng ^= p->rng << 5;
	return p->rng % n;
}

/* Look at the tree again (no ignore rules: everything can be picked). */
static void
prop_refresh(struct prop *p)
{
	manifest_free(p->now);
	p->now = scan(p->t, NULL, NULL, 0);
}

/* Return 1 if e may be picked for a change of a type in mask. */
static int
prop_pickable(const struct manifest_entry *e, const char *mask)
{
	const char	*name = strrchr(e->path, '/');

	name = name == NULL ? e->path : name + 1;
	return strchr(mask, e->type) != NULL &&
	    strcmp(name, ".gitignore") != 0;
}

/* Pick an entry of a type in mask ("fdl" letters); NULL if none. */
static char *
prop_pick(struct prop *p, const char *mask)
{
	size_t	i, k = 0;

	for (i = 0; i < p->now->n; i++)
		k += prop_pickable(&p->now->e[i], mask);
	if (k == 0)
		return NULL;
	k = rnd(p, k);
	for (i = 0; i < p->now->n; i++) {
		if (prop_pickable(&p->now->e[i], mask) && k-- == 0)
			break;
	}
	return xstrdup(p->now->e[i].path);
}

/* Pick a directory ("" the root) not deeper than two levels. */
static char *
prop_dir(struct prop *p)
{
	char	*d;
	int	 tries;

	for (tries = 0; tries < 4; tries++) {
		if ((d = prop_pick(p, "d")) == NULL)
			break;
		if (strchr(d, '/') == NULL || strchr(strchr(d, '/') + 1,
		    '/') == NULL)
			return d;
		free(d);
	}
	return xstrdup("");
}

/* Return dir/name, or name if dir is the root. */
static char *
join(const char *dir, const char *name)
{
	return *dir == '\0' ? xstrdup(name) : xasprintf("%s/%s", dir, name);
}

/* Return 1 if path exists in t's tree (a link not followed). */
static int
exists(struct tmptree *t, const char *path, struct stat *st)
{
	struct stat	sb;

	return fstatat(t->fd, path, st != NULL ? st : &sb,
	    AT_SYMLINK_NOFOLLOW) == 0;
}

/* Return a path for a name of pool in some directory; NULL if taken. */
static char *
prop_new_name(struct prop *p, const char *const *pool, size_t npool)
{
	char	*dir, *path;

	dir = prop_dir(p);
	path = join(dir, pool[rnd(p, npool)]);
	free(dir);
	if (exists(p->t, path, NULL)) {
		free(path);
		return NULL;
	}
	return path;
}

/* Write fresh content, a mode and an mtime no file had before to path. */
static void
prop_file(struct prop *p, const char *path)
{
	static const mode_t	 modes[] = { 0600, 0644, 0640, 0755 };
	struct timespec		 ts[2];
	char			 data[200];
	size_t			 len = rnd(p, sizeof(data)), i;
	int			 fd;

	for (i = 0; i < len; i++)
		data[i] = (char)('a' + rnd(p, 26));
	fd = openat(p->t->fd, path, O_WRONLY|O_CREAT|O_TRUNC|O_NOFOLLOW,
	    0644);
	assert_true(fd != -1);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, modes[rnd(p, NITEMS(modes))]), 0);
	assert_int_equal(close(fd), 0);
	p->clock++;
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;
	ts[1].tv_sec = 1600000000 + p->clock;
	ts[1].tv_nsec = p->clock * 7919 % 1000000000;
	assert_int_equal(utimensat(p->t->fd, path, ts, AT_SYMLINK_NOFOLLOW),
	    0);
}

/* List path and everything now below it (a directory made or moved in). */
static void
prop_dirty_tree(struct prop *p, const char *path)
{
	struct manifest	*m;
	size_t		 i, len = strlen(path);

	m = scan(p->t, NULL, NULL, 0);
	paths_add(&p->dirty, path);
	for (i = 0; i < m->n; i++) {
		if (strncmp(m->e[i].path, path, len) == 0 &&
		    m->e[i].path[len] == '/')
			paths_add(&p->dirty, m->e[i].path);
	}
	manifest_free(m);
}

/* Make directory path with a few files, maybe a subdirectory; list all. */
static void
prop_mkdir(struct prop *p, const char *path)
{
	static const mode_t	 modes[] = { 0700, 0750, 0755 };
	char			*q, *sub;
	size_t			 i, nf = rnd(p, 3);

	assert_int_equal(mkdirat(p->t->fd, path, 0755), 0);
	assert_int_equal(fchmodat(p->t->fd, path,
	    modes[rnd(p, NITEMS(modes))], 0), 0);
	for (i = 0; i < nf; i++) {
		q = join(path, file_names[rnd(p, NITEMS(file_names))]);
		prop_file(p, q);
		free(q);
	}
	if (rnd(p, 2)) {
		sub = join(path, dir_names[rnd(p, NITEMS(dir_names))]);
		mkd(p->t->fd, sub);
		q = join(sub, file_names[rnd(p, NITEMS(file_names))]);
		prop_file(p, q);
		free(q);
		free(sub);
	}
	prop_dirty_tree(p, path);
}

/* Create a file. */
static int
op_create(struct prop *p)
{
	char	*path;

	if ((path = prop_new_name(p, file_names, NITEMS(file_names))) == NULL)
		return 0;
	prop_file(p, path);
	paths_add(&p->dirty, path);
	free(path);
	return 1;
}

/* Give a file new content, size and mtime. */
static int
op_modify(struct prop *p)
{
	char	*path;

	if ((path = prop_pick(p, "f")) == NULL)
		return 0;
	prop_file(p, path);
	paths_add(&p->dirty, path);
	free(path);
	return 1;
}

/* Change the permission bits of a file or directory. */
static int
op_chmod(struct prop *p)
{
	static const mode_t	 fmodes[] = { 0600, 0644, 0640, 0755 };
	static const mode_t	 dmodes[] = { 0700, 0750, 0755 };
	struct stat		 st;
	char			*path;
	mode_t			 mode;

	if ((path = prop_pick(p, "fd")) == NULL)
		return 0;
	assert_true(exists(p->t, path, &st));
	mode = S_ISDIR(st.st_mode) ? dmodes[rnd(p, NITEMS(dmodes))] :
	    fmodes[rnd(p, NITEMS(fmodes))];
	assert_int_equal(fchmodat(p->t->fd, path, mode, 0), 0);
	paths_add(&p->dirty, path);
	free(path);
	return 1;
}

/* Remove a file or link. */
static int
op_delete(struct prop *p)
{
	char	*path;

	if ((path = prop_pick(p, "fl")) == NULL)
		return 0;
	assert_int_equal(unlinkat(p->t->fd, path, 0), 0);
	paths_add(&p->dirty, path);
	free(path);
	return 1;
}

/* Make a directory with files in it. */
static int
op_mkdir(struct prop *p)
{
	char	*path;

	if ((path = prop_new_name(p, dir_names, NITEMS(dir_names))) == NULL)
		return 0;
	prop_mkdir(p, path);
	free(path);
	return 1;
}

/* Remove a directory and everything in it (listed alone). */
static int
op_rmdir(struct prop *p)
{
	char	*path;

	if (p->now->n < PROP_FLOOR || (path = prop_pick(p, "d")) == NULL)
		return 0;
	rmrf(p->t, path);
	paths_add(&p->dirty, path);
	free(path);
	return 1;
}

/* Rename a file or link, maybe over another. */
static int
op_rename_file(struct prop *p)
{
	struct stat	 st;
	char		*from, *dir, *to;
	int		 ok;

	if ((from = prop_pick(p, "fl")) == NULL)
		return 0;
	dir = prop_dir(p);
	to = join(dir, file_names[rnd(p, NITEMS(file_names))]);
	free(dir);
	ok = strcmp(from, to) != 0 && (!exists(p->t, to, &st) ||
	    !S_ISDIR(st.st_mode));
	if (ok) {
		assert_int_equal(renameat(p->t->fd, from, p->t->fd, to), 0);
		paths_add(&p->dirty, from);
		paths_add(&p->dirty, to);
	}
	free(from);
	free(to);
	return ok;
}

/* Move a directory to a new name (not below itself). */
static int
op_rename_dir(struct prop *p)
{
	char	*from, *to;
	size_t	 len;
	int	 ok;

	if ((from = prop_pick(p, "d")) == NULL)
		return 0;
	if ((to = prop_new_name(p, dir_names, NITEMS(dir_names))) == NULL) {
		free(from);
		return 0;
	}
	len = strlen(from);
	ok = strncmp(to, from, len) != 0 || to[len] != '/';
	if (ok) {
		assert_int_equal(renameat(p->t->fd, from, p->t->fd, to), 0);
		paths_add(&p->dirty, from);
		prop_dirty_tree(p, to);
	}
	free(from);
	free(to);
	return ok;
}

/* Replace a file by a directory of the same name. */
static int
op_file_to_dir(struct prop *p)
{
	char	*path;

	if ((path = prop_pick(p, "f")) == NULL)
		return 0;
	assert_int_equal(unlinkat(p->t->fd, path, 0), 0);
	paths_add(&p->dirty, path);
	prop_mkdir(p, path);
	free(path);
	return 1;
}

/* Replace a directory by a file of the same name. */
static int
op_dir_to_file(struct prop *p)
{
	char	*path;

	if (p->now->n < PROP_FLOOR || (path = prop_pick(p, "d")) == NULL)
		return 0;
	rmrf(p->t, path);
	prop_file(p, path);
	paths_add(&p->dirty, path);
	free(path);
	return 1;
}

/* Replace a directory by a new one of the same name. */
static int
op_dir_to_dir(struct prop *p)
{
	char	*path;

	if (p->now->n < PROP_FLOOR || (path = prop_pick(p, "d")) == NULL)
		return 0;
	rmrf(p->t, path);
	paths_add(&p->dirty, path);
	prop_mkdir(p, path);
	free(path);
	return 1;
}

/* Make a file or directory that the root's .gitignore leaves out. */
static int
op_ignored(struct prop *p)
{
	static const char *const	 names[] = { "x.tmp", "t.tmp" };
	char				*dir, *path;
	int				 is_dir = rnd(p, 2), ok;

	dir = prop_dir(p);
	path = join(dir, names[is_dir]);
	free(dir);
	if ((ok = !exists(p->t, path, NULL)) && is_dir)
		prop_mkdir(p, path);
	else if (ok) {
		prop_file(p, path);
		paths_add(&p->dirty, path);
	}
	free(path);
	return ok;
}

/* Make a symlink, or point one elsewhere. */
static int
op_symlink(struct prop *p)
{
	struct stat	 st;
	char		*dir, *path;
	int		 ok;

	dir = prop_dir(p);
	path = join(dir, link_names[rnd(p, NITEMS(link_names))]);
	free(dir);
	ok = !exists(p->t, path, &st) || S_ISLNK(st.st_mode);
	if (ok) {
		(void)unlinkat(p->t->fd, path, 0);
		assert_int_equal(symlinkat(link_targets[rnd(p,
		    NITEMS(link_targets))], p->t->fd, path), 0);
		paths_add(&p->dirty, path);
	}
	free(path);
	return ok;
}

/* The kinds of change, and how often each is tried. */
static const struct {
	int		(*fn)(struct prop *);
	size_t		  weight;
} prop_ops[] = {
	{ op_create, 4 }, { op_modify, 3 }, { op_chmod, 2 },
	{ op_delete, 2 }, { op_mkdir, 3 }, { op_rmdir, 1 },
	{ op_rename_file, 2 }, { op_rename_dir, 2 }, { op_file_to_dir, 1 },
	{ op_dir_to_file, 1 }, { op_dir_to_dir, 1 }, { op_symlink, 2 },
	{ op_ignored, 1 }
};

/* Make one random change; return 1 if one was made. */
static int
prop_change(struct prop *p)
{
	size_t	i, total = 0, k;

	for (i = 0; i < NITEMS(prop_ops); i++)
		total += prop_ops[i].weight;
	k = rnd(p, total);
	for (i = 0; k >= prop_ops[i].weight; i++)
		k -= prop_ops[i].weight;
	prop_refresh(p);
	if (!prop_ops[i].fn(p))
		return 0;
	p->ran[i]++;
	return 1;
}

/*
 * Build the starting tree: files, directories, links, ignored names.
 * Files get mtimes of their own (prop_file): a rename may bring a file to
 * a path whose old file had the same size, and only a different mtime
 * tells a scan that the hash it knows for that path is stale.
 */
static void
prop_tree(struct prop *p)
{
	static const char *const	 files[] = { "f0", "d0/f0", "d0/f1",
	    "d0/d1/f2", "d1/x.tmp", "d1/f1", "t.tmp/f0" };
	size_t				 i;

	put(p->t->fd, ".gitignore", "*.tmp\n");
	mkd(p->t->fd, "d0");
	mkd(p->t->fd, "d0/d1");
	mkd(p->t->fd, "d1");
	mkd(p->t->fd, "t.tmp");
	for (i = 0; i < NITEMS(files); i++)
		prop_file(p, files[i]);
	assert_int_equal(symlinkat("f0", p->t->fd, "l0"), 0);
	assert_int_equal(symlinkat("../d1", p->t->fd, "d0/l1"), 0);
}

/* Rescan this batch's journal from prev, check it and return it. */
static struct manifest *
prop_check(struct prop *p, struct manifest *prev, int round)
{
	struct manifest	*got, *want;
	struct buf	 what = BUF_INIT;
	size_t		 i;

	paths_done(&p->dirty);
	got = rescan_ignore(p->t, prev, (const char *const *)p->dirty.v,
	    p->dirty.n, MANIFEST_HASH_CHANGED);
	want = scan_ignore(p->t, MANIFEST_HASH_CHANGED);
	buf_appendf(&what, "round %d, paths", round);
	for (i = 0; i < p->dirty.n; i++)
		buf_appendf(&what, " %s", p->dirty.v[i]);
	assert_same(what.data, got, want, 0);
	buf_free(&what);
	assert_int_equal(count_matching(got, ".tmp"), 0);
	manifest_free(want);
	manifest_free(prev);
	paths_clear(&p->dirty);
	return got;
}

/* Random batches of changes: a rescan always equals a full scan. */
static void
test_property(void **state)
{
	struct prop	 p;
	struct manifest	*prev;
	size_t		 i, made = 0, k, sum = 0, most = 0;
	int		 round;

	memset(&p, 0, sizeof(p));
	p.t = *state;
	p.rng = PROP_SEED;
	prop_tree(&p);
	prev = scan_ignore(p.t, MANIFEST_HASH_CHANGED);
	assert_non_null(manifest_find(prev, "d0/d1/f2"));
	assert_null(manifest_find(prev, "t.tmp"));
	for (round = 0; round < PROP_ROUNDS; round++) {
		for (k = 1 + rnd(&p, 3); k > 0; k--)
			made += prop_change(&p);
		prev = prop_check(&p, prev, round);
		sum += prev->n;
		if (prev->n > most)
			most = prev->n;
	}
	for (i = 0; i < NITEMS(p.ran); i++) {
		if (p.ran[i] == 0)
			fail_msg("change kind %zu never made", i);
	}
	assert_true(made >= PROP_ROUNDS);
	print_message("%zu changes in %d batches; entries: %zu on average, "
	    "%zu at most, %zu at the end\n", made, PROP_ROUNDS,
	    sum / PROP_ROUNDS, most, prev->n);
	manifest_free(prev);
	manifest_free(p.now);
}

/* Paths inside an ignored directory are left out, even when listed. */
static void
test_ignored_dir(void **state)
{
	static const char *const	 paths[] = { "build", "build/new.o",
	    "src/y.c" };
	struct tmptree			*t = *state;
	struct manifest			*prev, *m, *want;

	put(t->fd, ".gitignore", "build/\n");
	mkd(t->fd, "build");
	put(t->fd, "build/a.o", "obj");
	mkd(t->fd, "src");
	put(t->fd, "src/x.c", "int x;");
	prev = scan_ignore(t, 0);
	assert_null(manifest_find(prev, "build"));
	put(t->fd, "build/new.o", "obj2");
	put(t->fd, "src/y.c", "int y;");
	assert_int_equal(fchmodat(t->fd, "build", 0700, 0), 0);
	m = rescan_ignore(t, prev, paths, NITEMS(paths), 0);
	assert_int_equal(count_matching(m, "build"), 0);
	assert_non_null(manifest_find(m, "src/y.c"));
	want = scan_ignore(t, 0);
	assert_same("ignored dir", m, want, 0);
	manifest_free(m);
	/* Without the rules the listed directory is walked: the control. */
	m = rescan(t, prev, paths, NITEMS(paths), NULL, NULL, 0);
	assert_non_null(manifest_find(m, "build/new.o"));
	assert_non_null(manifest_find(m, "build/a.o"));
	manifest_free(m);
	manifest_free(want);
	manifest_free(prev);
}

/*
 * A .gitignore below the root applies to listed paths under it and to new
 * directories walked there, though no rescan walked its directory before.
 */
static void
test_nested_gitignore(void **state)
{
	static const char *const	 paths[] = { "fresh",
	    "fresh/.gitignore", "fresh/a.log", "fresh/b", "sub/deep/a.tmp",
	    "sub/deep/b.c", "sub/deep/new", "sub/deep/new/x.tmp",
	    "sub/deep/new/y" };
	struct tmptree			*t = *state;
	struct manifest			*prev, *m, *want;

	mkd(t->fd, "sub");
	mkd(t->fd, "sub/deep");
	put(t->fd, "sub/deep/.gitignore", "*.tmp\n");
	put(t->fd, "sub/deep/keep.c", "");
	prev = scan_ignore(t, 0);
	put(t->fd, "sub/deep/a.tmp", "");
	put(t->fd, "sub/deep/b.c", "");
	mkd(t->fd, "sub/deep/new");
	put(t->fd, "sub/deep/new/x.tmp", "");
	put(t->fd, "sub/deep/new/y", "");
	mkd(t->fd, "fresh");
	put(t->fd, "fresh/.gitignore", "*.log\n");
	put(t->fd, "fresh/a.log", "");
	put(t->fd, "fresh/b", "");
	m = rescan_ignore(t, prev, paths, NITEMS(paths), 0);
	assert_null(manifest_find(m, "sub/deep/a.tmp"));
	assert_null(manifest_find(m, "sub/deep/new/x.tmp"));
	assert_null(manifest_find(m, "fresh/a.log"));
	assert_non_null(manifest_find(m, "sub/deep/b.c"));
	assert_non_null(manifest_find(m, "sub/deep/new/y"));
	assert_non_null(manifest_find(m, "fresh/b"));
	want = scan_ignore(t, 0);
	assert_same("nested .gitignore", m, want, 0);
	manifest_free(m);
	/* The control: without the rules the ignored names are there. */
	m = rescan(t, prev, paths, NITEMS(paths), NULL, NULL, 0);
	assert_non_null(manifest_find(m, "sub/deep/a.tmp"));
	assert_non_null(manifest_find(m, "sub/deep/new/x.tmp"));
	manifest_free(m);
	manifest_free(want);
	manifest_free(prev);
}

/* A listed path whose parent became a link out of the tree: not followed. */
static void
test_parent_link_outside(void **state)
{
	static const char *const	 below[] = { "p/f", "p/secret" };
	static const char *const	 both[] = { "p", "p/f", "p/secret" };
	struct tmptree			*t = *state;
	struct manifest			*prev, *m, *want;
	struct buf			 log = BUF_INIT;

	mkd(t->topfd, "outside");
	put(t->topfd, "outside/f", "outside");
	put(t->topfd, "outside/secret", "outside");
	mkd(t->fd, "p");
	put(t->fd, "p/f", "inside");
	put(t->fd, "q", "");
	prev = scan(t, NULL, NULL, MANIFEST_HASH_CHANGED);
	rmrf(t, "p");
	assert_int_equal(symlinkat("../outside", t->fd, "p"), 0);
	m = rescan(t, prev, below, NITEMS(below), log_cb, &log,
	    MANIFEST_HASH_CHANGED);
	assert_null(manifest_find(m, "p/f"));
	assert_int_equal(count_matching(m, "secret"), 0);
	assert_int_equal(count_matching(m, "p/"), 0);
	assert_null(strstr(log.data, "[p/"));
	assert_null(strstr(log.data, "D[p]"));
	manifest_free(m);
	m = rescan(t, prev, both, NITEMS(both), NULL, NULL,
	    MANIFEST_HASH_CHANGED);
	assert_int_equal(manifest_find(m, "p")->type, MANIFEST_LINK);
	want = scan(t, NULL, NULL, MANIFEST_HASH_CHANGED);
	assert_same("parent link", m, want, 1);
	buf_free(&log);
	manifest_free(want);
	manifest_free(m);
	manifest_free(prev);
}

/* A directory that is now a file takes its old subtree with it. */
static void
test_dir_became_file(void **state)
{
	static const char *const	 paths[] = { "d" };
	struct tmptree			*t = *state;
	struct manifest			*prev, *m, *want;

	mkd(t->fd, "d");
	put(t->fd, "d/a", "a");
	mkd(t->fd, "d/s");
	put(t->fd, "d/s/b", "b");
	put(t->fd, "keep", "k");
	prev = scan(t, NULL, NULL, 0);
	assert_int_equal(prev->n, 5);
	rmrf(t, "d");
	put(t->fd, "d", "now a file");
	m = rescan(t, prev, paths, NITEMS(paths), NULL, NULL, 0);
	assert_int_equal(manifest_find(m, "d")->type, MANIFEST_FILE);
	assert_int_equal(count_matching(m, "d/"), 0);
	want = scan(t, NULL, NULL, 0);
	assert_same("dir to file", m, want, 1);
	manifest_free(want);
	manifest_free(m);
	manifest_free(prev);
}

/*
 * A directory moved away (listed alone) and made again under its name
 * (listed with all it holds): what only the old one held is gone.
 */
static void
test_dir_replaced(void **state)
{
	static const char *const	 paths[] = { "d", "d/b", "d/s",
	    "d/s/y", "old", "old/a", "old/s", "old/s/x" };
	struct tmptree			*t = *state;
	struct manifest			*prev, *m, *want;

	mkd(t->fd, "d");
	put(t->fd, "d/a", "a");
	mkd(t->fd, "d/s");
	put(t->fd, "d/s/x", "x");
	prev = scan(t, NULL, NULL, MANIFEST_HASH_CHANGED);
	assert_int_equal(renameat(t->fd, "d", t->fd, "old"), 0);
	mkd(t->fd, "d");
	mkd(t->fd, "d/s");
	put(t->fd, "d/s/y", "y");
	put(t->fd, "d/b", "b");
	m = rescan(t, prev, paths, NITEMS(paths), NULL, NULL,
	    MANIFEST_HASH_CHANGED);
	want = scan(t, NULL, NULL, MANIFEST_HASH_CHANGED);
	assert_same("dir replaced", m, want, 1);
	assert_null(manifest_find(m, "d/a"));
	assert_null(manifest_find(m, "d/s/x"));
	manifest_free(want);
	manifest_free(m);
	manifest_free(prev);
}

/* A directory removed and made again, the removal listed alone. */
static void
test_dir_removed_and_made(void **state)
{
	static const char *const	 paths[] = { "d", "d/new" };
	struct tmptree			*t = *state;
	struct manifest			*prev, *m, *want;

	mkd(t->fd, "d");
	put(t->fd, "d/gone", "a");
	mkd(t->fd, "d/sub");
	put(t->fd, "d/sub/gone2", "b");
	prev = scan(t, NULL, NULL, 0);
	rmrf(t, "d");
	mkd(t->fd, "d");
	put(t->fd, "d/new", "n");
	m = rescan(t, prev, paths, NITEMS(paths), NULL, NULL, 0);
	want = scan(t, NULL, NULL, 0);
	assert_same("dir removed and made", m, want, 1);
	manifest_free(want);
	manifest_free(m);
	manifest_free(prev);
}

/* A chmod of a directory re-reads it and keeps what is below it. */
static void
test_dir_chmod_keeps(void **state)
{
	static const char *const	 paths[] = { "d" };
	struct tmptree			*t = *state;
	struct manifest			*prev, *m;

	mkd(t->fd, "d");
	put(t->fd, "d/a", "a");
	mkd(t->fd, "d/s");
	put(t->fd, "d/s/b", "b");
	prev = scan(t, NULL, NULL, 0);
	assert_int_equal(fchmodat(t->fd, "d", 0700, 0), 0);
	/* Unlisted, so the rescan must keep prev's entry, not look. */
	put(t->fd, "d/a", "changed but not listed");
	m = rescan(t, prev, paths, NITEMS(paths), NULL, NULL, 0);
	assert_int_equal(m->n, 4);
	assert_int_equal(manifest_find(m, "d")->mode, 0700);
	assert_true(manifest_find(m, "d/a")->size == 1);
	assert_non_null(manifest_find(m, "d/s/b"));
	manifest_free(m);
	manifest_free(prev);
}

/* Unsorted or repeated paths fail; *out is left alone. */
static void
test_unsorted(void **state)
{
	static const char *const	 unsorted[] = { "b", "a" };
	static const char *const	 twice[] = { "a", "a" };
	static const char *const	 prefix[] = { "a/x", "a" };
	struct tmptree			*t = *state;
	struct manifest			*prev;

	put(t->fd, "a", "");
	put(t->fd, "b", "");
	prev = scan(t, NULL, NULL, 0);
	rescan_fail(t, prev, unsorted, NITEMS(unsorted), CLAW_ERR_INVAL,
	    "sorted");
	rescan_fail(t, prev, twice, NITEMS(twice), CLAW_ERR_INVAL, "sorted");
	rescan_fail(t, prev, prefix, NITEMS(prefix), CLAW_ERR_INVAL,
	    "sorted");
	rescan_fail(t, NULL, unsorted, NITEMS(unsorted), CLAW_ERR_INVAL,
	    "sorted");
	manifest_free(prev);
}

/* A new directory's file listed without the directory: a parse error. */
static void
test_missing_new_dir(void **state)
{
	static const char *const	 missing[] = { "newdir/f" };
	static const char *const	 whole[] = { "newdir", "newdir/f" };
	struct tmptree			*t = *state;
	struct manifest			*prev, *m, *want;

	put(t->fd, "a", "");
	prev = scan(t, NULL, NULL, 0);
	mkd(t->fd, "newdir");
	put(t->fd, "newdir/f", "f");
	rescan_fail(t, prev, missing, NITEMS(missing), CLAW_ERR_PARSE,
	    "newdir/f");
	m = rescan(t, prev, whole, NITEMS(whole), NULL, NULL, 0);
	want = scan(t, NULL, NULL, 0);
	assert_same("new dir", m, want, 1);
	manifest_free(want);
	manifest_free(m);
	manifest_free(prev);
}

/* Listed paths that are not clean relative paths are refused. */
static void
test_bad_paths(void **state)
{
	static const char *const	 bad[] = { "..", "../outside",
	    "../tree/a", ".", "./a", "a/.", "a/..", "a/../a", "a//a", "a/",
	    "/a", "/etc/passwd" };
	struct tmptree			*t = *state;
	struct manifest			*prev;
	size_t				 i;

	mkd(t->topfd, "outside");
	put(t->topfd, "outside/secret", "outside");
	mkd(t->fd, "a");
	prev = scan(t, NULL, NULL, 0);
	for (i = 0; i < NITEMS(bad); i++)
		rescan_fail(t, prev, &bad[i], 1, CLAW_ERR_INVAL, bad[i]);
	manifest_free(prev);
}

/* No paths: a copy of prev, however the tree changed meanwhile. */
static void
test_empty_list(void **state)
{
	struct tmptree	*t = *state;
	struct manifest	*prev, *m, *empty;

	put(t->fd, "f", "abc");
	mkd(t->fd, "d");
	assert_int_equal(symlinkat("f", t->fd, "d/l"), 0);
	prev = scan(t, NULL, NULL, MANIFEST_HASH_CHANGED);
	put(t->fd, "f", "changed");
	put(t->fd, "g", "new");
	m = rescan(t, prev, NULL, 0, NULL, NULL, MANIFEST_HASH_CHANGED);
	assert_ptr_not_equal(m, prev);
	assert_ptr_not_equal(m->e[0].path, prev->e[0].path);
	assert_same("empty list", m, prev, 1);
	manifest_free(prev);
	manifest_free(m);
	empty = manifest_new();
	m = rescan(t, empty, NULL, 0, NULL, NULL, 0);
	assert_int_equal(m->n, 0);
	manifest_free(m);
	manifest_free(empty);
}

/* No prev: every path listed is added, as a scan would record it. */
static void
test_null_prev(void **state)
{
	struct tmptree	*t = *state;
	struct manifest	*all, *m;
	const char	**paths;
	size_t		 i;

	put(t->fd, "f", "abc");
	mkd(t->fd, "d");
	put(t->fd, "d/g", "def");
	mkd(t->fd, "d/e");
	assert_int_equal(symlinkat("../f", t->fd, "d/l"), 0);
	all = scan(t, NULL, NULL, MANIFEST_HASH_CHANGED);
	paths = xcalloc(all->n, sizeof(*paths));
	for (i = 0; i < all->n; i++)
		paths[i] = all->e[i].path;
	m = rescan(t, NULL, paths, all->n, NULL, NULL,
	    MANIFEST_HASH_CHANGED);
	assert_same("null prev", m, all, 1);
	assert_true(manifest_find(m, "d/g")->have_hash);
	manifest_free(m);
	/* Only "f" (the last) listed; "d", new, would be walked whole. */
	m = rescan(t, NULL, &paths[all->n - 1], 1, NULL, NULL, 0);
	assert_int_equal(m->n, 1);
	assert_string_equal(m->e[0].path, "f");
	manifest_free(m);
	m = rescan(t, NULL, paths, 1, NULL, NULL, 0);
	assert_int_equal(m->n, 4);
	manifest_free(m);
	m = rescan(t, NULL, NULL, 0, NULL, NULL, 0);
	assert_int_equal(m->n, 0);
	manifest_free(m);
	free(paths);
	manifest_free(all);
}

/* Return "d/d/.../d", n components (allocated). */
static char *
chain(int n)
{
	struct buf	b = BUF_INIT;
	int		i;

	for (i = 0; i < n; i++)
		buf_append_str(&b, i == 0 ? "d" : "/d");
	buf_append(&b, "", 1);
	return buf_detach(&b);
}

/* Nest n directories "d" below t's tree, a file "f" in the deepest. */
static void
nest(struct tmptree *t, int n)
{
	int	fd, next, i;

	fd = dup(t->fd);
	for (i = 0; i < n; i++) {
		assert_int_equal(mkdirat(fd, "d", 0755), 0);
		next = openat(fd, "d", O_RDONLY|O_DIRECTORY);
		assert_true(next != -1);
		close(fd);
		fd = next;
	}
	put(fd, "f", "deep");
	close(fd);
}

/*
 * A new tree deeper than MANIFEST_MAX_DEPTH, and journal paths below that
 * depth, are left out of a rescan as a scan leaves them out, rather than
 * failing it (and so every sync after).
 */
static void
test_too_deep(void **state)
{
	struct tmptree	 *t = *state;
	struct manifest	 *prev, *m, *full;
	const char	 *paths[2];
	char		 *p257, *p300;

	put(t->fd, "a", "a");
	prev = scan(t, NULL, NULL, MANIFEST_HASH_CHANGED);
	nest(t, 300);
	paths[0] = "d";
	m = rescan(t, prev, paths, 1, NULL, NULL, MANIFEST_HASH_CHANGED);
	full = scan(t, NULL, NULL, MANIFEST_HASH_CHANGED);
	assert_int_equal(full->n, 1 + MANIFEST_MAX_DEPTH);
	assert_same("new deep tree", m, full, 1);
	manifest_free(prev);
	prev = m;
	p257 = chain(MANIFEST_MAX_DEPTH + 1);
	p300 = chain(300);
	p300 = xreallocarray(p300, strlen(p300) + 3, 1);
	strlcat(p300, "/f", strlen(p300) + 3);
	paths[0] = p257;
	paths[1] = p300;
	m = rescan(t, prev, paths, 2, NULL, NULL, MANIFEST_HASH_CHANGED);
	assert_same("deep journal paths", m, full, 1);
	manifest_free(m);
	manifest_free(prev);
	manifest_free(full);
	free(p257);
	free(p300);
}

int
main(void)
{
#define T(fn)	cmocka_unit_test_setup_teardown(fn, tmptree_setup, tmptree_teardown)
	const struct CMUnitTest	tests[] = {
		T(test_property),
		T(test_ignored_dir),
		T(test_nested_gitignore),
		T(test_parent_link_outside),
		T(test_dir_became_file),
		T(test_dir_replaced),
		T(test_dir_removed_and_made),
		T(test_dir_chmod_keeps),
		T(test_unsorted),
		T(test_missing_new_dir),
		T(test_bad_paths),
		T(test_empty_list),
		T(test_null_prev),
		T(test_too_deep),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
