/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Hosts, their pool of warm SSH sessions, and the channels on them.  A
 * session is made by a connector thread (transport_connect blocks) and
 * handed to the loop through the wake pipe; from then on only the loop
 * touches it.  Each channel is sshchan.c's state machine (the one the
 * CLI's own sessions wait on) stepped whenever its session may have
 * moved: libssh2 allows one channel open in progress per session, so
 * opens are taken one at a time; a session that refuses a channel (sshd's
 * MaxSessions) takes no more than it holds.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "buf.h"
#include "clock.h"
#include "daemon_int.h"
#include "error.h"
#include "log.h"
#include "mux_proto.h"
#include "pty.h"
#include "remote_cmd.h"
#include "sshconfig.h"
#include "transport.h"
#include "xmalloc.h"

#define DHOST_BACKOFF_MIN	250	/* ms, doubled per failure */
#define DHOST_BACKOFF_MAX	10000
#define DCHAN_WINDOW		(16 * 1024 * 1024)
#define DCHAN_PACKET		(32 * 1024)
#define DCHAN_READ		(32 * 1024)
#define DCHAN_KILL_DS		20	/* TERM to KILL, tenths of a second */
#define DCHAN_LINE_MAX		4096	/* longest marker line looked at */
#define DCHAN_MARKER_MS		30000	/* wait for a late marker to kill */
#define DCONN_FULL_MS		50	/* a full session: next open after */
#define DCHAN_REFUSED_MAX	100	/* ... this many times, then fail */

/* What a connector thread works on and hands back. */
struct dconnect_job {
	struct dconn		*conn;
	struct sshconfig	*sc;		/* the host's, read only */
	const char		*passphrase_file;
	int			 wfd;
	struct transport	*t;
	char			*cause;
	int			 rc;
	pthread_t		 tid;
	int			 started;	/* tid runs: join it */
};

static void	dconn_dead(struct dconn *, const char *);
static int	dchan_step1(struct dchan *);
static void	dchan_abandon_running(struct dchan *);

/* Find or make the host for key; takes sc. */
struct dhost *
dhost_get(struct daemon *d, const char *key, struct sshconfig *sc,
    const char *passphrase_file)
{
	struct dhost	*h;

	TAILQ_FOREACH(h, &d->hosts, entry) {
		if (strcmp(h->key, key) == 0) {
			sshconfig_free(sc);
			return h;
		}
	}
	h = xcalloc(1, sizeof *h);
	h->d = d;
	h->key = xstrdup(key);
	h->sc = sc;
	h->passphrase_file = passphrase_file != NULL ?
	    xstrdup(passphrase_file) : NULL;
	h->label = xasprintf("%s@%s:%d", sc->user, sc->hostname, sc->port);
	TAILQ_INIT(&h->conns);
	TAILQ_INIT(&h->queue);
	TAILQ_INIT(&h->agents);
	TAILQ_INSERT_TAIL(&d->hosts, h, entry);
	return h;
}

/*
 * A connect failed or a session died: remember why, and back off before
 * the next connect (250 ms doubling to 10 s, jittered).
 */
static void
dhost_failed(struct dhost *h, const char *why)
{
	free(h->last_error);
	h->last_error = xstrdup(why);
	h->fails++;
	h->retry_at = clock_now_ms() + clock_jitter(DHOST_BACKOFF_MIN <<
	    (h->fails < 6 ? h->fails - 1 : 5), DHOST_BACKOFF_MAX);
}

/* Tell one client its host is ready (or not). */
static void
dhost_tell(struct dhost *h, struct dclient *c, const char *error)
{
	struct buf	b = BUF_INIT;

	if (c->ready || c->dead)
		return;
	if (error != NULL) {
		mux_frame_put_num(&c->out, MUX_ERROR, 0, CLAW_ERR_CONNECT,
		    error);
		c->dead = 1;	/* after the flush */
		return;
	}
	buf_append(&b, h->label, strlen(h->label) + 1);
	buf_append_str(&b, MUX_CAPS);
	mux_frame_put(&c->out, MUX_READY, 0, b.data, b.len);
	buf_free(&b);
	c->ready = 1;
}

