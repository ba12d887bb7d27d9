/*
 * Arrays of C strings: sorting, duplicates, membership.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "xmalloc.h"

#define STRV_LINEAR	16	/* sets this small: compare each */

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

/*
 * Look for an ancestor (or the path); see strv.h.  A small set is
 * compared prefix by prefix (no allocation: this runs once for every entry
 * of a manifest); a large one is searched for each ancestor in turn.
 */
int
strv_has_ancestor(char *const *v, size_t n, const char *path, int self)
{
	char	*p, *slash;
	size_t	 i, len;
	int	 hit;

	if (n == 0)
		return 0;
	if (self && strv_has(v, n, path))
		return 1;
	if (strchr(path, '/') == NULL)
		return 0;
	if (n <= STRV_LINEAR) {
		for (i = 0; i < n; i++) {
			len = strlen(v[i]);
			if (strncmp(path, v[i], len) == 0 && path[len] == '/')
				return 1;
		}
		return 0;
	}
	p = xstrdup(path);
	for (hit = 0; !hit && (slash = strrchr(p, '/')) != NULL;) {
		*slash = '\0';
		hit = strv_has(v, n, p);
	}
	free(p);
	return hit;
}
