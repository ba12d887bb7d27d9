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
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "manifest.h"
#include "mirror.h"
#include "mirror_int.h"
#include "syncstate.h"
#include "xmalloc.h"

/*
 * Sort one local entry e against the sandbox's r (NULL: it has none)
 * into old, the state the push compares now with.  The same on both
 * sides: nothing moves.  Only here: left out of old, so it is sent.
 * Different: the sandbox's file is saved here beside it first
 * (NAME.clawssh-remote), then the sandbox's entry goes into old, so the
 * local one is sent over it; but a directory in the sandbox where a
 * file or link is here is not replaced (nothing in it would be saved):
 * e goes into old and into m->heal_keep, both kept (mirror_heal_keep).
 */
static void
mirror_heal_one(struct mirror *m, const struct manifest_entry *e,
    const struct manifest_entry *r, struct manifest *old)
{
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
mirror_heal_old(struct mirror *m, const struct manifest *now,
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
