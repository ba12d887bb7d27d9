/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The change journal.  One libinotifytools instance per process, used by
 * the reader thread only: it alone adds and removes watches, keeps the
 * watch map (inotify watch descriptor to root and relative directory,
 * sorted by descriptor) and walks new directories.  Other threads post
 * requests (add, remove, take, stop) on a list under j->mu and then
 * touch a private "sentinel" directory that the reader watches: the
 * IN_ATTRIB event wakes the blocked reader, and since the kernel queues
 * events in order, by the time it comes round every event queued before
 * the request has been handled.  Roots' dirty sets and reasons are
 * guarded by j->mu too, which is held only briefly.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/inotify.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <inotifytools/inotifytools.h>

#include "error.h"
#include "ignore.h"
#include "journal.h"
#include "log.h"
#include "manifest.h"
#include "xmalloc.h"

#define JOURNAL_WAIT_S	60	/* longest wait for the reader */

#define JOURNAL_MASK	(IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB | \
    IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | \
    IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

/* How a walk reports what it finds. */
enum journal_walk_mode {
	JOURNAL_WALK_QUIET,	/* journal_add: watch only */
	JOURNAL_WALK_REWATCH,	/* after an overflow: report new dirs */
	JOURNAL_WALK_REPORT	/* a directory created or moved in */
};

/* A set of allocated paths; sorted and unique after journal_set_uniq. */
struct journal_set {
	char	**v;
	size_t	  n;
	size_t	  cap;
	size_t	  uniq_at;	/* n after the last journal_set_uniq */
};

struct journal_root {
	int			 handle;
	char			*path;		/* canonical */
	const struct ignore	*ig;
	unsigned		 gen;		/* walk generation */
	int			 rewatch;	/* walk again */
	struct journal_set	 dirty;		/* mu */
	const char		*why;		/* full till taken (mu) */
	const char		*broken;	/* full for good (mu) */
	int			 toomany;	/* dropping paths (mu) */
};

struct journal_watch {
	int			 wd;
	unsigned		 gen;
	struct journal_root	*root;
	char			*rel;		/* "" for the root */
};

enum journal_req_kind {
	JOURNAL_REQ_ADD,
	JOURNAL_REQ_REMOVE,
	JOURNAL_REQ_TAKE,
	JOURNAL_REQ_STOP
};

/* A request to the reader, on the caller's stack until done. */
struct journal_req {
	struct journal_req	*next;
	enum journal_req_kind	 kind;
	const char		*path;		/* add */
	const struct ignore	*ig;		/* add */
	int			 handle;	/* add (out), remove, take */
	char			**paths;	/* take (out) */
	size_t			 n;		/* take (out) */
	const char		*why;		/* take (out) */
	int			 r;		/* 0 or CLAW_ERR_* */
	char			*cause;
	int			 done;		/* mu */
};

struct journal {
	pthread_mutex_t		  mu;
	pthread_cond_t		  cv;		/* a request done */
	pthread_t		  thread;
	struct journal_req	 *reqs;		/* mu */
	char			 *sentinel;	/* private directory */
	int			  sentinel_fd;
	int			  sentinel_wd;
	/* Written by the reader only (roots under mu too). */
	struct journal_root	**roots;
	size_t			  nroots;
	size_t			  nrewatch;
	int			  next_handle;
	struct journal_watch	 *w;		/* sorted by wd */
	size_t			  nw;
	size_t			  capw;
	size_t			  watch_cap;	/* mu */
	int			  max_wd;	/* highest handed out */
};

static const char	journal_why_limit[] = "inotify watch limit reached";
static const char	journal_why_deep[] = "tree nested too deep";

static pthread_mutex_t	journal_single = PTHREAD_MUTEX_INITIALIZER;
static int		journal_exists;

/* Order strings, for qsort. */
static int
journal_cmp_str(const void *a, const void *b)
{
	const char	*const *sa = a, *const *sb = b;

	return strcmp(*sa, *sb);
}

