/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A growable byte buffer, always NUL-terminated after its contents.
 */
#ifndef CLAW_BUF_H
#define CLAW_BUF_H

#include <stddef.h>

struct buf {
	char	*data;		/* contents, NUL-terminated; NULL when empty */
	size_t	 len;		/* bytes used, not counting the NUL */
	size_t	 cap;		/* bytes allocated */
};

#define BUF_INIT	{ NULL, 0, 0 }

void	 buf_append(struct buf *, const void *, size_t);
void	 buf_append_str(struct buf *, const char *);
void	 buf_appendf(struct buf *, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));
void	 buf_consume(struct buf *, size_t);
char	*buf_detach(struct buf *);
void	 buf_reset(struct buf *);
void	 buf_free(struct buf *);
void	 buf_free_secret(struct buf *);

#endif /* CLAW_BUF_H */