/* Tell every client waiting on h. */
static void
dhost_tell_all(struct dhost *h, const char *error)
{
	struct dclient	*c;

	TAILQ_FOREACH(c, &h->d->clients, entry) {
		if (c->host == h)
			dhost_tell(h, c, error);
	}
}

/* Whether h has a session up. */
static int
dhost_up(struct dhost *h)
{
	struct dconn	*k;

	TAILQ_FOREACH(k, &h->conns, entry) {
		if (k->state == DCONN_UP)
			return 1;
	}
	return 0;
}

/* Connector thread: connect and hand the job back. */
static void *
dconnect_thread(void *arg)
{
	struct dconnect_job	*job = arg;
	struct transport_opts	 topts = { job->passphrase_file };
	ssize_t			 n;

	job->rc = transport_connect(job->sc, &topts, &job->t, &job->cause);
	do {
		n = write(job->wfd, &job, sizeof job);
	} while (n == -1 && errno == EINTR);
	return NULL;
}

/*
 * Start one more session for h in a thread.  The thread is joined once
 * its job is read back (dconnect_reap), not detached: it is not over
 * when it has written its job, and OpenSSL's clean-up at exit freed its
 * thread state a second time when the daemon ended in between (a double
 * free under ASan's gateway.sh, serve --stdio ending with its input).
 */
static void
dhost_connect(struct dhost *h)
{
	struct dconn		*k = xcalloc(1, sizeof *k);
	struct dconnect_job	*job = xcalloc(1, sizeof *job);

	k->host = h;
	k->cap = h->d->max_sessions;
	TAILQ_INIT(&k->chans);
	TAILQ_INSERT_TAIL(&h->conns, k, entry);
	job->conn = k;
	job->sc = h->sc;
	job->passphrase_file = h->passphrase_file;
	job->wfd = h->d->wake[1];
	log_info("connecting to %s", h->label);
	h->d->connecting++;	/* until daemon_connected reads its job */
	if (pthread_create(&job->tid, NULL, dconnect_thread, job) == 0)
		job->started = 1;
	else {
		job->rc = CLAW_ERR_NOMEM;
		job->cause = xstrdup("cannot start a connector thread");
		if (write(job->wfd, &job, sizeof job) != sizeof job)
			abort();
	}
}

/* A job came back: wait for its thread to be over (it is returning). */
static void
dconnect_reap(struct dconnect_job *job)
{
	if (job->started)
		(void)pthread_join(job->tid, NULL);
	job->started = 0;
}

/* A connect finished: take the session or fail the waiters. */
static void
dhost_connected(struct dconnect_job *job)
{
	struct dconn	*k = job->conn;
	struct dhost	*h = k->host;
	struct dchan	*c;

	if (job->rc != 0) {
		log_warn("%s", job->cause);
		dhost_failed(h, job->cause);
		free(job->cause);
		TAILQ_REMOVE(&h->conns, k, entry);
		free(k);
		if (!dhost_up(h)) {
			dhost_tell_all(h, h->last_error);
			while ((c = TAILQ_FIRST(&h->queue)) != NULL) {
				TAILQ_REMOVE(&h->queue, c, hentry);
				c->state = DCHAN_DONE;
				c->host = NULL;
				if (c->client != NULL && !c->abandoned)
					mux_frame_put_num(&c->client->out,
					    MUX_ERROR, c->id, CLAW_ERR_CONNECT,
					    h->last_error);
				if (c->client == NULL || c->abandoned)
					dchan_release(c);
			}
		}
		free(job);
		return;
	}
	k->t = job->t;
	k->state = DCONN_UP;
	h->fails = 0;
	h->retry_at = 0;
	log_info("connected to %s", h->label);
	free(job);
	dhost_tell_all(h, NULL);
	dhost_schedule(h);
}

/* Read finished connects off the wake pipe. */
void
daemon_connected(struct daemon *d)
{
	struct dconnect_job	*job;
	ssize_t			 n;

	while ((n = read(d->wake[0], &job, sizeof job)) == sizeof job) {
		d->connecting--;
		dconnect_reap(job);
		dhost_connected(job);
	}
}

