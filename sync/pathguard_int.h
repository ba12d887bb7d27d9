/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the pathguard source files share and nothing else may use: small
 * helpers over relative paths and the refusal message builder.
 */
#ifndef CLAW_PATHGUARD_INT_H
#define CLAW_PATHGUARD_INT_H

#include <stddef.h>

/* Return the length of the component at p (up to '/' or the end). */
size_t	pg_comp_len(const char *p);

/* Return 1 if the n bytes at p are "." or "..". */
int	pg_is_dots(const char *p, size_t n);

/* Return 1 if the n bytes at p are ".git", in any case. */
int	pg_is_git(const char *p, size_t n);

/* Return how many directories deep rel's parent is ("a/b/c": 2). */
size_t	pg_depth(const char *rel);

/* Fail with "ENTRY: what" (entry escaped) when cause is not NULL; err. */
int	pg_refuse(char **cause, int err, const char *entry, const char *what);

#endif /* CLAW_PATHGUARD_INT_H */
