/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Wildcard pattern matching for host names and pattern lists.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "xmalloc.h"

/* Return 1 if s matches pattern ('*' and '?' wildcards), else 0. */
int
match_pattern(const char *s, const char *pattern)
{
	const char	*star = NULL, *resume = NULL;

	while (*s != '\0') {
		if (*pattern == '*') {
			star = pattern++;
			resume = s;
		} else if (*pattern == '?' || *pattern == *s) {
			pattern++;
			s++;
		} else if (star != NULL) {
			pattern = star + 1;
			s = ++resume;
		} else
			return 0;
	}
	while (*pattern == '*')
		pattern++;
	return *pattern == '\0';
}

/* Lower-case a string in place. */
static void
match_lower(char *s)
{
	for (; *s != '\0'; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Match s against a comma-separated list; see match.h for the result. */
int
match_pattern_list(const char *s, const char *list, int icase)
{
	char	*copy, *subject, *p, *tok, *save = NULL;
	int	 neg, got = 0;

	copy = xstrdup(list);
	subject = xstrdup(s);
	if (icase) {
		match_lower(copy);
		match_lower(subject);
	}
	for (p = copy; (tok = strtok_r(p, ",", &save)) != NULL; p = NULL) {
		neg = *tok == '!';
		if (neg)
			tok++;
		if (*tok == '\0' || !match_pattern(subject, tok))
			continue;
		if (neg) {
			got = -1;
			break;
		}
		got = 1;
	}
	free(copy);
	free(subject);
	return got;
}
