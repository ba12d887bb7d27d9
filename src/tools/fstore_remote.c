/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The file tools on the host's copy of the workspace: one sh script per
 * call (fstore_scripts.h), run as a step of the sandbox (hostws_run: in
 * its running environment, or in its step jail after the sandbox's own
 * check), under a deadline; within either each path is
 * still resolved a component at a time and refused when it leads outside
 * the workspace.  What the host sends back is parsed with caps, like any
 * remote output.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "buf.h"
#include "error.h"
#include "exec.h"
#include "fstore_int.h"
#include "fstore_scripts.h"
#include "fstore_wire.h"
#include "shquote.h"
#include "transport.h"
#include "xmalloc.h"


/*
 * Run body (fstore_wire's, or the commit's) with stdin in[0..inlen),
 * stdout into out (at most max), within the store's timeout: past it
 * the remote process group is killed and the call fails with
 * CLAW_ERR_TIMEOUT.
 */
static int
fr_run(struct fstore *fs, const char *body, const char *in, size_t inlen,
    size_t max, struct buf *out, char **cause)
{
	struct exec_opts	 o;
	struct buf		 err = BUF_INIT;
	int			 r, status = 0;

	exec_opts_capture(&o, in, inlen, max, out, &err);
	o.timeout = fs->timeout;
	r = hostws_run(fs->t, &fs->hw, body, &o, &status, cause);
	if (r == CLAW_ERR_PARSE) {
		free(*cause);
		*cause = xstrdup("the host sent more than expected");
	} else if (r == 0 && status == EXEC_STATUS_TIMEOUT && fs->timeout > 0)
		r = claw_fail(cause, CLAW_ERR_TIMEOUT, "timed out after %d s "
		    "(the host-side step was killed)", fs->timeout);
	else if (r == 0 && status != 0)
		r = fstore_wire_failure(transport_label(fs->t), err.data,
		    err.len, status, cause);
	buf_free(&err);
	return r;
}

/* Read a file on the host. */
int
fstore_remote_read(struct fstore *fs, const char *path, uint64_t off,
    uint64_t lim, struct buf *out, unsigned *mode, char **cause)
{
	struct buf	 o = BUF_INIT;
	const char	*data = NULL;
	char		*body = fstore_wire_read(path, off, lim);
	size_t		 len = 0;
	unsigned	 m = 0;
	int		 r;

	r = fr_run(fs, body, NULL, 0, FSTORE_WIRE_READ_MAX, &o, cause);
	if (r == 0)
		r = fstore_wire_read_reply(o.data, o.len, path, &data, &len,
		    &m, cause);
	if (r == 0) {
		buf_append(out, data, len);
		if (mode != NULL)
			*mode = m;
	}
	buf_free(&o);
	free(body);
	return r;
}

/* Stat an entry on the host. */
int
fstore_remote_stat(struct fstore *fs, const char *path,
    struct fstore_stat *st, char **cause)
{
	struct buf	 o = BUF_INIT;
	char		*body = fstore_wire_stat(path);
	int		 r;

	if ((r = fr_run(fs, body, NULL, 0, FSTORE_WIRE_LIST_MAX, &o,
	    cause)) == 0)
		r = fstore_wire_stat_reply(o.data, o.len, path, st, cause);
	buf_free(&o);
	free(body);
	return r;
}

/* List a directory on the host. */
int
fstore_remote_list(struct fstore *fs, const char *path,
    struct fstore_entry **out, size_t *n, char **cause)
{
	struct buf	 o = BUF_INIT;
	char		*body = fstore_wire_list(path);
	int		 r;

	if ((r = fr_run(fs, body, NULL, 0, FSTORE_WIRE_LIST_MAX, &o,
	    cause)) == 0)
		r = fstore_wire_list_reply(o.data, o.len, path, out, n,
		    cause);
	buf_free(&o);
	free(body);
	return r;
}

/* Apply changes on the host. */
int
fstore_remote_commit(struct fstore *fs, const struct fstore_change *ch,
    size_t n, char **cause)
{
	struct buf	 req = BUF_INIT, o = BUF_INIT;
	char		*body = fstore_wire_commit();
	int		 r;

	fstore_wire_commit_request(ch, n, &req);
	r = fr_run(fs, body, req.data, req.len, FSTORE_WIRE_COMMIT_MAX, &o,
	    cause);
	buf_free(&req);
	buf_free(&o);
	free(body);
	return r;
}
