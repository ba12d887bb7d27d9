/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Allocation wrappers: failure prints a message and aborts, so callers never
 * continue with a NULL they did not expect.
 */
#ifndef CLAW_XMALLOC_H
#define CLAW_XMALLOC_H

#include <stdarg.h>
#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
char	*xasprintf(const char *, ...)
	    __attribute__((__format__(__printf__, 1, 2)));
char	*xvasprintf(const char *, va_list)
	    __attribute__((__format__(__printf__, 1, 0)));

#endif /* CLAW_XMALLOC_H */
