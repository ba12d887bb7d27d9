/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The client end of the control socket.  Frames for every channel arrive
 * on one socket; each channel keeps its own stdout and stderr until exec.c
 * asks for them.  Reading stops while too much is held, so a slow reader
 * pushes back on the daemon, which stops reading that SSH channel.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "clock.h"
#include "error.h"
#include "fdio.h"
#include "log.h"
#include "mux_client.h"
#include "mux_proto.h"
#include "pty.h"
#include "remote_cmd.h"
#include "signals.h"
#include "sshconfig.h"
#include "sshconfig_json.h"
#include "transport.h"
#include "xmalloc.h"

#define MUX_HOLD_MAX	(4 * 1024 * 1024)	/* stop reading above this */
#define MUX_QUEUE_MAX	(1024 * 1024)		/* stdin queued to send */
#define MUX_READ	(64 * 1024)
#define MUX_READY_MS	(10 * 60 * 1000)	/* the connect's own deadline
						   comes first */

struct mux_chan {
	TAILQ_ENTRY(mux_chan)	 entry;
	struct mux		*m;
	uint32_t		 id;
	struct buf		 out[2];	/* stdout, stderr */
	int			 opened;
	int			 failed;
	int			 agent;		/* OPEN_AGENT: stdin waits for
						   OPENED */
	int32_t			 errnum;	/* ERROR's number */
	char			*errmsg;
	int			 eof;		/* remote output ended */
	int			 closed;	/* EXIT arrived */
	int			 status;
	char			*signame;
};

struct mux {
	int			 fd;
	struct buf		 in;
	struct buf		 out;
	size_t			 held;		/* bytes in channel buffers */
	uint32_t		 next_id;
	char			*error;		/* once dead */
	int			 ready;		/* READY came */
	char			*caps;		/* its capabilities, or "" */
	char			*hello;		/* HELLO's payload, as sent */
	int			 want;		/* answer awaited on channel 0 */
	struct buf		*reply;		/* its payload goes there */
	TAILQ_HEAD(, mux_chan)	 chans;
};

/* Return the control socket path; see mux_client.h. */
char *
mux_socket_path(const char *configured)
{
	const char	*xdg = getenv("XDG_RUNTIME_DIR");
	const char	*env = getenv("CLAWSSH_DAEMON_SOCKET");

	if (env != NULL && env[0] == '/')
		return xstrdup(env);
	if (configured != NULL && configured[0] != '\0')
		return xstrdup(configured);
	if (xdg != NULL && xdg[0] == '/')
		return xasprintf("%s/clawssh/control.sock", xdg);
	return xasprintf("/tmp/clawssh-%u/control.sock", (unsigned)getuid());
}

/* Find channel id; NULL if it was released. */
static struct mux_chan *
mux_chan_find(struct mux *m, uint32_t id)
{
	struct mux_chan	*c;

	TAILQ_FOREACH(c, &m->chans, entry) {
		if (c->id == id)
			return c;
	}
	return NULL;
}

/* The connection is gone: every channel fails with why. */
static int
mux_dead(struct mux *m, const char *why)
{
	struct mux_chan	*c;

	if (m->error == NULL)
		m->error = xstrdup(why);
	TAILQ_FOREACH(c, &m->chans, entry) {
		if (!c->closed && !c->failed) {
			c->failed = 1;
			c->errmsg = xstrdup(m->error);
		}
	}
	return CLAW_ERR_CONNECT;
}

/* READY: remember the capabilities after the label (none: old daemon). */
static void
mux_ready(struct mux *m, const struct mux_frame *f)
{
	const char	*nul = memchr(f->payload, '\0', f->len);

	m->ready = 1;
	free(m->caps);
	m->caps = nul == NULL ? xstrdup("") : xstrndup(nul + 1,
	    (size_t)(f->payload + f->len - nul - 1));
}

