/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for patch parsing and applying: real git diff output, plain
 * diff -u, the agent format, and hostile or broken input.
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
#include "patch.h"
#include "xmalloc.h"

/* Output of "git diff --cached -M" in a scratch repository. */
static const char git_fixture[] =
	"diff --git a/added.txt b/added.txt\n"
	"new file mode 100644\n"
	"index 0000000..39963cd\n"
	"--- /dev/null\n"
	"+++ b/added.txt\n"
	"@@ -0,0 +1,2 @@\n"
	"+brand new\n"
	"+file\n"
	"diff --git a/addnl.txt b/addnl.txt\n"
	"index aab3d5b..a701e98 100644\n"
	"--- a/addnl.txt\n"
	"+++ b/addnl.txt\n"
	"@@ -1,2 +1,2 @@\n"
	" fine\n"
	"-last\n"
	"+last\n"
	"\\ No newline at end of file\n"
	"diff --git a/gone.txt b/gone.txt\n"
	"deleted file mode 100644\n"
	"index 29a125d..0000000\n"
	"--- a/gone.txt\n"
	"+++ /dev/null\n"
	"@@ -1,2 +0,0 @@\n"
	"-to be removed\n"
	"-bye\n"
	"diff --git a/old_name.txt b/new_name.txt\n"
	"similarity index 100%\n"
	"rename from old_name.txt\n"
	"rename to new_name.txt\n"
	"diff --git a/nonl.txt b/nonl.txt\n"
	"index 1045c4a..fb7c2f4 100644\n"
	"--- a/nonl.txt\n"
	"+++ b/nonl.txt\n"
	"@@ -1 +1 @@\n"
	"-no newline here\n"
	"\\ No newline at end of file\n"
	"+no newline here\n"
	"diff --git a/run.sh b/run.sh\n"
	"old mode 100644\n"
	"new mode 100755\n"
	"diff --git a/src.txt b/src.txt\n"
	"index ac9837c..5191c7f 100644\n"
	"--- a/src.txt\n"
	"+++ b/src.txt\n"
	"@@ -1,6 +1,6 @@\n"
	" line 1\n"
	" line 2\n"
	"-line 3\n"
	"+line three\n"
	" line 4\n"
	" line 5\n"
	" line 6\n"
	"@@ -12,7 +12,8 @@ line 11\n"
	" line 12\n"
	" line 13\n"
	" line 14\n"
	"-line 15\n"
	"+line fifteen\n"
	"+line 15.5\n"
	" line 16\n"
	" line 17\n"
	" line 18\n"
	"@@ -25,6 +26,5 @@ line 24\n"
	" line 25\n"
	" line 26\n"
	" line 27\n"
	"-line 28\n"
	" line 29\n"
	" line 30\n"
	"diff --git a/moved.txt b/sub_moved.txt\n"
	"similarity index 87%\n"
	"rename from moved.txt\n"
	"rename to sub_moved.txt\n"
	"index b00a0f1..0383414 100644\n"
	"--- a/moved.txt\n"
	"+++ b/sub_moved.txt\n"
	"@@ -2,7 +2,7 @@ one\n"
	" two\n"
	" three\n"
	" four\n"
	"-five\n"
	"+FIVE\n"
	" six\n"
	" seven\n"
	" eight\n";

/* Output of "diff -u notes.txt.orig notes.txt". */
static const char plain_fixture[] =
	"--- notes.txt.orig\t2026-11-30 10:00:00.000000000 +0000\n"
	"+++ notes.txt\t2026-12-01 11:30:00.000000000 +0000\n"
	"@@ -1,4 +1,5 @@\n"
	" alpha\n"
	"-beta\n"
	"+BETA\n"
	" gamma\n"
	" delta\n"
	"+epsilon\n";

/* The src.txt hunks of git_fixture alone. */
static const char src_diff[] =
	"diff --git a/src.txt b/src.txt\n"
	"--- a/src.txt\n"
	"+++ b/src.txt\n"
	"@@ -1,6 +1,6 @@\n"
	" line 1\n"
	" line 2\n"
	"-line 3\n"
	"+line three\n"
	" line 4\n"
	" line 5\n"
	" line 6\n"
	"@@ -12,7 +12,8 @@ line 11\n"
	" line 12\n"
	" line 13\n"
	" line 14\n"
	"-line 15\n"
	"+line fifteen\n"
	"+line 15.5\n"
	" line 16\n"
	" line 17\n"
	" line 18\n";

/* Parse text, which must succeed. */
static struct patch *
parse_ok(const char *text)
{
	struct patch	*p = NULL;
	char		*cause = NULL;
	int		 r;

	r = patch_parse(text, strlen(text), &p, &cause);
	if (r != 0)
		print_error("unexpected: %s\n", cause);
	assert_int_equal(r, 0);
	assert_null(cause);
	assert_non_null(p);
	return p;
}

