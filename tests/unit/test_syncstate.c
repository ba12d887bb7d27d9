/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for syncstate: a long, seeded run of random changes staged,
 * committed and read back (the whole state and views of random paths,
 * checked against a model kept by code of its own), then a log left
 * beside a newer manifest, damaged logs, damaged manifests, a missing
 * state and a handle used on after a save.  Each test works in its own
 * mkdtemp directory, removed afterwards.
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
#include <unistd.h>

#include <cmocka.h>

#include "compat.h"
#include "buf.h"
#include "error.h"
#include "manifest.h"
#include "syncstate.h"
#include "xmalloc.h"
#include "tmpdir.h"

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

#define PROP_ROUNDS	300	/* commits in the property test */
#define PROP_SEED	20250519u
#define PROP_DEPTH	4	/* directories only above this depth */
#define PROP_BIG	400	/* entries above which changes shrink it */
#define PROP_SMALL	150	/* entries below which deletions grow it */
#define PROP_SET	4	/* paths in one scope or view at most */
#define COMPACT_MIN	(64 * 1024)	/* the log's least compaction limit */

#define SS_NAME		"box.manifest"
#define SS_LOG		"box.manifest.log"

/* Names that sort around "a/x", or that the text format must escape. */
static const char *const names[] = { "a", "a b", "a-x", "a.txt", "a0",
    "a\\b", "b", "x", "\xc3\xa9t\xc3\xa9", "\xff\x80", "nl\nx", "-", " s",
    "t\tb", "\x7f" };

static const char *const targets[] = { "a", "../x", "-", "with space",
    "\xc3\xa9/\\", "/abs/p", "nl\nt" };

struct prop {
	struct tmptree		*t;
	struct syncstate	*s;
	struct manifest		*ref;	/* what the state must hold */
	uint32_t		 rng;
	int			 round;
	size_t			 compactions, appends, reopens, views;
	size_t			 scopes;	/* staged since the commit */
};

/* A pseudo-random number below n (xorshift32). */
static size_t
rnd(struct prop *p, size_t n)
{
	p->rng ^= p->rng << 13;
	p->rng ^= p->rng >> 17;
	p->rng ^= p->rng << 5;
	return p->rng % n;
}

/* Return 1 if path is top or lies below it. */
static int
under(const char *path, const char *top)
{
	size_t	len = strlen(top);

	return strncmp(path, top, len) == 0 &&
	    (path[len] == '\0' || path[len] == '/');
}

/* Return 1 if path is at or below one of v[0..n) (or, with up, above). */
static int
related(const char *path, char *const *v, size_t n, int up)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (under(path, v[i]) || (up && under(v[i], path)))
			return 1;
	}
	return 0;
}

/* Return the number of components of path. */
static size_t
depth_of(const char *path)
{
	size_t	d = 1;

	for (; (path = strchr(path, '/')) != NULL; path++)
		d++;
	return d;
}

/* Return m's entry for path by a linear search (m need not be sorted). */
static struct manifest_entry *
find(const struct manifest *m, const char *path)
{
	size_t	i;

	for (i = 0; i < m->n; i++) {
		if (strcmp(m->e[i].path, path) == 0)
			return &m->e[i];
	}
	return NULL;
}

/* Append a deep copy of e to m. */
static void
copy_entry(struct manifest *m, const struct manifest_entry *e)
{
	struct manifest_entry	*c = manifest_add(m);

	*c = *e;
	c->path = xstrdup(e->path);
	c->link = e->link != NULL ? xstrdup(e->link) : NULL;
}

/* Append an entry with fixed fields for path to m and return it. */
static struct manifest_entry *
add(struct manifest *m, const char *path, int type)
{
	struct manifest_entry	*e = manifest_add(m);

	e->path = xstrdup(path);
	e->type = type;
	e->mode = type == MANIFEST_DIR ? 0755 : 0644;
	e->mtime_sec = 1700000000;
	if (type == MANIFEST_FILE)
		e->size = 10;
	else if (type == MANIFEST_LINK) {
		e->link = xstrdup("t");
		e->size = 1;
	}
	return e;
}

