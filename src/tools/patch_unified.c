/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unified diffs: git sections ("diff --git" and its extended header) and
 * plain "--- / +++" pairs, each followed by hunks whose line counts are
 * checked against their headers.  Text between files is skipped as junk.
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

/* What the header lines of one file say. */
struct unified_hdr {
	char	*old, *new;		/* from ---/+++; NULL if /dev/null */
	int	 old_null, new_null;	/* that side is /dev/null */
	int	 have_names;		/* ---/+++ seen */
	char	*git_old, *git_new;	/* from the diff --git line */
	char	*ren_old, *ren_new;	/* rename from/to */
	int	 created, deleted;	/* new/deleted file mode */
	int	 mode;			/* new mode, or -1 */
	size_t	 line;			/* the first header line */
};

/*
 * Decode the escape after a backslash in a quoted name: the byte, or
 * CLAW_ERR_PARSE if bad.
 */
static int
name_escape(const char *p, size_t len, size_t *i)
{
	const char	*simple = "a\ab\bt\tn\nv\vf\fr\r\"\"\\\\";
	const char	*s;
	int		 v, j;

	if (*i >= len)
		return CLAW_ERR_PARSE;
	for (s = simple; *s != '\0'; s += 2) {
		if (p[*i] == s[0]) {
			(*i)++;
			return (unsigned char)s[1];
		}
	}
	v = 0;
	for (j = 0; j < 3; j++) {
		if (*i >= len || p[*i] < '0' || p[*i] > '7')
			return CLAW_ERR_PARSE;
		v = v * 8 + (p[(*i)++] - '0');
	}
	return v == 0 || v > 255 ? CLAW_ERR_PARSE : v;
}

/* Decode git's C-quoted name at p[0] == '"'; *used gets the bytes read. */
static char *
name_unquote(const char *p, size_t len, size_t *used)
{
	struct buf	b = BUF_INIT;
	size_t		i = 1;
	int		c;
	char		ch;

	while (i < len && p[i] != '"') {
		c = (unsigned char)p[i++];
		if (c == '\\' && (c = name_escape(p, len, &i)) < 0) {
			buf_free(&b);
			return NULL;
		}
		ch = (char)c;
		buf_append(&b, &ch, 1);
	}
	if (i >= len) {
		buf_free(&b);
		return NULL;
	}
	*used = i + 1;
	return buf_detach(&b);
}

/* Parse a ---/+++ name: quoted, or up to a tab (a timestamp follows). */
static int
name_parse(struct patch_parser *ps, const char *p, size_t len, char **name,
    int *isnull)
{
	const char	*tab;
	size_t		 used;

	*isnull = 0;
	*name = NULL;
	if (len > 0 && p[0] == '"') {
		if ((*name = name_unquote(p, len, &used)) == NULL)
			return claw_fail(ps->cause, CLAW_ERR_PARSE,
			    "patch line %zu: bad quoted file name",
			    ps->lineno);
		return 0;
	}
	if ((tab = memchr(p, '\t', len)) != NULL)
		len = (size_t)(tab - p);
	if (len > 0 && p[len - 1] == '\r')
		len--;
	if (len == 9 && memcmp(p, "/dev/null", 9) == 0)
		*isnull = 1;
	else
		*name = xstrndup(p, len);
	return 0;
}

/* Strip "a/" and "b/" when every name present carries its prefix. */
static void
names_strip(char *old, char *new)
{
	if ((old == NULL && new == NULL) ||
	    (old != NULL && strncmp(old, "a/", 2) != 0) ||
	    (new != NULL && strncmp(new, "b/", 2) != 0))
		return;
	if (old != NULL)
		memmove(old, old + 2, strlen(old + 2) + 1);
	if (new != NULL)
		memmove(new, new + 2, strlen(new + 2) + 1);
}

/* Split "diff --git a/X b/Y" into its names; leave them NULL if unclear. */
static void
git_names(const char *p, size_t len, struct unified_hdr *h)
{
	size_t	used, mid;

	if (len > 0 && p[len - 1] == '\r')
		len--;
	if (len > 0 && p[0] == '"') {
		if ((h->git_old = name_unquote(p, len, &used)) == NULL)
			return;
		p += used;
		len -= used;
		if (len > 1 && p[0] == ' ' && p[1] == '"')
			h->git_new = name_unquote(p + 1, len - 1, &used);
		else if (len > 1 && p[0] == ' ')
			h->git_new = xstrndup(p + 1, len - 1);
	} else if (len % 2 == 1 && p[(mid = len / 2)] == ' ' && mid > 0 &&
	    (memcmp(p, p + mid + 1, mid) == 0 || (mid > 2 &&
	    memcmp(p, "a/", 2) == 0 && memcmp(p + mid + 1, "b/", 2) == 0 &&
	    memcmp(p + 2, p + mid + 3, mid - 2) == 0))) {
		h->git_old = xstrndup(p, mid);
		h->git_new = xstrndup(p + mid + 1, mid);
	}
	if (h->git_old == NULL || h->git_new == NULL) {
		free(h->git_old);
		free(h->git_new);
		h->git_old = h->git_new = NULL;
		return;
	}
	names_strip(h->git_old, h->git_new);
}

