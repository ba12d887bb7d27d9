/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One progress line on stderr for a long transfer, as rsync's
 * --info=progress2: bytes so far, the percentage and the time left when
 * the total is known, and the rate.  Only when stderr is a terminal, and
 * only once the transfer has run for a second (CLAWSSH_PROGRESS_MS
 * changes that); nothing at all otherwise.  Not thread-safe.
 */
#ifndef CLAW_PROGRESS_H
#define CLAW_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#define PROGRESS_AFTER_MS	1000	/* before the first line */
#define PROGRESS_EVERY_MS	200	/* between updates */

/*
 * What a file adds to a tar stream, at most: a header block (and one
 * for a pax or long-name header with its data block) and the data
 * rounded up to blocks.
 */
#define PROGRESS_TAR_BYTES(size)	(1536 + (((size) + 511) / 512) * 512)

struct progress {
	const char	*verb;		/* "sent", "received" */
	uint64_t	 total;		/* expected bytes, 0: unknown */
	uint64_t	 bytes;		/* so far */
	int64_t		 start;		/* clock_now_ms() */
	int64_t		 shown;		/* last line, 0: none yet */
	int		 tty;		/* stderr is a terminal */
	int		 after;		/* ms before the first line */
};

/* Start counting for a transfer of total bytes (0: not known). */
void	progress_init(struct progress *p, const char *verb, uint64_t total);

/*
 * Count n more bytes; files is the count of files so far.  Updates the
 * line when it is due.
 */
void	progress_add(struct progress *p, uint64_t n, uint64_t files);

/* The transfer ended: the last line (100%) if any was shown, and '\n'. */
void	progress_end(struct progress *p, uint64_t files);

/*
 * Format the line (no '\r', no newline) into out[0..len): verb, files,
 * bytes (of total), percent, rate, time left (done: time taken).
 * Exposed for tests.
 */
void	progress_format(char *out, size_t len, const char *verb,
	    uint64_t files, uint64_t bytes, uint64_t total, int64_t ms,
	    int done);

#endif /* CLAW_PROGRESS_H */
