/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Turning a failed remote script's stderr into one message: the scripts
 * report "clawssh-error: MESSAGE" lines; anything else is shown as it
 * came, with the exit status.  Remote text is hostile: it is cut short and
 * control characters become '?'.
 */
#ifndef CLAW_REMOTE_ERR_H
#define CLAW_REMOTE_ERR_H

#include <stddef.h>

struct buf;
struct transport;

#define REMOTE_ERR_MAX	300	/* bytes of remote text in a message */

/* Copy n bytes of remote text, cut at REMOTE_ERR_MAX, made printable. */
char	*remote_err_clean(const char *p, size_t n);

/*
 * The message of err's first "clawssh-error: " line, cleaned, or NULL if
 * it has none.  Allocated.
 */
char	*remote_err_tagged(const struct buf *err);

/*
 * "HOST: MESSAGE" from the first clawssh-error line of err, else
 * "HOST: STDERR (remote status N)".  Allocated.
 */
char	*remote_err_explain(struct transport *t, const struct buf *err,
	    int status);
/* As remote_err_explain, the host named by label. */
char	*remote_err_explain_label(const char *label, const struct buf *err,
	    int status);

#endif /* CLAW_REMOTE_ERR_H */
