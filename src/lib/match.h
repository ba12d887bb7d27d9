/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Wildcard matching as OpenSSH does it for Host lines and known_hosts:
 * '*' matches any run of characters, '?' any one character.
 */
#ifndef CLAW_MATCH_H
#define CLAW_MATCH_H

/* Return 1 if s matches the wildcard pattern, else 0. Case-sensitive. */
int	match_pattern(const char *s, const char *pattern);

/*
 * Match s against a comma-separated list of patterns, each optionally
 * negated with '!'.  Host names are compared case-insensitively when
 * icase is set.  Returns 1 if some pattern matched and no negated one did,
 * -1 if a negated pattern matched, 0 if nothing matched.
 */
int	match_pattern_list(const char *s, const char *list, int icase);

#endif /* CLAW_MATCH_H */
