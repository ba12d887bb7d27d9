/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Patch parsing: the text is copied once and split into per-file changes
 * whose lines point into the copy.  This file holds the line cursor, the
 * agent "*** Begin Patch" format and the checks common to both formats;
 * patch_unified.c reads unified diffs and patch_apply.c applies changes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "patch.h"
#include "patch_int.h"
#include "xmalloc.h"

/* A path and the patch line that names it, for the duplicate check. */
struct patch_seen {
	const char	*path;
	size_t		 line;
};

/* Fill *tl with the line starting at off; return 0 past the end. */
int
patch_line_at(const struct patch_parser *ps, size_t off,
    struct patch_tline *tl)
{
	const char	*nl;

	if (off >= ps->len)
		return 0;
	tl->p = ps->text + off;
	nl = memchr(tl->p, '\n', ps->len - off);
	if (nl == NULL) {
		tl->len = ps->len - off;
		tl->nl = 0;
		tl->next = ps->len;
	} else {
		tl->len = (size_t)(nl - tl->p);
		tl->nl = 1;
		tl->next = off + tl->len + 1;
	}
	return 1;
}

/* Fill *tl with the current line; return 0 at the end of the text. */
int
patch_peek(const struct patch_parser *ps, struct patch_tline *tl)
{
	return patch_line_at(ps, ps->off, tl);
}

/* Move past the line tl, which patch_peek returned. */
void
patch_skip(struct patch_parser *ps, const struct patch_tline *tl)
{
	ps->off = tl->next;
	ps->lineno++;
}

/* Return 1 if the line starts with the string s. */
int
patch_starts(const struct patch_tline *tl, const char *s)
{
	size_t	n = strlen(s);

	return tl->len >= n && memcmp(tl->p, s, n) == 0;
}

/* Append a change of the given kind, with its body, to the patch. */
struct patch_file *
patch_add_file(struct patch_parser *ps, enum patch_kind kind,
    enum patch_format format)
{
	struct patch	*p = ps->p;
	struct patch_file *pf;

	if (p->n == ps->cap) {
		ps->cap = ps->cap == 0 ? 8 : ps->cap * 2;
		p->files = xreallocarray(p->files, ps->cap, sizeof *p->files);
	}
	pf = &p->files[p->n++];
	memset(pf, 0, sizeof *pf);
	pf->kind = kind;
	pf->new_mode = -1;
	pf->body = xcalloc(1, sizeof *pf->body);
	pf->body->format = format;
	pf->body->line = ps->lineno;
	return pf;
}

/* Append a line (newline-terminated) to the body. */
void
patch_add_line(struct patch_body *b, char op, const char *p, size_t len)
{
	struct patch_line	*l;

	if (b->nlines == b->caplines) {
		b->caplines = b->caplines == 0 ? 16 : b->caplines * 2;
		b->lines = xreallocarray(b->lines, b->caplines,
		    sizeof *b->lines);
	}
	l = &b->lines[b->nlines++];
	l->p = p;
	l->len = len;
	l->op = op;
	l->nl = 1;
}

/* Append an empty hunk, starting after the body's lines so far. */
struct patch_hunk *
patch_add_hunk(struct patch_body *b)
{
	struct patch_hunk	*h;

	if (b->nhunks == b->caphunks) {
		b->caphunks = b->caphunks == 0 ? 4 : b->caphunks * 2;
		b->hunks = xreallocarray(b->hunks, b->caphunks,
		    sizeof *b->hunks);
	}
	h = &b->hunks[b->nhunks++];
	memset(h, 0, sizeof *h);
	h->first = b->nlines;
	return h;
}

/*
 * Return an allocated copy of p[0..len) fit for a message: control bytes
 * become '?' so that hostile text cannot paint the terminal, and more than
 * max bytes are cut short with "...".
 */
char *
patch_show(const char *p, size_t len, size_t max)
{
	unsigned char	 c;
	size_t		 i;
	char		*s;

	s = xmalloc((len < max ? len : max) + 4);
	for (i = 0; i < len && i < max; i++) {
		c = (unsigned char)p[i];
		s[i] = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
	}
	if (len > max) {
		memcpy(s + i, "...", 3);
		i += 3;
	}
	s[i] = '\0';
	return s;
}

