/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for manifests on disk: scanning real trees (links, FIFOs, the
 * skip callback, hashing and hash reuse), save and load, and the remote
 * listing script run for real by /bin/sh against a scan of the same tree.
 * Each test works in its own mkdtemp directory, removed afterwards.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
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
#include <openssl/evp.h>

#include "compat.h"
#include "buf.h"
#include "capture.h"
#include "error.h"
#include "manifest.h"
#include "xmalloc.h"
#include "tmpdir.h"

#define SHA_ABC	"\xba\x78\x16\xbf\x8f\x01\xcf\xea\x41\x41\x40\xde\x5d\xae" \
		"\x22\x23\xb0\x03\x61\xa3\x96\x17\x7a\x9c\xb4\x10\xff\x61" \
		"\xf2\x00\x15\xad"

/* Create the file path in dirfd holding content, with mode. */
static void
put(int dirfd, const char *path, const char *content, mode_t mode)
{
	size_t	len = strlen(content);
	int	fd;

	fd = openat(dirfd, path, O_WRONLY|O_CREAT|O_TRUNC, 0600);
	assert_true(fd != -1);
	assert_int_equal(write(fd, content, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
}

/* Create the directory path in dirfd with mode. */
static void
mkd(int dirfd, const char *path, mode_t mode)
{
	assert_int_equal(mkdirat(dirfd, path, 0700), 0);
	assert_int_equal(fchmodat(dirfd, path, mode, 0), 0);
}

/* Set the mtime of path in dirfd, not following a final symlink. */
static void
set_mtime(int dirfd, const char *path, time_t sec, long nsec)
{
	struct timespec	ts[2] = { { 0, UTIME_OMIT }, { sec, nsec } };

	assert_int_equal(utimensat(dirfd, path, ts, AT_SYMLINK_NOFOLLOW), 0);
}

/* Scan t's tree, which must succeed. */
static struct manifest *
scan(struct tmptree *t, const struct manifest *prev, manifest_skip_cb skip,
    void *arg, int flags)
{
	struct manifest	*m = NULL;
	char		*cause = NULL;

	if (manifest_scan(t->fd, prev, skip, arg, flags, &m, &cause) != 0)
		fail_msg("scan failed: %s", cause);
	return m;
}

/* Return the entry for path, which must exist. */
static const struct manifest_entry *
get(const struct manifest *m, const char *path)
{
	const struct manifest_entry	*e;

	if ((e = manifest_find(m, path)) == NULL)
		fail_msg("no entry %s", path);
	return e;
}

/* Assert that e's size, mtime and mode are those lstat gives for it. */
static void
assert_stat(int dirfd, const struct manifest_entry *e)
{
	struct stat	st;

	assert_int_equal(fstatat(dirfd, e->path, &st, AT_SYMLINK_NOFOLLOW), 0);
	assert_true(e->mtime_sec == st.st_mtim.tv_sec);
	assert_int_equal(e->mtime_nsec, st.st_mtim.tv_nsec);
	assert_int_equal(e->mode, st.st_mode & 0777);
	if (e->type != MANIFEST_DIR)
		assert_true(e->size == (uint64_t)st.st_size);
}

/* Files, nested directories and links are recorded; links not followed. */
static void
test_scan_tree(void **state)
{
	static const char	*want[] = { "a.txt", "dangling", "dir",
	    "dir/b c", "dir/sub", "dir/sub/deep.txt", "dlink", "link" };
	struct tmptree		*t = *state;
	struct manifest		*m;
	size_t			 i;

	put(t->fd, "a.txt", "hello", 0640);
	mkd(t->fd, "dir", 0750);
	put(t->fd, "dir/b c", "", 0600);
	mkd(t->fd, "dir/sub", 0700);
	put(t->fd, "dir/sub/deep.txt", "deep", 0444);
	assert_int_equal(symlinkat("a.txt", t->fd, "link"), 0);
	assert_int_equal(symlinkat("dir", t->fd, "dlink"), 0);
	assert_int_equal(symlinkat("/nonexistent/x", t->fd, "dangling"), 0);
	assert_int_equal(mkfifoat(t->fd, "fifo", 0600), 0);
	assert_int_equal(mkfifoat(t->fd, "dir/sub/fifo2", 0600), 0);
	m = scan(t, NULL, NULL, NULL, 0);
	assert_int_equal(m->n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < m->n; i++) {
		assert_string_equal(m->e[i].path, want[i]);
		assert_int_equal(m->e[i].have_hash, 0);
		assert_stat(t->fd, &m->e[i]);
	}
	assert_int_equal(get(m, "a.txt")->type, MANIFEST_FILE);
	assert_int_equal(get(m, "a.txt")->mode, 0640);
	assert_true(get(m, "a.txt")->size == 5);
	assert_null(get(m, "a.txt")->link);
	assert_int_equal(get(m, "dir")->type, MANIFEST_DIR);
	assert_true(get(m, "dir")->size == 0);
	assert_int_equal(get(m, "dir/sub/deep.txt")->mode, 0444);
	assert_int_equal(get(m, "dlink")->type, MANIFEST_LINK);
	assert_string_equal(get(m, "dlink")->link, "dir");
	assert_string_equal(get(m, "link")->link, "a.txt");
	assert_string_equal(get(m, "dangling")->link, "/nonexistent/x");
	assert_null(manifest_find(m, "fifo"));
	manifest_free(m);
}

/* What the skip callback saw, and whether it may fail. */
struct skiplog {
	struct buf	 b;
	const char	*fail_at;	/* return CLAW_ERR_PERM for this */
};

/* Log every call; leave out *.log files and dir/skipme. */
static int
skip_cb(void *arg, int dirfd, const char *reldir, const char *relpath,
    int is_dir)
{
	struct skiplog	*l = arg;
	size_t		 len;
	int		 ign;

	if (relpath == NULL) {
		ign = faccessat(dirfd, ".ignore", F_OK, AT_SYMLINK_NOFOLLOW);
		buf_appendf(&l->b, "D[%s]%s|", reldir, ign == 0 ? "+ign" : "");
		return 0;
	}
	buf_appendf(&l->b, "E[%s]%d|", relpath, is_dir);
	if (l->fail_at != NULL && strcmp(relpath, l->fail_at) == 0)
		return CLAW_ERR_PERM;
	len = strlen(relpath);
	return (len > 4 && strcmp(relpath + len - 4, ".log") == 0) ||
	    strcmp(relpath, "dir/skipme") == 0;
}

/* Return the offset of token in the log, which must be there. */
static size_t
at(const struct skiplog *l, const char *token)
{
	const char	*p;

	if ((p = strstr(l->b.data, token)) == NULL)
		fail_msg("no %s in %s", token, l->b.data);
	return (size_t)(p - l->b.data);
}

/* Build the tree used by the skip tests. */
static void
skip_tree(struct tmptree *t)
{
	put(t->fd, "a", "", 0644);
	put(t->fd, "x.log", "", 0644);
	mkd(t->fd, "dir", 0755);
	put(t->fd, "dir/.ignore", "*.log\n", 0644);
	put(t->fd, "dir/keep", "", 0644);
	put(t->fd, "dir/y.log", "", 0644);
	mkd(t->fd, "dir/skipme", 0755);
	put(t->fd, "dir/skipme/inner", "", 0644);
	assert_int_equal(mkfifoat(t->fd, "ff", 0600), 0);
}

/* The callback hears of each directory first and can leave entries out. */
static void
test_scan_skip(void **state)
{
	static const char	*want[] = { "a", "dir", "dir/.ignore",
	    "dir/keep" };
	struct tmptree		*t = *state;
	struct skiplog		 l = { BUF_INIT, NULL };
	struct manifest		*m;
	size_t			 i, d;

	skip_tree(t);
	m = scan(t, NULL, skip_cb, &l, 0);
	assert_int_equal(m->n, 4);
	for (i = 0; i < m->n; i++)
		assert_string_equal(m->e[i].path, want[i]);
	assert_int_equal(at(&l, "D[]|"), 0);
	d = at(&l, "D[dir]+ign|");
	assert_true(at(&l, "E[dir]1|") < d);
	assert_true(at(&l, "E[a]0|") < d);
	assert_true(at(&l, "E[x.log]0|") < d);
	assert_true(at(&l, "E[dir/keep]0|") > d);
	assert_true(at(&l, "E[dir/y.log]0|") > d);
	assert_true(at(&l, "E[dir/skipme]1|") > d);
	assert_null(strstr(l.b.data, "D[dir/skipme]"));
	assert_null(strstr(l.b.data, "inner"));
	assert_null(strstr(l.b.data, "ff"));
	buf_free(&l.b);
	manifest_free(m);
}

/* A failing callback stops the scan with its code and a cause. */
static void
test_scan_skip_fail(void **state)
{
	struct tmptree	*t = *state;
	struct skiplog	 l = { BUF_INIT, "dir/keep" };
	struct manifest	*m = (struct manifest *)&l;
	char		*cause = NULL;

	skip_tree(t);
	assert_int_equal(manifest_scan(t->fd, NULL, skip_cb, &l, 0, &m,
	    &cause), CLAW_ERR_PERM);
	assert_ptr_equal(m, &l);
	assert_non_null(strstr(cause, "dir/keep"));
	free(cause);
	buf_free(&l.b);
}

/* Return the SHA-256 of len bytes at p. */
static void
sha256(const void *p, size_t len, unsigned char *md)
{
	assert_int_equal(EVP_Digest(p, len, md, NULL, EVP_sha256(), NULL), 1);
}

/* Files are hashed only with the flag; big files over many reads. */
static void
test_scan_hash(void **state)
{
	struct tmptree	*t = *state;
	struct manifest	*m;
	unsigned char	 md[MANIFEST_HASH_LEN];
	char		*big;
	size_t		 i, len = 200000;

	big = xmalloc(len + 1);
	for (i = 0; i < len; i++)
		big[i] = (char)('a' + i * 7 % 26);
	big[len] = '\0';
	put(t->fd, "abc", "abc", 0644);
	put(t->fd, "big", big, 0644);
	mkd(t->fd, "d", 0755);
	assert_int_equal(symlinkat("abc", t->fd, "l"), 0);
	m = scan(t, NULL, NULL, NULL, 0);
	for (i = 0; i < m->n; i++)
		assert_int_equal(m->e[i].have_hash, 0);
	manifest_free(m);
	m = scan(t, NULL, NULL, NULL, MANIFEST_HASH_CHANGED);
	assert_true(get(m, "abc")->have_hash);
	assert_memory_equal(get(m, "abc")->hash, SHA_ABC, MANIFEST_HASH_LEN);
	sha256(big, len, md);
	assert_true(get(m, "big")->have_hash);
	assert_memory_equal(get(m, "big")->hash, md, MANIFEST_HASH_LEN);
	assert_int_equal(get(m, "d")->have_hash, 0);
	assert_int_equal(get(m, "l")->have_hash, 0);
	manifest_free(m);
	free(big);
}

/* An unchanged size and mtime reuse prev's hash without reading. */
static void
test_scan_hash_reuse(void **state)
{
	struct tmptree			*t = *state;
	struct manifest			*m1, *m2;
	const struct manifest_entry	*e;
	unsigned char			 md[MANIFEST_HASH_LEN];

	put(t->fd, "f", "abc", 0644);
	set_mtime(t->fd, "f", 1600000000, 123456789);
	m1 = scan(t, NULL, NULL, NULL, MANIFEST_HASH_CHANGED);
	assert_memory_equal(get(m1, "f")->hash, SHA_ABC, MANIFEST_HASH_LEN);
	put(t->fd, "f", "xyz", 0644);
	set_mtime(t->fd, "f", 1600000000, 123456789);
	m2 = scan(t, m1, NULL, NULL, MANIFEST_HASH_CHANGED);
	assert_memory_equal(get(m2, "f")->hash, SHA_ABC, MANIFEST_HASH_LEN);
	manifest_free(m2);
	sha256("xyz", 3, md);
	m2 = scan(t, NULL, NULL, NULL, MANIFEST_HASH_CHANGED);
	assert_memory_equal(get(m2, "f")->hash, md, MANIFEST_HASH_LEN);
	manifest_free(m2);
	m2 = scan(t, m1, NULL, NULL, 0);
	assert_int_equal(get(m2, "f")->have_hash, 0);
	manifest_free(m2);
	set_mtime(t->fd, "f", 1600000000, 123456780);
	m2 = scan(t, m1, NULL, NULL, MANIFEST_HASH_CHANGED);
	e = get(m2, "f");
	assert_int_equal(e->mtime_nsec, 123456780);
	assert_memory_equal(e->hash, md, MANIFEST_HASH_LEN);
	manifest_free(m2);
	manifest_free(m1);
}

/* Return the number of changes from a to b. */
static size_t
count_changes(const struct manifest *a, const struct manifest *b, int *kind)
{
	struct manifest_change	*c = NULL;
	size_t			 n = 0;

	assert_int_equal(manifest_diff(a, b, &c, &n), 0);
	*kind = n == 0 ? 0 : c[0].kind;
	free(c);
	return n;
}

/* A touch-only change is no change when hashed, a change when not. */
static void
test_scan_touch_only(void **state)
{
	struct tmptree	*t = *state;
	struct manifest	*h1, *h2, *p1, *p2;
	int		 kind;

	put(t->fd, "f", "same", 0644);
	set_mtime(t->fd, "f", 1500000000, 0);
	h1 = scan(t, NULL, NULL, NULL, MANIFEST_HASH_CHANGED);
	p1 = scan(t, NULL, NULL, NULL, 0);
	set_mtime(t->fd, "f", 1500000001, 0);
	h2 = scan(t, h1, NULL, NULL, MANIFEST_HASH_CHANGED);
	p2 = scan(t, NULL, NULL, NULL, 0);
	assert_int_equal(count_changes(h1, h2, &kind), 0);
	assert_int_equal(count_changes(p1, p2, &kind), 1);
	assert_int_equal(kind, MANIFEST_CH_MODIFIED);
	manifest_free(h2);
	assert_int_equal(fchmodat(t->fd, "f", 0600, 0), 0);
	h2 = scan(t, h1, NULL, NULL, MANIFEST_HASH_CHANGED);
	assert_int_equal(count_changes(h1, h2, &kind), 1);
	assert_int_equal(kind, MANIFEST_CH_MODE);
	manifest_free(h1);
	manifest_free(h2);
	manifest_free(p1);
	manifest_free(p2);
}

/* Nest n directories called "d" below t's tree. */
static void
nest(struct tmptree *t, int n)
{
	int	fd, next, i;

	fd = dup(t->fd);
	for (i = 0; i < n; i++) {
		if (mkdirat(fd, "d", 0755) != 0 && errno != EEXIST)
			fail_msg("mkdir: %s", strerror(errno));
		next = openat(fd, "d", O_RDONLY|O_DIRECTORY);
		assert_true(next != -1);
		close(fd);
		fd = next;
	}
	close(fd);
}

/* Return "d/d/.../d", n components (allocated). */
static char *
nest_path(int n)
{
	struct buf	b = BUF_INIT;
	int		i;

	for (i = 0; i < n; i++)
		buf_append_str(&b, i == 0 ? "d" : "/d");
	buf_append(&b, "", 1);
	return buf_detach(&b);
}

/* Assert m holds exactly the chain d, d/d, ... of n components. */
static void
assert_chain(const struct manifest *m, int n)
{
	char	*want;

	assert_int_equal(m->n, n);
	want = nest_path(n);
	assert_string_equal(m->e[n - 1].path, want);
	free(want);
}

/*
 * Nesting is walked to MANIFEST_MAX_DEPTH components; what lies deeper
 * is left out with one warning naming its top, and the scan works (it
 * once failed, and so did every exec after a pull brought such a tree).
 */
static void
test_scan_depth(void **state)
{
	struct tmptree	*t = *state;
	struct manifest	*m;
	char		*err, *top;
	int		 fd, saved;

	nest(t, MANIFEST_MAX_DEPTH);
	fd = capture_begin(&saved);
	m = scan(t, NULL, NULL, NULL, 0);
	err = capture_end(fd, saved);
	assert_chain(m, MANIFEST_MAX_DEPTH);
	assert_string_equal(err, "");
	manifest_free(m);
	free(err);
	nest(t, 300);
	fd = capture_begin(&saved);
	m = scan(t, NULL, NULL, NULL, MANIFEST_HASH_CHANGED);
	err = capture_end(fd, saved);
	assert_chain(m, MANIFEST_MAX_DEPTH);
	top = nest_path(MANIFEST_MAX_DEPTH + 1);
	assert_int_equal(capture_count(err, "warning: "), 1);
	assert_non_null(strstr(err, top));
	free(top);
	top = nest_path(MANIFEST_MAX_DEPTH + 2);
	assert_null(strstr(err, top));		/* the top, not below */
	assert_non_null(strstr(err, "it stays local, not sent"));
	manifest_free(m);
	free(err);
	free(top);
}

/* The limits: depth in components, length in bytes, the top returned. */
static void
test_path_over(void **state)
{
	char	*p, *q;

	(void)state;
	p = nest_path(MANIFEST_MAX_DEPTH);
	assert_true(manifest_path_over(p, strlen(p)) == 0);
	free(p);
	p = nest_path(300);
	q = nest_path(MANIFEST_MAX_DEPTH + 1);
	assert_true(manifest_path_over(p, strlen(p)) == strlen(q));
	free(p);
	free(q);
	p = xmalloc(MANIFEST_PATH_MAX + 10);
	memset(p, 'a', MANIFEST_PATH_MAX + 9);
	p[MANIFEST_PATH_MAX + 9] = '\0';
	assert_true(manifest_path_over(p, MANIFEST_PATH_MAX) == 0);
	assert_true(manifest_path_over(p, MANIFEST_PATH_MAX + 1) ==
	    MANIFEST_PATH_MAX + 1);
	p[100] = '/';
	p[MANIFEST_PATH_MAX + 2] = '/';
	assert_true(manifest_path_over(p, MANIFEST_PATH_MAX + 9) ==
	    MANIFEST_PATH_MAX + 2);
	free(p);
}

/* A directory that cannot be read fails the scan rather than hiding. */
static void
test_scan_unreadable(void **state)
{
	struct tmptree	*t = *state;
	struct manifest	*m = NULL;
	char		*cause = NULL;
	int		 r;

	if (geteuid() == 0)
		skip();
	mkd(t->fd, "closed", 0755);
	put(t->fd, "closed/f", "", 0644);
	assert_int_equal(fchmodat(t->fd, "closed", 0, 0), 0);
	r = manifest_scan(t->fd, NULL, NULL, NULL, 0, &m, &cause);
	assert_int_equal(fchmodat(t->fd, "closed", 0755, 0), 0);
	assert_int_equal(r, CLAW_ERR_PERM);
	assert_null(m);
	assert_non_null(strstr(cause, "closed"));
	free(cause);
}

/*
 * Assert that b holds the entries of a; if coarse, b's mtimes are whole
 * seconds (nanoseconds 0).
 */
static void
assert_same(const struct manifest *a, const struct manifest *b, int coarse)
{
	const struct manifest_entry	*x, *y;
	size_t				 i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		x = &a->e[i];
		y = &b->e[i];
		assert_string_equal(x->path, y->path);
		assert_int_equal(x->type, y->type);
		assert_true(x->size == y->size);
		assert_true(x->mtime_sec == y->mtime_sec);
		assert_int_equal(y->mtime_nsec, coarse ? 0 : x->mtime_nsec);
		assert_int_equal(x->mode, y->mode);
		assert_int_equal(x->have_hash, y->have_hash);
		assert_memory_equal(x->hash, y->hash, MANIFEST_HASH_LEN);
		if (x->link == NULL || y->link == NULL)
			assert_ptr_equal(x->link, y->link);
		else
			assert_string_equal(x->link, y->link);
	}
}

/* Return the names in dirfd, sorted and joined by ','. */
static char *
list_dir(int dirfd)
{
	struct dirent	**names;
	struct buf	  b = BUF_INIT;
	char		  path[64];
	int		  n, i;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", dirfd);
	assert_true((n = scandir(path, &names, NULL, alphasort)) >= 0);
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.')
			buf_appendf(&b, "%s,", names[i]->d_name);
		free(names[i]);
	}
	free(names);
	return buf_detach(&b);
}

