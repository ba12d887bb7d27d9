/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host agent's channel (issue 18): per host and agent path, one
 * channel of the daemon's own runs `clawssh-agent serve`, and every
 * contained command a client sends as OPEN_AGENT goes down it as an EXEC
 * frame (docs/agent.md), with no new SSH channel, no login shell and no
 * wrapper.  Replies come back by request id and become the client's
 * OPENED, STDOUT, STDERR, EOF and EXIT frames, so a command reads them as
 * it would a channel's.  A command the agent cannot start (no holder
 * yet, other settings, no agent at that path) is refused before OPENED
 * with CLAW_ERR_UNSUPPORTED, and the client runs it the usual way, which
 * starts the holder the next command will find.
 *
 * Everything the agent sends is hostile: frames are parsed by the
 * bounded reader of src/agent/frame.c, and an agent that breaks the
 * protocol is dropped with every command it carried.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "clock.h"
#include "daemon_int.h"
#include "error.h"
#include "frame.h"
#include "log.h"
#include "msg.h"
#include "mux_proto.h"
#include "shquote.h"
#include "xmalloc.h"

#define DAGENT_PATH_MAX	1024		/* the agent's path on the host */
#define DAGENT_DATA	(32 * 1024)	/* stdin per DATA frame */
#define DAGENT_ERR_MAX	512		/* serve's stderr kept for messages */
#define DAGENT_BROKEN_MS (60 * 1000)	/* a serve that never said HELLO:
					   refuse at once for this long */

/* One command on an agent channel, for one client's channel number. */
struct dareq {
	TAILQ_ENTRY(dareq)	 aentry;	/* the agent's */
	TAILQ_ENTRY(dareq)	 centry;	/* the client's */
	struct dagent		*agent;
	struct dclient		*client;
	struct dcall		*call;		/* in-process: a JSON-RPC exec */
	uint32_t		 chan;		/* the client's number */
	uint32_t		 id;		/* serve's request id */
	int			 started;
	int			 eofs;		/* 1 stdout, 2 stderr ended */
};

/* serve on one host, at one path. */
struct dagent {
	TAILQ_ENTRY(dagent)	 entry;		/* the host's */
	struct dhost		*host;
	char			*path;
	struct dchan		*ch;		/* NULL once it ended */
	int			 hello;		/* its HELLO came */
	int			 caps;		/* its HELLO's MSG_CAP_* */
	int64_t			 broken_until;	/* refuse until then */
	struct buf		 rx;		/* its stdout, unparsed */
	struct buf		 err;		/* its stderr, the start */
	uint32_t		 next_id;
	TAILQ_HEAD(, dareq)	 reqs;
};

/* Tell a request's client something on its channel. */
static void
dareq_put(struct dareq *rq, enum mux_type type, const void *p, size_t n)
{
	if (rq->client != NULL)
		mux_frame_put(&rq->client->out, type, rq->chan, p, n);
}

/* Forget a request: it ended, failed or its client left. */
static void
dareq_free(struct dareq *rq)
{
	if (rq->agent != NULL)
		TAILQ_REMOVE(&rq->agent->reqs, rq, aentry);
	if (rq->client != NULL)
		TAILQ_REMOVE(&rq->client->areqs, rq, centry);
	free(rq);
}

/*
 * End a request with an error: before it started, CLAW_ERR_UNSUPPORTED
 * (the client runs it the usual way); after, CLAW_ERR_CONNECT.
 */
static void
dareq_fail(struct dareq *rq, const char *why)
{
	struct dcall	*c = rq->call;
	char		*msg;
	int		 started = rq->started;

	if (rq->client != NULL) {
		msg = xasprintf("host agent: %s", why);
		mux_frame_put_num(&rq->client->out, MUX_ERROR, rq->chan,
		    rq->started ? CLAW_ERR_CONNECT : CLAW_ERR_UNSUPPORTED, msg);
		free(msg);
	}
	dareq_free(rq);
	if (c != NULL) {
		c->areq = NULL;
		droute_failed(c, started, why);
	}
}

/* Queue a frame for serve's stdin. */
static void
dagent_send(struct dagent *a, struct frame_wr *w)
{
	if (a->ch != NULL && w->err == 0)
		buf_append(&a->ch->in, w->data, w->len);
	frame_wr_free(w);
	if (a->ch != NULL)
		a->host->d->again = 1;
}

