/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Applying one file's change to its content in memory.  The content is
 * split into lines (the last may lack its newline) and each hunk's old
 * lines are located, in order, without overlap; the result is the file's
 * lines up to each match, then the hunk's new lines, with context lines
 * taken from the file.  Comparisons are counted against a budget so that
 * hostile input cannot make the search run for long.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "patch.h"
#include "patch_int.h"
#include "xmalloc.h"

#define PATCH_SEARCH_BUDGET	200000000	/* line comparisons, roughly */
#define PATCH_SHOW_MAX		60		/* line bytes in messages */

/* How two lines are compared. */
enum patch_match {
	MATCH_BYTES,		/* bytes and newline (unified diffs) */
	MATCH_EXACT,		/* bytes (agent format, first try) */
	MATCH_RTRIM,		/* ignoring trailing whitespace */
	MATCH_TRIM		/* ignoring leading and trailing whitespace */
};

/* State while applying one change. */
struct apply_state {
	const struct patch_file	 *pf;
	const struct patch_body	 *b;
	char			 *name;		/* the file, for messages */
	struct patch_line	 *fl;		/* the file's lines */
	size_t			  nfl;
	const struct patch_line	**pat;		/* a hunk's old lines */
	size_t			  budget;	/* comparisons left */
	int			  exhausted;	/* budget ran out */
	long long		  offset;	/* unified: last hunk's shift */
	size_t			  cursor;	/* first line not yet written */
	struct buf		  out;
	char			**cause;
};

/* Return 1 for the whitespace that trimmed comparisons ignore. */
static int
apply_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Shrink p[0..*len) by trailing, and with lead leading, whitespace. */
static void
apply_trim(const char **p, size_t *len, int lead)
{
	while (*len > 0 && apply_space((*p)[*len - 1]))
		(*len)--;
	while (lead && *len > 0 && apply_space(**p)) {
		(*p)++;
		(*len)--;
	}
}

/* Split old[0..len) into lines; the last may lack its newline. */
static struct patch_line *
apply_split(const char *old, size_t len, size_t *n)
{
	struct patch_line	*l;
	const char		*p, *end = old + len, *nl;
	size_t			 count = 0, i;

	*n = 0;
	if (len == 0)
		return xcalloc(1, sizeof *l);
	for (p = old; p < end; count++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		p = nl != NULL ? nl + 1 : end;
	}
	l = xcalloc(count, sizeof *l);
	for (p = old, i = 0; i < count; i++) {
		nl = memchr(p, '\n', (size_t)(end - p));
		l[i].p = p;
		l[i].len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		l[i].nl = nl != NULL;
		l[i].op = ' ';
		p += l[i].len + (nl != NULL);
	}
	*n = count;
	return l;
}

/* Compare a file line with a patch line under rule m. */
static int
apply_line_eq(const struct patch_line *f, const struct patch_line *l,
    enum patch_match m)
{
	const char	*fp = f->p, *lp = l->p;
	size_t		 fn = f->len, ln = l->len;

	if (m == MATCH_BYTES && f->nl != l->nl)
		return 0;
	if (m == MATCH_RTRIM || m == MATCH_TRIM) {
		apply_trim(&fp, &fn, m == MATCH_TRIM);
		apply_trim(&lp, &ln, m == MATCH_TRIM);
	}
	return fn == ln && (fn == 0 || memcmp(fp, lp, fn) == 0);
}

/* Return 1 if the k lines of pat match the file from line at on. */
static int
apply_match_at(struct apply_state *a, const struct patch_line *const *pat,
    size_t k, size_t at, enum patch_match m)
{
	size_t	i, cost;

	for (i = 0; i < k; i++) {
		cost = 1 + pat[i]->len / 64;
		if (a->budget < cost) {
			a->exhausted = 1;
			return 0;
		}
		a->budget -= cost;
		if (!apply_line_eq(&a->fl[at + i], pat[i], m))
			return 0;
	}
	return 1;
}

/*
 * Find pat searching forward from start, each rule in turn; 0, or
 * CLAW_ERR_NOTFOUND if absent.
 */
static int
apply_seek(struct apply_state *a, const struct patch_line *const *pat,
    size_t k, size_t start, int eof, size_t *at)
{
	size_t	i, last;
	int	m;

	if (a->nfl < k || a->nfl - k < start)
		return CLAW_ERR_NOTFOUND;
	last = a->nfl - k;
	for (m = MATCH_EXACT; m <= MATCH_TRIM; m++) {
		for (i = eof ? last : start; i <= last; i++) {
			if (apply_match_at(a, pat, k, i, m)) {
				*at = i;
				return 0;
			}
			if (a->exhausted)
				return CLAW_ERR_NOTFOUND;
		}
	}
	return CLAW_ERR_NOTFOUND;
}