/* Return the contents of name in dirfd. */
static char *
slurp(int dirfd, const char *name)
{
	struct buf	b = BUF_INIT;
	char		chunk[4096];
	ssize_t		n;
	int		fd;

	assert_true((fd = openat(dirfd, name, O_RDONLY)) != -1);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_append(&b, chunk, (size_t)n);
	close(fd);
	return buf_detach(&b);
}

/* Save writes the text format atomically; load reads it back. */
static void
test_save_load(void **state)
{
	struct tmptree	*t = *state;
	struct manifest	*m, *back = NULL;
	char		*cause = NULL, *names, *text, *saved;
	size_t		 len;

	put(t->fd, "f", "abc", 0644);
	mkd(t->fd, "d e", 0700);
	assert_int_equal(symlinkat("-", t->fd, "d e/l"), 0);
	m = scan(t, NULL, NULL, NULL, MANIFEST_HASH_CHANGED);
	assert_int_equal(manifest_save(t->topfd, "state", m, &cause), 0);
	assert_int_equal(manifest_load(t->topfd, "state", NULL, &back,
	    &cause), 0);
	assert_same(m, back, 0);
	manifest_free(back);
	names = list_dir(t->topfd);
	assert_string_equal(names, "state,tree,");
	free(names);
	put(t->fd, "g", "", 0644);
	manifest_free(m);
	m = scan(t, NULL, NULL, NULL, 0);
	assert_int_equal(manifest_save(t->topfd, "state", m, &cause), 0);
	assert_int_equal(manifest_load(t->topfd, "state", NULL, &back,
	    &cause), 0);
	assert_same(m, back, 0);
	text = manifest_format(m, &len);
	saved = slurp(t->topfd, "state");
	assert_string_equal(saved, text);
	free(saved);
	free(text);
	manifest_free(back);
	manifest_free(m);
	names = list_dir(t->topfd);
	assert_string_equal(names, "state,tree,");
	free(names);
}