/* Parse a git file mode: 0644 or 0755; symlinks and the rest refused. */
static int
git_mode(struct patch_parser *ps, const struct patch_tline *tl, size_t n,
    int *mode)
{
	size_t	 len = tl->len;
	char	*show;

	if (len > n && tl->p[len - 1] == '\r')
		len--;
	if (len - n == 6 && memcmp(tl->p + n, "100644", 6) == 0)
		*mode = 0644;
	else if (len - n == 6 && memcmp(tl->p + n, "100755", 6) == 0)
		*mode = 0755;
	else {
		show = patch_show(tl->p + n, len - n, 16);
		claw_fail(ps->cause, CLAW_ERR_UNSUPPORTED, "patch line %zu: "
		    "file mode %s is not supported (only regular files)",
		    ps->lineno, show);
		free(show);
		return CLAW_ERR_UNSUPPORTED;
	}
	return 0;
}

/* Read the value of "rename from/to NAME" into *name. */
static int
git_rename(struct patch_parser *ps, const struct patch_tline *tl, size_t n,
    char **name)
{
	int	isnull;

	free(*name);
	*name = NULL;
	if (name_parse(ps, tl->p + n, tl->len - n, name, &isnull) != 0)
		return CLAW_ERR_PARSE;
	if (*name == NULL)
		*name = xstrdup("/dev/null");
	return 0;
}

/* Return the name to show for the file h describes. */
static const char *
hdr_name(const struct unified_hdr *h)
{
	if (h->new != NULL)
		return h->new;
	if (h->old != NULL)
		return h->old;
	if (h->git_new != NULL)
		return h->git_new;
	return h->git_old != NULL ? h->git_old : "(unknown file)";
}

/* Fail with "patch line N: NAME: what", the name made printable. */
static int
unified_fail(struct patch_parser *ps, size_t line, const struct unified_hdr *h,
    int err, const char *what)
{
	const char	*name = hdr_name(h);
	char		*show;

	show = patch_show(name, strlen(name), PATCH_SHOW_NAME);
	claw_fail(ps->cause, err, "patch line %zu: %s: %s", line, show, what);
	free(show);
	return err;
}

/* Handle one git extended header line; 1 if it is not one. */
static int
git_ext_line(struct patch_parser *ps, const struct patch_tline *tl,
    struct unified_hdr *h)
{
	int	mode;

	if (patch_starts(tl, "old mode "))
		return git_mode(ps, tl, 9, &mode);
	if (patch_starts(tl, "new mode "))
		return git_mode(ps, tl, 9, &h->mode);
	if (patch_starts(tl, "deleted file mode ")) {
		h->deleted = 1;
		return git_mode(ps, tl, 18, &mode);
	}
	if (patch_starts(tl, "new file mode ")) {
		h->created = 1;
		return git_mode(ps, tl, 14, &h->mode);
	}
	if (patch_starts(tl, "rename from "))
		return git_rename(ps, tl, 12, &h->ren_old);
	if (patch_starts(tl, "rename to "))
		return git_rename(ps, tl, 10, &h->ren_new);
	if (patch_starts(tl, "copy from ") || patch_starts(tl, "copy to "))
		return unified_fail(ps, ps->lineno, h, CLAW_ERR_UNSUPPORTED,
		    "copies are not supported");
	if (patch_starts(tl, "index ") || patch_starts(tl, "similarity ") ||
	    patch_starts(tl, "dissimilarity "))
		return 0;
	return 1;
}

