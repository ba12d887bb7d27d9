/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Kept output of MCP execs over the result cap (see mcp_spill.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base64.h"
#include "buf.h"
#include "error.h"
#include "jsonrpc.h"
#include "mcp_spill.h"
#include "ops.h"
#include "mcp_tools.h"
#include "rpc_params.h"
#include "xmalloc.h"

struct mcp_spill {
	size_t		 keep;
	struct buf	 head[2];	/* the first keep bytes */
	uint64_t	 total[2];
	int		 fd[2];		/* all bytes, once past keep */
	int		 spilled;
	char		 id[16];
};

struct mcp_spills {
	struct mcp_spill *kept[MCP_SPILLS_KEEP];
	unsigned	  next;		/* id counter */
};

/* A new output; see mcp_spill.h. */
struct mcp_spill *
mcp_spill_new(size_t keep)
{
	struct mcp_spill	*s = xcalloc(1, sizeof *s);

	s->keep = keep;
	s->fd[0] = s->fd[1] = -1;
	return s;
}

/* Free an output and close its files. */
void
mcp_spill_free(struct mcp_spill *s)
{
	int	i;

	if (s == NULL)
		return;
	for (i = 0; i < 2; i++) {
		buf_free(&s->head[i]);
		if (s->fd[i] != -1)
			close(s->fd[i]);
	}
	free(s);
}

/* An unlinked, private temporary file; -1 with errno set on failure. */
static int
mcp_spill_tmpfile(void)
{
	const char	*dir = getenv("TMPDIR");
	char		*path;
	int		 fd;

	if (dir == NULL || *dir != '/')
		dir = "/tmp";
	if ((fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600)) != -1)
		return fd;
	path = xasprintf("%s/clawssh-output.XXXXXX", dir);
	if ((fd = mkostemp(path, O_CLOEXEC)) != -1)
		(void)unlink(path);
	free(path);
	return fd;
}

