/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The daemon's change journals for mirror-mode workspaces.  A clawssh
 * command syncing a workspace asks (JTAKE) for the paths changed there
 * since its sandbox's last sync and scans only those.  One journal
 * (sync/journal.c) watches every root; each root keeps a set per consumer
 * (sandbox), since two sandboxes may mirror one workspace.  A set taken is
 * held for its client until JACK says it was synced; a client that leaves
 * before gives it back, so a failed sync never loses a change.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "daemon_int.h"
#include "error.h"
#include "ignore.h"
#include "journal.h"
#include "log.h"
#include "manifest.h"
#include "mux_proto.h"
#include "xmalloc.h"

#define DJ_ROOTS_MAX	32	/* workspaces watched at once */

/* One sandbox syncing a root. */
struct djconsumer {
	TAILQ_ENTRY(djconsumer)	 entry;
	char			*name;
	struct djtrack		 t;		/* its changes, held until JACK */
};
TAILQ_HEAD(djconsumer_list, djconsumer);

/* One watched workspace. */
struct djroot {
	TAILQ_ENTRY(djroot)	 entry;
	char			*path;		/* real path */
	char			*excl;		/* exclude patterns, as sent */
	size_t			 excl_len;
	struct ignore		*ig;
	int			 handle;
	struct djconsumer_list	 consumers;
	int64_t			 used;		/* last take, for eviction */
};
TAILQ_HEAD(djroot_list, djroot);

struct djournal {
	struct journal		*j;
	char			*broken;	/* the journal could not start */
	int			 broken_err;	/* and journal_new's code */
	struct djroot_list	 roots;
	int			 nroots;
};

/* Free a consumer. */
static void
djconsumer_free(struct djconsumer *c)
{
	djtrack_clear(&c->t);
	free(c->name);
	free(c);
}

/* Stop watching r and free it. */
static void
djroot_free(struct djournal *dj, struct djroot *r)
{
	struct djconsumer	*c;

	while ((c = TAILQ_FIRST(&r->consumers)) != NULL) {
		TAILQ_REMOVE(&r->consumers, c, entry);
		djconsumer_free(c);
	}
	if (r->handle > 0)
		journal_remove(dj->j, r->handle);
	ignore_free(r->ig);
	free(r->path);
	free(r->excl);
	free(r);
}

/*
 * (Re)start watching r: fresh ignore rules (loaded by a walk, as the
 * journal needs them), the watches, and a take that drops the "just
 * started" set, since whoever asked scans everything now anyway.
 */
static int
djroot_watch(struct djournal *dj, struct djroot *r, char **cause)
{
	struct manifest	 *m = NULL;
	const char	**pat = NULL;
	const char	 *why, *p;
	char		**paths = NULL;
	size_t		  n = 0, np = 0;
	int		  fd, rc, full;

	if (r->handle > 0)
		journal_remove(dj->j, r->handle);
	r->handle = 0;
	ignore_free(r->ig);
	r->ig = NULL;
	for (p = r->excl; p < r->excl + r->excl_len; p += strlen(p) + 1) {
		pat = xreallocarray(pat, np + 1, sizeof(*pat));
		pat[np++] = p;
	}
	rc = ignore_new(pat, np, &r->ig, cause);
	free(pat);
	if (rc != 0)
		return rc;
	ignore_set_user_only(r->ig, 1);	/* watch what the pull may bring */
	if ((fd = open(r->path, O_RDONLY|O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC)) ==
	    -1)
		return claw_fail_errno(cause, r->path, "open");
	rc = manifest_scan(fd, NULL, ignore_skip_cb, r->ig, 0, &m, cause);
	close(fd);
	manifest_free(m);
	if (rc == 0)
		rc = journal_add(dj->j, r->path, r->ig, &r->handle, cause);
	if (rc == 0)
		rc = journal_take(dj->j, r->handle, &paths, &n, &full, &why,
		    cause);
	journal_paths_free(paths, n);
	return rc;
}

