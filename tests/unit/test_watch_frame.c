/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for watch_frame_parse: whole frames, frames fed a byte at a
 * time (every prefix must ask for more, never misread), records cut
 * short, a forged end with another token, bad headers and statuses, the
 * cap, and frames back to back.
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

#include "buf.h"
#include "error.h"
#include "watch_frame.h"

#define TOK	"0123456789abcdef0123456789abcdef"
#define OTHER	"ffffffffffffffffffffffffffffffff"
#define HEAD	"clawssh-list " TOK "\n"

/* Append a frame: header, len bytes of records, the end with status. */
static void
frame(struct buf *b, const char *rec, size_t len, const char *status)
{
	buf_append_str(b, HEAD);
	buf_append(b, rec, len);
	buf_append(b, "\0\0", 2);
	buf_appendf(b, "clawssh-end %s %s\n", TOK, status);
}

/*
 * Parse b as the daemon does, fed n bytes at a time: the result of the
 * first call that does not ask for more.
 */
static int
feed(const struct buf *b, size_t step, size_t max, struct watch_frame *f)
{
	size_t	len = 0, scanned = 0;
	int	r = 0;

	while (len < b->len) {
		len = len + step < b->len ? len + step : b->len;
		if ((r = watch_frame_parse(b->data, len, max, &scanned,
		    f)) != 0)
			return r;
	}
	return r;
}

/* A whole listing: its records with their last NUL, the status. */
static void
test_whole(void **state)
{
	static const char	 rec[] = "f 644 3 1.5 a\0\0d 755 0 2.0 b\0\0";
	struct buf		 b = BUF_INIT;
	struct watch_frame	 f;
	size_t			 step;

	(void)state;
	frame(&b, rec, sizeof(rec) - 1, "0");
	for (step = 1; step <= b.len; step++) {
		assert_int_equal(feed(&b, step, 1 << 20, &f), 1);
		assert_string_equal(f.token, TOK);
		assert_int_equal(f.status, 0);
		assert_int_equal(f.rec_len, sizeof(rec) - 1);
		assert_memory_equal(b.data + f.rec_off, rec, f.rec_len);
		assert_int_equal(f.used, b.len);
	}
	buf_free(&b);
}

/* No records at all, and a failing find: empty records, status kept. */
static void
test_empty_and_status(void **state)
{
	struct buf		 b = BUF_INIT;
	struct watch_frame	 f;

	(void)state;
	frame(&b, "", 0, "1");
	assert_int_equal(feed(&b, 1, 100, &f), 1);
	assert_int_equal(f.rec_len, 0);
	assert_int_equal(f.status, 1);
	buf_free(&b);
}

/* A record cut mid-way: the end is still found; what came is given. */
static void
test_cut_record(void **state)
{
	static const char	 rec[] = "f 644 3 1.0 src/a";
	struct buf		 b = BUF_INIT;
	struct watch_frame	 f;

	(void)state;
	frame(&b, rec, sizeof(rec) - 1, "1");
	assert_int_equal(feed(&b, 3, 100, &f), 1);
	assert_int_equal(f.rec_len, sizeof(rec) - 1);
	assert_int_equal(f.status, 1);
	buf_free(&b);
}

/* An end with another token inside the records is just records. */
static void
test_forged_end(void **state)
{
	struct buf		 rec = BUF_INIT, b = BUF_INIT;
	struct watch_frame	 f;

	(void)state;
	buf_append(&rec, "f 644 1 1.0 x\0\0\0\0", 17);
	buf_appendf(&rec, "clawssh-end %s 0\n", OTHER);
	buf_append(&rec, "d 755 0 1.0 y\0\0", 15);
	frame(&b, rec.data, rec.len, "0");
	assert_int_equal(feed(&b, 7, 1000, &f), 1);
	assert_int_equal(f.rec_len, rec.len);
	assert_int_equal(f.used, b.len);
	buf_free(&rec);
	buf_free(&b);
}

/* Headers and ends that are not a frame are refused as soon as seen. */
static void
test_garbled(void **state)
{
#define BAD(x)	{ x, sizeof(x) - 1 }
	static const struct {
		const char	*s;
		size_t		 n;
	} bad[] = {
		BAD("Watches established.\n"),
		BAD("clawssh-list 0123\n"),
		BAD("clawssh-list " TOK "x\n"),
		BAD("clawssh-list 0123456789ABCDEF0123456789abcdef\n"),
		BAD("clawssh-list " TOK "\nrec\0\0clawssh-end " TOK " 256\n"),
		BAD("clawssh-list " TOK "\nrec\0\0clawssh-end " TOK " x\n"),
		BAD("clawssh-list " TOK "\nrec\0\0clawssh-end " TOK " \n"),
		BAD("clawssh-list " TOK "\nrec\0\0clawssh-end " TOK " 00000000"),
		BAD("clawssh-list " TOK "\n\0clawssh-end " TOK " 0\n"),
	};
#undef BAD
	struct watch_frame	f;
	size_t			i, scanned;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		scanned = 0;
		assert_int_equal(watch_frame_parse(bad[i].s, bad[i].n, 100,
		    &scanned, &f), CLAW_ERR_PARSE);
	}
}

/* Records past the cap, with no end in sight: refused, not buffered. */
static void
test_cap(void **state)
{
	struct buf		 b = BUF_INIT;
	struct watch_frame	 f;
	size_t			 scanned = 0, i;

	(void)state;
	buf_append_str(&b, HEAD);
	for (i = 0; i < 100; i++)
		buf_append(&b, "f 644 1 1.0 x\0\0", 15);
	assert_int_equal(watch_frame_parse(b.data, b.len, 4096, &scanned,
	    &f), 0);
	assert_int_equal(watch_frame_parse(b.data, b.len, 1000, &scanned,
	    &f), CLAW_ERR_RANGE);
	buf_reset(&b);
	frame(&b, "f 644 1 1.0 x\0", 14, "0");
	scanned = 0;
	assert_int_equal(watch_frame_parse(b.data, b.len, 10, &scanned, &f),
	    CLAW_ERR_RANGE);
	buf_free(&b);
}

/* Two frames in one buffer: the first takes only its own bytes. */
static void
test_back_to_back(void **state)
{
	struct buf		 b = BUF_INIT;
	struct watch_frame	 f;
	size_t			 scanned = 0, first;

	(void)state;
	frame(&b, "f 644 1 1.0 a\0\0", 15, "0");
	first = b.len;
	frame(&b, "f 644 1 1.0 b\0\0", 15, "2");
	assert_int_equal(watch_frame_parse(b.data, b.len, 100, &scanned,
	    &f), 1);
	assert_int_equal(f.used, first);
	assert_int_equal(watch_frame_parse(b.data + first, b.len - first, 100,
	    &scanned, &f), 1);
	assert_int_equal(f.status, 2);
	assert_memory_equal(b.data + first + f.rec_off, "f 644 1 1.0 b", 13);
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_empty_and_status),
		cmocka_unit_test(test_cut_record),
		cmocka_unit_test(test_forged_end),
		cmocka_unit_test(test_garbled),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_back_to_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
