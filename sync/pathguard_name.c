/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pathguard's judgement of names and link targets by their syntax alone
 * (no file system access): pathguard_name_check, pathguard_link_check and
 * pathguard_escape.  The contract is in pathguard.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "pathguard.h"
#include "pathguard_int.h"
#include "xmalloc.h"

#define PG_ESCAPE_MAX	200	/* characters of escaped text in a message */

/* Write the escaped form of the character at *pp into out; advance *pp. */
static void
pg_escape_one(const unsigned char **pp, char out[16])
{
	const unsigned char	*p = *pp;

	*pp = p + 1;
	if (*p == '\n')
		snprintf(out, 16, "\\n");
	else if (*p == '\t')
		snprintf(out, 16, "\\t");
	else if (*p == '\\')
		snprintf(out, 16, "\\\\");
	else if (*p < 0x20 || *p == 0x7f)
		snprintf(out, 16, "\\x%02x", *p);
	else if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f) {
		snprintf(out, 16, "\\x%02x\\x%02x", p[0], p[1]);
		*pp = p + 2;
	} else {
		out[0] = (char)*p;
		out[1] = '\0';
	}
}

/* Return an allocated printable form of name, cut after about 200 bytes. */
char *
pathguard_escape(const char *name)
{
	struct buf		 b = BUF_INIT;
	const unsigned char	*p;
	char			 one[16];

	if (name == NULL)
		return xstrdup("(null)");
	p = (const unsigned char *)name;
	while (*p != '\0') {
		pg_escape_one(&p, one);
		if (b.len + strlen(one) > PG_ESCAPE_MAX) {
			buf_append_str(&b, "...");
			break;
		}
		buf_append_str(&b, one);
	}
	return buf_detach(&b);
}

/* Return 1 if s holds a byte below 0x20 or 0x7f. */
static int
pg_has_control(const char *s)
{
	const unsigned char	*p;

	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return 1;
	}
	return 0;
}

/* Return the length of the component at p (up to '/' or the end). */
size_t
pg_comp_len(const char *p)
{
	return strcspn(p, "/");
}

/* Return 1 if the n bytes at p are "." or "..". */
int
pg_is_dots(const char *p, size_t n)
{
	return (n == 1 && p[0] == '.') ||
	    (n == 2 && p[0] == '.' && p[1] == '.');
}

/*
 * Return 1 if the n bytes at p are ".git", in any case (ASCII only: no
 * locale may fold another byte to one of these).
 */
int
pg_is_git(const char *p, size_t n)
{
	return n == 4 && p[0] == '.' && (p[1] | 0x20) == 'g' &&
	    (p[2] | 0x20) == 'i' && (p[3] | 0x20) == 't';
}

/* Return 1 if a component of rel is ".git", in any case. */
int
pathguard_name_protected(const char *rel)
{
	const char	*p;
	size_t		 n;

	if (rel == NULL)
		return 0;
	for (p = rel;; p += n + 1) {
		if (pg_is_git(p, (n = pg_comp_len(p))))
			return 1;
		if (p[n] == '\0')
			return 0;
	}
}

/* Return how many directories deep rel's parent is ("a/b/c": 2). */
size_t
pg_depth(const char *rel)
{
	size_t	n = 0;

	for (; *rel != '\0'; rel++) {
		if (*rel == '/')
			n++;
	}
	return n;
}

/* Judge rel by its syntax alone. */
int
pathguard_name_check(const char *rel, char **cause)
{
	const char	*p;
	size_t		 n;

	if (rel == NULL || *rel == '\0')
		return claw_fail(cause, CLAW_ERR_INVAL, "empty path");
	if (pg_has_control(rel))
		return pg_refuse(cause, CLAW_ERR_INVAL, rel,
		    "control character in path");
	if (strlen(rel) > PATHGUARD_PATH_MAX)
		return pg_refuse(cause, CLAW_ERR_INVAL, rel, "path too long");
	if (*rel == '/')
		return pg_refuse(cause, CLAW_ERR_INVAL, rel, "absolute path");
	for (p = rel;; p += n + 1) {
		if ((n = pg_comp_len(p)) == 0)
			return pg_refuse(cause, CLAW_ERR_INVAL, rel,
			    "empty path component");
		if (pg_is_dots(p, n))
			return pg_refuse(cause, CLAW_ERR_INVAL, rel,
			    "\".\" or \"..\" component");
		if (n > PATHGUARD_NAME_MAX)
			return pg_refuse(cause, CLAW_ERR_INVAL, rel,
			    "path component too long");
		if (p[n] == '\0')
			return 0;
	}
}

/* Fail with "REL: link target TARGET: why". */
static int
pg_link_refuse(char **cause, const char *rel, const char *target,
    const char *why)
{
	char	*e, *m;

	if (cause == NULL)
		return CLAW_ERR_INVAL;
	e = pathguard_escape(target);
	m = xasprintf("link target %s: %s", e, why);
	pg_refuse(cause, CLAW_ERR_INVAL, rel, m);
	free(m);
	free(e);
	return CLAW_ERR_INVAL;
}

/*
 * Return why the components of target break the link rule for a link in a
 * directory depth levels deep, or NULL if they do not.
 */
static const char *
pg_link_shape(const char *target, size_t depth)
{
	const char	*p;
	size_t		 n, up = 0;
	int		 plain = 0;

	for (p = target; *p != '\0'; p += n + (p[n] == '/')) {
		n = pg_comp_len(p);
		if (n == 0 || (n == 1 && *p == '.'))
			continue;
		if (n > PATHGUARD_NAME_MAX)
			return "component too long";
		if (!pg_is_dots(p, n))
			plain = 1;
		else if (plain)
			return "\"..\" after a name";
		else if (++up > depth)
			return "climbs above the workspace root";
	}
	return NULL;
}

/* Judge target as the target of a symbolic link at rel. */
int
pathguard_link_check(const char *rel, const char *target, char **cause)
{
	const char	*why;
	int		 r;

	if ((r = pathguard_name_check(rel, cause)) != 0)
		return r;
	if (target == NULL || *target == '\0')
		return pg_link_refuse(cause, rel, "", "empty");
	if (pg_has_control(target))
		return pg_link_refuse(cause, rel, target, "control character");
	if (strlen(target) > PATHGUARD_PATH_MAX)
		return pg_link_refuse(cause, rel, target, "too long");
	if (*target == '/')
		return pg_link_refuse(cause, rel, target, "absolute");
	if (pathguard_name_protected(target))
		return pg_link_refuse(cause, rel, target, "leads into .git");
	if ((why = pg_link_shape(target, pg_depth(rel))) != NULL)
		return pg_link_refuse(cause, rel, target, why);
	return 0;
}
