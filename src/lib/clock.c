/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Monotonic clock helpers.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"

/* Return milliseconds on the monotonic clock. */
int64_t
clock_now_ms(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Return the poll timeout for deadline; -1 waits forever. */
int
clock_poll_timeout(int64_t deadline)
{
	int64_t	left;

	if (deadline == CLOCK_NEVER)
		return -1;
	left = deadline - clock_now_ms();
	if (left <= 0)
		return 0;
	return left > INT_MAX ? INT_MAX : (int)left;
}

/* Return the earlier of two deadlines. */
int64_t
clock_min(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

/* Return a jittered backoff delay; see clock.h. */
int64_t
clock_jitter(int64_t ms, int64_t max_ms)
{
	if (ms > max_ms)
		ms = max_ms;
	if (ms <= 1)
		return ms;
	return ms / 2 + (int64_t)arc4random_uniform((uint32_t)ms);
}