/* Refuse a binary patch line, naming the file; 0 if tl is not one. */
static int
unified_binary(struct patch_parser *ps, const struct patch_tline *tl,
    const struct unified_hdr *h)
{
	char	*show;
	size_t	 n;

	if (!patch_starts(tl, "GIT binary patch") &&
	    !patch_starts(tl, "Binary files "))
		return 0;
	if (h != NULL)
		return unified_fail(ps, ps->lineno, h, CLAW_ERR_UNSUPPORTED,
		    "binary patches are not supported");
	n = tl->len - 13;
	if (n > 7 && memcmp(tl->p + tl->len - 7, " differ", 7) == 0)
		n -= 7;
	show = patch_show(tl->p + 13, n, PATCH_SHOW_NAME);
	claw_fail(ps->cause, CLAW_ERR_UNSUPPORTED,
	    "patch line %zu: binary patches are not supported: %s",
	    ps->lineno, show);
	free(show);
	return CLAW_ERR_UNSUPPORTED;
}

/* Read the "--- OLD" and "+++ NEW" lines at the cursor into h. */
static int
unified_names(struct patch_parser *ps, struct unified_hdr *h)
{
	struct patch_tline	tl;
	int			r;

	patch_peek(ps, &tl);
	if ((r = name_parse(ps, tl.p + 4, tl.len - 4, &h->old,
	    &h->old_null)) != 0)
		return r;
	patch_skip(ps, &tl);
	patch_peek(ps, &tl);
	if ((r = name_parse(ps, tl.p + 4, tl.len - 4, &h->new,
	    &h->new_null)) != 0)
		return r;
	patch_skip(ps, &tl);
	if (h->old_null && h->new_null)
		return claw_fail(ps->cause, CLAW_ERR_PARSE,
		    "patch line %zu: both names are /dev/null", ps->lineno - 1);
	names_strip(h->old, h->new);
	h->have_names = 1;
	return 0;
}

/* Return 1 if the cursor is at a "--- " line followed by "+++ ". */
static int
unified_at_names(const struct patch_parser *ps)
{
	struct patch_tline	tl, t2;

	return patch_peek(ps, &tl) && patch_starts(&tl, "--- ") &&
	    patch_line_at(ps, tl.next, &t2) && patch_starts(&t2, "+++ ");
}

/*
 * Parse a decimal number of at most PATCH_MAX_NUMBER at *p; 0,
 * CLAW_ERR_PARSE or CLAW_ERR_RANGE.
 */
static int
hunk_number(const char **p, const char *end, size_t *v)
{
	size_t	n = 0;

	if (*p >= end || **p < '0' || **p > '9')
		return CLAW_ERR_PARSE;
	while (*p < end && **p >= '0' && **p <= '9') {
		n = n * 10 + (size_t)(**p - '0');
		if (n > PATCH_MAX_NUMBER)
			return CLAW_ERR_RANGE;
		(*p)++;
	}
	*v = n;
	return 0;
}

/*
 * Parse "SIGN START[,COUNT]" (COUNT defaults to 1) at *p; 0,
 * CLAW_ERR_PARSE or CLAW_ERR_RANGE.
 */
static int
hunk_range(const char **p, const char *end, char sign, size_t *start,
    size_t *count)
{
	int	r;

	if (*p >= end || **p != sign)
		return CLAW_ERR_PARSE;
	(*p)++;
	if ((r = hunk_number(p, end, start)) != 0)
		return r;
	*count = 1;
	if (*p < end && **p == ',') {
		(*p)++;
		if ((r = hunk_number(p, end, count)) != 0)
			return r;
	}
	return 0;
}

/* Parse "@@ -a[,b] +c[,d] @@[ text]" into h. */
static int
hunk_header(struct patch_parser *ps, const struct patch_tline *tl,
    struct patch_hunk *h)
{
	const char	*p = tl->p + 3, *end = tl->p + tl->len;

	if (hunk_range(&p, end, '-', &h->old_start, &h->old_count) != 0 ||
	    p >= end || *p++ != ' ' ||
	    hunk_range(&p, end, '+', &h->new_start, &h->new_count) != 0 ||
	    end - p < 3 || memcmp(p, " @@", 3) != 0)
		return claw_fail(ps->cause, CLAW_ERR_PARSE,
		    "patch line %zu: bad hunk header", ps->lineno);
	return 0;
}

/* Clear the newline of the body's last line for "\ No newline...". */
static int
hunk_no_newline(struct patch_parser *ps, struct patch_body *b,
    const struct patch_hunk *h, int ended[2])
{
	struct patch_line	*l;

	if (b->nlines == h->first)
		return claw_fail(ps->cause, CLAW_ERR_PARSE,
		    "patch line %zu: '\\' line does not follow a hunk line",
		    ps->lineno);
	l = &b->lines[b->nlines - 1];
	l->nl = 0;
	if (l->op != '+')
		ended[0] = 1;
	if (l->op != '-')
		ended[1] = 1;
	return 0;
}

