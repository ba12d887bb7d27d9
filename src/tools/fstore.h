/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A sandbox's files as the file tools see them: either the local canonical
 * copy (mirror mode, through pathguard) or the copy on the host (remote
 * mode, through sh scripts over an exec channel).  Both confine every
 * path to the workspace at the moment of the operation: symbolic links are
 * followed only while they stay inside, ".." and other absolute paths are
 * refused.
 *
 * Paths are relative to the workspace; "/workspace/REST" is accepted as
 * REST.  Errors are 0 / negative CLAW_ERR_* with an allocated *cause.
 * One fstore belongs to one thread.
 */
#ifndef CLAW_FSTORE_H
#define CLAW_FSTORE_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct hostws;
struct pathguard;
struct transport;

#define FSTORE_FILE_MAX	(256 * 1024 * 1024)	/* bytes a tool handles */
#define FSTORE_LIST_MAX	100000			/* entries ls shows */
#define FSTORE_TIMEOUT	60			/* seconds a remote call */

/* One entry's metadata (from lstat, or the host's find -printf). */
struct fstore_stat {
	char		 type;		/* 'f', 'd', 'l', or 'o' (other) */
	unsigned	 mode;		/* permission bits */
	uint64_t	 size;
	int64_t		 mtime_sec;
	long		 mtime_nsec;
	char		*link;		/* target when type is 'l' */
};

/* One entry of a directory listing. */
struct fstore_entry {
	char			*name;
	struct fstore_stat	 st;
};

/* One change of a commit: a whole new content, or a removal. */
struct fstore_change {
	const char	*path;		/* as given by the user */
	const char	*data;		/* NULL: remove the file */
	size_t		 len;
	int		 mode;		/* -1: keep the old mode (new: 0644) */
	int		 create_only;	/* fail if path already exists */
};

struct fstore;

/* A store on the local workspace of pg (pg stays the caller's). */
struct fstore	*fstore_local(struct pathguard *pg);

/*
 * A store on the host's copy of a workspace over t: every call is one
 * script whose operation runs where hw says (the sandbox's step jail, or
 * its directory for runtime none; hw is copied).  pre, when not NULL, is
 * sh code run first, outside the jail (the sandbox check-and-touch).
 * timeout (seconds, 0: none) bounds each call: past it the remote process
 * group is killed and the call fails with CLAW_ERR_TIMEOUT.
 */
struct fstore	*fstore_remote(struct transport *t, const struct hostws *hw,
		    const char *pre, int timeout);

/*
 * A staged store: reads come from what fstore_staged_put staged (a path
 * not staged is an error), a commit is kept for fstore_staged_changes
 * instead of done, stat and listings are refused.  fstore_patch runs on
 * one where the reads and the commit are done elsewhere (the daemon's
 * own steps on a host's copy).
 */
struct fstore	*fstore_staged(void);
/* Stage what reading path gave: data[0..len) and mode, or rc and cause. */
void	fstore_staged_put(struct fstore *fs, const char *path,
	    const char *data, size_t len, unsigned mode, int rc,
	    const char *cause);
/* Whether path is staged. */
int	fstore_staged_has(const struct fstore *fs, const char *path);
/* The commit kept (*n changes; valid until fstore_free), or NULL. */
const struct fstore_change *fstore_staged_changes(const struct fstore *fs,
	    size_t *n);

/* Release the store; NULL is fine. */
void		 fstore_free(struct fstore *fs);

/*
 * Normalise a user path: strip a leading "/workspace/" (or "/workspace"
 * alone: the root, ""), drop "./" components and a trailing '/', then
 * refuse what pathguard_name_check refuses (so "..", other absolute paths
 * and control characters).  Sets *out (allocated).
 */
int	fstore_path(const char *user, char **out, char **cause);

/*
 * Append the regular file path's bytes [off, off + lim) to out (lim 0:
 * to the end).  A directory, a missing file, a FIFO, socket or device, or
 * one over FSTORE_FILE_MAX is a clear error.  *mode, when not NULL, gets
 * its permission bits.
 */
int	fstore_read(struct fstore *fs, const char *path, uint64_t off,
	    uint64_t lim, struct buf *out, unsigned *mode, char **cause);

/* lstat the entry at path (after following links inside). */
int	fstore_stat(struct fstore *fs, const char *path,
	    struct fstore_stat *st, char **cause);

/*
 * List the directory path ("" for the root), sorted by name; *n entries
 * in *out (free with fstore_entries_free).
 */
int	fstore_list(struct fstore *fs, const char *path,
	    struct fstore_entry **out, size_t *n, char **cause);

/*
 * Apply ch[0..n): every write goes to a temporary file beside its target
 * first (an unguessable name, created exclusively, never through a link);
 * only when all are written are they renamed into place and the removals
 * done, so a failure before that point changes nothing.  Parent
 * directories are created.  A target that is a directory, or that is not
 * a regular file, is refused.
 */
int	fstore_commit(struct fstore *fs, const struct fstore_change *ch,
	    size_t n, char **cause);

/*
 * Replace path with data[0..len) (fstore_commit: atomic, parents made, an
 * existing file's mode kept).
 */
int	fstore_write_file(struct fstore *fs, const char *path,
	    const char *data, size_t len, char **cause);

/*
 * Replace old by new in path (fsedit_replace: the one occurrence, or
 * every one with all) and write it back with its mode; *count is how
 * many were replaced.
 */
int	fstore_edit(struct fstore *fs, const char *path, const char *old,
	    const char *new, int all, size_t *count, char **cause);

/* Free a listing and a stat's link. */
void	fstore_entries_free(struct fstore_entry *e, size_t n);
void	fstore_stat_clear(struct fstore_stat *st);

#endif /* CLAW_FSTORE_H */
