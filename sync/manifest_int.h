/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the manifest scanner: what manifest_scan.c shares with
 * manifest_rescan.c, which updates a manifest from a list of paths.
 */
#ifndef CLAW_MANIFEST_INT_H
#define CLAW_MANIFEST_INT_H

#include "sha256.h"

#include "manifest.h"

#define SCAN_CHUNK	(64 * 1024)	/* bytes per read when hashing */
#define SCAN_GONE	0		/* type of an entry that vanished */

/* Paths left out for being over the limits (manifest_path_over). */
struct manifest_over {
	size_t		 n;
	char		*first;		/* the first one's top, raw */
	int		 cut;		/* first holds only its start */
};

/* Count path, over the limits from its first top bytes on. */
void	manifest_over_add(struct manifest_over *, const char *path,
	    size_t top);

/* Warn once about what o counted ("it stays WHERE"); clear o. */
void	manifest_over_report(struct manifest_over *, const char *where);

/* One scan in progress. */
struct scan {
	struct manifest		*m;
	const struct manifest	*prev;
	manifest_skip_cb	 skip;
	void			*arg;
	int			 flags;
	struct manifest_over	 over;		/* paths left out */
	unsigned char		*chunk;		/* SCAN_CHUNK bytes, lazily */
	struct sha256		 md;
	char			**cause;
};

/* Store a cause for path and the current errno; return the mapped code. */
int	mscan_errno(struct scan *, const char *path, const char *what);

/* Return 1 for errno values that mean the path changed under the scan. */
int	mscan_raced(int err);

/*
 * Judge (skip callback) and record the entry name of the open directory
 * dirfd, whose relative path is reldir; *is_dir is set to 1 if it is a
 * directory to enter.
 */
int	mscan_entry(struct scan *, int dirfd, const char *reldir,
	    const char *name, int *is_dir);

/* Scan the open directory dirfd (relative path reldir) and below. */
int	mscan_dir(struct scan *, int dirfd, const char *reldir, int depth);

/* Drop the entries marked SCAN_GONE. */
void	mscan_compact(struct manifest *m);

#endif /* CLAW_MANIFEST_INT_H */
