/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A parsed patch applied to a file store, every file or none.  See
 * fstore_patch.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "fstore.h"
#include "fstore_patch.h"
#include "patch.h"
#include "xmalloc.h"

/* What one patched file turns into. */
struct pp_file {
	char		*old;		/* normalised old path, or NULL */
	char		*new;		/* normalised new path, or NULL */
	char		*data;		/* new content */
	size_t		 len;
	int		 mode;
};

/* Normalise a patch path (NULL stays NULL). */
static int
pp_path(const char *p, char **out, char **cause)
{
	if (p == NULL) {
		*out = NULL;
		return 0;
	}
	return fstore_path(p, out, cause);
}

/* Work out one file's new content from the store's current one. */
static int
pp_one(struct fstore *fs, const struct patch_file *pf, struct pp_file *o,
    char **cause)
{
	struct buf	 cur = BUF_INIT;
	unsigned	 mode = 0644;
	int		 r;

	if ((r = pp_path(pf->old_path, &o->old, cause)) != 0 ||
	    (r = pp_path(pf->new_path, &o->new, cause)) != 0)
		return r;
	if (pf->kind != PATCH_ADD && (r = fstore_read(fs, o->old, 0, 0, &cur,
	    &mode, cause)) != 0)
		return r;
	r = patch_apply(pf, pf->kind == PATCH_ADD ? NULL :
	    (cur.data != NULL ? cur.data : ""), cur.len, &o->data, &o->len,
	    cause);
	o->mode = pf->new_mode >= 0 ? pf->new_mode : (int)(mode & 0777);
	buf_free(&cur);
	return r;
}

/* Turn the worked-out files into store changes (renames: write + rm). */
static size_t
pp_changes(const struct patch *p, const struct pp_file *o,
    struct fstore_change *ch)
{
	size_t	i, n = 0;

	for (i = 0; i < p->n; i++) {
		memset(&ch[n], 0, sizeof ch[n]);
		if (p->files[i].kind == PATCH_DELETE) {
			ch[n++].path = o[i].old;
			continue;
		}
		ch[n].path = o[i].new;
		ch[n].data = o[i].data != NULL ? o[i].data : "";
		ch[n].len = o[i].len;
		ch[n].mode = o[i].mode;
		ch[n].create_only = p->files[i].kind == PATCH_ADD ||
		    strcmp(o[i].old, o[i].new) != 0;
		n++;
		if (p->files[i].kind == PATCH_UPDATE &&
		    strcmp(o[i].old, o[i].new) != 0) {
			memset(&ch[n], 0, sizeof ch[n]);
			ch[n++].path = o[i].old;
		}
	}
	return n;
}

/* The letter for what file i's change did: A, D, R or M. */
static char
pp_op(const struct patch *p, const struct pp_file *o, size_t i)
{
	if (p->files[i].kind == PATCH_ADD)
		return 'A';
	if (p->files[i].kind == PATCH_DELETE)
		return 'D';
	return strcmp(o[i].old, o[i].new) != 0 ? 'R' : 'M';
}

/* Append what was done as JSON: [{"op", "path"[, "from"]}, ...]. */
static void
pp_report_json(const struct patch *p, const struct pp_file *o,
    struct buf *b)
{
	cJSON	*a = cJSON_CreateArray(), *e;
	char	 op[2] = { '\0', '\0' }, *s;
	size_t	 i;

	for (i = 0; i < p->n; i++) {
		op[0] = pp_op(p, o, i);
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "op", op);
		cJSON_AddStringToObject(e, "path", op[0] == 'D' ? o[i].old :
		    o[i].new);
		if (op[0] == 'R')
			cJSON_AddStringToObject(e, "from", o[i].old);
		cJSON_AddItemToArray(a, e);
	}
	s = cJSON_PrintUnformatted(a);
	buf_appendf(b, "%s\n", s);
	cJSON_free(s);
	cJSON_Delete(a);
}

/* Append what was done, one line a file, as git says it (or JSON). */
static void
pp_report(const struct patch *p, const struct pp_file *o, int json,
    struct buf *b)
{
	size_t	i;

	if (json) {
		pp_report_json(p, o, b);
		return;
	}
	for (i = 0; i < p->n; i++) {
		if (p->files[i].kind == PATCH_ADD)
			buf_appendf(b, "A %s\n", o[i].new);
		else if (p->files[i].kind == PATCH_DELETE)
			buf_appendf(b, "D %s\n", o[i].old);
		else if (strcmp(o[i].old, o[i].new) != 0)
			buf_appendf(b, "R %s -> %s\n", o[i].old, o[i].new);
		else
			buf_appendf(b, "M %s\n", o[i].new);
	}
}

/* Apply p to fs; see fstore_patch.h. */
int
fstore_patch(struct fstore *fs, const struct patch *p, int json,
    struct buf *report, char **cause)
{
	struct fstore_change	*ch;
	struct pp_file		*o;
	char			*why = NULL;
	size_t			 i, n = 0;
	int			 rc = 0;

	o = xcalloc(p->n + 1, sizeof *o);
	ch = xcalloc(2 * p->n + 1, sizeof *ch);
	for (i = 0; rc == 0 && i < p->n; i++)
		rc = pp_one(fs, &p->files[i], &o[i], &why);
	if (rc == 0) {
		n = pp_changes(p, o, ch);
		rc = fstore_commit(fs, ch, n, &why);
	}
	if (rc != 0)
		*cause = xasprintf("%s; nothing was changed", why);
	else
		pp_report(p, o, json, report);
	free(why);
	for (i = 0; i < p->n; i++) {
		free(o[i].old);
		free(o[i].new);
		free(o[i].data);
	}
	free(o);
	free(ch);
	return rc;
}
