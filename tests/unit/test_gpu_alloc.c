/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for GPU assignment: fake hosts and device listings, sandboxes
 * sharing GPUs, stale holders, and hostile allocation files.
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
#include "gpu_alloc.h"
#include "xmalloc.h"

#define ID_A	"caaaaaaaaaaaa"
#define ID_B	"cbbbbbbbbbbbb"
#define ID_C	"ccccccccccccc"
#define ID_D	"cddddddddddd7"

static const int two[] = { 0, 1 };
static const char *const all_live[] = { ID_A, ID_B, ID_C, ID_D };

/* Parse text (exactly its length, no NUL after it) into a table. */
static struct gpu_table *
table_from(const char *text)
{
	struct gpu_table	*t = NULL;
	size_t			 len = strlen(text);
	char			*copy, *cause = NULL;

	copy = xmalloc(len == 0 ? 1 : len);
	memcpy(copy, text, len);
	if (gpu_table_parse(copy, len, &t, &cause) != 0)
		fail_msg("parse: %s", cause);
	free(copy);
	return t;
}

/* Check that t formats to want. */
static void
check_format(const struct gpu_table *t, const char *want)
{
	char	*s;

	s = gpu_table_format(t);
	assert_string_equal(s, want);
	free(s);
}

/* Assign and check the GPUs id got, written as gpu_visible text. */
static void
check_assign(struct gpu_table *t, const char *id, int want,
    const int *present, size_t npresent, const char *gotwant)
{
	int	*got = NULL;
	size_t	 ngot = 0;
	char	*cause = NULL, *vis;

	if (gpu_table_assign(t, id, want, present, npresent, all_live, 4,
	    &got, &ngot, &cause) != 0)
		fail_msg("assign %s: %s", id, cause);
	vis = gpu_visible(got, ngot);
	assert_string_equal(vis, gotwant);
	free(vis);
	free(got);
}

/* Assign, expect failure err with cause want; *got stays untouched. */
static void
check_refused(struct gpu_table *t, const char *id, int want,
    const int *present, size_t npresent, int err, const char *cwant)
{
	int	*got = (int *)&got;
	size_t	 ngot = 77;
	char	*cause = NULL;

	assert_int_equal(gpu_table_assign(t, id, want, present, npresent,
	    all_live, 4, &got, &ngot, &cause), err);
	assert_true(got == (int *)&got);
	assert_int_equal(ngot, 77);
	assert_non_null(cause);
	if (cwant != NULL)
		assert_string_equal(cause, cwant);
	free(cause);
}

/* Two sandboxes on a 2-GPU host get different GPUs; a third is told. */
static void
test_two_then_full(void **state)
{
	struct gpu_table	*t = table_from("");

	(void)state;
	check_assign(t, ID_A, 1, two, 2, "0");
	check_assign(t, ID_B, 1, two, 2, "1");
	check_refused(t, ID_C, 1, two, 2, CLAW_ERR_EXISTS, "need 1 GPU, "
	    "0 free on this host (GPU 0 held by " ID_A ", GPU 1 held by "
	    ID_B ")");
	check_format(t, "0 " ID_A "\n1 " ID_B "\n");
	gpu_table_free(t);
}

/* Releasing a sandbox frees its GPUs for the next one. */
static void
test_release(void **state)
{
	struct gpu_table	*t = table_from("0 " ID_A "\n1 " ID_B "\n");

	(void)state;
	check_refused(t, ID_C, 2, two, 2, CLAW_ERR_EXISTS, "need 2 GPUs, "
	    "0 free on this host (GPU 0 held by " ID_A ", GPU 1 held by "
	    ID_B ")");
	gpu_table_release(t, ID_A);
	gpu_table_release(t, ID_D);
	gpu_table_release(NULL, ID_A);
	check_format(t, "1 " ID_B "\n");
	check_refused(t, ID_C, 2, two, 2, CLAW_ERR_EXISTS, "need 2 GPUs, "
	    "1 free on this host (GPU 1 held by " ID_B ")");
	check_assign(t, ID_C, 1, two, 2, "0");
	gpu_table_release(t, ID_B);
	gpu_table_release(t, ID_C);
	check_format(t, "");
	gpu_table_free(t);
}

