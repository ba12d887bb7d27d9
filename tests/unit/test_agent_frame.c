/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the agent protocol's frame codec (src/agent/frame.c)
 * and the messages on it (src/agent/msg.c): round trips, every prefix of
 * a frame (must ask for more, never misread), a byte-at-a-time feed of
 * frames back to back, lengths out of range, bad versions, types and
 * field lengths, the bounded getters, the writer's cap, and serve's
 * messages (DATA, EOF, a relayed EXEC's target, ERROR codes).
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

#include "frame.h"
#include "msg.h"

/* An EXEC of two args, two env strings, a pty and a window size. */
static void
put_exec(struct frame_wr *w, uint32_t id)
{
	char		*argv[] = { (char *)(uintptr_t)"ls",
			    (char *)(uintptr_t)"-l", NULL };
	char		*env[] = { (char *)(uintptr_t)"PATH=/bin",
			    (char *)(uintptr_t)"HOME=/tmp", NULL };
	struct msg_exec	 m;

	memset(&m, 0, sizeof(m));
	m.argv = argv;
	m.env = env;
	m.cwd = (char *)(uintptr_t)"/workspace";
	m.flags = FRAME_EXEC_PTY;
	m.rows = 30;
	m.cols = 100;
	m.nfds = 0;
	msg_exec_put(w, id, &m);
}

/* An EXEC survives encoding and decoding. */
static void
test_exec_round_trip(void **state)
{
	struct frame_wr	w = FRAME_WR_INIT;
	struct frame	f;
	struct msg_exec	m;

	(void)state;
	put_exec(&w, 7);
	assert_int_equal(w.err, 0);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	assert_int_equal(f.used, w.len);
	assert_int_equal(f.type, FRAME_EXEC);
	assert_int_equal(f.id, 7);
	assert_int_equal(msg_exec_get(&f, &m), 0);
	assert_string_equal(m.argv[0], "ls");
	assert_string_equal(m.argv[1], "-l");
	assert_null(m.argv[2]);
	assert_string_equal(m.env[1], "HOME=/tmp");
	assert_string_equal(m.cwd, "/workspace");
	assert_int_equal(m.flags, FRAME_EXEC_PTY);
	assert_int_equal(m.rows, 30);
	assert_int_equal(m.cols, 100);
	msg_exec_free(&m);
	frame_wr_free(&w);
}

/* HELLO, EXIT, SIGNAL, ERROR, a process: round trips. */
static void
test_small_round_trips(void **state)
{
	struct frame_wr		w = FRAME_WR_INIT;
	struct frame		f;
	struct msg_hello	h;
	struct msg_proc		p, q;
	struct frame_buf	b, val;
	uint16_t		tag;
	int			code, sig;
	char			*s;

	(void)state;
	msg_hello_put(&w, 0, "spec-1", 1234567890123ULL);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	assert_int_equal(msg_hello_get(&f, &h), 0);
	assert_int_equal(h.proto, MSG_PROTO);
	assert_string_equal(h.spec, "spec-1");
	assert_true(h.started == 1234567890123ULL);
	assert_int_equal(h.caps, MSG_CAP_EXEC | MSG_CAP_PTY | MSG_CAP_STATUS |
	    MSG_CAP_STOP | MSG_CAP_RELAY | MSG_CAP_SELF);
	msg_hello_free(&h);

	frame_wr_reset(&w);
	msg_u32(&w, FRAME_EXIT, 3, TAG_SIGNO, 15);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	assert_int_equal(msg_exit_get(&f, &code, &sig), 0);
	assert_int_equal(code, -1);
	assert_int_equal(sig, 15);

	frame_wr_reset(&w);
	msg_u32(&w, FRAME_EXIT, 3, TAG_CODE, 42);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	assert_int_equal(msg_exit_get(&f, &code, &sig), 0);
	assert_int_equal(code, 42);
	assert_int_equal(sig, -1);

	frame_wr_reset(&w);
	msg_u32(&w, FRAME_SIGNAL, 3, TAG_SIGNO, 2);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	assert_int_equal(msg_signal_get(&f, &sig), 0);
	assert_int_equal(sig, 2);

	frame_wr_reset(&w);
	msg_error(&w, 9, "no such thing");
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	assert_int_equal(msg_error_get(&f, &s), 0);
	assert_string_equal(s, "no such thing");
	free(s);

	memset(&p, 0, sizeof(p));
	p.pid = 5;
	p.ppid = 2;
	p.state[0] = 'S';
	strcpy(p.cmd, "sleep 100");
	p.rss_kb = 1 << 20;
	p.cpu_ms = 12;
	p.age_s = 3;
	frame_wr_reset(&w);
	frame_begin(&w, FRAME_PROCS, 4);
	msg_proc_put(&w, &p);
	assert_int_equal(frame_end(&w), 0);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	b = f.body;
	assert_int_equal(frame_next_field(&b, &tag, &val), 1);
	assert_int_equal(tag, TAG_PROC);
	assert_int_equal(msg_proc_get(&val, &q), 0);
	assert_memory_equal(&p, &q, sizeof(p));
	assert_int_equal(frame_next_field(&b, &tag, &val), 0);
	frame_wr_free(&w);
}

/* Every proper prefix of a frame asks for more; the whole one parses. */
static void
test_every_prefix(void **state)
{
	struct frame_wr	w = FRAME_WR_INIT;
	struct frame	f;
	size_t		n;

	(void)state;
	put_exec(&w, 1);
	for (n = 0; n < w.len; n++)
		assert_int_equal(frame_parse(w.data, n, &f), 0);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	frame_wr_free(&w);
}

/* Three frames back to back, fed a byte at a time. */
static void
test_byte_at_a_time(void **state)
{
	struct frame_wr	w = FRAME_WR_INIT;
	struct frame	f;
	size_t		len = 0, off = 0;
	int		got = 0, r;
	uint32_t	ids[3] = { 0, 0, 0 };

	(void)state;
	put_exec(&w, 11);
	msg_simple(&w, FRAME_STATUS, 12);
	msg_hello_put(&w, 13, NULL, 0);
	while (len < w.len) {
		len++;
		while ((r = frame_parse(w.data + off, len - off, &f)) == 1) {
			assert_true(got < 3);
			ids[got++] = f.id;
			off += f.used;
		}
		assert_int_equal(r, 0);
	}
	assert_int_equal(got, 3);
	assert_int_equal(off, w.len);
	assert_int_equal(ids[0], 11);
	assert_int_equal(ids[1], 12);
	assert_int_equal(ids[2], 13);
	frame_wr_free(&w);
}

/* Lengths below the header or above the cap are refused at once. */
static void
test_lengths(void **state)
{
	uint8_t		b[16];
	struct frame	f;
	uint32_t	n;

	(void)state;
	memset(b, 0, sizeof(b));
	for (n = 0; n < FRAME_HEAD; n++) {
		b[3] = (uint8_t)n;
		assert_int_equal(frame_parse(b, 4, &f), FRAME_ERR_LENGTH);
	}
	n = FRAME_MAX + 1;
	b[0] = (uint8_t)(n >> 24);
	b[1] = (uint8_t)(n >> 16);
	b[2] = (uint8_t)(n >> 8);
	b[3] = (uint8_t)n;
	assert_int_equal(frame_parse(b, 4, &f), FRAME_ERR_LENGTH);
	memset(b, 0xff, 4);
	assert_int_equal(frame_parse(b, 4, &f), FRAME_ERR_LENGTH);
	/* At the cap: a valid length, the frame is simply not all here. */
	b[0] = 0;
	b[1] = (uint8_t)(FRAME_MAX >> 16);
	b[2] = 0;
	b[3] = 0;
	b[4] = FRAME_VERSION;
	b[5] = FRAME_OK;
	assert_int_equal(frame_parse(b, 10, &f), 0);
}

/* A bad version or type is refused as soon as its byte is there. */
static void
test_version_type(void **state)
{
	uint8_t		b[10] = { 0, 0, 0, 6, FRAME_VERSION, FRAME_OK,
			    0, 0, 0, 1 };
	struct frame	f;

	(void)state;
	assert_int_equal(frame_parse(b, sizeof(b), &f), 1);
	assert_int_equal(f.body.len, 0);
	b[4] = 2;
	assert_int_equal(frame_parse(b, 5, &f), FRAME_ERR_VERSION);
	b[4] = 0;
	assert_int_equal(frame_parse(b, 5, &f), FRAME_ERR_VERSION);
	b[4] = FRAME_VERSION;
	b[5] = 0;
	assert_int_equal(frame_parse(b, 6, &f), FRAME_ERR_TYPE);
	b[5] = FRAME_TYPE_LAST + 1;
	assert_int_equal(frame_parse(b, 6, &f), FRAME_ERR_TYPE);
	b[5] = 0xff;
	assert_int_equal(frame_parse(b, 6, &f), FRAME_ERR_TYPE);
}

/* A field whose length overruns its frame, or a header cut short. */
static void
test_field_overrun(void **state)
{
	/* frame of 6 + 7 bytes: a field claiming 2 bytes with 1 there */
	uint8_t		b[] = { 0, 0, 0, 13, FRAME_VERSION, FRAME_EXEC,
			    0, 0, 0, 1, 0, TAG_CWD, 0, 0, 0, 2, '/' };
	uint8_t		c[] = { 0, 0, 0, 9, FRAME_VERSION, FRAME_EXEC,
			    0, 0, 0, 1, 0, TAG_CWD, 0 };
	struct frame	f;

	(void)state;
	assert_int_equal(frame_parse(b, sizeof(b), &f), FRAME_ERR_FIELD);
	assert_int_equal(frame_parse(c, sizeof(c), &f), FRAME_ERR_FIELD);
	b[15] = 1;	/* now it fits */
	assert_int_equal(frame_parse(b, sizeof(b), &f), 1);
}

/* Values of the wrong size, strings with NULs or too long. */
static void
test_bad_values(void **state)
{
	uint8_t			three[3] = { 0, 0, 1 }, five[5] = { 0 };
	uint8_t			nul[3] = { 'a', 0, 'b' };
	struct frame_buf	v;
	uint32_t		u;
	uint64_t		l;
	char			*s = NULL;

	(void)state;
	frame_buf_init(&v, three, sizeof(three));
	assert_int_equal(frame_val_u32(&v, &u), FRAME_ERR_VALUE);
	frame_buf_init(&v, five, sizeof(five));
	assert_int_equal(frame_val_u32(&v, &u), FRAME_ERR_VALUE);
	assert_int_equal(frame_val_u64(&v, &l), FRAME_ERR_VALUE);
	frame_buf_init(&v, nul, sizeof(nul));
	assert_int_equal(frame_val_str(&v, 10, &s), FRAME_ERR_VALUE);
	assert_null(s);
	frame_buf_init(&v, "abcd", 4);
	assert_int_equal(frame_val_str(&v, 3, &s), FRAME_ERR_VALUE);
	assert_int_equal(frame_val_str(&v, 4, &s), 0);
	assert_string_equal(s, "abcd");
	free(s);
}

/* The getters stop at the end of their buffer and leave it unchanged. */
static void
test_getters(void **state)
{
	uint8_t			 b[] = { 1, 2, 3, 4, 5, 6, 7 };
	const uint8_t		*p;
	struct frame_buf	 r;
	uint64_t		 l;
	uint32_t		 u;
	uint16_t		 s;
	uint8_t			 c;

	(void)state;
	frame_buf_init(&r, b, sizeof(b));
	assert_int_equal(frame_get_u64(&r, &l), FRAME_ERR_SHORT);
	assert_int_equal(r.off, 0);
	assert_int_equal(frame_get_u32(&r, &u), 0);
	assert_int_equal(u, 0x01020304);
	assert_int_equal(frame_get_u32(&r, &u), FRAME_ERR_SHORT);
	assert_int_equal(frame_get_u16(&r, &s), 0);
	assert_int_equal(s, 0x0506);
	assert_int_equal(frame_get_bytes(&r, 2, &p), FRAME_ERR_SHORT);
	assert_int_equal(frame_get_u8(&r, &c), 0);
	assert_int_equal(c, 7);
	assert_int_equal(frame_get_u8(&r, &c), FRAME_ERR_SHORT);
	assert_int_equal(frame_get_bytes(&r, 0, &p), 0);
	assert_int_equal(frame_get_bytes(&r, SIZE_MAX, &p), FRAME_ERR_SHORT);
}

/* Messages missing what they need, or with it twice, are refused. */
static void
test_bad_messages(void **state)
{
	struct frame_wr	w = FRAME_WR_INIT;
	struct frame	f;
	struct msg_exec	m;
	int		code, sig;
	uint32_t	pid, nfds;

	(void)state;
	frame_begin(&w, FRAME_EXEC, 1);		/* no cwd */
	frame_put_str(&w, TAG_ARG, "ls");
	frame_put_u32(&w, TAG_NFDS, 3);
	frame_end(&w);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	assert_int_equal(msg_exec_get(&f, &m), FRAME_ERR_VALUE);

	frame_wr_reset(&w);			/* fds a pty does not take */
	frame_begin(&w, FRAME_EXEC, 1);
	frame_put_str(&w, TAG_ARG, "ls");
	frame_put_str(&w, TAG_CWD, "/");
	frame_put_u32(&w, TAG_FLAGS, FRAME_EXEC_PTY);
	frame_put_u32(&w, TAG_NFDS, 3);
	frame_end(&w);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	assert_int_equal(msg_exec_get(&f, &m), FRAME_ERR_VALUE);

	frame_wr_reset(&w);			/* a code and a signal */
	frame_begin(&w, FRAME_EXIT, 1);
	frame_put_u32(&w, TAG_CODE, 1);
	frame_put_u32(&w, TAG_SIGNO, 9);
	frame_end(&w);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	assert_int_equal(msg_exit_get(&f, &code, &sig), FRAME_ERR_VALUE);

	frame_wr_reset(&w);			/* code out of range */
	msg_u32(&w, FRAME_EXIT, 1, TAG_CODE, 256);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	assert_int_equal(msg_exit_get(&f, &code, &sig), FRAME_ERR_VALUE);

	frame_wr_reset(&w);			/* two pids */
	frame_begin(&w, FRAME_STARTED, 1);
	frame_put_u32(&w, TAG_PID, 1);
	frame_put_u32(&w, TAG_PID, 2);
	frame_end(&w);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	assert_int_equal(msg_started_get(&f, &pid, &nfds), FRAME_ERR_VALUE);

	frame_wr_reset(&w);			/* a HELLO without protocol */
	msg_simple(&w, FRAME_HELLO, 0);
	assert_int_equal(frame_parse(w.data, w.len, &f), 1);
	assert_int_equal(msg_hello_get(&f, &(struct msg_hello){ 0 }),
	    FRAME_ERR_VALUE);
	frame_wr_free(&w);
}

/* Build one frame with w and parse it into f. */
static void
one(struct frame_wr *w, struct frame *f)
{
	assert_int_equal(frame_parse(w->data, w->len, f), 1);
}

/* serve's messages: good ones decode, each kind of bad one is refused. */
static void
test_serve_messages(void **state)
{
	struct frame_wr	 w = FRAME_WR_INIT;
	struct frame	 f;
	struct msg_exec	 m;
	const uint8_t	*p;
	size_t		 n;
	uint32_t	 code;
	int		 stream;
	char		*dir, *spec;

	(void)state;
	msg_data_put(&w, 7, 2, "abc", 3);
	one(&w, &f);
	assert_int_equal(msg_data_get(&f, &stream, &p, &n), 0);
	assert_int_equal(stream, 2);
	assert_int_equal(n, 3);
	assert_memory_equal(p, "abc", 3);
	frame_wr_reset(&w);			/* stream 3 */
	msg_data_put(&w, 7, 3, "abc", 3);
	one(&w, &f);
	assert_int_equal(msg_data_get(&f, &stream, &p, &n), FRAME_ERR_VALUE);
	frame_wr_reset(&w);			/* no bytes */
	msg_u32(&w, FRAME_DATA, 7, TAG_STREAM, 0);
	one(&w, &f);
	assert_int_equal(msg_data_get(&f, &stream, &p, &n), FRAME_ERR_VALUE);
	frame_wr_reset(&w);
	msg_u32(&w, FRAME_EOF, 7, TAG_STREAM, 0);
	one(&w, &f);
	assert_int_equal(msg_eof_get(&f, &stream), 0);
	assert_int_equal(stream, 0);
	frame_wr_reset(&w);
	msg_u32(&w, FRAME_EOF, 7, TAG_STREAM, 9);
	one(&w, &f);
	assert_int_equal(msg_eof_get(&f, &stream), FRAME_ERR_VALUE);

	frame_wr_reset(&w);			/* a relayed EXEC */
	frame_begin(&w, FRAME_EXEC, 1);
	frame_put_str(&w, TAG_DIR, "/srv/c1/run");
	frame_put_str(&w, TAG_ARG, "true");
	frame_put_str(&w, TAG_CWD, "/");
	frame_end(&w);
	one(&w, &f);
	assert_int_equal(msg_exec_get(&f, &m), FRAME_ERR_VALUE); /* no fds */
	assert_int_equal(msg_exec_get_relayed(&f, &m), 0);
	msg_exec_free(&m);
	assert_int_equal(msg_exec_target_get(&f, &dir, &spec), 0);
	assert_string_equal(dir, "/srv/c1/run");
	assert_string_equal(spec, "");
	free(dir);
	free(spec);
	frame_wr_reset(&w);			/* a relative RUNDIR */
	frame_begin(&w, FRAME_EXEC, 1);
	frame_put_str(&w, TAG_DIR, "run");
	frame_end(&w);
	one(&w, &f);
	assert_int_equal(msg_exec_target_get(&f, &dir, &spec),
	    FRAME_ERR_VALUE);
	frame_wr_reset(&w);			/* two of them */
	frame_begin(&w, FRAME_EXEC, 1);
	frame_put_str(&w, TAG_DIR, "/a");
	frame_put_str(&w, TAG_DIR, "/b");
	frame_end(&w);
	one(&w, &f);
	assert_int_equal(msg_exec_target_get(&f, &dir, &spec),
	    FRAME_ERR_VALUE);

	frame_wr_reset(&w);
	msg_error_code(&w, 3, MSG_ERR_NOHOLDER, "nobody");
	one(&w, &f);
	assert_int_equal(msg_error_code_get(&f, &code), 0);
	assert_int_equal(code, MSG_ERR_NOHOLDER);
	frame_wr_reset(&w);
	msg_error(&w, 3, "no code");
	one(&w, &f);
	assert_int_equal(msg_error_code_get(&f, &code), 1);
	frame_wr_free(&w);
}

/* The writer refuses to grow a frame past the cap. */
static void
test_writer_cap(void **state)
{
	struct frame_wr	 w = FRAME_WR_INIT;
	char		*big = calloc(1, FRAME_MAX);

	(void)state;
	assert_non_null(big);
	frame_begin(&w, FRAME_ERROR, 1);
	frame_put_bytes(&w, TAG_MESSAGE, big, FRAME_MAX - FRAME_HEAD -
	    FRAME_FIELD);
	assert_int_equal(frame_end(&w), 0);	/* exactly the cap */
	assert_int_equal(w.len, 4 + FRAME_MAX);
	frame_wr_reset(&w);
	frame_begin(&w, FRAME_ERROR, 1);
	frame_put_bytes(&w, TAG_MESSAGE, big, FRAME_MAX);
	assert_int_equal(frame_end(&w), FRAME_ERR_LENGTH);
	assert_true(w.len <= 4 + FRAME_MAX);
	free(big);
	frame_wr_free(&w);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_round_trip),
		cmocka_unit_test(test_small_round_trips),
		cmocka_unit_test(test_every_prefix),
		cmocka_unit_test(test_byte_at_a_time),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_version_type),
		cmocka_unit_test(test_field_overrun),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_bad_messages),
		cmocka_unit_test(test_writer_cap),
		cmocka_unit_test(test_serve_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
