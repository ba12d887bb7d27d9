/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Pseudo-terminal requests (pty.c) and the control socket's OPEN_PTY and
 * RESIZE frames (mux_proto.c): what a command asks for, and what the
 * daemon accepts from its clients' bytes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "error.h"
#include "mux_proto.h"
#include "pty.h"

/* The type, the size and the modes a request is filled with. */
static void
test_req_init(void **state)
{
	struct pty_req	r;

	(void)state;
	pty_req_init(&r, "screen-256color", 132, 50, 8);
	assert_string_equal(r.term, "screen-256color");
	assert_int_equal(r.cols, 132);
	assert_int_equal(r.rows, 50);
	assert_true(r.modes_len > 5 && r.modes_len <= PTY_MODES_MAX);
	assert_true(strlen(r.term) + r.modes_len <= 256);	/* libssh2 */
	assert_int_equal(r.modes[r.modes_len - 1], 0);		/* TTY_OP_END */
	assert_int_equal(r.modes[0], 3);			/* VERASE */
	assert_int_equal(r.modes[4], 8);
	pty_req_init(&r, NULL, 0, 0, -1);
	assert_string_equal(r.term, PTY_TERM_DEFAULT);
	assert_int_equal(r.cols, 80);
	assert_int_equal(r.rows, 24);
	assert_int_equal(r.modes[4], 127);
	pty_req_init(&r, "xterm;rm -rf /", 100000, 5, -1);
	assert_string_equal(r.term, PTY_TERM_DEFAULT);
	assert_int_equal(r.cols, 80);
	assert_false(pty_term_ok(""));
	assert_false(pty_term_ok("a b"));
	assert_true(pty_term_ok("vt100"));
}

/* Parse the first frame of b (which must be whole). */
static void
frame_of(const struct buf *b, struct mux_frame *f)
{
	size_t	used;
	char	*cause = NULL;

	assert_int_equal(mux_frame_get(b->data, b->len, f, &used, &cause), 1);
	assert_int_equal(used, b->len);
}

/* OPEN_PTY and RESIZE round trips. */
static void
test_frames(void **state)
{
	struct pty_req		 r, got;
	struct mux_frame	 f;
	struct buf		 b = BUF_INIT;
	char			*cmd = NULL, *cause = NULL;
	unsigned		 cols, rows;

	(void)state;
	pty_req_init(&r, "xterm-256color", 100, 30, -1);
	mux_frame_put_pty(&b, 7, &r, "echo hi");
	frame_of(&b, &f);
	assert_int_equal(f.type, MUX_OPEN_PTY);
	assert_int_equal(f.chan, 7);
	assert_int_equal(mux_frame_get_pty(&f, &got, &cmd, &cause), 0);
	assert_string_equal(got.term, "xterm-256color");
	assert_int_equal(got.cols, 100);
	assert_int_equal(got.rows, 30);
	assert_int_equal(got.modes_len, r.modes_len);
	assert_memory_equal(got.modes, r.modes, r.modes_len);
	assert_string_equal(cmd, "echo hi");
	free(cmd);
	buf_reset(&b);
	mux_frame_put_size(&b, 7, 120, 40);
	frame_of(&b, &f);
	assert_int_equal(f.type, MUX_RESIZE);
	assert_int_equal(mux_frame_get_size(&f, &cols, &rows), 0);
	assert_int_equal(cols, 120);
	assert_int_equal(rows, 40);
	buf_free(&b);
}

/* Hostile OPEN_PTY and RESIZE payloads are refused, never overread. */
static void
test_hostile(void **state)
{
	static const struct {
		const char	*p;
		size_t		 len;
	} bad[] = {
		{ "", 0 },
		{ "\0\0\0\0\0\0\0\x18\x05xterm\0x", 16 },	/* 0 columns */
		{ "\0\0\0\x50\0\0\0\x18\x05xterm\0", 15 },	/* no command */
		{ "\0\0\0\x50\0\0\0\x18\xffxterm\0x", 16 },	/* type runs off */
		{ "\0\0\0\x50\0\0\0\x18\x05xt rm\0x", 16 },	/* bad type */
		{ "\0\0\0\x50\0\0\0\x18\x05xterm\xf0x", 16 },	/* modes run off */
		{ "\0\0\0\x50\0\0\0\x18\x05xterm\0a\0b", 18 },	/* NUL */
		{ "\0\x01\0\0\0\0\0\x18\x05xterm\0x", 16 },	/* too wide */
	};
	struct mux_frame	 f;
	struct pty_req		 r;
	char			*cmd = NULL, *cause = NULL;
	unsigned		 cols, rows;
	size_t			 i;

	(void)state;
	memset(&f, 0, sizeof f);
	f.type = MUX_OPEN_PTY;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		f.payload = bad[i].p;
		f.len = bad[i].len;
		if (mux_frame_get_pty(&f, &r, &cmd, &cause) != CLAW_ERR_PROTO)
			fail_msg("bad payload %zu accepted", i);
		free(cause);
		cause = NULL;
	}
	f.payload = "\0\0\0\x50\0\0\0\x18\x05xterm\0x";
	f.len = 16;
	assert_int_equal(mux_frame_get_pty(&f, &r, &cmd, &cause), 0);
	assert_string_equal(cmd, "x");
	free(cmd);
	f.type = MUX_RESIZE;
	f.payload = "\0\0\0\x50\0\0\0";
	f.len = 7;
	assert_int_equal(mux_frame_get_size(&f, &cols, &rows), CLAW_ERR_PROTO);
	f.payload = "\0\0\0\x50\0\0\0\0";
	f.len = 8;
	assert_int_equal(mux_frame_get_size(&f, &cols, &rows), CLAW_ERR_PROTO);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_req_init),
		cmocka_unit_test(test_frames),
		cmocka_unit_test(test_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