/* Act on one frame from the daemon. */
static int
mux_dispatch(struct mux *m, const struct mux_frame *f)
{
	struct mux_chan	*c;
	int32_t		 num;
	char		*text;

	if (f->type == MUX_ERROR && f->chan == 0) {
		if (mux_frame_num(f, &num, &text) != 0)
			return mux_dead(m, "control socket: bad error frame");
		mux_dead(m, text);
		free(text);
		return CLAW_ERR_CONNECT;
	}
	if (f->chan == 0 && f->type == MUX_READY) {
		mux_ready(m, f);
		return 0;
	}
	if (f->chan == 0 && m->reply != NULL && (int)f->type == m->want) {
		buf_append(m->reply, f->payload, f->len);
		m->reply = NULL;
		return 0;
	}
	if ((c = mux_chan_find(m, f->chan)) == NULL)
		return 0;
	switch (f->type) {
	case MUX_OPENED:
		c->opened = 1;
		break;
	case MUX_STDOUT:
	case MUX_STDERR:
		buf_append(&c->out[f->type == MUX_STDERR], f->payload, f->len);
		m->held += f->len;
		break;
	case MUX_EOF:
		c->eof = 1;
		break;
	case MUX_EXIT:
		if (mux_frame_num(f, &num, &text) != 0)
			return mux_dead(m, "control socket: bad exit frame");
		c->status = num;
		free(c->signame);
		c->signame = text[0] != '\0' ? text : NULL;
		if (c->signame == NULL)
			free(text);
		c->closed = c->eof = 1;
		break;
	case MUX_ERROR:
		if (mux_frame_num(f, &num, &text) != 0)
			return mux_dead(m, "control socket: bad error frame");
		c->failed = 1;
		c->errnum = num;
		free(c->errmsg);
		c->errmsg = text;
		break;
	default:
		return mux_dead(m, "control socket: unexpected frame");
	}
	return 0;
}

/* Dispatch every complete frame in m->in. */
static int
mux_take_frames(struct mux *m)
{
	struct mux_frame	f;
	size_t			used, off = 0;
	char			*cause = NULL;
	int			rc = 0;

	while ((rc = mux_frame_get(m->in.data + off, m->in.len - off, &f,
	    &used, &cause)) == 1) {
		off += used;
		if ((rc = mux_dispatch(m, &f)) != 0)
			break;
	}
	buf_consume(&m->in, off);
	if (rc < 0 && cause != NULL) {
		mux_dead(m, cause);
		free(cause);
	}
	return rc < 0 ? CLAW_ERR_CONNECT : 0;
}

/*
 * Whether the daemon hung up.  Then the hold no longer applies: nothing
 * more can come than the socket still has, and reading it to its end is
 * how the death is seen.  Without that, a full hold left the hung-up
 * socket polled (POLLHUP always wakes) but never read: a spin.
 */
static int
mux_hung_up(struct mux *m)
{
	struct pollfd	pfd;

	pfd.fd = m->fd;
	pfd.events = POLLRDHUP;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) == -1)
		return 0;
	return (pfd.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* Pump the socket; see mux_client.h. */
int
mux_pump(struct mux *m)
{
	char	chunk[MUX_READ];
	ssize_t	n;
	int	gone;

	if (m->error != NULL)
		return CLAW_ERR_CONNECT;
	while (m->out.len != 0) {
		n = send(m->fd, m->out.data, m->out.len, MSG_NOSIGNAL);
		if (n > 0) {
			buf_consume(&m->out, (size_t)n);
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			break;
		return mux_dead(m, "the clawssh daemon went away");
	}
	gone = m->held >= MUX_HOLD_MAX && mux_hung_up(m);
	while (m->held < MUX_HOLD_MAX || gone) {
		n = recv(m->fd, chunk, sizeof chunk, 0);
		if (n > 0) {
			buf_append(&m->in, chunk, (size_t)n);
			if (mux_take_frames(m) != 0)
				return CLAW_ERR_CONNECT;
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			break;
		return mux_dead(m, "the clawssh daemon went away");
	}
	return 0;
}

/* Connect the Unix socket at path; see mux_client.h. */
int
mux_dial(const char *path, int *fdp, char **cause)
{
	struct sockaddr_un	sun;
	int			fd, rc, err;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path)
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "%s: control socket path too long", path);
	memcpy(sun.sun_path, path, strlen(path));
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return claw_fail_errno(cause, path, "socket");
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == -1) {
		err = errno;
		rc = claw_fail_errno(cause, path, "connect");
		close(fd);
		if (err == ENOENT || err == ECONNREFUSED || err == ENOTDIR) {
			free(*cause);
			*cause = NULL;
			return CLAW_ERR_NOTFOUND;
		}
		return rc;
	}
	*fdp = fd;
	return 0;
}

/*
 * Queue MUX_MAGIC and HELLO.  Nothing waits for READY: the first channel
 * follows at once, the daemon queues it until the session is up, and a
 * failed connect arrives as ERROR on channel 0, failing every channel
 * with the daemon's message (the host key, the authentication...).
 */