/* Load one name that must fail with r and a cause holding want. */
static void
load_fails(struct tmptree *t, const char *name,
    const struct manifest_limits *lim, int r, const char *want)
{
	struct manifest	*m = (struct manifest *)t;
	char		*cause = NULL;

	assert_int_equal(manifest_load(t->topfd, name, lim, &m, &cause), r);
	assert_ptr_equal(m, t);
	if (cause == NULL || strstr(cause, want) == NULL)
		fail_msg("want \"%s\", got \"%s\"", want, cause);
	free(cause);
}

/* Missing, oversized, malformed, linked and non-regular files fail. */
static void
test_load_errors(void **state)
{
	struct tmptree		*t = *state;
	struct manifest_limits	 lim;

	load_fails(t, "missing", NULL, CLAW_ERR_NOTFOUND, "missing");
	put(t->topfd, "bad", "clawssh-manifest 1\nf 644\n", 0644);
	load_fails(t, "bad", NULL, CLAW_ERR_PARSE,
	    "bad: line 2: wrong number of fields");
	manifest_limits_default(&lim);
	lim.max_text = 10;
	load_fails(t, "bad", &lim, CLAW_ERR_PARSE, "bad: larger than the "
	    "limit (max_text)");
	assert_int_equal(symlinkat("bad", t->topfd, "link"), 0);
	load_fails(t, "link", NULL, CLAW_ERR_IO, "link: cannot open");
	load_fails(t, "tree", NULL, CLAW_ERR_PARSE, "not a regular file");
}