/*
 * Find the hunk's k old lines exactly, nearest to guess; 0, or
 * CLAW_ERR_NOTFOUND if absent.
 */
static int
apply_nearest(struct apply_state *a, size_t k, size_t guess, size_t *at)
{
	size_t	lo = a->cursor, hi, d;

	if (a->nfl < k || a->nfl - k < lo)
		return CLAW_ERR_NOTFOUND;
	hi = a->nfl - k;
	guess = guess < lo ? lo : guess > hi ? hi : guess;
	for (d = 0; d <= hi - lo && !a->exhausted; d++) {
		if (d <= hi - guess &&
		    apply_match_at(a, a->pat, k, guess + d, MATCH_BYTES)) {
			*at = guess + d;
			return 0;
		}
		if (d != 0 && d <= guess - lo &&
		    apply_match_at(a, a->pat, k, guess - d, MATCH_BYTES)) {
			*at = guess - d;
			return 0;
		}
		if (d > hi - guess && d > guess - lo)
			break;
	}
	return CLAW_ERR_NOTFOUND;
}

/* Point a->pat at the old (context and removed) lines of h. */
static size_t
apply_old_lines(struct apply_state *a, const struct patch_hunk *h)
{
	size_t	i, k = 0;

	for (i = 0; i < h->n; i++) {
		if (a->b->lines[h->first + i].op != '+')
			a->pat[k++] = &a->b->lines[h->first + i];
	}
	return k;
}

/* Append a line, first ending an unterminated line before it. */
static void
apply_emit(struct buf *out, const struct patch_line *l)
{
	if (out->len > 0 && out->data[out->len - 1] != '\n')
		buf_append(out, "\n", 1);
	buf_append(out, l->p, l->len);
	if (l->nl)
		buf_append(out, "\n", 1);
}

/* Write the file up to line at, then h's result in place of its lines. */
static void
apply_hunk_emit(struct apply_state *a, const struct patch_hunk *h,
    size_t at)
{
	const struct patch_line	*l;
	size_t			 i, f = at;

	for (; a->cursor < at; a->cursor++)
		apply_emit(&a->out, &a->fl[a->cursor]);
	for (i = 0; i < h->n; i++) {
		l = &a->b->lines[h->first + i];
		if (l->op == ' ')
			apply_emit(&a->out, &a->fl[f++]);
		else if (l->op == '-')
			f++;
		else
			apply_emit(&a->out, l);
	}
	a->cursor = f;
}

/* Apply unified hunk number i at its line, moved by the last offset. */
static int
apply_unified_hunk(struct apply_state *a, size_t i)
{
	const struct patch_hunk	*h = &a->b->hunks[i];
	size_t			 k, pos, at;
	long long		 guess;

	k = apply_old_lines(a, h);
	if (h->old_count == 0 || h->old_start == 0)
		pos = h->old_start;
	else
		pos = h->old_start - 1;
	guess = (long long)pos + a->offset;
	if (apply_nearest(a, k, guess < 0 ? 0 : (size_t)guess, &at) != 0)
		return claw_fail(a->cause, CLAW_ERR_NOTFOUND,
		    "%s: hunk %zu (@@ -%zu,%zu +%zu,%zu @@) does not apply%s",
		    a->name, i + 1, h->old_start, h->old_count, h->new_start,
		    h->new_count,
		    a->exhausted ? " (search limit reached)" : "");
	a->offset = (long long)at - (long long)pos;
	apply_hunk_emit(a, h, at);
	return 0;
}

/* Return a printable copy of l, trimmed and truncated, for a message. */
static char *
apply_show(const struct patch_line *l)
{
	const char	*p = l->p;
	size_t		 n = l->len;

	apply_trim(&p, &n, 0);
	return patch_show(p, n, PATCH_SHOW_MAX);
}

/* Return the old line after the longest partial match of the chunk. */
static const struct patch_line *
apply_missing(struct apply_state *a, size_t k, size_t from)
{
	size_t	i, j, best = 0;

	for (i = from; i < a->nfl && best < k && !a->exhausted; i++) {
		for (j = 0; j < k && i + j < a->nfl; j++) {
			if (!apply_match_at(a, &a->pat[j], 1, i + j,
			    MATCH_TRIM))
				break;
		}
		if (j > best)
			best = j;
	}
	return a->pat[best < k ? best : 0];
}

/* Fail agent chunk number i: what was not found is l, or worked out. */
static int
apply_agent_fail(struct apply_state *a, size_t i,
    const struct patch_line *l, size_t k, size_t from)
{
	const struct patch_hunk	*h = &a->b->hunks[i];
	char			*show;

	if (l == NULL) {
		a->budget = PATCH_SEARCH_BUDGET / 4;
		a->exhausted = 0;
	}
	show = apply_show(l != NULL ? l : apply_missing(a, k, from));
	claw_fail(a->cause, CLAW_ERR_NOTFOUND,
	    "%s: chunk %zu does not apply: %s not found%s: %s", a->name, i + 1,
	    l != NULL ? "@@ line" : "expected lines",
	    h->at_eof && l == NULL ? " at end of file" : "", show);
	free(show);
	return CLAW_ERR_NOTFOUND;
}

