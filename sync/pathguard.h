/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pathguard: the only judge of a local path.  Everything done to the local
 * workspace on behalf of the remote side (create, write, rename, chmod,
 * utime, unlink) goes through a directory descriptor resolved beneath the
 * workspace root, never through a path string checked first and used later.
 *
 * Rules, for every rel argument:
 *  - it passes pathguard_name_check (relative, no "." / ".." / empty
 *    components, no control characters, bounded lengths);
 *  - its parent directories are real directories on the root's file
 *    system: a symbolic link or a mount point anywhere on the way is
 *    refused, even one that points back inside the workspace;
 *  - the last component is never followed: it is created, renamed over,
 *    unlinked or stat'ed as itself;
 *  - the root must still be the directory that was opened
 *    (pathguard_check_root runs first in every operation);
 *  - nothing named ".git" (in any case, at any depth) is ever created,
 *    written, renamed, removed or given new metadata: every call that
 *    changes the tree refuses a rel for which pathguard_name_protected
 *    holds (CLAW_ERR_PERM), pathguard_remove_tree keeps any .git beneath
 *    what it removes, and no link may point into one.
 *
 * Parents are resolved with openat2(2) (RESOLVE_BENEATH, RESOLVE_NO_SYMLINKS,
 * RESOLVE_NO_MAGICLINKS, RESOLVE_NO_XDEV) where the kernel has it, else by an
 * openat(2) walk with O_NOFOLLOW | O_DIRECTORY that compares st_dev at every
 * step.  Support is detected once, by the first pathguard_open.
 *
 * Errors: 0 on success, else a negative CLAW_ERR_* and, when cause is not
 * NULL, *cause set to an allocated "ENTRY: what happened" message (the entry
 * escaped with pathguard_escape) that the caller frees.  Refusals are
 * CLAW_ERR_INVAL (a bad name or link target), CLAW_ERR_PERM (a symbolic
 * link or mount point on the way, a replaced root, a .git),
 * CLAW_ERR_EXISTS (a non-directory where a directory is needed, or a
 * directory in the way).
 * Out-pointers are written on success only.
 *
 * Not thread-safe: one struct pathguard belongs to one thread at a time.
 * Local actors (the user, their tools) are trusted; the remote side is not.
 * See docs/pathguard.md.
 */
#ifndef CLAW_PATHGUARD_H
#define CLAW_PATHGUARD_H

#include <sys/stat.h>
#include <sys/types.h>

#include <time.h>

#define PATHGUARD_PATH_MAX	4095	/* bytes in a relative path */
#define PATHGUARD_NAME_MAX	255	/* bytes in one component */
#define PATHGUARD_TMP_PREFIX	".clawssh-tmp-"

struct pathguard;

/*
 * Open the workspace root: realpath(3) it, open it O_PATH | O_DIRECTORY and
 * remember its real path, st_dev and st_ino.  The first call also probes
 * openat2(2).  Returns 0 and sets *out, or negative with *cause set.
 */
int	pathguard_open(const char *root, struct pathguard **out,
	    char **cause);

/* Close the root descriptor and free pg; NULL is fine. */
void	pathguard_close(struct pathguard *pg);

/* The real path of the root, as opened; valid until pathguard_close. */
const char	*pathguard_root(const struct pathguard *pg);

/*
 * Check that the remembered real path still names the opened root: lstat
 * finds a directory with the same st_dev and st_ino.  If the root was
 * removed, moved or replaced, returns CLAW_ERR_PERM with "workspace root
 * PATH was replaced; sync stopped".  Every operation below calls it first.
 */
int	pathguard_check_root(struct pathguard *pg, char **cause);

/*
 * Judge rel by its syntax alone: non-empty, not starting with '/', no ".",
 * ".." or empty components (so no "//" and no trailing '/': callers strip
 * the trailing slash of a directory entry first), no byte below 0x20 and
 * no 0x7f, at most PATHGUARD_PATH_MAX bytes and PATHGUARD_NAME_MAX bytes a
 * component.  Returns 0, or CLAW_ERR_INVAL with *cause naming rel escaped.
 */
