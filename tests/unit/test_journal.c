/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the inotify change journal, on real temporary trees:
 * file and directory changes, a new subdirectory with a file in it, trees
 * moved in and out, renames inside, ignore rules, the watch limit (capped
 * with journal_set_watch_cap), the root going away, two roots at once,
 * and takes racing a writer thread.  A take drains the kernel's queue, so
 * no test sleeps: a change made before journal_take is in it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <fcntl.h>
#include <pthread.h>
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
#include "error.h"
#include "ignore.h"
#include "journal.h"
#include "xmalloc.h"
#include "tmpdir.h"

/* Per-test state: a scratch directory holding root/ and out/. */
struct fixture {
	char		 dir[64];
	char		*root;
	char		*out;
	struct journal	*j;
};

/* Make the directories and start the journal. */
static int
setup(void **state)
{
	struct fixture	*f;
	char		*cause = NULL;

	f = xcalloc(1, sizeof(*f));
	strlcpy(f->dir, "/tmp/test_journal.XXXXXX", sizeof(f->dir));
	if (mkdtemp(f->dir) == NULL)
		return -1;
	f->root = xasprintf("%s/root", f->dir);
	f->out = xasprintf("%s/out", f->dir);
	if (mkdir(f->root, 0700) != 0 || mkdir(f->out, 0700) != 0)
		return -1;
	if (journal_new(&f->j, &cause) != 0) {
		fprintf(stderr, "journal_new: %s\n", cause);
		return -1;
	}
	*state = f;
	return 0;
}

/* Stop the journal and remove the directories. */
static int
teardown(void **state)
{
	struct fixture	*f = *state;
	int		 r;

	journal_free(f->j);
	r = tmpdir_remove(f->dir);
	free(f->root);
	free(f->out);
	free(f);
	return r;
}

/* Make directory base/rel. */
static void
mk(const char *base, const char *rel)
{
	char	*p = xasprintf("%s/%s", base, rel);

	if (mkdir(p, 0700) != 0)
		fail_msg("mkdir %s", p);
	free(p);
}

/* Write text to the file base/rel (created or truncated). */
static void
put(const char *base, const char *rel, const char *text)
{
	char	*p = xasprintf("%s/%s", base, rel);
	int	 fd;

	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600)) == -1)
		fail_msg("open %s", p);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	free(p);
}

/* Rename from/a to to/b. */
static void
mv(const char *from, const char *a, const char *to, const char *b)
{
	char	*p, *q;

	p = xasprintf("%s/%s", from, a);
	q = xasprintf("%s/%s", to, b);
	if (rename(p, q) != 0)
		fail_msg("rename %s %s", p, q);
	free(p);
	free(q);
}

/* Remove the file base/rel. */
static void
rm(const char *base, const char *rel)
{
	char	*p = xasprintf("%s/%s", base, rel);

	assert_int_equal(unlink(p), 0);
	free(p);
}

/*
 * Take handle's set and compare: want is the expected paths joined by
 * spaces ("" for none), want_why NULL for a trusted set.
 */
static void
expect(struct journal *j, int h, const char *want, const char *want_why)
{
	char		**paths = NULL, *cause = NULL, *got;
	const char	 *why = NULL;
	size_t		  n = 0, i;
	int		  full = -1;
	char		 *tmp;

	assert_int_equal(journal_take(j, h, &paths, &n, &full, &why, &cause),
	    0);
	got = xstrdup("");
	for (i = 0; i < n; i++) {
		tmp = xasprintf("%s%s%s", got, i ? " " : "", paths[i]);
		free(got);
		got = tmp;
	}
	if (want != NULL && strcmp(got, want) != 0)
		fail_msg("got \"%s\", want \"%s\"", got, want);
	if (want_why == NULL) {
		if (full != 0)
			fail_msg("full: %s", why);
		assert_null(why);
	} else {
		assert_int_equal(full, 1);
		assert_non_null(why);
		assert_string_equal(why, want_why);
	}
	free(got);
	journal_paths_free(paths, n);
}

/* Add f->root with ign and consume the first (full) take. */
static int
start(struct fixture *f, const struct ignore *ign)
{
	char	*cause = NULL;
	int	 h = -1;

	if (journal_add(f->j, f->root, ign, &h, &cause) != 0)
		fail_msg("journal_add: %s", cause);
	assert_true(h > 0);
	expect(f->j, h, "", "the journal just started");
	expect(f->j, h, "", NULL);
	return h;
}