/* Run the remote script in dir with PATH=path; stdout into out. */
static int
run_script(const char *dir, const char *path, struct buf *out)
{
	char	 env[512], chunk[4096], *envp[] = { env, NULL };
	ssize_t	 n;
	pid_t	 pid;
	int	 p[2], status;

	snprintf(env, sizeof(env), "PATH=%s", path);
	assert_int_equal(pipe(p), 0);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		if (chdir(dir) != 0 || dup2(p[1], 1) == -1)
			_exit(127);
		close(p[0]);
		close(p[1]);
		execle("/bin/sh", "sh", "-c", manifest_remote_script(),
		    (char *)NULL, envp);
		_exit(127);
	}
	close(p[1]);
	while ((n = read(p[0], chunk, sizeof(chunk))) > 0)
		buf_append(out, chunk, (size_t)n);
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Build a tree of hostile names, modes, links and mtimes. */
static void
remote_tree(struct tmptree *t)
{
	put(t->fd, "sp ace", "x", 0644);
	put(t->fd, "new\nline", "two\nlines", 0600);
	put(t->fd, "back\\slash", "", 0640);
	put(t->fd, "utf-8 \xc3\xa9", "\xc3\xa9", 0644);
	put(t->fd, "-dash", "-", 0644);
	put(t->fd, "arrow -> x", "", 0644);
	put(t->fd, "suid", "#!/bin/sh\n", 04755);
	mkd(t->fd, "d", 0700);
	put(t->fd, "d/inner", "inner", 0755);
	mkd(t->fd, "d/empty", 0555);
	assert_int_equal(symlinkat("-", t->fd, "l1"), 0);
	assert_int_equal(symlinkat("with space\nand newline", t->fd, "l2"), 0);
	assert_int_equal(symlinkat("ends\n", t->fd, "l3"), 0);
	assert_int_equal(symlinkat("d", t->fd, "dl"), 0);
	assert_int_equal(mkfifoat(t->fd, "ff", 0600), 0);
	set_mtime(t->fd, "sp ace", 1234567890, 123456789);
	set_mtime(t->fd, "-dash", -1, 500000000);
	set_mtime(t->fd, "l1", 1000000000, 1);
}