/* Parse text, which must fail with err; return the message. */
static char *
parse_err(const char *text, size_t len, int err)
{
	struct patch	*p = NULL;
	char		*cause = NULL;

	assert_int_equal(patch_parse(text, len, &p, &cause), err);
	assert_null(p);
	assert_non_null(cause);
	return cause;
}

/* Return the change whose new (or else old) path is path. */
static const struct patch_file *
find_file(const struct patch *p, const char *path)
{
	const struct patch_file	*pf;
	size_t			 i;

	for (i = 0; i < p->n; i++) {
		pf = &p->files[i];
		if ((pf->new_path != NULL && strcmp(pf->new_path, path) == 0) ||
		    (pf->new_path == NULL && strcmp(pf->old_path, path) == 0))
			return pf;
	}
	fail_msg("no change for %s", path);
	return NULL;
}

/* Apply pf to old (a C string, or NULL), which must give want. */
static void
apply_ok(const struct patch_file *pf, const char *old, const char *want)
{
	char	*out = NULL, *cause = NULL;
	size_t	 outlen = 99;
	int	 r;

	r = patch_apply(pf, old, old == NULL ? 0 : strlen(old), &out, &outlen,
	    &cause);
	if (r != 0)
		print_error("unexpected: %s\n", cause);
	assert_int_equal(r, 0);
	assert_null(cause);
	if (want == NULL) {
		assert_null(out);
		assert_int_equal(outlen, 0);
		return;
	}
	assert_non_null(out);
	assert_int_equal(outlen, strlen(want));
	assert_memory_equal(out, want, outlen);
	free(out);
}

/* Apply pf to old, which must fail with err; return the message. */
static char *
apply_err(const struct patch_file *pf, const char *old, int err)
{
	char	*out = NULL, *cause = NULL;
	size_t	 outlen = 99;

	assert_int_equal(patch_apply(pf, old, old == NULL ? 0 : strlen(old),
	    &out, &outlen, &cause), err);
	assert_null(out);
	assert_int_equal(outlen, 99);
	assert_non_null(cause);
	return cause;
}

/* Return "line 1\n" .. "line 30\n", with extra lines first. */
static char *
src_text(const char *prefix)
{
	struct buf	b = BUF_INIT;
	int		i;

	buf_append_str(&b, prefix);
	for (i = 1; i <= 30; i++)
		buf_appendf(&b, "line %d\n", i);
	return buf_detach(&b);
}

/* src_text() after the src.txt hunks of the fixture. */
static char *
src_want(const char *prefix, int last_hunk)
{
	struct buf	b = BUF_INIT;
	int		i;

	buf_append_str(&b, prefix);
	for (i = 1; i <= 30; i++) {
		if (i == 3)
			buf_append_str(&b, "line three\n");
		else if (i == 15)
			buf_append_str(&b, "line fifteen\nline 15.5\n");
		else if (i != 28 || !last_hunk)
			buf_appendf(&b, "line %d\n", i);
	}
	return buf_detach(&b);
}

/* The fixture holds one change per file, in order, with git's kinds. */
static void
test_git_fixture_files(void **state)
{
	struct patch	*p;

	(void)state;
	p = parse_ok(git_fixture);
	assert_int_equal(p->n, 8);
	assert_int_equal(p->files[0].kind, PATCH_ADD);
	assert_null(p->files[0].old_path);
	assert_int_equal(p->files[2].kind, PATCH_DELETE);
	assert_string_equal(p->files[2].old_path, "gone.txt");
	assert_null(p->files[2].new_path);
	assert_int_equal(p->files[6].kind, PATCH_UPDATE);
	assert_string_equal(p->files[6].old_path, "src.txt");
	assert_string_equal(p->files[6].new_path, "src.txt");
	assert_int_equal(p->files[6].new_mode, -1);
	patch_free(p);
}

/* Several hunks of a git diff apply to the file. */
static void
test_git_modify(void **state)
{
	struct patch	*p;
	char		*old, *want;

	(void)state;
	p = parse_ok(git_fixture);
	old = src_text("");
	want = src_want("", 1);
	apply_ok(find_file(p, "src.txt"), old, want);
	free(old);
	free(want);
	patch_free(p);
}

/* A new file is made from /dev/null, with its mode. */
static void
test_git_new_file(void **state)
{
	struct patch		*p;
	const struct patch_file	*pf;

	(void)state;
	p = parse_ok(git_fixture);
	pf = find_file(p, "added.txt");
	assert_int_equal(pf->kind, PATCH_ADD);
	assert_int_equal(pf->new_mode, 0644);
	apply_ok(pf, NULL, "brand new\nfile\n");
	patch_free(p);
}

