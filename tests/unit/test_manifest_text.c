/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for manifests in memory: the text format (escaping, round
 * trips, malformed and over-limit input), the remote listing parser and
 * the diff.  No files are touched; see test_manifest.c for those.
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
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "capture.h"
#include "error.h"
#include "manifest.h"
#include "xmalloc.h"

#define HDR	"clawssh-manifest 1\n"
#define H1	"00112233445566778899aabbccddeeff" \
		"00112233445566778899aabbccddeeff"
#define H2	"ffeeddccbbaa99887766554433221100" \
		"ffeeddccbbaa99887766554433221100"
#define T1	"1.000000000"
#define T2	"2.000000000"

/* A manifest that no parser may hand back: checks out-pointers. */
static struct manifest	sentinel;

/* Parse HDR + body, which must succeed. */
static struct manifest *
mk(const char *body)
{
	struct manifest	*m = NULL;
	char		*text, *cause = NULL;
	int		 r;

	text = xasprintf("%s%s", HDR, body);
	r = manifest_parse(text, strlen(text), NULL, &m, &cause);
	if (r != 0)
		fail_msg("parse of \"%s\" failed: %s", body, cause);
	free(text);
	return m;
}

/* Append one entry with the given fields (path and link copied). */
static void
add(struct manifest *m, int type, const char *path, const char *link,
    uint64_t size, int64_t sec, long nsec, unsigned mode)
{
	struct manifest_entry	*e = manifest_add(m);

	e->type = type;
	e->path = xstrdup(path);
	e->link = link == NULL ? NULL : xstrdup(link);
	e->size = size;
	e->mtime_sec = sec;
	e->mtime_nsec = nsec;
	e->mode = mode;
}

/* Assert that two entries hold the same fields. */
static void
assert_entry_equal(const struct manifest_entry *a,
    const struct manifest_entry *b)
{
	assert_string_equal(a->path, b->path);
	assert_int_equal(a->type, b->type);
	assert_true(a->size == b->size);
	assert_true(a->mtime_sec == b->mtime_sec);
	assert_int_equal(a->mtime_nsec, b->mtime_nsec);
	assert_int_equal(a->mode, b->mode);
	if (a->link == NULL || b->link == NULL)
		assert_ptr_equal(a->link, b->link);
	else
		assert_string_equal(a->link, b->link);
	assert_int_equal(a->have_hash, b->have_hash);
	assert_memory_equal(a->hash, b->hash, sizeof(a->hash));
}

/* Escaping turns separators, backslashes and non-ASCII bytes into \xNN. */
static void
test_escape(void **state)
{
	struct buf	b = BUF_INIT;

	(void)state;
	manifest_escape(&b, "a b\\c\n\x7f\xff-~!");
	assert_string_equal(b.data, "a\\x20b\\x5cc\\x0a\\x7f\\xff-~!");
	buf_reset(&b);
	manifest_escape(&b, "plain/path.txt");
	assert_string_equal(b.data, "plain/path.txt");
	buf_free(&b);
}

/* Build the manifest of hostile names used by the round trip. */
static struct manifest *
hostile_manifest(void)
{
	struct manifest	*m = manifest_new();

	add(m, MANIFEST_DIR, "d", NULL, 0, 1700000000, 5, 0755);
	add(m, MANIFEST_FILE, "d/sp ace", NULL, 3, -1, 500000000, 0644);
	add(m, MANIFEST_FILE, "d/new\nline", NULL, UINT64_MAX / 4, 0, 0,
	    0600);
	add(m, MANIFEST_FILE, "d/back\\slash", NULL, 1, 2, 3, 0777);
	add(m, MANIFEST_FILE, "d/utf-8 \xc3\xa9\xe2\x82\xac", NULL, 4, 5, 6,
	    0400);
	add(m, MANIFEST_FILE, "-lead", NULL, 0, 7, 999999999, 0);
	add(m, MANIFEST_LINK, "l-dash", "-", 1, 5, 7, 0777);
	add(m, MANIFEST_LINK, "arrow -> x", "a b\tc -> \\", 10, 8, 9, 0777);
	add(m, MANIFEST_LINK, "-", "--", 2, 8, 9, 0777);
	m->e[1].have_hash = 1;
	memset(m->e[1].hash, 0xa5, sizeof(m->e[1].hash));
	manifest_sort(m);
	return m;
}