/* Find the root at path; NULL if none. */
static struct djroot *
djroot_find(struct djournal *dj, const char *path)
{
	struct djroot	*r;

	TAILQ_FOREACH(r, &dj->roots, entry) {
		if (strcmp(r->path, path) == 0)
			return r;
	}
	return NULL;
}

/* Return 1 if a client holds a set of r. */
static int
djroot_held(const struct djroot *r)
{
	const struct djconsumer	*c;

	TAILQ_FOREACH(c, &r->consumers, entry) {
		if (c->t.holder != NULL)
			return 1;
	}
	return 0;
}

/*
 * Stop watching the least recently used root nobody holds, to make room
 * (its next sync scans).  0, or CLAW_ERR_RANGE if all are held.
 */
static int
djroot_evict(struct djournal *dj)
{
	struct djroot	*r, *lru = NULL;

	TAILQ_FOREACH(r, &dj->roots, entry) {
		if (!djroot_held(r) && (lru == NULL || r->used < lru->used))
			lru = r;
	}
	if (lru == NULL)
		return CLAW_ERR_RANGE;
	log_info("change journal: no longer watching %s, to make room",
	    lru->path);
	TAILQ_REMOVE(&dj->roots, lru, entry);
	dj->nroots--;
	djroot_free(dj, lru);
	return 0;
}

