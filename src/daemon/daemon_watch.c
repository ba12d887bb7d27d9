/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The daemon's change watchers on hosts: for a mirror-mode sandbox, one
 * long-lived channel runs inotifywait(1) on the sandbox workspace, so that
 * after a command only the paths it changed are listed, not the whole
 * tree.  A take (RTAKE) is answered once a sentinel file, made by the
 * watcher's script when the daemon asks on its stdin, comes round in the
 * event stream: every change made before the take is then in the set.
 * Where the host has no inotifywait, or the watcher ends, overflows or
 * loses its root, the answer says so and the command lists everything.
 * When the command names the agent on the host, the watcher is the
 * agent's own (clawssh-agent watch, src/agent/fs_watch.c: native
 * inotify, no sentinel file, no find), speaking the same lines; where it
 * cannot start, the script runs instead.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "clock.h"
#include "daemon_int.h"
#include "error.h"
#include "host_sh.h"
#include "hostws.h"
#include "log.h"
#include "mux_proto.h"
#include "pathguard.h"
#include "shquote.h"
#include "strv.h"
#include "watch_frame.h"
#include "xmalloc.h"

#define DWATCH_LINE_MAX		(64 * 1024)	/* longest event line */
#define DWATCH_PATHS_MAX	100000		/* more: list everything */
#define DWATCH_NONE_RETRY_MS	(10 * 60 * 1000) /* no inotifywait: wait */
#define DWATCH_TOKEN_LEN	WATCH_TOKEN_LEN
#define DWATCH_LIST_MAX		(MUX_PAYLOAD_MAX - 1024) /* else: paths only */
#define MANIFEST_LIST_CAP	(64UL * 1024 * 1024)	/* a listing we read */

/* A take waiting for its sentinel, then for the listing of its set. */
struct dwaiter {
	TAILQ_ENTRY(dwaiter)	 entry;
	struct dclient		*client;
	char			 token[DWATCH_TOKEN_LEN + 1];
	int			 listing;	/* sentinel seen, set asked */
	struct djset		 set;		/* what it takes */
};
TAILQ_HEAD(dwaiter_list, dwaiter);

struct dwatch {
	TAILQ_ENTRY(dwatch)	 entry;
	struct daemon		*d;
	struct dhost		*host;
	char			*ws;		/* the host's workspace path */
	char			*jail;		/* its step jail, or NULL */
	char			*agent;		/* the agent on the host, or NULL */
	int			 native;	/* the channel runs the agent's */
	int			 no_native;	/* it failed: the script */
	struct dchan		*ch;		/* the watcher, or NULL */
	int			 ready;		/* its watches are set */
	int			 trusted;	/* a full answer came after */
	char			*broken;	/* why it cannot be used */
	int64_t			 retry_at;	/* not before (no inotifywait) */
	struct buf		 line;		/* output not yet a line */
	struct buf		 err;		/* listings being read */
	size_t			 err_at;	/* searched up to there */
	struct djtrack		 t;		/* its changes, held until JACK */
	struct dwaiter_list	 waiters;
	int64_t			 used;		/* last take, for eviction */
};

/* Answer a take: F and why. */
static void
dwatch_full(struct dclient *c, const char *why)
{
	djset_answer_why(c, MUX_RPATHS, why);
}

/* Mark the pending set full (why) and stop trusting the stream. */
static void
dwatch_distrust(struct dwatch *w, const char *why)
{
	djset_full(&w->t.pending, why);
	w->trusted = 0;
}

/* Free a waiter; what it took goes back to the pending set. */
static void
dwaiter_free(struct dwatch *w, struct dwaiter *q)
{
	TAILQ_REMOVE(&w->waiters, q, entry);
	djset_move(&w->t.pending, &q->set);
	free(q);
}

/* Forget the watcher channel (it ended or is being replaced). */
static void
dwatch_detach(struct dwatch *w, const char *why)
{
	struct dwaiter	*q;

	if (w->ch != NULL)
		w->ch->watch = NULL;
	w->ch = NULL;
	w->ready = 0;
	dwatch_distrust(w, why);
	while ((q = TAILQ_FIRST(&w->waiters)) != NULL) {
		dwatch_full(q->client, why);
		dwaiter_free(w, q);
	}
	buf_reset(&w->line);
	buf_reset(&w->err);
	w->err_at = 0;
}

