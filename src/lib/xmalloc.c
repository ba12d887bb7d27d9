/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Allocation wrappers that abort on failure.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* Report an allocation failure and abort. */
static void __attribute__((__noreturn__))
xmalloc_fatal(size_t size)
{
	fprintf(stderr, "clawssh: out of memory allocating %zu bytes\n", size);
	abort();
}

/* Allocate size bytes (at least one). */
void *
xmalloc(size_t size)
{
	void	*p;

	if ((p = malloc(size == 0 ? 1 : size)) == NULL)
		xmalloc_fatal(size);
	return p;
}

/* Allocate a zeroed array of n elements of size bytes. */
void *
xcalloc(size_t n, size_t size)
{
	void	*p;

	if ((p = calloc(n == 0 ? 1 : n, size == 0 ? 1 : size)) == NULL)
		xmalloc_fatal(n * size);
	return p;
}

/* Resize ptr to n elements of size bytes, checking for overflow. */
void *
xreallocarray(void *ptr, size_t n, size_t size)
{
	void	*p;

	if (size != 0 && n > SIZE_MAX / size)
		xmalloc_fatal(SIZE_MAX);
	if ((p = realloc(ptr, n * size == 0 ? 1 : n * size)) == NULL)
		xmalloc_fatal(n * size);
	return p;
}

/* Duplicate a string. */
char *
xstrdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		xmalloc_fatal(strlen(s) + 1);
	return p;
}

/* Duplicate at most n bytes of a string, always terminated. */
char *
xstrndup(const char *s, size_t n)
{
	char	*p;

	if ((p = strndup(s, n)) == NULL)
		xmalloc_fatal(n + 1);
	return p;
}

/* Format into a newly allocated string. */
char *
xvasprintf(const char *fmt, va_list ap)
{
	char	*s;

	if (vasprintf(&s, fmt, ap) == -1)
		xmalloc_fatal(0);
	return s;
}

/* Format into a newly allocated string. */
char *
xasprintf(const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}