/* Give e (its path and type set) random fields that fit its type. */
static void
randomize(struct prop *p, struct manifest_entry *e)
{
	size_t	i;

	e->mode = (unsigned)rnd(p, 01000);
	e->mtime_sec = (int64_t)rnd(p, 4000000000u) - 1000000000;
	e->mtime_nsec = (long)rnd(p, 1000000000);
	e->size = 0;
	e->have_hash = 0;
	memset(e->hash, 0, sizeof(e->hash));
	free(e->link);
	e->link = NULL;
	if (e->type == MANIFEST_FILE) {
		e->size = (uint64_t)rnd(p, 1 << 20) << rnd(p, 8);
		e->have_hash = rnd(p, 2) == 0;
		for (i = 0; e->have_hash && i < MANIFEST_HASH_LEN; i++)
			e->hash[i] = (unsigned char)rnd(p, 256);
	} else if (e->type == MANIFEST_LINK) {
		e->link = xstrdup(targets[rnd(p, NITEMS(targets))]);
		e->size = strlen(e->link);
	}
}

static void	gen_tree(struct prop *, struct manifest *, const char *);

/* Add up to k random subtrees below dir ("" for the top) to m. */
static void
gen_children(struct prop *p, struct manifest *m, const char *dir, size_t k)
{
	const char	*name;
	char		*path;
	size_t		 i;

	for (i = 0; i < k; i++) {
		name = names[rnd(p, NITEMS(names))];
		path = *dir == '\0' ? xstrdup(name) :
		    xasprintf("%s/%s", dir, name);
		if (find(m, path) == NULL)
			gen_tree(p, m, path);
		free(path);
	}
}

/* Add a random file, link or directory (with children) at path to m. */
static void
gen_tree(struct prop *p, struct manifest *m, const char *path)
{
	size_t	k = rnd(p, 10);

	if (depth_of(path) < PROP_DEPTH && k >= 4) {
		randomize(p, add(m, path, MANIFEST_DIR));
		gen_children(p, m, path, rnd(p, 6));
	} else
		randomize(p, add(m, path, k % 3 == 0 ? MANIFEST_LINK :
		    MANIFEST_FILE));
}

/* Return 1 if path can exist in ref: at the top or in a directory. */
static int
parent_ok(const struct manifest *ref, const char *path)
{
	const struct manifest_entry	*e;
	const char			*slash;
	char				*parent;

	if ((slash = strrchr(path, '/')) == NULL)
		return 1;
	parent = xstrndup(path, (size_t)(slash - path));
	e = manifest_find(ref, parent);
	free(parent);
	return e != NULL && e->type == MANIFEST_DIR;
}

/* Copy to c what ref holds at and below top. */
static void
copy_subtree(const struct manifest *ref, const char *top,
    struct manifest *c)
{
	size_t	i;

	for (i = 0; i < ref->n; i++) {
		if (under(ref->e[i].path, top))
			copy_entry(c, &ref->e[i]);
	}
}

/*
 * Add to c what lies at and below top after a random change: nothing, a
 * new subtree (a file may become a directory or back), the old one with
 * top touched, or the old one with children added (a file or link
 * becoming a directory).
 */
static void
gen_content(struct prop *p, const char *top, struct manifest *c)
{
	const struct manifest_entry	*old = manifest_find(p->ref, top);
	size_t				 how = rnd(p, 8);

	if (!parent_ok(p->ref, top))
		return;				/* it cannot exist */
	if (p->ref->n > PROP_BIG && how < 6)
		how = 0;
	else if (p->ref->n < PROP_SMALL && how < 2)
		how = 6;			/* grow it instead */
	if (how < 2)
		return;				/* deleted */
	if (how < 4 || old == NULL) {
		gen_tree(p, c, top);
		return;
	}
	if (how < 6 || depth_of(top) >= PROP_DEPTH) {
		copy_subtree(p->ref, top, c);
		randomize(p, find(c, top));
		return;
	}
	if (old->type == MANIFEST_DIR)
		copy_subtree(p->ref, top, c);
	else
		randomize(p, add(c, top, MANIFEST_DIR));
	gen_children(p, c, top, 1 + rnd(p, 3));
}

/* The model after a change: ref but at and below tops, what c holds. */
static struct manifest *
model_replace(const struct manifest *ref, char *const *tops, size_t nt,
    const struct manifest *c)
{
	struct manifest	*m = manifest_new();
	size_t		 i;

	for (i = 0; i < ref->n; i++) {
		if (!related(ref->e[i].path, tops, nt, 0))
			copy_entry(m, &ref->e[i]);
	}
	for (i = 0; i < c->n; i++)
		copy_entry(m, &c->e[i]);
	manifest_sort(m);
	return m;
}

