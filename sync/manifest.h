/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Workspace manifests: the last synced state of a tree, one entry per path,
 * sorted by path bytes (strcmp(3), that is memcmp order).  A manifest is
 * built by scanning a local directory, by parsing the saved text form, or by
 * parsing the raw listing that manifest_remote_script() prints on the remote
 * host.  Text and listings are untrusted: every size and count is capped by
 * a struct manifest_limits, and a parsed manifest is always well formed
 * (valid paths, sorted, no duplicates, every parent a directory entry).
 *
 * A manifest is owned by one thread at a time.  Functions returning int give
 * 0 or a negative CLAW_ERR_* code; where they take char **cause, a failure
 * stores an allocated message there (the caller frees it).  Out-pointers are
 * set on success only.
 */
#ifndef CLAW_MANIFEST_H
#define CLAW_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

struct buf;

/* Entry types; the values are the letters of the text format. */
enum manifest_type {
	MANIFEST_FILE = 'f',
	MANIFEST_DIR = 'd',
	MANIFEST_LINK = 'l'
};

#define MANIFEST_PATH_MAX	4095	/* bytes in a path or link target */
#define MANIFEST_HASH_LEN	32	/* SHA-256 */
#define MANIFEST_MAX_DEPTH	256	/* components in a path */

/*
 * One path.  path is relative, '/'-separated, without a leading "./" and
 * without empty, "." or ".." components; it may hold any byte but NUL.
 */
struct manifest_entry {
	char		*path;		/* allocated */
	int		 type;		/* enum manifest_type */
	uint64_t	 size;		/* file bytes; target length for links;
					   0 for directories */
	int64_t		 mtime_sec;	/* st_mtim.tv_sec */
	long		 mtime_nsec;	/* st_mtim.tv_nsec, 0 to 999999999 */
	unsigned	 mode;		/* permission bits, masked to 0777 */
	char		*link;		/* symlink target (allocated, never
					   empty); NULL unless a link */
	int		 have_hash;	/* hash holds the content's SHA-256 */
	unsigned char	 hash[MANIFEST_HASH_LEN];
};

/*
 * A whole tree: n entries in e, sorted by path.  known, when set (on a
 * prev given to manifest_scan or manifest_rescan; nothing else reads or
 * copies it), is a second place the scan takes hashes from.
 */
struct manifest {
	struct manifest_entry	*e;
	size_t			 n;
	size_t			 cap;	/* slots allocated in e */
	const struct manifest	*known;	/* or NULL */
};

/*
 * Caps on what a parser accepts.  A NULL limits pointer means the defaults
 * of manifest_limits_default().  Exceeding one is CLAW_ERR_PARSE with a
 * message naming the field.
 */
struct manifest_limits {
	size_t		max_entries;	/* entries in one manifest */
	uint64_t	max_bytes;	/* sum of the sizes of all files */
	size_t		max_path;	/* bytes in a path or link target, at
					   most MANIFEST_PATH_MAX */
	size_t		max_text;	/* bytes of input given to a parser or
					   read by manifest_load */
};

/* What changed between two manifests (see manifest_diff). */
enum manifest_kind {
	MANIFEST_CH_ADDED = 1,	/* now only */
	MANIFEST_CH_MODIFIED,	/* file content (now->mode may differ too) */
	MANIFEST_CH_MODE,	/* permission bits only (files, dirs) */
	MANIFEST_CH_LINK,	/* symlink target */
	MANIFEST_CH_DELETED	/* old only */
};

/*
 * One change; old and now point into the manifests given to manifest_diff
 * (old is NULL for MANIFEST_CH_ADDED, now for MANIFEST_CH_DELETED).
 */
struct manifest_change {
	int				 kind;	/* enum manifest_kind */
	const struct manifest_entry	*old;
	const struct manifest_entry	*now;
};

/* manifest_scan flags. */
#define MANIFEST_HASH_CHANGED	0x1	/* hash new and changed files */