/* Append data as stdin of request id, in DATA frames of DAGENT_DATA. */
static void
dareq_data(struct frame_wr *w, uint32_t id, const void *p, size_t n)
{
	size_t	off, k;

	for (off = 0; off < n; off += k) {
		k = n - off < DAGENT_DATA ? n - off : DAGENT_DATA;
		msg_data_put(w, id, 0, (const uint8_t *)p + off, k);
	}
}

/* Stop serve: its stdin ends, it ends its commands and exits. */
static void
dagent_stop(struct dagent *a, const char *why)
{
	struct dareq	*rq;

	if (why != NULL)
		log_warn("%s: host agent %s: %s", a->host->label, a->path,
		    why);
	while ((rq = TAILQ_FIRST(&a->reqs)) != NULL)
		dareq_fail(rq, why != NULL ? why : "its channel ended");
	if (a->ch != NULL) {
		a->ch->agent = NULL;
		dchan_abandon(a->ch);	/* closing it ends serve */
		a->ch = NULL;
	}
	if (!a->hello)
		a->broken_until = clock_now_ms() + DAGENT_BROKEN_MS;
}

/*
 * serve's HELLO: the protocol and the relay capability; 0, or
 * CLAW_ERR_PARSE if it is not that.
 */
static int
dagent_hello(struct dagent *a, const struct frame *f)
{
	struct msg_hello	h;
	int			ok;

	memset(&h, 0, sizeof h);
	ok = f->type == FRAME_HELLO && msg_hello_get(f, &h) == 0 &&
	    h.proto == MSG_PROTO && (h.caps & MSG_CAP_RELAY) != 0;
	msg_hello_free(&h);
	if (!ok)
		return CLAW_ERR_PARSE;
	a->hello = 1;
	a->caps = h.caps;
	log_debug("%s: host agent %s ready", a->host->label, a->path);
	return 0;
}

/* The request with serve's id, or NULL (it was left). */
static struct dareq *
dagent_req(struct dagent *a, uint32_t id)
{
	struct dareq	*rq;

	TAILQ_FOREACH(rq, &a->reqs, aentry) {
		if (rq->id == id)
			return rq;
	}
	return NULL;
}

/* Tell the client its output ended, once both streams did. */
static void
dareq_eof(struct dareq *rq, int stream)
{
	int	before = rq->eofs;

	rq->eofs |= stream;
	if (before != 3 && rq->eofs == 3)
		dareq_put(rq, MUX_EOF, NULL, 0);
}

/*
 * EXIT: the status (128+N for signal N) after the output's end; 0, or
 * CLAW_ERR_PARSE for a malformed frame.
 */
static int
dareq_exit(struct dareq *rq, const struct frame *f)
{
	int	code, signo;

	struct dcall	*c = rq->call;

	if (msg_exit_get(f, &code, &signo) != 0)
		return CLAW_ERR_PARSE;
	dareq_eof(rq, 3);
	if (rq->client != NULL)
		mux_frame_put_num(&rq->client->out, MUX_EXIT, rq->chan,
		    code >= 0 ? code : 128 + signo, "");
	dareq_free(rq);
	if (c != NULL) {
		c->areq = NULL;
		droute_exit(c, code >= 0 ? code : 128 + signo);
	}
	return 0;
}

/*
 * ERROR: the agent's reason, said as dareq_fail says it; 0, or
 * CLAW_ERR_PARSE for a malformed frame.
 */
static int
dareq_error(struct dareq *rq, const struct frame *f)
{
	char	*msg = NULL;

	if (msg_error_get(f, &msg) != 0)
		return CLAW_ERR_PARSE;
	dareq_fail(rq, msg);
	free(msg);
	return 0;
}

