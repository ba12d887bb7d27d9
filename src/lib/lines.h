/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one bounded reader of text from outside (a host's replies): a cursor
 * over a byte buffer it does not own, taking lines, the space-separated
 * words of a line, numbers and raw bytes, in the spirit of OpenSSH's
 * sshbuf getters.  It never reads past the length given, never allocates,
 * and scans at most max + 1 bytes for one line.
 *
 * A line ends at '\n', which it does not include.  Every other byte,
 * '\r' and NUL among them, is an ordinary byte of the line: lines are
 * (pointer, length) pairs, never strings.  A getter that fails leaves the
 * cursor and its out-pointers untouched.
 */
#ifndef CLAW_LINES_H
#define CLAW_LINES_H

#include <stddef.h>
#include <stdint.h>

struct lines {
	const char	*p;	/* the next byte not taken */
	const char	*end;	/* one past the last byte */
};

/* Start a cursor over data[0..len) (data may be NULL when len is 0). */
void	lines_init(struct lines *l, const char *data, size_t len);

/* Return how many bytes are not taken yet. */
size_t	lines_left(const struct lines *l);

/*
 * Take the next line, of at most max bytes, into *line and *len (without
 * its newline).  Returns 0; CLAW_ERR_NOTFOUND when nothing is left;
 * CLAW_ERR_RANGE when no newline comes within max + 1 bytes and more
 * than max are left; CLAW_ERR_PARSE when the rest lacks its newline.
 */
int	lines_next(struct lines *l, size_t max, const char **line,
	    size_t *len);

/* lines_next, but a last line without its newline is taken too. */
int	lines_next_loose(struct lines *l, size_t max, const char **line,
	    size_t *len);

/* Take the next n bytes into *p: 0, or CLAW_ERR_RANGE if fewer are left. */
int	lines_bytes(struct lines *l, size_t n, const char **p);

/*
 * Take the next word: the bytes up to the next space or the end, never
 * empty, and the one space after it if more follows that space.  So two
 * spaces in a row, a leading space or a trailing one fail a parse that
 * asks lines_left() == 0 at the end.  0, or CLAW_ERR_PARSE.
 */
int	lines_word(struct lines *l, const char **word, size_t *len);

/* Take the next word if it is word: 0, or CLAW_ERR_PARSE. */
int	lines_expect(struct lines *l, const char *word);

/*
 * Take the next word as a number (num_parse with flags, at most max) into
 * *v: 0, or CLAW_ERR_PARSE.
 */
int	lines_number(struct lines *l, int flags, uint64_t max, uint64_t *v);

#endif /* CLAW_LINES_H */