/* Apply agent chunk number i, searching forward from the last one. */
static int
apply_agent_chunk(struct apply_state *a, size_t i)
{
	const struct patch_hunk	*h = &a->b->hunks[i];
	struct patch_line	 anchor;
	const struct patch_line	*ap = &anchor;
	size_t			 k, from = a->cursor, at;

	k = apply_old_lines(a, h);
	if (h->anchor != NULL) {
		anchor.p = h->anchor;
		anchor.len = h->anchor_len;
		anchor.op = ' ';
		anchor.nl = 1;
		if (apply_seek(a, &ap, 1, from, 0, &at) != 0)
			return apply_agent_fail(a, i, &anchor, 0, 0);
		from = at;
	}
	if (k == 0)
		at = h->anchor != NULL && !h->at_eof ? from + 1 : a->nfl;
	else if (apply_seek(a, a->pat, k, from, h->at_eof, &at) != 0)
		return apply_agent_fail(a, i, NULL, k, from);
	apply_hunk_emit(a, h, at);
	return 0;
}

/* A unified deletion: the removed lines must be the whole file. */
static int
apply_delete(const struct patch_file *pf, const char *old, size_t oldlen,
    char **cause)
{
	const struct patch_body	*b = pf->body;
	const struct patch_line	*l;
	char			*show;
	size_t			 i, off = 0;

	if (b->format == PATCH_FMT_AGENT)
		return 0;
	for (i = 0; i < b->nlines; i++) {
		l = &b->lines[i];
		if (l->op == '+' || oldlen - off < l->len + (size_t)l->nl ||
		    (l->len != 0 && memcmp(old + off, l->p, l->len) != 0) ||
		    (l->nl && old[off + l->len] != '\n'))
			break;
		off += l->len + (size_t)l->nl;
	}
	if (i != b->nlines || off != oldlen) {
		show = patch_show(pf->old_path, strlen(pf->old_path),
		    PATCH_SHOW_NAME);
		claw_fail(cause, CLAW_ERR_NOTFOUND,
		    "%s: file to delete does not match the patch", show);
		free(show);
		return CLAW_ERR_NOTFOUND;
	}
	return 0;
}

/* Run every hunk of a, then copy the rest of the file. */
static int
apply_hunks(struct apply_state *a, const char *old, size_t oldlen)
{
	size_t	i;
	int	r;

	for (i = 0; i < a->b->nhunks; i++) {
		if (a->b->format == PATCH_FMT_UNIFIED)
			r = apply_unified_hunk(a, i);
		else
			r = apply_agent_chunk(a, i);
		if (r != 0)
			return r;
	}
	for (; a->cursor < a->nfl; a->cursor++)
		apply_emit(&a->out, &a->fl[a->cursor]);
	if (a->b->format == PATCH_FMT_AGENT && oldlen > 0 &&
	    old[oldlen - 1] != '\n' && a->out.len > 0 &&
	    a->out.data[a->out.len - 1] == '\n')
		a->out.data[--a->out.len] = '\0';
	return 0;
}

/* Apply pf to old[0..oldlen). */
int
patch_apply(const struct patch_file *pf, const char *old, size_t oldlen,
    char **out, size_t *outlen, char **cause)
{
	struct apply_state	 a;
	const char		*name;
	int			 r;

	if (pf == NULL || pf->body == NULL || (old == NULL && oldlen != 0))
		return claw_fail(cause, CLAW_ERR_INVAL, "patch: bad arguments");
	if (pf->kind == PATCH_ADD && old != NULL)
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "patch: a new file has no old content");
	if (pf->kind == PATCH_DELETE) {
		if ((r = apply_delete(pf, old, oldlen, cause)) != 0)
			return r;
		*out = NULL;
		*outlen = 0;
		return 0;
	}
	memset(&a, 0, sizeof a);
	a.pf = pf;
	a.b = pf->body;
	name = pf->kind == PATCH_ADD ? pf->new_path : pf->old_path;
	a.name = patch_show(name, strlen(name), PATCH_SHOW_NAME);
	a.fl = apply_split(old, oldlen, &a.nfl);
	a.pat = xcalloc(a.b->nlines + 1, sizeof *a.pat);
	a.budget = PATCH_SEARCH_BUDGET;
	a.cause = cause;
	if ((r = apply_hunks(&a, old, oldlen)) == 0) {
		*outlen = a.out.len;
		*out = buf_detach(&a.out);
	}
	buf_free(&a.out);
	free(a.name);
	free(a.pat);
	free(a.fl);
	return r;
}
