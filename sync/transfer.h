/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Moving workspace files over one exec channel as a tar stream.
 *
 * Uploads read the local workspace through pathguard and are unpacked by
 * the host's own tar.  Downloads are packed by the host's tar and unpacked
 * here by tarstream through pathguard, treating them as hostile.  Each
 * direction streams: a child process packs (or unpacks) the local side
 * while the channel carries the bytes, so nothing is held whole.
 */
#ifndef CLAW_TRANSFER_H
#define CLAW_TRANSFER_H

#include <stddef.h>

#include "host_sh.h"

#include "tarstream.h"

struct buf;
struct hostws;
struct ignore;
struct manifest;
struct manifest_entry;
struct pathguard;
struct transport;

/*
 * Scan the workspace of pg (no link followed) with the ignore rules ig:
 * manifest_scan from the workspace root, with prev and flags as there.
 */
int	transfer_scan(struct pathguard *pg, struct ignore *ig,
	    const struct manifest *prev, int flags, struct manifest **out,
	    char **cause);

/*
 * Update prev by a change journal's sorted paths[0..n) instead of a whole
 * scan: manifest_rescan from the workspace root, with the ignore rules ig.
 */
int	transfer_rescan(struct pathguard *pg, struct ignore *ig,
	    const struct manifest *prev, char *const *paths, size_t n,
	    int flags, struct manifest **out, char **cause);

#define TRANSFER_STAGE		0x1	/* a seed: see transfer_push */
#define TRANSFER_PUSH_GIT	0x2	/* .git travels (sync.pushGit) */

/*
 * Send paths[0..n) (relative to the workspace; n == 0 means the whole
 * workspace, as ".") into the sandbox's workspace hw, unpacked in its
 * jail.  With TRANSFER_STAGE in flags (a seed of a sandbox just made,
 * where no command has run yet) the files go to a fresh sibling
 * directory of hw->dir first, which then replaces it in one rename (the
 * host never sees a half-filled workspace).  .git stays here unless
 * flags has TRANSFER_PUSH_GIT.  exclude[0..nexclude) are extra ignore
 * patterns (config sync.exclude).  Returns 0 or a negative CLAW_ERR_*.
 */
int	transfer_push(struct transport *t, struct pathguard *pg,
	    const struct hostws *hw, char *const *paths, size_t n, int flags,
	    char *const *exclude, size_t nexclude, struct tarstream_stats *st,
	    char **cause);

/*
 * Append to out the directories above paths[0..n), sorted (parents
 * first), each once, a line each, then a line ".": what
 * TRANSFER_FIX_PARENTS reads on stdin before the tar stream.
 */
void	transfer_parents(char *const *paths, size_t n, struct buf *out);

/* sh reading transfer_parents' lines: src/host/transfer_fix_parents.sh. */
#define TRANSFER_FIX_PARENTS	HOST_SH_TRANSFER_FIX_PARENTS

/*
 * Send exactly the entries paths[0..n) (no scan, no ignore rules, no
 * recursion: a directory goes as the directory alone) into the workspace.
 */
int	transfer_push_list(struct transport *t, struct pathguard *pg,
	    const struct hostws *hw, char *const *paths, size_t n,
	    struct tarstream_stats *st, char **cause);

/*
 * Pack exactly the entries paths[0..n) as transfer_push_list would send
 * them, into out instead of onto a channel: CLAW_ERR_RANGE (nothing kept)
 * once the stream passes max bytes.
 */
int	transfer_pack_list(struct pathguard *pg, char *const *paths, size_t n,
	    size_t max, struct buf *out, struct tarstream_stats *st,
	    char **cause);

/*
 * Fetch paths[0..n) (n == 0: everything) from the sandbox's workspace hw
 * into the workspace of pg, within lim (NULL: defaults); only entries at
 * or below those paths are taken, never a .git.  Refused entries are
 * counted in st->refused.  Returns 0 or negative.  With hints not NULL,
 * *hints is the files written with their sizes, times and hashes (a
 * sorted manifest, or NULL: none known), for mirror_hints: the scan
 * after the pull need not read them again.
 */
int	transfer_pull(struct transport *t, struct pathguard *pg,
	    const struct hostws *hw, char *const *paths, size_t n,
	    const struct tarstream_limits *lim, struct tarstream_stats *st,
	    struct manifest **hints, char **cause);

/*
 * Fetch exactly the entries want[0..n) (n > 0; a directory comes without
 * its contents), as the host's listing described them: anything else the
 * stream holds is refused, and an entry that no longer matches (changed
 * or gone on the host since the listing) is left as it is here, counted
 * in st->changed or st->missing, for the next sync.  Needs a tar with
 * --no-recursion and -T (GNU, BusyBox).  hints as for transfer_pull (a
 * small pull, unpacked here in memory, brings none).
 */
int	transfer_pull_list(struct transport *t, struct pathguard *pg,
	    const struct hostws *hw, const struct manifest_entry *const *want,
	    size_t n, const struct tarstream_limits *lim,
	    struct tarstream_stats *st, struct manifest **hints,
	    char **cause);

/*
 * Where a push is staged on the host: a directory in the workspace's top
 * named this and 16 hex digits (a .clawssh-tmp- name, so never synced
 * either way), holding the tar's files (t/) and its lists, with its
 * lock beside it (the same name and ".lock").
 */
#define TRANSFER_STAGE_PREFIX	".clawssh-tmp-push."

/*
 * Append to b the sh (run in the workspace, in the step jail) that first
 * removes the stages of pushes no longer running, then unpacks the tar
 * stream on its stdin, through feed (sh text ending in "|", or ""), into a
 * fresh stage and, only once the tar succeeded, renames each entry into
 * place.  A push that fails or is cut leaves the workspace as it was
 * (what was renamed already is whole) and removes its stage; one whose
 * shell is killed leaves a stage that the next push or pull removes.
 */
void	transfer_stage_body(struct buf *b, const char *feed);

/*
 * Append to b the sh (in the workspace, in the step jail) that removes
 * the stages of pushes no longer running (their lock is free): a push
 * whose host shell was killed (a cut connection ends a jailed step
 * outright) leaves its stage, which the next push or pull removes.
 */
void	transfer_stage_clean(struct buf *b);

#endif /* CLAW_TRANSFER_H */
