/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * POSIX sh quoting.  Every byte except the single quote is literal inside
 * single quotes; a single quote is written as '\'' (close, escaped quote,
 * reopen).  The empty string becomes ''.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "buf.h"
#include "shquote.h"

/* Append s to b as one single-quoted sh word. */
void
shquote_append(struct buf *b, const char *s)
{
	const char	*q;

	buf_append(b, "'", 1);
	while ((q = strchr(s, '\'')) != NULL) {
		buf_append(b, s, (size_t)(q - s));
		buf_append(b, "'\\''", 4);
		s = q + 1;
	}
	buf_append_str(b, s);
	buf_append(b, "'", 1);
}

/* Return a newly allocated quoted copy of s. */
char *
shquote(const char *s)
{
	struct buf	b = BUF_INIT;

	shquote_append(&b, s);
	return buf_detach(&b);
}

/* Append each argument quoted, separated by spaces. */
void
shquote_append_argv(struct buf *b, int argc, char *const argv[])
{
	int	i;

	for (i = 0; i < argc; i++) {
		if (i != 0)
			buf_append(b, " ", 1);
		shquote_append(b, argv[i]);
	}
}