/* Add a copy of path to s, folding duplicates now and then. */
static void
journal_set_add(struct journal_set *s, const char *path)
{
	if (s->n == s->cap) {
		s->cap = s->cap == 0 ? 64 : s->cap * 2;
		s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
	}
	s->v[s->n++] = xstrdup(path);
}

/* Sort s and drop duplicates. */
static void
journal_set_uniq(struct journal_set *s)
{
	size_t	i, o;

	if (s->v == NULL)
		return;
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), journal_cmp_str);
	for (i = o = 0; i < s->n; i++) {
		if (o > 0 && strcmp(s->v[o - 1], s->v[i]) == 0)
			free(s->v[i]);
		else
			s->v[o++] = s->v[i];
	}
	s->n = s->uniq_at = o;
}

/* Free the paths of s and empty it. */
static void
journal_set_clear(struct journal_set *s)
{
	journal_paths_free(s->v, s->n);
	memset(s, 0, sizeof(*s));
}

/* Free what journal_take returned; see journal.h. */
void
journal_paths_free(char **paths, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* Mark root full for reason why until the next take (mu held). */
static void
journal_mark(struct journal_root *root, const char *why)
{
	if (root->why == NULL)
		root->why = why;
}

/* Move the paths of found into root's dirty set (mu held). */
static void
journal_merge(struct journal_root *root, struct journal_set *found)
{
	struct journal_set	*d = &root->dirty;
	size_t			 i;

	for (i = 0; i < found->n && !root->toomany; i++) {
		journal_set_add(d, found->v[i]);
		if (d->n < 2 * (d->uniq_at > 1024 ? d->uniq_at : 1024))
			continue;
		journal_set_uniq(d);
		if (d->n > JOURNAL_DIRTY_MAX) {
			journal_set_clear(d);
			root->toomany = 1;
			journal_mark(root, "too many changed paths");
		}
	}
	journal_set_clear(found);
}

/* Add one path to root's dirty set (takes mu). */
static void
journal_dirty(struct journal *j, struct journal_root *root, const char *rel)
{
	struct journal_set	one = { NULL, 0, 0, 0 };

	journal_set_add(&one, rel);
	pthread_mutex_lock(&j->mu);
	journal_merge(root, &one);
	pthread_mutex_unlock(&j->mu);
}

static void	journal_serve_remove(struct journal *, struct journal_req *);

/* Return the index of wd in the watch map, or where it would go. */
static size_t
journal_watch_pos(const struct journal *j, int wd)
{
	size_t	lo = 0, hi = j->nw, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (j->w[mid].wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Return the watch of wd, or NULL. */
static struct journal_watch *
journal_watch_find(const struct journal *j, int wd)
{
	size_t	i = journal_watch_pos(j, wd);

	if (i < j->nw && j->w[i].wd == wd)
		return &j->w[i];
	return NULL;
}

/* Record wd as root's directory rel; set *isnew if it was not known. */
static void
journal_watch_put(struct journal *j, int wd, struct journal_root *root,
    const char *rel, int *isnew)
{
	struct journal_watch	*w;
	size_t			 i = journal_watch_pos(j, wd);

	*isnew = !(i < j->nw && j->w[i].wd == wd);
	if (*isnew) {
		if (j->nw == j->capw) {
			j->capw = j->capw == 0 ? 64 : j->capw * 2;
			j->w = xreallocarray(j->w, j->capw, sizeof(*j->w));
		}
		memmove(&j->w[i + 1], &j->w[i], (j->nw - i) * sizeof(*j->w));
		j->nw++;
		j->w[i].rel = NULL;
	}
	w = &j->w[i];
	free(w->rel);
	w->wd = wd;
	w->root = root;
	w->rel = xstrdup(rel);
	w->gen = root->gen;
}

/* Return 1 if rel is prefix or lies below it ("" holds everything). */
static int
journal_below(const char *rel, const char *prefix)
{
	size_t	len = strlen(prefix);

	if (len == 0)
		return 1;
	return strncmp(rel, prefix, len) == 0 &&
	    (rel[len] == '\0' || rel[len] == '/');
}

/*
 * Remove root's watches on prefix and below it (all of root's with
 * prefix NULL), or with stale set only those not seen by the last walk.
 */
static void
journal_unwatch(struct journal *j, const struct journal_root *root,
    const char *prefix, int stale)
{
	struct journal_watch	*w;
	size_t			 i, o;

	for (i = o = 0; i < j->nw; i++) {
		w = &j->w[i];
		if (w->root == root && (stale ? w->gen != root->gen :
		    prefix == NULL || journal_below(w->rel, prefix))) {
			inotifytools_remove_watch_by_wd(w->wd);
			free(w->rel);
		} else
			j->w[o++] = *w;
	}
	j->nw = o;
}

/* Return root->path/rel (root->path for rel ""). */
static char *
journal_abs(const struct journal_root *root, const char *rel)
{
	if (*rel == '\0')
		return xstrdup(root->path);
	return xasprintf("%s/%s", root->path, rel);
}

/* Return rel/name (name for rel ""). */
static char *
journal_join(const char *rel, const char *name)
{
	if (*rel == '\0')
		return xstrdup(name);
	return xasprintf("%s/%s", rel, name);
}

/*
 * Return the watch descriptor libinotifytools holds for the directory
 * path, which it files under "path/", or -1.
 */
static int
journal_wd(const char *path)
{
	char	*slash;
	int	 wd;

	if ((wd = inotifytools_wd_from_filename(path)) >= 0)
		return wd;
	slash = xasprintf("%s/", path);
	wd = inotifytools_wd_from_filename(slash);
	free(slash);
	return wd;
}

/* Return 1 if the library files wd under path (or "path/"). */
static int
journal_wd_is(int wd, const char *path)
{
	const char	*name;
	size_t		 len = strlen(path);

	if ((name = inotifytools_filename_from_wd(wd)) == NULL)
		return 0;
	return strncmp(name, path, len) == 0 &&
	    (name[len] == '\0' || (name[len] == '/' && name[len + 1] == '\0'));
}

/*
 * Return the watch descriptor of the watch just added on path, or -1.
 * The library keeps records of watches the kernel dropped (a directory
 * removed), so a lookup by name may find a dead one.  The kernel hands
 * out descriptors in increasing order and this journal is the only user
 * of the instance, so a new watch is j->max_wd + 1; otherwise the inode
 * was watched already and the name finds a live watch of ours.
 */
static int
journal_new_wd(struct journal *j, const char *path)
{
	int	wd;

	if (journal_wd_is(j->max_wd + 1, path))
		return ++j->max_wd;
	if ((wd = journal_wd(path)) < 0 || journal_watch_find(j, wd) == NULL)
		return -1;
	return wd;
}

/*
 * Watch directory rel of root.  Returns 0 (*isnew set), 1 if it is gone
 * or no longer a directory, or with *why set CLAW_ERR_RANGE past the watch
 * limit, else the error of inotify.
 */
static int
journal_watch_dir(struct journal *j, struct journal_root *root,
    const char *rel, int *isnew, const char **why)
{
	char	*path;
	size_t	 cap;
	int	 wd = -1, err = 0;

	pthread_mutex_lock(&j->mu);
	cap = j->watch_cap;
	pthread_mutex_unlock(&j->mu);
	if (cap != 0 && j->nw >= cap) {
		*why = journal_why_limit;
		return CLAW_ERR_RANGE;
	}
	path = journal_abs(root, rel);
	if (inotifytools_watch_file(path, JOURNAL_MASK) == 0)
		err = inotifytools_error();
	else if ((wd = journal_new_wd(j, path)) < 0)
		err = EINVAL;
	free(path);
	if (err == ENOENT || err == ENOTDIR)
		return 1;
	if (err == ENOSPC) {
		*why = journal_why_limit;
		return CLAW_ERR_RANGE;
	}
	if (err != 0) {
		*why = "adding an inotify watch failed";
		return claw_err_from_errno(err);
	}
	journal_watch_put(j, wd, root, rel, isnew);
	return 0;
}

/* Return 1 if the entry de of the open directory dfd is a directory. */
static int
journal_is_dir(int dfd, const struct dirent *de)
{
	struct stat	st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	return S_ISDIR(st.st_mode);
}

/*
 * List directory rel of root: entries not ignored go to found when
 * reporting, subdirectories to subdirs.  Returns 0, or CLAW_ERR_IO with
 * *why.
 */
static int
journal_list(const struct journal_root *root, const char *rel, int report,
    struct journal_set *found, struct journal_set *subdirs, const char **why)
{
	struct dirent	*de;
	DIR		*d;
	char		*path, *child;
	int		 fd, is_dir;

	path = journal_abs(root, rel);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(path);
	if (fd == -1 && (errno == ENOENT || errno == ENOTDIR ||
	    errno == ELOOP))
		return 0;	/* gone: its parent's event says so */
	if (fd == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		*why = "reading a directory failed";
		return CLAW_ERR_IO;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		child = journal_join(rel, de->d_name);
		is_dir = journal_is_dir(dirfd(d), de);
		if (root->ig == NULL ||
		    !ignore_match(root->ig, child, is_dir)) {
			if (report)
				journal_set_add(found, child);
			if (is_dir)
				journal_set_add(subdirs, child);
		}
		free(child);
	}
	closedir(d);
	return 0;
}

/*
 * Watch directory rel of root and everything below it,
 * adding what mode reports to found.  Returns 0, or with *why set
 * CLAW_ERR_RANGE too deep, or the error of journal_watch_dir or
 * journal_list.
 */
static int
journal_walk(struct journal *j, struct journal_root *root, const char *rel,
    int depth, enum journal_walk_mode mode, struct journal_set *found,
    const char **why)
{
	struct journal_set	subdirs = { NULL, 0, 0, 0 };
	size_t			i;
	int			isnew = 0, r;

	if (depth > MANIFEST_MAX_DEPTH) {
		*why = journal_why_deep;
		return CLAW_ERR_RANGE;
	}
	if ((r = journal_watch_dir(j, root, rel, &isnew, why)) != 0)
		return r < 0 ? r : 0;
	if (mode == JOURNAL_WALK_REWATCH && isnew && *rel != '\0') {
		journal_set_add(found, rel);
		mode = JOURNAL_WALK_REPORT;
	}
	r = journal_list(root, rel, mode == JOURNAL_WALK_REPORT, found,
	    &subdirs, why);
	for (i = 0; i < subdirs.n && r == 0; i++)
		r = journal_walk(j, root, subdirs.v[i], depth + 1, mode, found,
		    why);
	journal_set_clear(&subdirs);
	return r;
}

/* Mark root full for good (takes mu). */
static void
journal_break(struct journal *j, struct journal_root *root, const char *why)
{
	pthread_mutex_lock(&j->mu);
	if (root->broken == NULL)
		root->broken = why;
	pthread_mutex_unlock(&j->mu);
}

/* Walk rel of root in mode and file what it found. */
static void
journal_walk_file(struct journal *j, struct journal_root *root,
    const char *rel, enum journal_walk_mode mode)
{
	struct journal_set	 found = { NULL, 0, 0, 0 };
	const char		*why = NULL;
	int			 r;

	if (mode == JOURNAL_WALK_REPORT)
		journal_set_add(&found, rel);
	r = journal_walk(j, root, rel, 0, mode, &found, &why);
	pthread_mutex_lock(&j->mu);
	journal_merge(root, &found);
	if (r != 0 && root->broken == NULL)
		root->broken = why;
	pthread_mutex_unlock(&j->mu);
}

/*
 * Walk a root again after lost events or a failed watch; if the walk
 * completes, drop the watches it did not see (directories gone or moved
 * out meanwhile).
 */
static void
journal_rewatch(struct journal *j, struct journal_root *root)
{
	root->rewatch = 0;
	root->gen++;
	journal_walk_file(j, root, "", JOURNAL_WALK_REWATCH);
	if (root->broken == NULL)
		journal_unwatch(j, root, NULL, 1);
}

/* Mark every root full (takes mu); with rewatch, walk them again later. */
static void
journal_mark_all(struct journal *j, const char *why, int rewatch)
{
	size_t	i;

	pthread_mutex_lock(&j->mu);
	for (i = 0; i < j->nroots; i++) {
		journal_mark(j->roots[i], why);
		if (rewatch) {
			j->roots[i]->rewatch = 1;
			j->nrewatch++;
		}
	}
	pthread_mutex_unlock(&j->mu);
}

/* Return 1 if name is one of the per-directory ignore files. */
static int
journal_ignore_file(const char *name)
{
	return strcmp(name, ".gitignore") == 0 ||
	    strcmp(name, ".clawsshignore") == 0;
}

/* Handle an event on a watched directory itself (no name). */
static void
journal_event_self(struct journal *j, struct journal_watch *w,
    const struct inotify_event *ev)
{
	struct journal_root	*root = w->root;

	if (ev->mask & IN_IGNORED) {
		if (*w->rel == '\0')
			journal_break(j, root, "the root was removed");
		/*
		 * The kernel dropped it.  libinotifytools 3.22 cannot forget
		 * it (its remove fails, loudly), so its record stays: see
		 * journal_watch_dir.
		 */
		free(w->rel);
		memmove(w, w + 1, (size_t)(&j->w[j->nw] - (w + 1)) *
		    sizeof(*w));
		j->nw--;
		return;
	}
	if (*w->rel == '\0' && (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF |
	    IN_UNMOUNT)))
		journal_break(j, root, "the root was moved, removed or "
		    "unmounted");
}

/* Handle one event (reader thread). */
static void
journal_event(struct journal *j, const struct inotify_event *ev)
{
	struct journal_watch	*w;
	struct journal_root	*root;
	char			*rel;
	int			 is_dir = (ev->mask & IN_ISDIR) != 0;

	if (ev->mask & IN_Q_OVERFLOW) {
		journal_mark_all(j, "inotify event queue overflowed", 1);
		return;
	}
	if ((w = journal_watch_find(j, ev->wd)) == NULL)
		return;		/* a watch removed since */
	if (ev->len == 0 || ev->name[0] == '\0') {
		journal_event_self(j, w, ev);
		return;
	}
	root = w->root;
	rel = journal_join(w->rel, ev->name);
	if (root->ig != NULL && ignore_match(root->ig, rel, is_dir)) {
		free(rel);
		return;
	}
	if (journal_ignore_file(ev->name)) {
		pthread_mutex_lock(&j->mu);
		journal_mark(root, "an ignore file changed");
		pthread_mutex_unlock(&j->mu);
	}
	/* A removed directory's watches go by IN_IGNORED. */
	if (is_dir && (ev->mask & IN_MOVED_FROM))
		journal_unwatch(j, root, rel, 0);
	if (is_dir && (ev->mask & (IN_CREATE | IN_MOVED_TO)))
		journal_walk_file(j, root, rel, JOURNAL_WALK_REPORT);
	else
		journal_dirty(j, root, rel);
	free(rel);
}

/* Walk again every root that lost events (reader thread). */
static void
journal_rewatch_pending(struct journal *j)
{
	size_t	i;

	for (i = 0; j->nrewatch != 0 && i < j->nroots; i++) {
		if (j->roots[i]->rewatch)
			journal_rewatch(j, j->roots[i]);
	}
	j->nrewatch = 0;
}

/* Return 1 if paths a and b are equal or one lies below the other. */
static int
journal_overlap(const char *a, const char *b)
{
	size_t	la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;

	if (strncmp(a, b, n) != 0)
		return 0;
	if (la == lb)
		return 1;
	if (n == 1 && a[0] == '/')
		return 1;	/* "/" holds everything */
	return (la > lb ? a[n] : b[n]) == '/';
}

/* Free a root and its set (unlinked, no watches left). */
static void
journal_root_free(struct journal_root *root)
{
	journal_set_clear(&root->dirty);
	free(root->path);
	free(root);
}

/* Return the root of handle, or NULL. */
static struct journal_root *
journal_find(const struct journal *j, int handle)
{
	size_t	i;

	for (i = 0; i < j->nroots; i++) {
		if (j->roots[i]->handle == handle)
			return j->roots[i];
	}
	return NULL;
}

/* Serve an add request: a new root, walked and watched. */
static void
journal_serve_add(struct journal *j, struct journal_req *q)
{
	struct journal_root	*root;
	size_t			 i;

	for (i = 0; i < j->nroots; i++) {
		if (journal_overlap(j->roots[i]->path, q->path)) {
			q->r = claw_fail(&q->cause, CLAW_ERR_EXISTS, "journal: "
			    "%s overlaps %s, already watched", q->path,
			    j->roots[i]->path);
			return;
		}
	}
	root = xcalloc(1, sizeof(*root));
	root->path = xstrdup(q->path);
	root->ig = q->ig;
	root->handle = ++j->next_handle;
	root->why = "the journal just started";
	pthread_mutex_lock(&j->mu);
	j->roots = xreallocarray(j->roots, j->nroots + 1, sizeof(*j->roots));
	j->roots[j->nroots++] = root;
	pthread_mutex_unlock(&j->mu);
	journal_walk_file(j, root, "", JOURNAL_WALK_QUIET);
	if (root->broken != NULL && root->broken != journal_why_limit &&
	    root->broken != journal_why_deep) {
		q->r = claw_fail(&q->cause, CLAW_ERR_IO, "journal: %s: %s",
		    q->path, root->broken);
		q->handle = root->handle;
		journal_serve_remove(j, q);
		q->handle = 0;
		return;
	}
	q->handle = root->handle;
}

/* Serve a remove request: drop the root's watches and the root. */
static void
journal_serve_remove(struct journal *j, struct journal_req *q)
{
	struct journal_root	*root;
	size_t			 i;

	if ((root = journal_find(j, q->handle)) == NULL)
		return;
	journal_unwatch(j, root, NULL, 0);
	pthread_mutex_lock(&j->mu);
	for (i = 0; i < j->nroots; i++) {
		if (j->roots[i] == root) {
			j->roots[i] = j->roots[--j->nroots];
			break;
		}
	}
	pthread_mutex_unlock(&j->mu);
	journal_root_free(root);
}

/* Serve a take request: hand the root's set over (takes mu). */
static void
journal_serve_take(struct journal *j, struct journal_req *q)
{
	struct journal_root	*root;

	pthread_mutex_lock(&j->mu);
	if ((root = journal_find(j, q->handle)) == NULL) {
		pthread_mutex_unlock(&j->mu);
		q->r = claw_fail(&q->cause, CLAW_ERR_NOTFOUND,
		    "journal: no root with handle %d", q->handle);
		return;
	}
	if (root->broken == journal_why_limit) {
		/* Try again: this take stays full, the next may not. */
		root->broken = NULL;
		journal_mark(root, journal_why_limit);
		pthread_mutex_unlock(&j->mu);
		journal_rewatch(j, root);
		pthread_mutex_lock(&j->mu);
	}
	journal_set_uniq(&root->dirty);
	q->paths = root->dirty.v;
	q->n = root->dirty.n;
	q->why = root->broken != NULL ? root->broken : root->why;
	memset(&root->dirty, 0, sizeof(root->dirty));
	root->why = NULL;
	root->toomany = 0;
	pthread_mutex_unlock(&j->mu);
}

/*
 * The sentinel came round: every event queued before the requests were
 * posted has been handled.  Serve them all; return 1 if told to stop.
 */
static int
journal_serve(struct journal *j)
{
	struct journal_req	*q, *next;
	int			 stop = 0;

	pthread_mutex_lock(&j->mu);
	q = j->reqs;
	j->reqs = NULL;
	pthread_mutex_unlock(&j->mu);
	for (; q != NULL; q = next) {
		next = q->next;
		if (q->kind == JOURNAL_REQ_ADD)
			journal_serve_add(j, q);
		else if (q->kind == JOURNAL_REQ_REMOVE)
			journal_serve_remove(j, q);
		else if (q->kind == JOURNAL_REQ_TAKE)
			journal_serve_take(j, q);
		else
			stop = 1;
		pthread_mutex_lock(&j->mu);
		q->done = 1;
		pthread_cond_broadcast(&j->cv);
		pthread_mutex_unlock(&j->mu);
	}
	return stop;
}

/* The reader thread: handle events until a stop request is served. */
static void *
journal_reader(void *arg)
{
	struct journal		*j = arg;
	struct inotify_event	*ev;
	struct timespec		 pause = { 0, 100000000L };

	for (;;) {
		if ((ev = inotifytools_next_event(-1)) == NULL) {
			if (inotifytools_error() == EINTR)
				continue;
			journal_mark_all(j, "reading inotify events failed",
			    1);
			nanosleep(&pause, NULL);
			continue;
		}
		if (ev->wd == j->sentinel_wd) {
			if ((ev->mask & IN_ATTRIB) && journal_serve(j))
				return NULL;
			continue;
		}
		journal_event(j, ev);
		journal_rewatch_pending(j);
	}
}

/*
 * Post request q to the reader and wait until it is served: touch the
 * sentinel directory, whose event comes after every event queued so far.
 */
static int
journal_request(struct journal *j, struct journal_req *q)
{
	struct timespec	ts;
	int		r = 0;

	pthread_mutex_lock(&j->mu);
	q->next = j->reqs;
	j->reqs = q;
	pthread_mutex_unlock(&j->mu);
	if (futimens(j->sentinel_fd, NULL) != 0)
		return claw_fail_errno(&q->cause, j->sentinel, "futimens");
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += JOURNAL_WAIT_S;
	pthread_mutex_lock(&j->mu);
	while (!q->done && r == 0)
		r = pthread_cond_timedwait(&j->cv, &j->mu, &ts);
	if (!q->done)
		r = claw_fail(&q->cause, CLAW_ERR_TIMEOUT, "journal: the "
		    "reader did not answer in %d seconds", JOURNAL_WAIT_S);
	pthread_mutex_unlock(&j->mu);
	return r == 0 ? q->r : r;
}

/* Initialise the locks of j; the condition variable uses CLOCK_MONOTONIC. */
static void
journal_init_locks(struct journal *j)
{
	pthread_condattr_t	ca;

	pthread_mutex_init(&j->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->cv, &ca);
	pthread_condattr_destroy(&ca);
}

/* Make and watch the sentinel directory (journal_single held). */
static int
journal_sentinel(struct journal *j, char **cause)
{
	const char	*tmp;

	if ((tmp = getenv("TMPDIR")) == NULL || tmp[0] != '/')
		tmp = "/tmp";
	j->sentinel = xasprintf("%s/clawssh-journal.XXXXXX", tmp);
	if (mkdtemp(j->sentinel) == NULL)
		return claw_fail_errno(cause, j->sentinel, "mkdtemp");
	j->sentinel_fd = open(j->sentinel, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC);
	if (j->sentinel_fd == -1)
		return claw_fail_errno(cause, j->sentinel, "open");
	if (inotifytools_watch_file(j->sentinel, IN_ATTRIB | IN_ONLYDIR) == 0 ||
	    (j->sentinel_wd = journal_wd(j->sentinel)) < 0)
		return claw_fail(cause, CLAW_ERR_IO, "journal: %s: cannot "
		    "watch: %s", j->sentinel, strerror(inotifytools_error()));
	j->max_wd = j->sentinel_wd;
	return 0;
}

/* Undo journal_new's work (journal_single held). */
static void
journal_teardown(struct journal *j)
{
	if (j->sentinel_fd != -1)
		close(j->sentinel_fd);
	if (j->sentinel != NULL)
		rmdir(j->sentinel);
	free(j->sentinel);
	inotifytools_cleanup();
	pthread_cond_destroy(&j->cv);
	pthread_mutex_destroy(&j->mu);
	free(j);
}

/* Start the journal; see journal.h. */
int
journal_new(struct journal **out, char **cause)
{
	struct journal	*j;
	sigset_t	 all, old;
	int		 r;

	pthread_mutex_lock(&journal_single);
	if (journal_exists) {
		pthread_mutex_unlock(&journal_single);
		return claw_fail(cause, CLAW_ERR_EXISTS, "journal: this "
		    "process has one already (libinotifytools is global)");
	}
	if (inotifytools_initialize() == 0) {
		r = inotifytools_error();
		pthread_mutex_unlock(&journal_single);
		return claw_fail(cause, claw_err_from_errno(r),
		    "journal: inotify: %s", strerror(r));
	}
	j = xcalloc(1, sizeof(*j));
	j->sentinel_fd = -1;
	journal_init_locks(j);
	if ((r = journal_sentinel(j, cause)) != 0)
		goto fail;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&j->thread, NULL, journal_reader, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0) {
		r = claw_fail(cause, claw_err_from_errno(r),
		    "journal: pthread_create: %s", strerror(r));
		goto fail;
	}
	journal_exists = 1;
	pthread_mutex_unlock(&journal_single);
	*out = j;
	return 0;
fail:
	journal_teardown(j);
	pthread_mutex_unlock(&journal_single);
	return r;
}

/* Stop the reader and free everything; see journal.h. */
void
journal_free(struct journal *j)
{
	struct journal_req	q;
	size_t			i;

	if (j == NULL)
		return;
	memset(&q, 0, sizeof(q));
	q.kind = JOURNAL_REQ_STOP;
	if (journal_request(j, &q) != 0) {
		/* A reader that cannot be stopped keeps the journal. */
		log_warn("%s", q.cause);
		free(q.cause);
		return;
	}
	pthread_join(j->thread, NULL);
	for (i = 0; i < j->nroots; i++)
		journal_root_free(j->roots[i]);
	free(j->roots);
	for (i = 0; i < j->nw; i++)
		free(j->w[i].rel);
	free(j->w);
	pthread_mutex_lock(&journal_single);
	journal_teardown(j);
	journal_exists = 0;
	pthread_mutex_unlock(&journal_single);
}

/* Start watching a root; see journal.h. */
int
journal_add(struct journal *j, const char *path, const struct ignore *ign,
    int *handle, char **cause)
{
	struct journal_req	q;
	struct stat		st;
	char			real[PATH_MAX];
	int			r;

	if (realpath(path, real) == NULL)
		return claw_fail_errno(cause, path, "realpath");
	if (stat(real, &st) != 0)
		return claw_fail_errno(cause, path, "stat");
	if (!S_ISDIR(st.st_mode))
		return claw_fail(cause, CLAW_ERR_INVAL, "journal: %s: not a "
		    "directory", path);
	memset(&q, 0, sizeof(q));
	q.kind = JOURNAL_REQ_ADD;
	q.path = real;
	q.ig = ign;
	if ((r = journal_request(j, &q)) != 0) {
		if (cause != NULL)
			*cause = q.cause;
		else
			free(q.cause);
		return r;
	}
	*handle = q.handle;
	return 0;
}

/* Stop watching a root; see journal.h. */
void
journal_remove(struct journal *j, int handle)
{
	struct journal_req	q;

	memset(&q, 0, sizeof(q));
	q.kind = JOURNAL_REQ_REMOVE;
	q.handle = handle;
	if (journal_request(j, &q) != 0) {
		log_warn("%s", q.cause);
		free(q.cause);
	}
}

/* Hand over a root's set; see journal.h. */
int
journal_take(struct journal *j, int handle, char ***paths, size_t *n,
    int *full, const char **why, char **cause)
{
	struct journal_req	q;
	int			r;

	memset(&q, 0, sizeof(q));
	q.kind = JOURNAL_REQ_TAKE;
	q.handle = handle;
	if ((r = journal_request(j, &q)) != 0) {
		if (cause != NULL)
			*cause = q.cause;
		else
			free(q.cause);
		return r;
	}
	*paths = q.paths;
	*n = q.n;
	*full = q.why != NULL;
	*why = q.why;
	return 0;
}

/* Cap the watches, for tests; see journal.h. */
void
journal_set_watch_cap(struct journal *j, size_t cap)
{
	pthread_mutex_lock(&j->mu);
	j->watch_cap = cap;
	pthread_mutex_unlock(&j->mu);
}
