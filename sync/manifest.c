/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Manifests in memory: building, sorting, lookup, the checks every parser
 * applies to untrusted entries, and the diff between two manifests.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "log.h"
#include "manifest.h"
#include "manifest_int.h"
#include "xmalloc.h"

#define MANIFEST_DEF_ENTRIES	1000000
#define MANIFEST_DEF_BYTES	((uint64_t)1 << 40)
#define MANIFEST_DEF_TEXT	((size_t)512 * 1024 * 1024)
#define MANIFEST_OVER_SHOWN	1024	/* bytes of a path a warning shows */
/* The shortest path that can be over a limit: 257 one-byte components. */
#define MANIFEST_OVER_MIN	(2 * MANIFEST_MAX_DEPTH + 1)

/* Changes collected by a diff: deletions apart, to be reversed at the end. */
struct diff {
	struct manifest_change	*del, *rest;
	size_t			 ndel, nrest, capdel, caprest;
};

/* Fill lim with the default limits. */
void
manifest_limits_default(struct manifest_limits *lim)
{
	lim->max_entries = MANIFEST_DEF_ENTRIES;
	lim->max_bytes = MANIFEST_DEF_BYTES;
	lim->max_path = MANIFEST_PATH_MAX;
	lim->max_text = MANIFEST_DEF_TEXT;
}

/* Return a new, empty manifest. */
struct manifest *
manifest_new(void)
{
	return xcalloc(1, sizeof(struct manifest));
}

/* Free m and the strings of its entries. */
void
manifest_free(struct manifest *m)
{
	size_t	i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++) {
		free(m->e[i].path);
		free(m->e[i].link);
	}
	free(m->e);
	free(m);
}

/* Append a zeroed entry, growing the array geometrically. */
struct manifest_entry *
manifest_add(struct manifest *m)
{
	struct manifest_entry	*e;

	if (m->n == m->cap) {
		m->cap = m->cap == 0 ? 64 : m->cap * 2;
		m->e = xreallocarray(m->e, m->cap, sizeof(*m->e));
	}
	e = &m->e[m->n++];
	memset(e, 0, sizeof(*e));
	return e;
}

/* Append a deep copy of e; see manifest.h. */
void
manifest_add_copy(struct manifest *m, const struct manifest_entry *e)
{
	struct manifest_entry	*c = manifest_add(m);

	*c = *e;
	c->path = xstrdup(e->path);
	c->link = e->link != NULL ? xstrdup(e->link) : NULL;
}

/* Make room for n more entries at once; see manifest.h. */
void
manifest_reserve(struct manifest *m, size_t n)
{
	if (m->cap - m->n >= n)
		return;
	m->cap = m->n + n;
	m->e = xreallocarray(m->e, m->cap, sizeof(*m->e));
}

/* Order two entries by path bytes for qsort(3). */
static int
manifest_cmp(const void *a, const void *b)
{
	const struct manifest_entry	*ea = a, *eb = b;

	return strcmp(ea->path, eb->path);
}

/* Sort the entries of m by path (most often they already are). */
void
manifest_sort(struct manifest *m)
{
	size_t	i;

	for (i = 1; i < m->n; i++) {
		if (strcmp(m->e[i - 1].path, m->e[i].path) > 0)
			break;
	}
	if (i < m->n)
		qsort(m->e, m->n, sizeof(*m->e), manifest_cmp);
}

/* Merge the sorted runs [0, k) and [k, n) of m; see manifest.h. */
void
manifest_merge_runs(struct manifest *m, size_t k)
{
	struct manifest_entry	*t;
	size_t			 i = 0, j = k, o = 0;

	if (k == 0 || k >= m->n ||
	    strcmp(m->e[k - 1].path, m->e[k].path) < 0)
		return;		/* one run, or already in order */
	t = xreallocarray(NULL, m->n, sizeof(*t));
	while (i < k && j < m->n)
		t[o++] = strcmp(m->e[i].path, m->e[j].path) <= 0 ?
		    m->e[i++] : m->e[j++];
	while (i < k)
		t[o++] = m->e[i++];
	while (j < m->n)
		t[o++] = m->e[j++];
	free(m->e);
	m->e = t;
	m->cap = m->n;
}