/* Every byte of text is printable ASCII or a line end. */
static void
assert_printable(const char *text, size_t len, size_t lines)
{
	size_t	i, nl = 0;

	for (i = 0; i < len; i++) {
		if (text[i] == '\n')
			nl++;
		else
			assert_true(text[i] >= 0x20 && text[i] < 0x7f);
	}
	assert_int_equal(nl, lines);
}

/* Format then parse gives back the same entries and the same text. */
static void
test_round_trip(void **state)
{
	struct manifest_limits	 lim;
	struct manifest		*m, *back = NULL;
	char			*text, *again, *cause = NULL;
	size_t			 len, len2, i;

	(void)state;
	m = hostile_manifest();
	text = manifest_format(m, &len);
	assert_int_equal(strlen(text), len);
	assert_printable(text, len, m->n + 1);
	assert_non_null(strstr(text, "\nl 777 1 5.000000007 - l-dash \\x2d\n"));
	assert_non_null(strstr(text, " d/sp\\x20ace -\n"));
	assert_non_null(strstr(text, "f 644 3 -1.500000000 a5a5"));
	assert_non_null(strstr(text, "\nf 000 0 7.999999999 - -lead -\n"));
	manifest_limits_default(&lim);
	lim.max_bytes = UINT64_MAX;
	assert_int_equal(manifest_parse(text, len, &lim, &back, &cause), 0);
	assert_null(cause);
	assert_int_equal(back->n, m->n);
	for (i = 0; i < m->n; i++)
		assert_entry_equal(&m->e[i], &back->e[i]);
	again = manifest_format(back, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(text, again, len);
	free(again);
	free(text);
	manifest_free(back);
	manifest_free(m);
}

/* An empty manifest is the header alone; NULL frees are harmless. */
static void
test_empty(void **state)
{
	struct manifest	*m = manifest_new(), *back = NULL;
	char		*text, *cause = NULL;
	size_t		 len;

	(void)state;
	text = manifest_format(m, &len);
	assert_string_equal(text, HDR);
	assert_int_equal(manifest_parse(text, len, NULL, &back, &cause), 0);
	assert_int_equal(back->n, 0);
	assert_null(manifest_find(back, "a"));
	assert_null(manifest_find(NULL, "a"));
	manifest_free(NULL);
	manifest_free(back);
	manifest_free(m);
	free(text);
}

/* manifest_find locates every entry and nothing else. */
static void
test_find(void **state)
{
	struct manifest	*m;
	size_t		 i;

	(void)state;
	m = hostile_manifest();
	for (i = 0; i < m->n; i++)
		assert_ptr_equal(manifest_find(m, m->e[i].path), &m->e[i]);
	assert_null(manifest_find(m, "d/sp"));
	assert_null(manifest_find(m, ""));
	assert_null(manifest_find(m, "zzz"));
	manifest_free(m);
}

/* One malformed input and the cause it must produce. */
struct bad_case {
	const char	*text;
	size_t		 len;		/* 0: strlen(text) */
	const char	*cause;
	size_t		 max_entries, max_path, max_text;
	uint64_t	 max_bytes;
};

#define LIT(s)		s, sizeof(s) - 1
#define F(path)		"f 644 1 " T1 " - " path " -\n"
#define D(path)		"d 755 0 " T1 " - " path " -\n"

static const struct bad_case bad_text[] = {
	{ "", 0, "line 1: not a clawssh", 0, 0, 0, 0 },
	{ "garbage\n", 0, "line 1: not a clawssh", 0, 0, 0, 0 },
	{ "clawssh-manifest 2\n", 0, "line 1: not a", 0, 0, 0, 0 },
	{ HDR "x 644 0 " T1 " - a -\n", 0, "line 2: bad type", 0, 0, 0, 0 },
	{ HDR "ff 644 0 " T1 " - a -\n", 0, "line 2: bad type", 0, 0, 0, 0 },
	{ HDR "f 0644 0 " T1 " - a -\n", 0, "line 2: bad mode", 0, 0, 0, 0 },
	{ HDR "f 648 0 " T1 " - a -\n", 0, "line 2: bad mode", 0, 0, 0, 0 },
	{ HDR "f 64 0 " T1 " - a -\n", 0, "line 2: bad mode", 0, 0, 0, 0 },
	{ HDR "f 644 -1 " T1 " - a -\n", 0, "line 2: bad size", 0, 0, 0, 0 },
	{ HDR "f 644 18446744073709551616 " T1 " - a -\n", 0,
	  "line 2: bad size", 0, 0, 0, 0 },
	{ HDR "f 644  " T1 " - a -\n", 0, "line 2: bad size", 0, 0, 0, 0 },
	{ HDR "f 644 1 1 - a -\n", 0, "line 2: bad mtime", 0, 0, 0, 0 },
	{ HDR "f 644 1 1.5 - a -\n", 0, "line 2: bad mtime", 0, 0, 0, 0 },
	{ HDR "f 644 1 1.0000000000 - a -\n", 0, "line 2: bad mtime",
	  0, 0, 0, 0 },
	{ HDR "f 644 1 x.000000000 - a -\n", 0, "line 2: bad mtime",
	  0, 0, 0, 0 },
	{ HDR "f 644 1 1.00000000x - a -\n", 0, "line 2: bad mtime",
	  0, 0, 0, 0 },
	{ HDR "f 644 1 9223372036854775808.000000000 - a -\n", 0,
	  "line 2: bad mtime", 0, 0, 0, 0 },
	{ HDR "f 644 1 " T1 " abc a -\n", 0, "line 2: bad hash", 0, 0, 0, 0 },
	{ HDR "f 644 1 " T1 " " H1 "0 a -\n", 0, "line 2: bad hash",
	  0, 0, 0, 0 },
	{ HDR "f 644 1 " T1 " g" H1 " a -\n", 0, "line 2: bad hash",
	  0, 0, 0, 0 },
	{ HDR "f 644 1 " T1 " - a\n", 0, "line 2: wrong number of fields",
	  0, 0, 0, 0 },
	{ HDR "f 644 1 " T1 " - a - x\n", 0, "line 2: wrong number of fields",
	  0, 0, 0, 0 },
	{ HDR "\n", 0, "line 2: wrong number of fields", 0, 0, 0, 0 },
	{ HDR F("a") "f 644 1 " T1 " - b -", 0, "line 3: no newline",
	  0, 0, 0, 0 },
	{ HDR F("a") "f 644 1 " T1 " - b -\r\n", 0, "line 3: unescaped",
	  0, 0, 0, 0 },
	{ HDR F("a\\q"), 0, "line 2: bad escape", 0, 0, 0, 0 },
	{ HDR F("a\\x4"), 0, "line 2: bad escape", 0, 0, 0, 0 },
	{ HDR F("a\\x00b"), 0, "line 2: escaped NUL", 0, 0, 0, 0 },
	{ HDR F("a\tb"), 0, "line 2: unescaped control", 0, 0, 0, 0 },
	{ HDR F("a\x7f"), 0, "line 2: unescaped control", 0, 0, 0, 0 },
	{ HDR F("\xc3\xa9"), 0, "line 2: unescaped control", 0, 0, 0, 0 },
	{ HDR "f 644 1 " T1 " - a \\x0\n", 0, "line 2: bad escape",
	  0, 0, 0, 0 },
	{ LIT(HDR "f\0 644 1 " T1 " - a -\n"), "line 2: bad type", 0, 0, 0, 0 },
	{ HDR F("b") F("a"), 0, "line 3: paths out of order", 0, 0, 0, 0 },
	{ HDR F("a") F("a"), 0, "line 3: duplicate path", 0, 0, 0, 0 },
	{ HDR F("a") F("a\\x20"), 0, NULL, 0, 0, 0, 0 },
	{ HDR F("a\\x20") F("a\\x20"), 0, "line 3: duplicate", 0, 0, 0, 0 },
	{ HDR D("a") F("a/../b"), 0, "line 3: '.' or '..'", 0, 0, 0, 0 },
	{ HDR F(".."), 0, "line 2: '.' or '..'", 0, 0, 0, 0 },
	{ HDR F("\\x2e\\x2e"), 0, "line 2: '.' or '..'", 0, 0, 0, 0 },
	{ HDR F("./a"), 0, "line 2: '.' or '..'", 0, 0, 0, 0 },
	{ HDR F("/abs"), 0, "line 2: absolute path", 0, 0, 0, 0 },
	{ HDR F("\\x2fabs"), 0, "line 2: absolute path", 0, 0, 0, 0 },
	{ HDR D("a") F("a//b"), 0, "line 3: empty path component",
	  0, 0, 0, 0 },
	{ HDR D("a") F("a/"), 0, "line 3: empty path component", 0, 0, 0, 0 },
	{ HDR "f 644 1 " T1 " -  -\n", 0, "line 2: empty path", 0, 0, 0, 0 },
	{ HDR F("a/b"), 0, "line 2: parent directory missing", 0, 0, 0, 0 },
	{ HDR F("a") F("a/b"), 0, "line 3: parent is not a directory",
	  0, 0, 0, 0 },
	{ HDR "l 777 1 " T1 " - a b\n" F("a/b"), 0,
	  "line 3: parent is not a directory", 0, 0, 0, 0 },
	{ HDR "l 777 1 " T1 " - a -\n", 0, "line 2: link without a target",
	  0, 0, 0, 0 },
	{ HDR "f 644 1 " T1 " - a x\n", 0, "line 2: link target on a non-link",
	  0, 0, 0, 0 },
	{ HDR "d 755 5 " T1 " - a -\n", 0, "line 2: directory with a size",
	  0, 0, 0, 0 },
	{ HDR "d 755 0 " T1 " " H1 " a -\n", 0, "line 2: hash on a non-file",
	  0, 0, 0, 0 },
	{ HDR F("a") F("b") F("c"), 0, "line 4: too many entries "
	  "(limit max_entries)", 2, 0, 0, 0 },
	{ HDR F("a") F("b"), 0, NULL, 2, 0, 0, 0 },
	{ HDR "f 644 6 " T1 " - a -\nf 644 6 " T1 " - b -\n", 0,
	  "line 3: total file size over the limit (max_bytes)", 0, 0, 0, 10 },
	{ HDR "f 644 5 " T1 " - a -\nf 644 5 " T1 " - b -\n", 0, NULL,
	  0, 0, 0, 10 },
	{ HDR "f 644 9223372036854775808 " T1 " - a -\n"
	  "f 644 9223372036854775808 " T1 " - b -\n", 0,
	  "line 3: total file size over", 0, 0, 0, UINT64_MAX },
	{ HDR F("123456789"), 0, "line 2: path longer than the limit "
	  "(max_path)", 0, 8, 0, 0 },
	{ HDR F("12345678"), 0, NULL, 0, 8, 0, 0 },
	{ HDR "l 777 9 " T1 " - a 123456789\n", 0,
	  "line 2: link target longer than the limit (max_path)", 0, 8, 0, 0 },
	{ HDR F("a"), 0, "line 1: input longer than the limit (max_text)",
	  0, 0, 20, 0 },
};

/* Fill lim from a case, defaults where the case gives 0. */
static void
case_limits(const struct bad_case *c, struct manifest_limits *lim)
{
	manifest_limits_default(lim);
	if (c->max_entries != 0)
		lim->max_entries = c->max_entries;
	if (c->max_path != 0)
		lim->max_path = c->max_path;
	if (c->max_text != 0)
		lim->max_text = c->max_text;
	if (c->max_bytes != 0)
		lim->max_bytes = c->max_bytes;
}

/* Run one case through a parser: it fails as expected or succeeds. */
static void
run_case(size_t i, const struct bad_case *c, int (*parse)(const char *,
    size_t, const struct manifest_limits *, struct manifest **, char **))
{
	struct manifest_limits	 lim;
	struct manifest		*m = &sentinel;
	char			*cause = NULL;
	size_t			 len = c->len == 0 ? strlen(c->text) : c->len;
	int			 r;

	case_limits(c, &lim);
	r = parse(c->text, len, &lim, &m, &cause);
	if (c->cause == NULL) {
		if (r != 0)
			fail_msg("case %zu: unexpected failure: %s", i, cause);
		manifest_free(m);
		return;
	}
	if (r != CLAW_ERR_PARSE || cause == NULL ||
	    strstr(cause, c->cause) == NULL)
		fail_msg("case %zu: want \"%s\", got %d \"%s\"", i,
		    c->cause, r, cause == NULL ? "(null)" : cause);
	assert_ptr_equal(m, &sentinel);
	free(cause);
}

/* Every malformed text is refused with the right line and reason. */
static void
test_parse_errors(void **state)
{
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof(bad_text) / sizeof(bad_text[0]); i++)
		run_case(i, &bad_text[i], manifest_parse);
}

