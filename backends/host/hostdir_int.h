/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the host-directory backend's source files share.
 */
#ifndef CLAW_HOSTDIR_INT_H
#define CLAW_HOSTDIR_INT_H

#include <stddef.h>

#define HOSTDIR_LINE_MAX	256	/* bytes of a header line from the host */

struct buf;
struct hostdir_entry;
struct hostdir_listing;
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
 * Parse get-or-create's answer out: "clawssh-found" or "clawssh-created",
 * then exactly one entry.  0 with *got and *created, or CLAW_ERR_PARSE
 * with *cause.
 */
int	hostdir_parse_got(const char *label, const struct buf *out,
	    struct hostdir_entry *got, int *created, char **cause);

#endif /* CLAW_HOSTDIR_INT_H */