/* Run the script with PATH=path and compare its listing with a scan. */
static void
check_script(struct tmptree *t, const char *path, int coarse)
{
	struct manifest	*local, *remote = NULL;
	struct buf	 out = BUF_INIT;
	char		*dir, *cause = NULL;

	remote_tree(t);
	dir = xasprintf("%s/tree", t->top);
	assert_int_equal(run_script(dir, path, &out), 0);
	if (manifest_parse_find0(out.data, out.len, NULL, &remote,
	    &cause) != 0)
		fail_msg("listing: %s", cause);
	local = scan(t, NULL, NULL, NULL, 0);
	assert_int_equal(local->n, 14);
	assert_int_equal(get(local, "suid")->mode, 0755);
	assert_same(local, remote, coarse);
	manifest_free(local);
	manifest_free(remote);
	buf_free(&out);
	free(dir);
}

/*
 * The host's listing of a tree too deep leaves out exactly what a scan
 * of it leaves out, so the mirror sees no change either way: the deep
 * part is neither fetched nor deleted, nor sent.
 */
static void
test_remote_script_depth(void **state)
{
	struct tmptree		*t = *state;
	struct manifest		*local, *remote = NULL;
	struct manifest_change	*ch = NULL;
	struct buf		 out = BUF_INIT;
	char			*dir, *cause = NULL, *err;
	size_t			 n;
	int			 fd, saved;

	nest(t, 300);
	put(t->fd, "f", "x", 0644);
	dir = xasprintf("%s/tree", t->top);
	assert_int_equal(run_script(dir, "/usr/bin:/bin", &out), 0);
	fd = capture_begin(&saved);
	if (manifest_parse_find0(out.data, out.len, NULL, &remote,
	    &cause) != 0)
		fail_msg("listing: %s", cause);
	err = capture_end(fd, saved);
	assert_int_equal(capture_count(err, "warning: "), 1);
	assert_non_null(strstr(err, "(and 43 more)"));
	assert_non_null(strstr(err, "on the host, not fetched or deleted"));
	local = scan(t, NULL, NULL, NULL, 0);
	assert_int_equal(local->n, MANIFEST_MAX_DEPTH + 1);
	assert_same(local, remote, 0);
	assert_int_equal(manifest_diff(local, remote, &ch, &n), 0);
	assert_true(n == 0);
	manifest_free(local);
	manifest_free(remote);
	buf_free(&out);
	free(dir);
	free(err);
}