#define R(head, target)	head "\0" target "\0"

static const struct bad_case bad_find0[] = {
	{ LIT(R("f 644 1 1.5 a", "")), NULL, 0, 0, 0, 0 },
	{ LIT("f 644 1 1.5 a\0"), "record 1: truncated", 0, 0, 0, 0 },
	{ LIT("f 644 1 1.5 a"), "record 1: truncated", 0, 0, 0, 0 },
	{ LIT(R("", "")), "record 1: empty record", 0, 0, 0, 0 },
	{ LIT(R("f 644 1 1.5 a", "") R("", "")), "record 2: empty",
	  0, 0, 0, 0 },
	{ LIT(R("fx 644 1 1.5 a", "")), "record 1: bad type", 0, 0, 0, 0 },
	{ LIT(R("f 9 1 1.5 a", "")), "record 1: bad mode", 0, 0, 0, 0 },
	{ LIT(R("f 17777 1 1.5 a", "")), "record 1: bad mode", 0, 0, 0, 0 },
	{ LIT(R("f 644 x 1.5 a", "")), "record 1: bad size", 0, 0, 0, 0 },
	{ LIT(R("f 644 1 1 a", "")), "record 1: bad mtime", 0, 0, 0, 0 },
	{ LIT(R("f 644 1 1. a", "")), "record 1: bad mtime", 0, 0, 0, 0 },
	{ LIT(R("f 644 1 1.1234567890123456789 a", "")),
	  "record 1: bad mtime", 0, 0, 0, 0 },
	{ LIT(R("f 644 1 1.5", "")), "record 1: wrong number", 0, 0, 0, 0 },
	{ LIT(R("f 644 1 1.5 ", "")), "record 1: empty path", 0, 0, 0, 0 },
	{ LIT(R("f 644 1 1.5 ../x", "")), "record 1: '.' or '..'",
	  0, 0, 0, 0 },
	{ LIT(R("f 644 1 1.5 /etc/passwd", "")), "record 1: absolute path",
	  0, 0, 0, 0 },
	{ LIT(R("l 777 1 1.5 a", "")), "record 1: link without a target",
	  0, 0, 0, 0 },
	{ LIT(R("f 644 1 1.5 a", "x")),
	  "record 1: link target on a non-link", 0, 0, 0, 0 },
	{ LIT(R("f 644 1 1.5 a", "") R("f 644 1 1.5 a", "")),
	  "path a: duplicate path", 0, 0, 0, 0 },
	{ LIT(R("f 644 1 1.5 a b/c\n", "")),
	  "path a\\x20b/c\\x0a: parent directory missing", 0, 0, 0, 0 },
	{ LIT(R("l 777 1 1.5 a", "/") R("f 644 1 1.5 a/passwd", "")),
	  "path a/passwd: parent is not a directory", 0, 0, 0, 0 },
	{ LIT(R("f 644 1 1.5 a", "") R("f 644 1 1.5 b", "")),
	  "record 2: too many entries (limit max_entries)", 1, 0, 0, 0 },
	{ LIT(R("f 644 7 1.5 a", "") R("f 644 7 1.5 b", "")),
	  "record 2: total file size over the limit (max_bytes)",
	  0, 0, 0, 10 },
	{ LIT(R("f 644 1 1.5 123456789", "")), "record 1: path longer",
	  0, 8, 0, 0 },
	{ LIT(R("l 777 9 1.5 a", "123456789")),
	  "record 1: link target longer", 0, 8, 0, 0 },
	{ LIT(R("f 644 1 1.5 a", "")),
	  "input longer than the limit (max_text)", 0, 0, 14, 0 },
};

