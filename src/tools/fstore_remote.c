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
#include "lines.h"
#include "manifest.h"
#include "num.h"
#include "remote_err.h"
#include "shquote.h"
#include "transport.h"
#include "xmalloc.h"

#define FR_LIST_MAX	(64 * 1024 * 1024)	/* listing bytes */
#define FR_MODE_LINE_MAX 64		/* bytes of that line, with its newline */
#define FR_TAG_BYTES	16		/* random bits of a temporary name */

/* Turn the host's stderr into a cause: its clawssh-error line if any. */
static int
fr_error(struct fstore *fs, const struct buf *err, int status, char **cause)
{
	char	*msg;

	if ((msg = remote_err_tagged(err)) != NULL) {
		*cause = msg;
		return strstr(msg, "no such file") != NULL ?
		    CLAW_ERR_NOTFOUND : CLAW_ERR_INVAL;
	}
	msg = remote_err_clean(err->data != NULL ? err->data : "", err->len);
	*cause = xasprintf("%s: the file tool failed on the host (status %d)"
	    "%s%s", transport_label(fs->t), status, *msg != '\0' ? ": " : "",
	    msg);
	free(msg);
	return CLAW_ERR_PROTO;
}

/*
 * Run op with stdin in[0..inlen), stdout into out (at most max), within
 * the store's timeout: past it the remote process group is killed and
 * the call fails with CLAW_ERR_TIMEOUT.
 */
static int
fr_run(struct fstore *fs, const char *op, const char *in, size_t inlen,
    size_t max, struct buf *out, char **cause)
{
	struct exec_opts	 o;
	struct buf		 err = BUF_INIT;
	char			*body = xasprintf("%s%s", FSTORE_SCRIPT_PRELUDE, op);
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
		r = fr_error(fs, &err, status, cause);
	free(body);
	buf_free(&err);
	return r;
}

/*
 * Parse the read reply in o: the line "clawssh-mode MODE LEN", then
 * exactly LEN bytes (fewer: the file changed or was swapped for a FIFO
 * while being read).  Sets *data, *len and *mode.
 */
static int
fr_read_reply(const struct buf *o, const char *path, const char **data,
    size_t *len, unsigned *mode, char **cause)
{
	struct lines	 lr, w;
	const char	*line;
	size_t		 ll;
	uint64_t	 m, n;

	lines_init(&lr, o->data, o->len);
	if (lines_next(&lr, FR_MODE_LINE_MAX - 1, &line, &ll) != 0)
		goto bad;
	lines_init(&w, line, ll);
	if (lines_expect(&w, "clawssh-mode") != 0 ||
	    lines_number(&w, NUM_OCTAL, 07777, &m) != 0 ||
	    lines_number(&w, 0, FSTORE_FILE_MAX, &n) != 0 ||
	    lines_left(&w) != 0)
		goto bad;
	if (n != lines_left(&lr) || lines_bytes(&lr, (size_t)n, data) != 0)
		return claw_fail(cause, CLAW_ERR_IO, "%s: changed while being "
		    "read (or is not a regular file); try again", path);
	*len = (size_t)n;
	*mode = (unsigned)m;
	return 0;
bad:
	return claw_fail(cause, CLAW_ERR_PROTO, "%s: garbled reply from the "
	    "host", path);
}

/* Read a file on the host. */
int
fstore_remote_read(struct fstore *fs, const char *path, uint64_t off,
    uint64_t lim, struct buf *out, unsigned *mode, char **cause)
{
	struct buf	 o = BUF_INIT;
	const char	*data = NULL;
	char		*q = shquote(path), *op;
	size_t		 len = 0;
	unsigned	 m = 0;
	int		 r;

	op = xasprintf(FSTORE_SCRIPT_READ, q, (unsigned long long)off,
	    (unsigned long long)lim, (unsigned long long)FSTORE_FILE_MAX);
	r = fr_run(fs, op, NULL, 0, FSTORE_FILE_MAX + 64, &o, cause);
	if (r == 0)
		r = fr_read_reply(&o, path, &data, &len, &m, cause);
	if (r == 0) {
		buf_append(out, data, len);
		if (mode != NULL)
			*mode = m;
	}
	buf_free(&o);
	free(op);
	free(q);
	return r;
}