/* Find path in the sorted entries of m by binary search. */
const struct manifest_entry *
manifest_find(const struct manifest *m, const char *path)
{
	size_t	lo = 0, hi, mid;
	int	c;

	if (m == NULL)
		return NULL;
	hi = m->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(path, m->e[mid].path)) == 0)
			return &m->e[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Return NULL if path is a well-formed relative path; see manifest.h. */
const char *
manifest_path_check(const char *path, size_t max)
{
	const char	*p, *slash;
	size_t		 len;

	if (*path == '\0')
		return "empty path";
	if (*path == '/')
		return "absolute path";
	if (strlen(path) > max)
		return "path longer than the limit (max_path)";
	for (p = path;; p = slash + 1) {
		slash = strchr(p, '/');
		len = slash == NULL ? strlen(p) : (size_t)(slash - p);
		if (len == 0)
			return "empty path component";
		if ((len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return "'.' or '..' path component";
		if (slash == NULL)
			return NULL;
	}
}

/* Return NULL if the fields of e other than its path are valid. */
static const char *
manifest_fields_check(const struct manifest_entry *e, size_t max)
{
	if (e->type != MANIFEST_FILE && e->type != MANIFEST_DIR &&
	    e->type != MANIFEST_LINK)
		return "bad type";
	if (e->mode > 0777)
		return "bad mode";
	if (e->mtime_nsec < 0 || e->mtime_nsec > 999999999)
		return "bad nanoseconds";
	if (e->type == MANIFEST_DIR && e->size != 0)
		return "directory with a size";
	if (e->have_hash && e->type != MANIFEST_FILE)
		return "hash on a non-file";
	if (e->type != MANIFEST_LINK)
		return e->link == NULL ? NULL : "link target on a non-link";
	if (e->link == NULL || *e->link == '\0')
		return "link without a target";
	if (strlen(e->link) > max)
		return "link target longer than the limit (max_path)";
	return NULL;
}

/* Return 0, or the length of path's top over the limits; see manifest.h. */
size_t
manifest_path_over(const char *path, size_t len)
{
	size_t	i, depth = 1;

	if (len < MANIFEST_OVER_MIN)	/* the common case: short */
		return 0;
	for (i = 0; i <= len; i++) {
		if (i < len && path[i] != '/')
			continue;
		/* path[0, i) ends a component: the depth-th */
		if (i > MANIFEST_PATH_MAX || depth > MANIFEST_MAX_DEPTH)
			return i;
		depth++;
	}
	return 0;
}

/* Count a path left out over the limits, keeping the first one's top. */
void
manifest_over_add(struct manifest_over *o, const char *path, size_t top)
{
	if (o->n++ != 0)
		return;
	o->cut = top > MANIFEST_OVER_SHOWN;
	o->first = xstrndup(path, o->cut ? MANIFEST_OVER_SHOWN : top);
}

/* Warn once about the paths o counted, then forget them. */
void
manifest_over_report(struct manifest_over *o, const char *where)
{
	struct buf	 b = BUF_INIT;
	char		*more;

	if (o->n == 0)
		return;
	manifest_escape(&b, o->first);
	more = o->n == 1 ? xstrdup("") : xasprintf(" (and %zu more)",
	    o->n - 1);
	log_warn("%s%s: deeper than %d directories or longer than %d bytes: "
	    "left out with everything below it%s; it stays %s",
	    b.data, o->cut ? "..." : "", MANIFEST_MAX_DEPTH,
	    MANIFEST_PATH_MAX, more, where);
	free(more);
	buf_free(&b);
	free(o->first);
	o->first = NULL;
	o->n = 0;
}

/* Check one untrusted entry and count it against the limits. */
int
manifest_entry_check(const struct manifest *m,
    const struct manifest_entry *e, const struct manifest_limits *lim,
    uint64_t *total, const char **why)
{
	struct manifest_limits	 def;
	const char		*r;
	size_t			 max;

	if (lim == NULL) {
		manifest_limits_default(&def);
		lim = &def;
	}
	max = lim->max_path < MANIFEST_PATH_MAX ? lim->max_path :
	    MANIFEST_PATH_MAX;
	if ((r = manifest_path_check(e->path, max)) == NULL &&
	    (r = manifest_fields_check(e, max)) == NULL) {
		if (m->n >= lim->max_entries)
			r = "too many entries (limit max_entries)";
		else if (e->type == MANIFEST_FILE &&
		    (e->size > lim->max_bytes ||
		    *total > lim->max_bytes - e->size))
			r = "total file size over the limit (max_bytes)";
	}
	if (r != NULL) {
		*why = r;
		return CLAW_ERR_PARSE;
	}
	if (e->type == MANIFEST_FILE)
		*total += e->size;
	return 0;
}

/*
 * Return NULL if the parent directory of entry i is in m, else the reason.
 * *last is the previous entry checked (its parent found), since entries
 * of one directory mostly follow each other.
 */
static const char *
manifest_parent_check(const struct manifest *m, size_t i, const char **last)
{
	const struct manifest_entry	*p;
	const char			*path = m->e[i].path, *slash, *ls;
	char				*parent;
	size_t				 len;

	if ((slash = strrchr(path, '/')) == NULL)
		return NULL;
	len = (size_t)(slash - path);
	if (*last != NULL && (ls = strrchr(*last, '/')) != NULL &&
	    (size_t)(ls - *last) == len && memcmp(*last, path, len) == 0)
		return NULL;	/* the same parent as the last one */
	*last = path;
	parent = xstrndup(path, len);
	p = manifest_find(m, parent);
	free(parent);
	if (p == NULL)
		return "parent directory missing";
	if (p->type != MANIFEST_DIR)
		return "parent is not a directory";
	return NULL;
}

/* Check order, uniqueness and parents of all entries of m. */
int
manifest_check_tree(const struct manifest *m, size_t *bad, const char **why)
{
	const char	*r = NULL, *last = NULL;
	size_t		 i;
	int		 c;

	for (i = 0; i < m->n && r == NULL; i++) {
		if (i > 0 && (c = strcmp(m->e[i - 1].path, m->e[i].path)) >= 0)
			r = c == 0 ? "duplicate path" : "paths out of order";
		else
			r = manifest_parent_check(m, i, &last);
	}
	if (r == NULL)
		return 0;
	*bad = i - 1;
	*why = r;
	return CLAW_ERR_PARSE;
}

/* Record one change in d. */
static void
diff_add(struct diff *d, int kind, const struct manifest_entry *old,
    const struct manifest_entry *now)
{
	const struct manifest_entry	 *e = old != NULL ? old : now;
	struct manifest_change		**a;
	size_t				 *n, *cap;

	if (manifest_path_over(e->path, strnlen(e->path,
	    MANIFEST_PATH_MAX + 1)) != 0)
		return;		/* left out of scans and listings alike */
	if (kind == MANIFEST_CH_DELETED) {
		a = &d->del;
		n = &d->ndel;
		cap = &d->capdel;
	} else {
		a = &d->rest;
		n = &d->nrest;
		cap = &d->caprest;
	}
	if (*n == *cap) {
		*cap = *cap == 0 ? 64 : *cap * 2;
		*a = xreallocarray(*a, *cap, sizeof(**a));
	}
	(*a)[*n].kind = kind;
	(*a)[*n].old = old;
	(*a)[*n].now = now;
	(*n)++;
}

/* Return 1 if the content of two file entries differs. */
static int
diff_content(const struct manifest_entry *o, const struct manifest_entry *w)
{
	if (o->size != w->size)
		return 1;
	if (o->have_hash && w->have_hash)
		return memcmp(o->hash, w->hash, sizeof(o->hash)) != 0;
	return o->mtime_sec != w->mtime_sec || o->mtime_nsec != w->mtime_nsec;
}

/* Record what changed between two entries for the same path. */
static void
diff_pair(struct diff *d, const struct manifest_entry *o,
    const struct manifest_entry *w)
{
	if (o->type != w->type) {
		diff_add(d, MANIFEST_CH_DELETED, o, NULL);
		diff_add(d, MANIFEST_CH_ADDED, NULL, w);
	} else if (o->type == MANIFEST_LINK) {
		if (strcmp(o->link, w->link) != 0)
			diff_add(d, MANIFEST_CH_LINK, o, w);
	} else if (o->type == MANIFEST_FILE && diff_content(o, w))
		diff_add(d, MANIFEST_CH_MODIFIED, o, w);
	else if (o->mode != w->mode)
		diff_add(d, MANIFEST_CH_MODE, o, w);
}

/* Return 1 if entry i of m is not strictly after entry i - 1. */
static int
diff_unsorted(const struct manifest *m, size_t i)
{
	return i > 0 && i < m->n &&
	    strcmp(m->e[i - 1].path, m->e[i].path) >= 0;
}

/* Hand over the collected changes: deletions reversed, then the rest. */
static void
diff_finish(struct diff *d, struct manifest_change **out, size_t *n)
{
	struct manifest_change	*all = NULL;
	size_t			 i, total = d->ndel + d->nrest;

	if (total != 0) {
		all = xreallocarray(NULL, total, sizeof(*all));
		for (i = 0; i < d->ndel; i++)
			all[i] = d->del[d->ndel - 1 - i];
		if (d->nrest != 0)
			memcpy(all + d->ndel, d->rest,
			    d->nrest * sizeof(*all));
	}
	*out = all;
	*n = total;
}

/* Merge-walk two sorted manifests into their list of changes. */
int
manifest_diff(const struct manifest *old, const struct manifest *now,
    struct manifest_change **out, size_t *n)
{
	static const struct manifest	 empty;
	struct diff			 d;
	size_t				 i = 0, j = 0;
	int				 c, r = 0;

	memset(&d, 0, sizeof(d));
	old = old == NULL ? &empty : old;
	now = now == NULL ? &empty : now;
	while (i < old->n || j < now->n) {
		if (diff_unsorted(old, i) || diff_unsorted(now, j)) {
			r = CLAW_ERR_INVAL;
			break;
		}
		if (i == old->n)
			c = 1;
		else if (j == now->n)
			c = -1;
		else
			c = strcmp(old->e[i].path, now->e[j].path);
		if (c < 0)
			diff_add(&d, MANIFEST_CH_DELETED, &old->e[i++], NULL);
		else if (c > 0)
			diff_add(&d, MANIFEST_CH_ADDED, NULL, &now->e[j++]);
		else
			diff_pair(&d, &old->e[i++], &now->e[j++]);
	}
	if (r == 0)
		diff_finish(&d, out, n);
	free(d.del);
	free(d.rest);
	return r;
}
