/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host-directory backend: a sandbox is a directory <root>/<id>/ on a
 * host, holding workspace/, meta.json and a last-used stamp, whether the
 * host is one we reach directly (records say backend "ssh") or a machine
 * a provider made (backend "managed": ../providers/ makes the machine and
 * hands back its endpoint; the sandbox on it is the same directory).
 * Every operation runs over an authenticated transport; it never decides
 * policy, it does what it is asked and reports what it finds.  Everything
 * a host sends back is hostile input.
 */
#ifndef CLAW_HOSTDIR_H
#define CLAW_HOSTDIR_H

#include <stddef.h>
#include <stdint.h>

#include "sandbox.h"

struct buf;
struct transport;

/* One sandbox as found on its host. */
struct hostdir_entry {
	struct sandbox_meta	meta;
	int64_t			created;	/* mtime of the metadata */
	int64_t			last_used;	/* mtime of last-used */
};

/* What a listing found. */
struct hostdir_listing {
	int64_t			 now;		/* the host's clock */
	struct hostdir_entry	*entries;
	size_t			 n;
	size_t			 corrupt;	/* sandboxes skipped as bad */
};

/* One root file system image in a host's store. */
struct hostdir_image {
	char			name[SANDBOX_IMAGE_MAX + 1];
	int64_t			imported;	/* epoch seconds */
	uint64_t		kib;		/* disk use */
};

/* The backend names records carry. */
#define HOSTDIR_BACKEND_SSH	"ssh"		/* a host reached directly */
#define HOSTDIR_BACKEND_MANAGED	"managed"	/* a provider's machine */

/* The backend name above that name spells (static), or NULL. */
const char	*hostdir_backend_name(const char *name);

/*
 * Find the sandbox want->id under root, or create it atomically (staged,
 * then renamed into place) with want as its metadata.  Fills *got with
 * what is there and sets *created.  Concurrent callers, on one machine or
 * several, get one sandbox.
 */
int	hostdir_get_or_create(struct transport *t, const char *root,
	    const struct sandbox_meta *want, struct hostdir_entry *got,
	    int *created, char **cause);

/*
 * List the sandboxes under root (only id when not NULL): with agent (the
 * host agent's path, or NULL) its box-entry, one process; the listing
 * script where there is none or it fails (which then says why).
 */
int	hostdir_list(struct transport *t, const char *root, const char *id,
	    const char *agent, struct hostdir_listing *out, char **cause);

/* Remove sandbox id under root; *existed says if it was there. */
int	hostdir_destroy(struct transport *t, const char *root, const char *id,
	    int *existed, char **cause);

/*
 * sh code to run before each command in the sandbox: fail clearly if it
 * is gone, and mark it used (allocated).  It leaves the positional
 * parameters alone.
 */
char	*hostdir_exec_pre(const char *root, const char *id);

/* The sandbox's workspace directory on the host (allocated). */
char	*hostdir_workspace(const char *root, const char *id);

/*
 * Import the root file system tarball read from in_fd as image name
 * (checked, not "host") under root; zflag is tar's flag for its
 * compression ("", "-z", "-J", "-j" or "--zstd").  Staged and renamed into
 * place; an existing name is refused.
 */
int	hostdir_image_import(struct transport *t, const char *root,
	    const char *name, int in_fd, const char *zflag,
	    struct hostdir_image *got, char **cause);

/* List the images under root (*list allocated, n entries). */
int	hostdir_image_list(struct transport *t, const char *root,
	    struct hostdir_image **list, size_t *n, char **cause);

/* Remove image name; refused while a sandbox uses it unless force. */
int	hostdir_image_rm(struct transport *t, const char *root,
	    const char *name, int force, char **cause);

/*
 * Give sandbox id want GPUs of the host (-1: all): the same ones again if
 * it has them, else the lowest free, reclaiming those of sandboxes that
 * are gone.  *got (allocated, sorted) holds the indexes.  Not enough free
 * GPUs is a clear error.
 */
int	hostdir_gpu_assign(struct transport *t, const char *root,
	    const char *id, int want, int **got, size_t *ngot, char **cause);

/* Free the entries of a listing and reset it; NULL-safe. */
void	hostdir_listing_clear(struct hostdir_listing *l);

/*
 * Parse the host's listing out (hostile: "clawssh-now T", then entries of
 * a header line and SIZE bytes of metadata) into *l; label names the host
 * in messages.  An entry with bad metadata is skipped with a warning (and
 * counted); broken framing fails the whole listing.  0, or CLAW_ERR_PARSE
 * with *cause and *l partly filled (hostdir_listing_clear).
 */
int	hostdir_parse_list(const char *label, const struct buf *out,
	    struct hostdir_listing *l, char **cause);

/*
 * The command that runs the host agent's box-entry (its path agent) for
 * root: id's entry, every entry for NULL; with run (the sandbox's run
 * directory, or NULL), then "clawssh-env" and the environment's status.
 * Allocated.
 */
char	*hostdir_entry_command(const char *agent, const char *root,
	    const char *id, const char *run);

/*
 * Parse box-entry's answer with run: the listing as hostdir_parse_list,
 * up to the "clawssh-env" line; *env_at is the offset after that line.
 * 0, or CLAW_ERR_PARSE with *cause (no such line among well-framed
 * entries too).
 */
int	hostdir_parse_entry_env(const char *label, const struct buf *out,
	    struct hostdir_listing *l, size_t *env_at, char **cause);

/*
 * Parse get-or-create's answer out: "clawssh-found" or "clawssh-created",
 * then exactly one entry.  0 with *got and *created, or CLAW_ERR_PARSE
 * with *cause.
 */
int	hostdir_parse_got(const char *label, const struct buf *out,
	    struct hostdir_entry *got, int *created, char **cause);

#endif /* CLAW_HOSTDIR_H */
