/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The edit tool's core: exact string replacement in a file's content,
 * with no I/O.
 */
#ifndef CLAW_FSEDIT_H
#define CLAW_FSEDIT_H

#include <stddef.h>

/*
 * Replace old[0..oldlen) by new[0..newlen) in text[0..len): the one
 * occurrence, or with all set every non-overlapping one.  Fails
 * (CLAW_ERR_INVAL, *cause naming path) if old is empty, absent, or present
 * more than once without all.  Sets *out (allocated, NUL-terminated),
 * *outlen and *count (replacements made).
 */
int	fsedit_replace(const char *path, const char *text, size_t len,
	    const char *old, size_t oldlen, const char *new, size_t newlen,
	    int all, char **out, size_t *outlen, size_t *count, char **cause);

#endif /* CLAW_FSEDIT_H */
