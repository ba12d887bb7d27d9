/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the staged store (src/tools/fstore_staged.c), on which
 * the daemon applies a patch to a host's copy: reads come from what was
 * staged (bytes and mode, or the error the read gave), the commit is
 * kept, not done, and fstore_patch says on it what it says on a real
 * store.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "error.h"
#include "fstore.h"
#include "fstore_patch.h"
#include "patch.h"

#define PATCH \
	"--- a/e.txt\n+++ b/e.txt\n@@ -1 +1 @@\n-old\n+new\n" \
	"--- /dev/null\n+++ b/add.txt\n@@ -0,0 +1 @@\n+added\n" \
	"--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n"

/* Reads: staged bytes (ranges too), the staged error, unstaged paths. */
static void
test_reads(void **state)
{
	struct fstore	*fs = fstore_staged();
	struct buf	 b = BUF_INIT;
	struct fstore_stat st;
	unsigned	 mode = 0;
	char		*cause = NULL;

	(void)state;
	fstore_staged_put(fs, "a.txt", "hello", 5, 0640, 0, NULL);
	fstore_staged_put(fs, "b.txt", NULL, 0, 0, CLAW_ERR_NOTFOUND,
	    "b.txt: no such file");
	assert_true(fstore_staged_has(fs, "a.txt"));
	assert_false(fstore_staged_has(fs, "c.txt"));
	assert_int_equal(fstore_read(fs, "a.txt", 1, 3, &b, &mode, &cause),
	    0);
	assert_int_equal(b.len, 3);
	assert_memory_equal(b.data, "ell", 3);
	assert_int_equal(mode, 0640);
	buf_reset(&b);
	assert_int_equal(fstore_read(fs, "a.txt", 9, 0, &b, NULL, &cause), 0);
	assert_int_equal(b.len, 0);
	assert_int_equal(fstore_read(fs, "b.txt", 0, 0, &b, NULL, &cause),
	    CLAW_ERR_NOTFOUND);
	assert_string_equal(cause, "b.txt: no such file");
	free(cause);
	cause = NULL;
	assert_int_equal(fstore_read(fs, "c.txt", 0, 0, &b, NULL, &cause),
	    CLAW_ERR_PROTO);
	free(cause);
	cause = NULL;
	assert_int_not_equal(fstore_stat(fs, "a.txt", &st, &cause), 0);
	free(cause);
	assert_null(fstore_staged_changes(fs, &(size_t){ 0 }));
	buf_free(&b);
	fstore_free(fs);
}

/* A patch on staged files: its report, and the commit kept. */
static void
test_patch(void **state)
{
	struct fstore			*fs = fstore_staged();
	struct patch			*p = NULL;
	const struct fstore_change	*ch;
	struct buf			 report = BUF_INIT;
	char				*cause = NULL;
	size_t				 n = 0;

	(void)state;
	fstore_staged_put(fs, "e.txt", "old\n", 4, 0640, 0, NULL);
	fstore_staged_put(fs, "gone.txt", "gone\n", 5, 0644, 0, NULL);
	assert_int_equal(patch_parse(PATCH, strlen(PATCH), &p, &cause), 0);
	assert_int_equal(fstore_patch(fs, p, 0, &report, &cause), 0);
	assert_int_equal(report.len, strlen("M e.txt\nA add.txt\nD gone.txt\n"));
	assert_memory_equal(report.data, "M e.txt\nA add.txt\nD gone.txt\n",
	    report.len);
	assert_non_null(ch = fstore_staged_changes(fs, &n));
	assert_int_equal(n, 3);
	assert_string_equal(ch[0].path, "e.txt");
	assert_int_equal(ch[0].len, 4);
	assert_memory_equal(ch[0].data, "new\n", 4);
	assert_int_equal(ch[0].mode, 0640);
	assert_string_equal(ch[1].path, "add.txt");
	assert_true(ch[1].create_only);
	assert_string_equal(ch[2].path, "gone.txt");
	assert_null(ch[2].data);
	/* a second commit is refused */
	assert_int_not_equal(fstore_commit(fs, ch, n, &cause), 0);
	free(cause);
	patch_free(p);
	buf_free(&report);
	fstore_free(fs);
}

/* A staged read error fails the patch as the real read would. */
static void
test_patch_missing(void **state)
{
	struct fstore	*fs = fstore_staged();
	struct patch	*p = NULL;
	struct buf	 report = BUF_INIT;
	char		*cause = NULL;
	size_t		 n = 7;

	(void)state;
	fstore_staged_put(fs, "e.txt", NULL, 0, 0, CLAW_ERR_NOTFOUND,
	    "e.txt: no such file");
	assert_int_equal(patch_parse(PATCH, strlen(PATCH), &p, &cause), 0);
	assert_int_equal(fstore_patch(fs, p, 0, &report, &cause),
	    CLAW_ERR_NOTFOUND);
	assert_string_equal(cause, "e.txt: no such file; nothing was changed");
	assert_null(fstore_staged_changes(fs, &n));
	free(cause);
	patch_free(p);
	buf_free(&report);
	fstore_free(fs);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads),
		cmocka_unit_test(test_patch),
		cmocka_unit_test(test_patch_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