/*
 * The skip callback of manifest_scan.  It is called in two ways:
 *
 * - Entering a directory: skip(arg, dirfd, reldir, NULL, 1), once per
 *   directory scanned, the root included (reldir "" for the root), before
 *   any of that directory's entries is judged.  dirfd is the open directory:
 *   the callback may openat(2) or fstatat(2) names inside it (to load a
 *   per-directory ignore file, say) but must not close it, read it with
 *   getdents or keep it after returning.
 * - For each entry of that directory that is a regular file, a directory or
 *   a symlink (other types are left out before the callback sees them):
 *   skip(arg, dirfd, reldir, relpath, is_dir) with the same dirfd and
 *   reldir, relpath the entry's full relative path ("name" at the root,
 *   "reldir/name" below it) and is_dir 1 for a directory (never for a
 *   symlink, even to a directory).  Return 1 to leave the entry out (a
 *   directory left out is not entered), 0 to keep it.
 *
 * Entries of one directory are judged in readdir(3) order; its kept
 * subdirectories are entered afterwards, depth first.  Any negative return
 * (a CLAW_ERR_* code) stops the scan, which fails with that code; a positive
 * return from the directory call counts as 0.
 */
typedef int (*manifest_skip_cb)(void *arg, int dirfd, const char *reldir,
    const char *relpath, int is_dir);

/* Fill lim with the defaults: 1,000,000 entries, 1 TiB, 4095, 512 MiB. */
void	manifest_limits_default(struct manifest_limits *lim);

/* Return a new, empty manifest (free with manifest_free). */
struct manifest *manifest_new(void);

/* Free m and everything its entries own; m may be NULL. */
void	manifest_free(struct manifest *m);

/*
 * Append a zeroed entry to m and return it; the pointer is valid until the
 * next append.  The caller fills it (path and link allocated, owned by m
 * from then on) and calls manifest_sort when done if order is not known.
 */
struct manifest_entry *manifest_add(struct manifest *m);

/* Append a deep copy of e (its path and link duplicated) to m. */
void	manifest_add_copy(struct manifest *m, const struct manifest_entry *e);

/* Make room for n more entries (a hint: manifest_add still grows). */
void	manifest_reserve(struct manifest *m, size_t n);

/*
 * Put m in order when its entries [0, k) and [k, n) are each sorted (a
 * merge: linear, where manifest_sort would sort it all again).
 */
void	manifest_merge_runs(struct manifest *m, size_t k);

/* Sort m's entries by path bytes. */
void	manifest_sort(struct manifest *m);

/* Return the entry for path by binary search, or NULL; m may be NULL. */
const struct manifest_entry *manifest_find(const struct manifest *m,
	    const char *path);

/*
 * Return NULL if path is a relative path of at most max bytes without
 * empty, "." or ".." components, else the reason (static text).
 */
const char *manifest_path_check(const char *path, size_t max);

/*
 * The limits every scan (manifest_scan, manifest_rescan) and every parser
 * of the host's listing (manifest_parse_find0, _part) apply alike: a path
 * of more than MANIFEST_MAX_DEPTH components or MANIFEST_PATH_MAX bytes is
 * left out, with everything below it, and one warning per call names the
 * first such path.  So a tree too deep on either side is in neither side's
 * manifest: it stays where it is, neither sent, fetched nor deleted, and
 * manifest_diff ignores such paths in the manifests it is given (a state
 * saved before the limits applied alike may hold them).  Return 0 if the
 * len bytes at path are within the limits, else the length of the
 * shortest prefix that is not (the top of what is left out).
 */
size_t	manifest_path_over(const char *path, size_t len);

/*
 * Check e, read from untrusted input, before it is added to m: type, mode,
 * nanoseconds, directory size 0, hash on files only, path shape and length,
 * link target present (and not longer than the limit) exactly for links,
 * and lim's entry count (m->n entries already there) and total file bytes
 * (*total so far; e's size is added on success).  Order is not checked here
 * (see manifest_check_tree).  Returns 0, or CLAW_ERR_PARSE with *why set to
 * a static reason.
 */
int	manifest_entry_check(const struct manifest *m,
	    const struct manifest_entry *e, const struct manifest_limits *lim,
	    uint64_t *total, const char **why);

/*
 * Check that m's entries are strictly increasing by path (no duplicates)
 * and that every path's parent is a directory entry of m.  Returns 0, or
 * CLAW_ERR_PARSE with *bad the index of the first offending entry and *why
 * a static reason.
 */
int	manifest_check_tree(const struct manifest *m, size_t *bad,
	    const char **why);

