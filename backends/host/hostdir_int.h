/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the host-directory backend's source files share.
 */
#ifndef CLAW_HOSTDIR_INT_H
#define CLAW_HOSTDIR_INT_H

#include <stddef.h>

#define HOSTDIR_LINE_MAX	256	/* bytes of a header line from the host */

struct buf;
struct lines;
struct transport;

/*
 * The script body with its positional parameters (hostdir_scripts.h):
 * a "set --" line of the words after body, each quoted, up to a NULL;
 * then body.  Allocated.
 */
char	*hostdir_script(const char *body, ...)
	    __attribute__((__sentinel__));

/* Run a script with stdin in[0..inlen), requiring status 0; out: stdout. */
int	hostdir_run(struct transport *t, const char *script, const char *in,
	    size_t inlen, struct buf *out, char **cause);

/*
 * Take one line of at most HOSTDIR_LINE_MAX bytes from l (allocated, without
 * its newline); NULL at the end or for a line too long or unterminated.
 */
char	*hostdir_line(struct lines *l);

#endif /* CLAW_HOSTDIR_INT_H */