/* Write all of p to fd: 0, or errno's code (errno kept). */
static int
mcp_spill_write(int fd, const char *p, size_t n)
{
	ssize_t	w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			return claw_err_from_errno(errno);
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/*
 * Open stream's file and copy its head there: 0, or errno's code (errno
 * kept).
 */
static int
mcp_spill_open(struct mcp_spill *s, int stream)
{
	if ((s->fd[stream] = mcp_spill_tmpfile()) == -1)
		return claw_err_from_errno(errno);
	return mcp_spill_write(s->fd[stream], s->head[stream].data,
	    s->head[stream].len);
}

/* Add bytes of a stream; see mcp_spill.h. */
int
mcp_spill_add(struct mcp_spill *s, int stream, const void *p, size_t n,
    char **cause)
{
	struct buf	*h = &s->head[stream != 0];
	size_t		 take;
	int		 rc;

	stream = stream != 0;
	if (s->total[stream] + n > MCP_SPILL_MAX)
		return claw_fail(cause, CLAW_ERR_RANGE, "output over %llu "
		    "bytes", (unsigned long long)MCP_SPILL_MAX);
	s->total[stream] += n;
	take = h->len < s->keep ? s->keep - h->len : 0;
	if (take > n)
		take = n;
	if (s->fd[stream] == -1 && take == n) {
		buf_append(h, p, n);
		return 0;
	}
	if (s->fd[stream] == -1 && (rc = mcp_spill_open(s, stream)) != 0)
		goto fail;
	buf_append(h, p, take);
	s->spilled = 1;
	if ((rc = mcp_spill_write(s->fd[stream], p, n)) != 0)
		goto fail;
	return 0;
fail:
	*cause = xasprintf("output file: %s", strerror(errno));
	return rc;
}

/* The head of a stream. */
const char *
mcp_spill_head(const struct mcp_spill *s, int stream, size_t *len)
{
	*len = s->head[stream != 0].len;
	return s->head[stream != 0].data != NULL ? s->head[stream != 0].data :
	    "";
}

/* All bytes a stream produced. */
uint64_t
mcp_spill_total(const struct mcp_spill *s, int stream)
{
	return s->total[stream != 0];
}

/* Whether a stream passed the head. */
int
mcp_spill_spilled(const struct mcp_spill *s)
{
	return s->spilled;
}

/* An empty store. */
struct mcp_spills *
mcp_spills_new(void)
{
	return xcalloc(1, sizeof(struct mcp_spills));
}

/* Free a store and every output in it. */
void
mcp_spills_free(struct mcp_spills *st)
{
	size_t	i;

	if (st == NULL)
		return;
	for (i = 0; i < MCP_SPILLS_KEEP; i++)
		mcp_spill_free(st->kept[i]);
	free(st);
}

/* Keep an output; see mcp_spill.h. */
const char *
mcp_spills_keep(struct mcp_spills *st, struct mcp_spill *s)
{
	unsigned	slot = st->next % MCP_SPILLS_KEEP;

	mcp_spill_free(st->kept[slot]);
	snprintf(s->id, sizeof s->id, "o%08x", st->next++);
	st->kept[slot] = s;
	return s->id;
}

/* Read a range of a kept output; see mcp_spill.h. */
int
mcp_spills_read(struct mcp_spills *st, const char *id, int stream,
    uint64_t offset, size_t limit, char **data, size_t *len,
    uint64_t *total, char **cause)
{
	struct mcp_spill	*s = NULL;
	ssize_t			 r;
	size_t			 i, got = 0, n;
	char			*p;
	int			 rc;

	for (i = 0; i < MCP_SPILLS_KEEP; i++)
		if (st->kept[i] != NULL && strcmp(st->kept[i]->id, id) == 0)
			s = st->kept[i];
	if (s == NULL)
		return claw_fail(cause, CLAW_ERR_NOTFOUND, "no output '%.16s' "
		    "(only the last %d are kept, by this server)", id,
		    MCP_SPILLS_KEEP);
	stream = stream != 0;
	n = offset >= s->total[stream] ? 0 : s->total[stream] - offset <
	    limit ? (size_t)(s->total[stream] - offset) : limit;
	p = xmalloc(n + 1);
	if (s->fd[stream] == -1 && n > 0)	/* all of it is in the head */
		memcpy(p, s->head[stream].data + offset, n);
	while (s->fd[stream] != -1 && got < n) {
		r = pread(s->fd[stream], p + got, n - got,
		    (off_t)(offset + got));
		if (r <= 0 && !(r == -1 && errno == EINTR)) {
			rc = r == 0 ? CLAW_ERR_IO : claw_err_from_errno(errno);
			*cause = xasprintf("output file: %s", r == 0 ?
			    "short read" : strerror(errno));
			free(p);
			return rc;
		}
		got += r > 0 ? (size_t)r : 0;
	}
	p[n] = '\0';
	*data = p;
	*len = n;
	*total = s->total[stream];
	return 0;
}

/*
 * read_output's arguments: id, stream, offset, limit, encoding.  0, or
 * CLAW_ERR_INVAL with *msg.
 */
static int
mcp_read_args(const cJSON *params, size_t max, const char **id, int *stream,
    uint64_t *offset, size_t *limit, int *b64, char **msg)
{
	struct rpc_params	 rp;
	const char		*s = NULL, *e = NULL;
	int64_t			 off = 0, lim = (int64_t)max;
	int			 has;

	if (rp_init(&rp, ops_by_method(MCP_READ_OUTPUT), params) == 0 &&
	    rp_string(&rp, "id", id) == 0 &&
	    rp_enum(&rp, "stream", &s) == 0 &&
	    rp_int(&rp, "offset", &off, &has) == 0 &&
	    rp_int(&rp, "limit", &lim, &has) == 0 &&
	    rp_enum(&rp, "encoding", &e) == 0 &&
	    rp_get(&rp, "sandbox") != NULL && rp_finish(&rp) == 0) {
		*stream = s != NULL && strcmp(s, "stderr") == 0;
		*offset = (uint64_t)off;
		*limit = (uint64_t)lim < max ? (size_t)lim : max;
		*b64 = e != NULL && strcmp(e, "base64") == 0;
		rp_free(&rp);
		return 0;
	}
	*msg = rp.msg != NULL ? rp.msg : xstrdup("arguments: invalid");
	rp.msg = NULL;
	rp_free(&rp);
	return CLAW_ERR_INVAL;
}

/* A tools/call result holding text only. */
static cJSON *
mcp_read_error(const char *text)
{
	cJSON	*o = cJSON_CreateObject(), *c;

	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", text);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "content"), c);
	cJSON_AddBoolToObject(o, "isError", 1);
	return o;
}

/* The read_output tool; see mcp_spill.h. */
cJSON *
mcp_spills_tool(struct mcp_spills *st, const cJSON *params, size_t max)
{
	const char	*id;
	char		*data = NULL, *msg = NULL, *s;
	size_t		 limit, len;
	uint64_t	 offset, total;
	int		 stream, b64;
	cJSON		*o, *sc, *c;

	if (mcp_read_args(params, max / 2, &id, &stream, &offset, &limit,
	    &b64, &msg) != 0 || st == NULL || mcp_spills_read(st, id, stream,
	    offset, limit, &data, &len, &total, &msg) != 0) {
		o = mcp_read_error(msg != NULL ? msg : "no output kept");
		free(msg);
		return o;
	}
	if (!b64 && offset + len < total && mcp_utf8_cut(data, len) > 0)
		len = mcp_utf8_cut(data, len);	/* end between characters */
	if (!b64 && !jsonrpc_utf8_ok(data, len))
		b64 = 1;	/* not text (or a limit inside one) */
	s = b64 ? base64_encode((unsigned char *)data, len) :
	    xstrndup(data, len);
	o = cJSON_CreateObject();
	c = cJSON_CreateObject();
	cJSON_AddStringToObject(c, "type", "text");
	cJSON_AddStringToObject(c, "text", s);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(o, "content"), c);
	sc = cJSON_AddObjectToObject(o, "structuredContent");
	cJSON_AddStringToObject(sc, "content", s);
	cJSON_AddStringToObject(sc, "encoding", b64 ? "base64" : "utf-8");
	cJSON_AddNumberToObject(sc, "offset", (double)offset);
	cJSON_AddNumberToObject(sc, "bytes", (double)len);
	cJSON_AddNumberToObject(sc, "nextOffset", (double)(offset + len));
	cJSON_AddNumberToObject(sc, "total", (double)total);
	cJSON_AddBoolToObject(sc, "eof", offset + len >= total);
	cJSON_AddBoolToObject(o, "isError", 0);
	free(s);
	free(data);
	return o;
}