/*
 * Scan the tree below the open directory rootfd (which is not modified or
 * closed) into a new manifest in *out.  Symlinks are never followed (they
 * are recorded with readlinkat(2), and a link to a directory is a link
 * entry); FIFOs, sockets and devices are left out (log_debug), as are paths
 * over the limits of manifest_path_over (not entered; one log_warn).  The
 * root is not an entry.
 * skip may be NULL; see manifest_skip_cb for its calling convention.  With
 * MANIFEST_HASH_CHANGED in flags, regular files get a SHA-256: copied from
 * prev's entry for the same path when that is a hashed file of the same
 * size and mtime (or else from prev->known's, on the same terms: hashes
 * learnt otherwise, such as a pull's; never an entry of the result),
 * otherwise computed from the content (a file that changes while it is
 * read gets no hash); without it nothing is hashed or copied.
 * prev may be NULL.  Entries that vanish during the scan are left out.
 * Fails with a cause if a directory cannot be read, a file cannot be
 * hashed or skip fails.
 */
int	manifest_scan(int rootfd, const struct manifest *prev,
	    manifest_skip_cb skip, void *arg, int flags, struct manifest **out,
	    char **cause);

/*
 * Update prev (may be NULL) by a change journal's paths[0..n) (relative,
 * sorted by strcmp, unique): a new manifest in *out holding prev's entries
 * except that each listed path is looked at again beneath rootfd, as
 * manifest_scan would see it (skip, arg and flags as there; skip is told
 * of every directory entered on the way, so ignore files load).  A path
 * now gone, left out by skip, or no longer a directory drops what prev
 * held below it; a directory that is new (or was not one) is walked
 * whole; a directory that was one keeps prev's entries below it (changes
 * there are listed paths of their own), except names directly in it that
 * are gone (it was replaced by a new one).  A path with empty, "." or ".."
 * components, or a list out of order, is CLAW_ERR_INVAL.  Fails as
 * manifest_scan does, or with CLAW_ERR_PARSE if the result is not a well
 * formed tree (the paths missed a change, such as a new directory): then
 * scan everything.
 */
int	manifest_rescan(int rootfd, const struct manifest *prev,
	    char *const *paths, size_t n, manifest_skip_cb skip, void *arg,
	    int flags, struct manifest **out, char **cause);

/*
 * The text format, used for the saved manifest.  The first line is
 * "clawssh-manifest 1"; then one line per entry, in path order:
 *
 *	TYPE MODE SIZE SEC.NSEC HASH PATH TARGET
 *
 * separated by single spaces, each line ending in '\n'.  TYPE is f, d or l;
 * MODE three octal digits; SIZE decimal; SEC decimal (may be negative) and
 * NSEC exactly nine digits (tv_sec and tv_nsec, not a decimal fraction);
 * HASH 64 lowercase hex digits or "-"; PATH and TARGET escaped (below);
 * TARGET is "-" for anything but a link (a link whose target is "-" writes
 * "\x2d").  Escaping turns '\\', ' ' and every byte below 0x20 or above 0x7e
 * into "\xNN" (lowercase hex), so a line is printable ASCII.
 */

#define MANIFEST_TEXT_HEADER	"clawssh-manifest 1\n"

/* Append s escaped as in the text format to b. */
void	manifest_escape(struct buf *b, const char *s);

/*
 * Return m in the text format (allocated, NUL-terminated) and its length in
 * *len.  m must be well formed, as manifest_scan and the parsers make it.
 */
char	*manifest_format(const struct manifest *m, size_t *len);

/* Append e as one line of the text format, its newline included. */
void	manifest_format_line(struct buf *b, const struct manifest_entry *e);

/*
 * Parse one line of the text format (len bytes, without its newline) and
 * append the entry to m, checked as manifest_parse checks it (order and
 * parents excepted) with the default limits.  Returns 0, or
 * CLAW_ERR_PARSE with *why a static reason.
 */
int	manifest_parse_line(struct manifest *m, const char *line, size_t len,
	    const char **why);

/*
 * Undo the escaping of the text format on len bytes at s into *out
 * (allocated).  Returns NULL, or the reason they are malformed (a bad
 * escape, an escaped NUL, a raw space or control byte, over
 * MANIFEST_PATH_MAX bytes).
 */