/* Wait for the connector threads at the end; see daemon_int.h. */
int
daemon_connectors_end(struct daemon *d, int ms)
{
	struct dconnect_job	*job;
	struct dconn		*k;
	struct pollfd		 pfd;
	int64_t			 deadline = clock_now_ms() + ms, left;

	while (d->connecting > 0) {
		if ((left = deadline - clock_now_ms()) <= 0)
			return CLAW_ERR_TIMEOUT;
		pfd.fd = d->wake[0];
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			return claw_err_from_errno(errno);
		while (read(d->wake[0], &job, sizeof job) == sizeof job) {
			d->connecting--;
			dconnect_reap(job);
			k = job->conn;
			TAILQ_REMOVE(&k->host->conns, k, entry);
			free(k);
			if (job->rc == 0)
				transport_free(job->t);
			free(job->cause);
			free(job);
		}
	}
	return 0;
}

/* A client bound itself to h: ready now, or once a session is up. */
void
dhost_attach(struct dhost *h, struct dclient *c)
{
	struct dconn	*k;

	c->host = h;
	h->nclients++;
	if (dhost_up(h)) {
		dhost_tell(h, c, NULL);
		return;
	}
	TAILQ_FOREACH(k, &h->conns, entry) {
		if (k->state == DCONN_CONNECTING)
			return;
	}
	dhost_connect(h);
}

/* A client left h. */
void
dhost_detach(struct dhost *h, struct dclient *c)
{
	if (c->host == h) {
		h->nclients--;
		c->host = NULL;
	}
}

/*
 * A new channel for client c (NULL: the daemon's own), queued on h; the
 * loop's next turn starts it.  Not here: on a busy host the open, the
 * command and its close can all be in libssh2's hands by the first
 * step, and a channel that ends nobody's is freed -- before the caller
 * has made it its own (ch->call, ->agent, ->watch), which would keep a
 * freed channel and never hear its end.
 */
struct dchan *
dchan_new(struct dhost *h, struct dclient *c, uint32_t id,
    const char *command, const struct pty_req *pty)
{
	struct dchan	*ch = xcalloc(1, sizeof *ch);

	if (pty != NULL) {
		ch->pty = xmalloc(sizeof *ch->pty);
		*ch->pty = *pty;
	}
	ch->client = c;
	ch->host = h;
	ch->id = id;
	ch->command = xstrdup(command);
	ch->state = DCHAN_QUEUED;
	if (c != NULL)
		TAILQ_INSERT_TAIL(&c->chans, ch, centry);
	TAILQ_INSERT_TAIL(&h->queue, ch, hentry);
	h->d->again = 1;
	return ch;
}

/*
 * Queue the kill script for a process group on h (ident: its leader's
 * identity, or ""); why says whose it is.
 */
static void
dhost_kill(struct dhost *h, long pgid, const char *ident, const char *why)
{
	struct dchan	*k;
	char		*script = remote_cmd_kill_script(pgid, ident,
			    DCHAN_KILL_DS);

	log_info("%s: stopping remote process group %ld %s", h->label, pgid,
	    why);
	k = dchan_new(h, NULL, 0, script, NULL);
	k->in_eof = 1;
	free(script);
}

/* Nobody will read ch again: stop its command if it still runs. */
void
dchan_abandon(struct dchan *ch)
{
	if (ch->abandoned)
		return;
	ch->abandoned = 1;
	if (ch->client != NULL) {
		TAILQ_REMOVE(&ch->client->chans, ch, centry);
		ch->client = NULL;
	}
	switch (ch->state) {
	case DCHAN_QUEUED:
		TAILQ_REMOVE(&ch->host->queue, ch, hentry);
		ch->state = DCHAN_DONE;
		ch->host = NULL;
		dchan_release(ch);
		return;
	case DCHAN_DONE:
		dchan_release(ch);
		return;
	case DCHAN_FREEING:
		return;
	default:
		break;
	}
	if (ch->state == DCHAN_RUNNING)
		dchan_abandon_running(ch);
}

