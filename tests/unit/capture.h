/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Capturing what a unit test's code writes on stderr (warnings).
 */
#ifndef CLAW_TEST_CAPTURE_H
#define CLAW_TEST_CAPTURE_H

/*
 * Start sending stderr to a fresh unlinked file; return its fd, the old
 * stderr saved in *saved.
 */
int	capture_begin(int *saved);

/* Put stderr back; return what was written to it (allocated). */
char	*capture_end(int fd, int saved);

/* Return how many times needle occurs in s. */
int	capture_count(const char *s, const char *needle);

#endif /* CLAW_TEST_CAPTURE_H */
