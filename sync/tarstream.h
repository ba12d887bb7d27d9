/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tar streams of workspace files (libarchive), in both directions.
 *
 * Creating reads the local workspace through pathguard (no symbolic link
 * is followed, so nothing outside the workspace is sent).  Extracting
 * treats the stream as hostile: only the tar reader is enabled, every
 * name goes through pathguard's judgment, every write through its
 * directory fds, and hard links, devices, FIFOs and sockets are refused
 * one by one with a message naming the entry; an entry with a .git
 * component (pathguard_name_protected) is refused whatever else is said,
 * so a pull never creates, replaces or writes into a .git; modes are
 * masked with the local umask and setuid, setgid and sticky are stripped;
 * entry and byte caps stop archive bombs.  A caller can say what it asked
 * for (struct tarstream_expect): anything else is refused.  Each file is
 * written to a temporary name and renamed into place, so an interrupted
 * stream leaves every file old or new, never torn.  Sparse files keep
 * their holes both ways.
 */
#ifndef CLAW_TARSTREAM_H
#define CLAW_TARSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

struct manifest_entry;
struct pathguard;

struct tarstream_limits {
	uint64_t	max_entries;	/* entries in one stream */
	uint64_t	max_bytes;	/* file bytes in one stream */
};

#define TARSTREAM_MAX_ENTRIES	1000000
#define TARSTREAM_MAX_BYTES	((uint64_t)64 << 30)	/* 64 GiB */

struct tarstream_stats {
	uint64_t	files;
	uint64_t	dirs;
	uint64_t	links;
	uint64_t	bytes;
	uint64_t	refused;	/* entries refused (each logged) */
	uint64_t	deleted;	/* entries removed before replacing */
	uint64_t	changed;	/* asked for, differed: not written */
	uint64_t	missing;	/* asked for, not in the stream */
};

/* Why an asked-for entry was left as it is (tarstream_skip_fn). */
#define TARSTREAM_SKIP_CHANGED	1	/* the stream's differs from it */
#define TARSTREAM_SKIP_MISSING	2	/* the stream did not hold it */

/*
 * Told of each entry of want that was not written, with why (one of
 * TARSTREAM_SKIP_*); path is valid during the call only.
 */
typedef void	(*tarstream_skip_fn)(void *arg, const char *path, int why);

/*
 * Told of each regular file written, once it is in place: its path, the
 * size and modification time it was given and the SHA-256 of the content
 * written (holes as zeros), so that the caller need not read the file
 * again for its hash; path and hash are valid during the call only.
 */
typedef void	(*tarstream_written_fn)(void *arg, const char *path,
		    int64_t size, const struct timespec *mtime,
		    const unsigned char *hash);

/*
 * What the caller asked the host for.  An entry of the stream is taken
 * only if its name (leading "./" and trailing '/' dropped) is the path of
 * one of want[0..nwant) or is equal to or below one of tops[0..ntops)
 * (names as pathguard_name_check accepts); any other is refused, counted
 * in st->refused and logged.  Either array may be NULL when its count is
 * 0; the entries stay the caller's and may be in any order.
 *
 * An entry of want is taken once (a second one of that name is refused),
 * and only if it still is what was asked: the same type, for a link the
 * same target, for a regular file the same size and mtime (seconds, and
 * nanoseconds unless the stream has whole seconds only: 0) and, when the
 * want entry have_hash, the same SHA-256 of the content received.  If not,
 * it is not written, whatever is there locally stays untouched, and it is
 * counted in st->changed and logged ("changed on the host during the
 * pull; left for the next sync"); extraction goes on.  After the stream,
 * the entries of want it never held are counted in st->missing.  skipped,
 * unless NULL, is called with arg for each of both kinds, so that the
 * caller keeps its saved state for those paths.  written, unless NULL,
 * is called with arg for each regular file written (every file's content
 * is then hashed as it arrives).  With any set, want and tops are unused
 * and any entry is taken, as with no ex at all.
 */
struct tarstream_expect {
	const struct manifest_entry *const	 *want;
	size_t					  nwant;
	char *const				 *tops;
	size_t					  ntops;
	tarstream_skip_fn			  skipped;
	void					 *arg;
	tarstream_written_fn			  written;	/* or NULL */
	int					  any;	/* as ex NULL */
};

/*
 * Pull the next piece of the stream: set *buf and return its length, 0 at
 * the end, or -1 on failure (the callback keeps its own message).
 */
typedef ssize_t	(*tarstream_read_fn)(void *arg, const void **buf);

/* Push a piece of the stream; 0, or a negative CLAW_ERR_* on failure. */
typedef int	(*tarstream_write_fn)(void *arg, const void *buf, size_t len);

/*
 * Extract a tar stream into the workspace of pg, taking only what ex says
 * was asked for (NULL: any entry pathguard accepts).  An entry whose type
 * differs from what is there replaces it (a directory there is removed
 * first, but never a .git beneath it).  Refused entries are logged
 * (log_warn, name escaped) and counted in st->refused; extraction goes
 * on.  Modes are those of the stream masked with the umask, read once per
 * call (umask(2) is set and set back: not for threaded callers).  The
 * data blocks of a sparse entry (GNU tar's pax formats) are written at
 * their offsets and the holes skipped, then the file is cut to its size.
 * Returns 0, or a negative CLAW_ERR_* with *cause set when the stream is
 * malformed, a limit is passed (CLAW_ERR_PERM, naming the limit), the
 * workspace root was replaced, or a write failed.  st may be NULL; lim
 * NULL means the TARSTREAM_MAX_*.
 */
int	tarstream_extract_expect(struct pathguard *pg, tarstream_read_fn rd,
	    void *arg, const struct tarstream_limits *lim,
	    const struct tarstream_expect *ex, struct tarstream_stats *st,
	    char **cause);

/* tarstream_extract_expect with ex NULL. */
int	tarstream_extract(struct pathguard *pg, tarstream_read_fn rd,
	    void *arg, const struct tarstream_limits *lim,
	    struct tarstream_stats *st, char **cause);

/*
 * Write a tar stream (POSIX pax) of paths[0..n) of pg's workspace: files
 * with content, directories, symbolic links as links.  A file with holes
 * (SEEK_DATA / SEEK_HOLE) gets a sparse map (GNU sparse 1.0 in pax,
 * which GNU tar and libarchive read back with the holes; at most
 * TARSTREAM_SPARSE_MAX data regions, else it goes whole).  A path that is
 * gone is skipped; one of another type (FIFO, device, socket) is skipped
 * with log_debug.  Returns 0 or a negative CLAW_ERR_* with *cause set.
 */
#define TARSTREAM_SPARSE_MAX	4096

int	tarstream_create(struct pathguard *pg, char *const *paths, size_t n,
	    tarstream_write_fn wr, void *arg, struct tarstream_stats *st,
	    char **cause);

/*
 * Remove from the directory dir of pg's workspace ("" for its top) the
 * temporary files (PATHGUARD_TMP_PREFIX and 16 hex digits) that a killed
 * extraction left: a file nobody holds locked (an extraction at work
 * locks its temporary, flock) and untouched for two seconds, or a link
 * older than a minute.  Returns how many were removed; errors are
 * ignored (the directory may not exist yet).
 */
size_t	tarstream_sweep(struct pathguard *pg, const char *dir);

/*
 * 0 when tar streams can be made and read here (libarchive, loaded on
 * first use, loads), else an error and *cause saying why: check it
 * before starting a transfer's other side.
 */
int	tarstream_ready(char **cause);

#endif /* CLAW_TARSTREAM_H */