/* Add one hunk line, counting it against olds/news (1 if not a line). */
static int
hunk_line(struct patch_parser *ps, struct patch_body *b,
    const struct patch_tline *tl, size_t left[2], const int ended[2])
{
	char	op = tl->len == 0 ? ' ' : tl->p[0];
	int	o = op != '+', n = op != '-';

	if (op != ' ' && op != '-' && op != '+')
		return 1;
	if ((o && left[0] == 0) || (n && left[1] == 0))
		return 1;
	if ((o && ended[0]) || (n && ended[1]))
		return claw_fail(ps->cause, CLAW_ERR_PARSE, "patch line %zu: "
		    "line after \"\\ No newline at end of file\"", ps->lineno);
	left[0] -= o;
	left[1] -= n;
	patch_add_line(b, op, tl->len == 0 ? tl->p : tl->p + 1,
	    tl->len == 0 ? 0 : tl->len - 1);
	return 0;
}

/* Read one hunk's lines, checking them against its header's counts. */
static int
hunk_body(struct patch_parser *ps, struct patch_body *b,
    struct patch_hunk *h)
{
	struct patch_tline	tl;
	size_t			left[2] = { h->old_count, h->new_count };
	int			ended[2] = { 0, 0 }, r;

	for (;;) {
		if (!patch_peek(ps, &tl)) {
			if (left[0] == 0 && left[1] == 0)
				break;
			return claw_fail(ps->cause, CLAW_ERR_PARSE,
			    "patch line %zu: patch ends inside a hunk "
			    "(%zu old and %zu new lines missing)", ps->lineno,
			    left[0], left[1]);
		}
		if (tl.len > 0 && tl.p[0] == '\\')
			r = hunk_no_newline(ps, b, h, ended);
		else if (left[0] == 0 && left[1] == 0)
			break;
		else if ((r = hunk_line(ps, b, &tl, left, ended)) == 1)
			return claw_fail(ps->cause, CLAW_ERR_PARSE,
			    "patch line %zu: hunk does not match its header "
			    "(%zu old and %zu new lines expected)",
			    ps->lineno, left[0], left[1]);
		if (r != 0)
			return r;
		patch_skip(ps, &tl);
	}
	h->n = b->nlines - h->first;
	return 0;
}

/* Return 1 if tl could only be a hunk line beyond its header's count. */
static int
hunk_extra(const struct patch_parser *ps, const struct patch_tline *tl)
{
	if (tl->len == 0 || (tl->p[0] != ' ' && tl->p[0] != '+' &&
	    tl->p[0] != '-'))
		return 0;
	if ((tl->len == 3 && memcmp(tl->p, "-- ", 3) == 0) ||
	    (tl->len == 2 && memcmp(tl->p, "--", 2) == 0))
		return 0;	/* a mail signature */
	return !unified_at_names(ps);
}

/* Read the hunks at the cursor into the body of pf. */
static int
unified_hunks(struct patch_parser *ps, struct patch_file *pf)
{
	struct patch_tline	 tl;
	struct patch_hunk	*h;
	int			 r;

	while (patch_peek(ps, &tl) && patch_starts(&tl, "@@ ")) {
		h = patch_add_hunk(pf->body);
		if ((r = hunk_header(ps, &tl, h)) != 0)
			return r;
		patch_skip(ps, &tl);
		if ((r = hunk_body(ps, pf->body, h)) != 0)
			return r;
	}
	if (patch_peek(ps, &tl) && hunk_extra(ps, &tl))
		return claw_fail(ps->cause, CLAW_ERR_PARSE,
		    "patch line %zu: hunk is longer than its header says",
		    ps->lineno);
	return 0;
}

/* Fewest components, then shortest base name, then shortest: patch(1). */
static int
name_better(const char *a, const char *b)
{
	const char	*p, *ba = a, *bb = b;
	size_t		 ca = 0, cb = 0;

	for (p = a; *p != '\0'; p++)
		if (*p == '/') {
			ca++;
			ba = p + 1;
		}
	for (p = b; *p != '\0'; p++)
		if (*p == '/') {
			cb++;
			bb = p + 1;
		}
	if (ca != cb)
		return ca < cb;
	if (strlen(ba) != strlen(bb))
		return strlen(ba) < strlen(bb);
	return strlen(a) <= strlen(b);
}

/* Give pf its kind and paths from what the header lines said. */
static int
unified_finish(struct patch_parser *ps, struct unified_hdr *h,
    struct patch_file *pf, int git)
{
	char	**o = &h->old, **n = &h->new;