/*
 * An abandoned command that runs: kill its process group, or if the pid
 * marker has not come yet, keep reading (and dropping) its output until
 * it does, for a while.
 */
static void
dchan_abandon_running(struct dchan *ch)
{
	if (ch->pgid > 0)
		dhost_kill(ch->host, ch->pgid, ch->ident,
		    "of a client that went away");
	else if (ch->nonce[0] != '\0' && !ch->marker_done) {
		if (ch->kill_by == 0) {
			log_debug("%s: waiting for the pid marker of an "
			    "abandoned command", ch->host->label);
			ch->kill_by = clock_now_ms() + DCHAN_MARKER_MS;
		}
		if (clock_now_ms() < ch->kill_by)
			return;
		log_warn("%s: could not stop an abandoned command: its pid "
		    "never arrived", ch->host->label);
	}
	ch->state = DCHAN_FREEING;
}

/* Free a finished channel's memory. */
void
dchan_release(struct dchan *ch)
{
	struct dcall	*call = ch->call;

	if (call != NULL) {		/* never ran, or its host went */
		ch->call = NULL;
		dproc_failed(call, "the daemon lost its session to the host");
	}
	if (ch->client != NULL)
		TAILQ_REMOVE(&ch->client->chans, ch, centry);
	if (ch->watch != NULL)
		dwatch_chan_gone(ch->watch);
	if (ch->agent != NULL)
		dagent_chan_gone(ch->agent);
	free(ch->command);
	free(ch->pty);
	buf_free_secret(&ch->in);	/* a preamble: env values */
	buf_free(&ch->head);
	free(ch);
}

/*
 * The channel ended: give its slot on the session back, and free it if
 * nobody will CLOSE it.
 */
static void
dchan_done(struct dchan *ch)
{
	struct dconn	*k = ch->conn;

	if (k != NULL) {
		TAILQ_REMOVE(&k->chans, ch, hentry);
		k->nchan--;
		ch->conn = NULL;
	}
	ch->state = DCHAN_DONE;
	if (ch->client == NULL || ch->abandoned)
		dchan_release(ch);
}

/* Tell the client (if any) and end the channel with an error. */
static void
dchan_fail(struct dchan *ch, int err, const char *msg)
{
	struct dcall	*call = ch->call;

	if (call != NULL) {
		ch->call = NULL;
		dproc_failed(call, msg);
	}
	if (ch->client != NULL && !ch->abandoned)
		mux_frame_put_num(&ch->client->out, MUX_ERROR, ch->id, err,
		    msg);
	if (ch->conn != NULL && ch->conn->opening == ch)
		ch->conn->opening = NULL;
	dchan_done(ch);
}

/* The last libssh2 error of k's session, with the host's label. */
static char *
dconn_error(struct dconn *k, const char *what)
{
	char	*err = transport_last_error(k->t), *msg;

	msg = xasprintf("%s: %s: %s", k->host->label, what, err);
	free(err);
	return msg;
}

/*
 * A step of ch's channel failed with err (ch->sc.what says which step):
 * the channel's own failure, or its whole session's?
 */
static void
dchan_error(struct dchan *ch, int err)
{
	struct dconn	*k = ch->conn;
	char		*msg = dconn_error(k, ch->sc.what);

	if (err == CLAW_ERR_CHANNEL)
		dchan_fail(ch, CLAW_ERR_CONNECT, msg);
	else
		dconn_dead(k, msg);
	free(msg);
}

/*
 * Send what stdin holds, then EOF: 0, or the error that ended the
 * channel.
 */
static int
dchan_stdin(struct dchan *ch)
{
	ssize_t	n;
	int	rc;

	while (ch->in.len != 0) {
		if ((n = sshchan_write(&ch->sc, ch->in.data,
		    ch->in.len)) == 0)
			return 0;
		if (n < 0) {
			dchan_error(ch, (int)n);
			return (int)n;
		}
		buf_consume(&ch->in, (size_t)n);
		ch->host->d->again = 1;
	}
	if (ch->in_eof && !ch->eof_sent) {
		if ((rc = sshchan_send_eof(&ch->sc)) == 0)
			ch->eof_sent = 1;
		else if (rc < 0) {
			dchan_error(ch, rc);
			return rc;
		}
	}
	return 0;
}