/* GPUs held by sandboxes that are not live are taken back first. */
static void
test_stale(void **state)
{
	struct gpu_table	*t;
	const char *const	 live[] = { ID_B };
	int			*got = NULL;
	size_t			 ngot = 0;
	char			*cause = NULL;

	(void)state;
	t = table_from("0 " ID_A "\n1 " ID_B "\n5 " ID_D "\n");
	assert_int_equal(gpu_table_assign(t, ID_C, 1, two, 2, live, 1, &got,
	    &ngot, &cause), 0);
	assert_int_equal(ngot, 1);
	assert_int_equal(got[0], 0);
	free(got);
	check_format(t, "0 " ID_C "\n1 " ID_B "\n");
	/* Nothing live at all: the caller itself still keeps its GPUs. */
	assert_int_equal(gpu_table_assign(t, ID_C, 1, two, 2, NULL, 0, &got,
	    &ngot, &cause), 0);
	assert_int_equal(got[0], 0);
	free(got);
	check_format(t, "0 " ID_C "\n");
	gpu_table_free(t);
	/* Stale holders go even when the assignment then fails. */
	t = table_from("0 " ID_A "\n1 " ID_B "\n");
	assert_int_equal(gpu_table_assign(t, ID_C, 2, two, 2, live, 1, &got,
	    &ngot, &cause), CLAW_ERR_EXISTS);
	assert_string_equal(cause, "need 2 GPUs, 1 free on this host "
	    "(GPU 1 held by " ID_B ")");
	free(cause);
	check_format(t, "1 " ID_B "\n");
	gpu_table_free(t);
}

/* Asking again with the same count gives the same set; another count not. */
static void
test_idempotent(void **state)
{
	struct gpu_table	*t = table_from("");
	const int		 four[] = { 0, 1, 2, 3 };

	(void)state;
	check_assign(t, ID_A, 1, four, 4, "0");
	check_assign(t, ID_B, 2, four, 4, "1,2");
	check_assign(t, ID_B, 2, four, 4, "1,2");
	check_assign(t, ID_A, 1, four, 4, "0");
	check_refused(t, ID_B, 1, four, 4, CLAW_ERR_EXISTS,
	    "sandbox " ID_B " already holds 2 GPUs, not 1");
	check_refused(t, ID_A, 3, four, 4, CLAW_ERR_EXISTS,
	    "sandbox " ID_A " already holds 1 GPU, not 3");
	check_refused(t, ID_A, -1, four, 4, CLAW_ERR_EXISTS, NULL);
	check_format(t, "0 " ID_A "\n1 " ID_B "\n2 " ID_B "\n");
	gpu_table_free(t);
}

/* want -1 takes every present GPU; none present or too many is refused. */
static void
test_all(void **state)
{
	struct gpu_table	*t = table_from("");
	const int		 four[] = { 3, 0, 2, 1 };

	(void)state;
	check_refused(t, ID_A, -1, NULL, 0, CLAW_ERR_UNSUPPORTED,
	    "no GPUs on this host");
	check_refused(t, ID_A, 5, four, 4, CLAW_ERR_UNSUPPORTED,
	    "need 5 GPUs, this host has 4");
	check_assign(t, ID_A, -1, four, 4, "0,1,2,3");
	check_assign(t, ID_A, -1, four, 4, "0,1,2,3");
	check_assign(t, ID_A, 4, four, 4, "0,1,2,3");
	check_refused(t, ID_B, -1, four, 4, CLAW_ERR_EXISTS, "need 4 GPUs, "
	    "0 free on this host (GPU 0 held by " ID_A ", GPU 1 held by "
	    ID_A ", GPU 2 held by " ID_A ", GPU 3 held by " ID_A ")");
	gpu_table_free(t);
}

/* The lowest free present indexes are chosen; duplicates count once. */
static void
test_lowest_free(void **state)
{
	struct gpu_table	*t = table_from("1 " ID_B "\n");
	const int		 present[] = { 5, 1, 3, 1, 7 };

	(void)state;
	check_refused(t, ID_A, 5, present, 5, CLAW_ERR_UNSUPPORTED,
	    "need 5 GPUs, this host has 4");
	check_assign(t, ID_A, 2, present, 5, "3,5");
	check_assign(t, ID_C, 1, present, 5, "7");
	check_format(t, "1 " ID_B "\n3 " ID_A "\n5 " ID_A "\n7 " ID_C "\n");
	gpu_table_free(t);
}

/* The cause names at most eight holders. */
static void
test_busy_cap(void **state)
{
	struct gpu_table	*t = table_from("");
	int			 present[10];
	int			 i;

	(void)state;
	for (i = 0; i < 10; i++)
		present[i] = i;
	check_assign(t, ID_A, 10, present, 10, "0,1,2,3,4,5,6,7,8,9");
	check_refused(t, ID_B, 1, present, 10, CLAW_ERR_EXISTS, "need 1 GPU, "
	    "0 free on this host (GPU 0 held by " ID_A ", GPU 1 held by "
	    ID_A ", GPU 2 held by " ID_A ", GPU 3 held by " ID_A
	    ", GPU 4 held by " ID_A ", GPU 5 held by " ID_A
	    ", GPU 6 held by " ID_A ", GPU 7 held by " ID_A ", ...)");
	gpu_table_free(t);
}