/* The model's entries at or below v[0..n) and above any of them. */
static struct manifest *
model_view(const struct manifest *ref, char *const *v, size_t n)
{
	struct manifest	*m = manifest_new();
	size_t		 i;

	for (i = 0; i < ref->n; i++) {
		if (related(ref->e[i].path, v, n, 1))
			copy_entry(m, &ref->e[i]);
	}
	return m;
}

/* Return 1 if a and b agree in every field. */
static int
entry_same(const struct manifest_entry *a, const struct manifest_entry *b)
{
	if (strcmp(a->path, b->path) != 0 || a->type != b->type ||
	    a->size != b->size || a->mtime_sec != b->mtime_sec ||
	    a->mtime_nsec != b->mtime_nsec || a->mode != b->mode ||
	    a->have_hash != b->have_hash)
		return 0;
	if ((a->link == NULL) != (b->link == NULL) ||
	    (a->link != NULL && strcmp(a->link, b->link) != 0))
		return 0;
	return !a->have_hash || memcmp(a->hash, b->hash, sizeof(a->hash)) == 0;
}

/* Fail unless got (may be NULL) equals want entry by entry. */
static void
assert_same(const char *what, const struct manifest *got,
    const struct manifest *want)
{
	struct buf	g = BUF_INIT, w = BUF_INIT;
	size_t		i;

	if (got == NULL)
		fail_msg("%s: no manifest, want %zu entries", what, want->n);
	for (i = 0; i < got->n || i < want->n; i++) {
		if (i < got->n && i < want->n &&
		    entry_same(&got->e[i], &want->e[i]))
			continue;
		if (i < got->n)
			manifest_format_line(&g, &got->e[i]);
		if (i < want->n)
			manifest_format_line(&w, &want->e[i]);
		buf_append(&g, "", 1);
		buf_append(&w, "", 1);
		fail_msg("%s: entry %zu is %s want %s", what, i, g.data,
		    w.data);
	}
}

/* Order two char * by strcmp, for qsort. */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A random path: an entry, a name in or below one, a new top-level
 * name, two names below one, or an entry's parent.
 */
static char *
pick_path(struct prop *p)
{
	const char	*e, *name = names[rnd(p, NITEMS(names))];
	char		*s, *slash;

	if (p->ref->n == 0)
		return xstrdup(name);
	e = p->ref->e[rnd(p, p->ref->n)].path;
	switch (rnd(p, 7)) {
	case 0:
	case 1:
		return xstrdup(e);
	case 2:
		return xasprintf("%s/%s", e, name);
	case 3:
		return xstrdup(name);
	case 4:
		return xasprintf("%s/%s/%s", e, name,
		    names[rnd(p, NITEMS(names))]);
	default:
		s = xstrdup(e);
		if ((slash = strrchr(s, '/')) != NULL)
			*slash = '\0';
		return s;
	}
}

/* Fill v with n random paths, sorted and unique; return how many. */
static size_t
pick_set(struct prop *p, char **v, size_t n)
{
	size_t	i, k;

	for (i = 0; i < n; i++)
		v[i] = pick_path(p);
	qsort(v, n, sizeof(*v), cmp_str);
	for (i = k = 0; i < n; i++) {
		if (k > 0 && strcmp(v[k - 1], v[i]) == 0)
			free(v[i]);
		else
			v[k++] = v[i];
	}
	return k;
}

/* Open the state in t's tree, which must work. */
static struct syncstate *
open_state(struct tmptree *t)
{
	struct syncstate	*s = NULL;
	char			*cause = NULL;

	if (syncstate_open(t->fd, SS_NAME, &s, &cause) != 0)
		fail_msg("open: %s", cause);
	assert_non_null(s);
	return s;
}

/* Fail unless the whole state of s equals want. */
static void
check_all(const char *what, struct syncstate *s, const struct manifest *want)
{
	struct manifest	*m = NULL;
	char		*cause = NULL;

	if (syncstate_all(s, &m, &cause) != 0)
		fail_msg("%s: all: %s", what, cause);
	assert_same(what, m, want);
	manifest_free(m);
}

