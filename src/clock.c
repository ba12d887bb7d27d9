/*
 * Monotonic clock helpers.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
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