/* Return the length of p[0..len) without trailing whitespace. */
static size_t
patch_rtrim(const char *p, size_t len)
{
	while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t' ||
	    p[len - 1] == '\r' || p[len - 1] == '\v' || p[len - 1] == '\f'))
		len--;
	return len;
}

/* Return 1 if the line, less trailing whitespace, is exactly s. */
static int
agent_is(const struct patch_tline *tl, const char *s)
{
	size_t	n = patch_rtrim(tl->p, tl->len);

	return n == strlen(s) && memcmp(tl->p, s, n) == 0;
}

/* If the line is "PREFIX path", set the path (trimmed, allocated): 1. */
static int
agent_arg(struct patch_parser *ps, const struct patch_tline *tl,
    const char *prefix, char **path)
{
	size_t	n = strlen(prefix), end;

	if (!patch_starts(tl, prefix))
		return 0;
	end = patch_rtrim(tl->p, tl->len);
	if (end <= n)
		return claw_fail(ps->cause, CLAW_ERR_PARSE,
		    "patch line %zu: empty file name", ps->lineno);
	*path = xstrndup(tl->p + n, end - n);
	return 1;
}

/* Read the '+' lines of an Add File section. */
static void
agent_add_lines(struct patch_parser *ps, struct patch_file *pf)
{
	struct patch_tline	 tl;
	struct patch_hunk	*h;

	h = patch_add_hunk(pf->body);
	while (patch_peek(ps, &tl) && tl.len > 0 && tl.p[0] == '+') {
		patch_add_line(pf->body, '+', tl.p + 1, tl.len - 1);
		patch_skip(ps, &tl);
	}
	h->n = pf->body->nlines - h->first;
}

/* Start a chunk at an "@@" line; NULL tl starts one without a header. */
static struct patch_hunk *
agent_chunk_start(struct patch_parser *ps, struct patch_body *b,
    const struct patch_tline *tl)
{
	struct patch_hunk	*h;

	h = patch_add_hunk(b);
	if (tl == NULL)
		return h;
	if (tl->len > 3 && tl->p[2] == ' ' &&
	    patch_rtrim(tl->p, tl->len) > 3) {
		h->anchor = tl->p + 3;
		h->anchor_len = patch_rtrim(tl->p, tl->len) - 3;
	}
	patch_skip(ps, tl);
	return h;
}

/* Close the chunk h: it must hold lines. */
static int
agent_chunk_end(struct patch_parser *ps, struct patch_body *b,
    struct patch_hunk *h)
{
	if (h == NULL)
		return 0;
	h->n = b->nlines - h->first;
	if (h->n == 0)
		return claw_fail(ps->cause, CLAW_ERR_PARSE,
		    "patch line %zu: empty chunk", ps->lineno);
	return 0;
}

/* Read one chunk line (' ', '-', '+' or empty) into h; 0 if it is not. */
static int
agent_chunk_line(struct patch_parser *ps, struct patch_body *b,
    const struct patch_tline *tl)
{
	if (tl->len == 0 || (tl->len == 1 && tl->p[0] == '\r'))
		patch_add_line(b, ' ', tl->p, tl->len);
	else if (tl->p[0] == ' ' || tl->p[0] == '-' || tl->p[0] == '+')
		patch_add_line(b, tl->p[0], tl->p + 1, tl->len - 1);
	else
		return 0;
	patch_skip(ps, tl);
	return 1;
}