/* A deleted file passes the check when it holds the removed lines. */
static void
test_git_delete_ok(void **state)
{
	struct patch	*p;

	(void)state;
	p = parse_ok(git_fixture);
	apply_ok(find_file(p, "gone.txt"), "to be removed\nbye\n", NULL);
	patch_free(p);
}

/* A deleted file that differs from the removed lines is an error. */
static void
test_git_delete_mismatch(void **state)
{
	struct patch	*p;
	char		*cause;

	(void)state;
	p = parse_ok(git_fixture);
	cause = apply_err(find_file(p, "gone.txt"),
	    "to be removed\nbye\nmore\n", CLAW_ERR_NOTFOUND);
	assert_string_equal(cause,
	    "gone.txt: file to delete does not match the patch");
	free(cause);
	cause = apply_err(find_file(p, "gone.txt"), "to be removed\nBYE\n",
	    CLAW_ERR_NOTFOUND);
	free(cause);
	patch_free(p);
}

/* A pure rename has no hunks and keeps the content. */
static void
test_git_pure_rename(void **state)
{
	struct patch		*p;
	const struct patch_file	*pf;

	(void)state;
	p = parse_ok(git_fixture);
	pf = find_file(p, "new_name.txt");
	assert_int_equal(pf->kind, PATCH_UPDATE);
	assert_string_equal(pf->old_path, "old_name.txt");
	apply_ok(pf, "keep me\nalpha\nbeta\n", "keep me\nalpha\nbeta\n");
	patch_free(p);
}

/* A rename with changes moves the file and applies its hunk. */
static void
test_git_rename_changes(void **state)
{
	struct patch		*p;
	const struct patch_file	*pf;

	(void)state;
	p = parse_ok(git_fixture);
	pf = find_file(p, "sub_moved.txt");
	assert_int_equal(pf->kind, PATCH_UPDATE);
	assert_string_equal(pf->old_path, "moved.txt");
	apply_ok(pf, "one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n",
	    "one\ntwo\nthree\nfour\nFIVE\nsix\nseven\neight\n");
	patch_free(p);
}

/* A mode change alone gives the new mode and the same content. */
static void
test_git_mode_change(void **state)
{
	struct patch		*p;
	const struct patch_file	*pf;

	(void)state;
	p = parse_ok(git_fixture);
	pf = find_file(p, "run.sh");
	assert_int_equal(pf->kind, PATCH_UPDATE);
	assert_int_equal(pf->new_mode, 0755);
	apply_ok(pf, "#!/bin/sh\necho hi\n", "#!/bin/sh\necho hi\n");
	patch_free(p);
}

/* A symlink (mode 120000) is refused. */
static void
test_git_symlink_refused(void **state)
{
	char	*cause;
	const char text[] =
	    "diff --git a/l b/l\n"
	    "new file mode 120000\n"
	    "--- /dev/null\n"
	    "+++ b/l\n"
	    "@@ -0,0 +1 @@\n"
	    "+/etc/passwd\n"
	    "\\ No newline at end of file\n";

	(void)state;
	cause = parse_err(text, strlen(text), CLAW_ERR_UNSUPPORTED);
	assert_non_null(strstr(cause, "patch line 2: file mode 120000"));
	free(cause);
}

/* A final newline is added where the old file had none. */
static void
test_nonl_add_newline(void **state)
{
	struct patch	*p;

	(void)state;
	p = parse_ok(git_fixture);
	apply_ok(find_file(p, "nonl.txt"), "no newline here",
	    "no newline here\n");
	patch_free(p);
}

/* A final newline is removed. */
static void
test_nonl_remove_newline(void **state)
{
	struct patch	*p;
	char		*cause;

	(void)state;
	p = parse_ok(git_fixture);
	apply_ok(find_file(p, "addnl.txt"), "fine\nlast\n", "fine\nlast");
	cause = apply_err(find_file(p, "addnl.txt"), "fine\nlast",
	    CLAW_ERR_NOTFOUND);
	free(cause);
	patch_free(p);
}

/* Hunks apply at an offset when lines were added above them. */
static void
test_hunk_offset(void **state)
{
	struct patch	*p;
	char		*old, *want;

	(void)state;
	p = parse_ok(src_diff);
	old = src_text("new 1\nnew 2\nnew 3\n");
	want = src_want("new 1\nnew 2\nnew 3\n", 0);
	apply_ok(&p->files[0], old, want);
	free(old);
	free(want);
	patch_free(p);
}

/* A hunk whose lines are nowhere is named with its header. */
static void
test_hunk_mismatch(void **state)
{
	struct patch	*p;
	char		*old, *cause;

	(void)state;
	p = parse_ok(src_diff);
	old = src_text("");
	old[strstr(old, "line 15\n") - old] = 'L';
	cause = apply_err(&p->files[0], old, CLAW_ERR_NOTFOUND);
	assert_string_equal(cause,
	    "src.txt: hunk 2 (@@ -12,7 +12,8 @@) does not apply");
	free(cause);
	free(old);
	patch_free(p);
}

