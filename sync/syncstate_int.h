/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the sync state: what sync/syncstate.c (the state, its views and
 * its writes) shares with sync/syncstate_log.c (the log's format: its
 * header, its checksummed blocks, reading and formatting them).
 */
#ifndef CLAW_SYNCSTATE_INT_H
#define CLAW_SYNCSTATE_INT_H

#include <sys/stat.h>

#include <stddef.h>
#include <stdint.h>

struct buf;
struct manifest;

#define SS_LOG_MAX	(64 * 1024 * 1024)	/* a longer log is unusable */
#define SS_RACED	"another clawssh synced this sandbox at the same " \
			"time"		/* the reason an "X" line gives */

/* One change: everything at and below the scope paths is now m. */
struct ss_layer {
	char		**v;		/* sorted, none below another; owned */
	size_t		  n;
	struct manifest	 *m;		/* the entries there, sorted */
};

struct syncstate {
	int		 dirfd;
	char		*name;		/* "<id>.manifest" */
	char		*logname;	/* "<id>.manifest.log" */
	char		*map;		/* the manifest, mapped */
	size_t		 len;
	size_t		 body;		/* offset of its first entry line */
	struct stat	 st;		/* its identity, for the log header */
	int		 missing;	/* nothing saved yet */
	char		*noview;	/* why views cannot work, or NULL */
	char		*damaged;	/* what was lost or unreadable, or NULL */
	int		 oldlog;	/* the log is in the old format (1) */
	int		 log_fresh;	/* the log must be written anew */
	size_t		 loglen;	/* bytes in the log */
	long long	 logseen;	/* its size as we left it, -1: none */
	int		 foreign;	/* holds blocks we did not read */
	struct ss_layer	*l;		/* the log's blocks, then staged ones */
	size_t		 nl, nsaved, cap;
};

/* Add a layer (taking v's strings and m) to s. */
void	syncstate_layer_push(struct syncstate *s, char **v, size_t n,
	    struct manifest *m);

/* Free one layer's contents. */
void	syncstate_layer_free(struct ss_layer *l);

/* Drop every layer of s. */
void	syncstate_layers_free(struct syncstate *s);

/* The CRC-32 (IEEE 802.3, as zlib's crc32) of len bytes at p. */
uint32_t syncstate_crc32(const void *p, size_t len);

/* The log header (a line, allocated) for the manifest whose identity is st. */
char	*syncstate_log_header(const struct stat *st);

/*
 * Read the log beside s's manifest into s's layers.  What cannot be used
 * sets s->noview; what was lost (a dropped tail, an unreadable log) sets
 * s->damaged too.  Never fails otherwise.
 */
void	syncstate_log_read(struct syncstate *s);

/* Parse the log text (len bytes) into s's layers; see syncstate_log_read. */
void	syncstate_log_parse(struct syncstate *s, const char *text,
	    size_t len);

/* Append s's layers [nsaved, nl) to b as checksummed log blocks. */
void	syncstate_log_format(const struct syncstate *s, struct buf *b);

#endif /* CLAW_SYNCSTATE_INT_H */