/* Fail unless the view of v[0..n) in s is ref's. */
static void
check_view(const char *what, struct syncstate *s, const struct manifest *ref,
    char *const *v, size_t n)
{
	struct manifest	*got = NULL, *want;
	struct buf	 b = BUF_INIT;
	char		*cause = NULL;
	size_t		 i;

	buf_append_str(&b, what);
	for (i = 0; i < n; i++) {
		buf_append_str(&b, " ");
		manifest_escape(&b, v[i]);
	}
	buf_append(&b, "", 1);
	if (syncstate_view(s, v, n, &got, &cause) != 0)
		fail_msg("%s: %s", b.data, cause);
	want = model_view(ref, v, n);
	assert_same(b.data, got, want);
	manifest_free(want);
	manifest_free(got);
	buf_free(&b);
}

/* Commit s, which must work. */
static void
commit(struct syncstate *s)
{
	char	*cause = NULL;

	if (syncstate_commit(s, &cause) != 0)
		fail_msg("commit: %s", cause);
}

/* Save m as the whole state of s, which must work. */
static void
save_all(struct syncstate *s, const struct manifest *m)
{
	char	*cause = NULL;

	if (syncstate_save_all(s, m, &cause) != 0)
		fail_msg("save_all: %s", cause);
}

/* Return the size of name in t's tree, or -1 if there is none. */
static off_t
size_of(struct tmptree *t, const char *name)
{
	struct stat	st;

	if (fstatat(t->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		assert_int_equal(errno, ENOENT);
		return -1;
	}
	return st.st_size;
}

/* Create or replace name in t's tree with len bytes of data. */
static void
file_put(struct tmptree *t, const char *name, const char *data, size_t len)
{
	int	fd;

	fd = openat(t->fd, name, O_WRONLY|O_CREAT|O_TRUNC, 0600);
	assert_true(fd != -1);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* Close and open p's state again: it must be whole and viewable. */
static void
prop_reopen(struct prop *p)
{
	syncstate_close(p->s);
	p->s = open_state(p->t);
	assert_int_equal(syncstate_missing(p->s), 0);
	if (syncstate_no_view(p->s) != NULL)
		fail_msg("round %d: reopened: %s", p->round,
		    syncstate_no_view(p->s));
	p->reopens++;
}

/* Check a view of random paths (sometimes none) against the model. */
static void
prop_view(struct prop *p, const char *when)
{
	char	*v[PROP_SET], what[64];
	size_t	 n;

	n = pick_set(p, v, rnd(p, PROP_SET + 1));
	snprintf(what, sizeof(what), "round %d, %s, view of", p->round, when);
	check_view(what, p->s, p->ref, v, n);
	while (n > 0)
		free(v[--n]);
	p->views++;
}

/*
 * Stage a random change of random scope paths (sometimes none), giving
 * the state only what changed or the whole new tree (it must filter),
 * and update the model by itself.
 */
static void
prop_stage(struct prop *p)
{
	struct manifest	*c = manifest_new(), *next;
	const char	*why;
	char		*v[PROP_SET], *tops[PROP_SET];
	size_t		 n, nt = 0, i, bad;

	n = rnd(p, 20) == 0 ? 0 : pick_set(p, v, 1 + rnd(p, PROP_SET));
	for (i = 0; i < n; i++) {
		if (nt == 0 || !under(v[i], tops[nt - 1]))
			tops[nt++] = v[i];	/* sorted: ancestors first */
	}
	for (i = 0; i < nt; i++)
		gen_content(p, tops[i], c);
	manifest_sort(c);
	next = model_replace(p->ref, tops, nt, c);
	if (manifest_check_tree(next, &bad, &why) != 0)
		fail_msg("round %d: the model is wrong: %s at %s", p->round,
		    why, next->e[bad].path);
	syncstate_stage(p->s, v, n, rnd(p, 3) == 0 ? next : c);
	p->scopes += n;
	while (n > 0)
		free(v[--n]);
	manifest_free(c);
	manifest_free(p->ref);
	p->ref = next;
}

/*
 * Commit p's staged changes and check the files: the log grew and stays
 * under the compaction limit, or it is gone and the manifest (read by
 * manifest_load) is the whole model.
 */
static void
prop_commit(struct prop *p)
{
	struct stat	 mb, ma;
	struct manifest	*m = NULL;
	off_t		 before = size_of(p->t, SS_LOG), after, limit;
	char		*cause = NULL;

	assert_int_equal(fstatat(p->t->fd, SS_NAME, &mb, 0), 0);
	commit(p->s);
	after = size_of(p->t, SS_LOG);
	assert_int_equal(fstatat(p->t->fd, SS_NAME, &ma, 0), 0);
	limit = ma.st_size / 16 > COMPACT_MIN ? ma.st_size / 16 : COMPACT_MIN;
	if (p->scopes == 0) {			/* nothing to write */
		assert_true(after == before && ma.st_ino == mb.st_ino);
		return;
	}
	p->scopes = 0;
	if (after != -1) {
		assert_true(after > before);
		assert_true(after <= limit);
		assert_true(ma.st_ino == mb.st_ino);
		assert_true(ma.st_size == mb.st_size);
		p->appends++;
		return;
	}
	assert_true(ma.st_ino != mb.st_ino);
	if (manifest_load(p->t->fd, SS_NAME, NULL, &m, &cause) != 0)
		fail_msg("round %d: load: %s", p->round, cause);
	assert_same("compacted manifest", m, p->ref);
	manifest_free(m);
	p->compactions++;
}

/* One round: stage (once or twice), commit, maybe reopen, check. */
static void
prop_round(struct prop *p)
{
	char	what[64];
	size_t	i, stages = rnd(p, 3) == 0 ? 2 : 1;

	for (i = 0; i < stages; i++) {
		prop_stage(p);
		if (rnd(p, 2) == 0)
			prop_view(p, "staged");
	}
	prop_commit(p);
	if (syncstate_no_view(p->s) != NULL)
		fail_msg("round %d: committed: %s", p->round,
		    syncstate_no_view(p->s));
	prop_view(p, "committed");
	if (rnd(p, 8) == 0)
		prop_reopen(p);
	snprintf(what, sizeof(what), "round %d, all", p->round);
	check_all(what, p->s, p->ref);
	prop_view(p, "checked");
}

/*
 * Random trees with awkward names, changed at random scope paths for
 * many rounds: the whole state and random views always equal the model,
 * whether read at once, after a reopen or after a compaction.
 */
static void
test_property(void **state)
{
	struct prop	p;

	memset(&p, 0, sizeof(p));
	p.t = *state;
	p.rng = PROP_SEED;
	p.ref = manifest_new();
	gen_children(&p, p.ref, "", 12);
	manifest_sort(p.ref);
	p.s = open_state(p.t);
	assert_int_equal(syncstate_missing(p.s), 1);
	save_all(p.s, p.ref);
	assert_int_equal(size_of(p.t, SS_LOG), -1);
	check_all("saved", p.s, p.ref);
	prop_reopen(&p);
	check_all("reopened", p.s, p.ref);
	for (p.round = 0; p.round < PROP_ROUNDS; p.round++)
		prop_round(&p);
	print_message("%zu entries at the end; %zu appends, %zu compactions, "
	    "%zu reopens, %zu views\n", p.ref->n, p.appends, p.compactions,
	    p.reopens, p.views);
	assert_true(p.compactions >= 3);
	assert_true(p.appends >= 100);
	assert_true(p.reopens >= 10);
	syncstate_close(p.s);
	manifest_free(p.ref);
}

/* The small tree of the fixed tests: a/, a/x, b, d/, d/y/, d/y/z. */
static struct manifest *
small_tree(void)
{
	struct manifest	*m = manifest_new();

	add(m, "a", MANIFEST_DIR);
	add(m, "a/x", MANIFEST_FILE);
	add(m, "b", MANIFEST_FILE);
	add(m, "d", MANIFEST_DIR);
	add(m, "d/y", MANIFEST_DIR);
	add(m, "d/y/z", MANIFEST_FILE);
	return m;
}

/*
 * Stage in s path as a file of size n, or (with dir set) as a directory
 * of n files; return ref so changed.
 */
static struct manifest *
stage(struct syncstate *s, const struct manifest *ref, const char *path,
    size_t n, int dir)
{
	struct manifest	*c = manifest_new(), *next;
	char		*v[1], *f;
	size_t		 i;

	v[0] = xstrdup(path);
	if (dir)
		add(c, path, MANIFEST_DIR);
	else
		add(c, path, MANIFEST_FILE)->size = n;
	for (i = 0; dir && i < n; i++) {
		f = xasprintf("%s/f%05zu", path, i);
		add(c, f, MANIFEST_FILE);
		free(f);
	}
	next = model_replace(ref, v, 1, c);
	syncstate_stage(s, v, 1, c);
	manifest_free(c);
	free(v[0]);
	return next;
}

/* Replace *ref by next. */
static void
swap(struct manifest **ref, struct manifest *next)
{
	manifest_free(*ref);
	*ref = next;
}

/* A log naming an older manifest is ignored, then started anew. */
static void
test_old_log(void **state)
{
	struct tmptree		*t = *state;
	struct syncstate	*s = open_state(t);
	struct manifest		*m1 = small_tree(), *m2 = small_tree(), *ref;
	char			 p0[] = "a", p1[] = "d/y/z", *v[] = { p0, p1 };

	save_all(s, m1);
	ref = stage(s, m1, "a", 5, 1);		/* longer than the next */
	commit(s);
	assert_int_equal(renameat(t->fd, SS_LOG, t->fd, "old"), 0);
	add(m2, "c", MANIFEST_FILE);		/* another size */
	manifest_sort(m2);
	save_all(s, m2);
	syncstate_close(s);
	assert_int_equal(renameat(t->fd, "old", t->fd, SS_LOG), 0);
	s = open_state(t);
	assert_null(syncstate_no_view(s));
	check_view("old log", s, m2, v, NITEMS(v));
	check_all("old log", s, m2);
	swap(&ref, stage(s, m2, "b", 99, 0));
	commit(s);
	syncstate_close(s);
	s = open_state(t);
	assert_null(syncstate_no_view(s));
	check_all("after the old log", s, ref);
	check_view("after the old log", s, ref, v, NITEMS(v));
	syncstate_close(s);
	manifest_free(m1);
	manifest_free(m2);
	manifest_free(ref);
}

/* The log header for the manifest now in t's tree (as syncstate.h says). */
static char *
log_header(struct tmptree *t)
{
	struct stat	st;

	assert_int_equal(fstatat(t->fd, SS_NAME, &st, 0), 0);
	return xasprintf("clawssh-manifest-log 1 %llu %lld %lld.%09ld\n",
	    (unsigned long long)st.st_ino, (long long)st.st_size,
	    (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
}

/* Entry lines of the text format, for logs written by hand. */
#define LINE_AY	"f 644 7 1700000000.000000005 - a/y -\n"
#define LINE_B	"l 777 1 1700000000.000000000 - b t\n"
#define GOOD	"S b\n" LINE_B ".\n"	/* b: a link */

/* Logs that are damaged after a good block, each in its own way. */
static const char *const damaged[] = {
	"S a\n" LINE_AY,			/* cut short */
	"S a\n" LINE_AY ".",			/* cut in a line */
	"S a\n.\nS d",				/* cut in a scope line */
	"S a\ngarbage\n.\n",			/* a garbage line */
	"garbage\n",				/* one before a scope */
	"S a\n" LINE_B ".\n",			/* outside the scope */
	"S d\nS a\n.\n",			/* scopes out of order */
	"S a\nS a/x\n.\n",			/* a scope below another */
	"S a\nS a\n.\n",			/* a scope twice */
	"S a\n" LINE_AY "S d\n.\n",		/* a scope after entries */
	"S a\n" LINE_AY LINE_AY ".\n",		/* an entry twice */
	".\n",					/* no scope */
	"S \n.\n",				/* an empty scope */
	"S a/../b\n.\n",			/* a bad scope path */
};

/*
 * With the damaged log of case i beside it, only the manifest (base) is
 * used; a commit then writes it whole.  Returns base so changed.
 */
static struct manifest *
check_damaged(struct tmptree *t, size_t i, const struct manifest *base)
{
	struct syncstate	*s;
	struct manifest		*got = NULL, *next;
	struct buf		 b = BUF_INIT;
	char			*head = log_header(t), *cause = NULL;
	char			p0[] = "a", *v[] = { p0 }, what[32];

	buf_appendf(&b, "%s%s%s", head, GOOD, damaged[i]);
	file_put(t, SS_LOG, b.data, b.len);
	s = open_state(t);
	if (syncstate_no_view(s) == NULL)
		fail_msg("damaged log %zu taken", i);
	assert_int_equal(syncstate_view(s, v, 1, &got, &cause),
	    CLAW_ERR_UNSUPPORTED);
	assert_null(got);
	assert_non_null(cause);
	snprintf(what, sizeof(what), "damaged log %zu", i);
	check_all(what, s, base);
	next = stage(s, base, "c", i, 0);
	commit(s);
	syncstate_close(s);
	assert_int_equal(size_of(t, SS_LOG), -1);
	free(cause);
	free(head);
	buf_free(&b);
	return next;
}

/*
 * A damaged log leaves the manifest alone usable (its good blocks are
 * not used either); the next commit rewrites the manifest and removes
 * the log.  A good log with the same header is used, so the header is
 * right.
 */
static void
test_damaged_log(void **state)
{
	struct tmptree		*t = *state;
	struct syncstate	*s = open_state(t);
	struct manifest		*ref = small_tree(), *c = manifest_new(), *next;
	char			*head, *good, p0[] = "b", *v[] = { p0 };
	size_t			 i;

	save_all(s, ref);
	syncstate_close(s);
	head = log_header(t);
	good = xasprintf("%s%s", head, GOOD);
	file_put(t, SS_LOG, good, strlen(good));
	add(c, "b", MANIFEST_LINK)->mode = 0777;
	next = model_replace(ref, v, 1, c);
	s = open_state(t);
	assert_null(syncstate_no_view(s));
	check_all("good log", s, next);
	check_view("good log", s, next, v, 1);
	syncstate_close(s);
	manifest_free(next);
	manifest_free(c);
	free(good);
	for (i = 0; i < NITEMS(damaged); i++) {
		next = check_damaged(t, i, ref);
		s = open_state(t);
		assert_null(syncstate_no_view(s));
		check_all("rewritten", s, next);
		check_view("rewritten", s, next, v, 1);
		syncstate_close(s);
		swap(&ref, next);
	}
	free(head);
	manifest_free(ref);
}

/*
 * Write m as t's manifest by hand: its lines in order, but the line of
 * move (if not NULL) last and the line of bad (if not NULL) replaced by
 * line.
 */
static void
put_manifest(struct tmptree *t, const struct manifest *m, const char *move,
    const char *bad, const char *line)
{
	struct buf	b = BUF_INIT;
	size_t		i, k = m->n;

	buf_append_str(&b, MANIFEST_TEXT_HEADER);
	for (i = 0; i < m->n; i++) {
		if (move != NULL && strcmp(m->e[i].path, move) == 0)
			k = i;
		else if (bad != NULL && strcmp(m->e[i].path, bad) == 0)
			buf_append_str(&b, line);
		else
			manifest_format_line(&b, &m->e[i]);
	}
	if (k < m->n)
		manifest_format_line(&b, &m->e[k]);
	file_put(t, SS_NAME, b.data, b.len);
	buf_free(&b);
}

/*
 * The manifest in t's tree is damaged: a view of path fails (with
 * CLAW_ERR_PARSE where it looks whole, unsupported where noview says it
 * is not a manifest), and so does syncstate_all.
 */
static void
check_bad(struct tmptree *t, const char *path, int noview)
{
	struct syncstate	*s = open_state(t);
	struct manifest		*got = NULL;
	char			*cause = NULL, *v[1];

	v[0] = xstrdup(path);
	assert_int_equal(syncstate_missing(s), 0);
	assert_int_equal(syncstate_no_view(s) != NULL, noview);
	assert_int_equal(syncstate_view(s, v, 1, &got, &cause),
	    noview ? CLAW_ERR_UNSUPPORTED : CLAW_ERR_PARSE);
	assert_null(got);
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	assert_int_equal(syncstate_all(s, &got, &cause), CLAW_ERR_PARSE);
	assert_null(got);
	assert_non_null(cause);
	free(cause);
	free(v[0]);
	syncstate_close(s);
}

/*
 * A damaged manifest: lines out of order (a lookup finds a misplaced
 * line, not its parent) or malformed where a lookup reads make the view
 * fail (CLAW_ERR_PARSE), not crash; views elsewhere still work.  A file
 * that is not a manifest is not viewed at all.
 */
static void
test_damaged_manifest(void **state)
{
	struct tmptree		*t = *state;
	struct syncstate	*s;
	struct manifest		*m = small_tree();
	char			 p0[] = "a", *v[] = { p0 };
	size_t			 i;
	static const char *const junk[] = { "hello\n", "", "clawssh-manifest "
	    "2\n", MANIFEST_TEXT_HEADER "d 755 0 0.000000000 - a -" };

	put_manifest(t, m, "d", NULL, NULL);	/* d moved last */
	check_bad(t, "d", 0);
	s = open_state(t);
	check_view("away from the damage", s, m, v, 1);
	syncstate_close(s);
	put_manifest(t, m, NULL, "d/y", "garbage\n");
	check_bad(t, "d", 0);
	put_manifest(t, m, NULL, "d/y/z", "f 999 1 0.000000000 - d/y/z -\n");
	check_bad(t, "d", 0);
	put_manifest(t, m, NULL, "d/y/z", "f 644 1 0.000000000 - d/y/z\n");
	check_bad(t, "d/y", 0);
	file_put(t, SS_NAME, MANIFEST_TEXT_HEADER "garbage\n",
	    strlen(MANIFEST_TEXT_HEADER "garbage\n"));
	check_bad(t, "x", 0);
	for (i = 0; i < NITEMS(junk); i++) {
		file_put(t, SS_NAME, junk[i], strlen(junk[i]));
		check_bad(t, "a", 1);
	}
	manifest_free(m);
}

/*
 * Nothing saved: missing, no views, no whole state; the first commit
 * writes the manifest whole (no log) and the handle goes on with it.
 */
static void
test_missing(void **state)
{
	struct tmptree		*t = *state;
	struct syncstate	*s = open_state(t);
	struct manifest		 sentinel, *got = &sentinel, *empty, *ref;
	char			*cause = NULL, p0[] = "a", *v[] = { p0 };

	assert_int_equal(syncstate_missing(s), 1);
	assert_non_null(syncstate_no_view(s));
	assert_int_equal(syncstate_view(s, v, 1, &got, &cause),
	    CLAW_ERR_UNSUPPORTED);
	assert_ptr_equal(got, &sentinel);
	assert_non_null(cause);
	free(cause);
	assert_int_equal(syncstate_all(s, &got, &cause), 0);
	assert_null(got);
	empty = manifest_new();
	ref = stage(s, empty, "a", 3, 0);
	commit(s);
	assert_true(size_of(t, SS_NAME) > 0);
	assert_int_equal(size_of(t, SS_LOG), -1);
	check_all("first commit", s, ref);
	syncstate_close(s);
	s = open_state(t);
	assert_int_equal(syncstate_missing(s), 0);
	assert_null(syncstate_no_view(s));
	check_all("first commit, reopened", s, ref);
	check_view("first commit, reopened", s, ref, v, 1);
	syncstate_close(s);
	manifest_free(empty);
	manifest_free(ref);
}

/*
 * A handle goes on after syncstate_save_all and after a compaction: its
 * views, whole state and later commits start from what was saved, not
 * from the manifest it mapped first.  An empty stage writes no block.
 */
static void
test_reuse_after_save(void **state)
{
	struct tmptree		*t = *state;
	struct syncstate	*s = open_state(t);
	struct manifest		*ref = small_tree();
	char			p0[] = "big", p1[] = "c", p2[] = "e";
	char			*v[] = { p0, p1, p2 };

	save_all(s, ref);
	assert_null(syncstate_no_view(s));
	check_all("saved", s, ref);
	swap(&ref, stage(s, ref, "c", 1, 0));
	commit(s);
	assert_true(size_of(t, SS_LOG) > 0);
	check_all("committed", s, ref);
	swap(&ref, stage(s, ref, "big", 2000, 1));
	commit(s);
	assert_int_equal(size_of(t, SS_LOG), -1);	/* compacted */
	assert_null(syncstate_no_view(s));
	check_all("compacted", s, ref);
	check_view("compacted", s, ref, v, NITEMS(v));
	syncstate_stage(s, v, 0, ref);		/* changes nothing */
	check_all("empty stage", s, ref);
	swap(&ref, stage(s, ref, "e", 2, 0));
	commit(s);
	assert_true(size_of(t, SS_LOG) > 0);
	check_all("after the compaction", s, ref);
	syncstate_close(s);
	s = open_state(t);
	assert_null(syncstate_no_view(s));
	check_all("reopened", s, ref);
	check_view("reopened", s, ref, v, NITEMS(v));
	syncstate_close(s);
	manifest_free(ref);
}

int
main(void)
{
#define T(fn)	cmocka_unit_test_setup_teardown(fn, tmptree_setup, tmptree_teardown)
	const struct CMUnitTest	tests[] = {
		T(test_property),
		T(test_old_log),
		T(test_damaged_log),
		T(test_damaged_manifest),
		T(test_missing),
		T(test_reuse_after_save),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
