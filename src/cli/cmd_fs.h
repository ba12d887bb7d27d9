/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the file tool commands (read, write, edit, ls, stat, apply-patch)
 * share: their options, and opening the right copy of a sandbox's
 * workspace -- the local one in mirror mode, the host's in remote mode or
 * with access none.
 */
#ifndef CLAW_CMD_FS_H
#define CLAW_CMD_FS_H

#include <stdint.h>

#include "cmd_box.h"
#include "contain_bwrap.h"

struct fstore;
struct pathguard;

struct cmd_fs {
	struct cmd_box		 b;
	const char		*tool;		/* "read", ... for messages */
	const char		*id;		/* -s ID */
	int			 push, json, lines, all;
	int			 timeout;	/* --timeout, -1: not given */
	uint64_t		 offset, limit;
	const char		*old, *new;
	char			**args;		/* after the options */
	int			 nargs;
	struct pathguard	*pg;		/* local store */
	struct fstore		*fs;		/* after cmd_fs_open */
	int			 local;		/* fs is the local copy */
	struct contain_route	 route;		/* steps into the running
						   environment (b.steps) */
};

/*
 * Parse argv for the file tool of the JSON-RPC method (fs.read, ...)
 * into f: its options are that operation's in src/ops/ops_table.c
 * (cmd_ops.h).  Returns 0, -1 after printing usage for --help, or an
 * exit status.
 */
int	cmd_fs_parse(struct cmd_fs *f, const char *method, const char *usage,
	    int argc, char **argv);

/*
 * Load the sandbox and open its canonical copy; with writing set, refuse
 * a read-only workspace.  The host's copy is reached through the
 * sandbox's running environment when it can take the steps, else
 * through its step jail (cmd_box_hostws), each call bounded by --timeout
 * (default FSTORE_TIMEOUT).  Returns 0 or an exit status (printed).
 */
int	cmd_fs_open(struct cmd_fs *f, int writing);

/* After a local change: push it up now if --push was given.  0 or status. */
int	cmd_fs_after_write(struct cmd_fs *f);

struct buf;

/*
 * Read all of stdin into b, at most FSTORE_FILE_MAX bytes.  0, or an exit
 * status after printing why.
 */
int	cmd_fs_stdin(struct cmd_fs *f, struct buf *b);

/* Print "clawssh: TOOL: cause", free cause, return the exit status. */
int	cmd_fs_fail(struct cmd_fs *f, char *cause);

/*
 * As cmd_fs_fail for the failure r of an fstore call: the exit status is
 * EXEC_STATUS_TIMEOUT (124, as exec) when r is CLAW_ERR_TIMEOUT.
 */
int	cmd_fs_error(struct cmd_fs *f, int r, char *cause);

/* Release everything. */
void	cmd_fs_free(struct cmd_fs *f);

#endif /* CLAW_CMD_FS_H */