/* One journal per process; unknown handles; bad roots. */
static void
test_single(void **state)
{
	struct fixture	*f = *state;
	struct journal	*j2 = NULL;
	char		**paths = NULL, *cause = NULL, *file;
	const char	 *why;
	size_t		  n;
	int		  full, h;

	assert_int_equal(journal_new(&j2, &cause), CLAW_ERR_EXISTS);
	assert_null(j2);
	free(cause);
	assert_int_equal(journal_take(f->j, 99, &paths, &n, &full, &why,
	    &cause), CLAW_ERR_NOTFOUND);
	free(cause);
	assert_int_equal(journal_add(f->j, "/nonexistent/x", NULL, &h,
	    &cause), CLAW_ERR_NOTFOUND);
	free(cause);
	put(f->dir, "file", "x");
	file = xasprintf("%s/file", f->dir);
	assert_int_equal(journal_add(f->j, file, NULL, &h, &cause),
	    CLAW_ERR_INVAL);
	free(cause);
	free(file);
	h = start(f, NULL);
	journal_remove(f->j, h);
	assert_int_equal(journal_take(f->j, h, &paths, &n, &full, &why,
	    &cause), CLAW_ERR_NOTFOUND);
	free(cause);
	journal_remove(f->j, h);	/* unknown now: ignored */
}

/* Files created, modified, removed and renamed; attribute changes. */
static void
test_files(void **state)
{
	struct fixture	*f = *state;
	char		*p;
	int		 h;

	mk(f->root, "a");
	mk(f->root, "a/b");
	put(f->root, "a/y", "1");
	put(f->root, "a/b/z", "2");
	put(f->root, "top", "3");
	h = start(f, NULL);
	put(f->root, "x", "new");
	put(f->root, "a/y", "changed");
	rm(f->root, "a/b/z");
	mv(f->root, "a/y", f->root, "a/w");
	expect(f->j, h, "a/b/z a/w a/y x", NULL);
	expect(f->j, h, "", NULL);
	p = xasprintf("%s/top", f->root);
	assert_int_equal(chmod(p, 0755), 0);
	free(p);
	put(f->root, "top", "again");
	put(f->root, "top", "and again");
	expect(f->j, h, "top", NULL);
	/* A directory's own changes show at its parent. */
	p = xasprintf("%s/a/b", f->root);
	assert_int_equal(chmod(p, 0755), 0);
	assert_int_equal(rmdir(p), 0);
	free(p);
	expect(f->j, h, "a/b", NULL);
	/* The same name again is a new directory, watched afresh. */
	mk(f->root, "a/b");
	expect(f->j, h, "a/b", NULL);
	put(f->root, "a/b/again", "x");
	expect(f->j, h, "a/b/again", NULL);
	mv(f->root, "a", f->out, "a");
	mk(f->root, "a");
	mk(f->root, "a/b");
	expect(f->j, h, "a a/b", NULL);
	put(f->root, "a/b/third", "y");
	expect(f->j, h, "a/b/third", NULL);
}

/* A new subdirectory and a file in it, made at once, are both seen. */
static void
test_new_subdir(void **state)
{
	struct fixture	*f = *state;
	int		 h;

	h = start(f, NULL);
	mk(f->root, "n");
	put(f->root, "n/f", "x");
	mk(f->root, "n/d");
	mk(f->root, "n/d/e");
	put(f->root, "n/d/e/g", "y");
	expect(f->j, h, "n n/d n/d/e n/d/e/g n/f", NULL);
	/* The new directories are watched from now on. */
	put(f->root, "n/d/e/h", "z");
	put(f->root, "n/f", "changed");
	expect(f->j, h, "n/d/e/h n/f", NULL);
}

/* A tree moved in is walked and watched; one moved out is left. */
static void
test_move_in_out(void **state)
{
	struct fixture	*f = *state;
	int		 h;

	mk(f->out, "m");
	mk(f->out, "m/s");
	put(f->out, "m/s/f", "x");
	put(f->out, "m/g", "y");
	h = start(f, NULL);
	mv(f->out, "m", f->root, "in");
	expect(f->j, h, "in in/g in/s in/s/f", NULL);
	put(f->root, "in/s/new", "z");
	expect(f->j, h, "in/s/new", NULL);
	/* Out again: only the top is reported, nothing after. */
	mv(f->root, "in", f->out, "back");
	expect(f->j, h, "in", NULL);
	put(f->out, "back/s/later", "w");
	mk(f->out, "back/s/dir");
	expect(f->j, h, "", NULL);
	/* A file moved in and out. */
	mv(f->out, "back/g", f->root, "g");
	expect(f->j, h, "g", NULL);
	mv(f->root, "g", f->out, "g2");
	expect(f->j, h, "g", NULL);
}

