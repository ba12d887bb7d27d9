/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sandbox backends: where sandboxes live and how they are made, behind one
 * function table.  Every operation runs over an authenticated transport;
 * backends never decide policy, they do what they are asked and report
 * what they find.  Everything a host sends back is hostile input.
 */
#ifndef CLAW_BACKEND_H
#define CLAW_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "sandbox.h"

struct transport;

/* One sandbox as found on its host. */
struct backend_entry {
	struct sandbox_meta	meta;
	int64_t			created;	/* mtime of the metadata */
	int64_t			last_used;	/* mtime of last-used */
};

/* What a listing found. */
struct backend_list {
	int64_t			 now;		/* the host's clock */
	struct backend_entry	*entries;
	size_t			 n;
	size_t			 corrupt;	/* sandboxes skipped as bad */
};

/* One root file system image in a host's store. */
struct backend_image {
	char			name[SANDBOX_IMAGE_MAX + 1];
	int64_t			imported;	/* epoch seconds */
	uint64_t		kib;		/* disk use */
};

struct backend_ops {
	const char	*name;

	/*
	 * Find the sandbox want->id under root, or create it atomically
	 * (staged, then renamed into place) with want as its metadata.
	 * Fills *got with what is there and sets *created.  Concurrent
	 * callers, on one machine or several, get one sandbox.
	 */
	int	(*get_or_create)(struct transport *t, const char *root,
		    const struct sandbox_meta *want, struct backend_entry *got,
		    int *created, char **cause);

	/* List the sandboxes under root (only id when not NULL). */
	int	(*list)(struct transport *t, const char *root, const char *id,
		    struct backend_list *out, char **cause);

	/* Remove sandbox id under root; *existed says if it was there. */
	int	(*destroy)(struct transport *t, const char *root,
		    const char *id, int *existed, char **cause);

	/*
	 * sh code to run before each command in the sandbox: fail clearly
	 * if it is gone, and mark it used (allocated).
	 */
	char	*(*exec_pre)(const char *root, const char *id);

	/* The sandbox's workspace directory on the host (allocated). */
	char	*(*workspace)(const char *root, const char *id);

	/*
	 * Import the root file system tarball read from in_fd as image
	 * name (checked, not "host") under root; zflag is tar's flag for
	 * its compression ("", "-z", "-J", "-j" or "--zstd").  Staged and
	 * renamed into place; an existing name is refused.
	 */
	int	(*image_import)(struct transport *t, const char *root,
		    const char *name, int in_fd, const char *zflag,
		    struct backend_image *got, char **cause);

	/* List the images under root (*list allocated, n entries). */
	int	(*image_list)(struct transport *t, const char *root,
		    struct backend_image **list, size_t *n, char **cause);

	/*
	 * Give sandbox id want GPUs of the host (-1: all): the same ones
	 * again if it has them, else the lowest free, reclaiming those of
	 * sandboxes that are gone.  *got (allocated, sorted) holds the
	 * indexes.  Not enough free GPUs is a clear error.
	 */
	int	(*gpu_assign)(struct transport *t, const char *root,
		    const char *id, int want, int **got, size_t *ngot,
		    char **cause);

	/* Remove image name; refused while a sandbox uses it unless force. */
	int	(*image_rm)(struct transport *t, const char *root,
		    const char *name, int force, char **cause);
};

extern const struct backend_ops backend_ssh;
extern const struct backend_ops backend_managed;	/* see managed.h */

/* Free the entries of a listing and reset it; NULL-safe. */
void	backend_list_clear(struct backend_list *l);

/* Find the backend called name, or NULL. */
const struct backend_ops	*backend_find(const char *name);

#endif /* CLAW_BACKEND_H */