/* Look for the pid marker at the start of stdout. */
static void
dchan_marker(struct dchan *ch, const char *p, size_t n)
{
	struct remote_cmd	 rc;
	char			*nl;

	if (ch->nonce[0] == '\0' || ch->marker_done)
		return;
	buf_append(&ch->head, p, n);
	if ((nl = memchr(ch->head.data, '\n', ch->head.len)) != NULL) {
		memset(&rc, 0, sizeof rc);
		memcpy(rc.nonce, ch->nonce, sizeof rc.nonce);
		(void)remote_cmd_parse_pid(&rc, ch->head.data,
		    (size_t)(nl - ch->head.data) + 1, &ch->pgid, ch->ident);
		ch->marker_done = 1;
	} else if (ch->head.len > DCHAN_LINE_MAX)
		ch->marker_done = 1;
	if (ch->marker_done)
		buf_free(&ch->head);
}

/*
 * Move output to the client while it has room: 0, or the error that
 * ended the channel.
 */
static int
dchan_output(struct dchan *ch)
{
	char		 chunk[DCHAN_READ];
	struct dclient	*c = ch->abandoned ? NULL : ch->client;
	ssize_t		 n;
	int		 stream;

	for (stream = 0; stream < 2; stream++) {
		while ((c == NULL || c->out.len < DCLIENT_OUT_MAX) &&
		    (ch->agent == NULL || !dagent_blocked(ch->agent))) {
			n = sshchan_read(&ch->sc, stream, chunk,
			    sizeof chunk);
			if (n == 0)
				break;
			if (n < 0) {
				dchan_error(ch, (int)n);
				return (int)n;
			}
			ch->host->d->again = 1;
			if (stream == 0)
				dchan_marker(ch, chunk, (size_t)n);
			if (ch->watch != NULL)
				dwatch_output(ch, stream, chunk, (size_t)n);
			if (ch->agent != NULL)
				dagent_output(ch->agent, stream, chunk,
				    (size_t)n);
			if (ch->call != NULL)
				dproc_output(ch->call, stream, chunk,
				    (size_t)n);
			if (c != NULL)
				mux_frame_put(&c->out, stream != 0 ?
				    MUX_STDERR : MUX_STDOUT, ch->id, chunk,
				    (size_t)n);
		}
	}
	return 0;
}

/* Send the command's end to the client, or to the call it is a step of. */
static void
dchan_exit(struct dchan *ch)
{
	struct dcall	*call = ch->call;
	char		*sig = NULL;
	int		 status;

	if (call != NULL) {
		ch->call = NULL;
		sshchan_exit(&ch->sc, &status, &sig);
		dproc_exit(call, status, sig);
		free(sig);
		return;
	}
	if (ch->client == NULL || ch->abandoned)
		return;
	sshchan_exit(&ch->sc, &status, &sig);
	mux_frame_put_num(&ch->client->out, MUX_EXIT, ch->id, status,
	    sig != NULL ? sig : "");
	free(sig);
}

/*
 * Send a new window size the client asked for: 0, or the error that
 * ended the channel.
 */
static int
dchan_resize(struct dchan *ch)
{
	int	rc;

	if (!ch->win_pending)
		return 0;
	if ((rc = sshchan_resize(&ch->sc, ch->win_cols, ch->win_rows)) < 0) {
		dchan_error(ch, rc);
		return rc;
	}
	if (rc == 0)
		ch->win_pending = 0;
	return 0;
}

/*
 * Step a running channel: size, stdin, output, end.  1 when it failed
 * (ch may be freed then: see dchan_step1), else 0.
 */