/* Every malformed listing is refused with the right reason. */
static void
test_find0_errors(void **state)
{
	size_t	i;

	(void)state;
	for (i = 0; i < sizeof(bad_find0) / sizeof(bad_find0[0]); i++)
		run_case(i, &bad_find0[i], manifest_parse_find0);
}

/* A listing is sorted, masked, and other types are skipped. */
static void
test_find0_parse(void **state)
{
	static const char	 data[] =
	    R("f 4755 3 1700000000.1234567891 d/x y", "")
	    R("p 644 0 1.0 d/fifo", "")
	    R("? 0 0 0.0 d/gone", "")
	    R("d 755 4096 -1.5000000000 d", "")
	    R("l 777 2 3.25 d/l -> z", "-")
	    R("f 600 0 1700000000.0 d/\n", "");
	struct manifest		*m = NULL;
	char			*cause = NULL;

	(void)state;
	assert_int_equal(manifest_parse_find0(data, sizeof(data) - 1, NULL,
	    &m, &cause), 0);
	assert_int_equal(m->n, 4);
	assert_string_equal(m->e[0].path, "d");
	assert_int_equal(m->e[0].type, MANIFEST_DIR);
	assert_true(m->e[0].size == 0);
	assert_true(m->e[0].mtime_sec == -1);
	assert_int_equal(m->e[0].mtime_nsec, 500000000);
	assert_string_equal(m->e[1].path, "d/\n");
	assert_string_equal(m->e[2].path, "d/l -> z");
	assert_string_equal(m->e[2].link, "-");
	assert_int_equal(m->e[2].mtime_nsec, 250000000);
	assert_string_equal(m->e[3].path, "d/x y");
	assert_int_equal(m->e[3].mode, 0755);
	assert_true(m->e[3].size == 3);
	assert_true(m->e[3].mtime_sec == 1700000000);
	assert_int_equal(m->e[3].mtime_nsec, 123456789);
	assert_int_equal(m->e[3].have_hash, 0);
	assert_null(m->e[3].link);
	manifest_free(m);
}

