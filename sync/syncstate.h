/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The saved sync state of one mirrored sandbox: the manifest of the last
 * synced tree ("<id>.manifest") and a log of what later syncs changed in
 * it ("<id>.manifest.log").  A sync that knows which paths changed (the
 * daemon's change journal and host watcher) reads only the entries at,
 * below and above those paths (binary search in the mapped manifest, the
 * log's records on top) and appends its result to the log; a sync that
 * does not know reads the whole state and writes the manifest whole,
 * emptying the log.  docs/sync.md tells why the log needs no fsync.
 *
 * Log format (version 2): a header line
 *
 *	clawssh-manifest-log 2 INODE SIZE SEC.NSEC CRC
 *
 * naming the manifest it applies to (its inode, size and mtime: a log
 * left beside a newer manifest is ignored; CRC is the CRC-32 of the line
 * before it, 8 lowercase hex digits), then blocks.  A block is one or
 * more scope lines "S PATH" (escaped as in the manifest, sorted, none
 * below another), the entries now at and below those paths (manifest
 * lines, sorted), and a line ". CRC" (the CRC-32 of the block's lines
 * before it).  Reading a block replaces everything at and below its scope
 * paths.  A block is checked whole before any of it is used: the first
 * one that is cut short, torn or damaged is dropped with all after it,
 * and the state is damaged (syncstate_damaged; no views, and the caller
 * must compare both sides in full: what the lost blocks said is
 * unknown).  A header that is damaged, or an empty log, loses all of
 * it the same way.  A line "X" instead of a block: another sync raced
 * this one (no views; the manifest alone, not damaged).
 *
 * Version 1 logs (no checksums, a block ends in a line ".") are still
 * read; a damaged one is dropped whole (damaged), a good one is used
 * and, at the next commit, folded into the manifest rewritten whole.
 */
#ifndef CLAW_SYNCSTATE_H
#define CLAW_SYNCSTATE_H

#include <stddef.h>

struct manifest;
struct syncstate;

/*
 * Open the state saved as name in dirfd into *out.  A missing manifest
 * is not an error: syncstate_missing says so.  Fails only when the files
 * exist but cannot be read (CLAW_ERR_IO and the like, with a cause).
 */
int	syncstate_open(int dirfd, const char *name, struct syncstate **out,
	    char **cause);

/* Return 1 if nothing was saved yet (the first sync). */
int	syncstate_missing(const struct syncstate *s);

/*
 * Return NULL if syncstate_view can work, else why not (the log is
 * malformed, the manifest is not in the expected form, nothing saved).
 */
const char *syncstate_no_view(const struct syncstate *s);

/*
 * Return NULL if the state lost nothing that can be seen, else what was
 * lost or cannot be read: a log whose tail was dropped (cut short, torn,
 * a flipped bit), an unreadable log, a manifest that is not one (then
 * syncstate_all fails too).  The last synced state is then not known for
 * some paths: the caller must not take a difference between it and
 * either side as a change (docs/sync.md, "When the state is damaged").
 */
const char *syncstate_damaged(const struct syncstate *s);

/*
 * The entries at and below each of the paths v[0..n) (sorted, unique;
 * one below another is fine) and the directories above them, as a new
 * sorted manifest in *out, with staged and logged changes applied.  A
 * result that is not a well formed tree is CLAW_ERR_PARSE (the state is
 * damaged: use syncstate_all); CLAW_ERR_UNSUPPORTED when
 * syncstate_no_view says so.
 */
int	syncstate_view(struct syncstate *s, char *const *v, size_t n,
	    struct manifest **out, char **cause);

/*
 * The whole state as a new manifest in *out (NULL when nothing was saved
 * yet): the manifest with the log and staged changes applied, or the
 * manifest alone when the log is unusable (with the blocks before a
 * damaged one).  CLAW_ERR_PARSE with a cause if the manifest is
 * malformed (syncstate_damaged says so from then on).
 */
int	syncstate_all(struct syncstate *s, struct manifest **out,
	    char **cause);

/*
 * Stage a change: everything at and below v[0..n) (sorted, unique) is
 * now what part holds there (part may hold more: it is filtered).  Later
 * views see it; syncstate_commit writes it.
 */
void	syncstate_stage(struct syncstate *s, char *const *v, size_t n,
	    const struct manifest *part);

/*
 * Append the staged changes to the log, and rewrite the manifest whole
 * when the log has grown past a sixteenth of it (64 KiB at least).
 */
int	syncstate_commit(struct syncstate *s, char **cause);

/* Save m as the whole state: the manifest rewritten, the log removed. */
int	syncstate_save_all(struct syncstate *s, const struct manifest *m,
	    char **cause);

/*
 * A new manifest: base (may be NULL) with everything at and below
 * v[0..n) (sorted, unique) replaced by what part holds there.
 */
struct manifest *syncstate_splice(const struct manifest *base,
	    char *const *v, size_t n, const struct manifest *part);

/*
 * Remove the state saved as name in directory dir (the manifest and its
 * log; missing ones are fine), for a sandbox that is gone or was made
 * again: the next sync then starts over and sends everything.  Returns 0
 * or negative with *cause.
 */
int	syncstate_remove(const char *dir, const char *name, char **cause);

/* Release s (unmaps the manifest); s may be NULL. */
void	syncstate_close(struct syncstate *s);

#endif /* CLAW_SYNCSTATE_H */
