/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the ignore module: the wildcard matcher ignore.c compiles its
 * patterns for (sync/ignore_wild.c).
 */
#ifndef CLAW_IGNORE_INT_H
#define CLAW_IGNORE_INT_H

/* Return whether c has a meaning of its own in a pattern. */
int		 ignore_wild_special(char c);

/*
 * Return why pattern p can never match (a static string: a trailing
 * '\\', an unterminated '[' or an unknown "[:class:]"), or NULL if it is
 * well formed.
 */
const char	*ignore_wild_check(const char *p);

/*
 * Return 1 if the text from t up to te matches pat, a pattern that
 * ignore_wild_check passed: '*' and '?' stop at '/', "**" as a whole
 * component crosses directories, as in git's wildmatch.  pat is where
 * the pattern starts for the "**" rule (a "**" at pat counts as leading).
 */
int		 ignore_wild_match(const char *pat, const char *t,
		    const char *te);

#endif /* CLAW_IGNORE_INT_H */
