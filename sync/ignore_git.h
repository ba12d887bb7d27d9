/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The files git tracks in the local workspace (see ignore_git.c for how
 * git is run safely).  Used by ignore.c only.
 */
#ifndef CLAW_IGNORE_GIT_H
#define CLAW_IGNORE_GIT_H

struct buf;

#define IGNORE_GIT_MAX	(64 * 1024 * 1024)	/* bytes of names read */
#define IGNORE_GIT_MS	10000			/* git answers by then */

/*
 * Ask git which files it tracks at and below the directory rootfd (a
 * workspace inside a checkout, or one): 0 with the paths, relative to
 * rootfd and NUL-terminated each, appended to out.  CLAW_ERR_NOTFOUND
 * when there is no git or rootfd is in no checkout (or git refuses it,
 * e.g. a repository owned by another user); CLAW_ERR_TIMEOUT,
 * CLAW_ERR_RANGE or another negative code when git hangs, says too much
 * or cannot be run.  *cause is set on failure and out is then empty.
 */
int	ignore_git_tracked(int rootfd, struct buf *out, char **cause);

#endif /* CLAW_IGNORE_GIT_H */