/* Read the chunks of an Update File section, up to the next marker. */
static int
agent_chunks(struct patch_parser *ps, struct patch_file *pf)
{
	struct patch_body	*b = pf->body;
	struct patch_hunk	*h = NULL;
	struct patch_tline	 tl;
	char			*show;
	int			 r;

	while (patch_peek(ps, &tl)) {
		if (patch_starts(&tl, "@@")) {
			if ((r = agent_chunk_end(ps, b, h)) != 0)
				return r;
			h = agent_chunk_start(ps, b, &tl);
		} else if (agent_is(&tl, "*** End of File") && h != NULL) {
			h->at_eof = 1;
			if ((r = agent_chunk_end(ps, b, h)) != 0)
				return r;
			h = NULL;
			patch_skip(ps, &tl);
		} else if (patch_starts(&tl, "***"))
			break;
		else {
			if (h == NULL && b->nhunks == 0)
				h = agent_chunk_start(ps, b, NULL);
			if (h == NULL || !agent_chunk_line(ps, b, &tl))
				return claw_fail(ps->cause, CLAW_ERR_PARSE,
				    "patch line %zu: expected a chunk line "
				    "(' ', '-', '+' or @@)", ps->lineno);
		}
	}
	if ((r = agent_chunk_end(ps, b, h)) != 0)
		return r;
	if (b->nhunks == 0 && strcmp(pf->old_path, pf->new_path) == 0) {
		show = patch_show(pf->old_path, strlen(pf->old_path),
		    PATCH_SHOW_NAME);
		claw_fail(ps->cause, CLAW_ERR_PARSE,
		    "patch line %zu: no changes for %s", b->line, show);
		free(show);
		return CLAW_ERR_PARSE;
	}
	return 0;
}

/* Read an Update File section: the marker is the current line. */
static int
agent_update(struct patch_parser *ps, const struct patch_tline *tl,
    char *path)
{
	struct patch_file	*pf;
	struct patch_tline	 t2;
	char			*to = NULL;
	int			 r;

	pf = patch_add_file(ps, PATCH_UPDATE, PATCH_FMT_AGENT);
	pf->old_path = path;
	patch_skip(ps, tl);
	if (patch_peek(ps, &t2) &&
	    (r = agent_arg(ps, &t2, "*** Move to: ", &to)) != 0) {
		if (r < 0)
			return r;
		patch_skip(ps, &t2);
	}
	pf->new_path = to != NULL ? to : xstrdup(path);
	return agent_chunks(ps, pf);
}

/* Read one section header and its lines; 1 at "*** End Patch". */
static int
agent_section(struct patch_parser *ps, const struct patch_tline *tl)
{
	struct patch_file	*pf;
	char			*path;
	int			 r;

	if (agent_is(tl, "*** End Patch")) {
		patch_skip(ps, tl);
		return 1;
	}
	if ((r = agent_arg(ps, tl, "*** Add File: ", &path)) != 0) {
		if (r < 0)
			return r;
		pf = patch_add_file(ps, PATCH_ADD, PATCH_FMT_AGENT);
		pf->new_path = path;
		patch_skip(ps, tl);
		agent_add_lines(ps, pf);
		return 0;
	}
	if ((r = agent_arg(ps, tl, "*** Delete File: ", &path)) != 0) {
		if (r < 0)
			return r;
		pf = patch_add_file(ps, PATCH_DELETE, PATCH_FMT_AGENT);
		pf->old_path = path;
		patch_skip(ps, tl);
		return 0;
	}
	if ((r = agent_arg(ps, tl, "*** Update File: ", &path)) != 0)
		return r < 0 ? r : agent_update(ps, tl, path);
	return claw_fail(ps->cause, CLAW_ERR_PARSE, "patch line %zu: expected "
	    "*** Add File, *** Update File, *** Delete File or *** End Patch",
	    ps->lineno);
}

/* Parse the agent format: the current line is "*** Begin Patch". */
static int
agent_parse(struct patch_parser *ps)
{
	struct patch_tline	tl;
	int			r;

	patch_peek(ps, &tl);
	patch_skip(ps, &tl);
	for (;;) {
		if (!patch_peek(ps, &tl))
			return claw_fail(ps->cause, CLAW_ERR_PARSE,
			    "patch line %zu: missing *** End Patch",
			    ps->lineno - 1);
		if (patch_rtrim(tl.p, tl.len) == 0) {
			patch_skip(ps, &tl);
			continue;
		}
		if ((r = agent_section(ps, &tl)) < 0)
			return r;
		if (r == 1)
			break;
	}
	while (patch_peek(ps, &tl)) {
		if (patch_rtrim(tl.p, tl.len) != 0)
			return claw_fail(ps->cause, CLAW_ERR_PARSE,
			    "patch line %zu: text after *** End Patch",
			    ps->lineno);
		patch_skip(ps, &tl);
	}
	return 0;
}