/* One reply from serve; CLAW_ERR_PARSE if it breaks the protocol. */
static int
dagent_frame(struct dagent *a, const struct frame *f)
{
	struct dareq	*rq;
	const uint8_t	*p;
	size_t		 n;
	uint32_t	 pid, nfds;
	int		 stream;

	if (!a->hello)
		return dagent_hello(a, f);
	if ((rq = dagent_req(a, f->id)) == NULL)
		return 0;	/* its client left: dropped */
	switch (f->type) {
	case FRAME_STARTED:
		if (msg_started_get(f, &pid, &nfds) != 0 || rq->started)
			return CLAW_ERR_PARSE;
		rq->started = 1;
		log_debug("%s: host agent: command %u started (pid %u)",
		    a->host->label, f->id, pid);
		dareq_put(rq, MUX_OPENED, NULL, 0);
		if (rq->call != NULL)
			droute_started(rq->call);
		return 0;
	case FRAME_DATA:
		if (msg_data_get(f, &stream, &p, &n) != 0 || !rq->started ||
		    (stream != 1 && stream != 2))
			return CLAW_ERR_PARSE;
		if (rq->call != NULL)
			dcall_output(rq->call, stream - 1, (const char *)p, n);
		else
			dareq_put(rq, stream == 1 ? MUX_STDOUT : MUX_STDERR,
			    p, n);
		return 0;
	case FRAME_EOF:
		if (msg_eof_get(f, &stream) != 0 || (stream != 1 &&
		    stream != 2))
			return CLAW_ERR_PARSE;
		dareq_eof(rq, stream);
		return 0;
	case FRAME_EXIT:
		return rq->started ? dareq_exit(rq, f) : CLAW_ERR_PARSE;
	case FRAME_ERROR:
		return dareq_error(rq, f);
	default:
		return CLAW_ERR_PARSE;
	}
}

/* Output of an agent's channel; see daemon_int.h. */
void
dagent_output(struct dagent *a, int stream, const char *p, size_t n)
{
	struct frame	f;
	size_t		off = 0;
	int		r;

	if (stream != 0) {	/* serve's own complaints, for messages */
		if (a->err.len < DAGENT_ERR_MAX)
			buf_append(&a->err, p, n < DAGENT_ERR_MAX ? n :
			    DAGENT_ERR_MAX);
		return;
	}
	buf_append(&a->rx, p, n);
	while (a->ch != NULL && (r = frame_parse(a->rx.data + off,
	    a->rx.len - off, &f)) != 0) {
		if (r < 0 || dagent_frame(a, &f) != 0) {
			dagent_stop(a, r < 0 ? frame_strerror(r) :
			    "a reply out of protocol");
			buf_reset(&a->rx);
			return;
		}
		off += f.used;
	}
	buf_consume(&a->rx, off);
}

/* Whether a's clients hold too much output to read serve further. */
int
dagent_blocked(struct dagent *a)
{
	struct dareq	*rq;

	TAILQ_FOREACH(rq, &a->reqs, aentry) {
		if (rq->client != NULL && rq->client->out.len >=
		    DCLIENT_OUT_MAX)
			return 1;
		if (rq->call != NULL && rq->call->client != NULL &&
		    rq->call->client->out.len >= DCLIENT_OUT_MAX)
			return 1;
	}
	return 0;
}

/* Whether a carries commands (alone, its channel is idle). */
int
dagent_busy(struct dagent *a)
{
	return !TAILQ_EMPTY(&a->reqs);
}

/* An agent's channel was released; see daemon_int.h. */
void
dagent_chan_gone(struct dagent *a)
{
	char	*why;

	a->ch = NULL;
	if (a->err.len != 0) {
		buf_append(&a->err, "", 1);
		why = xasprintf("its channel ended: %.*s", (int)strcspn(
		    a->err.data, "\n"), a->err.data);
	} else
		why = xstrdup("its channel ended");
	dagent_stop(a, TAILQ_EMPTY(&a->reqs) && a->hello ? NULL : why);
	free(why);
}

/* How many host agents of h hold a channel; see daemon_int.h. */
int
dagent_live(const struct dhost *h)
{
	const struct dagent	*a;
	int			 n = 0;

	TAILQ_FOREACH(a, &h->agents, entry)
		n += a->ch != NULL;
	return n;
}

/*
 * The agent at path on h, started when there is none and the host's pool
 * has a channel to spare for it: the long-lived channels (agents and
 * change watchers) always leave one for ordinary commands, or a command
 * would wait for a channel forever.
 */
static struct dagent *
dagent_get(struct dhost *h, const char *path)
{
	struct frame_wr	 w = FRAME_WR_INIT;
	struct dagent	*a;
	char		*q, *cmd;

	TAILQ_FOREACH(a, &h->agents, entry) {
		if (strcmp(a->path, path) == 0)
			break;
	}
	if (a == NULL) {
		a = xcalloc(1, sizeof *a);
		a->host = h;
		a->path = xstrdup(path);
		TAILQ_INIT(&a->reqs);
		TAILQ_INSERT_TAIL(&h->agents, a, entry);
	}
	if (a->ch != NULL || clock_now_ms() < a->broken_until ||
	    h->d->max_conns * h->d->max_sessions - dagent_live(h) -
	    dwatch_live(h) < 2)
		return a;
	a->hello = 0;
	a->next_id = 1;
	buf_reset(&a->rx);
	buf_reset(&a->err);
	q = shquote(path);
	cmd = xasprintf("exec %s serve", q);
	a->ch = dchan_new(h, NULL, 0, cmd, NULL);
	a->ch->agent = a;
	free(cmd);
	free(q);
	msg_hello_put(&w, 0, NULL, 0);
	dagent_send(a, &w);
	log_info("%s: starting host agent %s", h->label, path);
	return a;
}

