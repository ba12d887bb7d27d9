/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Enum name tables; see names.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "buf.h"
#include "names.h"

/* Return the value named s, or -1; see names.h. */
int
names_find(const struct names *t, const char *s)
{
	size_t	i;

	for (i = 0; s != NULL && i < t->n; i++) {
		if (t->v[i] != NULL && strcmp(t->v[i], s) == 0)
			return (int)i;
	}
	return -1;
}

/* Return the name of v, or "unknown"; see names.h. */
const char *
names_get(const struct names *t, int v)
{
	if (v < 0 || (size_t)v >= t->n || t->v[v] == NULL)
		return "unknown";
	return t->v[v];
}

/* Return the names joined for a message; see names.h. */
char *
names_list(const struct names *t, int quoted)
{
	struct buf	 b = BUF_INIT;
	const char	*q = quoted ? "\"" : "";
	size_t		 i, left = 0;

	for (i = 0; i < t->n; i++)
		left += t->v[i] != NULL;
	for (i = 0; i < t->n; i++) {
		if (t->v[i] == NULL)
			continue;
		left--;
		buf_appendf(&b, "%s%s%s%s", q, t->v[i], q,
		    left > 1 ? ", " : left == 1 ? " or " : "");
	}
	return buf_detach(&b);
}
