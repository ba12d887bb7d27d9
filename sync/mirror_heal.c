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

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "exec.h"
#include "hostws.h"
#include "log.h"
#include "manifest.h"
#include "mirror.h"
#include "mirror_int.h"
#include "shquote.h"
#include "syncstate.h"
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
	char		*q, *body, *script, *why = NULL, hex[3];
	size_t		 i;
	int		 status = 1, same;

	if (e->type != MANIFEST_FILE || r->type != MANIFEST_FILE ||
	    !e->have_hash || e->size != r->size)
		return 0;
	q = shquote(r->path);
	body = xasprintf("exec sha256sum -- ./%s", q);
	script = hostws_script(&m->hw, body);
	same = exec_script(m->t, script, NULL, 0, HEAL_HASH_MAX, &o, &err,
	    &status, &why) == 0 && status == 0 && o.len >= 64;
	for (i = 0; same && i < MANIFEST_HASH_LEN; i++) {
		snprintf(hex, sizeof(hex), "%02x", e->hash[i]);
		same = memcmp(o.data + 2 * i, hex, 2) == 0;
	}
	free(why);
	free(script);
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
 * local one is sent over it; but a directory in the sandbox where a
 * file or link is here is not replaced (nothing in it would be saved):
 * e goes into old and into m->heal_keep, both kept (mirror_heal_keep).
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
	if (r->type == MANIFEST_DIR && e->type != MANIFEST_DIR) {
		log_warn("conflict: %s is a directory in the sandbox but not "
		    "here; both kept as they are", e->path);
		m->conflicts++;
		manifest_add_copy(old, e);
		manifest_add_copy(m->heal_keep, e);
		return;
	}
	if (r->type == MANIFEST_FILE)
		mirror_conflict(m, r);
	else
		log_warn("conflict: %s differs here and in the sandbox; kept "
		    "the local one", e->path);
	manifest_add_copy(old, r);
}

/* See mirror_int.h. */
int
mirror_heal_old(struct mirror *m, struct manifest *now,
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
	m->healing = 1;
	manifest_free(m->heal_keep);
	m->heal_keep = manifest_new();
	o = manifest_new();
	for (i = 0; i < now->n; i++)
		mirror_heal_one(m, &now->e[i], manifest_find(remote,
		    now->e[i].path), o);
	log_info("sync state rebuilt: %zu entries here, %zu in the "
	    "sandbox, %zu the same on both sides", now->n, remote->n, o->n);
	manifest_free(remote);
	*old = o;
	return 0;
}

/* See mirror_int.h. */
void
mirror_heal_keep(struct mirror *m, struct manifest *base)
{
	struct manifest_entry	*e;
	size_t			 i;

	for (i = 0; m->heal_keep != NULL && i < m->heal_keep->n; i++) {
		if ((e = (struct manifest_entry *)(uintptr_t)manifest_find(
		    base, m->heal_keep->e[i].path)) == NULL)
			continue;
		/* like nothing either side has: both look changed */
		if (e->type == MANIFEST_LINK) {
			free(e->link);
			e->link = xstrdup("\n");	/* no link's target */
		}
		e->have_hash = 1;
		memset(e->hash, 0xff, sizeof(e->hash));
		e->size = UINT64_MAX;
		e->mtime_sec = 0;
		e->mtime_nsec = 0;
	}
}
