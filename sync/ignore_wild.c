/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The wildcard matcher of the ignore patterns (see ignore_int.h),
 * following git's wildmatch, so "**" and bracket classes behave as in git.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stddef.h>
#include <string.h>

#include "error.h"
#include "ignore_int.h"

#define IG_NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

/* Results of the wildcard matcher, as in git's wildmatch. */
enum ig_wm {
	IG_WM_MATCH,
	IG_WM_NOMATCH,
	IG_WM_ABORT_ALL,	/* text ran out: a later start cannot match */
	IG_WM_ABORT_STARSTAR	/* a '*' met a '/': only "**" may go on */
};

/* One wildcard match: the pattern's start and the end of the text. */
struct ig_wctx {
	const char	*pat;
	const char	*te;
};

/* A "[:name:]" class inside a bracket expression. */
struct ig_cclass {
	const char	*name;
	int		(*fn)(int);
};

static const struct ig_cclass ig_cclasses[] = {
	{ "alnum", isalnum }, { "alpha", isalpha }, { "blank", isblank },
	{ "cntrl", iscntrl }, { "digit", isdigit }, { "graph", isgraph },
	{ "lower", islower }, { "print", isprint }, { "punct", ispunct },
	{ "space", isspace }, { "upper", isupper }, { "xdigit", isxdigit }
};

static enum ig_wm	ig_wild(const struct ig_wctx *, const char *,
			    const char *);

/* Return whether c has a meaning of its own in a pattern. */
int
ignore_wild_special(char c)
{
	return c == '*' || c == '?' || c == '[' || c == '\\';
}

/*
 * Look at a "[:" at *pp inside a bracket expression.  Returns 0 if it is no
 * class name (a literal '['), CLAW_ERR_PARSE for an unknown or unterminated
 * name, else 1 if byte c is in the class, 2 if not, with *pp moved to its
 * final ']'.
 */
static int
ig_posix(const char **pp, int c)
{
	const char	*s = *pp + 2, *e;
	size_t		 i, n;

	if ((e = strchr(s, ']')) == NULL)
		return CLAW_ERR_PARSE;
	if (e == s || e[-1] != ':')
		return 0;
	n = (size_t)(e - s) - 1;
	for (i = 0; i < IG_NITEMS(ig_cclasses); i++) {
		if (strlen(ig_cclasses[i].name) != n ||
		    memcmp(ig_cclasses[i].name, s, n) != 0)
			continue;
		*pp = e;
		return c >= 0 && ig_cclasses[i].fn(c) ? 1 : 2;
	}
	return CLAW_ERR_PARSE;
}

/*
 * Match byte c (-1: none, to check the syntax) against the bracket
 * expression after a '[' at p, the first character of which is literal even
 * if it is ']'.  Returns its closing ']' and sets *hit, or NULL if the
 * expression is malformed.  Rules as in git's wildmatch.
 */
static const char *
ig_class(const char *p, int c, int *hit)
{
	int	neg = 0, prev = 0, ch, m = 0, r;

	if (*p == '!' || *p == '^') {
		neg = 1;
		p++;
	}
	ch = (unsigned char)*p;
	do {
		if (ch == '\0')
			return NULL;
		if (ch == '\\') {
			if ((ch = (unsigned char)*++p) == '\0')
				return NULL;
			m |= c == ch;
		} else if (ch == '-' && prev != 0 && p[1] != '\0' &&
		    p[1] != ']') {
			if ((ch = (unsigned char)*++p) == '\\' &&
			    (ch = (unsigned char)*++p) == '\0')
				return NULL;
			m |= c >= prev && c <= ch;
			ch = 0;		/* no range may start here */
		} else if (ch == '[' && p[1] == ':') {
			if ((r = ig_posix(&p, c)) < 0)
				return NULL;
			m |= r == 1 || (r == 0 && c == '[');
			if (r != 0)
				ch = 0;
		} else
			m |= c == ch;
		prev = ch;
	} while ((ch = (unsigned char)*++p) != ']');
	*hit = m != neg;
	return p;
}

/*
 * Go on matching at a '*' at p.  "**" between slashes (or at an end) also
 * matches '/'; a lone '*' does not.  The ABORT results cut the search short
 * as git's wildmatch does, keeping the work polynomial.
 */
static enum ig_wm
ig_star(const struct ig_wctx *w, const char *p, const char *t)
{
	const char	*start = p;
	enum ig_wm	 r;
	int		 any = 0;

	while (*++p == '*')
		;
	if (p - start > 1 && (start == w->pat || start[-1] == '/') &&
	    (*p == '\0' || *p == '/' || (p[0] == '\\' && p[1] == '/'))) {
		if (*p == '/' && ig_wild(w, p + 1, t) == IG_WM_MATCH)
			return IG_WM_MATCH;
		any = 1;
	}
	if (*p == '\0')
		return any || memchr(t, '/', (size_t)(w->te - t)) == NULL ?
		    IG_WM_MATCH : IG_WM_NOMATCH;
	if (!any && *p == '/') {
		if ((t = memchr(t, '/', (size_t)(w->te - t))) == NULL)
			return IG_WM_NOMATCH;
		return ig_wild(w, p + 1, t + 1);
	}
	for (; t < w->te; t++) {
		if (!ignore_wild_special(*p)) {
			while (t < w->te && (any || *t != '/') && *t != *p)
				t++;
			if (t == w->te || *t != *p)
				return IG_WM_NOMATCH;
		}
		if ((r = ig_wild(w, p, t)) != IG_WM_NOMATCH) {
			if (!any || r != IG_WM_ABORT_STARSTAR)
				return r;
		} else if (!any && *t == '/')
			return IG_WM_ABORT_STARSTAR;
	}
	return IG_WM_ABORT_ALL;
}

/* Match the text from t to w->te against the (checked) pattern at p. */
static enum ig_wm
ig_wild(const struct ig_wctx *w, const char *p, const char *t)
{
	int	hit = 0;

	for (; *p != '\0'; p++, t++) {
		if (t == w->te && *p != '*')
			return IG_WM_ABORT_ALL;
		switch (*p) {
		case '*':
			return ig_star(w, p, t);
		case '?':
			if (*t == '/')
				return IG_WM_NOMATCH;
			break;
		case '[':
			if ((p = ig_class(p + 1, (unsigned char)*t, &hit)) ==
			    NULL)
				return IG_WM_ABORT_ALL;
			if (!hit || *t == '/')
				return IG_WM_NOMATCH;
			break;
		case '\\':
			p++;
			/* FALLTHROUGH */
		default:
			if (*t != *p)
				return IG_WM_NOMATCH;
			break;
		}
	}
	return t == w->te ? IG_WM_MATCH : IG_WM_NOMATCH;
}

/* Return why pattern p can never match (a static string), or NULL if ok. */
const char *
ignore_wild_check(const char *p)
{
	int	hit;

	for (; *p != '\0'; p++) {
		if (*p == '\\') {
			if (*++p == '\0')
				return "trailing '\\'";
		} else if (*p == '[') {
			if ((p = ig_class(p + 1, -1, &hit)) == NULL)
				return "unterminated '[' or unknown [:class:]";
		}
	}
	return NULL;
}

/* Match the text from t to te against the checked pattern pat. */
int
ignore_wild_match(const char *pat, const char *t, const char *te)
{
	struct ig_wctx	w;

	w.pat = pat;
	w.te = te;
	return ig_wild(&w, pat, t) == IG_WM_MATCH;
}
