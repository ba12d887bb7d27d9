/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The daemon's dchan_new queues a channel and asks for a turn; it must
 * not start it.  A started channel whose command ends at once is freed
 * in that same step when nobody owns it yet, and the daemon's own
 * callers (a process call's step, the host agent, a watcher) make it
 * theirs only after dchan_new returns: they kept a freed channel, waited
 * for ever, and freed it again when their client left.  Here a session
 * stands ready with room: a channel that dchan_new started would be on
 * it (and would reach for its transport, which the test leaves NULL).
 * No sshd.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "daemon_int.h"

/* A new channel waits in the host's queue for the loop's next turn. */
static void
test_new_only_queues(void **state)
{
	struct daemon	 d;
	struct dhost	 h;
	struct dconn	 k;
	struct dchan	*ch;

	(void)state;
	memset(&d, 0, sizeof d);
	memset(&h, 0, sizeof h);
	memset(&k, 0, sizeof k);
	h.d = &d;
	h.label = (char *)(uintptr_t)"test";
	TAILQ_INIT(&h.conns);
	TAILQ_INIT(&h.queue);
	TAILQ_INIT(&h.agents);
	k.host = &h;
	k.state = DCONN_UP;
	k.cap = 10;
	TAILQ_INIT(&k.chans);
	TAILQ_INSERT_TAIL(&h.conns, &k, entry);

	ch = dchan_new(&h, NULL, 0, "true", NULL);
	assert_non_null(ch);
	assert_int_equal(ch->state, DCHAN_QUEUED);
	assert_ptr_equal(TAILQ_FIRST(&h.queue), ch);
	assert_int_equal(k.nchan, 0);
	assert_null(k.opening);
	assert_int_equal(d.again, 1);

	dchan_abandon(ch);	/* a queued one is freed at once */
	assert_true(TAILQ_EMPTY(&h.queue));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_only_queues),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
