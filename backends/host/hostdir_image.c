/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host-directory backend's image store: root file systems under
 * <remoteRoot>/images/<name>/rootfs, imported from a tarball streamed over
 * one channel, listed, removed.  See hostdir.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "exec.h"
#include "hostdir.h"
#include "hostdir_int.h"
#include "hostdir_scripts.h"
#include "lines.h"
#include "remote_err.h"
#include "transport.h"
#include "xmalloc.h"

#define IMG_OUT_MAX	(1024 * 1024)	/* listing bytes */
#define IMG_MAX		10000		/* images listed */

/*
 * Parse the line[0..len) "clawssh-image NAME TIME KIB" (single spaces,
 * digits only) into im; 0 or CLAW_ERR_PARSE.
 */
static int
img_parse(const char *line, size_t len, struct hostdir_image *im)
{
	struct lines	 w;
	const char	*s;
	char		 name[SANDBOX_IMAGE_MAX + 1];
	size_t		 n;
	uint64_t	 when, kib;

	memset(im, 0, sizeof *im);
	lines_init(&w, line, len);
	if (lines_expect(&w, "clawssh-image") != 0 ||
	    lines_word(&w, &s, &n) != 0 || n > SANDBOX_IMAGE_MAX ||
	    memchr(s, '\0', n) != NULL ||
	    lines_number(&w, 0, INT64_MAX, &when) != 0 ||
	    lines_number(&w, 0, UINT64_MAX, &kib) != 0 || lines_left(&w) != 0)
		return CLAW_ERR_PARSE;
	memcpy(name, s, n);
	name[n] = '\0';
	if (sandbox_image_check(name, NULL) != 0 || strcmp(name, "host") == 0)
		return CLAW_ERR_PARSE;
	memcpy(im->name, name, n + 1);
	im->imported = (int64_t)when;
	im->kib = kib;
	return 0;
}

/* Import an image; see hostdir.h. */
int
hostdir_image_import(struct transport *t, const char *root, const char *name,
    int in_fd, const char *zflag, struct hostdir_image *got, char **cause)
{
	struct exec_opts	 o;
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	struct lines		 lr;
	const char		*line;
	char			*script;
	size_t			 n;
	int			 rc, status = 0;

	script = hostdir_script(HOSTDIR_SCRIPT_IMAGE_IMPORT, root, name, zflag,
	    NULL);
	memset(&o, 0, sizeof o);
	o.forward_stdin = 1;
	o.in_fd = in_fd;
	o.out.fd = o.err.fd = -1;
	o.out.buf = &out;
	o.err.buf = &err;
	o.out.max = o.err.max = 64 * 1024;
	rc = exec_sh(t, script, &o, &status, cause);
	if (rc == 0 && status != 0) {
		*cause = remote_err_explain(t, &err, status);
		rc = CLAW_ERR_PROTO;
	}
	lines_init(&lr, out.data, out.len);
	if (rc == 0 && (lines_next(&lr, HOSTDIR_LINE_MAX, &line, &n) != 0 ||
	    img_parse(line, n, got) != 0 || strcmp(got->name, name) != 0))
		rc = claw_fail(cause, CLAW_ERR_PROTO, "%s: garbled reply to "
		    "the image import", transport_label(t));
	free(script);
	buf_free(&out);
	buf_free(&err);
	return rc;
}

/* List images; see hostdir.h. */
int
hostdir_image_list(struct transport *t, const char *root,
    struct hostdir_image **list, size_t *n, char **cause)
{
	struct hostdir_image	*v = NULL;
	struct buf		 out = BUF_INIT;
	struct lines		 lr;
	const char		*line;
	char			*script;
	size_t			 k = 0, ll;
	int			 rc;

	script = hostdir_script(HOSTDIR_SCRIPT_IMAGE_LIST, root, NULL);
	rc = hostdir_run(t, script, NULL, 0, &out, cause);
	lines_init(&lr, out.data, out.len);
	while (rc == 0 && lines_left(&lr) != 0) {
		v = xreallocarray(v, k + 1, sizeof *v);
		if (k >= IMG_MAX ||
		    lines_next(&lr, HOSTDIR_LINE_MAX, &line, &ll) != 0 ||
		    img_parse(line, ll, &v[k]) != 0)
			rc = claw_fail(cause, CLAW_ERR_PROTO, "%s: garbled "
			    "image listing", transport_label(t));
		k++;
	}
	free(script);
	buf_free(&out);
	if (rc != 0) {
		free(v);
		return rc;
	}
	*list = v;
	*n = k;
	return 0;
}

/* Remove an image; see hostdir.h. */
int
hostdir_image_rm(struct transport *t, const char *root, const char *name,
    int force, char **cause)
{
	struct buf	 out = BUF_INIT;
	char		*script;
	int		 rc;

	script = hostdir_script(HOSTDIR_SCRIPT_IMAGE_RM, root, name,
	    force ? "1" : "0", NULL);
	rc = hostdir_run(t, script, NULL, 0, &out, cause);
	if (rc == 0 && (out.data == NULL ||
	    strstr(out.data, "clawssh-removed\n") == NULL))
		rc = claw_fail(cause, CLAW_ERR_PROTO, "%s: garbled reply to "
		    "the image removal", transport_label(t));
	free(script);
	buf_free(&out);
	return rc;
}