static int
dchan_run(struct dchan *ch)
{
	int	rc;

	if (dchan_resize(ch) != 0 || dchan_stdin(ch) != 0 ||
	    dchan_output(ch) != 0)
		return 1;
	if (ch->abandoned) {
		dchan_abandon_running(ch);
		if (ch->state != DCHAN_RUNNING)
			return 0;
	}
	if (!sshchan_eof(&ch->sc))
		return 0;
	if (!ch->eof_told && ch->client != NULL && !ch->abandoned) {
		mux_frame_put(&ch->client->out, MUX_EOF, ch->id, NULL, 0);
		ch->eof_told = 1;
	}
	if ((rc = sshchan_wait_closed(&ch->sc)) == SSHCHAN_AGAIN)
		return 0;
	if (rc != 0) {
		dchan_error(ch, rc);
		return 1;
	}
	dchan_exit(ch);
	ch->state = DCHAN_FREEING;
	return 0;
}

/* Free the libssh2 channel; then the slot on the session is free. */
static void
dchan_free_step(struct dchan *ch)
{
	if (sshchan_free(&ch->sc) == SSHCHAN_AGAIN)
		return;
	dchan_done(ch);
}

/*
 * The session refused ch a channel (sshd's MaxSessions).  Holding
 * others, it takes no more than it holds now; holding none (sshd still
 * counts sessions whose close it has not handled yet), it opens nothing
 * for a moment, DCHAN_REFUSED_MAX times at most.  ch is queued again: 0,
 * or CLAW_ERR_RANGE once it has had its tries.
 */
static int
dchan_refused(struct dchan *ch)
{
	struct dconn	*k = ch->conn;

	if (k->nchan > 1) {
		k->cap = k->nchan - 1;
		log_debug("%s: session full at %d channels", k->host->label,
		    k->cap);
	} else if (++ch->refused > DCHAN_REFUSED_MAX)
		return CLAW_ERR_RANGE;
	else {
		log_debug("%s: session full with no channel open; waiting",
		    k->host->label);
		k->full_until = clock_now_ms() + DCONN_FULL_MS;
	}
	TAILQ_REMOVE(&k->chans, ch, hentry);
	k->nchan--;
	ch->conn = NULL;
	ch->state = DCHAN_QUEUED;
	TAILQ_INSERT_HEAD(&k->host->queue, ch, hentry);
	return 0;
}

/*
 * Step the start (open, terminal, exec; one open at a time per session):
 * DCHAN_RUNNING once it runs, the client told.  1 when it failed (ch may
 * be freed then: see dchan_step1), else 0.
 */
static int
dchan_start(struct dchan *ch)
{
	struct dconn	*k = ch->conn;
	int		 rc, opening = ch->sc.phase == SSHCHAN_OPEN;

	rc = sshchan_start(&ch->sc);
	if (opening && (rc != SSHCHAN_AGAIN || ch->sc.phase != SSHCHAN_OPEN))
		k->opening = NULL;
	if (rc == SSHCHAN_AGAIN)
		return 0;
	if (rc == CLAW_ERR_CHANNEL && ch->sc.phase == SSHCHAN_OPEN &&
	    dchan_refused(ch) == 0)
		return 0;
	if (rc != 0) {
		dchan_error(ch, rc);
		return 1;
	}
	ch->state = DCHAN_RUNNING;
	if (ch->client != NULL)
		mux_frame_put(&ch->client->out, MUX_OPENED, ch->id, NULL, 0);
	return 0;
}

/*
 * Step one channel as far as it goes without waiting.  libssh2 may have
 * read more than this channel's packets off the socket, so any progress
 * means another turn without waiting: poll would not see those bytes.
 */
static void
dchan_step(struct dchan *ch)
{
	struct daemon	*d = ch->host->d;

	d->again |= dchan_step1(ch);
}

/*
 * dchan_step's work: 1 if the state moved (ch may be gone then: a channel
 * nobody reads is freed once it ends), else 0.
 */
static int
dchan_step1(struct dchan *ch)
{
	enum dchan_state	before = ch->state;

	/*
	 * A failure ends the channel (dchan_fail), and a channel that
	 * nobody reads is freed then -- every channel of the session, when
	 * the session died -- so nothing of ch is looked at after one.
	 */
	if (ch->state == DCHAN_STARTING) {
		if (dchan_start(ch) != 0)
			return 1;
		if (ch->state != DCHAN_RUNNING)
			return ch->state != before;
	}
	if (ch->state == DCHAN_RUNNING) {
		if (dchan_run(ch) != 0)
			return 1;
		if (ch->state != DCHAN_FREEING)
			return ch->state != before;
	}
	if (ch->state == DCHAN_FREEING) {
		dchan_free_step(ch);
		return 1;
	}
	return ch->state != before;
}

