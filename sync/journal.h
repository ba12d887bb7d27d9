/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The change journal: inotify(7) watches, through libinotifytools, on
 * every directory of one or more workspace roots, so that a sync after a
 * few changes need not rescan the whole tree.  A journal keeps, per root,
 * the set of relative paths dirtied since the last journal_take, or says
 * the set cannot be trusted and the caller must scan ("full").
 *
 * libinotifytools keeps global state and is not thread-safe, so there is
 * at most one journal per process (journal_new fails with
 * CLAW_ERR_EXISTS otherwise), holding all roots of the process: one
 * inotify instance and one reader thread, the only one that calls the
 * library.  It blocks in inotifytools_next_event (the library gives no
 * descriptor to poll(2)); journal_add, journal_remove, journal_take and
 * journal_free post a request and wake it by touching a private empty
 * directory it watches ($TMPDIR or /tmp, clawssh-journal.XXXXXX, removed
 * by journal_free; should it vanish, calls fail with CLAW_ERR_TIMEOUT).
 * Every function here may be called from any thread; a child forked
 * while a journal runs must not call them (the reader is not copied).
 *
 * Guarantee: a change to a root made (the system call returned) before
 * journal_take is called is in the paths of that take or an earlier one,
 * or the take says full: the request's wake-up event is queued after the
 * change's, and the reader serves it only when it gets there.  A change
 * after that belongs to the next take.
 *
 * The set is "full" (scan needed), with a static reason, when:
 *   - the root was just added: changes before the watches existed are
 *     unknown (the first take after journal_add is always full);
 *   - the kernel's event queue overflowed (every root; the watches are
 *     completed again by a walk before the next take);
 *   - the inotify watch limit (fs.inotify.max_user_watches, or
 *     journal_set_watch_cap) was hit: every take walks the tree again to
 *     add the missing watches and stays full; the take after one whose
 *     walk watched everything is trusted again;
 *   - another failure to watch or read a directory: until the root is
 *     removed and added again;
 *   - the root itself was removed, moved, replaced or unmounted;
 *   - an ignore file (.gitignore, .clawsshignore) changed, so what is
 *     ignored may differ from the rules the journal was given;
 *   - more than JOURNAL_DIRTY_MAX paths piled up (a scan is cheaper);
 *   - the tree is nested deeper than MANIFEST_MAX_DEPTH.
 *
 * Memory: libinotifytools 3.22 cannot forget a watch that the kernel
 * dropped (a watched directory removed), so each directory removed under
 * a root leaves a record of about a hundred bytes in the library, which
 * it does not always free even in inotifytools_cleanup (valgrind shows
 * them as lost in create_watch).
 */
#ifndef CLAW_JOURNAL_H
#define CLAW_JOURNAL_H

#include <stddef.h>

struct ignore;
struct journal;

#define JOURNAL_DIRTY_MAX	100000	/* paths kept per root */

/*
 * Start the journal of this process: initialise libinotifytools and start
 * the reader thread.  Returns 0 and sets *out, CLAW_ERR_EXISTS if the
 * process already has one, or another negative code with *cause.
 */
int	journal_new(struct journal **out, char **cause);

/* Stop the reader, remove every watch and free the journal; NULL is fine. */
void	journal_free(struct journal *);

/*
 * Start watching root (a directory; symbolic links in it are never
 * followed) and every directory below it that ign (NULL: none) does not
 * exclude, so node_modules/ and the like cost no watches.  ign is only
 * read (ignore_match), so it must already hold the rules of the tree's
 * ignore files (load them while scanning, as ignore_skip_cb does), must
 * stay valid until journal_remove or journal_free and must not be
 * changed meanwhile.  Paths that ign excludes are not reported.  Roots
 * may not overlap: a root inside, or holding, another is
 * CLAW_ERR_EXISTS.  Sets *handle (positive) and returns 0, or negative
 * with *cause.  Takes as long as a walk of the tree's directories.
 */
int	journal_add(struct journal *, const char *root,
	    const struct ignore *ign, int *handle, char **cause);

/* Stop watching the root of handle; an unknown handle is ignored. */
void	journal_remove(struct journal *, int handle);

/*
 * Hand over the set of handle's root: in *paths (allocated, free with
 * journal_paths_free) the *n relative paths ("a/b", the root is "")
 * dirtied since the last take, sorted by strcmp(3) and unique.  A path
 * may be created, modified, removed, renamed or have changed attributes;
 * a directory created or moved in is listed with everything under it; a
 * directory removed or moved out is listed alone, and stands for all it
 * held.  *full is 1 when the set cannot be trusted and the caller must
 * scan (then *why is a static reason, else NULL); the paths are still
 * given (possibly incomplete).  Waits only for the reader to handle the
 * events queued before it, the longest being a walk of a directory tree
 * just created or moved in.  Returns 0, CLAW_ERR_NOTFOUND for an unknown
 * handle, or CLAW_ERR_TIMEOUT if the reader did not answer in a minute.
 */
int	journal_take(struct journal *, int handle, char ***paths, size_t *n,
	    int *full, const char **why, char **cause);

/* Free what journal_take returned; paths may be NULL. */
void	journal_paths_free(char **paths, size_t n);

/*
 * For tests: act as if the inotify watch limit were cap watches in all
 * (0: only the system's limit).  A watch beyond it fails as with ENOSPC.
 */
void	journal_set_watch_cap(struct journal *, size_t cap);

#endif /* CLAW_JOURNAL_H */