/* Hunks apply in order: the second may not match before the first. */
static void
test_hunk_order(void **state)
{
	struct patch	*p;
	char		*cause;
	const char text[] =
	    "--- a/f\n+++ b/f\n"
	    "@@ -3,1 +3,1 @@\n-b\n+B\n"
	    "@@ -5,1 +5,1 @@\n-a\n+A\n";

	(void)state;
	p = parse_ok(text);
	apply_ok(&p->files[0], "x\nx\nb\nx\na\n", "x\nx\nB\nx\nA\n");
	cause = apply_err(&p->files[0], "a\nx\nb\nx\nx\n", CLAW_ERR_NOTFOUND);
	assert_string_equal(cause,
	    "f: hunk 2 (@@ -5,1 +5,1 @@) does not apply");
	free(cause);
	patch_free(p);
}

/* A hunk cut short is a parse error naming the line. */
static void
test_truncated_hunk(void **state)
{
	char	*cause;
	size_t	 len;

	(void)state;
	len = strstr(src_diff, " line 16\n") - src_diff;
	cause = parse_err(src_diff, len, CLAW_ERR_PARSE);
	assert_string_equal(cause, "patch line 19: patch ends inside a hunk "
	    "(3 old and 3 new lines missing)");
	free(cause);
}

/* A hunk with a line its header does not count is a parse error. */
static void
test_garbled_hunk(void **state)
{
	char	*cause;
	const char text[] =
	    "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n-c\n+B\n";
	const char longer[] =
	    "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n+C\n";
	const char junk[] =
	    "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\nwhat\n";

	(void)state;
	cause = parse_err(text, strlen(text), CLAW_ERR_PARSE);
	assert_string_equal(cause, "patch line 6: hunk does not match its "
	    "header (0 old and 1 new lines expected)");
	free(cause);
	cause = parse_err(longer, strlen(longer), CLAW_ERR_PARSE);
	assert_string_equal(cause,
	    "patch line 7: hunk is longer than its header says");
	free(cause);
	cause = parse_err(junk, strlen(junk), CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "patch line 6: "));
	free(cause);
}

/* A bad hunk header is a parse error. */
static void
test_bad_hunk_header(void **state)
{
	char	*cause;
	const char text[] = "--- a/f\n+++ b/f\n@@ -1,x +1 @@\n a\n";
	const char huge[] =
	    "--- a/f\n+++ b/f\n@@ -1,99999999999999999999 +1 @@\n a\n";

	(void)state;
	cause = parse_err(text, strlen(text), CLAW_ERR_PARSE);
	assert_string_equal(cause, "patch line 3: bad hunk header");
	free(cause);
	cause = parse_err(huge, strlen(huge), CLAW_ERR_PARSE);
	assert_string_equal(cause, "patch line 3: bad hunk header");
	free(cause);
}

/* Binary patches are refused, naming the file. */
static void
test_binary_refused(void **state)
{
	char	*cause;
	const char git[] =
	    "diff --git a/bin.dat b/bin.dat\n"
	    "new file mode 100644\n"
	    "index 0000000000000000000000000000000000000000..ecde95de0927\n"
	    "GIT binary patch\n"
	    "literal 300\n";
	const char differ[] =
	    "diff --git a/bin.dat b/bin.dat\n"
	    "new file mode 100644\n"
	    "index 0000000..ecde95d\n"
	    "Binary files /dev/null and b/bin.dat differ\n";
	const char plain[] = "Binary files x/img.png and y/img.png differ\n";

	(void)state;
	cause = parse_err(git, strlen(git), CLAW_ERR_UNSUPPORTED);
	assert_string_equal(cause,
	    "patch line 4: bin.dat: binary patches are not supported");
	free(cause);
	cause = parse_err(differ, strlen(differ), CLAW_ERR_UNSUPPORTED);
	assert_string_equal(cause,
	    "patch line 4: bin.dat: binary patches are not supported");
	free(cause);
	cause = parse_err(plain, strlen(plain), CLAW_ERR_UNSUPPORTED);
	assert_string_equal(cause, "patch line 1: binary patches are not "
	    "supported: x/img.png and y/img.png");
	free(cause);
}

/* Combined diffs of merges are refused rather than skipped as junk. */
static void
test_combined_refused(void **state)
{
	char	*cause;
	const char text[] =
	    "diff --cc m.c\n"
	    "index 1a2b3c4,5d6e7f8..9a0b1c2\n"
	    "--- a/m.c\n"
	    "+++ b/m.c\n"
	    "@@@ -1,1 -1,1 +1,1 @@@\n"
	    "- a\n"
	    " -b\n"
	    "++c\n";

	(void)state;
	cause = parse_err(text, strlen(text), CLAW_ERR_UNSUPPORTED);
	assert_string_equal(cause, "patch line 1: combined (merge) diffs are "
	    "not supported");
	free(cause);
}