/*
 * A session died: fail its channels (never run again: a command that was
 * sent may have run), and reconnect if anyone waits.  A command whose pid
 * marker came may still run on the host (the link went dark rather than
 * down, and its watchdog sees sshd still there): the next session kills
 * its process group, once, after the backoff -- unless its leader is
 * alive as another process by then (the host rebooted: the marker's
 * identity says which it was).
 */
static void
dconn_dead(struct dconn *k, const char *why)
{
	struct dhost	*h = k->host;
	struct dchan	*ch;
	struct {
		long	 pgid;
		char	 ident[REMOTE_IDENT_MAX];
	}		*left;
	size_t		 nleft = 0, i, n = (size_t)k->nchan;

	log_warn("%s", why);
	k->state = DCONN_DEAD;
	h->d->deaths++;
	left = xcalloc(n + 1, sizeof *left);
	while ((ch = TAILQ_FIRST(&k->chans)) != NULL) {
		if (ch->state == DCHAN_FREEING)
			ch->abandoned = 1;
		if (ch->state == DCHAN_RUNNING && ch->pgid > 0 &&
		    nleft < n) {
			left[nleft].pgid = ch->pgid;
			memcpy(left[nleft++].ident, ch->ident,
			    sizeof ch->ident);
		}
		ch->sc.ch = NULL;	/* freed with the session */
		dchan_fail(ch, CLAW_ERR_CONNECT, why);
	}
	transport_free(k->t);	/* k itself goes in dhost_reap */
	k->t = NULL;
	dhost_failed(h, why);
	for (i = 0; i < nleft; i++)
		dhost_kill(h, left[i].pgid, left[i].ident,
		    "left by a session that died");
	free(left);
}

/* Give queued channels a session with room; connect more if needed. */
void
dhost_schedule(struct dhost *h)
{
	struct dconn	*k;
	struct dchan	*ch;
	int		 nconn = 0, connecting = 0;

	while ((ch = TAILQ_FIRST(&h->queue)) != NULL) {
		TAILQ_FOREACH(k, &h->conns, entry) {
			if (k->state == DCONN_UP && k->opening == NULL &&
			    k->nchan < k->cap && clock_now_ms() >= k->full_until)
				break;
		}
		if (k == NULL)
			break;
		TAILQ_REMOVE(&h->queue, ch, hentry);
		TAILQ_INSERT_TAIL(&k->chans, ch, hentry);
		k->nchan++;
		k->opening = ch;
		ch->conn = k;
		sshchan_init(&ch->sc, transport_session(k->t), ch->command,
		    ch->pty);
		ch->state = DCHAN_STARTING;
		dchan_step(ch);
	}
	if (TAILQ_EMPTY(&h->queue))
		return;
	TAILQ_FOREACH(k, &h->conns, entry) {
		if (k->state == DCONN_DEAD)
			continue;
		nconn++;
		if (k->state == DCONN_CONNECTING)
			connecting = 1;
		else if (k->nchan < k->cap)
			return;		/* room soon: an open is running */
	}
	if (!connecting && nconn < h->d->max_conns &&
	    clock_now_ms() >= h->retry_at)
		dhost_connect(h);
}

/* Keepalive for a session: 0, or the error that ended it. */
static int
dconn_keepalive(struct dconn *k)
{
	char	*cause = NULL;
	int	 next_ms, rc;

	if ((rc = transport_keepalive(k->t, k->got_data, &next_ms,
	    &cause)) != 0) {
		dconn_dead(k, cause);
		free(cause);
		return rc;
	}
	k->got_data = 0;
	k->next_alive = next_ms >= 0 ? clock_now_ms() + next_ms :
	    CLOCK_NEVER;
	return 0;
}

