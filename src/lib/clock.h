/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Monotonic time in milliseconds, for deadlines.
 */
#ifndef CLAW_CLOCK_H
#define CLAW_CLOCK_H

#include <stdint.h>

#define CLOCK_NEVER	INT64_MAX	/* a deadline that never passes */

/* Return milliseconds on the monotonic clock. */
int64_t	clock_now_ms(void);

/*
 * Return the poll(2) timeout for deadline: -1 for CLOCK_NEVER, else the
 * milliseconds left (0 when past), capped to fit an int.
 */
int	clock_poll_timeout(int64_t deadline);

/* Return the earlier of two deadlines. */
int64_t	clock_min(int64_t a, int64_t b);

/*
 * A backoff delay: min(ms, max_ms) scaled by a random factor in [0.5, 1.5)
 * so that many clients retrying do not move in step.
 */
int64_t	clock_jitter(int64_t ms, int64_t max_ms);

#endif /* CLAW_CLOCK_H */
