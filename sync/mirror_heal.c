/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Mirror mode over a damaged sync state (syncstate_damaged): the last
 * synced state is not known for some paths, so a difference between it
 * and either side cannot be taken as a change.  Instead the local tree
 * is compared with a whole listing of the sandbox's, and nothing either
 * side has is deleted or overwritten without a copy: see docs/sync.md,
 * "When the state is damaged".
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "exec.h"
#include "hostws.h"
#include "log.h"
#include "manifest.h"
#include "mirror.h"
#include "mirror_int.h"
#include "shquote.h"
#include "strv.h"
#include "syncstate.h"
#include "transfer.h"
#include "xmalloc.h"

#define HEAL_HASH_MAX	4096	/* the answer of one sha256sum */

/*
 * Whether the sandbox's file r holds the content of the local file e
 * (hashed): the same size, and sha256sum on the host says the same
 * hash.  A host that cannot say (no sha256sum, the file gone): no.
 */
static int
mirror_heal_same_content(struct mirror *m, const struct manifest_entry *e,
    const struct manifest_entry *r)
{
	struct buf	 o = BUF_INIT, err = BUF_INIT;
	char		*q, *body, *why = NULL, hex[3];
	size_t		 i;
	int		 status = 1, same;

	if (e->type != MANIFEST_FILE || r->type != MANIFEST_FILE ||
	    !e->have_hash || e->size != r->size)
		return 0;
	q = shquote(r->path);
	body = xasprintf("exec sha256sum -- ./%s", q);
	same = hostws_capture(m->t, &m->hw, body, NULL, 0, HEAL_HASH_MAX, &o,
	    &err, &status, &why) == 0 && status == 0 && o.len >= 64;
	for (i = 0; same && i < MANIFEST_HASH_LEN; i++) {
		snprintf(hex, sizeof(hex), "%02x", e->hash[i]);
		same = memcmp(o.data + 2 * i, hex, 2) == 0;
	}
	free(why);
	free(body);
	free(q);
	buf_free(&o);
	buf_free(&err);
	return same;
}

/*
 * Sort one local entry e against the sandbox's r (NULL: it has none)
 * into old, the state the push compares now with.  The same on both
 * sides: nothing moves.  Only here: left out of old, so it is sent.
 * The same content at another time (a touch that did not travel) is the
 * same.  Different: the sandbox's file is saved here beside it first
 * (NAME.clawssh-remote), then the sandbox's entry goes into old, so the
 * local one is sent over it.  (A directory in the sandbox where a file
 * or link is here was refused before: mirror_heal_kinds.)
 */
static void
mirror_heal_one(struct mirror *m, struct manifest_entry *e,
    const struct manifest_entry *r, struct manifest *old)
{
	if (r != NULL && !mirror_same(e, r) &&
	    mirror_heal_same_content(m, e, r)) {
		/* a touch that did not travel: keep the host's time */
		e->mtime_sec = r->mtime_sec;
		e->mtime_nsec = r->mtime_nsec;
	}
	if (r != NULL && mirror_same(e, r)) {
		manifest_add_copy(old, e);
		return;
	}
	if (r == NULL) {
		log_info("sync state rebuilt: %s is only here: sending it",
		    e->path);
		return;
	}
	if (r->type == MANIFEST_FILE)
		mirror_conflict(m, r);
	else
		log_warn("conflict: %s differs here and in the sandbox; kept "
		    "the local one", e->path);
	manifest_add_copy(old, r);
}

/*
 * Refuse (CLAW_ERR_EXISTS, before anything moved) when the sandbox has a
 * directory where a file or link is here: neither can replace the other
 * without losing it, and no copy can hold a directory.
 */
static int
mirror_heal_kinds(const struct manifest *now, const struct manifest *remote,
    char **cause)
{
	const struct manifest_entry	*r;
	size_t				 i;

	for (i = 0; i < now->n; i++) {
		if (now->e[i].type == MANIFEST_DIR ||
		    (r = manifest_find(remote, now->e[i].path)) == NULL ||
		    r->type != MANIFEST_DIR)
			continue;
		*cause = xasprintf("sync state damaged, and %s is a directory "
		    "in the sandbox but not here: rename one of them (nothing "
		    "was changed; the next exec rebuilds the state)",
		    now->e[i].path);
		return CLAW_ERR_EXISTS;
	}
	return 0;
}

/*
 * Add the copies mirror_conflict saved here (m->touched) to *now, so that
 * this push sends them too (the next one would not look: the daemon's
 * journal gave their paths to this exec).
 */
static int
mirror_heal_copies(struct mirror *m, struct manifest **now, char **cause)
{
	struct manifest	*out = NULL;
	int		 rc;

	if (m->ntouched == 0)
		return 0;
	strv_uniq(m->touched, &m->ntouched, 1);
	if ((rc = mirror_rescan(m, *now, m->touched, m->ntouched, &out,
	    cause)) != 0)
		return rc;
	manifest_free(*now);
	*now = out;
	return 0;
}

/* See mirror_int.h. */
int
mirror_heal_old(struct mirror *m, struct manifest **now,
    struct manifest **old, char **cause)
{
	struct manifest	*remote = NULL, *o;
	size_t		 i;
	int		 rc;

	log_warn("sync state damaged (%s): rebuilding it from a full "
	    "comparison of both sides (nothing is deleted either way; a file "
	    "that differs is kept both ways)", syncstate_damaged(m->st));
	if ((rc = mirror_remote_full(m, &remote, cause)) != 0)
		return rc;
	if ((rc = mirror_heal_kinds(*now, remote, cause)) != 0) {
		manifest_free(remote);
		return rc;
	}
	m->healing = 1;
	o = manifest_new();
	for (i = 0; i < (*now)->n; i++)
		mirror_heal_one(m, &(*now)->e[i], manifest_find(remote,
		    (*now)->e[i].path), o);
	log_info("sync state rebuilt: %zu entries here, %zu in the "
	    "sandbox, %zu the same on both sides", (*now)->n, remote->n,
	    o->n);
	manifest_free(remote);
	*old = o;
	return mirror_heal_copies(m, now, cause);
}