/* Plain diff -u: timestamps dropped, the shorter name is the target. */
static void
test_plain_diff(void **state)
{
	struct patch	*p;

	(void)state;
	p = parse_ok(plain_fixture);
	assert_int_equal(p->n, 1);
	assert_int_equal(p->files[0].kind, PATCH_UPDATE);
	assert_string_equal(p->files[0].old_path, "notes.txt");
	assert_string_equal(p->files[0].new_path, "notes.txt");
	assert_int_equal(p->files[0].new_mode, -1);
	apply_ok(&p->files[0], "alpha\nbeta\ngamma\ndelta\n",
	    "alpha\nBETA\ngamma\ndelta\nepsilon\n");
	patch_free(p);
}

/* a/ and b/ are stripped only when both names carry them. */
static void
test_plain_prefixes(void **state)
{
	struct patch	*p;
	const char both[] = "--- a/d/f.c\t2026-01-01\n+++ b/d/f.c\t2026-01-02\n"
	    "@@ -1 +1 @@\n-x\n+y\n";
	const char one[] = "--- a/f.c\n+++ f.c\n@@ -1 +1 @@\n-x\n+y\n";

	(void)state;
	p = parse_ok(both);
	assert_string_equal(p->files[0].old_path, "d/f.c");
	patch_free(p);
	p = parse_ok(one);
	assert_string_equal(p->files[0].old_path, "f.c");
	assert_string_equal(p->files[0].new_path, "f.c");
	patch_free(p);
}

/* git's quoted names are decoded. */
static void
test_git_quoted_name(void **state)
{
	struct patch	*p;
	const char text[] =
	    "diff --git \"a/q/tab\\\\there.txt\" \"b/q/tab\\\\there.txt\"\n"
	    "index 587be6b..975fbec 100644\n"
	    "--- \"a/q/tab\\\\there.txt\"\n"
	    "+++ \"b/q/tab\\\\there.txt\"\n"
	    "@@ -1 +1 @@\n"
	    "-x\n"
	    "+y\n"
	    "diff --git \"a/\\303\\251 \\\"q\\\"\" \"b/\\303\\251 \\\"q\\\"\"\n"
	    "new file mode 100755\n";

	(void)state;
	p = parse_ok(text);
	assert_int_equal(p->n, 2);
	assert_string_equal(p->files[0].old_path, "q/tab\\there.txt");
	assert_string_equal(p->files[1].new_path, "\xc3\xa9 \"q\"");
	assert_int_equal(p->files[1].new_mode, 0755);
	apply_ok(&p->files[1], NULL, "");
	patch_free(p);
}

/* CRLF files keep their "\r" through both formats. */
static void
test_crlf_preserved(void **state)
{
	struct patch	*p;
	const char unified[] = "--- a/w\n+++ b/w\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n"
	    "+B\r\n";
	const char agent[] = "*** Begin Patch\n*** Update File: w\n@@\n a\n-b\n"
	    "+B\r\n*** End Patch\n";

	(void)state;
	p = parse_ok(unified);
	apply_ok(&p->files[0], "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n");
	patch_free(p);
	p = parse_ok(agent);
	apply_ok(&p->files[0], "a\r\nb\r\nc\r\n", "a\r\nB\r\nc\r\n");
	patch_free(p);
}

static const char agent_fixture[] =
	"*** Begin Patch\n"
	"*** Add File: path/new.txt\n"
	"+line one\n"
	"+line two\n"
	"*** Update File: path/old.txt\n"
	"@@\n"
	" keep\n"
	"-removed\n"
	"+added\n"
	" context\n"
	"*** Update File: path/mv.txt\n"
	"*** Move to: path/renamed.txt\n"
	"@@\n"
	"-x\n"
	"+y\n"
	"*** Delete File: path/gone.txt\n"
	"*** End Patch\n";

/* Agent Add File makes the '+' lines. */
static void
test_agent_add(void **state)
{
	struct patch		*p;
	const struct patch_file	*pf;

	(void)state;
	p = parse_ok(agent_fixture);
	assert_int_equal(p->n, 4);
	pf = &p->files[0];
	assert_int_equal(pf->kind, PATCH_ADD);
	assert_string_equal(pf->new_path, "path/new.txt");
	assert_null(pf->old_path);
	assert_int_equal(pf->new_mode, -1);
	apply_ok(pf, NULL, "line one\nline two\n");
	patch_free(p);
}