/* Bad ids, counts and GPU lists are refused as invalid. */
static void
test_assign_bad_args(void **state)
{
	struct gpu_table	*t = table_from("");
	const int		 neg[] = { 0, -1 }, high[] = { 1024 };

	(void)state;
	check_refused(t, "c", 1, two, 2, CLAW_ERR_INVAL, "bad sandbox id");
	check_refused(t, "CAAAAAAAAAAAA", 1, two, 2, CLAW_ERR_INVAL, NULL);
	check_refused(t, ID_A "a", 1, two, 2, CLAW_ERR_INVAL, NULL);
	check_refused(t, NULL, 1, two, 2, CLAW_ERR_INVAL, NULL);
	check_refused(t, ID_A, 0, two, 2, CLAW_ERR_INVAL, NULL);
	check_refused(t, ID_A, -2, two, 2, CLAW_ERR_INVAL, NULL);
	check_refused(t, ID_A, 1, neg, 2, CLAW_ERR_INVAL,
	    "GPU index -1 outside 0..1023");
	check_refused(t, ID_A, 1, high, 1, CLAW_ERR_INVAL, NULL);
	check_refused(t, ID_A, 1, NULL, 2, CLAW_ERR_INVAL, NULL);
	check_format(t, "");
	gpu_table_free(t);
}

/* Hostile allocation files are refused with the line that is wrong. */
static void
test_parse_hostile(void **state)
{
	static const struct {
		const char	*text;
		const char	*cause;
	} bad[] = {
		{ "0 " ID_A "\nx " ID_B "\n",
		    "line 2: want \"INDEX SANDBOX_ID\"" },
		{ "01 " ID_A "\n", "line 1: bad GPU index (want 0..1023)" },
		{ "1024 " ID_A "\n", "line 1: bad GPU index (want 0..1023)" },
		{ "99999999999999999999 " ID_A "\n",
		    "line 1: bad GPU index (want 0..1023)" },
		{ "-1 " ID_A "\n", "line 1: want \"INDEX SANDBOX_ID\"" },
		{ " 0 " ID_A "\n", "line 1: want \"INDEX SANDBOX_ID\"" },
		{ "0\t" ID_A "\n", "line 1: want \"INDEX SANDBOX_ID\"" },
		{ "0\n", "line 1: want \"INDEX SANDBOX_ID\"" },
		{ "0 " ID_A "\n\n", "line 2: want \"INDEX SANDBOX_ID\"" },
		{ "\n", "line 1: want \"INDEX SANDBOX_ID\"" },
		{ "0 caaaaaaaaaaa1\n", "line 1: bad sandbox id" },
		{ "0 caaaaaaaaaaa\n", "line 1: bad sandbox id" },
		{ "0 caaaaaaaaaaaaa\n", "line 1: bad sandbox id" },
		{ "0 Caaaaaaaaaaaa\n", "line 1: bad sandbox id" },
		{ "0 daaaaaaaaaaaa\n", "line 1: bad sandbox id" },
		{ "0  " ID_A "\n", "line 1: bad sandbox id" },
		{ "0 " ID_A " \n", "line 1: bad sandbox id" },
		{ "0 " ID_A "\r\n", "line 1: bad sandbox id" },
		{ "0 " ID_A "\n1 " ID_A "\n0 " ID_B "\n",
		    "line 3: GPU 0 listed twice" },
	};
	struct gpu_table	*t = (struct gpu_table *)&t;
	char			*cause;
	size_t			 i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		if (gpu_table_parse(bad[i].text, strlen(bad[i].text), &t,
		    &cause) != CLAW_ERR_PARSE)
			fail_msg("accepted: %s", bad[i].text);
		assert_string_equal(cause, bad[i].cause);
		assert_true(t == (struct gpu_table *)&t);
		free(cause);
	}
	assert_int_equal(gpu_table_parse("0 " ID_A "\0\n", 16, &t, &cause),
	    CLAW_ERR_PARSE);
	assert_string_equal(cause, "GPU allocation file holds a NUL byte");
	free(cause);
}

