/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The remote file store's read, stat and list calls as text, free of any
 * transport: the sh body of each (fstore_scripts.h: the prelude and the
 * operation, run at the workspace) and the parse of what comes back, with
 * caps, like any remote output.  fstore_remote.c runs them over a
 * transport; the daemon runs them on the host agent's channel itself
 * (daemon_fs.c), so both say the same things.
 */
#ifndef CLAW_FSTORE_WIRE_H
#define CLAW_FSTORE_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "fstore.h"

struct buf;

#define FSTORE_WIRE_READ_MAX	(FSTORE_FILE_MAX + 64)	/* a read's reply */
#define FSTORE_WIRE_LIST_MAX	(64 * 1024 * 1024)	/* a listing's */
#define FSTORE_WIRE_COMMIT_MAX	4096			/* a commit's */

/* The bodies (allocated) of a read of path, a stat and a listing. */
char	*fstore_wire_read(const char *path, uint64_t off, uint64_t lim);
char	*fstore_wire_stat(const char *path);
char	*fstore_wire_list(const char *path);

/*
 * A commit's body (allocated; its temporaries' tag fresh and random),
 * and its stdin for ch[0..n) appended to b: the header lines, ".", then
 * the data (fstore_scripts.h).  It replies nothing on success.
 */
char	*fstore_wire_commit(void);
void	 fstore_wire_commit_request(const struct fstore_change *ch,
	     size_t n, struct buf *b);

/*
 * A read's reply o[0..len): the line "clawssh-mode MODE LEN", then
 * exactly LEN bytes (fewer: the file changed or was swapped for a FIFO
 * while being read).  Sets *data (inside o), *dlen and *mode.
 */
int	fstore_wire_read_reply(const char *o, size_t len, const char *path,
	    const char **data, size_t *dlen, unsigned *mode, char **cause);

/* A stat's reply: one find record. */
int	fstore_wire_stat_reply(const char *o, size_t len, const char *path,
	    struct fstore_stat *st, char **cause);

/* A listing's reply: find records, at most FSTORE_LIST_MAX, sorted. */
int	fstore_wire_list_reply(const char *o, size_t len, const char *path,
	    struct fstore_entry **out, size_t *n, char **cause);

/*
 * A call whose step ended with a status other than 0: the host's
 * clawssh-error line from err[0..errlen) if any (CLAW_ERR_NOTFOUND for
 * "no such file", else CLAW_ERR_INVAL), else CLAW_ERR_PROTO naming label
 * (the host) and the status.
 */
int	fstore_wire_failure(const char *label, const char *err, size_t errlen,
	    int status, char **cause);

#endif /* CLAW_FSTORE_WIRE_H */