/* Agent Update File replaces the matched lines. */
static void
test_agent_update(void **state)
{
	struct patch	*p;

	(void)state;
	p = parse_ok(agent_fixture);
	assert_int_equal(p->files[1].kind, PATCH_UPDATE);
	assert_string_equal(p->files[1].new_path, "path/old.txt");
	apply_ok(&p->files[1], "top\nkeep\nremoved\ncontext\nend\n",
	    "top\nkeep\nadded\ncontext\nend\n");
	patch_free(p);
}

/* Agent Move to renames the file. */
static void
test_agent_move(void **state)
{
	struct patch	*p;

	(void)state;
	p = parse_ok(agent_fixture);
	assert_int_equal(p->files[2].kind, PATCH_UPDATE);
	assert_string_equal(p->files[2].old_path, "path/mv.txt");
	assert_string_equal(p->files[2].new_path, "path/renamed.txt");
	apply_ok(&p->files[2], "x\n", "y\n");
	patch_free(p);
}

/* Agent Delete File is not checked against the content. */
static void
test_agent_delete(void **state)
{
	struct patch	*p;

	(void)state;
	p = parse_ok(agent_fixture);
	assert_int_equal(p->files[3].kind, PATCH_DELETE);
	assert_string_equal(p->files[3].old_path, "path/gone.txt");
	assert_null(p->files[3].new_path);
	apply_ok(&p->files[3], "anything\n", NULL);
	patch_free(p);
}

/* "@@ TEXT" finds TEXT first, then the chunk after it. */
static void
test_agent_context_header(void **state)
{
	struct patch	*p;
	const char text[] =
	    "*** Begin Patch\n*** Update File: m.py\n"
	    "@@ def two():\n"
	    "-    return 1\n"
	    "+    return 2\n"
	    "@@ def three():\n"
	    "+    # three\n"
	    "*** End Patch\n";

	(void)state;
	p = parse_ok(text);
	apply_ok(&p->files[0],
	    "def one():\n    return 1\ndef two():\n    return 1\n"
	    "def three():\n    return 1\n",
	    "def one():\n    return 1\ndef two():\n    return 2\n"
	    "def three():\n    # three\n    return 1\n");
	patch_free(p);
}

/* Whitespace differences are tolerated, and the file's bytes kept. */
static void
test_agent_whitespace(void **state)
{
	struct patch	*p;
	const char text[] =
	    "*** Begin Patch\n*** Update File: w.c\n@@\n"
	    " int x;  \n"
	    "-int y;\n"
	    "+int z;\n"
	    " int w;\n"
	    "*** End Patch\n";

	(void)state;
	p = parse_ok(text);
	apply_ok(&p->files[0], "int x;\n\tint y;\t\nint w;\n",
	    "int x;\nint z;\nint w;\n");
	apply_ok(&p->files[0], "int x;\nint y;\n  int w;\n",
	    "int x;\nint z;\n  int w;\n");
	patch_free(p);
}

/* A chunk ending "*** End of File" matches only at the end. */
static void
test_agent_end_of_file(void **state)
{
	struct patch	*p;
	char		*cause;
	const char text[] =
	    "*** Begin Patch\n*** Update File: e\n@@\n"
	    " a\n"
	    "+b\n"
	    "*** End of File\n"
	    "*** End Patch\n";

	(void)state;
	p = parse_ok(text);
	apply_ok(&p->files[0], "a\nx\na\n", "a\nx\na\nb\n");
	cause = apply_err(&p->files[0], "a\nx\n", CLAW_ERR_NOTFOUND);
	assert_string_equal(cause, "e: chunk 1 does not apply: expected lines "
	    "not found at end of file: a");
	free(cause);
	patch_free(p);
}

/* An agent update keeps whether the file ends in a newline. */
static void
test_agent_keeps_final_newline(void **state)
{
	struct patch	*p;
	const char text[] =
	    "*** Begin Patch\n*** Update File: n\n@@\n a\n+b\n*** End Patch\n";

	(void)state;
	p = parse_ok(text);
	apply_ok(&p->files[0], "a", "a\nb");
	apply_ok(&p->files[0], "a\n", "a\nb\n");
	patch_free(p);
}

/* A chunk that is not there names the chunk and the missing line. */
static void
test_agent_not_found(void **state)
{
	struct patch	*p;
	char		*cause;
	const char text[] =
	    "*** Begin Patch\n*** Update File: src/a.c\n@@\n"
	    " one\n-two\n+2\n@@\n"
	    " three\n"
	    " four\n"
	    "-this line is not in the file and it is rather long, it goes on\n"
	    "*** End Patch\n";

	(void)state;
	p = parse_ok(text);
	cause = apply_err(&p->files[0], "one\ntwo\nthree\nfour\nfive\n",
	    CLAW_ERR_NOTFOUND);
	assert_string_equal(cause, "src/a.c: chunk 2 does not apply: expected "
	    "lines not found: this line is not in the file and it is rather "
	    "long, it goes ...");
	free(cause);
	patch_free(p);
}

