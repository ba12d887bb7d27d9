/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A reader for the tar streams clawssh's client writes (libarchive's pax
 * format, sync/tarstream.c): ustar headers, pax extended headers (path,
 * linkpath, mtime to the nanosecond, size) and GNU sparse format 1.0.
 * Files, directories and symbolic links; any other entry type is an
 * error.  Every length is capped; nothing here touches a file system.
 */
#ifndef CLAW_AGENT_FS_TAR_H
#define CLAW_AGENT_FS_TAR_H

#include <sys/types.h>

#include <stdint.h>
#include <time.h>

#define TAR_BLOCK	512
#define TAR_PAX_MAX	(64 * 1024)	/* one extended header */
#define TAR_SPARSE_MAX	4096		/* segments of one sparse file */

/* Reads len bytes into p: len, 0 at the end of input, -1 on error. */
typedef ssize_t	tar_read_fn(void *arg, void *p, size_t len);

enum tar_type {
	TAR_FILE,
	TAR_DIR,
	TAR_SYMLINK
};

/* A data segment of a file: size bytes at off (the rest is a hole). */
struct tar_seg {
	uint64_t	off;
	uint64_t	size;
};

struct tar_entry {
	enum tar_type	 type;
	char		*path;		/* as stored: tar_path_clean it */
	char		*link;		/* TAR_SYMLINK's target */
	mode_t		 mode;		/* permission bits (07777) */
	struct timespec	 mtime;
	uint64_t	 size;		/* the file's size (sparse: real) */
	uint64_t	 stored;	/* data bytes in the stream */
	struct tar_seg	*segs;		/* sparse: nsegs, else NULL */
	size_t		 nsegs;
};

struct tar_rd {
	tar_read_fn	*rd;
	void		*arg;
	uint64_t	 left;		/* of the entry's data, unread */
	uint64_t	 pad;		/* to the next block */
	char		 err[160];	/* why the last call failed */
};

/* Start reading with rd(arg). */
void	tar_init(struct tar_rd *t, tar_read_fn *rd, void *arg);

/*
 * The next entry into e (freed with tar_entry_clear): 1, 0 at the
 * archive's end (a zero block or the end of input), -1 with t->err.
 * Its data, if any, is read next with tar_data; what is left of it is
 * skipped by the next call.
 */
int	tar_next(struct tar_rd *t, struct tar_entry *e);

/* Up to len of the entry's data into p: bytes read, 0 at its end, -1. */
ssize_t	tar_data(struct tar_rd *t, void *p, size_t len);

/* Free what e holds. */
void	tar_entry_clear(struct tar_entry *e);

/*
 * Make path a plain relative path in place: "./" and "." components
 * and a trailing "/" dropped; 0, or -1 for an empty or absolute path or
 * one with a ".." component.
 */
int	tar_path_clean(char *path);

#endif /* CLAW_AGENT_FS_TAR_H */
