/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * strlcpy: copy a string into a sized buffer, always terminated.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "compat.h"

/* Copy src into dst of size dsize; return strlen(src). */
size_t
strlcpy(char *dst, const char *src, size_t dsize)
{
	size_t	len = strlen(src);

	if (dsize != 0) {
		size_t	n = len < dsize - 1 ? len : dsize - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