/* A missing "@@ TEXT" line is named. */
static void
test_agent_header_not_found(void **state)
{
	struct patch	*p;
	char		*cause;
	const char text[] =
	    "*** Begin Patch\n*** Update File: f\n@@ class \x01Gone:\n"
	    " x\n+y\n*** End Patch\n";

	(void)state;
	p = parse_ok(text);
	cause = apply_err(&p->files[0], "x\n", CLAW_ERR_NOTFOUND);
	assert_string_equal(cause,
	    "f: chunk 1 does not apply: @@ line not found: class ?Gone:");
	free(cause);
	patch_free(p);
}

/* An agent patch without "*** End Patch" is refused. */
static void
test_agent_missing_end(void **state)
{
	char	*cause;
	const char text[] =
	    "*** Begin Patch\n*** Add File: a\n+x\n";

	(void)state;
	cause = parse_err(text, strlen(text), CLAW_ERR_PARSE);
	assert_string_equal(cause, "patch line 3: missing *** End Patch");
	free(cause);
}

/* Malformed agent sections are parse errors naming the line. */
static void
test_agent_malformed(void **state)
{
	char		*cause;
	size_t		 i;
	const char	*bad[] = {
	    "*** Begin Patch\n*** Frobnicate: a\n*** End Patch\n",
	    "*** Begin Patch\n*** Add File: a\nx\n*** End Patch\n",
	    "*** Begin Patch\n*** Update File: a\n*** End Patch\n",
	    "*** Begin Patch\n*** Update File: a\n@@\n*** End Patch\n",
	    "*** Begin Patch\n*** Add File: \n+x\n*** End Patch\n",
	    "*** Begin Patch\n*** Delete File: a\n*** End Patch\nmore\n",
	};
	const char	*want[] = {
	    "2: expected *** Add File", "3: expected *** Add File",
	    "2: no changes for a", "4: empty chunk", "2: empty file name",
	    "4: text after *** End Patch",
	};

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = parse_err(bad[i], strlen(bad[i]), CLAW_ERR_PARSE);
		assert_int_equal(strncmp(cause, "patch line ", 11), 0);
		assert_non_null(strstr(cause, want[i]));
		free(cause);
	}
}

/* A path changed twice, or an empty one, is refused. */
static void
test_duplicate_and_empty_paths(void **state)
{
	char	*cause;
	const char dup[] = "*** Begin Patch\n*** Delete File: a\n"
	    "*** Add File: b\n+x\n*** Update File: c\n*** Move to: a\n"
	    "*** End Patch\n";
	const char empty[] = "--- a/\n+++ b/\n@@ -1 +1 @@\n-x\n+y\n";

	(void)state;
	cause = parse_err(dup, strlen(dup), CLAW_ERR_PARSE);
	assert_string_equal(cause, "patch line 5: a is changed twice");
	free(cause);
	cause = parse_err(empty, strlen(empty), CLAW_ERR_PARSE);
	assert_string_equal(cause, "patch line 1: empty file name");
	free(cause);
}

/* Control bytes in a name never reach a message. */
static void
test_hostile_name_escaped(void **state)
{
	struct patch	*p;
	char		*cause;
	const char text[] = "*** Begin Patch\n*** Update File: \x1b[2Jx\n"
	    "@@\n-gone\n*** End Patch\n";

	(void)state;
	p = parse_ok(text);
	cause = apply_err(&p->files[0], "here\n", CLAW_ERR_NOTFOUND);
	assert_string_equal(cause, "?[2Jx: chunk 1 does not apply: expected "
	    "lines not found: gone");
	free(cause);
	patch_free(p);
}

/* Garbage without any file header is "no changes". */
static void
test_garbage(void **state)
{
	char	*cause;
	const char text[] = "hello\nthis is not a patch\n+++ nor this\n- x\n";
	const char hunk[] = "just a hunk\n@@ -1 +1 @@\n-a\n+b\n";

	(void)state;
	cause = parse_err(text, strlen(text), CLAW_ERR_PARSE);
	assert_string_equal(cause, "no changes in patch");
	free(cause);
	cause = parse_err(hunk, strlen(hunk), CLAW_ERR_PARSE);
	assert_string_equal(cause, "patch line 2: hunk without ---/+++ lines");
	free(cause);
}

/* Empty and blank input are "no changes". */
static void
test_empty(void **state)
{
	char	*cause;

	(void)state;
	cause = parse_err("", 0, CLAW_ERR_PARSE);
	assert_string_equal(cause, "no changes in patch");
	free(cause);
	cause = parse_err("\n\n  \n", 5, CLAW_ERR_PARSE);
	assert_string_equal(cause, "no changes in patch");
	free(cause);
}