/* A directory renamed inside the root: events use the new name. */
static void
test_rename_dir(void **state)
{
	static const char *const want[] = { "c", "c/b", "c/b/f", "c/b/new",
	    "c/b/sub", "d", "d/b", "d/b/f", "d/b/new", "d/b/sub" };
	struct fixture	*f = *state;
	char		**paths, *cause = NULL;
	const char	 *why;
	size_t		  n, i;
	int		  h, full;

	mk(f->root, "a");
	mk(f->root, "a/b");
	put(f->root, "a/b/f", "x");
	h = start(f, NULL);
	mv(f->root, "a", f->root, "c");
	expect(f->j, h, "a c c/b c/b/f", NULL);
	put(f->root, "c/b/new", "y");
	mk(f->root, "c/b/sub");
	expect(f->j, h, "c/b/new c/b/sub", NULL);
	/*
	 * Back and forth within one take: d's contents are listed too when
	 * the reader walked d before it was renamed back.
	 */
	mv(f->root, "c", f->root, "d");
	mv(f->root, "d", f->root, "c");
	put(f->root, "c/b/f", "z");
	assert_int_equal(journal_take(f->j, h, &paths, &n, &full, &why,
	    &cause), 0);
	assert_int_equal(full, 0);
	assert_true(n == 6 || n == 10);
	for (i = 0; i < n; i++)
		assert_string_equal(paths[i], want[i]);
	journal_paths_free(paths, n);
	/* Either way, c is watched under its name. */
	put(f->root, "c/b/f", "again");
	expect(f->j, h, "c/b/f", NULL);
}

/* Symbolic links are never followed; odd names come through as they are. */
static void
test_links_and_names(void **state)
{
	struct fixture	*f = *state;
	char		*target, *link;
	int		 h;

	mk(f->out, "t");
	h = start(f, NULL);
	target = xasprintf("%s/t", f->out);
	link = xasprintf("%s/ln", f->root);
	assert_int_equal(symlink(target, link), 0);
	expect(f->j, h, "ln", NULL);
	put(f->out, "t/inside", "x");
	mk(f->out, "t/dir");
	expect(f->j, h, "", NULL);
	put(f->root, "ln/through", "y");	/* written in out/t */
	expect(f->j, h, "", NULL);
	put(f->root, "a b\nc", "z");
	mk(f->root, "\x01dir");
	put(f->root, "\x01dir/-", "w");
	expect(f->j, h, "\x01dir \x01dir/- a b\nc", NULL);
	free(target);
	free(link);
}

/* Ignored directories cost no watch; ignored paths are not reported. */
static void
test_ignore(void **state)
{
	struct fixture		*f = *state;
	struct ignore		*ig = NULL;
	const char *const	 pats[] = { "node_modules/", "*.log" };
	char			*cause = NULL;
	int			 h;

	assert_int_equal(ignore_new(pats, 2, &ig, &cause), 0);
	mk(f->root, "src");
	mk(f->root, "node_modules");
	mk(f->root, "node_modules/a");
	mk(f->root, "node_modules/b");
	mk(f->root, ".git");
	/* root and src only: two watches are enough. */
	journal_set_watch_cap(f->j, 2);
	h = start(f, ig);
	put(f->root, "node_modules/a/x", "1");
	put(f->root, "src/build.log", "2");
	mk(f->root, "src/node_modules");
	put(f->root, "src/node_modules/y", "3");
	put(f->root, ".git/HEAD", "4");
	put(f->root, "src/main.c", "5");
	expect(f->j, h, "src/main.c", NULL);
	/* A new directory with ignored content. */
	journal_set_watch_cap(f->j, 0);
	mk(f->out, "t");
	mk(f->out, "t/node_modules");
	put(f->out, "t/node_modules/z", "6");
	put(f->out, "t/a.log", "7");
	put(f->out, "t/a.c", "8");
	mv(f->out, "t", f->root, "t");
	expect(f->j, h, "t t/a.c", NULL);
	/* Changing an ignore file makes the set untrusted. */
	put(f->root, "src/.gitignore", "*.o\n");
	expect(f->j, h, "src/.gitignore", "an ignore file changed");
	expect(f->j, h, "", NULL);
	journal_remove(f->j, h);
	ignore_free(ig);
}