/* Let go of the watcher channel, stopping the script on the host. */
static void
dwatch_stop(struct dwatch *w)
{
	if (w->ch == NULL)
		return;
	w->ch->watch = NULL;
	dchan_abandon(w->ch);
	w->ch = NULL;
}

/*
 * Start (or restart) the watcher channel, in the sandbox's step jail
 * (sync/hostws.h): it sees the workspace at /workspace and its sentinel
 * directory goes in the jail's private /tmp.  Without a jail (runtime
 * none) it runs in the workspace, the sentinels beside it.
 */
static void
dwatch_start(struct dwatch *w)
{
	struct hostws	 hw;
	const char	*no = getenv("CLAWSSH_NO_AGENT_WATCH");
	char		*body, *cmd, *q, *pre;

	dwatch_stop(w);
	buf_reset(&w->line);
	buf_reset(&w->err);
	w->err_at = 0;
	w->native = w->agent != NULL && !w->no_native &&
	    (no == NULL || strcmp(no, "1") != 0);
	hostws_init(&hw, w->ws, w->jail);
	if (w->native) {
		/*
		 * The agent, opened outside the jail (the sandbox's identity
		 * may not reach its directory), runs in there through
		 * /proc/self/fd, as the holder's start script runs it.
		 */
		q = shquote(w->agent);
		pre = xasprintf("exec 7< %s || { echo 'clawssh-watch: no "
		    "agent'; exit 0; }", q);
		hostws_pre(&hw, pre);
		body = xstrdup("exec /proc/self/fd/7 watch");
		free(pre);
		free(q);
	} else
		body = xasprintf("set -- %s\n%s", w->jail != NULL ?
		    "/tmp/clawssh-watch" : "''", HOST_SH_WATCH);
	cmd = hostws_script(&hw, body);
	hostws_clear(&hw);
	w->ch = dchan_new(w->host, NULL, 0, cmd, NULL);
	w->ch->watch = w;
	w->ready = 0;
	free(w->broken);
	w->broken = NULL;
	free(cmd);
	free(body);
	log_info("%s: watching %s for changes%s%s", w->host->label, w->ws,
	    w->jail != NULL ? " (in the sandbox's jail)" : "",
	    w->native ? ", with the agent's watcher" : "");
}

/* The path of an event line ("EVENTS PATH"), relative; NULL if none. */
static const char *
dwatch_event_path(const char *line, const char **events)
{
	const char	*sp = strchr(line, ' ');

	*events = line;
	if (sp == NULL || sp == line)
		return NULL;
	return sp + 1;
}

/* Return 1 if the comma-separated events hold name. */
static int
dwatch_has(const char *events, size_t len, const char *name)
{
	size_t	n = strlen(name);
	const char *p = events, *end = events + len;

	while (p < end) {
		if ((size_t)(end - p) >= n && strncmp(p, name, n) == 0 &&
		    (p + n == end || p[n] == ','))
			return 1;
		if ((p = memchr(p, ',', (size_t)(end - p))) == NULL)
			break;
		p++;
	}
	return 0;
}

/* Hand q's set to its client, with the listing if there is one. */
static void
dwatch_hand(struct dwatch *w, struct dwaiter *q, const char *list,
    size_t len)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	if (list == NULL)
		djset_answer(q->client, MUX_RPATHS, &q->set);
	else {
		buf_append(&b, "L", 2);
		for (i = 0; i < q->set.n; i++)
			buf_append(&b, q->set.v[i], strlen(q->set.v[i]) + 1);
		buf_append(&b, "", 1);
		buf_append(&b, list, len);
		mux_frame_put(&q->client->out, MUX_RPATHS, 0, b.data, b.len);
		buf_free(&b);
	}
	djtrack_hold(&w->t, q->client, &q->set);
	TAILQ_REMOVE(&w->waiters, q, entry);
	free(q);
}

