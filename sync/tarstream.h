/*
 * Tar streams of workspace files (libarchive), in both directions.
 *
 * Creating reads the local workspace through pathguard (no symbolic link
 * is followed, so nothing outside the workspace is sent).  Extracting
 * treats the stream as hostile: only the tar reader is enabled, every
 * name goes through pathguard's judgment, every write through its
 * directory fds, and hard links, devices, FIFOs and sockets are refused
 * one by one with a message naming the entry; setuid and setgid bits are
 * stripped; entry and byte caps stop archive bombs.  Each file is written
 * to a temporary name and renamed into place, so an interrupted stream
 * leaves every file old or new, never torn.
 */
#ifndef CLAW_TARSTREAM_H
#define CLAW_TARSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

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
};

/*
 * Pull the next piece of the stream: set *buf and return its length, 0 at
 * the end, or -1 on failure (the callback keeps its own message).
 */
typedef ssize_t	(*tarstream_read_fn)(void *arg, const void **buf);

/* Push a piece of the stream; 0, or -1 on failure. */
typedef int	(*tarstream_write_fn)(void *arg, const void *buf, size_t len);

/*
 * Extract a tar stream into the workspace of pg.  An entry whose type
 * differs from what is there replaces it (a directory there is removed
 * first).  Refused entries are logged (log_warn, name escaped) and counted
 * in st->refused; extraction goes on.  Returns 0, or a negative CLAW_ERR_*
 * with *cause set when the stream is malformed, a limit is passed
 * (CLAW_ERR_PERM, naming the limit), the workspace root was replaced, or
 * a write failed.  st may be NULL; lim NULL means the TARSTREAM_MAX_*.
 */
int	tarstream_extract(struct pathguard *pg, tarstream_read_fn rd,
	    void *arg, const struct tarstream_limits *lim,
	    struct tarstream_stats *st, char **cause);

/*
 * Write a tar stream (POSIX pax) of paths[0..n) of pg's workspace: files
 * with content, directories, symbolic links as links.  A path that is
 * gone is skipped; one of another type (FIFO, device, socket) is skipped
 * with log_debug.  Returns 0 or a negative CLAW_ERR_* with *cause set.
 */
int	tarstream_create(struct pathguard *pg, char *const *paths, size_t n,
	    tarstream_write_fn wr, void *arg, struct tarstream_stats *st,
	    char **cause);

#endif /* CLAW_TARSTREAM_H */
