/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for which rules apply to which direction (ignore.h): a
 * .gitignore keeps only untracked, unkept paths out of the push and
 * nothing out of the pull; the user's exclusions hold both ways and
 * cannot be undone by a .gitignore; what git tracks is asked of git.
 * Each test in its own temporary directory.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

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

#include "buf.h"
#include "compat.h"
#include "ignore.h"
#include "tmpdir.h"
#include "xmalloc.h"

struct fx {
	char		 dir[64];
	int		 fd;
	struct ignore	*ig;
};

/* Make the test's directory and a set with sync.exclude "*.secret". */
static int
setup(void **state)
{
	static const char *const extra[] = { "*.secret" };
	struct fx	*f = xcalloc(1, sizeof(*f));
	char		*cause = NULL;

	strlcpy(f->dir, "/tmp/test_ignore_rules.XXXXXX", sizeof(f->dir));
	if (mkdtemp(f->dir) == NULL ||
	    (f->fd = open(f->dir, O_RDONLY|O_DIRECTORY)) == -1 ||
	    ignore_new(extra, 1, &f->ig, &cause) != 0) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

/* Remove it all. */
static int
teardown(void **state)
{
	struct fx	*f = *state;
	int		 r;

	ignore_free(f->ig);
	close(f->fd);
	r = tmpdir_remove(f->dir);
	free(f);
	return r == 0 ? 0 : -1;
}

/* Write text to file rel (its directory, one level, made). */
static void
put(struct fx *f, const char *rel, const char *text)
{
	char	*dir = xstrdup(rel), *slash;
	int	 fd;

	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		(void)mkdirat(f->fd, dir, 0755);
	}
	free(dir);
	fd = openat(f->fd, rel, O_WRONLY|O_CREAT|O_TRUNC, 0644);
	assert_true(fd != -1);
	assert_int_equal(write(fd, text, strlen(text)),
	    (ssize_t)strlen(text));
	close(fd);
}

/* Load the root's ignore files (and ask git). */
static void
load_root(struct fx *f)
{
	char	*cause = NULL;

	assert_int_equal(ignore_load_dir(f->ig, f->fd, "", &cause), 0);
}

/* A .gitignore keeps out of the push only; the pull takes it all. */
static void
test_gitignore_push_only(void **state)
{
	struct fx	*f = *state;

	put(f, ".gitignore", "build/\n*.o\n");
	load_root(f);
	assert_int_equal(ignore_match(f->ig, "build", 1), 1);
	assert_int_equal(ignore_match(f->ig, "build/a", 0), 1);
	assert_int_equal(ignore_match(f->ig, "a.o", 0), 1);
	assert_int_equal(ignore_match_pull(f->ig, "build", 1), 0);
	assert_int_equal(ignore_match_pull(f->ig, "build/a", 0), 0);
	assert_int_equal(ignore_match_pull(f->ig, "a.o", 0), 0);
	assert_int_equal(ignore_match_pull(f->ig, ".git", 1), 1);
	assert_int_equal(ignore_match_pull(f->ig, "x/.git/config", 0), 1);
}

/* The user's exclusions hold both ways; a .gitignore cannot undo them. */
static void
test_user_both_ways(void **state)
{
	struct fx	*f = *state;

	put(f, ".gitignore", "!*.secret\n!node_modules/\n");
	put(f, ".clawsshignore", "node_modules/\n");
	load_root(f);
	assert_int_equal(ignore_match(f->ig, "a.secret", 0), 1);
	assert_int_equal(ignore_match_pull(f->ig, "a.secret", 0), 1);
	assert_int_equal(ignore_match(f->ig, "node_modules/x", 0), 1);
	assert_int_equal(ignore_match_pull(f->ig, "node_modules/x", 0), 1);
}

/* A user's '!' re-includes what a .gitignore excludes, dir and all. */
static void
test_user_reinclude(void **state)
{
	struct fx	*f = *state;

	put(f, ".gitignore", "build/\n");
	put(f, ".clawsshignore", "!build/\n");
	load_root(f);
	assert_int_equal(ignore_match(f->ig, "build", 1), 0);
	assert_int_equal(ignore_match(f->ig, "build/deep/x.o", 0), 0);
}

/* The keep callback: everything but "build/new". */
static int
keep_old(void *arg, const char *path, int is_dir)
{
	(void)is_dir;
	*(int *)arg += 1;
	return strcmp(path, "build/new") != 0;
}

/*
 * Kept paths stay in the push though a .gitignore matches; below a
 * kept, ignored directory an unkept path is still out.
 */
