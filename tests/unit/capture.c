/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Capturing what a test's code writes on stderr.  See capture.h.
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

/* Start sending stderr to a fresh unlinked file; return the file's fd. */
int
capture_begin(int *saved)
{
	char	name[] = "/tmp/clawssh-test-err.XXXXXX";
	int	fd;

	fflush(stderr);
	assert_true((fd = mkstemp(name)) != -1);
	assert_int_equal(unlink(name), 0);
	assert_true((*saved = dup(2)) != -1);
	assert_int_equal(dup2(fd, 2), 2);
	return fd;
}

/* Put stderr back; return what was written to it (allocated). */
char *
capture_end(int fd, int saved)
{
	struct buf	b = BUF_INIT;
	char		chunk[4096];
	ssize_t		n;

	fflush(stderr);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		buf_append(&b, chunk, (size_t)n);
	close(fd);
	buf_append(&b, "", 1);
	return buf_detach(&b);
}

/* Return how many times needle occurs in s. */
int
capture_count(const char *s, const char *needle)
{
	int	n = 0;

	while ((s = strstr(s, needle)) != NULL) {
		n++;
		s += strlen(needle);
	}
	return n;
}
