/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scripts for the host-side steps on a sandbox's workspace.  See
 * hostws.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "hostws.h"
#include "shquote.h"
#include "xmalloc.h"

/* Set h; see hostws.h. */
void
hostws_init(struct hostws *h, const char *dir, const char *jail)
{
	h->dir = xstrdup(dir);
	h->jail = jail != NULL ? xstrdup(jail) : NULL;
}

/* Free h's strings; see hostws.h. */
void
hostws_clear(struct hostws *h)
{
	free(h->dir);
	free(h->jail);
	h->dir = h->jail = NULL;
}

/* Append the step: the jail and exec, or cd and the body. */
static void
hostws_append(struct buf *b, const struct hostws *h, const char *body)
{
	if (h->jail != NULL) {
		buf_appendf(b, "%s\nexec \"$@\" sh -c ", h->jail);
		shquote_append(b, body);
		return;
	}
	buf_append_str(b, "mkdir -p -- ");
	shquote_append(b, h->dir);
	buf_append_str(b, " && cd -- ");
	shquote_append(b, h->dir);
	buf_appendf(b, " || exit 1\n%s", body);
}

/* A whole script; see hostws.h. */
char *
hostws_script(const struct hostws *h, const char *body)
{
	struct buf	b = BUF_INIT;

	hostws_append(&b, h, body);
	return buf_detach(&b);
}

/* The step as a child of the script; see hostws.h. */
char *
hostws_inline(const struct hostws *h, const char *body)
{
	struct buf	b = BUF_INIT;

	if (h->jail == NULL) {
		buf_append_str(&b, "(\n");
		hostws_append(&b, h, body);
		buf_append_str(&b, "\n)");
	} else {
		buf_appendf(&b, "%s\n\"$@\" sh -c ", h->jail);
		shquote_append(&b, body);
	}
	return buf_detach(&b);
}