/*
 * A sentinel came round: every change before the take is in the pending
 * set.  Take it, and ask the script to list those paths (nothing to list:
 * answer at once).
 */
static void
dwatch_sentinel(struct dwatch *w, const char *token)
{
	struct dwaiter	*q, *next;
	size_t		 i, len;

	for (q = TAILQ_FIRST(&w->waiters); q != NULL; q = next) {
		next = TAILQ_NEXT(q, entry);
		if (q->listing || strcmp(q->token, token) != 0)
			continue;
		djset_move(&q->set, &w->t.pending);
		djset_uniq(&q->set);
		if (q->set.why != NULL || q->set.n == 0) {
			dwatch_hand(w, q, NULL, 0);
			continue;
		}
		q->listing = 1;
		buf_appendf(&w->ch->in, "L %s\n", q->token);
		for (i = 0; i < q->set.n; i++) {
			len = strlen(q->set.v[i]);
			if (memchr(q->set.v[i], '\n', len) == NULL &&
			    !strv_has_ancestor(q->set.v, q->set.n,
			    q->set.v[i], 0))
				buf_appendf(&w->ch->in, "%s\n", q->set.v[i]);
		}
		buf_append(&w->ch->in, "\n", 1);
		w->d->again = 1;
	}
}

/*
 * A listing arrived for token: answer its take with the paths and the
 * listing, or the paths alone if the listing failed or is too long (the
 * command then lists them itself).
 */
static void
dwatch_listed(struct dwatch *w, const char *token, int status,
    const char *list, size_t len)
{
	struct dwaiter	*q;

	TAILQ_FOREACH(q, &w->waiters, entry) {
		if (q->listing && strcmp(q->token, token) == 0)
			break;
	}
	if (q == NULL)
		return;
	if (status != 0 || len > DWATCH_LIST_MAX)
		list = NULL;
	dwatch_hand(w, q, list, len);
}

/* The script's output cannot be followed: start the watcher over. */
static void
dwatch_garbled(struct dwatch *w, const char *what)
{
	log_warn("%s: the change watcher said: %.200s", w->host->label, what);
	if (w->native)
		w->no_native = 1;
	dwatch_distrust(w, "the host watcher's output was not understood");
	dwatch_start(w);
}

/*
 * One listing at the start of w->err, if it is all there (watch_frame.h):
 * 1 when it was handed on and consumed, 0 when more must come,
 * watch_frame_parse's code when the stream cannot be followed.
 */
static int
dwatch_frame(struct dwatch *w)
{
	struct watch_frame	f;
	int			r;

	if ((r = watch_frame_parse(w->err.data, w->err.len,
	    MANIFEST_LIST_CAP, &w->err_at, &f)) <= 0)
		return r;
	dwatch_listed(w, f.token, f.status, w->err.data + f.rec_off,
	    f.rec_len);
	buf_consume(&w->err, f.used);
	return 1;
}

/*
 * Text at the start of w->err that cannot begin a listing: what the
 * session says before the watcher runs (sshd's "Could not chdir to home
 * directory" for a user without one, a login script's words), logged
 * and skipped a line at a time.  1 when a line was skipped, 0 when w->err
 * may start a listing or the line is not all there, CLAW_ERR_RANGE when
 * it is too long to be a line.
 */
static int
dwatch_noise(struct dwatch *w)
{
	static const char	head[] = "clawssh-list ";
	size_t			n = w->err.len < sizeof head - 1 ?
				    w->err.len : sizeof head - 1;
	char			*nl;

	if (memcmp(w->err.data, head, n) == 0)
		return 0;
	if ((nl = memchr(w->err.data, '\n', w->err.len)) == NULL)
		return w->err.len > DWATCH_LINE_MAX ? CLAW_ERR_RANGE : 0;
	log_info("%s: the change watcher's session said: %.*s",
	    w->host->label, (int)(nl - w->err.data > 200 ? 200 :
	    nl - w->err.data), w->err.data);
	buf_consume(&w->err, (size_t)(nl - w->err.data) + 1);
	w->err_at = 0;
	return 1;
}