/*
 * The path of n components "d/d/...", the 257th "x y\n" (so a warning
 * naming it must escape it); allocated.
 */
static char *
deep_path(int n)
{
	struct buf	b = BUF_INIT;
	int		i;

	for (i = 1; i <= n; i++) {
		if (i > 1)
			buf_append_str(&b, "/");
		buf_append_str(&b, i == MANIFEST_MAX_DEPTH + 1 ? "x y\n" :
		    "d");
	}
	buf_append(&b, "", 1);
	return buf_detach(&b);
}

/* Append a listing record for path to b. */
static void
record(struct buf *b, const char *head, const char *path)
{
	buf_append_str(b, head);
	buf_append(b, path, strlen(path) + 1);
	buf_append(b, "", 1);
}

/*
 * A listing holding paths over the limits (300 components deep, 5000
 * bytes long) parses: they are left out with one warning naming the
 * first one's top, escaped, instead of failing the whole pull.
 */
static void
test_find0_over(void **state)
{
	struct manifest	*m;
	struct buf	 b = BUF_INIT;
	char		*p, *err, *cause = NULL, *longp;
	int		 i, fd, saved, part;

	(void)state;
	p = deep_path(300);
	longp = xasprintf("%s/f", p);
	record(&b, "f 644 1 1.0 ", longp);
	free(longp);
	free(p);
	for (i = 300; i >= 1; i--) {
		p = deep_path(i);
		record(&b, "d 755 4096 1.0 ", p);
		free(p);
	}
	longp = xmalloc(5001);
	memset(longp, 'a', 5000);
	longp[5000] = '\0';
	record(&b, "f 644 1 1.0 ", longp);
	free(longp);
	for (part = 0; part < 2; part++) {
		m = NULL;
		fd = capture_begin(&saved);
		if ((part ? manifest_parse_find0_part :
		    manifest_parse_find0)(b.data, b.len, NULL, &m, &cause) != 0)
			fail_msg("listing: %s", cause);
		err = capture_end(fd, saved);
		assert_int_equal(m->n, MANIFEST_MAX_DEPTH);
		p = deep_path(MANIFEST_MAX_DEPTH);
		assert_string_equal(m->e[m->n - 1].path, p);
		free(p);
		assert_int_equal(capture_count(err, "warning: "), 1);
		assert_non_null(strstr(err, "/d/x\\x20y\\x0a: deeper than 256 "
		    "directories"));
		assert_non_null(strstr(err, "(and 45 more)"));
		assert_non_null(strstr(err, "it stays on the host"));
		manifest_free(m);
		free(err);
	}
	buf_free(&b);
}

