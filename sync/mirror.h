/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Mirror mode: the local workspace is canonical.  Before each command the
 * local changes since the last sync go up; after it, what the command
 * changed on the host comes down.  The last synced state is a manifest
 * kept in the local state directory.
 *
 * Both sides changing one file between syncs is a conflict: the local
 * version is kept, the host's is saved beside it as NAME.clawssh-remote,
 * and the conflict is reported.  If the host's workspace has vanished or
 * become empty, the pull stops instead of deleting the local workspace.
 */
#ifndef CLAW_MIRROR_H
#define CLAW_MIRROR_H

#include <stddef.h>

#include "hostws.h"

#include "tarstream.h"

struct buf;
struct ignore;
struct manifest;
struct pathguard;
struct syncstate;
struct transport;

#define MIRROR_CONFLICT_SUFFIX	".clawssh-remote"

/*
 * What the daemon can tell a mirror: the local change journal and the
 * host's change watcher.  The caller, which knows the daemon, fills it
 * in (sync/ never speaks the control protocol); take NULL: no daemon,
 * so every push scans and every pull lists.
 */
enum mirror_take_kind {
	MIRROR_TAKE_JOURNAL,	/* paths changed here since the last take */
	MIRROR_TAKE_WATCH	/* paths the host's watcher saw change */
};
struct mirror_hints {
	/*
	 * Send req for kind and wait up to timeout_ms: 0 with the answer in
	 * rep ("P" or "L", NUL, ...: see docs/daemon.md), or 1 with *why
	 * (allocated) when none is to be had.
	 */
	int	(*take)(void *arg, enum mirror_take_kind kind,
		    const struct buf *req, int timeout_ms, struct buf *rep,
		    char **why);
	void	(*ack)(void *arg);	/* what was taken is synced */
	void	*arg;
};

struct mirror {
	struct transport	*t;
	struct mirror_hints	 hints;		/* set after mirror_open */
	struct pathguard	*pg;
	struct hostws		 hw;		/* the sandbox workspace */
	int			 statefd;	/* holds the manifests */
	char			*name;		/* "<id>.manifest" */
	char			*id;		/* the journal's consumer */
	char			*excl;		/* sync.exclude, NUL-separated */
	size_t			 excl_len;
	int			 journal;	/* took from the daemon's journal */
	char			**touched;	/* paths the pull changed here */
	size_t			 ntouched, ctouched;
	struct ignore		*ig;
	const struct manifest	*known;		/* synced: .gitignore spares */
	struct manifest		*pulled;	/* what the pull wrote, hashed */
	struct syncstate	*st;		/* the saved sync state */
	struct manifest		*base;		/* state after the push */
	char			**scope;	/* base is a view of these */
	size_t			 nscope;
	int			 partial;	/* (not the whole state) */
	int			 staged;	/* base staged in st */
	int			 base_unsaved;	/* saved by the pull or close */
	int			 allow_inline;	/* small pushes go with the exec */
	int			 allow_mass_delete; /* guard off (one exec) */
	char			*inl_tar;	/* that push: tar stream */
	size_t			 inl_len;
	char			*inl_pre;	/* and the script unpacking it */
	int			 push_failed;	/* it did not arrive */
	const char		*local_how;	/* "journal" or "scan" */
	const char		*remote_how;	/* "watcher" or "listing" */
	struct tarstream_stats	 up, down;
	size_t			 deleted_remote, deleted_local, conflicts;
	int			 healing;	/* the state was damaged */
};

/*
 * Prepare to mirror the workspace of pg to hw (copied) over t, keeping the
 * manifest in statedir (created 0700) under id.  extra/nextra are config
 * exclude patterns.  Returns 0 or a negative CLAW_ERR_* with *cause.
 */
int	mirror_open(struct mirror *m, struct transport *t,
	    struct pathguard *pg, const struct hostws *hw, const char *statedir,
	    const char *id, const char *const *extra, size_t nextra,
	    char **cause);

/*
 * Send local changes since the last sync (everything the first time).
 * Through the daemon they come from its change journal (see
 * daemon_journal.c), so only the changed paths are looked at; otherwise,
 * or when the journal cannot say, the workspace is scanned (-v says why).
 */
int	mirror_push(struct mirror *m, char **cause);

/*
 * With allow_inline set, mirror_push keeps a small push (at most 1 MiB of
 * tar, 32 KiB of deletions) to go with the command instead of using a
 * channel of its own: mirror_inline returns the sh text for the command's
 * "pre" step (NULL if there is nothing) and the bytes to send on its stdin
 * after the preamble.  The command must be run with exec_opts.synced set,
 * and mirror_inline_done told whether the REMOTE_CMD_SYNCED line came:
 * if not, nothing is saved and mirror_pull refuses.
 */
const char	*mirror_inline(const struct mirror *m, const char **data,
		    size_t *len);
void		 mirror_inline_done(struct mirror *m, int synced);

/*
 * Bring down what changed on the host since mirror_push, apply remote
 * deletions, keep conflicts as NAME.clawssh-remote, and record the new
 * synced state.  Returns 0 or negative (the workspace is left as it was
 * for whatever was not yet applied).
 */
int	mirror_pull(struct mirror *m, char **cause);

/*
 * What the next sync would move: objects {"change": KIND, "path": PATH}
 * (KIND: added, modified, mode, link, deleted) added to the arrays up
 * for local changes and down for the host's changes since the last sync;
 * *synced is 0 before the first sync (then nothing is listed down).
 * Returns 0 or negative.
 */
struct cJSON;
int	mirror_status(struct mirror *m, struct cJSON *up, struct cJSON *down,
	    int *synced, char **cause);

/*
 * After an explicit transfer of v[0..n) (everything when n is 0): save
 * as synced, at and below those paths, what the local tree and the
 * host's listing now agree on; where they still differ the old state
 * stays, so the next exec moves that change as it would have.  Entries
 * outside the paths keep their state.  Returns 0 or negative.
 */
int	mirror_record(struct mirror *m, char *const *v, size_t n,
	    char **cause);

/*
 * The files a pull just wrote, with their sizes, times and hashes
 * (transfer_pull's hints; m takes them, NULL is none): the scans after it
 * take a file's hash from there when they find it with that size and
 * time, instead of reading it again.
 */
void	mirror_pulled(struct mirror *m, struct manifest *pulled);

/*
 * Release everything; the pathguard and transport stay the caller's.  A
 * push not followed by a pull has its state saved here (a failure is
 * only a warning: the next sync then sends those changes again).
 */
void	mirror_close(struct mirror *m);

#endif /* CLAW_MIRROR_H */
