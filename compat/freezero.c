/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * freezero: wipe then free, for secrets.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "compat.h"

/* Wipe len bytes at ptr so the compiler cannot elide it, then free. */
void
freezero(void *ptr, size_t len)
{
	if (ptr == NULL)
		return;
	explicit_bzero(ptr, len);
	free(ptr);
}