int	pathguard_name_check(const char *rel, char **cause);

/*
 * Return 1 if a component of rel is ".git", compared without regard to
 * ASCII case (".GIT" is the same directory on a case-insensitive file
 * system, and git refuses it in trees for that reason), else 0; NULL
 * gives 0.  Syntax only.  A path so named is never changed by pathguard;
 * other modules use this to leave such paths out before asking.
 */
int	pathguard_name_protected(const char *rel);

/*
 * The symbolic link rule.  A link at rel may point at target only if target
 * is non-empty, relative, free of control characters, free of a ".git"
 * component (pathguard_name_protected), at most PATHGUARD_PATH_MAX bytes
 * (PATHGUARD_NAME_MAX a component), and, once "."
 * and empty components are dropped, has the form ("..")* followed by zero
 * or more plain names -- no ".." after a plain name -- with no more leading
 * ".." than rel's directory is deep ("a/b/l" may use two).
 *
 * Why this is safe whatever links are added later: the leading ".." are
 * resolved from the directory holding the link, which is a real directory
 * at that depth (pathguard never creates anything through a symbolic link,
 * and pathguard_rename never moves an entry to a shallower directory), so
 * they climb through real directories and stop at or below the root.  The
 * plain names that follow only descend; if one of them is itself a link,
 * that link obeys the same rule relative to its own real directory, so by
 * induction on the number of links followed every intermediate step, even
 * of chained links, stays beneath the root.  The same induction keeps
 * every step out of .git: no target names it, and no link is ever made
 * inside it, so the leading ".." only climb out of real directories that
 * are not .git.  Returns 0 or CLAW_ERR_INVAL.
 */
int	pathguard_link_check(const char *rel, const char *target,
	    char **cause);

/*
 * Return an allocated printable form of name for messages: "\n", "\t",
 * "\\" for a backslash, "\xNN" for other bytes below 0x20, 0x7f and C1
 * controls encoded in UTF-8 (0xc2 0x80-0x9f); other bytes are kept.  The
 * result is cut at about 200 characters and then ends in "...".  NULL
 * gives "(null)".  Never fails (allocation failure aborts).
 */
char	*pathguard_escape(const char *name);

/*
 * Create rel and any missing parents as directories beneath the root.  rel
 * itself gets (mode & 0777) | 0700 (owner rwx so that content can be
 * written into it; apply the final mode with pathguard_set_meta after the
 * content), parents get 0777; both are subject to the umask, and setuid,
 * setgid and sticky are never set.  Existing directories are kept as they
 * are.  A component that exists as anything but a directory is refused
 * (CLAW_ERR_EXISTS; a symbolic link: CLAW_ERR_PERM).
 */
int	pathguard_mkdirs(struct pathguard *pg, const char *rel, mode_t mode,
	    char **cause);

/*
 * Start writing rel: create its missing parents (as pathguard_mkdirs) and,
 * in rel's directory, a new file PATHGUARD_TMP_PREFIX<16 hex digits>
 * opened O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode 0600.
 * Sets *fd to it and *tmp to its allocated base name (the caller frees it).
 * The caller writes the content to *fd, then calls pathguard_write_commit
 * or pathguard_write_abort, which both take ownership of *fd.
 */
int	pathguard_write_begin(struct pathguard *pg, const char *rel, int *fd,
	    char **tmp, char **cause);

/*
 * Finish a write: fchmod fd to mode & 0777 (setuid, setgid and sticky
 * stripped), set its modification time to *mtime unless mtime is NULL,
 * then renameat(2) tmp over rel in rel's parent, resolved again beneath
 * the root.  Readers see the old rel or the new one, never a torn file.
 * A file, symbolic link or FIFO at rel is replaced (never opened); a
 * directory is refused with CLAW_ERR_EXISTS (the caller removes it first).
 * fd is always closed.  On failure the temporary file is removed when its
 * directory can still be reached beneath the root.
 */
int	pathguard_write_commit(struct pathguard *pg, const char *rel,
	    const char *tmp, int fd, mode_t mode, const struct timespec *mtime,
	    char **cause);