/* The script with GNU find lists the tree exactly as a scan sees it. */
static void
test_remote_script(void **state)
{
	check_script(*state, "/usr/bin:/bin", 0);
}

#define FIND_NO_PRINTF	"#!/bin/sh\n" \
	"for a do\n" \
	"\tcase $a in -printf|-mindepth|-maxdepth) exit 1 ;; esac\n" \
	"done\n" \
	"exec /usr/bin/find \"$@\"\n"

/* Install an executable top/dir/name holding body; return "top/dir:PATH". */
static char *
wrapper(struct tmptree *t, const char *dir, const char *name, const char *body)
{
	char	*path;

	if (access("/usr/bin/find", X_OK) != 0)
		skip();
	if (mkdirat(t->topfd, dir, 0755) != 0)
		assert_int_equal(errno, EEXIST);
	path = xasprintf("%s/%s", dir, name);
	put(t->topfd, path, body, 0755);
	free(path);
	return xasprintf("%s/%s:/usr/bin:/bin", t->top, dir);
}

/* Without find -printf the fallback lists it too, to the second. */
static void
test_remote_script_fallback(void **state)
{
	struct tmptree	*t = *state;
	char		*path;

	path = wrapper(t, "bin", "find", FIND_NO_PRINTF);
	check_script(t, path, 1);
	free(path);
}

