/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The saved sync state: the manifest, mapped and searched in place, and
 * the log of changes appended after it; see syncstate.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "error.h"
#include "fdio.h"
#include "log.h"
#include "manifest.h"
#include "strv.h"
#include "syncstate.h"
#include "syncstate_int.h"
#include "xmalloc.h"

#define SS_COMPACT_MIN	(64 * 1024)		/* log bytes before compaction */
#define SS_MAP_MAX	(512 * 1024 * 1024)	/* manifest_load's cap */
/* Return 1 if path is at or below one of v, or above one of them. */
static int
ss_wanted(char *const *v, size_t n, const char *path)
{
	return strv_has_ancestor(v, n, path, 1) ||
	    strv_has_descendant(v, n, path);
}

/*
 * base with everything at and below v[0..n) replaced by part's entries
 * there, keeping of part only those ss_wanted by want[0..nwant) (all of
 * them when want is NULL).
 */
static struct manifest *
ss_splice(const struct manifest *base, char *const *v, size_t n,
    const struct manifest *part, char *const *want, size_t nwant)
{
	struct manifest	*out = manifest_new();
	size_t		 i, k;

	manifest_reserve(out, (base != NULL ? base->n : 0) + part->n);
	for (i = 0; base != NULL && i < base->n; i++) {
		if (!strv_has_ancestor(v, n, base->e[i].path, 1))
			manifest_add_copy(out, &base->e[i]);
	}
	k = out->n;
	for (i = 0; i < part->n; i++) {
		if (strv_has_ancestor(v, n, part->e[i].path, 1) &&
		    (want == NULL || ss_wanted(want, nwant, part->e[i].path)))
			manifest_add_copy(out, &part->e[i]);
	}
	manifest_merge_runs(out, k);	/* two sorted runs */
	return out;
}

/* Splice; see syncstate.h. */
struct manifest *
syncstate_splice(const struct manifest *base, char *const *v, size_t n,
    const struct manifest *part)
{
	return ss_splice(base, v, n, part, NULL, 0);
}

/* A scope path and the newest layer that has it. */
struct ss_scope {
	const char	*path;
	size_t		 layer;
};

/* Order scopes by path, the newest layer first among equals. */
static int
ss_scope_cmp(const void *a, const void *b)
{
	const struct ss_scope	*x = a, *y = b;
	int			 c;

	if ((c = strcmp(x->path, y->path)) != 0)
		return c;
	return x->layer < y->layer ? 1 : x->layer > y->layer ? -1 : 0;
}

/*
 * The newest layer among the scopes sc[0..n) (sorted, unique) that are
 * path or above it: one binary search per component of path.
 */
static size_t
ss_newest(const struct ss_scope *sc, size_t n, const char *path)
{
	const char	*slash = path;
	size_t		 best = 0, len, lo, hi, mid;
	int		 c;

	do {
		slash = strchr(slash + (slash != path), '/');
		len = slash != NULL ? (size_t)(slash - path) : strlen(path);
		for (lo = 0, hi = n; lo < hi;) {
			mid = lo + (hi - lo) / 2;
			if ((c = strncmp(path, sc[mid].path, len)) == 0)
				c = sc[mid].path[len] == '\0' ? 0 : -1;
			if (c == 0) {
				if (sc[mid].layer > best)
					best = sc[mid].layer;
				break;
			}
			if (c < 0)
				hi = mid;
			else
				lo = mid + 1;
		}
	} while (slash != NULL);
	return best;
}

/*
 * All layers folded into one: the tops of their scopes in *v (borrowed
 * strings) and, in *m, the entries that the newest layer covering each
 * path holds (borrowed too: free only m->e and m).  An entry of layer i
 * counts when no newer layer has a scope at or above it; with every
 * scope path sorted once, that is a few binary searches per entry.
 */