/* Step every channel of every session of h. */
void
dhost_step(struct dhost *h)
{
	struct dconn	*k, *knext;
	struct dchan	*ch, *next;

	for (k = TAILQ_FIRST(&h->conns); k != NULL; k = knext) {
		knext = TAILQ_NEXT(k, entry);
		if (k->state != DCONN_UP)
			continue;
		k->rx_seen = transport_rx_bytes(k->t);
		/* a step that kills the session frees next too */
		for (ch = TAILQ_FIRST(&k->chans); ch != NULL &&
		    k->state == DCONN_UP; ch = next) {
			next = TAILQ_NEXT(ch, hentry);
			dchan_step(ch);
		}
		if (k->state == DCONN_UP)
			(void)dconn_keepalive(k);
	}
	dhost_schedule(h);
}

/*
 * Free h's sessions that died, and idle ones the host hung up on (marked
 * with cap 0 by the loop).
 */
void
dhost_reap(struct dhost *h)
{
	struct dconn	*k, *next;

	for (k = TAILQ_FIRST(&h->conns); k != NULL; k = next) {
		next = TAILQ_NEXT(k, entry);
		if (k->state == DCONN_UP && k->cap == 0 && k->nchan == 0) {
			log_info("%s: the host closed an idle session",
			    h->label);
			transport_free(k->t);
			k->state = DCONN_DEAD;
		}
		if (k->state != DCONN_DEAD)
			continue;
		TAILQ_REMOVE(&h->conns, k, entry);
		free(k);
	}
}

/* Whether h has work in flight. */
int
dhost_busy(struct dhost *h)
{
	struct dconn	*k;
	struct dchan	*ch;

	if (!TAILQ_EMPTY(&h->queue))
		return 1;
	TAILQ_FOREACH(k, &h->conns, entry) {
		if (k->state == DCONN_CONNECTING)
			return 1;
		TAILQ_FOREACH(ch, &k->chans, hentry) {
			if (ch->watch == NULL && (ch->agent == NULL ||
			    dagent_busy(ch->agent)))
				return 1;	/* a watcher alone is idle,
						   an agent without commands */
		}
	}
	return 0;
}

/* The next time h needs the loop without socket activity. */
int64_t
dhost_next_event(struct dhost *h)
{
	struct dconn	*k;
	int64_t		 t = CLOCK_NEVER;

	if (!TAILQ_EMPTY(&h->queue) && h->retry_at != 0)
		t = h->retry_at;
	TAILQ_FOREACH(k, &h->conns, entry) {
		if (k->state != DCONN_UP)
			continue;
		/* Read since its channels were stepped: they may want it. */
		if (transport_rx_bytes(k->t) != k->rx_seen)
			return 0;
		if (k->nchan != 0)
			t = clock_min(t, k->next_alive);
		if (!TAILQ_EMPTY(&h->queue) && k->full_until > clock_now_ms())
			t = clock_min(t, k->full_until);
	}
	return t;
}

/* Free a host and its sessions (the daemon is ending). */
void
dhost_free(struct dhost *h)
{
	struct dconn	*k;
	struct dchan	*ch;

	dagent_free_all(h);
	while ((k = TAILQ_FIRST(&h->conns)) != NULL) {
		if (k->state == DCONN_CONNECTING)
			return;		/* its thread still owns the job */
		while ((ch = TAILQ_FIRST(&k->chans)) != NULL) {
			TAILQ_REMOVE(&k->chans, ch, hentry);
			(void)sshchan_free(&ch->sc);
			if (ch->client == NULL || ch->abandoned)
				dchan_release(ch);
			else
				ch->conn = NULL;
		}
		TAILQ_REMOVE(&h->conns, k, entry);
		transport_free(k->t);
		free(k);
	}
	while ((ch = TAILQ_FIRST(&h->queue)) != NULL) {
		TAILQ_REMOVE(&h->queue, ch, hentry);
		if (ch->client == NULL || ch->abandoned)
			dchan_release(ch);
	}
	sshconfig_free(h->sc);
	free(h->passphrase_file);
	free(h->label);
	free(h->key);
	free(h->last_error);
	free(h);
}