/*
 * Abandon a write: close fd (unless it is -1) and unlink tmp from rel's
 * directory.  Returns 0 (also when tmp is already gone) or negative.
 */
int	pathguard_write_abort(struct pathguard *pg, const char *rel,
	    const char *tmp, int fd);

/*
 * Create a symbolic link rel -> target after pathguard_link_check: make the
 * missing parents, create the link under a temporary name and rename it
 * into place, replacing a file or link but never a directory
 * (CLAW_ERR_EXISTS).
 */
int	pathguard_symlink(struct pathguard *pg, const char *rel,
	    const char *target, char **cause);

/*
 * Remove the file, symbolic link (not its target) or other non-directory
 * at rel.  A missing rel or missing parent is not an error; a directory is
 * refused (CLAW_ERR_EXISTS: use pathguard_remove_tree).
 */
int	pathguard_unlink(struct pathguard *pg, const char *rel, char **cause);

/*
 * Remove rel and, if it is a directory, everything beneath it, never
 * following a symbolic link and never crossing a mount point (refused).
 * A missing rel or missing parent is not an error.  A .git found beneath
 * rel is kept, with the directories holding it; everything else is
 * removed and CLAW_ERR_PERM says what was kept.
 */
int	pathguard_remove_tree(struct pathguard *pg, const char *rel,
	    char **cause);

/*
 * Set the metadata of the existing entry rel without following it: the
 * mode (mode & 0777) unless it is a symbolic link, and the modification
 * time to *mtime unless mtime is NULL.  Meant for directories after their
 * content is written.  CLAW_ERR_NOTFOUND if rel is missing.
 */
int	pathguard_set_meta(struct pathguard *pg, const char *rel, mode_t mode,
	    const struct timespec *mtime, char **cause);

/*
 * Rename from to to, both judged and resolved beneath the root (for
 * conflict copies such as NAME.clawssh-remote).  to's directory must not
 * be shallower than from's, so that no symbolic link inside a moved
 * directory ever climbs above the root (CLAW_ERR_PERM).  An existing file
 * at to is replaced as by rename(2).  CLAW_ERR_NOTFOUND if from is missing.
 */
int	pathguard_rename(struct pathguard *pg, const char *from,
	    const char *to, char **cause);

/*
 * fstatat(2) rel with AT_SYMLINK_NOFOLLOW beneath the root into *st.
 * CLAW_ERR_NOTFOUND (with *cause) if rel or a parent is missing.
 */
int	pathguard_lstat(struct pathguard *pg, const char *rel, struct stat *st,
	    char **cause);

/*
 * Open rel for reading (O_NOFOLLOW, non-blocking so a FIFO cannot hang)
 * beneath the root with no symbolic link in its path: for uploads, so that
 * a link in the local workspace never sends data from outside it.  Sets
 * *fd; the caller checks the type with fstat and closes it.
 */
int	pathguard_open_read(struct pathguard *pg, const char *rel, int *fd,
	    char **cause);

/* Read the target of the link rel (allocated into *target). */
int	pathguard_readlink(struct pathguard *pg, const char *rel,
	    char **target, char **cause);

/*
 * Resolve rel for a file tool acting on the user's behalf: follow the
 * symbolic links on the way (the last component too) as long as every
 * step stays beneath the root (openat2(2) RESOLVE_BENEATH; a link that
 * leads out, an absolute link or another file system is refused with
 * CLAW_ERR_PERM).  Missing trailing components are kept as written, so a
 * file yet to be created resolves too.  Sets *out to the equivalent
 * relative path free of links ("" for the root itself), which the other
 * pathguard calls then use.  Without openat2(2), *out is rel unchanged
 * and those calls refuse any link on the way.
 */
int	pathguard_resolve(struct pathguard *pg, const char *rel, char **out,
	    char **cause);

/*
 * For tests: when on is non-zero, resolve with the O_NOFOLLOW walk even
 * where openat2(2) works.  Global and not thread-safe.
 */
void	pathguard_force_walk(int on);

/* "openat2" or "walk": how the next resolution will be done. */
const char	*pathguard_resolver(void);

#endif /* CLAW_PATHGUARD_H */