/*
 * Paths over the limits make no change in a diff: a state saved before
 * the limits applied alike may hold them, and scans and listings no
 * longer do; they must not read as deleted (nor as added).
 */
static void
test_diff_over(void **state)
{
	struct manifest_change	*ch = NULL;
	struct manifest		*deep, *cut;
	char			*p;
	size_t			 n;
	int			 i;

	(void)state;
	deep = manifest_new();
	cut = manifest_new();
	for (i = 1; i <= 300; i++) {
		p = deep_path(i);
		add(deep, MANIFEST_DIR, p, NULL, 0, 1, 0, 0755);
		if (i <= MANIFEST_MAX_DEPTH)
			add(cut, MANIFEST_DIR, p, NULL, 0, 1, 0, 0755);
		free(p);
	}
	manifest_sort(deep);
	manifest_sort(cut);
	assert_int_equal(manifest_diff(deep, cut, &ch, &n), 0);
	assert_true(n == 0 && ch == NULL);
	assert_int_equal(manifest_diff(cut, deep, &ch, &n), 0);
	assert_true(n == 0 && ch == NULL);
	assert_int_equal(manifest_diff(deep, NULL, &ch, &n), 0);
	assert_true(n == MANIFEST_MAX_DEPTH);
	assert_int_equal(ch[0].kind, MANIFEST_CH_DELETED);
	assert_string_equal(ch[0].old->path,
	    cut->e[MANIFEST_MAX_DEPTH - 1].path);
	free(ch);
	manifest_free(deep);
	manifest_free(cut);
}