/* The root for path with these excludes, made if needed; NULL: *why. */
static struct djroot *
djroot_get(struct djournal *dj, const char *path, const char *excl,
    size_t excl_len, char **why)
{
	struct djroot	*r;
	char		*cause = NULL;

	if ((r = djroot_find(dj, path)) != NULL && (r->excl_len != excl_len ||
	    memcmp(r->excl, excl, excl_len) != 0)) {
		TAILQ_REMOVE(&dj->roots, r, entry);
		dj->nroots--;
		djroot_free(dj, r);
		r = NULL;
	}
	if (r != NULL)
		return r;
	if (dj->nroots >= DJ_ROOTS_MAX && djroot_evict(dj) != 0) {
		*why = xasprintf("the daemon already watches %d workspaces, "
		    "all busy", DJ_ROOTS_MAX);
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->path = xstrdup(path);
	r->excl = xmalloc(excl_len + 1);
	memcpy(r->excl, excl, excl_len);
	r->excl_len = excl_len;
	TAILQ_INIT(&r->consumers);
	if (djroot_watch(dj, r, &cause) != 0) {
		*why = xasprintf("the change journal cannot watch %s: %s",
		    path, cause);
		free(cause);
		djroot_free(dj, r);
		return NULL;
	}
	TAILQ_INSERT_TAIL(&dj->roots, r, entry);
	dj->nroots++;
	log_info("change journal: watching %s", path);
	return r;
}

/*
 * Take the journal's news and give every consumer of r its share: 0, or
 * journal_take's or djroot_watch's code with *why.
 */
static int
djroot_collect(struct djournal *dj, struct djroot *r, char **why)
{
	struct djconsumer	 *c;
	const char		 *jwhy;
	char			**paths = NULL, *cause = NULL;
	size_t			  n = 0, i;
	int			  full = 0, rc;

	if ((rc = journal_take(dj->j, r->handle, &paths, &n, &full, &jwhy,
	    &cause)) != 0) {
		*why = cause;
		return rc;
	}
	TAILQ_FOREACH(c, &r->consumers, entry) {
		for (i = 0; i < n; i++)
			djset_add(&c->t.pending, paths[i]);
		if (full)
			djset_full(&c->t.pending, jwhy);
	}
	journal_paths_free(paths, n);
	if (full && (rc = djroot_watch(dj, r, &cause)) != 0) {
		*why = cause;
		return rc;
	}
	return 0;
}

/* Find or make r's consumer name (a new one needs a full scan). */
static struct djconsumer *
djconsumer_get(struct djroot *r, const char *name)
{
	struct djconsumer	*c;

	TAILQ_FOREACH(c, &r->consumers, entry) {
		if (strcmp(c->name, name) == 0)
			return c;
	}
	c = xcalloc(1, sizeof(*c));
	c->name = xstrdup(name);
	djset_full(&c->t.pending, "first sync of this sandbox through the "
	    "daemon's change journal");
	TAILQ_INSERT_TAIL(&r->consumers, c, entry);
	return c;
}

/* Answer F and why. */
static void
djournal_full(struct dclient *cl, const char *why)
{
	djset_answer_why(cl, MUX_JPATHS, why);
}

/*
 * Start the journal on first use; 0, or journal_new's code (this time
 * and every later one) with dj->broken.
 */
static int
djournal_start(struct daemon *d)
{
	struct djournal	*dj;
	char		*cause = NULL;

	if (d->journal != NULL)
		return d->journal->j != NULL ? 0 : d->journal->broken_err;
	dj = d->journal = xcalloc(1, sizeof(*dj));
	TAILQ_INIT(&dj->roots);
	if ((dj->broken_err = journal_new(&dj->j, &cause)) != 0) {
		dj->broken = xasprintf("the change journal cannot start: %s",
		    cause);
		log_warn("%s", dj->broken);
		free(cause);
		return dj->broken_err;
	}
	return 0;
}

/* JTAKE: answer the consumer's dirty set; see mux_proto.h. */
void
djournal_take(struct dclient *cl, const struct mux_frame *f)
{
	struct djroot		*r;
	struct djconsumer	*c;
	const char		*root, *name, *end = f->payload + f->len;
	char			*real, *why = NULL;

	if (f->len == 0 || f->payload[f->len - 1] != '\0' ||
	    (name = memchr(f->payload, '\0', f->len)) == NULL ||
	    ++name >= end) {
		djournal_full(cl, "malformed journal request");
		return;
	}
	root = f->payload;
	if (djournal_start(cl->d) != 0) {
		djournal_full(cl, cl->d->journal->broken);
		return;
	}
	if (root[0] != '/' || (real = realpath(root, NULL)) == NULL) {
		djournal_full(cl, "the workspace path cannot be resolved");
		return;
	}
	end = name + strlen(name) + 1;
	r = djroot_get(cl->d->journal, real, end, (size_t)(f->payload +
	    f->len - end), &why);
	free(real);
	if (r != NULL && djroot_collect(cl->d->journal, r, &why) != 0) {
		TAILQ_REMOVE(&cl->d->journal->roots, r, entry);
		cl->d->journal->nroots--;
		djroot_free(cl->d->journal, r);
		r = NULL;
	}
	if (r == NULL) {
		djournal_full(cl, why);
		free(why);
		return;
	}
	r->used = clock_now_ms();
	c = djconsumer_get(r, name);
	if (c->t.holder != NULL && c->t.holder != cl) {
		djournal_full(cl, "another sync of this sandbox is running");
		return;
	}
	djtrack_give(&c->t, cl, MUX_JPATHS);
}

/* JACK, or the client leaving: settle what it held. */
static void
djournal_settle(struct daemon *d, struct dclient *cl, int synced)
{
	struct djroot		*r;
	struct djconsumer	*c;

	if (d->journal == NULL)
		return;
	TAILQ_FOREACH(r, &d->journal->roots, entry) {
		TAILQ_FOREACH(c, &r->consumers, entry)
			djtrack_settle(&c->t, cl, synced);
	}
}

/* JACK: what the client took was synced. */
void
djournal_ack(struct dclient *cl)
{
	djournal_settle(cl->d, cl, 1);
}

/* The client left: what it took and did not sync goes back. */
void
djournal_gone(struct dclient *cl)
{
	djournal_settle(cl->d, cl, 0);
}

/* Stop every journal. */
void
djournal_free(struct daemon *d)
{
	struct djournal	*dj = d->journal;
	struct djroot	*r;

	if (dj == NULL)
		return;
	while ((r = TAILQ_FIRST(&dj->roots)) != NULL) {
		TAILQ_REMOVE(&dj->roots, r, entry);
		djroot_free(dj, r);
	}
	journal_free(dj->j);
	free(dj->broken);
	free(dj);
	d->journal = NULL;
}
