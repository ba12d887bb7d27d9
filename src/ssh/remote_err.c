/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Messages from failed remote scripts.  See remote_err.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "remote_err.h"
#include "transport.h"
#include "xmalloc.h"

#define REMOTE_ERR_TAG	"clawssh-error: "

/* Copy remote text, short and printable; see remote_err.h. */
char *
remote_err_clean(const char *p, size_t n)
{
	char	*s;
	size_t	 i;

	if (n > REMOTE_ERR_MAX)
		n = REMOTE_ERR_MAX;
	s = xstrndup(p, n);
	for (i = 0; s[i] != '\0'; i++) {
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			s[i] = '?';
	}
	return s;
}

/* The first clawssh-error line's message; see remote_err.h. */
char *
remote_err_tagged(const struct buf *err)
{
	const char	*p;

	p = err->data != NULL ? strstr(err->data, REMOTE_ERR_TAG) : NULL;
	if (p == NULL)
		return NULL;
	p += strlen(REMOTE_ERR_TAG);
	return remote_err_clean(p, strcspn(p, "\n"));
}

/* Explain a failed script; see remote_err.h. */
char *
remote_err_explain(struct transport *t, const struct buf *err, int status)
{
	return remote_err_explain_label(transport_label(t), err, status);
}

/* The message of a failed remote script, the host named; see remote_err.h. */
char *
remote_err_explain_label(const char *label, const struct buf *err,
    int status)
{
	char	*msg, *out;

	if ((msg = remote_err_tagged(err)) != NULL) {
		out = xasprintf("%s: %s", label, msg);
	} else {
		msg = remote_err_clean(err->data != NULL ? err->data : "",
		    err->len);
		out = xasprintf("%s: %s%s(remote status %d)", label, msg,
		    *msg != '\0' ? " " : "", status);
	}
	free(msg);
	return out;
}