/* A listing that fails part way exits non-zero, GNU or fallback. */
static void
test_remote_script_status(void **state)
{
	struct tmptree	*t = *state;
	struct buf	 out = BUF_INIT;
	char		*dir, *path;

	put(t->fd, "f", "", 0644);
	dir = xasprintf("%s/tree", t->top);
	path = wrapper(t, "gnu", "find", "#!/bin/sh\n"
	    "case \" $* \" in *\" -maxdepth 0 \"*) exec /usr/bin/find \"$@\";; "
	    "esac\n/usr/bin/find \"$@\"\nexit 3\n");
	assert_int_equal(run_script(dir, path, &out), 3);
	assert_true(out.len > 0);
	free(path);
	path = wrapper(t, "posix", "find", FIND_NO_PRINTF);
	free(path);
	path = wrapper(t, "posix", "stat",
	    "#!/bin/sh\n/usr/bin/stat \"$@\"\nexit 1\n");
	buf_reset(&out);
	assert_int_not_equal(run_script(dir, path, &out), 0);
	assert_int_equal(out.len, 0);
	free(path);
	buf_free(&out);
	free(dir);
}

/* Milliseconds since start. */
static long
elapsed_ms(const struct timespec *start)
{
	struct timespec	now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (long)(now.tv_sec - start->tv_sec) * 1000 +
	    (now.tv_nsec - start->tv_nsec) / 1000000;
}