/* Render a change list as "K path,K path" (K one of A M P L D). */
static char *
render(const struct manifest_change *c, size_t n)
{
	struct buf	 b = BUF_INIT;
	const char	*kinds = "?AMPLD";
	size_t		 i;

	for (i = 0; i < n; i++) {
		assert_true(c[i].kind >= MANIFEST_CH_ADDED &&
		    c[i].kind <= MANIFEST_CH_DELETED);
		assert_true(c[i].kind == MANIFEST_CH_ADDED ?
		    c[i].old == NULL : c[i].old != NULL);
		assert_true(c[i].kind == MANIFEST_CH_DELETED ?
		    c[i].now == NULL : c[i].now != NULL);
		buf_appendf(&b, "%s%c %s", i == 0 ? "" : ",",
		    kinds[c[i].kind], c[i].old != NULL ? c[i].old->path :
		    c[i].now->path);
	}
	return buf_detach(&b);
}

/* One diff: two manifest bodies and the rendered changes expected. */
struct diff_case {
	const char	*old, *now, *want;
};

static const struct diff_case diffs[] = {
	{ F("a") D("d"), F("a") D("d"), "" },
	{ F("a"), F("a") D("d") F("d/x") F("e"), "A d,A d/x,A e" },
	{ D("d") F("d.txt") F("d/a") F("d/b") D("d/e") F("d/e/f") F("z"),
	  F("z"), "D d/e/f,D d/e,D d/b,D d/a,D d.txt,D d" },
	{ F("a") F("c"), F("b") "f 644 2 " T1 " - c -\n", "D a,A b,M c" },
	{ F("a"), "f 644 1 " T2 " - a -\n", "M a" },
	{ "f 644 1 " T1 " " H1 " a -\n", "f 644 1 " T2 " " H1 " a -\n", "" },
	{ "f 644 1 " T1 " " H1 " a -\n", "f 600 1 " T2 " " H1 " a -\n",
	  "P a" },
	{ "f 644 1 " T1 " " H1 " a -\n", "f 644 1 " T1 " " H2 " a -\n",
	  "M a" },
	{ "f 644 1 " T1 " " H1 " a -\n", "f 644 2 " T2 " " H1 " a -\n",
	  "M a" },
	{ "f 644 1 " T1 " " H1 " a -\n", "f 644 1 " T2 " - a -\n", "M a" },
	{ F("a"), "f 600 1 " T1 " - a -\n", "P a" },
	{ F("a"), "f 600 2 " T1 " - a -\n", "M a" },
	{ D("d"), "d 755 0 " T2 " - d -\n", "" },
	{ D("d"), "d 700 0 " T1 " - d -\n", "P d" },
	{ "l 777 1 " T1 " - l x\n", "l 777 1 " T1 " - l y\n", "L l" },
	{ "l 777 1 " T1 " - l x\n", "l 777 1 " T2 " - l x\n", "" },
	{ F("x"), D("x") F("x/y"), "D x,A x,A x/y" },
	{ D("x") F("x/y"), F("x"), "D x/y,D x,A x" },
	{ "l 777 1 " T1 " - x d\n", D("x"), "D x,A x" },
	{ D("a") F("a/b") F("c") D("e") F("g"),
	  D("a") "f 644 1 " T2 " - a/b -\n" F("b") F("c") F("c\\x20") D("e")
	  F("e/f"), "D g,M a/b,A b,A c ,A e/f" },
};

