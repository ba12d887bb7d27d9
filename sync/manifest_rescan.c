/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Updating a manifest from a change journal's paths: only the listed
 * paths are looked at again (and the trees of directories that are new),
 * so a sync after a few changes does not walk the whole workspace.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "manifest.h"
#include "manifest_int.h"
#include "strv.h"
#include "xmalloc.h"

/* A sorted set of strings (directories entered, subtrees cut). */
struct rescan_set {
	char	**v;
	size_t	  n, cap;
};

/* One rescan in progress. */
struct rescan {
	struct scan		 s;
	int			 rootfd;
	char *const		*paths;		/* the journal's, sorted */
	size_t			 npaths;
	struct rescan_set	 entered;	/* ignore files loaded */
	struct rescan_set	 cut;		/* prev subtrees replaced */
};

/* Return 1 if s holds path. */
static int
rescan_has(const struct rescan_set *s, const char *path)
{
	return strv_has(s->v, s->n, path);
}

/* Add a copy of path to s, keeping it sorted; nothing if there. */
static void
rescan_put(struct rescan_set *s, const char *path)
{
	size_t	lo = 0, hi = s->n, mid;
	int	c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if ((c = strcmp(s->v[mid], path)) == 0)
			return;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (s->n == s->cap) {
		s->cap = s->cap == 0 ? 16 : s->cap * 2;
		s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
	}
	memmove(&s->v[lo + 1], &s->v[lo], (s->n - lo) * sizeof(*s->v));
	s->v[lo] = xstrdup(path);
	s->n++;
}