/* Copy a manifest entry into a stat. */
static void
fr_fill(const struct manifest_entry *e, struct fstore_stat *st)
{
	st->type = (char)e->type;
	st->mode = e->mode;
	st->size = e->size;
	st->mtime_sec = e->mtime_sec;
	st->mtime_nsec = e->mtime_nsec;
	st->link = e->link != NULL ? xstrdup(e->link) : NULL;
}

/* Run a find-printing op and parse the records. */
static int
fr_find(struct fstore *fs, const char *op, struct manifest **m,
    char **cause)
{
	struct buf	 o = BUF_INIT;
	int		 r;

	if ((r = fr_run(fs, op, NULL, 0, FR_LIST_MAX, &o, cause)) == 0)
		r = manifest_parse_find0(o.data != NULL ? o.data : "", o.len,
		    NULL, m, cause);
	buf_free(&o);
	return r;
}

/* Stat an entry on the host. */
int
fstore_remote_stat(struct fstore *fs, const char *path,
    struct fstore_stat *st, char **cause)
{
	struct manifest	*m = NULL;
	char		*q = shquote(path), *op;
	int		 r;

	op = xasprintf(FSTORE_SCRIPT_STAT, q);
	r = fr_find(fs, op, &m, cause);
	free(op);
	free(q);
	if (r != 0)
		return r;
	if (m->n != 1)
		r = claw_fail(cause, CLAW_ERR_INVAL, "%s: not a regular file, "
		    "directory or link", path);
	else
		fr_fill(&m->e[0], st);
	manifest_free(m);
	return r;
}

/* List a directory on the host. */
int
fstore_remote_list(struct fstore *fs, const char *path,
    struct fstore_entry **out, size_t *n, char **cause)
{
	struct manifest		*m = NULL;
	struct fstore_entry	*e;
	char			*q = shquote(path), *op;
	size_t			 i, k = 0;
	int			 r;

	op = xasprintf(FSTORE_SCRIPT_LIST, q);
	r = fr_find(fs, op, &m, cause);
	free(op);
	free(q);
	if (r != 0)
		return r;
	if (m->n > FSTORE_LIST_MAX) {
		manifest_free(m);
		return claw_fail(cause, CLAW_ERR_INVAL, "%s: over %d entries",
		    path, FSTORE_LIST_MAX);
	}
	e = xcalloc(m->n + 1, sizeof *e);
	for (i = 0; i < m->n; i++) {
		if (strchr(m->e[i].path, '/') != NULL)
			continue;	/* find -maxdepth 1 gives none */
		e[k].name = xstrdup(m->e[i].path);
		fr_fill(&m->e[i], &e[k++].st);
	}
	manifest_free(m);
	*out = e;
	*n = k;
	return 0;
}

/* Build the commit request: the header lines, ".", then the data. */
static void
fr_request(const struct fstore_change *ch, size_t n, struct buf *b)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (ch[i].data == NULL)
			buf_appendf(b, "D - - - /%s/\n", ch[i].path);
		else
			buf_appendf(b, "W %s%o %zu %d /%s/\n",
			    ch[i].mode < 0 ? "-" : "", ch[i].mode < 0 ? 1 :
			    (unsigned)ch[i].mode & 0777, ch[i].len,
			    ch[i].create_only != 0, ch[i].path);
	}
	buf_append_str(b, ".\n");
	for (i = 0; i < n; i++) {
		if (ch[i].data != NULL)
			buf_append(b, ch[i].data, ch[i].len);
	}
}

/* Apply changes on the host; the temporaries' tag is fresh and random. */
int
fstore_remote_commit(struct fstore *fs, const struct fstore_change *ch,
    size_t n, char **cause)
{
	struct buf	 req = BUF_INIT, o = BUF_INIT;
	unsigned char	 raw[FR_TAG_BYTES];
	char		 tag[2 * FR_TAG_BYTES + 1], *q, *op;
	size_t		 i;
	int		 r;

	arc4random_buf(raw, sizeof raw);
	for (i = 0; i < sizeof raw; i++)
		snprintf(tag + 2 * i, 3, "%02x", raw[i]);
	q = shquote(tag);
	op = xasprintf(FSTORE_SCRIPT_COMMIT, q);
	free(q);
	fr_request(ch, n, &req);
	r = fr_run(fs, op, req.data, req.len, 4096, &o, cause);
	buf_free(&req);
	buf_free(&o);
	free(op);
	return r;
}
