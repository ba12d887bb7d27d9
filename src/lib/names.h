/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The names of a small enum's values, in one table per enum: parsing a
 * name, naming a value and listing the names for a message all read the
 * same table, so the CLI, the config file, JSON-RPC and the registry
 * cannot drift apart.
 */
#ifndef CLAW_NAMES_H
#define CLAW_NAMES_H

#include <stddef.h>

/* v[i] names the enum value i; n entries. */
struct names {
	const char *const	*v;
	size_t			 n;
};

/* A struct names over a static array of names. */
#define NAMES_OF(a)	{ (a), sizeof(a) / sizeof((a)[0]) }

/* Return the value named s (NULL allowed), or -1. */
int		 names_find(const struct names *t, const char *s);

/* Return the name of value v, or "unknown" outside the table. */
const char	*names_get(const struct names *t, int v);

/*
 * Return the names for a message, allocated: "\"a\", \"b\" or \"c\"" with
 * quoted set, "a, b or c" without.
 */
char		*names_list(const struct names *t, int quoted);

#endif /* CLAW_NAMES_H */