/* Running out of watches: full at once, or when a new directory comes. */
static void
test_watch_limit(void **state)
{
	struct fixture	*f = *state;
	char		*cause = NULL;
	int		 h;

	mk(f->root, "a");
	mk(f->root, "b");
	journal_set_watch_cap(f->j, 2);
	assert_int_equal(journal_add(f->j, f->root, NULL, &h, &cause), 0);
	expect(f->j, h, "", "inotify watch limit reached");
	put(f->root, "a/x", "1");
	expect(f->j, h, NULL, "inotify watch limit reached");
	expect(f->j, h, NULL, "inotify watch limit reached");
	journal_remove(f->j, h);

	journal_set_watch_cap(f->j, 3);
	h = start(f, NULL);
	put(f->root, "a/x", "2");
	expect(f->j, h, "a/x", NULL);
	mk(f->root, "c");
	put(f->root, "c/y", "3");
	expect(f->j, h, NULL, "inotify watch limit reached");
	/* It stays untrusted while c cannot be watched. */
	put(f->root, "c/y", "4");
	expect(f->j, h, "", "inotify watch limit reached");
	/*
	 * With room again, a take walks the tree: c is watched and
	 * reported, the take is still full; the next one is trusted.
	 */
	journal_set_watch_cap(f->j, 0);
	expect(f->j, h, "c c/y", "inotify watch limit reached");
	put(f->root, "c/z", "5");
	mk(f->root, "c/d");
	put(f->root, "c/d/e", "6");
	expect(f->j, h, "c/d c/d/e c/z", NULL);
	journal_remove(f->j, h);
}

/* The root moved away or removed: untrusted for good. */
static void
test_root_gone(void **state)
{
	struct fixture	*f = *state;
	char		*moved;
	int		 h;

	h = start(f, NULL);
	moved = xasprintf("%s/moved", f->out);
	assert_int_equal(rename(f->root, moved), 0);
	put(moved, "f", "x");
	expect(f->j, h, NULL, "the root was moved, removed or unmounted");
	expect(f->j, h, "", "the root was moved, removed or unmounted");
	journal_remove(f->j, h);
	assert_int_equal(rename(moved, f->root), 0);
	free(moved);
}

/* Two roots at once, each with its own set; overlapping roots refused. */
static void
test_two_roots(void **state)
{
	struct fixture	*f = *state;
	char		*cause = NULL, *sub;
	int		 h1, h2, h3;

	h1 = start(f, NULL);
	assert_int_equal(journal_add(f->j, f->out, NULL, &h2, &cause), 0);
	assert_int_not_equal(h1, h2);
	expect(f->j, h2, "", "the journal just started");
	put(f->root, "r", "1");
	put(f->out, "o", "2");
	expect(f->j, h2, "o", NULL);
	expect(f->j, h1, "r", NULL);
	assert_int_equal(journal_add(f->j, f->dir, NULL, &h3, &cause),
	    CLAW_ERR_EXISTS);
	free(cause);
	mk(f->root, "sub");
	sub = xasprintf("%s/sub/.", f->root);
	assert_int_equal(journal_add(f->j, sub, NULL, &h3, &cause),
	    CLAW_ERR_EXISTS);
	free(cause);
	free(sub);
	journal_remove(f->j, h1);
	put(f->out, "o2", "3");
	expect(f->j, h2, "o2", NULL);
}

struct writer {
	const char	*root;
	int		 n;
	int		 finished;	/* __atomic */
};

/* Create files w0 .. w(n-1) in the root, as fast as possible. */
static void *
writer_main(void *arg)
{
	struct writer	*w = arg;
	char		 name[32];
	int		 i;

	for (i = 0; i < w->n; i++) {
		snprintf(name, sizeof(name), "w%d", i);
		put(w->root, name, "x");
	}
	__atomic_store_n(&w->finished, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

/* Takes racing a writer lose nothing: every file is in some take. */
static void
test_take_race(void **state)
{
	struct fixture	*f = *state;
	struct writer	 w = { f->root, 3000, 0 };
	pthread_t	 t;
	char		**paths, *cause = NULL;
	const char	 *why;
	unsigned char	 seen[3000];
	size_t		  n, i;
	int		  full, h, k, total = 0, takes = 0, last = 0;

	memset(seen, 0, sizeof(seen));
	h = start(f, NULL);
	assert_int_equal(pthread_create(&t, NULL, writer_main, &w), 0);
	while (!last) {
		/* The writer done before this take: it sees everything. */
		last = __atomic_load_n(&w.finished, __ATOMIC_SEQ_CST);
		assert_int_equal(journal_take(f->j, h, &paths, &n, &full,
		    &why, &cause), 0);
		assert_int_equal(full, 0);
		takes++;
		for (i = 0; i < n; i++) {
			assert_int_equal(sscanf(paths[i], "w%d", &k), 1);
			assert_in_range(k, 0, w.n - 1);
			if (!seen[k])
				total++;
			seen[k] = 1;
		}
		journal_paths_free(paths, n);
	}
	pthread_join(t, NULL);
	assert_int_equal(total, w.n);
	assert_true(takes > 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_single, setup, teardown),
		cmocka_unit_test_setup_teardown(test_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_subdir, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_move_in_out, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_rename_dir, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_links_and_names, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ignore, setup, teardown),
		cmocka_unit_test_setup_teardown(test_watch_limit, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_root_gone, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_two_roots, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_take_race, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
