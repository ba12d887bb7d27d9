/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A growable byte buffer.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "buf.h"
#include "xmalloc.h"

/*
 * Make room for n more bytes plus the terminating NUL; a size past what
 * memory can hold fails as an allocation does (xreallocarray aborts).
 */
static void
buf_reserve(struct buf *b, size_t n)
{
	size_t	need, cap;

	if (n >= SIZE_MAX - b->len)
		need = SIZE_MAX;	/* cannot be had: aborts below */
	else
		need = b->len + n + 1;
	if (need <= b->cap)
		return;
	cap = b->cap == 0 ? 64 : b->cap;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	b->data = xreallocarray(b->data, 1, cap);
	b->cap = cap;
}

/* Append n bytes from p. */
void
buf_append(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (n != 0)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

/* Append a C string. */
void
buf_append_str(struct buf *b, const char *s)
{
	buf_append(b, s, strlen(s));
}

/* Append formatted text. */
void
buf_appendf(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	buf_append_str(b, s);
	free(s);
}

/* Drop the first n bytes (all of them if n is larger). */
void
buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		buf_reset(b);
		return;
	}
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

/* Hand the contents to the caller (never NULL) and empty the buffer. */
char *
buf_detach(struct buf *b)
{
	char	*s;

	if (b->data == NULL)
		return xstrdup("");
	s = b->data;
	b->data = NULL;
	b->len = b->cap = 0;
	return s;
}

/* Empty the buffer, keeping its allocation. */
void
buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data != NULL)
		b->data[0] = '\0';
}

/* Release the buffer's memory. */
void
buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* Wipe and release a buffer that held a secret. */
void
buf_free_secret(struct buf *b)
{
	freezero(b->data, b->cap);
	b->data = NULL;
	b->len = b->cap = 0;
}
