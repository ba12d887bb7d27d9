/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The daemon's flush to a control client (dclient_flush) must ask for
 * another turn without waiting whenever it unblocks something: output
 * drained below DCLIENT_OUT_MAX (the channels held back for that client
 * may read again) or frames taken that a pause held back.  Without it a
 * big pull through the daemon slept a second of poll per backlog (libssh2
 * had already read the host's data off the socket, and the host waited
 * for a window adjust), two to three times slower than without the
 * daemon.  Against a socketpair, no sshd.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>
#include <sys/socket.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "daemon_int.h"
#include "mux_proto.h"

/* A client of d writing to sv[0] (non-blocking); sv[1] is its peer. */
static void
client_init(struct daemon *d, struct dclient *c, int sv[2],
    enum dclient_kind kind)
{
	memset(d, 0, sizeof *d);
	memset(c, 0, sizeof *c);
	TAILQ_INIT(&c->calls);
	TAILQ_INIT(&c->chans);
	TAILQ_INIT(&c->areqs);
	c->d = d;
	c->kind = kind;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_not_equal(fcntl(sv[0], F_SETFL, O_NONBLOCK), -1);
	c->fd = c->wfd = sv[0];
}

/* Read what the peer has (it never blocks: the writer is the test). */
static size_t
drain(int fd)
{
	char	chunk[65536];
	size_t	total = 0;
	ssize_t	n;

	assert_int_not_equal(fcntl(fd, F_SETFL, O_NONBLOCK), -1);
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		total += (size_t)n;
	return total;
}

/* Output over the cap: no turn asked for until it drains below it. */
static void
test_drained_below_cap_wakes(void **state)
{
	struct daemon	 d;
	struct dclient	 c;
	int		 sv[2], crossed = 0, rounds = 0;
	char		*big;
	size_t		 len = 2 * DCLIENT_OUT_MAX, before;

	(void)state;
	client_init(&d, &c, sv, DCLIENT_RPC);
	big = calloc(1, len);
	assert_non_null(big);
	buf_append(&c.out, big, len);
	free(big);
	while (c.out.len != 0 && rounds++ < 10000) {
		before = c.out.len;
		d.again = 0;
		dclient_flush(&c);
		assert_false(c.dead);
		if (before >= DCLIENT_OUT_MAX && c.out.len < DCLIENT_OUT_MAX) {
			assert_int_equal(d.again, 1);
			crossed++;
		} else
			assert_int_equal(d.again, 0);
		(void)drain(sv[1]);
	}
	assert_int_equal(c.out.len, 0);
	assert_int_equal(crossed, 1);
	buf_free(&c.out);
	close(sv[0]);
	close(sv[1]);
}

/* Frames taken at the flush (a late frame for an ended channel). */
static void
test_frames_taken_wake(void **state)
{
	struct daemon	 d;
	struct dclient	 c;
	int		 sv[2];

	(void)state;
	client_init(&d, &c, sv, DCLIENT_MUX);
	d.again = 0;
	dclient_flush(&c);		/* nothing to take */
	assert_int_equal(d.again, 0);
	mux_frame_put(&c.in, MUX_DATA, 7, "abc", 3);
	dclient_flush(&c);
	assert_int_equal(c.in.len, 0);
	assert_false(c.dead);
	assert_int_equal(d.again, 1);
	buf_free(&c.in);
	buf_free(&c.out);
	close(sv[0]);
	close(sv[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_drained_below_cap_wakes),
		cmocka_unit_test(test_frames_taken_wake),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