/* Twenty thousand files scan, format, parse and diff without trouble. */
static void
test_scan_many(void **state)
{
	struct tmptree		*t = *state;
	struct manifest		*m, *back = NULL;
	struct manifest_change	*c = NULL;
	struct timespec		 start;
	char			 name[32], *text, *cause = NULL;
	size_t			 len, n = 1;
	int			 d, f, fd;

	for (d = 0; d < 100; d++) {
		snprintf(name, sizeof(name), "dir%03d", d);
		assert_int_equal(mkdirat(t->fd, name, 0755), 0);
		for (f = 0; f < 200; f++) {
			snprintf(name, sizeof(name), "dir%03d/file%03d", d, f);
			fd = openat(t->fd, name, O_WRONLY|O_CREAT, 0644);
			assert_true(fd != -1);
			close(fd);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	m = scan(t, NULL, NULL, NULL, 0);
	print_message("scanned %zu entries in %ld ms\n", m->n,
	    elapsed_ms(&start));
	assert_int_equal(m->n, 100 * 201);
	text = manifest_format(m, &len);
	assert_int_equal(manifest_parse(text, len, NULL, &back, &cause), 0);
	assert_int_equal(manifest_diff(m, back, &c, &n), 0);
	assert_int_equal(n, 0);
	free(text);
	manifest_free(back);
	manifest_free(m);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test_setup_teardown(test_scan_tree, tmptree_setup,
		    tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_scan_skip, tmptree_setup,
		    tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_scan_skip_fail, tmptree_setup,
		    tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_scan_hash, tmptree_setup,
		    tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_scan_hash_reuse, tmptree_setup,
		    tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_scan_touch_only, tmptree_setup,
		    tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_scan_depth, tmptree_setup,
		    tmptree_teardown),
		cmocka_unit_test(test_path_over),
		cmocka_unit_test_setup_teardown(test_scan_unreadable, tmptree_setup,
		    tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_save_load, tmptree_setup,
		    tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_load_errors, tmptree_setup,
		    tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_remote_script, tmptree_setup,
		    tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_remote_script_depth,
		    tmptree_setup, tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_remote_script_fallback,
		    tmptree_setup, tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_remote_script_status,
		    tmptree_setup, tmptree_teardown),
		cmocka_unit_test_setup_teardown(test_scan_many, tmptree_setup,
		    tmptree_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