/* Each diff case yields exactly the listed changes, in order. */
static void
test_diff(void **state)
{
	struct manifest_change	*c;
	struct manifest		*o, *w;
	char			*got;
	size_t			 i, n;

	(void)state;
	for (i = 0; i < sizeof(diffs) / sizeof(diffs[0]); i++) {
		o = mk(diffs[i].old);
		w = mk(diffs[i].now);
		c = NULL;
		n = 99;
		assert_int_equal(manifest_diff(o, w, &c, &n), 0);
		got = render(c, n);
		if (strcmp(got, diffs[i].want) != 0)
			fail_msg("case %zu: want \"%s\", got \"%s\"", i,
			    diffs[i].want, got);
		assert_true(n == 0 ? c == NULL : c != NULL);
		free(got);
		free(c);
		manifest_free(o);
		manifest_free(w);
	}
}

/* A NULL manifest is empty: everything added, or everything deleted. */
static void
test_diff_null(void **state)
{
	struct manifest_change	*c = NULL;
	struct manifest		*m;
	char			*got;
	size_t			 n = 0;

	(void)state;
	m = mk(D("d") F("d/a") F("e"));
	assert_int_equal(manifest_diff(NULL, m, &c, &n), 0);
	got = render(c, n);
	assert_string_equal(got, "A d,A d/a,A e");
	free(got);
	free(c);
	assert_int_equal(manifest_diff(m, NULL, &c, &n), 0);
	got = render(c, n);
	assert_string_equal(got, "D e,D d/a,D d");
	free(got);
	free(c);
	assert_int_equal(manifest_diff(NULL, NULL, &c, &n), 0);
	assert_null(c);
	assert_int_equal(n, 0);
	manifest_free(m);
}

/* Unsorted input is refused and the out-pointers stay untouched. */
static void
test_diff_unsorted(void **state)
{
	struct manifest_change	*c = (struct manifest_change *)&sentinel;
	struct manifest		*m = manifest_new(), *ok;
	size_t			 n = 42;

	(void)state;
	add(m, MANIFEST_FILE, "b", NULL, 0, 0, 0, 0644);
	add(m, MANIFEST_FILE, "a", NULL, 0, 0, 0, 0644);
	ok = mk(F("a"));
	assert_int_equal(manifest_diff(m, ok, &c, &n), CLAW_ERR_INVAL);
	assert_int_equal(manifest_diff(ok, m, &c, &n), CLAW_ERR_INVAL);
	assert_ptr_equal(c, &sentinel);
	assert_int_equal(n, 42);
	manifest_sort(m);
	assert_int_equal(manifest_diff(m, ok, &c, &n), 0);
	free(c);
	manifest_free(ok);
	manifest_free(m);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_find0_errors),
		cmocka_unit_test(test_find0_parse),
		cmocka_unit_test(test_find0_over),
		cmocka_unit_test(test_diff),
		cmocka_unit_test(test_diff_null),
		cmocka_unit_test(test_diff_unsorted),
		cmocka_unit_test(test_diff_over),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