/* The watcher's stderr: listings (dwatch_frame), and noise before them. */
static void
dwatch_err(struct dwatch *w, const char *p, size_t n)
{
	int	r;

	buf_append(&w->err, p, n);
	while (w->err.len > 0) {
		if ((r = dwatch_noise(w)) == 0 && (r = dwatch_frame(w)) == 0)
			return;			/* more must come */
		if (r < 0) {
			buf_append(&w->err, "", 1);
			dwatch_garbled(w, w->err.data);
			return;
		}
	}
}

/* One line of the watcher's output. */
static void
dwatch_line(struct dwatch *w, char *line)
{
	const char	*events, *path, *slash;
	char		*why = NULL;
	size_t		 elen, len;

	if (strcmp(line, "Watches established.") == 0) {
		w->ready = 1;
		return;
	}
	if (strncmp(line, "clawssh-take ", 13) == 0) {
		if (strlen(line + 13) == DWATCH_TOKEN_LEN)
			dwatch_sentinel(w, line + 13);
		return;
	}
	if (w->native && strncmp(line, "clawssh-watch: ", 15) == 0) {
		/* it cannot watch here: the script may (or say why not) */
		log_info("%s: the agent's change watcher: %.200s",
		    w->host->label, line + 15);
		w->no_native = 1;
		return;
	}
	if (strcmp(line, "clawssh-watch: no inotifywait") == 0) {
		free(w->broken);
		w->broken = xstrdup("inotifywait is not installed on the "
		    "host");
		w->retry_at = clock_now_ms() + DWATCH_NONE_RETRY_MS;
		return;
	}
	if ((path = dwatch_event_path(line, &events)) == NULL)
		return;
	elen = (size_t)(path - 1 - events);
	if (dwatch_has(events, elen, "Q_OVERFLOW")) {
		dwatch_distrust(w, "the host watcher's event queue "
		    "overflowed");
		dwatch_start(w);
		return;
	}
	if (path[0] == '/') {
		if ((slash = strrchr(path, '/')) != NULL &&
		    strlen(slash + 1) == DWATCH_TOKEN_LEN)
			dwatch_sentinel(w, slash + 1);
		return;
	}
	if (strncmp(path, "./", 2) != 0)
		return;		/* a message, not an event */
	path += 2;
	len = strlen(path);
	if (len == 0 && (dwatch_has(events, elen, "DELETE_SELF") ||
	    dwatch_has(events, elen, "MOVE_SELF") ||
	    dwatch_has(events, elen, "UNMOUNT"))) {
		dwatch_distrust(w, "the sandbox workspace itself was "
		    "removed or moved");
		dwatch_start(w);
		return;
	}
	if (len > 0 && path[len - 1] == '/')
		line[path - line + len - 1] = '\0';
	if (*path == '\0')
		return;
	if (pathguard_name_check(path, &why) != 0) {
		/*
		 * Such a name never syncs (control characters and the
		 * like), so it need not be listed.  (A name with a newline
		 * splits its line; the second part cannot start with "./",
		 * a name holding no '/', so it is never taken for an event.)
		 */
		log_debug("%s: watcher: %s", w->host->label, why);
		free(why);
		return;
	}
	if (w->t.pending.n >= DWATCH_PATHS_MAX)
		djset_full(&w->t.pending, "too many changes on the host");
	else
		djset_add(&w->t.pending, path);
}

/* Output of the watcher channel; see daemon_int.h. */
void
dwatch_output(struct dchan *ch, int stream, const char *p, size_t n)
{
	struct dwatch	*w = ch->watch;
	char		*nl;
	size_t		 off;

	if (stream != 0) {
		dwatch_err(w, p, n);
		return;
	}
	buf_append(&w->line, p, n);
	while ((nl = memchr(w->line.data, '\n', w->line.len)) != NULL) {
		*nl = '\0';
		off = (size_t)(nl - w->line.data) + 1;
		if (memchr(w->line.data, '\0', off - 1) == NULL)
			dwatch_line(w, w->line.data);
		if (ch->watch != w)
			return;		/* restarted: the rest is stale */
		buf_consume(&w->line, off);
	}
	if (w->line.len > DWATCH_LINE_MAX)
		buf_reset(&w->line);
}

