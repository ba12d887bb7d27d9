/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: what a host answers to the steps the CLI and the
 * daemon run there, all of it hostile -- the process calls' replies
 * (process_step_reply, each step), the file tools' (fstore_wire), the
 * sandbox listing and get-or-create answer with their metadata
 * (hostdir; box-entry's with the environment after it), a failed step's
 * stderr, the exec wrapper's pid marker (with the leader's identity).
 * The input's first byte picks the
 * parser, the second the exit status (most often 0), the third how many
 * bytes at the end are stderr; the rest is stdout.  Every parser must
 * answer 0 with no cause or an error with one, and leak nothing.  Build
 * with 'make fuzz' (clang); seeds in tests/fuzz/corpus_host.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "fstore.h"
#include "fstore_wire.h"
#include "hostdir.h"
#include "log.h"
#include "process.h"
#include "remote_cmd.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FZ_LABEL	"root@fuzz:22"
#define FZ_HANDLE	"p0000abcd"

/* A cause exactly when rc says failure; then free it. */
static void
fz_cause(int rc, char *cause)
{
	if ((rc == 0) != (cause == NULL))
		abort();
	free(cause);
}

/* The pid marker, as exec.c and the daemon read it; and a MUX_PGID. */
static void
fz_marker(const struct buf *out)
{
	struct remote_cmd	 rc;
	char			 ident[REMOTE_IDENT_MAX];
	long			 pid = 0;

	memset(&rc, 0, sizeof rc);
	memset(rc.nonce, 'a', REMOTE_CMD_NONCE_LEN);
	if (remote_cmd_parse_pid(&rc, out->data != NULL ? out->data : "",
	    out->len, &pid, ident) && (pid < 2 ||
	    strlen(ident) >= REMOTE_IDENT_MAX))
		abort();
	if (remote_cmd_parse_ident(out->data != NULL ? out->data : "",
	    out->len, &pid, ident) == 0 && (pid < 2 ||
	    strlen(ident) >= REMOTE_IDENT_MAX))
		abort();
}

/* One process step's reply. */
static void
fz_process(enum process_op op, int status, const struct buf *out,
    const struct buf *err)
{
	struct process_at	 at = { NULL, FZ_LABEL, "/s", NULL, NULL };
	struct process_start	 ps;
	struct process_step	 s;
	struct process_reply	 r;
	struct buf		 o = BUF_INIT;
	char			*cause = NULL;
	int			 rc;

	memset(&s, 0, sizeof s);
	memset(&r, 0, sizeof r);
	memset(&ps, 0, sizeof ps);
	memcpy(ps.handle, FZ_HANDLE, sizeof FZ_HANDLE);
	s.op = op;
	s.handle = FZ_HANDLE;
	s.start = &ps;
	r.output = &o;
	rc = process_step_reply(&at, &s, status, out, err, &r, &cause);
	fz_cause(rc, cause);
	if (op == PROCESS_OP_LIST && rc == 0)
		process_list_free(r.list, r.n);
	else if (r.list != NULL)
		abort();	/* a list only from a listing */
	process_state_clear(&r.st);	/* poll, log, wait: the caller's */
	buf_free(&o);
}

/* The file tools' replies. */
static void
fz_fstore(int which, int status, const struct buf *out,
    const struct buf *err)
{
	struct fstore_entry	*e = NULL;
	struct fstore_stat	 st;
	const char		*d = NULL;
	char			*cause = NULL;
	size_t			 n = 0, dlen = 0;
	unsigned		 mode = 0;
	int			 rc;

	memset(&st, 0, sizeof st);
	switch (which) {
	case 0:
		rc = fstore_wire_read_reply(out->data, out->len, "f", &d,
		    &dlen, &mode, &cause);
		if (rc == 0 && (d < out->data || d + dlen > out->data +
		    out->len))
			abort();	/* the content lies inside the reply */
		break;
	case 1:
		rc = fstore_wire_stat_reply(out->data, out->len, "f", &st,
		    &cause);
		if (rc == 0)
			fstore_stat_clear(&st);
		break;
	case 2:
		rc = fstore_wire_list_reply(out->data, out->len, "d", &e, &n,
		    &cause);
		if (rc == 0)
			fstore_entries_free(e, n);
		break;
	default:
		rc = fstore_wire_failure(FZ_LABEL, err->data, err->len,
		    status == 0 ? 1 : status, &cause);
		if (rc == 0)
			abort();	/* it always fails */
		break;
	}
	fz_cause(rc, cause);
}

/*
 * The sandbox listing (got 0), get-or-create's answer (1), box-entry's
 * answer with the environment (2).
 */
static void
fz_hostdir(int got, const struct buf *out)
{
	struct hostdir_listing	 l;
	struct hostdir_entry	 e;
	char			*cause = NULL;
	int			 rc, created = 0;

	memset(&l, 0, sizeof l);
	size_t			 at = 0;

	if (got == 1)
		rc = hostdir_parse_got(FZ_LABEL, out, &e, &created, &cause);
	else {
		rc = got == 2 ? hostdir_parse_entry_env(FZ_LABEL, out, &l,
		    &at, &cause) : hostdir_parse_list(FZ_LABEL, out, &l,
		    &cause);
		if (at > out->len)
			abort();	/* the environment lies inside */
		hostdir_listing_clear(&l);
	}
	fz_cause(rc, cause);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf	out = BUF_INIT, err = BUF_INIT;
	unsigned	which;
	size_t		errlen;
	int		status;

	if (size < 3)
		return 0;
	log_set_level(LOG_LEVEL_ERROR - 1);	/* not even warnings */
	which = data[0] % 15;
	status = data[1] < 192 ? 0 : data[1] - 192;	/* 0 .. 63 */
	errlen = data[2];
	data += 3;
	size -= 3;
	if (errlen > size)
		errlen = size;
	buf_append(&out, data, size - errlen);
	buf_append(&err, data + size - errlen, errlen);
	if (which <= PROCESS_OP_START)
		fz_process((enum process_op)which, status, &out, &err);
	else if (which < 11)
		fz_fstore((int)which - PROCESS_OP_START - 1, status, &out,
		    &err);
	else if (which < 14)
		fz_hostdir((int)which - 11, &out);
	else
		fz_marker(&out);
	buf_free(&out);
	buf_free(&err);
	return 0;
}
