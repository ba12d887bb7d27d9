/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What transfer.c and transfer_small.c share: running a step with its
 * stdin and stdout, the host sides' scripts and the agent's own steps.
 */
#ifndef CLAW_TRANSFER_INT_H
#define CLAW_TRANSFER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct hostws;
struct manifest;
struct manifest_entry;
struct pathguard;
struct tarstream_expect;
struct tarstream_limits;
struct tarstream_stats;
struct timespec;
struct transport;

#define TRANSFER_NOT_SMALL	1	/* transfer_*_small: stream it */
#define TRANSFER_SMALL_MAX	(1024 * 1024)	/* bytes of tar in memory */
#define TRANSFER_SMALL_PATHS	256	/* entries, at most */

/*
 * The files a pull's tar child wrote, as manifest text lines with their
 * hashes (transfer_hints.c), up to TRANSFER_HINTS_MAX bytes (over it:
 * none, over set).
 */
#define TRANSFER_HINTS_MAX	(8 * 1024 * 1024)
struct transfer_hints {
	struct buf	text;
	int		over;
};

/* The child's tarstream_written_fn (arg: a struct transfer_hints). */
void	transfer_hints_add(void *arg, const char *path, int64_t size,
	    const struct timespec *mtime, const unsigned char *hash);

/*
 * The hints of len bytes at data as a sorted manifest of hashed files, or
 * NULL when anything in them is malformed (they are then left unused).
 */
struct manifest *transfer_hints_parse(const char *data, size_t len);

/* A step's input and output (transfer_run). */
struct transfer_io {
	char *const		*self;	/* the agent's own step, or NULL */
	const struct buf	*in;	/* sent first on stdin, or NULL */
	int			 in_fd;	/* then this, or -1 */
	int			 out_fd;	/* stdout here, or -1: */
	struct buf		*out;	/* into this, up to out_max
					   (NULL: dropped, a little) */
	size_t			 out_max;
	int			*overflowed;	/* set when out filled up */
	int			 tolerant;	/* a failing tar is logged */
};

/* "clawssh-agent fs-unpack" and "clawssh-agent fs-pack". */
extern char *const	transfer_self_unpack[];
extern char *const	transfer_self_pack[];

/*
 * Run body on the host, as a step of hw (hostws_run), or with hw NULL as
 * a whole script, with io's stdin and stdout; *statusp gets the exit
 * status.  With io->self (and hw joined), the agent's own step in place
 * of body where the environment runs it.  A local SIGINT, SIGTERM or
 * SIGHUP ends it at once: CLAW_ERR_INTERRUPTED.  1: io->self ran on an
 * agent that lacks it, after stdin may have gone: start again without.
 */
int	transfer_run(struct transport *t, const struct hostws *hw,
	    const char *body, const struct transfer_io *io, int *statusp,
	    char **cause);

/*
 * The host side of a push (see transfer.c): a step's body (*step set),
 * or for a seed (stage) a whole script.
 */
char	*transfer_push_script(const struct hostws *hw, int stage, int exact,
	    int *step);

/* Append the host side of a pull of n names (0: all) as ex asks. */
void	transfer_pull_script(struct buf *b, size_t n,
	    const struct tarstream_expect *ex);

/* Check every path with pathguard before it reaches a command line. */
int	transfer_check_paths(char *const *paths, size_t n, char **cause);

/* Append "./PATH\n" for each of paths[0..n). */
void	transfer_names(struct buf *b, char *const *paths, size_t n);

/* The tar stream of the entries a pull expects, about (0: unknown). */
uint64_t transfer_expect_want(const struct tarstream_expect *ex);

/*
 * A push of exactly paths[0..n) (transfer_push_list) or a pull of
 * exactly ex's entries (transfer_pull_list) that is small (at most
 * TRANSFER_SMALL_PATHS entries and TRANSFER_SMALL_MAX bytes of tar),
 * packed or unpacked in this process from memory, with no child
 * process; TRANSFER_NOT_SMALL (nothing done) otherwise.
 */
int	transfer_push_small(struct transport *t, struct pathguard *pg,
	    const struct hostws *hw, char *const *paths, size_t n,
	    struct tarstream_stats *st, char **cause);
int	transfer_pull_small(struct transport *t, struct pathguard *pg,
	    const struct hostws *hw, char *const *paths, size_t n,
	    const struct tarstream_expect *ex,
	    const struct tarstream_limits *lim, struct tarstream_stats *st,
	    char **cause);

#endif /* CLAW_TRANSFER_INT_H */