	if (!h->have_names)
		o = h->ren_old != NULL ? &h->ren_old : &h->git_old;
	if (!h->have_names)
		n = h->ren_new != NULL ? &h->ren_new : &h->git_new;
	if (h->created || h->old_null)
		pf->kind = PATCH_ADD;
	else if (h->deleted || h->new_null)
		pf->kind = PATCH_DELETE;
	if (!git && pf->kind == PATCH_UPDATE && *o != NULL && *n != NULL &&
	    name_better(*o, *n))
		n = o;
	if ((pf->kind != PATCH_ADD && *o == NULL) ||
	    (pf->kind != PATCH_DELETE && *n == NULL))
		return claw_fail(ps->cause, CLAW_ERR_PARSE,
		    "patch line %zu: no file name", h->line);
	if (pf->kind != PATCH_ADD)
		pf->old_path = xstrdup(pf->kind == PATCH_UPDATE && !git ?
		    *n : *o);
	if (pf->kind != PATCH_DELETE)
		pf->new_path = xstrdup(*n);
	if (pf->kind != PATCH_DELETE)
		pf->new_mode = h->mode;
	return 0;
}

/* Free what a header holds. */
static void
unified_hdr_free(struct unified_hdr *h)
{
	free(h->old);
	free(h->new);
	free(h->git_old);
	free(h->git_new);
	free(h->ren_old);
	free(h->ren_new);
}

/* Read the extended header of a git section, up to ---/+++ or hunks. */
static int
git_header(struct patch_parser *ps, struct unified_hdr *h)
{
	struct patch_tline	tl;
	int			r;

	patch_peek(ps, &tl);
	git_names(tl.p + 11, tl.len - 11, h);
	patch_skip(ps, &tl);
	while (patch_peek(ps, &tl)) {
		if ((r = unified_binary(ps, &tl, h)) != 0)
			return r;
		if (unified_at_names(ps))
			return unified_names(ps, h);
		if (patch_starts(&tl, "diff --git ") ||
		    patch_starts(&tl, "@@ "))
			break;
		if ((r = git_ext_line(ps, &tl, h)) < 0)
			return r;
		if (r == 1)
			break;
		patch_skip(ps, &tl);
	}
	return 0;
}

/* Read one file's section: a git one at "diff --git", else ---/+++. */
static int
unified_file(struct patch_parser *ps, int git)
{
	struct unified_hdr	 h;
	struct patch_file	*pf;
	int			 r;

	memset(&h, 0, sizeof h);
	h.mode = -1;
	h.line = ps->lineno;
	pf = patch_add_file(ps, PATCH_UPDATE, PATCH_FMT_UNIFIED);
	r = git ? git_header(ps, &h) : unified_names(ps, &h);
	if (r == 0 && h.have_names)
		r = unified_hunks(ps, pf);
	if (r == 0 && h.have_names && pf->body->nhunks == 0)
		r = unified_fail(ps, ps->lineno, &h, CLAW_ERR_PARSE,
		    "no hunks");
	if (r == 0 && !h.have_names && !h.created && !h.deleted &&
	    h.mode == -1 && h.ren_old == NULL && h.ren_new == NULL)
		r = unified_fail(ps, h.line, &h, CLAW_ERR_PARSE,
		    "no changes");
	if (r == 0)
		r = unified_finish(ps, &h, pf, git);
	unified_hdr_free(&h);
	return r;
}

/* Parse unified diffs: file sections with junk allowed between them. */
int
patch_unified_parse(struct patch_parser *ps)
{
	struct patch_tline	tl;
	int			r;

	while (patch_peek(ps, &tl)) {
		if ((r = unified_binary(ps, &tl, NULL)) != 0)
			return r;
		if (patch_starts(&tl, "diff --cc ") ||
		    patch_starts(&tl, "diff --combined "))
			return claw_fail(ps->cause, CLAW_ERR_UNSUPPORTED,
			    "patch line %zu: combined (merge) diffs are not "
			    "supported", ps->lineno);
		if (patch_starts(&tl, "diff --git "))
			r = unified_file(ps, 1);
		else if (unified_at_names(ps))
			r = unified_file(ps, 0);
		else if (patch_starts(&tl, "@@ "))
			return claw_fail(ps->cause, CLAW_ERR_PARSE,
			    "patch line %zu: hunk without ---/+++ lines",
			    ps->lineno);
		else {
			patch_skip(ps, &tl);
			continue;
		}
		if (r != 0)
			return r;
	}
	return 0;
}