/* The client's agent command on channel number chan, or NULL. */
struct dareq *
dareq_find(struct dclient *c, uint32_t chan)
{
	struct dareq	*rq;

	TAILQ_FOREACH(rq, &c->areqs, centry) {
		if (rq->chan == chan)
			return rq;
	}
	return NULL;
}

/*
 * Split OPEN_AGENT's payload: the path (absolute, printable, bounded)
 * and one whole EXEC frame.  0, or CLAW_ERR_PARSE with *why.
 */
static int
dagent_parse_open(const struct mux_frame *f, char **path,
    const uint8_t **fp, size_t *flen, const char **why)
{
	const char	*nul = memchr(f->payload, '\0', f->len);
	struct frame	 fr;
	size_t		 plen, i;

	if (nul == NULL || (plen = (size_t)(nul - f->payload)) < 2 ||
	    plen > DAGENT_PATH_MAX || f->payload[0] != '/') {
		*why = "OPEN_AGENT: bad agent path";
		return CLAW_ERR_PARSE;
	}
	for (i = 0; i < plen; i++) {
		if ((unsigned char)f->payload[i] < 0x20 ||
		    f->payload[i] == 0x7f) {
			*why = "OPEN_AGENT: bad agent path";
			return CLAW_ERR_PARSE;
		}
	}
	*fp = (const uint8_t *)nul + 1;
	*flen = f->len - plen - 1;
	if (frame_parse(*fp, *flen, &fr) != 1 || fr.used != *flen ||
	    fr.type != FRAME_EXEC) {
		*why = "OPEN_AGENT: not one EXEC frame";
		return CLAW_ERR_PARSE;
	}
	*path = xstrndup(f->payload, plen);
	return 0;
}

/* Give rq serve's next id and queue its EXEC frame fp with that id. */
static void
dagent_queue_exec(struct dagent *a, struct dareq *rq, const uint8_t *fp,
    size_t flen)
{
	rq->id = a->next_id++;
	buf_append(&a->ch->in, fp, flen);
	/* the id: after the length, version and type */
	a->ch->in.data[a->ch->in.len - flen + 6] = (char)(rq->id >> 24);
	a->ch->in.data[a->ch->in.len - flen + 7] = (char)(rq->id >> 16);
	a->ch->in.data[a->ch->in.len - flen + 8] = (char)(rq->id >> 8);
	a->ch->in.data[a->ch->in.len - flen + 9] = (char)rq->id;
	a->host->d->again = 1;
}

/* OPEN_AGENT from a client; see daemon_int.h. */
const char *
dagent_open(struct dclient *c, const struct mux_frame *f)
{
	struct dagent	*a;
	struct dareq	*rq;
	const uint8_t	*fp;
	const char	*why = NULL;
	char		*path;
	size_t		 flen;

	if (dagent_parse_open(f, &path, &fp, &flen, &why) != 0)
		return why;
	c->d->nchannels++;
	rq = xcalloc(1, sizeof *rq);
	rq->client = c;
	rq->chan = f->chan;
	TAILQ_INSERT_TAIL(&c->areqs, rq, centry);
	a = dagent_get(c->host, path);
	free(path);
	rq->agent = a;
	TAILQ_INSERT_TAIL(&a->reqs, rq, aentry);
	if (a->ch == NULL) {
		dareq_fail(rq, "not running on this host (it failed lately, "
		    "or the connection pool has no channel to spare)");
		return NULL;
	}
	dagent_queue_exec(a, rq, fp, flen);
	return NULL;
}

