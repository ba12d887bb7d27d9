/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Descriptor I/O helpers: writing a whole buffer through short writes,
 * signals and non-blocking descriptors.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <unistd.h>

#include "fdio.h"

/* Wait until fd can take more bytes; 0, or -1 with errno set. */
static int
fdio_wait_writable(int fd)
{
	struct pollfd	pfd = { .fd = fd, .events = POLLOUT };

	if (poll(&pfd, 1, -1) == -1 && errno != EINTR)
		return -1;
	return 0;
}

/* Write all n bytes at p to fd; 0, or -1 with errno set. */
int
fdio_write_all(int fd, const void *p, size_t n)
{
	const unsigned char	*cp = p;
	ssize_t			 w;

	while (n > 0) {
		if ((w = write(fd, cp, n)) > 0) {
			cp += w;
			n -= (size_t)w;
		} else if (w == 0) {
			errno = EIO;
			return -1;
		} else if (errno == EAGAIN) {
			if (fdio_wait_writable(fd) != 0)
				return -1;
		} else if (errno != EINTR)
			return -1;
	}
	return 0;
}

/* Read up to n bytes; see fdio.h. */
ssize_t
fdio_read_full(int fd, void *p, size_t n)
{
	unsigned char	*cp = p;
	size_t		 got = 0;
	ssize_t		 r;

	while (got < n) {
		if ((r = read(fd, cp + got, n - got)) > 0)
			got += (size_t)r;
		else if (r == 0)
			break;
		else if (errno != EINTR)
			return -1;
	}
	return (ssize_t)got;
}

/* Close the open ends of n pipes; see fdio.h. */
void
fdio_close_pipes(int (*p)[2], size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (p[i][0] != -1)
			close(p[i][0]);
		if (p[i][1] != -1)
			close(p[i][1]);
	}
}

/* Open a text file a user named; see fdio.h. */
FILE *
fdio_fopen_text(const char *path)
{
	struct stat	 st;
	FILE		*f;
	int		 fd, fl, errnum;

	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1)
		goto fail;
	if (!S_ISREG(st.st_mode) && !(S_ISCHR(st.st_mode) &&
	    major(st.st_rdev) == 1 && minor(st.st_rdev) == 3)) {
		errno = EINVAL;
		goto fail;
	}
	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) == -1 ||
	    (f = fdopen(fd, "r")) == NULL)
		goto fail;
	return f;
fail:
	errnum = errno;
	close(fd);
	errno = errnum;
	return NULL;
}
