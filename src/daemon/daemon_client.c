/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Clients of the daemon's socket.  Only the daemon's own user gets in
 * (SO_PEERCRED).  The first bytes decide the protocol: MUX_MAGIC for a
 * clawssh command's channels, '{' for JSON-RPC (daemon_rpc.c).  Frames are
 * checked one by one; anything malformed ends that client, never the
 * daemon.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "daemon_int.h"
#include "jsonrpc.h"
#include "error.h"
#include "log.h"
#include "mux_proto.h"
#include "num.h"
#include "pty.h"
#include "sshconfig.h"
#include "sshconfig_json.h"
#include "xmalloc.h"

#define DCLIENT_READ	(64 * 1024)

/* Accept one connection if it comes from our own uid. */
void
dclient_accept(struct daemon *d)
{
	struct dclient	*c;
	struct ucred	 cred;
	socklen_t	 len = sizeof cred;
	int		 fd;

	fd = accept4(d->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd == -1)
		return;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1 ||
	    cred.uid != getuid()) {
		log_warn("refused a control connection from uid %ld",
		    (long)cred.uid);
		close(fd);
		return;
	}
	c = xcalloc(1, sizeof *c);
	c->d = d;
	c->fd = c->wfd = fd;
	c->pid = cred.pid;
	TAILQ_INIT(&c->chans);
	TAILQ_INIT(&c->areqs);
	TAILQ_INIT(&c->calls);
	TAILQ_INSERT_TAIL(&d->clients, c, entry);
	log_debug("client pid %ld connected", (long)c->pid);
}

/* Find the client's channel id. */
static struct dchan *
dclient_chan(struct dclient *c, uint32_t id)
{
	struct dchan	*ch;

	TAILQ_FOREACH(ch, &c->chans, centry) {
		if (ch->id == id)
			return ch;
	}
	return NULL;
}

/* End the client with a protocol error. */
static void
dclient_fail(struct dclient *c, const char *why)
{
	log_warn("client pid %ld: %s", (long)c->pid, why);
	mux_frame_put_num(&c->out, MUX_ERROR, 0, CLAW_ERR_PROTO, why);
	c->dead = 1;
}

/* HELLO: bind the client to its host. */
static void
dclient_hello(struct dclient *c, const struct mux_frame *f)
{
	cJSON			*o, *ssh, *pf;
	struct sshconfig	*sc;
	char			*key, *cause = NULL;

	if (c->host != NULL) {
		dclient_fail(c, "HELLO sent twice");
		return;
	}
	if ((o = cJSON_ParseWithLength(f->payload, f->len)) == NULL) {
		dclient_fail(c, "HELLO is not JSON");
		return;
	}
	ssh = cJSON_GetObjectItemCaseSensitive(o, "ssh");
	pf = cJSON_GetObjectItemCaseSensitive(o, "passphraseFile");
	if ((pf != NULL && !cJSON_IsString(pf)) ||
	    sshconfig_from_json(ssh, &sc, &cause) != 0) {
		dclient_fail(c, cause != NULL ? cause :
		    "HELLO: passphraseFile: expected a string");
		free(cause);
		cJSON_Delete(o);
		return;
	}
	key = cJSON_PrintUnformatted(o);
	dhost_attach(dhost_get(c->d, key, sc, pf != NULL ?
	    pf->valuestring : NULL), c);
	free(key);
	cJSON_Delete(o);
}

/*
 * OPEN: a new channel with the command in the payload; OPEN_PTY: one
 * with a terminal request first.
 */
static void
dclient_open(struct dclient *c, const struct mux_frame *f)
{
	struct pty_req	 pty;
	const char	*err;
	char		*command, *cause = NULL;

	if (c->host == NULL) {
		dclient_fail(c, "OPEN before HELLO");
		return;
	}
	if (f->chan == 0 || dclient_chan(c, f->chan) != NULL ||
	    dareq_find(c, f->chan) != NULL) {
		dclient_fail(c, "OPEN: channel number 0 or in use");
		return;
	}
	if (f->type == MUX_OPEN_AGENT) {
		if ((err = dagent_open(c, f)) != NULL)
			dclient_fail(c, err);
		return;
	}
	if (f->type == MUX_OPEN_PTY) {
		if (mux_frame_get_pty(f, &pty, &command, &cause) != 0) {
			dclient_fail(c, cause);
			free(cause);
			return;
		}
	} else if (f->len == 0 || memchr(f->payload, '\0', f->len) != NULL) {
		dclient_fail(c, "OPEN: empty command or NUL in it");
		return;
	} else
		command = xstrndup(f->payload, f->len);
	c->d->nchannels++;
	(void)dchan_new(c->host, c, f->chan, command, f->type == MUX_OPEN_PTY ?
	    &pty : NULL);
	free(command);
}

