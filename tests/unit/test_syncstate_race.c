/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for two handles on one sync state, as two clawssh processes
 * syncing one sandbox at once have: appends of different paths both
 * land, one after the other; a whole rewrite under another handle, or
 * by a handle that did not read all of the log, leaves a log whose "X"
 * line makes the next open usable whole only (a full scan), never a
 * state that silently lost a change.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "manifest.h"
#include "syncstate.h"
#include "tmpdir.h"
#include "xmalloc.h"

#define NAME	"box.manifest"

/* Open the state in t's tree, which must work. */
static struct syncstate *
open_state(struct tmptree *t)
{
	struct syncstate	*s = NULL;
	char			*cause = NULL;

	if (syncstate_open(t->fd, NAME, &s, &cause) != 0)
		fail_msg("open: %s", cause);
	return s;
}

/* A manifest of the files named in paths (NULL-terminated), size sz. */
static struct manifest *
files(const char *const *paths, uint64_t sz)
{
	struct manifest		*m = manifest_new();
	struct manifest_entry	*e;

	for (; *paths != NULL; paths++) {
		e = manifest_add(m);
		e->path = xstrdup(*paths);
		e->type = MANIFEST_FILE;
		e->mode = 0644;
		e->size = sz;
	}
	manifest_sort(m);
	return m;
}

/* Stage file path at size sz in s and commit it. */
static void
put(struct syncstate *s, const char *path, uint64_t sz)
{
	const char	*one[] = { path, NULL };
	struct manifest	*m = files(one, sz);
	char		*p = xstrdup(path), *cause = NULL;

	syncstate_stage(s, &p, 1, m);
	if (syncstate_commit(s, &cause) != 0)
		fail_msg("commit: %s", cause);
	manifest_free(m);
	free(p);
}

/* The size the whole state gives path, or -1. */
static long long
size_in(struct syncstate *s, const char *path)
{
	struct manifest			*m = NULL;
	const struct manifest_entry	*e;
	char				*cause = NULL;
	long long			 r;

	if (syncstate_all(s, &m, &cause) != 0)
		fail_msg("all: %s", cause);
	e = manifest_find(m, path);
	r = e != NULL ? (long long)e->size : -1;
	manifest_free(m);
	return r;
}

/* Start: a saved state with files a and b. */
static void
seed(struct tmptree *t)
{
	const char		*ab[] = { "a", "b", NULL };
	struct syncstate	*s = open_state(t);
	struct manifest		*m = files(ab, 1);
	char			*cause = NULL;

	if (syncstate_save_all(s, m, &cause) != 0)
		fail_msg("save: %s", cause);
	manifest_free(m);
	syncstate_close(s);
}

/*
 * Appends of different paths by two handles: both are kept, the second
 * after the first's block.  A whole rewrite by the second then (it never
 * read the first's block) leaves the state to a full scan.
 */
static void
test_both_append(void **state)
{
	struct tmptree		*t = *state;
	struct syncstate	*x, *y, *s;
	const char		*ab[] = { "a", "b", NULL };
	struct manifest		*m = files(ab, 8);
	char			*cause = NULL;

	seed(t);
	x = open_state(t);
	y = open_state(t);
	put(x, "a", 2);
	put(y, "b", 3);
	s = open_state(t);
	assert_null(syncstate_no_view(s));
	assert_int_equal(size_in(s, "a"), 2);
	assert_int_equal(size_in(s, "b"), 3);
	syncstate_close(s);
	assert_int_equal(syncstate_save_all(y, m, &cause), 0);
	s = open_state(t);
	assert_non_null(syncstate_no_view(s));
	assert_non_null(strstr(syncstate_no_view(s), "same time"));
	syncstate_close(s);
	syncstate_close(x);
	syncstate_close(y);
	manifest_free(m);
}

/* A whole rewrite by one, then an append by the other: a full scan. */
static void
test_rewrite_then_append(void **state)
{
	struct tmptree		*t = *state;
	struct syncstate	*x, *y, *s;
	const char		*ab[] = { "a", "b", NULL };
	struct manifest		*m = files(ab, 5);
	char			*cause = NULL;

	seed(t);
	x = open_state(t);
	y = open_state(t);
	assert_int_equal(syncstate_save_all(x, m, &cause), 0);
	put(y, "b", 7);			/* y's view is of the old manifest */
	syncstate_close(x);
	syncstate_close(y);
	s = open_state(t);
	assert_non_null(syncstate_no_view(s));
	assert_non_null(strstr(syncstate_no_view(s), "same time"));
	assert_int_equal(size_in(s, "a"), 5);	/* the manifest alone */
	syncstate_close(s);
	manifest_free(m);
}

/* An append by one, then a whole rewrite by the other: a full scan. */
static void
test_append_then_rewrite(void **state)
{
	struct tmptree		*t = *state;
	struct syncstate	*x, *y, *s;
	const char		*ab[] = { "a", "b", NULL };
	struct manifest		*m = files(ab, 9);
	char			*cause = NULL;

	seed(t);
	x = open_state(t);
	y = open_state(t);
	put(x, "a", 4);
	assert_int_equal(syncstate_save_all(y, m, &cause), 0);
	syncstate_close(x);
	syncstate_close(y);
	s = open_state(t);
	assert_non_null(syncstate_no_view(s));
	assert_non_null(strstr(syncstate_no_view(s), "same time"));
	assert_int_equal(syncstate_view(s, NULL, 0, &m, &cause),
	    CLAW_ERR_UNSUPPORTED);
	free(cause);
	cause = NULL;
	/* the full sync that follows saves whole, and all is well again */
	assert_int_equal(syncstate_save_all(s, m, &cause), 0);
	syncstate_close(s);
	s = open_state(t);
	assert_null(syncstate_no_view(s));
	syncstate_close(s);
	manifest_free(m);
}

int
main(void)
{
#define T(fn)	cmocka_unit_test_setup_teardown(fn, tmptree_setup, tmptree_teardown)
	const struct CMUnitTest	tests[] = {
		T(test_both_append),
		T(test_rewrite_then_append),
		T(test_append_then_rewrite),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