/* The watcher channel ended; see daemon_int.h. */
void
dwatch_chan_gone(struct dwatch *w)
{
	w->ch = NULL;
	if (w->native && !w->ready)
		w->no_native = 1;	/* it never started: the script next */
	if (w->broken == NULL)
		w->broken = xstrdup("the host's change watcher ended");
	dwatch_detach(w, w->broken);
}

/* Whether the strings a and b (either may be NULL) differ. */
static int
dwatch_differ(const char *a, const char *b)
{
	return (a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b) != 0);
}

/*
 * Find or make the watch of host h on ws with jail (NULL: none); a watch
 * on ws with another jail (the sandbox's settings changed) is stopped
 * and given the new one, so its next take lists everything.  agent
 * (NULL: not named) is what a later start runs: a running watcher stays.
 */
static struct dwatch *
dwatch_get(struct daemon *d, struct dhost *h, const char *ws,
    const char *jail, const char *agent)
{
	struct dwatch	*w;

	TAILQ_FOREACH(w, &d->watches, entry) {
		if (w->host != h || strcmp(w->ws, ws) != 0)
			continue;
		if (dwatch_differ(w->jail, jail)) {
			dwatch_stop(w);
			dwatch_detach(w, "the sandbox's jail changed");
			free(w->jail);
			w->jail = jail != NULL ? xstrdup(jail) : NULL;
		}
		if (agent != NULL && dwatch_differ(w->agent, agent)) {
			free(w->agent);
			w->agent = xstrdup(agent);
			w->no_native = 0;
		}
		return w;
	}
	w = xcalloc(1, sizeof(*w));
	w->d = d;
	w->host = h;
	w->ws = xstrdup(ws);
	w->jail = jail != NULL ? xstrdup(jail) : NULL;
	w->agent = agent != NULL ? xstrdup(agent) : NULL;
	TAILQ_INIT(&w->waiters);
	TAILQ_INSERT_TAIL(&d->watches, w, entry);
	return w;
}

/* How many change watchers of h hold a channel; see daemon_int.h. */
int
dwatch_live(const struct dhost *h)
{
	const struct dwatch	*o;
	int			 n = 0;

	TAILQ_FOREACH(o, &h->d->watches, entry)
		n += o->host == h && o->ch != NULL;
	return n;
}

/*
 * Make room for one more watcher on w's host: they hold a channel each,
 * so at most half the host's pool (maxConnections x maxSessions) goes to
 * them, and never the last channel the host agents leave: a command
 * must always find one (with a pool of 2 and the agent's channel, there
 * is no watcher).  The least recently used one nobody holds is stopped
 * (its next take lists everything).  0, or CLAW_ERR_RANGE if every
 * watcher is busy or there is no room at all.
 */
static int
dwatch_room(struct dwatch *w)
{
	struct daemon	*d = w->d;
	struct dwatch	*o, *lru = NULL;
	int		 n = 0, pool = d->max_conns * d->max_sessions;
	int		 cap = pool / 2;

	if (cap > pool - 1 - dagent_live(w->host))
		cap = pool - 1 - dagent_live(w->host);
	if (cap <= 0)
		return CLAW_ERR_RANGE;

	TAILQ_FOREACH(o, &d->watches, entry) {
		if (o->host != w->host || o->ch == NULL || o == w)
			continue;
		n++;
		if (o->t.holder == NULL && TAILQ_EMPTY(&o->waiters) &&
		    (lru == NULL || o->used < lru->used))
			lru = o;
	}
	if (n < cap)
		return 0;
	if (lru == NULL)
		return CLAW_ERR_RANGE;
	log_info("%s: stopping the change watcher of %s to make room",
	    w->host->label, lru->ws);
	dwatch_stop(lru);
	dwatch_detach(lru, "its change watcher was stopped to make room for "
	    "another sandbox's");
	return 0;
}

