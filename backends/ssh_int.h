/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the ssh backend's source files share.
 */
#ifndef CLAW_SSH_INT_H
#define CLAW_SSH_INT_H

#include <stddef.h>

#define SSH_LINE_MAX	256	/* bytes of a header line from the host */

struct buf;
struct lines;
struct transport;

/* Run a script with stdin in[0..inlen), requiring status 0; out: stdout. */
int	ssh_run(struct transport *t, const char *script, const char *in,
	    size_t inlen, struct buf *out, char **cause);

/*
 * Take one line of at most SSH_LINE_MAX bytes from l (allocated, without
 * its newline); NULL at the end or for a line too long or unterminated.
 */
char	*ssh_line(struct lines *l);

struct backend_image;

/* The image store; see backend.h. */
int	ssh_image_import(struct transport *t, const char *root,
	    const char *name, int in_fd, const char *zflag,
	    struct backend_image *got, char **cause);
int	ssh_image_list(struct transport *t, const char *root,
	    struct backend_image **list, size_t *n, char **cause);
int	ssh_image_rm(struct transport *t, const char *root, const char *name,
	    int force, char **cause);

/* GPU assignment; see backend.h. */
int	ssh_gpu_assign(struct transport *t, const char *root, const char *id,
	    int want, int **got, size_t *ngot, char **cause);

#endif /* CLAW_SSH_INT_H */