static void
mux_hello(struct mux *m, const struct sshconfig *sc,
    const struct transport_opts *opts)
{
	cJSON	*o = cJSON_CreateObject();
	char	*s;

	cJSON_AddItemToObject(o, "ssh", sshconfig_to_json(sc));
	if (opts->passphrase_file != NULL)
		cJSON_AddStringToObject(o, "passphraseFile",
		    opts->passphrase_file);
	s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	buf_append(&m->out, MUX_MAGIC, MUX_MAGIC_LEN);
	mux_frame_put(&m->out, MUX_HELLO, 0, s, strlen(s));
	free(m->hello);
	m->hello = s;
}

/* HELLO's payload; see mux_client.h. */
const char *
mux_hello_text(const struct mux *m)
{
	return m->hello;
}

/* Connect through the daemon; see mux_client.h. */
int
mux_connect(const char *path, const struct sshconfig *sc,
    const struct transport_opts *opts, struct transport **out, char **cause)
{
	struct mux	*m;
	char		*label;
	int		 fd = -1, rc;

	if ((rc = mux_dial(path, &fd, cause)) != 0)
		return rc;
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == -1) {
		rc = claw_fail_errno(cause, path, "fcntl");
		close(fd);
		return rc;
	}
	m = xcalloc(1, sizeof *m);
	m->fd = fd;
	m->next_id = 1;
	TAILQ_INIT(&m->chans);
	mux_hello(m, sc, opts);
	if ((rc = mux_pump(m)) != 0) {
		*cause = xstrdup(m->error);
		mux_free(m);
		return rc;
	}
	label = xasprintf("%s@%s:%d", sc->user, sc->hostname, sc->port);
	log_info("using the clawssh daemon at %s for %s", path, label);
	*out = transport_from_mux(m, label);
	free(label);
	return 0;
}

/* Free the connection; see mux_client.h. */
void
mux_free(struct mux *m)
{
	struct mux_chan	*c;

	if (m == NULL)
		return;
	while ((c = TAILQ_FIRST(&m->chans)) != NULL)
		mux_chan_free(c);
	close(m->fd);
	buf_free(&m->in);
	buf_free(&m->out);
	free(m->error);
	free(m->caps);
	free(m->hello);
	free(m);
}

/* Whether the daemon has a capability; see mux_client.h. */
int
mux_has(struct mux *m, const char *cap, int timeout_ms)
{
	struct pollfd	 pfd;
	int64_t		 deadline = clock_now_ms() + timeout_ms, left;
	const char	*p;
	size_t		 len = strlen(cap);

	while (!m->ready && m->error == NULL) {
		if (mux_pump(m) != 0 || m->ready)
			break;
		if ((left = deadline - clock_now_ms()) <= 0)
			return 0;
		pfd.fd = m->fd;
		pfd.events = mux_poll_events(m);
		pfd.revents = 0;
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			return 0;
	}
	for (p = m->caps; m->ready && p != NULL && *p != '\0'; p++) {
		if (strncmp(p, cap, len) == 0 && (p[len] == ' ' ||
		    p[len] == '\0') && (p == m->caps || p[-1] == ' '))
			return 1;
	}
	return 0;
}

/* Queue a frame and send; see mux_client.h. */
void
mux_send(struct mux *m, int type, const void *payload, size_t len)
{
	mux_frame_put(&m->out, (enum mux_type)type, 0, payload, len);
	(void)mux_pump(m);
}

/* Send a request and wait for its answer; see mux_client.h. */
int
mux_request(struct mux *m, int type, const void *payload, size_t len,
    int want, struct buf *reply, int timeout_ms, char **cause)
{
	struct pollfd	pfd;
	int64_t		deadline = clock_now_ms() + timeout_ms, left;

	mux_frame_put(&m->out, (enum mux_type)type, 0, payload, len);
	m->want = want;
	m->reply = reply;
	while (m->reply != NULL) {
		if (mux_pump(m) != 0)
			break;
		if (m->reply == NULL)
			break;
		if ((left = deadline - clock_now_ms()) <= 0) {
			m->reply = NULL;
			return claw_fail(cause, CLAW_ERR_TIMEOUT, "the clawssh "
			    "daemon did not answer in %d ms", timeout_ms);
		}
		pfd.fd = m->fd;
		pfd.events = mux_poll_events(m);
		pfd.revents = 0;
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR) {
			m->reply = NULL;
			return claw_fail_errno(cause, "control socket", "poll");
		}
	}
	if (m->error != NULL) {
		m->reply = NULL;
		return claw_fail(cause, CLAW_ERR_CONNECT, "%s", m->error);
	}
	return 0;
}

/* Return the socket. */
int
mux_fd(struct mux *m)
{
	return m->fd;
}