static void
ss_fold(const struct syncstate *s, char ***v, size_t *n, struct manifest **m)
{
	struct manifest		*f = manifest_new();
	struct ss_scope		*sc = NULL;
	char			**c;
	size_t			  ns = 0, nc = 0, i, j;
	const struct ss_layer	*l;

	for (i = 0; i < s->nl; i++)
		ns += s->l[i].n;
	sc = xcalloc(ns + 1, sizeof(*sc));
	for (ns = 0, i = 0; i < s->nl; i++) {
		for (j = 0; j < s->l[i].n; j++) {
			sc[ns].path = s->l[i].v[j];
			sc[ns++].layer = i;
		}
	}
	qsort(sc, ns, sizeof(*sc), ss_scope_cmp);
	c = xcalloc(ns + 1, sizeof(*c));
	for (i = 0, j = 0; i < ns; i++) {	/* keep the newest of each */
		if (j > 0 && strcmp(sc[j - 1].path, sc[i].path) == 0)
			continue;
		sc[j++] = sc[i];
	}
	ns = j;
	for (i = 0; i < s->nl; i++) {
		l = &s->l[i];
		for (j = 0; j < l->m->n; j++) {
			if (ss_newest(sc, ns, l->m->e[j].path) == i)
				*manifest_add(f) = l->m->e[j];
		}
	}
	for (i = 0; i < ns; i++)
		c[nc++] = (char *)(uintptr_t)sc[i].path;
	strv_tops(c, &nc);
	free(sc);
	manifest_sort(f);
	*v = c;
	*n = nc;
	*m = f;
}

/* Free what ss_fold returned. */
static void
ss_fold_free(char **v, struct manifest *m)
{
	free(v);
	free(m->e);
	free(m);
}

/* m with every layer applied, keeping of theirs what want asks for. */
static struct manifest *
ss_apply(const struct syncstate *s, const struct manifest *m,
    char *const *want, size_t nwant)
{
	struct manifest	 *f, *out;
	char		**v;
	size_t		  n;

	ss_fold(s, &v, &n, &f);
	out = ss_splice(m, v, n, f, want, nwant);
	ss_fold_free(v, f);
	return out;
}

/* Free one layer's contents; see syncstate_int.h. */
void
syncstate_layer_free(struct ss_layer *l)
{
	while (l->n > 0)
		free(l->v[--l->n]);
	free(l->v);
	manifest_free(l->m);
}

/* Add a layer; see syncstate_int.h. */
void
syncstate_layer_push(struct syncstate *s, char **v, size_t n,
    struct manifest *m)
{
	if (s->nl == s->cap) {
		s->cap = s->cap == 0 ? 8 : s->cap * 2;
		s->l = xreallocarray(s->l, s->cap, sizeof(*s->l));
	}
	s->l[s->nl].v = v;
	s->l[s->nl].n = n;
	s->l[s->nl].m = m;
	s->nl++;
}

/* Drop every layer; see syncstate_int.h. */
void
syncstate_layers_free(struct syncstate *s)
{
	while (s->nl > 0)
		syncstate_layer_free(&s->l[--s->nl]);
	s->nsaved = 0;
}

/* Map the manifest fd (size checked) and check its form. */
static int
ss_map(struct syncstate *s, int fd, char **cause)
{
	size_t	hlen = strlen(MANIFEST_TEXT_HEADER);

	s->len = (size_t)s->st.st_size;
	if (s->len != 0 && (s->map = mmap(NULL, s->len, PROT_READ,
	    MAP_PRIVATE, fd, 0)) == MAP_FAILED) {
		s->map = NULL;
		*cause = xasprintf("%s: cannot map: %s", s->name,
		    strerror(errno));
		return CLAW_ERR_IO;
	}
	if (s->len < hlen || memcmp(s->map, MANIFEST_TEXT_HEADER, hlen) != 0 ||
	    s->map[s->len - 1] != '\n') {
		s->damaged = xasprintf("%s: not a clawssh manifest (damaged, "
		    "or of an unknown version)", s->name);
		s->noview = xstrdup(s->damaged);
	}
	s->body = hlen;
	return 0;
}