/* Take the changed set of ws (or answer why not); see mux_proto.h. */
static void
dwatch_take1(struct dclient *c, struct dwatch *w, const char *token)
{
	struct dwaiter	*q;

	w->used = clock_now_ms();
	if (w->ch == NULL && (w->retry_at == 0 ||
	    clock_now_ms() >= w->retry_at)) {
		if (dwatch_room(w) != 0) {
			dwatch_full(c, "every change watcher on the host is "
			    "busy");
			return;
		}
		dwatch_start(w);
		dwatch_full(c, "the host's change watcher is starting");
		return;
	}
	if (w->broken != NULL || w->ch == NULL) {
		dwatch_full(c, w->broken != NULL ? w->broken :
		    "no change watcher on the host");
		return;
	}
	if (!w->ready) {
		dwatch_full(c, "the host's change watcher is starting");
		return;
	}
	if (w->t.holder != NULL && w->t.holder != c) {
		dwatch_full(c, "another sync of this sandbox is running");
		return;
	}
	if (!w->trusted) {
		/* From here on the stream is complete: the caller lists. */
		w->trusted = 1;
		djset_clear(&w->t.pending);
		djset_full(&w->t.pending, "first sync since the host's change "
		    "watcher started");
		djtrack_give(&w->t, c, MUX_RPATHS);
		return;
	}
	q = xcalloc(1, sizeof(*q));
	q->client = c;
	memcpy(q->token, token, DWATCH_TOKEN_LEN);
	TAILQ_INSERT_TAIL(&w->waiters, q, entry);
	buf_appendf(&w->ch->in, "T %s\n", token);
	w->d->again = 1;
}

/* RTAKE: the host's changes in a sandbox workspace; see mux_proto.h. */
void
dwatch_take(struct dclient *c, const struct mux_frame *f)
{
	const char	*ws = f->payload, *token, *jail, *agent = NULL, *p;
	const char	*end = f->payload + f->len;
	size_t		 i;

	if (c->host == NULL) {
		dwatch_full(c, "no host yet");
		return;
	}
	if (f->len == 0 || f->payload[f->len - 1] != '\0' ||
	    (token = memchr(ws, '\0', f->len)) == NULL ||
	    strlen(++token) != DWATCH_TOKEN_LEN || *ws == '\0' ||
	    (size_t)(token - ws) + DWATCH_TOKEN_LEN + 1 >= f->len) {
		dwatch_full(c, "malformed watch request");
		return;
	}
	jail = token + DWATCH_TOKEN_LEN + 1;
	p = jail + strlen(jail) + 1;		/* the agent ("awatch") */
	if (p < end) {
		agent = p;
		p += strlen(p) + 1;
	}
	if (p != end || (agent != NULL && *agent != '/')) {
		dwatch_full(c, "malformed watch request");
		return;
	}
	for (p = token, i = 0; i < DWATCH_TOKEN_LEN; i++, p++) {
		if (strchr("0123456789abcdef", *p) == NULL) {
			dwatch_full(c, "malformed watch request");
			return;
		}
	}
	dwatch_take1(c, dwatch_get(c->d, c->host, ws, *jail != '\0' ?
	    jail : NULL, agent), token);
}

/* JACK or the client leaving: settle what it held and its waits. */
void
dwatch_settle(struct dclient *c, int synced)
{
	struct dwatch	*w;
	struct dwaiter	*q, *next;

	TAILQ_FOREACH(w, &c->d->watches, entry) {
		for (q = TAILQ_FIRST(&w->waiters); q != NULL; q = next) {
			next = TAILQ_NEXT(q, entry);
			if (q->client == c)
				dwaiter_free(w, q);
		}
		djtrack_settle(&w->t, c, synced);
	}
}

/* Stop every watcher (the daemon ends). */
void
dwatch_free_all(struct daemon *d)
{
	struct dwatch	*w;
	struct dwaiter	*q;

	while ((w = TAILQ_FIRST(&d->watches)) != NULL) {
		TAILQ_REMOVE(&d->watches, w, entry);
		if (w->ch != NULL)
			w->ch->watch = NULL;
		while ((q = TAILQ_FIRST(&w->waiters)) != NULL)
			dwaiter_free(w, q);
		djtrack_clear(&w->t);
		buf_free(&w->line);
		buf_free(&w->err);
		free(w->broken);
		free(w->ws);
		free(w->jail);
		free(w->agent);
		free(w);
	}
}
