/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Arrays of C strings (char **v with a count): ordering, duplicates, and
 * membership by binary search, including "is an ancestor directory of
 * this relative path in the set", which change sets ask all the time.
 */
#ifndef CLAW_STRV_H
#define CLAW_STRV_H

#include <stddef.h>

/* Free a NULL-ended array of strings and the strings; NULL is fine. */
void	strv_free(char **v);

/* Order two char * by strcmp(3), for qsort(3) and bsearch(3). */
int	strv_cmp(const void *a, const void *b);

/*
 * Sort v[0..*n) and drop duplicates, freeing the dropped strings when
 * owned is set; *n becomes the new count.
 */
void	strv_uniq(char **v, size_t *n, int owned);

/* Return 1 if the sorted v[0..n) holds s (n may be 0, v NULL). */
int	strv_has(char *const *v, size_t n, const char *s);

/*
 * Return 1 if the sorted v[0..n) holds a proper ancestor of the relative
 * path ("a" or "a/b" for "a/b/c"), or, with self set, path itself.
 */
int	strv_has_ancestor(char *const *v, size_t n, const char *path,
	    int self);

/*
 * Return 1 if the sorted v[0..n) holds a path strictly below the relative
 * path path ("a/b" or "a/b/c" for "a").
 */
int	strv_has_descendant(char *const *v, size_t n, const char *path);

/*
 * Drop from the sorted, duplicate-free v[0..*n) every path below another
 * one of the set (the strings are not freed: keep them elsewhere).
 */
void	strv_tops(char **v, size_t *n);

#endif /* CLAW_STRV_H */
