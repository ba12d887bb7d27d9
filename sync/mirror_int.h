/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside mirror mode: what sync/mirror.c shares with sync/mirror_remote.c,
 * which finds what changed in the sandbox workspace.
 */
#ifndef CLAW_MIRROR_INT_H
#define CLAW_MIRROR_INT_H

#include "buf.h"

struct buf;
struct manifest;
struct mirror;

/* Return 1 if path lies strictly under the directory dir ("" never). */
int	mirror_under(const char *path, const char *dir);

/*
 * Return 1 if path can travel: names pathguard refuses (control
 * characters, over-long ones) stay where they are, with a warning.
 */
int	mirror_syncable(const char *path);

/* What the daemon's watcher on the host saw change. */
struct mirror_rch {
	struct buf	  rep;		/* its answer */
	char		**v;		/* the changed paths, sorted, in rep */
	size_t		  n;
	struct manifest	 *part;		/* what is at and below them now,
					   ignored paths left out */
};

/*
 * Ask the watcher (0, with *ch filled: free it with mirror_rch_free), or
 * 1 when only a whole listing can tell (-v says why).
 */
int	mirror_remote_changes(struct mirror *m, struct mirror_rch *ch);
void	mirror_rch_free(struct mirror_rch *ch);

/*
 * base (a whole state or a view over paths including ch's) with ch's
 * changes: a new manifest, or NULL (logged) if that is not a well formed
 * tree (the watcher missed a change).
 */
struct manifest *mirror_remote_apply(const struct manifest *base,
	    const struct mirror_rch *ch);

/*
 * The sandbox workspace now, as base (the last synced state) changed by
 * the paths the daemon's watcher on the host saw change, listed alone;
 * or, without a daemon or when the watcher cannot say (-v tells why), a
 * listing of the whole workspace.  Ignored paths are left out.
 */
int	mirror_remote_now(struct mirror *m, const struct manifest *base,
	    struct manifest **out, char **cause);
/* A listing of the whole sandbox workspace, ignored paths left out. */
int	mirror_remote_full(struct mirror *m, struct manifest **out,
	    char **cause);

/*
 * Ask the daemon, through m->hints, for kind with req and wait up to
 * timeout_ms: 0 with "P" and the paths (or, for the watcher, "L", the
 * paths and a listing) in rep from *at, and an ack owed; 1 when only a
 * whole scan or listing can tell, logged with -v as "what: why:
 * fallback".
 */
int	mirror_take(struct mirror *m, const struct buf *req,
	    enum mirror_take_kind kind, int timeout_ms, const char *what,
	    const char *fallback, struct buf *rep, size_t *at);

/*
 * The paths of a take's answer in rep from at (mirror_take), sorted, as
 * pointers into rep (free only the array); *n of them.  For an "L" answer
 * they end at an empty one and *list is the offset of the listing after
 * it (rep->len + 1 if that end is missing); otherwise *list is rep->len.
 */
char	**mirror_take_paths(const struct buf *rep, size_t at, size_t *n,
	    size_t *list);

/*
 * Scan the local workspace whole (ignore rules, hashes reused).  prev is
 * taken as synced: a path in it (or one this pull wrote, m->touched,
 * sorted) goes on being mirrored though a .gitignore matches it.
 */
int	mirror_scan(struct mirror *m, const struct manifest *prev,
	    struct manifest **out, char **cause);
/* Update prev by the paths v[0..n) as mirror_scan would see them. */
int	mirror_rescan(struct mirror *m, const struct manifest *prev,
	    char *const *v, size_t n, struct manifest **out, char **cause);

/*
 * Ask the daemon's change journal for the paths changed here since the
 * last take: 0 with the paths in *rep (from *at), or 1 when only a scan
 * can tell (why logged with -v).
 */
int	mirror_journal_take(struct mirror *m, struct buf *rep, size_t *at);

/* Tell the daemon that what this command took is synced. */
void	mirror_journal_ack(struct mirror *m);

/*
 * Keep old's mtime on the files of now whose content did not change (a
 * touch does not travel), except on the sorted skip[0..nskip).
 */
void	mirror_keep_times(struct manifest *now, const struct manifest *old,
	    char *const *skip, size_t nskip);

/* Return 1 if two entries describe the same thing. */
int	mirror_same(const struct manifest_entry *a,
	    const struct manifest_entry *b);

/* Save the host's version of a conflicting file beside the local one. */
void	mirror_conflict(struct mirror *m, const struct manifest_entry *remote);

/*
 * The state is damaged (syncstate_damaged): from *now, the local tree, and
 * a whole listing of the sandbox's, the state for the push to compare now
 * with (in *old), so that it sends what only this side has and what
 * differs (the sandbox's file saved here beside it first), and deletes
 * nothing (a file of the same content at another time gets the
 * host's time in *now, as mirror_keep_times would; the copies saved here
 * are added to *now, so they go up too).  CLAW_ERR_EXISTS,
 * with nothing changed, when the sandbox has a directory where a file
 * or link is here.  Sets m->healing: the pull then lists the sandbox whole and
 * takes what only it has.  Logs one line (more with -v).
 */
int	mirror_heal_old(struct mirror *m, struct manifest **now,
	    struct manifest **old, char **cause);

/* Stage the push's view (m->base over m->scope) in m->st, once. */
void	mirror_stage_base(struct mirror *m);

#endif /* CLAW_MIRROR_INT_H */