/* RESIZE: the new window size of a channel's terminal. */
static void
dclient_resize(struct dclient *c, struct dchan *ch, const struct mux_frame *f)
{
	if (ch->pty == NULL || mux_frame_get_size(f, &ch->win_cols,
	    &ch->win_rows) != 0) {
		dclient_fail(c, "RESIZE: malformed, or no terminal");
		return;
	}
	ch->win_pending = 1;
	c->d->again = 1;
}

/* PGID: remember the remote process group to kill if we are left. */
static void
dclient_pgid(struct dchan *ch, const struct mux_frame *f)
{
	long	pgid;
	char	ident[REMOTE_IDENT_MAX];

	if (remote_cmd_parse_ident((const char *)f->payload, f->len, &pgid,
	    ident) == 0) {
		ch->pgid = pgid;
		memcpy(ch->ident, ident, sizeof ident);
	}
}

/* One frame from a control client. */
static void
dclient_frame(struct dclient *c, const struct mux_frame *f)
{
	struct dchan	*ch = NULL;

	if (f->type == MUX_HELLO) {
		dclient_hello(c, f);
		return;
	}
	if (f->type == MUX_OPEN || f->type == MUX_OPEN_PTY ||
	    f->type == MUX_OPEN_AGENT) {
		dclient_open(c, f);
		return;
	}
	if (f->type == MUX_JTAKE || f->type == MUX_RTAKE ||
	    f->type == MUX_JACK) {
		if (f->type == MUX_JTAKE)
			djournal_take(c, f);
		else if (f->type == MUX_RTAKE)
			dwatch_take(c, f);
		else {
			djournal_ack(c);
			dwatch_settle(c, 1);
		}
		return;
	}
	if (f->type != MUX_DATA && f->type != MUX_EOF &&
	    f->type != MUX_PGID && f->type != MUX_MARKER &&
	    f->type != MUX_CLOSE && f->type != MUX_RESIZE &&
	    f->type != MUX_SIGNAL) {
		dclient_fail(c, "unexpected frame type");
		return;
	}
	if (dagent_client_frame(c, f))
		return;
	if ((ch = dclient_chan(c, f->chan)) == NULL || f->type == MUX_SIGNAL)
		return;		/* already ended: late frames are fine */
	switch (f->type) {
	case MUX_DATA:
		if (!ch->in_eof)
			buf_append(&ch->in, f->payload, f->len);
		break;
	case MUX_EOF:
		ch->in_eof = 1;
		break;
	case MUX_PGID:
		dclient_pgid(ch, f);
		break;
	case MUX_RESIZE:
		dclient_resize(c, ch, f);
		break;
	case MUX_MARKER:
		if (f->len == REMOTE_CMD_NONCE_LEN && ch->head.len == 0 &&
		    memchr(f->payload, '\0', f->len) == NULL)
			memcpy(ch->nonce, f->payload, f->len);
		break;
	default:
		dchan_abandon(ch);
		break;
	}
}

/* Take the frames that arrived. */
static void
dclient_frames(struct dclient *c)
{
	struct mux_frame	f;
	size_t			used, off = 0;
	char			*cause = NULL;
	int			rc;

	while (!c->dead && !dclient_paused(c) && (rc = mux_frame_get(
	    c->in.data + off, c->in.len - off, &f, &used, &cause)) != 0) {
		if (rc < 0) {
			dclient_fail(c, cause);
			free(cause);
			break;
		}
		off += used;
		dclient_frame(c, &f);
	}
	buf_consume(&c->in, off);
}

