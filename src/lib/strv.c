/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Arrays of C strings: sorting, duplicates, membership.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "strv.h"

#define STRV_LINEAR	16	/* sets this small: compare each */

/* Free a NULL-ended array of strings; see strv.h. */
void
strv_free(char **v)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* Order two char * by strcmp; see strv.h. */
int
strv_cmp(const void *a, const void *b)
{
	const char	*const *sa = a, *const *sb = b;

	return strcmp(*sa, *sb);
}

/* Sort and drop duplicates; see strv.h. */
void
strv_uniq(char **v, size_t *n, int owned)
{
	size_t	i, o;

	if (*n > 1)
		qsort(v, *n, sizeof(*v), strv_cmp);
	for (i = o = 0; i < *n; i++) {
		if (o > 0 && strcmp(v[o - 1], v[i]) == 0) {
			if (owned)
				free(v[i]);
		} else
			v[o++] = v[i];
	}
	*n = o;
}

/* Binary search; see strv.h. */
int
strv_has(char *const *v, size_t n, const char *s)
{
	return n != 0 && bsearch(&s, v, n, sizeof(*v), strv_cmp) != NULL;
}

/* Return 1 if the sorted v[0..n) holds the first len bytes of path. */
static int
strv_has_prefix(char *const *v, size_t n, const char *path, size_t len)
{
	size_t	lo = 0, hi = n, mid;
	int	c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strncmp(path, v[mid], len)) == 0)
			c = v[mid][len] == '\0' ? 0 : -1;
		if (c == 0)
			return 1;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return 0;
}

/*
 * Look for an ancestor (or the path); see strv.h.  A small set is
 * compared prefix by prefix; a large one is searched for each ancestor
 * in turn.  Neither allocates: this runs once for every entry of a
 * manifest.
 */
int
strv_has_ancestor(char *const *v, size_t n, const char *path, int self)
{
	const char	*slash;
	size_t		 i, len;

	if (n == 0)
		return 0;
	if (self && strv_has(v, n, path))
		return 1;
	if (n <= STRV_LINEAR) {
		for (i = 0; i < n; i++) {
			len = strlen(v[i]);
			if (strncmp(path, v[i], len) == 0 && path[len] == '/')
				return 1;
		}
		return 0;
	}
	for (slash = strchr(path, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		if (strv_has_prefix(v, n, path, (size_t)(slash - path)))
			return 1;
	}
	return 0;
}

/*
 * Compare s with path followed by '/' (without building that string):
 * negative, 0 or positive as strcmp(s, path + "/") would be, up to the
 * length of that key (0 when s starts with it).
 */
static int
strv_cmp_under(const char *s, const char *path, size_t len)
{
	int	c;

	if ((c = strncmp(s, path, len)) != 0)
		return c;
	return (int)(unsigned char)s[len] - '/';
}

/* Look for a path below path; see strv.h. */
int
strv_has_descendant(char *const *v, size_t n, const char *path)
{
	size_t	lo = 0, hi = n, mid, len = strlen(path);

	while (lo < hi) {			/* first v[i] >= path + "/" */
		mid = lo + (hi - lo) / 2;
		if (strv_cmp_under(v[mid], path, len) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && strv_cmp_under(v[lo], path, len) == 0;
}

/* Keep only the tops of a sorted set; see strv.h. */
void
strv_tops(char **v, size_t *n)
{
	size_t	i, k = 0;

	for (i = 0; i < *n; i++) {
		/* v[0..k) is sorted: the kept ones, ancestors among them */
		if (!strv_has_ancestor(v, k, v[i], 0))
			v[k++] = v[i];
	}
	*n = k;
}
