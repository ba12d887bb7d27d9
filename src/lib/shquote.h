/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Quoting for POSIX sh: the one place remote command lines are built.
 */
#ifndef CLAW_SHQUOTE_H
#define CLAW_SHQUOTE_H

struct buf;

/*
 * Append s to b quoted so that sh reads it back as exactly one word equal
 * to s, whatever bytes it holds (spaces, quotes, '$', newlines, '-').
 */
void	 shquote_append(struct buf *b, const char *s);

/* Return a newly allocated quoted copy of s. */
char	*shquote(const char *s);

/* Append argv[0..argc) quoted and separated by single spaces. */
void	 shquote_append_argv(struct buf *b, int argc, char *const argv[]);

#endif /* CLAW_SHQUOTE_H */
