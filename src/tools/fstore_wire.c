/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The remote file store's calls as text.  See fstore_wire.h.
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
#include "fstore_int.h"
#include "fstore_scripts.h"
#include "fstore_wire.h"
#include "lines.h"
#include "manifest.h"
#include "num.h"
#include "remote_err.h"
#include "shquote.h"
#include "xmalloc.h"

#define FW_MODE_LINE_MAX 64		/* bytes of that line, with its newline */
#define FW_TAG_BYTES	16		/* random bits of a temporary name */

/* The prelude, vars (sh, freed) and op: a step's body (allocated). */
static char *
fw_body(char *vars, const char *op)
{
	char	*body = xasprintf("%s%s\n%s", FSTORE_SCRIPT_PRELUDE, vars, op);

	free(vars);
	return body;
}

/* "NAME=QUOTED" of path (allocated). */
static char *
fw_path(const char *path)
{
	char	*q = shquote(path), *v = xasprintf("p=%s", q);

	free(q);
	return v;
}

/* A read's body; see fstore_wire.h. */
char *
fstore_wire_read(const char *path, uint64_t off, uint64_t lim)
{
	char	*p = fw_path(path);
	char	*vars = xasprintf("%s off=%llu lim=%llu cap=%llu", p,
		    (unsigned long long)off, (unsigned long long)lim,
		    (unsigned long long)FSTORE_FILE_MAX);

	free(p);
	return fw_body(vars, FSTORE_SCRIPT_READ);
}

/* A stat's body; see fstore_wire.h. */
char *
fstore_wire_stat(const char *path)
{
	return fw_body(fw_path(path), FSTORE_SCRIPT_STAT);
}

/* A listing's body; see fstore_wire.h. */
char *
fstore_wire_list(const char *path)
{
	return fw_body(fw_path(path), FSTORE_SCRIPT_LIST);
}

/* A commit's body; see fstore_wire.h. */
char *
fstore_wire_commit(void)
{
	unsigned char	 raw[FW_TAG_BYTES];
	char		 tag[2 * FW_TAG_BYTES + 1];
	size_t		 i;

	arc4random_buf(raw, sizeof raw);
	for (i = 0; i < sizeof raw; i++)
		snprintf(tag + 2 * i, 3, "%02x", raw[i]);
	return fw_body(xasprintf("tag=%s", tag), FSTORE_SCRIPT_COMMIT);
}

/* A commit's stdin; see fstore_wire.h. */
void
fstore_wire_commit_request(const struct fstore_change *ch, size_t n,
    struct buf *b)
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

/* A failed call's cause; see fstore_wire.h. */
int
fstore_wire_failure(const char *label, const char *err, size_t errlen,
    int status, char **cause)
{
	struct buf	 b = BUF_INIT;
	char		*msg;

	buf_append(&b, err != NULL ? err : "", errlen);
	if ((msg = remote_err_tagged(&b)) != NULL) {
		buf_free(&b);
		*cause = msg;
		return strstr(msg, "no such file") != NULL ?
		    CLAW_ERR_NOTFOUND : CLAW_ERR_INVAL;
	}
	msg = remote_err_clean(b.data != NULL ? b.data : "", b.len);
	buf_free(&b);
	*cause = xasprintf("%s: the file tool failed on the host (status %d)"
	    "%s%s", label, status, *msg != '\0' ? ": " : "", msg);
	free(msg);
	return CLAW_ERR_PROTO;
}

/* A read's reply; see fstore_wire.h. */
int
fstore_wire_read_reply(const char *o, size_t len, const char *path,
    const char **data, size_t *dlen, unsigned *mode, char **cause)
{
	struct lines	 lr, w;
	const char	*line;
	size_t		 ll;
	uint64_t	 m, n;

	lines_init(&lr, o, len);
	if (lines_next(&lr, FW_MODE_LINE_MAX - 1, &line, &ll) != 0)
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
	*dlen = (size_t)n;
	*mode = (unsigned)m;
	return 0;
bad:
	return claw_fail(cause, CLAW_ERR_PROTO, "%s: garbled reply from the "
	    "host", path);
}

/* Copy a manifest entry into a stat. */
static void
fw_fill(const struct manifest_entry *e, struct fstore_stat *st)
{
	st->type = (char)e->type;
	st->mode = e->mode;
	st->size = e->size;
	st->mtime_sec = e->mtime_sec;
	st->mtime_nsec = e->mtime_nsec;
	st->link = e->link != NULL ? xstrdup(e->link) : NULL;
}

/* A stat's reply; see fstore_wire.h. */
int
fstore_wire_stat_reply(const char *o, size_t len, const char *path,
    struct fstore_stat *st, char **cause)
{
	struct manifest	*m = NULL;
	int		 r;

	memset(st, 0, sizeof *st);
	if ((r = manifest_parse_find0(o != NULL ? o : "", len, NULL, &m,
	    cause)) != 0)
		return r;
	if (m->n != 1)
		r = claw_fail(cause, CLAW_ERR_INVAL, "%s: not a regular file, "
		    "directory or link", path);
	else
		fw_fill(&m->e[0], st);
	manifest_free(m);
	return r;
}

/* A listing's reply; see fstore_wire.h. */
int
fstore_wire_list_reply(const char *o, size_t len, const char *path,
    struct fstore_entry **out, size_t *n, char **cause)
{
	struct manifest		*m = NULL;
	struct fstore_entry	*e;
	size_t			 i, k = 0;
	int			 r;

	if ((r = manifest_parse_find0(o != NULL ? o : "", len, NULL, &m,
	    cause)) != 0)
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
		fw_fill(&m->e[i], &e[k++].st);
	}
	manifest_free(m);
	fstore_sort(e, k);
	*out = e;
	*n = k;
	return 0;
}