static void
test_keep(void **state)
{
	struct fx	*f = *state;
	int		 calls = 0;

	put(f, ".gitignore", "build/\n");
	load_root(f);
	ignore_set_keep(f->ig, keep_old, &calls);
	assert_int_equal(ignore_match(f->ig, "build", 1), 0);
	assert_int_equal(ignore_match(f->ig, "build/old", 0), 0);
	assert_int_equal(ignore_match(f->ig, "build/new", 0), 1);
	assert_int_equal(ignore_match(f->ig, "src/a.c", 0), 0);
	assert_int_equal(calls, 5);	/* only for ignored paths and ancestors */
	ignore_set_keep(f->ig, NULL, NULL);
	assert_int_equal(ignore_match(f->ig, "build/old", 0), 1);
}

/* user_only: .gitignore files never apply, either way. */
static void
test_user_only(void **state)
{
	struct fx	*f = *state;

	put(f, ".gitignore", "build/\n");
	ignore_set_user_only(f->ig, 1);
	load_root(f);
	assert_int_equal(ignore_match(f->ig, "build/a", 0), 0);
	assert_int_equal(ignore_match(f->ig, "a.secret", 0), 1);
}

/* Run cmd in the test's directory, expecting success. */
static void
sh(struct fx *f, const char *cmd)
{
	char	*line;

	line = xasprintf("cd '%s' && git -c user.name=t -c "
	    "user.email=t@example.invalid %s > /dev/null 2>&1", f->dir, cmd);
	assert_int_equal(system(line), 0);
	free(line);
}

/*
 * Files git tracks are pushed though a .gitignore matches them (and
 * their directories with them); the untracked beside them are not.  A
 * user's exclusion still keeps a tracked file out.
 */
static void
test_tracked(void **state)
{
	struct fx	*f = *state;
	struct buf	 b = BUF_INIT;

	if (system("git --version > /dev/null 2>&1") != 0)
		skip();
	put(f, ".gitignore", "build/\n*.tmp\n");
	put(f, "build/config.h", "x\n");
	put(f, "keep.tmp", "x\n");
	put(f, "b.secret", "x\n");
	sh(f, "init -q");
	sh(f, "add -f .gitignore build/config.h keep.tmp b.secret");
	put(f, "build/other.o", "x\n");
	load_root(f);
	assert_int_equal(ignore_match(f->ig, "build", 1), 0);
	assert_int_equal(ignore_match(f->ig, "build/config.h", 0), 0);
	assert_int_equal(ignore_match(f->ig, "build/other.o", 0), 1);
	assert_int_equal(ignore_match(f->ig, "keep.tmp", 0), 0);
	assert_int_equal(ignore_match(f->ig, "other.tmp", 0), 1);
	assert_int_equal(ignore_match(f->ig, "b.secret", 0), 1);
	ignore_describe(f->ig, &b);
	buf_append(&b, "", 1);
	assert_non_null(strstr(b.data, "git: 4 tracked files"));
	assert_non_null(strstr(b.data,
	    "  .gitignore: build/  (push only, untracked files only)\n"));
	assert_non_null(strstr(b.data,
	    "  sync.exclude: *.secret  (push and pull)\n"));
	buf_free(&b);
}

/*
 * A workspace below a checkout's top: git is found by the walk up, and
 * what it tracks there counts (paths relative to the workspace).
 */
static void
test_tracked_below_top(void **state)
{
	struct fx	*f = *state;
	int		 top = f->fd;

	if (system("git --version > /dev/null 2>&1") != 0)
		skip();
	put(f, "ws/.gitignore", "*.tmp\n");
	put(f, "ws/keep.tmp", "x\n");
	sh(f, "init -q");
	sh(f, "add -f ws/.gitignore ws/keep.tmp");
	f->fd = openat(top, "ws", O_RDONLY | O_DIRECTORY);
	assert_true(f->fd != -1);
	load_root(f);
	assert_int_equal(ignore_match(f->ig, "keep.tmp", 0), 0);
	assert_int_equal(ignore_match(f->ig, "other.tmp", 0), 1);
	close(f->fd);
	f->fd = top;
}

/* Outside a checkout every file is untracked, and describe says why. */
static void
test_no_checkout(void **state)
{
	struct fx	*f = *state;
	struct buf	 b = BUF_INIT;

	put(f, ".gitignore", "*.tmp\n");
	load_root(f);
	assert_int_equal(ignore_match(f->ig, "a.tmp", 0), 1);
	ignore_describe(f->ig, &b);
	buf_append(&b, "", 1);
	assert_non_null(strstr(b.data, "a .gitignore applies to every file"));
	/* no .git at or above it: git is not even asked (/tmp has none) */
	assert_non_null(strstr(b.data, "no .git at or above"));
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
#define T(fn)	cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_gitignore_push_only),
		T(test_user_both_ways),
		T(test_user_reinclude),
		T(test_keep),
		T(test_user_only),
		T(test_tracked),
		T(test_tracked_below_top),
		T(test_no_checkout),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