/* The size of the log on disk now, or -1 if there is none. */
static long long
ss_log_size(const struct syncstate *s)
{
	struct stat	st;

	if (fstatat(s->dirfd, s->logname, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return -1;
	return (long long)st.st_size;
}

/* Open the saved state; see syncstate.h. */
int
syncstate_open(int dirfd, const char *name, struct syncstate **out,
    char **cause)
{
	struct syncstate	*s = xcalloc(1, sizeof(*s));
	int			 fd, rc = 0;

	s->dirfd = dirfd;
	s->logseen = -1;
	s->name = xstrdup(name);
	s->logname = xasprintf("%s.log", name);
	fd = openat(dirfd, name, O_RDONLY|O_NOFOLLOW|O_CLOEXEC|O_NONBLOCK|
	    O_NOCTTY);
	if (fd == -1 && errno == ENOENT) {
		s->missing = s->log_fresh = 1;
		s->noview = xstrdup("nothing saved yet");
	} else if (fd == -1) {
		*cause = xasprintf("%s: cannot open: %s", name,
		    strerror(errno));
		rc = claw_err_from_errno(errno);
	} else if (fstat(fd, &s->st) != 0 || !S_ISREG(s->st.st_mode) ||
	    s->st.st_size > SS_MAP_MAX) {
		*cause = xasprintf("%s: not a regular file of at most "
		    "512 MiB", name);
		rc = CLAW_ERR_PARSE;
	} else if ((rc = ss_map(s, fd, cause)) == 0 && s->noview == NULL)
		syncstate_log_read(s);
	else if (rc == 0)		/* not read, but as we found it */
		s->logseen = ss_log_size(s);
	if (fd != -1)
		close(fd);
	if (rc != 0) {
		syncstate_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* See syncstate.h. */
int
syncstate_missing(const struct syncstate *s)
{
	return s->missing;
}

/* See syncstate.h. */
const char *
syncstate_no_view(const struct syncstate *s)
{
	return s->noview;
}

/* See syncstate.h. */
const char *
syncstate_damaged(const struct syncstate *s)
{
	return s->damaged;
}

/*
 * The path of the manifest line starting at p (ending at the newline
 * end), unescaped into out (MANIFEST_PATH_MAX + 1 bytes): its length, or
 * CLAW_ERR_PARSE if the line is malformed.
 */
static ssize_t
ss_line_path(const char *p, const char *end, char *out)
{
	const char	*q;
	char		*path;
	size_t		 len;
	int		 i;

	for (i = 0; i < 5; i++) {	/* TYPE MODE SIZE TIME HASH */
		if ((q = memchr(p, ' ', (size_t)(end - p))) == NULL)
			return CLAW_ERR_PARSE;
		p = q + 1;
	}
	if ((q = memchr(p, ' ', (size_t)(end - p))) == NULL ||
	    manifest_unescape(p, (size_t)(q - p), &path) != NULL)
		return CLAW_ERR_PARSE;
	len = strlen(path);
	memcpy(out, path, len + 1);
	free(path);
	return (ssize_t)len;
}

/* Order a line's path against key (klen bytes), as strcmp would. */
static int
ss_cmp(const char *path, size_t plen, const char *key, size_t klen)
{
	int	c;

	if ((c = memcmp(path, key, plen < klen ? plen : klen)) != 0)
		return c;
	return plen < klen ? -1 : plen > klen;
}

/*
 * The offset of the first manifest line whose path is not below key
 * (klen bytes) in strcmp order, by binary search over the mapped lines;
 * s->len if none.  CLAW_ERR_PARSE if a line on the way is malformed.
 */
static ssize_t
ss_lower_bound(const struct syncstate *s, const char *key, size_t klen)
{
	char	 path[MANIFEST_PATH_MAX + 1];
	size_t	 lo = s->body, hi = s->len, mid, ls;
	ssize_t	 plen;
	char	*le;

	while (lo < hi) {		/* lo and hi are line starts */
		mid = lo + (hi - lo) / 2;
		for (ls = mid; ls > lo && s->map[ls - 1] != '\n'; ls--)
			;
		le = memchr(s->map + ls, '\n', s->len - ls);
		if ((plen = ss_line_path(s->map + ls, le, path)) < 0)
			return CLAW_ERR_PARSE;
		if (ss_cmp(path, (size_t)plen, key, klen) < 0)
			lo = (size_t)(le - s->map) + 1;
		else
			hi = ls;
	}
	return (ssize_t)lo;
}

/*
 * Add to m the manifest's entry for path (with under unset) or its
 * entries below path (under set).  0, or CLAW_ERR_PARSE if the manifest is
 * damaged.
 */
static int
ss_lookup(const struct syncstate *s, struct manifest *m, const char *path,
    int under)
{
	char		 got[MANIFEST_PATH_MAX + 1], *key;
	const char	*why;
	size_t		 klen, at;
	ssize_t		 off, plen;
	char		*le;
	int		 rc = 0;

	key = under ? xasprintf("%s/", path) : xstrdup(path);
	klen = strlen(key);
	if ((off = ss_lower_bound(s, key, klen)) < 0) {
		free(key);
		return CLAW_ERR_PARSE;
	}
	for (at = (size_t)off; rc == 0 && at < s->len;
	    at = (size_t)(le - s->map) + 1) {
		le = memchr(s->map + at, '\n', s->len - at);
		if ((plen = ss_line_path(s->map + at, le, got)) < 0)
			rc = CLAW_ERR_PARSE;
		else if ((under ? strncmp(got, key, klen) :
		    strcmp(got, key)) != 0)
			break;
		else if (manifest_parse_line(m, s->map + at,
		    (size_t)(le - s->map) - at, &why) != 0)
			rc = CLAW_ERR_PARSE;
		else if (!under)
			break;
	}
	free(key);
	return rc;
}

/* Add the manifest's entries at, below and above path to m. */
static int
ss_lookup_all(const struct syncstate *s, struct manifest *m,
    const char *path)
{
	char	*up = xstrdup(path), *slash;
	int	 rc = 0;

	for (slash = strchr(up, '/'); rc == 0 && slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		rc = ss_lookup(s, m, up, 0);
		*slash = '/';
	}
	free(up);
	if (rc == 0)
		rc = ss_lookup(s, m, path, 0);
	if (rc == 0)
		rc = ss_lookup(s, m, path, 1);
	return rc;
}

/* Drop entries of the sorted m that repeat the one before. */
static void
ss_uniq(struct manifest *m)
{
	size_t	i, k = 0;

	for (i = 0; i < m->n; i++) {
		if (k > 0 && strcmp(m->e[k - 1].path, m->e[i].path) == 0) {
			free(m->e[i].path);
			free(m->e[i].link);
			continue;
		}
		m->e[k++] = m->e[i];
	}
	m->n = k;
}

/* A view of some paths; see syncstate.h. */
int
syncstate_view(struct syncstate *s, char *const *v, size_t n,
    struct manifest **out, char **cause)
{
	struct manifest	 *m, *r;
	const char	 *why;
	char		**tops;
	size_t		  i, nt = n, bad;
	int		  rc = 0;

	if (s->noview != NULL) {
		*cause = xstrdup(s->noview);
		return CLAW_ERR_UNSUPPORTED;
	}
	tops = xcalloc(n + 1, sizeof(*tops));
	if (n != 0)
		memcpy(tops, v, n * sizeof(*tops));
	strv_tops(tops, &nt);
	m = manifest_new();
	for (i = 0; rc == 0 && i < nt; i++)
		rc = ss_lookup_all(s, m, tops[i]);
	manifest_sort(m);
	ss_uniq(m);
	r = rc == 0 && s->nl > 0 ? ss_apply(s, m, tops, nt) : NULL;
	if (r != NULL) {
		manifest_free(m);
		m = r;
	}
	free(tops);
	if (rc == 0 && manifest_check_tree(m, &bad, &why) != 0)
		rc = CLAW_ERR_PARSE;
	if (rc != 0) {
		manifest_free(m);
		*cause = xasprintf("%s: damaged (a lookup found malformed "
		    "or misplaced lines)", s->name);
		return CLAW_ERR_PARSE;
	}
	*out = m;
	return 0;
}

/* The whole state; see syncstate.h. */
int
syncstate_all(struct syncstate *s, struct manifest **out, char **cause)
{
	struct manifest	*m = NULL, *r;
	char		*why = NULL;
	int		 rc;

	if (s->missing) {
		*out = s->nl > 0 ? ss_apply(s, NULL, NULL, 0) : NULL;
		return 0;
	}
	if ((rc = manifest_parse(s->map != NULL ? s->map : "", s->len, NULL,
	    &m, &why)) != 0) {
		*cause = xasprintf("%s: %s", s->name, why);
		if (s->damaged == NULL)
			s->damaged = xstrdup(*cause);
		free(why);
		return rc;
	}
	if (s->nl > 0) {
		r = ss_apply(s, m, NULL, 0);
		manifest_free(m);
		m = r;
	}
	*out = m;
	return 0;
}

/* Stage a change; see syncstate.h. */
void
syncstate_stage(struct syncstate *s, char *const *v, size_t n,
    const struct manifest *part)
{
	struct manifest	 *m = manifest_new();
	char		**c = xcalloc(n + 1, sizeof(*c));
	size_t		  i, nc = n;

	if (n != 0)
		memcpy(c, v, n * sizeof(*c));
	strv_tops(c, &nc);
	if (nc == 0) {			/* nothing changes */
		free(c);
		manifest_free(m);
		return;
	}
	for (i = 0; i < nc; i++)
		c[i] = xstrdup(c[i]);
	for (i = 0; part != NULL && i < part->n; i++) {
		if (strv_has_ancestor(c, nc, part->e[i].path, 1))
			manifest_add_copy(m, &part->e[i]);
	}
	syncstate_layer_push(s, c, nc, m);
}

/* Rewrite the manifest with everything folded in. */
static int
ss_compact(struct syncstate *s, char **cause)
{
	struct manifest	*m = NULL;
	int		 rc;

	if ((rc = syncstate_all(s, &m, cause)) != 0)
		return rc;
	rc = syncstate_save_all(s, m != NULL ? m : manifest_new(), cause);
	manifest_free(m);
	return rc;
}

/* Whether the manifest on disk is no longer the one this handle read. */
static int
ss_manifest_moved(const struct syncstate *s)
{
	struct stat	st;

	if (fstatat(s->dirfd, s->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return !s->missing;
	return s->missing || st.st_ino != s->st.st_ino ||
	    st.st_size != s->st.st_size ||
	    st.st_mtim.tv_sec != s->st.st_mtim.tv_sec ||
	    st.st_mtim.tv_nsec != s->st.st_mtim.tv_nsec;
}

/*
 * Whether another process changed the state since this one read it, so
 * that a whole rewrite from what this one read would drop its changes:
 * the manifest is not the one mapped, or the log is not as this process
 * left it.  (Syncs of one sandbox are not locked against each other.
 * Each takes its own changed paths from the daemon, so appended blocks
 * of two syncs cover different paths and may follow each other; a whole
 * rewrite may not.)
 */
static int
ss_raced(const struct syncstate *s)
{
	return s->foreign || ss_manifest_moved(s) ||
	    ss_log_size(s) != s->logseen;
}

/*
 * Whether blocks appended now (the log holding now bytes, -1: none)
 * could be wrong: the manifest moved, this handle left the log to a full
 * scan, the log shrank or vanished, or a stale log this handle meant to
 * replace changed.  A log that only grew holds other syncs' blocks, of
 * other paths: appending after them is fine.
 */
static int
ss_append_raced(const struct syncstate *s, long long now)
{
	return ss_manifest_moved(s) || s->logseen == -2 ||
	    now < s->logseen ||
	    (s->log_fresh && s->logseen >= 0 && now != s->logseen);
}

/*
 * After a race (ss_raced): leave a log that makes the next sync scan
 * and list everything (its line "X" reads as SS_RACED), which puts the
 * state right whatever either process wrote.
 */
static void
ss_poison(struct syncstate *s)
{
	struct stat	 st;
	char		*text;
	int		 fd;

	log_info("sync state: %s: the next sync scans everything", SS_RACED);
	if (fstatat(s->dirfd, s->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return;		/* no manifest: the next sync scans anyway */
	text = syncstate_log_header(&st);
	fd = openat(s->dirfd, s->logname, O_WRONLY|O_CREAT|O_TRUNC|
	    O_NOFOLLOW|O_CLOEXEC, 0600);
	if (fd == -1 || fdio_write_all(fd, text, strlen(text)) != 0 ||
	    fdio_write_all(fd, "X\n", 2) != 0)
		log_warn("%s: cannot write: %s", s->logname, strerror(errno));
	if (fd != -1)
		close(fd);
	free(text);
	s->nsaved = s->nl;
	s->logseen = -2;	/* ours no more: any later write races */
}

/*
 * Append the staged blocks to the log (a fresh one starts with its
 * header).  No fsync: docs/sync.md, "The sync state on disk".
 */
static int
ss_append(struct syncstate *s, char **cause)
{
	struct buf	 b = BUF_INIT;
	struct stat	 st;
	char		*head;
	long long	 now;
	int		 fd, rc = 0, flags = O_WRONLY|O_NOFOLLOW|O_CLOEXEC;

	if (ss_append_raced(s, now = ss_log_size(s))) {
		ss_poison(s);
		return 0;
	}
	if (now != s->logseen)
		s->foreign = 1;		/* another sync appended meanwhile */
	if (s->log_fresh && now >= 0 && s->logseen == -1)
		s->log_fresh = 0;	/* and began the log */
	if (s->log_fresh) {
		head = syncstate_log_header(&s->st);
		buf_append_str(&b, head);
		free(head);
		flags |= O_CREAT|O_TRUNC;
	} else
		flags |= O_APPEND;
	syncstate_log_format(s, &b);
	if ((fd = openat(s->dirfd, s->logname, flags, 0600)) == -1 ||
	    fdio_write_all(fd, b.data, b.len) != 0) {
		*cause = xasprintf("%s: cannot write: %s", s->logname,
		    strerror(errno));
		rc = claw_err_from_errno(errno);
	}
	if (rc == 0 && fstat(fd, &st) == 0)
		now = (long long)st.st_size;	/* others' blocks included */
	if (fd != -1 && close(fd) != 0 && rc == 0) {
		*cause = xasprintf("%s: cannot write: %s", s->logname,
		    strerror(errno));
		rc = claw_err_from_errno(errno);
	}
	if (rc == 0) {
		s->loglen = (s->log_fresh ? 0 : s->loglen) + b.len;
		s->logseen = now;
		s->log_fresh = 0;
		s->nsaved = s->nl;
	}
	buf_free(&b);
	return rc;
}

/* Write the staged changes; see syncstate.h. */
int
syncstate_commit(struct syncstate *s, char **cause)
{
	size_t	limit = s->len / 16 > SS_COMPACT_MIN ? s->len / 16 :
		    SS_COMPACT_MIN;
	int	rc;

	if (s->nsaved == s->nl)
		return 0;
	if (s->missing || s->noview != NULL || s->oldlog)
		return ss_compact(s, cause);	/* old logs are not added to */
	if ((rc = ss_append(s, cause)) != 0)
		return rc;
	if (s->loglen > limit) {
		log_debug("sync state: the log holds %zu bytes: rewriting "
		    "the manifest", s->loglen);
		return ss_compact(s, cause);
	}
	return 0;
}

/*
 * Map the manifest just written in place of the old one, with no log on
 * top (it was removed): views, syncstate_all and later commits start
 * from it.  If it cannot be mapped, nothing answers from the old one.
 */
static int
ss_remap(struct syncstate *s, char **cause)
{
	int	fd, rc = 0, e;

	if (s->map != NULL)
		munmap(s->map, s->len);
	s->map = NULL;
	s->len = 0;
	free(s->noview);
	s->noview = NULL;
	free(s->damaged);
	s->damaged = NULL;
	s->oldlog = 0;
	s->log_fresh = 1;
	s->loglen = 0;
	fd = openat(s->dirfd, s->name, O_RDONLY|O_NOFOLLOW|O_CLOEXEC|
	    O_NONBLOCK|O_NOCTTY);
	if (fd == -1 || fstat(fd, &s->st) != 0) {
		e = errno;
		*cause = xasprintf("%s: cannot open: %s", s->name,
		    strerror(e));
		rc = claw_err_from_errno(e);
	} else if (!S_ISREG(s->st.st_mode) || s->st.st_size > SS_MAP_MAX) {
		*cause = xasprintf("%s: not a regular file of at most "
		    "512 MiB", s->name);
		rc = CLAW_ERR_PARSE;
	} else
		rc = ss_map(s, fd, cause);
	if (fd != -1)
		close(fd);
	if (rc != 0) {
		s->len = 0;		/* nothing mapped */
		free(s->noview);
		s->noview = xstrdup("rewritten, but not readable again");
	}
	return rc;
}

/* Save the whole state; see syncstate.h. */
int
syncstate_save_all(struct syncstate *s, const struct manifest *m,
    char **cause)
{
	int	rc, raced = ss_raced(s);

	if ((rc = manifest_save(s->dirfd, s->name, m, cause)) != 0)
		return rc;
	if (!raced && unlinkat(s->dirfd, s->logname, 0) != 0 &&
	    errno != ENOENT)
		log_warn("%s: cannot remove: %s (it is ignored from now on)",
		    s->logname, strerror(errno));
	syncstate_layers_free(s);
	s->missing = 0;
	rc = ss_remap(s, cause);
	if (raced)
		ss_poison(s);
	else
		s->logseen = -1;
	s->foreign = 0;
	return rc;
}

/* Release; see syncstate.h. */
void
syncstate_close(struct syncstate *s)
{
	if (s == NULL)
		return;
	syncstate_layers_free(s);
	free(s->l);
	if (s->map != NULL)
		munmap(s->map, s->len);
	free(s->noview);
	free(s->damaged);
	free(s->name);
	free(s->logname);
	free(s);
}

/* Remove a sandbox's saved state; see syncstate.h. */
int
syncstate_remove(const char *dir, const char *name, char **cause)
{
	char	*path;
	int	 i, rc = 0;

	for (i = 0; i < 2 && rc == 0; i++) {
		/*
		 * The manifest first: a log left alone belongs to no
		 * manifest and is ignored (a manifest left alone would be
		 * a state, an old one).
		 */
		path = xasprintf("%s/%s%s", dir, name, i == 0 ? "" : ".log");
		if (unlink(path) == -1 && errno != ENOENT)
			rc = claw_fail_errno(cause, path, "unlink");
		free(path);
	}
	return rc;
}