/* Poll for input, and for output while some is queued. */
short
mux_poll_events(struct mux *m)
{
	short	ev = 0;

	if (m->held < MUX_HOLD_MAX)
		ev |= POLLIN;
	if (m->out.len != 0)
		ev |= POLLOUT;
	return ev;
}

/* Return the connection's error. */
const char *
mux_error(struct mux *m)
{
	return m->error;
}

/*
 * Whether the daemon can give a channel a terminal: 0, or an error with
 * *cause (its connect failed, or it is older than this clawssh).
 */
static int
mux_pty_ok(struct mux *m, char **cause)
{
	if (mux_has(m, "pty", MUX_READY_MS))
		return 0;
	if (m->error != NULL)
		*cause = xstrdup(m->error);
	else if (!m->ready)
		*cause = xstrdup("the clawssh daemon did not answer");
	else
		*cause = xstrdup("the daemon does not support terminals; "
		    "restart it (clawssh serve --stop)");
	return CLAW_ERR_UNSUPPORTED;
}

/* Open a channel and start command; see mux_client.h. */
struct mux_chan *
mux_chan_open(struct mux *m, const char *command, const char *nonce,
    const struct pty_req *pty, char **cause)
{
	struct mux_chan	*c;
	size_t		 len = strlen(command);
	int		 rc = 0;

	if (len > MUX_PAYLOAD_MAX - 512) {
		*cause = xstrdup("remote command too long for the daemon");
		return NULL;
	}
	if (pty != NULL && mux_pty_ok(m, cause) != 0)
		return NULL;
	c = xcalloc(1, sizeof *c);
	c->m = m;
	c->id = m->next_id++;
	c->status = -1;
	TAILQ_INSERT_TAIL(&m->chans, c, entry);
	if (pty != NULL)
		mux_frame_put_pty(&m->out, c->id, pty, command);
	else
		mux_frame_put(&m->out, MUX_OPEN, c->id, command, len);
	if (nonce != NULL)
		mux_frame_put(&m->out, MUX_MARKER, c->id, nonce,
		    strlen(nonce));
	/*
	 * No wait for OPENED: stdin queues behind OPEN and the daemon
	 * holds it until the command runs, so the remote side never waits
	 * on a round trip to us.  A refusal arrives as ERROR and fails the
	 * first read.
	 */
	if ((rc = mux_pump(m)) == 0 && !c->failed)
		return c;
	*cause = xstrdup(c->failed ? c->errmsg : m->error != NULL ?
	    m->error : claw_strerror(rc));
	mux_chan_free(c);
	return NULL;
}

/* Start a command through the host agent's channel; see mux_client.h. */
struct mux_chan *
mux_chan_open_agent(struct mux *m, const char *agent, const void *frame,
    size_t len, char **cause)
{
	struct mux_chan	*c;
	struct buf	 p = BUF_INIT;
	size_t		 alen = strlen(agent);
	int		 rc;

	if (!mux_has(m, "agent", MUX_READY_MS)) {
		*cause = xstrdup(m->error != NULL ? m->error :
		    "the daemon has no host agent channel");
		return NULL;
	}
	if (alen + 1 + len > MUX_PAYLOAD_MAX) {
		*cause = xstrdup("the command is too long for the host "
		    "agent's channel");
		return NULL;
	}
	c = xcalloc(1, sizeof *c);
	c->m = m;
	c->id = m->next_id++;
	c->status = -1;
	c->agent = 1;
	TAILQ_INSERT_TAIL(&m->chans, c, entry);
	buf_append(&p, agent, alen + 1);
	buf_append(&p, frame, len);
	mux_frame_put(&m->out, MUX_OPEN_AGENT, c->id, p.data, p.len);
	buf_free(&p);
	if ((rc = mux_pump(m)) == 0)
		return c;
	*cause = xstrdup(m->error != NULL ? m->error : claw_strerror(rc));
	mux_chan_free(c);
	return NULL;
}

/* Signal an OPEN_AGENT command's process group; see mux_client.h. */
int
mux_chan_signal(struct mux_chan *c, int sig)
{
	if (c->failed || c->m->error != NULL)
		return CLAW_ERR_CONNECT;
	mux_frame_put_num(&c->m->out, MUX_SIGNAL, c->id, sig, "");
	(void)mux_pump(c->m);
	return 0;
}

/* Whether an OPEN_AGENT command started; see mux_client.h. */
int
mux_chan_started(const struct mux_chan *c)
{
	return !c->agent || c->opened;
}

