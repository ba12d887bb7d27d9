/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Descriptor I/O helpers shared by modules that write files and streams.
 */
#ifndef CLAW_FDIO_H
#define CLAW_FDIO_H

#include <sys/types.h>

#include <stddef.h>
#include <stdio.h>

/*
 * Write all n bytes at p to fd.  Short writes are continued and EINTR is
 * retried.  On a non-blocking fd, EAGAIN waits in poll(2) until fd is
 * writable, so the call always blocks until done or failed; on a blocking
 * fd that wait never happens.  n may be 0 (nothing is written).  Returns 0,
 * or -1 with errno set: write(2)'s or poll(2)'s error, or EIO if write(2)
 * took no bytes.  On failure an unknown prefix of p may have been written.
 * SIGPIPE is not touched: a caller writing to a pipe or socket whose reader
 * may go away ignores it to get EPIPE instead.
 */
int	fdio_write_all(int fd, const void *p, size_t n);

/*
 * Read from the blocking fd until n bytes are at p or it ends, retrying
 * EINTR.  Returns the bytes read (less than n only at the end), or -1
 * with errno set.
 */
ssize_t	fdio_read_full(int fd, void *p, size_t n);

/* Close both ends of each of pipes p[0..n) that is open (not -1). */
void	fdio_close_pipes(int (*p)[2], size_t n);

/*
 * Open path to read text from: a regular file, or /dev/null (ssh -F
 * /dev/null and UserKnownHostsFile /dev/null mean "none"), never a
 * device that does not end (/dev/zero), a FIFO nobody writes (the open
 * does not block), or a directory.  NULL with errno set: open(2)'s, or
 * EINVAL for a file of another kind.
 */
FILE	*fdio_fopen_text(const char *path);

#endif /* CLAW_FDIO_H */
