/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Exact string replacement for the edit tool.  See fsedit.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "buf.h"
#include "error.h"
#include "fsedit.h"
#include "xmalloc.h"

/* Count the non-overlapping occurrences of old in text. */
static size_t
fsedit_count(const char *text, size_t len, const char *old, size_t oldlen)
{
	const char	*p = text, *end = text + len, *hit;
	size_t		 n = 0;

	while ((hit = memmem(p, (size_t)(end - p), old, oldlen)) != NULL) {
		n++;
		p = hit + oldlen;
	}
	return n;
}

/* Replace; see fsedit.h. */
int
fsedit_replace(const char *path, const char *text, size_t len,
    const char *old, size_t oldlen, const char *new, size_t newlen, int all,
    char **out, size_t *outlen, size_t *count, char **cause)
{
	struct buf	 b = BUF_INIT;
	const char	*p = text, *end = text + len, *hit;
	size_t		 n;

	if (oldlen == 0)
		return claw_fail(cause, CLAW_ERR_INVAL, "%s: the text to "
		    "replace is empty", path);
	if ((n = fsedit_count(text, len, old, oldlen)) == 0)
		return claw_fail(cause, CLAW_ERR_INVAL, "%s: the text to "
		    "replace was not found", path);
	if (n > 1 && !all)
		return claw_fail(cause, CLAW_ERR_INVAL, "%s: the text to "
		    "replace occurs %zu times; give more context to make it "
		    "unique, or --all", path, n);
	while ((hit = memmem(p, (size_t)(end - p), old, oldlen)) != NULL) {
		buf_append(&b, p, (size_t)(hit - p));
		buf_append(&b, new, newlen);
		p = hit + oldlen;
	}
	buf_append(&b, p, (size_t)(end - p));
	buf_append(&b, "", 1);
	*outlen = b.len - 1;
	*out = buf_detach(&b);
	*count = n;
	return 0;
}