/* Files over the byte or line cap are refused. */
static void
test_parse_huge(void **state)
{
	struct gpu_table	*t = NULL;
	struct buf		 b = BUF_INIT;
	char			*big, *cause = NULL;
	int			 i;

	(void)state;
	big = xmalloc(GPU_TABLE_MAX_BYTES + 1);
	memset(big, 'x', GPU_TABLE_MAX_BYTES + 1);
	assert_int_equal(gpu_table_parse(big, GPU_TABLE_MAX_BYTES + 1, &t,
	    &cause), CLAW_ERR_PARSE);
	assert_string_equal(cause, "GPU allocation file is 65537 bytes, "
	    "more than 65536");
	free(cause);
	free(big);
	for (i = 0; i <= GPU_INDEX_MAX; i++)
		buf_appendf(&b, "%d %s\n", i, ID_A);
	assert_int_equal(gpu_table_parse(b.data, b.len, &t, &cause), 0);
	gpu_table_free(t);
	buf_appendf(&b, "0 %s\n", ID_B);
	assert_int_equal(gpu_table_parse(b.data, b.len, &t, &cause),
	    CLAW_ERR_PARSE);
	assert_string_equal(cause, "line 1025: more than 1024 lines");
	free(cause);
	buf_free(&b);
}

/* Parse and format round-trip; order is normalised; last newline optional. */
static void
test_roundtrip(void **state)
{
	struct gpu_table	*t;
	const char		*text = "0 " ID_A "\n2 " ID_B "\n7 " ID_A
				    "\n1023 " ID_D "\n";
	char			*cause = NULL;

	(void)state;
	t = table_from(text);
	check_format(t, text);
	gpu_table_free(t);
	t = table_from("7 " ID_A "\n0 " ID_B);
	check_format(t, "0 " ID_B "\n7 " ID_A "\n");
	gpu_table_free(t);
	assert_int_equal(gpu_table_parse(NULL, 0, &t, &cause), 0);
	check_format(t, "");
	gpu_table_free(t);
	t = gpu_table_new();
	check_format(t, "");
	gpu_table_free(t);
	gpu_table_free(NULL);
}

/* Device listings: nvidiaN entries only, sorted and unique. */
static void
test_devices(void **state)
{
	const char	*list = "nvidia0\nnvidiactl\nnvidia-uvm\nnvidia10\n"
			    "nvidia-uvm-tools\nnvidia-caps\nnvidia1\nnvidia1\n"
			    "/dev/nvidia3\nsda\nnvidia01\nnvidia\nnvidia2x\n"
			    "xnvidia4\n\nnvidia1023";
	int		*idx = NULL;
	size_t		 n = 0;
	char		*cause = NULL, *vis;

	(void)state;
	assert_int_equal(gpu_parse_devices(list, strlen(list), &idx, &n,
	    &cause), 0);
	vis = gpu_visible(idx, n);
	assert_string_equal(vis, "0,1,3,10,1023");
	free(vis);
	free(idx);
	assert_int_equal(gpu_parse_devices("tty\nnull\n", 9, &idx, &n,
	    &cause), 0);
	assert_int_equal(n, 0);
	assert_null(idx);
	assert_int_equal(gpu_parse_devices(NULL, 0, &idx, &n, &cause), 0);
	assert_int_equal(n, 0);
	assert_int_equal(gpu_parse_devices("nvidia0\nnvidia1024\n", 19, &idx,
	    &n, &cause), CLAW_ERR_PARSE);
	assert_string_equal(cause, "line 2: GPU device index over 1023");
	free(cause);
	assert_int_equal(gpu_parse_devices("nvidia99999999999999999", 23,
	    &idx, &n, &cause), CLAW_ERR_PARSE);
	free(cause);
	assert_int_equal(gpu_parse_devices("nvidia0\0", 8, &idx, &n,
	    &cause), CLAW_ERR_PARSE);
	free(cause);
	assert_int_equal(gpu_parse_devices("x", GPU_DEVICES_MAX_BYTES + 1,
	    &idx, &n, &cause), CLAW_ERR_PARSE);
	free(cause);
}

/* The visible-devices value joins indexes with commas. */
static void
test_visible(void **state)
{
	const int	 got[] = { 0, 1, 12 };
	char		*s;

	(void)state;
	s = gpu_visible(got, 3);
	assert_string_equal(s, "0,1,12");
	free(s);
	s = gpu_visible(got, 1);
	assert_string_equal(s, "0");
	free(s);
	s = gpu_visible(NULL, 0);
	assert_string_equal(s, "");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_then_full),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_stale),
		cmocka_unit_test(test_idempotent),
		cmocka_unit_test(test_all),
		cmocka_unit_test(test_lowest_free),
		cmocka_unit_test(test_busy_cap),
		cmocka_unit_test(test_assign_bad_args),
		cmocka_unit_test(test_parse_hostile),
		cmocka_unit_test(test_parse_huge),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_devices),
		cmocka_unit_test(test_visible),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
