/*
 * The file tools on the host's copy of the workspace: one sh script per
 * call (fstore_scripts.h), confined there by resolving each component and
 * refusing what leads outside.  What the host sends back is parsed with
 * caps, like any remote output.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "exec.h"
#include "fstore_int.h"
#include "fstore_scripts.h"
#include "manifest.h"
#include "remote_err.h"
#include "shquote.h"
#include "transport.h"
#include "xmalloc.h"

#define FR_ERR_MAX	4096		/* stderr kept */
#define FR_LIST_MAX	(64 * 1024 * 1024)	/* listing bytes */
#define FR_MODE_LINE	"clawssh-mode "

/* Build the script: prelude, the sandbox's check, then op. */
static char *
fr_script(struct fstore *fs, const char *op)
{
	char	*q = shquote(fs->ws), *s;

	s = xasprintf(FSTORE_SCRIPT_PRELUDE "%s%s%s", q,
	    fs->pre != NULL ? fs->pre : "", fs->pre != NULL ? "\n" : "", op);
	free(q);
	return s;
}

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

/* Run op with stdin in[0..inlen), stdout into out (at most max). */
static int
fr_run(struct fstore *fs, const char *op, const char *in, size_t inlen,
    size_t max, struct buf *out, char **cause)
{
	struct buf	 err = BUF_INIT;
	char		*script = fr_script(fs, op);
	int		 r, status = 0;

	r = exec_script(fs->t, script, in, inlen, max, out, &err, &status,
	    cause);
	if (r == CLAW_ERR_PARSE) {
		free(*cause);
		*cause = xstrdup("the host sent more than expected");
	} else if (r == 0 && status != 0)
		r = fr_error(fs, &err, status, cause);
	free(script);
	buf_free(&err);
	return r;
}

/* Read a file on the host. */
int
fstore_remote_read(struct fstore *fs, const char *path, uint64_t off,
    uint64_t lim, struct buf *out, unsigned *mode, char **cause)
{
	struct buf	 o = BUF_INIT;
	char		*q = shquote(path), *op, *nl = NULL;
	unsigned long	 m = 0;
	int		 r;

	op = xasprintf(FSTORE_SCRIPT_READ, q, (unsigned long long)off + 1,
	    (unsigned long long)lim, (unsigned long long)FSTORE_FILE_MAX);
	r = fr_run(fs, op, NULL, 0, FSTORE_FILE_MAX + 64, &o, cause);
	if (r == 0 && (o.len < sizeof FR_MODE_LINE || memcmp(o.data,
	    FR_MODE_LINE, sizeof FR_MODE_LINE - 1) != 0 ||
	    (nl = memchr(o.data, '\n', o.len < 32 ? o.len : 32)) == NULL ||
	    (m = strtoul(o.data + sizeof FR_MODE_LINE - 1, NULL, 8)) > 07777))
		r = claw_fail(cause, CLAW_ERR_PROTO, "%s: garbled reply from "
		    "the host", path);
	if (r == 0) {
		buf_append(out, nl + 1, o.len - (size_t)(nl + 1 - o.data));
		if (mode != NULL)
			*mode = (unsigned)m;
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

/* Apply changes on the host. */
int
fstore_remote_commit(struct fstore *fs, const struct fstore_change *ch,
    size_t n, char **cause)
{
	struct buf	 req = BUF_INIT, o = BUF_INIT;
	int		 r;

	fr_request(ch, n, &req);
	r = fr_run(fs, FSTORE_SCRIPT_COMMIT, req.data, req.len, 4096, &o,
	    cause);
	buf_free(&req);
	buf_free(&o);
	return r;
}