/* Free the strings of s. */
static void
rescan_set_free(struct rescan_set *s)
{
	size_t	i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* Return 1 if path is listed in the journal. */
static int
rescan_listed(const struct rescan *r, const char *path)
{
	return strv_has(r->paths, r->npaths, path);
}

/* Return 1 if path is one of the cut subtrees or lies below one. */
static int
rescan_in_cut(const struct rescan *r, const char *path)
{
	return strv_has_ancestor(r->cut.v, r->cut.n, path, 1);
}

/* Tell the skip callback we enter dirfd (reldir), once per directory. */
static int
rescan_enter(struct rescan *r, int dirfd, const char *reldir)
{
	int	rc;

	if (r->s.skip == NULL || rescan_has(&r->entered, reldir))
		return 0;
	rescan_put(&r->entered, reldir);
	if ((rc = r->s.skip(r->s.arg, dirfd, reldir, NULL, 1)) < 0) {
		*r->s.cause = xasprintf("%s: skip callback failed: %s",
		    *reldir == '\0' ? "." : reldir, claw_strerror(rc));
		return rc;
	}
	return 0;
}

/*
 * Open the parent directory of path beneath the root without following a
 * link, entering each level.  *fd is -1 (and 0 returned) if a component
 * is gone or is not a directory any more.
 */
static int
rescan_parent(struct rescan *r, const char *path, int *fd)
{
	char	*dir = xstrdup(path), *p, *slash;
	int	 cur, next, rc;

	*fd = -1;
	if ((cur = openat(r->rootfd, ".", O_RDONLY|O_DIRECTORY|O_CLOEXEC)) ==
	    -1) {
		free(dir);
		return mscan_errno(&r->s, "", "cannot open directory");
	}
	rc = rescan_enter(r, cur, "");
	for (p = dir; rc == 0 && (slash = strchr(p, '/')) != NULL;
	    p = slash + 1) {
		*slash = '\0';
		next = openat(cur, p, O_RDONLY|O_DIRECTORY|O_NOFOLLOW|
		    O_CLOEXEC);
		close(cur);
		if ((cur = next) == -1)
			break;
		rc = rescan_enter(r, cur, dir);
		*slash = '/';
	}
	if (cur != -1 && rc == 0)
		*fd = cur;
	else if (cur != -1)
		close(cur);
	else if (!mscan_raced(errno))
		rc = mscan_errno(&r->s, dir, "cannot open directory");
	free(dir);
	return rc;
}

/*
 * Open the directory just recorded as the last entry, called name in
 * dirfd; *fd is -1 (and 0 returned) if it went away, the entry then
 * marked gone and its path cut.
 */
static int
rescan_open_last(struct rescan *r, int dirfd, const char *name, int *fd)
{
	struct manifest_entry	*e = &r->s.m->e[r->s.m->n - 1];

	*fd = openat(dirfd, name, O_RDONLY|O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC);
	if (*fd != -1)
		return 0;
	if (!mscan_raced(errno))
		return mscan_errno(&r->s, e->path, "cannot open directory");
	e->type = SCAN_GONE;
	rescan_put(&r->cut, e->path);
	return 0;
}

/* Walk the directory just recorded as the last entry (new: all of it). */
static int
rescan_walk(struct rescan *r, int dirfd, const char *name)
{
	const char	*path = r->s.m->e[r->s.m->n - 1].path, *c;
	int		 fd, rc, depth = 1;

	for (c = path; *c != '\0'; c++)
		depth += *c == '/';
	if ((rc = rescan_open_last(r, dirfd, name, &fd)) != 0 || fd == -1)
		return rc;
	rc = mscan_dir(&r->s, fd, path, depth);
	close(fd);
	return rc;
}

/* Return the index of the first entry of m below path (or past it). */
static size_t
rescan_below(const struct manifest *m, const char *path)
{
	char	*key = xasprintf("%s/", path);
	size_t	 lo = 0, hi = m->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(m->e[mid].path, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	free(key);
	return lo;
}

/*
 * The directory just recorded as the last entry was one in prev too: cut
 * prev's unlisted entries directly in it whose names are gone.  That
 * happens when it was replaced (moved away or removed, then made or moved
 * in again): a journal lists what the new one holds, not what only the
 * old one held.
 */
static int
rescan_prune(struct rescan *r, int dirfd, const char *name)
{
	const struct manifest	*prev = r->s.prev;
	const char		*path = r->s.m->e[r->s.m->n - 1].path, *p;
	struct stat		 st;
	size_t			 i, len = strlen(path);
	int			 fd, rc;

	if ((rc = rescan_open_last(r, dirfd, name, &fd)) != 0 || fd == -1)
		return rc;
	for (i = rescan_below(prev, path); rc == 0 && i < prev->n; i++) {
		p = prev->e[i].path;
		if (strncmp(p, path, len) != 0 || p[len] != '/')
			break;
		if (strchr(p + len + 1, '/') != NULL || rescan_listed(r, p))
			continue;
		if (fstatat(fd, p + len + 1, &st, AT_SYMLINK_NOFOLLOW) == 0)
			continue;
		if (mscan_raced(errno))
			rescan_put(&r->cut, p);
		else
			rc = mscan_errno(&r->s, p, "cannot stat");
	}
	close(fd);
	return rc;
}

/* Look at one journal path again. */
static int
rescan_path(struct rescan *r, const char *path)
{
	const struct manifest_entry	*old;
	const char			*name;
	char				*reldir;
	size_t				 before = r->s.m->n, top;
	int				 fd, rc, is_dir = 0, was_dir;

	if (*path == '\0' || rescan_in_cut(r, path))
		return 0;	/* the root; under a tree gone or just walked */
	if ((top = manifest_path_over(path, strlen(path))) != 0) {
		manifest_over_add(&r->s.over, path, top);
		rescan_put(&r->cut, path);	/* as manifest_scan sees it */
		return 0;
	}
	if ((rc = rescan_parent(r, path, &fd)) != 0 || fd == -1) {
		rescan_put(&r->cut, path);
		return rc;
	}
	name = strrchr(path, '/');
	reldir = name == NULL ? xstrdup("") : xstrndup(path,
	    (size_t)(name - path));
	name = name == NULL ? path : name + 1;
	rc = mscan_entry(&r->s, fd, reldir, name, &is_dir);
	old = manifest_find(r->s.prev, path);
	was_dir = old != NULL && old->type == MANIFEST_DIR;
	if (rc == 0 && (r->s.m->n == before || !is_dir || !was_dir))
		rescan_put(&r->cut, path);	/* gone, left out or new */
	if (rc == 0 && is_dir)
		rc = was_dir ? rescan_prune(r, fd, name) :
		    rescan_walk(r, fd, name);
	close(fd);
	free(reldir);
	return rc;
}

/* Keep the entries of prev that no path replaced. */
static void
rescan_keep(struct rescan *r)
{
	const struct manifest_entry	*p;
	size_t				 i;

	for (i = 0; r->s.prev != NULL && i < r->s.prev->n; i++) {
		p = &r->s.prev->e[i];
		if (rescan_listed(r, p->path) || rescan_in_cut(r, p->path))
			continue;
		manifest_add_copy(r->s.m, p);
	}
}

/* Return 1 if path has no empty, "." or ".." component. */
static int
rescan_clean(const char *path)
{
	const char	*p, *slash;
	size_t		 len;

	for (p = path;; p = slash + 1) {
		slash = strchr(p, '/');
		len = slash == NULL ? strlen(p) : (size_t)(slash - p);
		if (len == 0 || (len == 1 && p[0] == '.') ||
		    (len == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (slash == NULL)
			return 1;
	}
}

/* Check paths[i]: after paths[i - 1], and "" or a clean relative path. */
static int
rescan_check(char *const *paths, size_t i, char **cause)
{
	if (i > 0 && strcmp(paths[i - 1], paths[i]) >= 0) {
		*cause = xstrdup("journal paths not sorted");
		return CLAW_ERR_INVAL;
	}
	if (*paths[i] != '\0' && !rescan_clean(paths[i])) {
		*cause = xasprintf("%s: not a clean relative path", paths[i]);
		return CLAW_ERR_INVAL;
	}
	return 0;
}

/* Update prev by paths; see manifest.h. */
int
manifest_rescan(int rootfd, const struct manifest *prev, char *const *paths,
    size_t n, manifest_skip_cb skip, void *arg, int flags,
    struct manifest **out, char **cause)
{
	struct rescan	 r;
	const char	*why;
	size_t		 i, bad, k;
	int		 rc = 0;

	memset(&r, 0, sizeof(r));
	r.rootfd = rootfd;
	r.paths = paths;
	r.npaths = n;
	r.s.m = manifest_new();
	r.s.prev = prev;
	r.s.skip = skip;
	r.s.arg = arg;
	r.s.flags = flags;
	r.s.cause = cause;
	for (i = 0; rc == 0 && i < n; i++) {
		if ((rc = rescan_check(paths, i, cause)) == 0)
			rc = rescan_path(&r, paths[i]);
	}
	if (rc == 0) {
		mscan_compact(r.s.m);
		manifest_sort(r.s.m);		/* the few new entries */
		k = r.s.m->n;
		if (prev != NULL)
			manifest_reserve(r.s.m, prev->n);
		rescan_keep(&r);		/* in prev's order */
		manifest_merge_runs(r.s.m, k);
		if (manifest_check_tree(r.s.m, &bad, &why) != 0) {
			*cause = xasprintf("%s: %s (the journal missed a "
			    "change)", r.s.m->e[bad].path, why);
			rc = CLAW_ERR_PARSE;
		}
	}
	free(r.s.chunk);
	rescan_set_free(&r.entered);
	rescan_set_free(&r.cut);
	if (rc != 0) {
		free(r.s.over.first);
		manifest_free(r.s.m);
		return rc;
	}
	manifest_over_report(&r.s.over, "local, not sent");
	*out = r.s.m;
	return 0;
}
