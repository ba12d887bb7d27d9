/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Small exact transfers from memory: a mirror exec's push and pull are
 * usually a few files, and the child process that packs or unpacks a
 * stream while the channel runs (transfer.c) costs more than the files:
 * a fork and its copy-on-write faults in a process holding libcrypto and
 * libssh2.  Up to TRANSFER_SMALL_PATHS entries and TRANSFER_SMALL_MAX
 * bytes of tar, the push is packed into the step's stdin before it runs
 * and the pull's stream is collected whole and then unpacked, both in
 * this process, with the same checks (tarstream, pathguard).  See
 * transfer_int.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "hostws.h"
#include "log.h"
#include "manifest.h"
#include "tarstream.h"
#include "transfer.h"
#include "transfer_int.h"

/* A pull's stream may grow past what was listed: up to this, in memory. */
#define TRANSFER_SMALL_OUT	(8 * TRANSFER_SMALL_MAX)

/* A small push; see transfer_int.h. */
int
transfer_push_small(struct transport *t, struct pathguard *pg,
    const struct hostws *hw, char *const *paths, size_t n,
    struct tarstream_stats *st, char **cause)
{
	struct tarstream_stats	 cst;
	struct transfer_io	 io;
	struct buf		 in = BUF_INIT, tar = BUF_INIT;
	char			*script;
	int			 rc, status = 0, step;

	if (n > TRANSFER_SMALL_PATHS)
		return TRANSFER_NOT_SMALL;
	memset(&cst, 0, sizeof cst);
	if ((rc = transfer_pack_list(pg, paths, n, TRANSFER_SMALL_MAX, &tar,
	    &cst, cause)) == CLAW_ERR_RANGE) {
		free(*cause);
		*cause = NULL;
		buf_free(&tar);
		return TRANSFER_NOT_SMALL;
	}
	if (rc != 0) {
		buf_free(&tar);
		return rc;
	}
	transfer_parents(paths, n, &in);
	buf_append(&in, tar.data, tar.len);
	buf_free(&tar);
	script = transfer_push_script(hw, 0, 1, &step);
	memset(&io, 0, sizeof io);
	io.self = transfer_self_unpack;
	io.in = &in;
	io.in_fd = -1;
	io.out_fd = -1;
	if ((rc = transfer_run(t, step ? hw : NULL, script, &io, &status,
	    cause)) == 1) {		/* an older agent: the shell's way */
		io.self = NULL;
		rc = transfer_run(t, step ? hw : NULL, script, &io, &status,
		    cause);
	}
	free(script);
	buf_free(&in);
	if (rc == 0 && st != NULL)
		*st = cst;
	return rc;
}

/* The collected stream, read once. */
struct transfer_small_in {
	const struct buf	*b;
	int			 done;
};

/* tarstream_read_fn over the collected stream: all of it at once. */
static ssize_t
transfer_small_read(void *arg, const void **p)
{
	struct transfer_small_in	*in = arg;

	*p = in->b->data;
	if (in->done || in->b->data == NULL)
		return 0;
	in->done = 1;
	return (ssize_t)in->b->len;
}

/* A small pull; see transfer_int.h. */
int
transfer_pull_small(struct transport *t, struct pathguard *pg,
    const struct hostws *hw, char *const *paths, size_t n,
    const struct tarstream_expect *ex, const struct tarstream_limits *lim,
    struct tarstream_stats *st, char **cause)
{
	struct transfer_io	 io;
	struct transfer_small_in in;
	struct buf		 names = BUF_INIT, body = BUF_INIT, out = BUF_INIT;
	uint64_t		 want = transfer_expect_want(ex);
	int			 rc, status = 0, over = 0;

	if (n > TRANSFER_SMALL_PATHS || want == 0 || want > TRANSFER_SMALL_MAX)
		return TRANSFER_NOT_SMALL;
	transfer_names(&names, paths, n);
	transfer_pull_script(&body, n, ex);
	memset(&io, 0, sizeof io);
	io.self = transfer_self_pack;
	io.in = &names;
	io.in_fd = -1;
	io.out_fd = -1;
	io.out = &out;
	io.out_max = TRANSFER_SMALL_OUT;
	io.overflowed = &over;
	io.tolerant = 1;
	if ((rc = transfer_run(t, hw, body.data, &io, &status, cause)) == 1) {
		buf_reset(&out);	/* an older agent: the shell's way */
		io.self = NULL;
		rc = transfer_run(t, hw, body.data, &io, &status, cause);
	}
	buf_free(&names);
	buf_free(&body);
	if (rc != 0 && over) {		/* grew since it was listed */
		log_debug("the pull's stream passed %d bytes: streamed instead",
		    TRANSFER_SMALL_OUT);
		free(*cause);
		*cause = NULL;
		buf_free(&out);
		return TRANSFER_NOT_SMALL;
	}
	if (rc == 0) {
		if (st != NULL)
			memset(st, 0, sizeof *st);
		in.b = &out;
		in.done = 0;
		rc = tarstream_extract_expect(pg, transfer_small_read, &in,
		    lim, ex, st, cause);
	}
	buf_free(&out);
	return rc;
}