/* Whether an agent command was refused before it started. */
int
mux_chan_refused(const struct mux_chan *c)
{
	return c->failed && c->agent && !c->opened &&
	    c->errnum == CLAW_ERR_UNSUPPORTED;
}

/* The channel's own error text, or NULL; see mux_client.h. */
const char *
mux_chan_errmsg(const struct mux_chan *c)
{
	return c->failed ? c->errmsg : NULL;
}

/* Send a new window size; see mux_client.h. */
int
mux_chan_resize(struct mux_chan *c, unsigned cols, unsigned rows)
{
	if (c->failed || c->m->error != NULL)
		return CLAW_ERR_CONNECT;
	mux_frame_put_size(&c->m->out, c->id, cols, rows);
	(void)mux_pump(c->m);
	return 0;
}

/* Read buffered output; see mux_client.h. */
ssize_t
mux_chan_read(struct mux_chan *c, int stream, char *p, size_t n)
{
	struct buf	*b = &c->out[stream != 0];

	if (b->len == 0) {
		(void)mux_pump(c->m);
		if (b->len == 0 && !c->closed && mux_chan_refused(c))
			return CLAW_ERR_UNSUPPORTED;	/* never started */
		if (b->len == 0)
			return c->failed && !c->closed ? CLAW_ERR_CONNECT : 0;
	}
	if (n > b->len)
		n = b->len;
	memcpy(p, b->data, n);
	buf_consume(b, n);
	c->m->held -= n;
	return (ssize_t)n;
}

/* Output buffered; see mux_client.h. */
int
mux_chan_pending(const struct mux_chan *c)
{
	return c->out[0].len != 0 || c->out[1].len != 0;
}

/* Queue stdin; see mux_client.h. */
ssize_t
mux_chan_write(struct mux_chan *c, const char *p, size_t n)
{
	struct mux	*m = c->m;

	if (c->failed || m->error != NULL)
		return CLAW_ERR_CONNECT;
	if (c->agent && !c->opened) {
		(void)mux_pump(m);
		if (!c->opened)
			return c->failed ? CLAW_ERR_CONNECT : 0;
	}
	if (m->out.len >= MUX_QUEUE_MAX) {
		(void)mux_pump(m);
		if (m->out.len >= MUX_QUEUE_MAX)
			return 0;
	}
	if (n > MUX_PAYLOAD_MAX)
		n = MUX_PAYLOAD_MAX;
	mux_frame_put(&m->out, MUX_DATA, c->id, p, n);
	(void)mux_pump(m);
	return (ssize_t)n;
}

/* Send EOF; see mux_client.h. */
int
mux_chan_send_eof(struct mux_chan *c)
{
	if (c->failed || c->m->error != NULL)
		return CLAW_ERR_CONNECT;
	if (c->agent && !c->opened) {
		(void)mux_pump(c->m);
		if (!c->opened)
			return c->failed ? CLAW_ERR_CONNECT : 1;
	}
	mux_frame_put(&c->m->out, MUX_EOF, c->id, NULL, 0);
	(void)mux_pump(c->m);
	return 0;
}

/* Whether the remote output ended. */
int
mux_chan_eof(struct mux_chan *c)
{
	return c->eof && c->out[0].len == 0 && c->out[1].len == 0;
}

/* Whether the command's end arrived. */
int
mux_chan_closed(struct mux_chan *c)
{
	return c->closed;
}

/* Report the command's end; see mux_client.h. */
void
mux_chan_exit(struct mux_chan *c, int *status, const char **signame)
{
	*status = c->status;
	*signame = c->signame;
}

/* Register the remote process group; see mux_client.h. */
void
mux_chan_pgid(struct mux_chan *c, long pgid, const char *ident)
{
	char	num[32 + REMOTE_IDENT_MAX];

	snprintf(num, sizeof num, "%ld%s%s", pgid, *ident != '\0' ? " " : "",
	    ident);
	mux_frame_put(&c->m->out, MUX_PGID, c->id, num, strlen(num));
	(void)mux_pump(c->m);
}

/* Release a channel; see mux_client.h. */
void
mux_chan_free(struct mux_chan *c)
{
	struct mux	*m;

	if (c == NULL)
		return;
	m = c->m;
	if (m->error == NULL && c->id != 0) {
		mux_frame_put(&m->out, MUX_CLOSE, c->id, NULL, 0);
		(void)mux_pump(m);
	}
	TAILQ_REMOVE(&m->chans, c, entry);
	m->held -= c->out[0].len + c->out[1].len;
	buf_free(&c->out[0]);
	buf_free(&c->out[1]);
	free(c->errmsg);
	free(c->signame);
	free(c);
}