const char *manifest_unescape(const char *s, size_t len, char **out);

/*
 * Parse len bytes of the text format into a new manifest in *out.  Anything
 * malformed (a bad field or escape, a NUL after unescaping, an invalid path,
 * entries out of order or duplicated, a parent that is not a directory
 * entry, a missing final newline) or over a limit of lim (NULL for the
 * defaults) is CLAW_ERR_PARSE with a cause "line N: reason".  Control
 * characters in paths are accepted; pathguard judges them later.
 */
int	manifest_parse(const char *text, size_t len,
	    const struct manifest_limits *lim, struct manifest **out,
	    char **cause);

/*
 * Write m to name in dirfd atomically: a temporary file in the same
 * directory, fsync, rename over name, fsync of the directory.
 */
int	manifest_save(int dirfd, const char *name, const struct manifest *m,
	    char **cause);

/*
 * Read and parse name in dirfd (not following a final symlink).  A missing
 * file is CLAW_ERR_NOTFOUND; a file over lim->max_text or malformed is
 * CLAW_ERR_PARSE; the cause starts with name.
 */
int	manifest_load(int dirfd, const char *name,
	    const struct manifest_limits *lim, struct manifest **out,
	    char **cause);

/*
 * Return a POSIX sh script (static text) that lists the tree below the
 * current directory on a Linux host, for manifest_parse_find0.  Run it with
 * the workspace as the current directory, for example as
 * "cd DIR && sh -c SCRIPT" with both quoted for sh; stdout is the listing
 * and the exit status is 0 only if the whole tree was listed (anything else
 * means the listing is incomplete and must not be used).  Each file,
 * directory and symlink, the root excepted, is one record:
 *
 *	TYPE ' ' MODE ' ' SIZE ' ' SEC.FRACTION ' ' PATH '\0' TARGET '\0'
 *
 * with TARGET empty for non-links.  It uses GNU find -printf where find has
 * it (mtime to the nanosecond).  Otherwise it falls back to POSIX find with
 * -exec ... {} + and needs stat -c with %f %a %s %Y and readlink (GNU
 * coreutils or BusyBox); that fallback gives whole seconds only.
 */
const char *manifest_remote_script(void);

/*
 * Parse len bytes of the listing printed by manifest_remote_script into a
 * new, sorted manifest in *out, with the checks and limits of
 * manifest_parse (NUL-separated records need no escapes, and arrive in any
 * order).  Records of other types than f, d and l are skipped (log_debug);
 * permission bits are masked to 0777, directory sizes set to 0, and the
 * fraction of the mtime read as nanoseconds.  Entries have no hash.  Paths
 * over the limits of manifest_path_over are left out (one log_warn: they
 * stay on the host).  Errors are CLAW_ERR_PARSE with a cause "record N:
 * reason" or naming the path.
 */
int	manifest_parse_find0(const char *data, size_t len,
	    const struct manifest_limits *lim, struct manifest **out,
	    char **cause);

/*
 * As manifest_parse_find0, for a listing of some paths of a tree (a
 * parent need not be listed; duplicates are still refused).
 */
int	manifest_parse_find0_part(const char *data, size_t len,
	    const struct manifest_limits *lim, struct manifest **out,
	    char **cause);

/*
 * Compare two manifests (either may be NULL for an empty one) by a merge
 * walk and store the changes from old to now in *out (allocated, free(3);
 * NULL when there are none) and their number in *n.  Files: the same size
 * and mtime are unchanged; where both entries have a hash, the hash and the
 * size decide instead, so a touch-only change does not travel and a hash
 * mismatch always does.  Content unchanged but permission bits differing is
 * MODE; a MODIFIED file may differ in mode too.  Directories: only MODE (no
 * mtime, no size).  Symlinks: only LINK (target).  A type change is DELETED
 * then ADDED.  Order, for applying in sequence: all DELETED in reverse path
 * order (children before their parents), then the others in path order
 * (parents before children).  Paths over the limits of manifest_path_over
 * make no change.  Returns 0, or CLAW_ERR_INVAL if either manifest is not
 * strictly sorted.
 */
int	manifest_diff(const struct manifest *old, const struct manifest *now,
	    struct manifest_change **out, size_t *n);

#endif /* CLAW_MANIFEST_H */