/* NUL bytes are refused with their line. */
static void
test_nul_bytes(void **state)
{
	char	*cause;
	const char text[] = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\0\n+b\n";

	(void)state;
	cause = parse_err(text, sizeof text - 1, CLAW_ERR_PARSE);
	assert_string_equal(cause, "patch line 4: binary data in patch");
	free(cause);
}

/* ADD takes no old content; misuse is CLAW_ERR_INVAL. */
static void
test_apply_misuse(void **state)
{
	struct patch	*p;
	char		*cause;

	(void)state;
	p = parse_ok(agent_fixture);
	cause = apply_err(&p->files[0], "", CLAW_ERR_INVAL);
	free(cause);
	patch_free(p);
	patch_free(NULL);
}

/* Return a pseudo-random number (xorshift, fixed seed). */
static uint32_t
fuzz_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* Parse and apply one mutated copy of src; it may fail, never crash. */
static void
fuzz_one(const char *src, size_t len, uint32_t *seed)
{
	static const char	 alphabet[] = "\n +-@\\,0123456789*/abdN";
	struct patch		*p = NULL;
	char			*t, *cause = NULL, *out;
	size_t			 i, n, outlen;

	t = xmalloc(len + 1);
	memcpy(t, src, len);
	n = 1 + fuzz_rand(seed) % 4;
	for (i = 0; i < n; i++)
		t[fuzz_rand(seed) % len] =
		    alphabet[fuzz_rand(seed) % (sizeof alphabet - 1)];
	len -= fuzz_rand(seed) % 2 ? fuzz_rand(seed) % len : 0;
	if (patch_parse(t, len, &p, &cause) != 0) {
		assert_non_null(cause);
		free(cause);
	} else {
		for (i = 0; i < p->n; i++) {
			out = NULL;
			cause = NULL;
			if (patch_apply(&p->files[i], p->files[i].kind ==
			    PATCH_ADD ? NULL : "line 1\nline 2\nx\n",
			    p->files[i].kind == PATCH_ADD ? 0 : 15, &out,
			    &outlen, &cause) == 0)
				free(out);
			free(cause);
		}
		patch_free(p);
	}
	free(t);
}

/* Mutated fixtures give an error or a patch, never a crash or leak. */
static void
test_fuzz(void **state)
{
	uint32_t	seed = 0x9e3779b9;
	int		i;

	(void)state;
	for (i = 0; i < 3000; i++) {
		fuzz_one(git_fixture, sizeof git_fixture - 1, &seed);
		fuzz_one(agent_fixture, sizeof agent_fixture - 1, &seed);
		fuzz_one(plain_fixture, sizeof plain_fixture - 1, &seed);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_git_fixture_files),
		cmocka_unit_test(test_git_modify),
		cmocka_unit_test(test_git_new_file),
		cmocka_unit_test(test_git_delete_ok),
		cmocka_unit_test(test_git_delete_mismatch),
		cmocka_unit_test(test_git_pure_rename),
		cmocka_unit_test(test_git_rename_changes),
		cmocka_unit_test(test_git_mode_change),
		cmocka_unit_test(test_git_symlink_refused),
		cmocka_unit_test(test_nonl_add_newline),
		cmocka_unit_test(test_nonl_remove_newline),
		cmocka_unit_test(test_hunk_offset),
		cmocka_unit_test(test_hunk_mismatch),
		cmocka_unit_test(test_hunk_order),
		cmocka_unit_test(test_truncated_hunk),
		cmocka_unit_test(test_garbled_hunk),
		cmocka_unit_test(test_bad_hunk_header),
		cmocka_unit_test(test_binary_refused),
		cmocka_unit_test(test_combined_refused),
		cmocka_unit_test(test_plain_diff),
		cmocka_unit_test(test_plain_prefixes),
		cmocka_unit_test(test_git_quoted_name),
		cmocka_unit_test(test_crlf_preserved),
		cmocka_unit_test(test_agent_add),
		cmocka_unit_test(test_agent_update),
		cmocka_unit_test(test_agent_move),
		cmocka_unit_test(test_agent_delete),
		cmocka_unit_test(test_agent_context_header),
		cmocka_unit_test(test_agent_whitespace),
		cmocka_unit_test(test_agent_end_of_file),
		cmocka_unit_test(test_agent_keeps_final_newline),
		cmocka_unit_test(test_agent_not_found),
		cmocka_unit_test(test_agent_header_not_found),
		cmocka_unit_test(test_agent_missing_end),
		cmocka_unit_test(test_agent_malformed),
		cmocka_unit_test(test_duplicate_and_empty_paths),
		cmocka_unit_test(test_hostile_name_escaped),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_nul_bytes),
		cmocka_unit_test(test_apply_misuse),
		cmocka_unit_test(test_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
