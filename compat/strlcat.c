/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * strlcat: append a string into a sized buffer, always terminated.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "compat.h"

/* Append src to dst of size dsize; return the length it tried to make. */
size_t
strlcat(char *dst, const char *src, size_t dsize)
{
	size_t	dlen = strnlen(dst, dsize);

	if (dlen == dsize)
		return dsize + strlen(src);
	return dlen + strlcpy(dst + dlen, src, dsize - dlen);
}