/* A client's frame for one of its agent commands; see daemon_int.h. */
int
dagent_client_frame(struct dclient *c, const struct mux_frame *f)
{
	struct frame_wr	 w = FRAME_WR_INIT;
	struct dareq	*rq = dareq_find(c, f->chan);
	int32_t		 sig;
	char		*text;

	if (rq == NULL)
		return 0;
	switch (f->type) {
	case MUX_DATA:
		dareq_data(&w, rq->id, f->payload, f->len);
		break;
	case MUX_EOF:
		msg_u32(&w, FRAME_EOF, rq->id, TAG_STREAM, 0);
		break;
	case MUX_SIGNAL:
		if (mux_frame_num(f, &sig, &text) != 0)
			return 1;
		free(text);
		msg_u32(&w, FRAME_SIGNAL, rq->id, TAG_SIGNO, (uint32_t)sig);
		break;
	case MUX_CLOSE:
		dareq_abandon(rq);
		return 1;
	default:
		return 1;	/* PGID, MARKER, RESIZE: not for these */
	}
	if (rq->agent != NULL)
		dagent_send(rq->agent, &w);
	else
		frame_wr_free(&w);
	return 1;
}

/* Nobody reads rq any more: kill its command if it runs, forget it. */
void
dareq_abandon(struct dareq *rq)
{
	if (rq->agent != NULL && rq->agent->ch != NULL)
		dareq_signal(rq, SIGKILL);
	if (rq->client != NULL) {
		TAILQ_REMOVE(&rq->client->areqs, rq, centry);
		rq->client = NULL;
	}
	dareq_free(rq);
}

/* A client left; see daemon_int.h. */
void
dagent_client_gone(struct dclient *c)
{
	struct dareq	*rq;

	while ((rq = TAILQ_FIRST(&c->areqs)) != NULL)
		dareq_abandon(rq);
}

/* Whether c's agent commands hold too much stdin to read c further. */
int
dagent_client_paused(struct dclient *c)
{
	struct dareq	*rq;

	TAILQ_FOREACH(rq, &c->areqs, centry) {
		if (rq->agent != NULL && rq->agent->ch != NULL &&
		    rq->agent->ch->in.len > DCHAN_IN_MAX)
			return 1;
	}
	return 0;
}

/* An in-process command on an agent that is up; see daemon_int.h. */
struct dareq *
dagent_call(struct dhost *h, const char *path, struct dcall *c,
    const struct buf *frame)
{
	struct dagent	*a;
	struct dareq	*rq;

	TAILQ_FOREACH(a, &h->agents, entry) {
		if (strcmp(a->path, path) == 0)
			break;
	}
	if (a == NULL || a->ch == NULL || !a->hello ||
	    a->ch->in.len > DCHAN_IN_MAX)
		return NULL;
	rq = xcalloc(1, sizeof *rq);
	rq->call = c;
	rq->agent = a;
	TAILQ_INSERT_TAIL(&a->reqs, rq, aentry);
	dagent_queue_exec(a, rq, (const uint8_t *)frame->data, frame->len);
	return rq;
}

/* Whether an agent is up with a capability; see daemon_int.h. */
int
dagent_has(struct dhost *h, const char *path, int cap)
{
	struct dagent	*a;

	TAILQ_FOREACH(a, &h->agents, entry) {
		if (strcmp(a->path, path) == 0)
			return a->ch != NULL && a->hello &&
			    (a->caps & cap) != 0;
	}
	return 0;
}

/* Signal an in-process command; see daemon_int.h. */
void
dareq_signal(struct dareq *rq, int sig)
{
	struct frame_wr	w = FRAME_WR_INIT;

	msg_u32(&w, FRAME_SIGNAL, rq->id, TAG_SIGNO, (uint32_t)sig);
	dagent_send(rq->agent, &w);
}

/* An in-process command's stdin, then its end; see daemon_int.h. */
void
dareq_stdin(struct dareq *rq, const char *p, size_t n)
{
	struct frame_wr	w = FRAME_WR_INIT;

	dareq_data(&w, rq->id, p, n);
	msg_u32(&w, FRAME_EOF, rq->id, TAG_STREAM, 0);
	dagent_send(rq->agent, &w);
}

/* Free h's agents (the host goes); see daemon_int.h. */
void
dagent_free_all(struct dhost *h)
{
	struct dagent	*a;

	while ((a = TAILQ_FIRST(&h->agents)) != NULL) {
		if (a->ch != NULL)
			a->ch->agent = NULL;
		a->ch = NULL;
		while (!TAILQ_EMPTY(&a->reqs))
			dareq_fail(TAILQ_FIRST(&a->reqs), "the daemon ends");
		TAILQ_REMOVE(&h->agents, a, entry);
		buf_free(&a->rx);
		buf_free(&a->err);
		free(a->path);
		free(a);
	}
}