/* Decide the protocol from the first bytes. */
static void
dclient_kind(struct dclient *c)
{
	size_t	n = c->in.len < MUX_MAGIC_LEN ? c->in.len : MUX_MAGIC_LEN;

	if (c->in.len == 0)
		return;
	if (c->in.data[0] == '{') {
		c->kind = DCLIENT_RPC;
		return;
	}
	if (memcmp(c->in.data, MUX_MAGIC, n) != 0) {
		log_warn("client pid %ld: unknown protocol", (long)c->pid);
		c->dead = 1;
		return;
	}
	if (n == MUX_MAGIC_LEN) {
		c->kind = DCLIENT_MUX;
		buf_consume(&c->in, MUX_MAGIC_LEN);
	}
}

/* Whether the client's channels hold too much stdin to read more. */
int
dclient_paused(struct dclient *c)
{
	struct dchan	*ch;

	TAILQ_FOREACH(ch, &c->chans, centry) {
		if (ch->in.len > DCHAN_IN_MAX)
			return 1;
	}
	return dagent_client_paused(c);
}

/*
 * Read what the client sent and act on it.  hup: the peer closed both
 * ways (POLLHUP).  A JSON-RPC client that only shut down its sending side
 * (or stdin that ended) still gets its answers; one that is gone gets its
 * calls stopped.
 */
void
dclient_read(struct dclient *c, int hup)
{
	char	chunk[DCLIENT_READ];
	ssize_t	n;

	if (c->dead)
		return;
	if (c->rclosed) {
		if (hup && !c->stdio) {
			c->dead = 1;
			buf_reset(&c->out);
		}
		return;
	}
	n = read(c->fd, chunk, sizeof chunk);
	if (n == 0 && (c->stdio || (c->kind == DCLIENT_RPC && !hup))) {
		c->rclosed = 1;		/* answer what came, then end */
		return;
	}
	if (n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR)) {
		c->dead = 1;
		buf_reset(&c->out);
		return;
	}
	if (n > 0)
		buf_append(&c->in, chunk, (size_t)n);
	if (c->kind == DCLIENT_NEW)
		dclient_kind(c);
	if (c->kind == DCLIENT_MUX)
		dclient_frames(c);
	else if (c->kind == DCLIENT_RPC)
		drpc_read(c);
}

/*
 * Send what is queued for the client (and take the frames a pause held
 * back).  Whatever this unblocks -- stdin frames taken for a channel, or
 * output drained below DCLIENT_OUT_MAX, which lets the channels and agent
 * requests held back for this client read again -- moves on the next
 * turn without waiting: nothing else would wake poll when libssh2 has
 * already read the host's data off the socket and the host waits for a
 * window adjust (a lost wakeup cost a second a megabyte of backlog).
 */
void
dclient_flush(struct dclient *c)
{
	size_t	had = c->in.len, was = c->out.len;
	ssize_t	n;

	if (c->kind == DCLIENT_MUX && !c->dead && !dclient_paused(c) &&
	    c->in.len != 0) {
		dclient_frames(c);
		if (c->in.len != had)
			c->d->again = 1;
	}
	while (c->out.len != 0) {
		n = write(c->wfd, c->out.data, c->out.len);
		if (n > 0) {
			buf_consume(&c->out, (size_t)n);
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			break;
		c->dead = 1;
		buf_reset(&c->out);
		return;
	}
	if (was >= DCLIENT_OUT_MAX && c->out.len < DCLIENT_OUT_MAX)
		c->d->again = 1;
}

/* Drop a client: its running channels are stopped. */
void
dclient_free(struct dclient *c)
{
	struct dchan	*ch;

	log_debug("client pid %ld gone", (long)c->pid);
	if (c->kind == DCLIENT_RPC)
		drpc_gone(c);
	djournal_gone(c);
	dwatch_settle(c, 0);
	if (c->stdio)
		c->d->quit = 1;
	while ((ch = TAILQ_FIRST(&c->chans)) != NULL)
		dchan_abandon(ch);
	dagent_client_gone(c);
	if (c->host != NULL)
		dhost_detach(c->host, c);
	TAILQ_REMOVE(&c->d->clients, c, entry);
	close(c->fd);
	if (c->wfd != c->fd)
		close(c->wfd);
	buf_free(&c->in);
	buf_free(&c->out);
	free(c);
}