/* Order paths, then lines, for the duplicate check. */
static int
patch_seen_cmp(const void *a, const void *b)
{
	const struct patch_seen	*sa = a, *sb = b;
	int			 c;

	if ((c = strcmp(sa->path, sb->path)) != 0)
		return c;
	return sa->line < sb->line ? -1 : sa->line > sb->line;
}

/* Refuse a path that two changes name, and a change with an empty path. */
static int
patch_check_paths(const struct patch *p, char **cause)
{
	struct patch_seen	*s;
	const struct patch_file	*pf;
	char			*show;
	size_t			 i, n = 0;
	int			 r = 0;

	s = xcalloc(p->n * 2, sizeof *s);
	for (i = 0; i < p->n; i++) {
		pf = &p->files[i];
		if (pf->old_path != NULL)
			s[n++] = (struct patch_seen){ pf->old_path,
			    pf->body->line };
		if (pf->new_path != NULL && (pf->old_path == NULL ||
		    strcmp(pf->old_path, pf->new_path) != 0))
			s[n++] = (struct patch_seen){ pf->new_path,
			    pf->body->line };
	}
	qsort(s, n, sizeof *s, patch_seen_cmp);
	for (i = 0; i < n && r == 0; i++) {
		if (*s[i].path == '\0')
			r = claw_fail(cause, CLAW_ERR_PARSE,
			    "patch line %zu: empty file name", s[i].line);
		else if (i > 0 && strcmp(s[i - 1].path, s[i].path) == 0) {
			show = patch_show(s[i].path, strlen(s[i].path),
			    PATCH_SHOW_NAME);
			r = claw_fail(cause, CLAW_ERR_PARSE, "patch line %zu: "
			    "%s is changed twice", s[i].line, show);
			free(show);
		}
	}
	free(s);
	return r;
}

/* Return 1 if the first non-blank line is "*** Begin Patch". */
static int
patch_is_agent(struct patch_parser *ps)
{
	struct patch_tline	tl;

	while (patch_peek(ps, &tl) && patch_rtrim(tl.p, tl.len) == 0)
		patch_skip(ps, &tl);
	if (patch_peek(ps, &tl) && agent_is(&tl, "*** Begin Patch"))
		return 1;
	ps->off = 0;
	ps->lineno = 1;
	return 0;
}

/* Return the number of the line holding text[off]. */
static size_t
patch_line_of(const char *text, size_t off)
{
	const char	*p = text, *end = text + off, *nl;
	size_t		 n = 1;

	while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p = nl + 1;
	}
	return n;
}

/* Parse text[0..len) in either format. */
int
patch_parse(const char *text, size_t len, struct patch **out, char **cause)
{
	struct patch_parser	 ps;
	const char		*nul;
	int			 r;

	if (len != 0 && (nul = memchr(text, '\0', len)) != NULL)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "patch line %zu: binary data in patch",
		    patch_line_of(text, (size_t)(nul - text)));
	memset(&ps, 0, sizeof ps);
	ps.p = xcalloc(1, sizeof *ps.p);
	ps.p->text = xmalloc(len + 1);
	if (len != 0)
		memcpy(ps.p->text, text, len);
	ps.p->text[len] = '\0';
	ps.text = ps.p->text;
	ps.len = len;
	ps.lineno = 1;
	ps.cause = cause;
	if (patch_is_agent(&ps))
		r = agent_parse(&ps);
	else
		r = patch_unified_parse(&ps);
	if (r == 0 && ps.p->n == 0)
		r = claw_fail(cause, CLAW_ERR_PARSE, "no changes in patch");
	if (r == 0)
		r = patch_check_paths(ps.p, cause);
	if (r != 0) {
		patch_free(ps.p);
		return r;
	}
	*out = ps.p;
	return 0;
}

/* Free p and everything it holds. */
void
patch_free(struct patch *p)
{
	size_t	i;

	if (p == NULL)
		return;
	for (i = 0; i < p->n; i++) {
		free(p->files[i].old_path);
		free(p->files[i].new_path);
		if (p->files[i].body != NULL) {
			free(p->files[i].body->lines);
			free(p->files[i].body->hunks);
			free(p->files[i].body);
		}
	}
	free(p->files);
	free(p->text);
	free(p);
}
