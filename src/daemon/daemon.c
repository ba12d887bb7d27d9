/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The daemon's socket and poll loop.  One thread owns every client, host,
 * session and channel; connector threads only report back through the
 * wake pipe.  Each turn: poll, accept, read clients, step every host's
 * channels, flush clients, drop the dead, and exit once idle too long.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/file.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <libssh2.h>

#include "clock.h"
#include "daemon.h"
#include "daemon_int.h"
#include "error.h"
#include "log.h"
#include "signals.h"
#include "transport.h"
#include "xmalloc.h"

#define DAEMON_TICK_MS	1000	/* longest sleep without a reason */
#define DAEMON_EXIT_WAIT_MS 10000	/* for connects in flight at the end */

/* Make the socket's directory (0700, ours) if it is missing. */
static int
daemon_dir(const char *path, char **cause)
{
	struct stat	 st;
	char		*dir = xstrdup(path), *slash;
	int		 rc = 0;

	if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
		goto out;
	*slash = '\0';
	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		rc = claw_fail_errno(cause, dir, "mkdir");
		goto out;
	}
	if (lstat(dir, &st) == -1) {
		rc = claw_fail_errno(cause, dir, "stat");
		goto out;
	}
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077) != 0)
		rc = claw_fail(cause, CLAW_ERR_PERM, "%s: not a private "
		    "directory of this user (want mode 0700, owner uid %u)",
		    dir, (unsigned)getuid());
out:
	free(dir);
	return rc;
}

/*
 * Take PATH.lock (flock, held for the daemon's life): two daemons started
 * at once (two commands' autostarts) would otherwise both find no live
 * socket, and the second would unlink the first's.
 */
static int
daemon_lock(const char *path, int *out, char **cause)
{
	char	*lock = xasprintf("%s.lock", path);
	int	 fd, rc = 0;

	fd = open(lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd == -1)
		rc = claw_fail_errno(cause, lock, "open");
	else if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		rc = errno == EWOULDBLOCK ? claw_fail(cause, CLAW_ERR_EXISTS,
		    "a clawssh daemon is already running (or starting) on %s",
		    path) : claw_fail_errno(cause, lock, "flock");
		close(fd);
	} else
		*out = fd;
	free(lock);
	return rc;
}

/* Bind and listen on path, replacing a stale socket, not a live one. */
static int
daemon_listen(const char *path, int *lockfd, int *out, char **cause)
{
	struct sockaddr_un	sun;
	mode_t			old;
	int			fd, rc;

	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof sun.sun_path)
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "%s: socket path too long", path);
	memcpy(sun.sun_path, path, strlen(path));
	if ((rc = daemon_dir(path, cause)) != 0 ||
	    (rc = daemon_lock(path, lockfd, cause)) != 0)
		return rc;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return claw_fail_errno(cause, path, "socket");
	if (connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0) {
		close(fd);
		return claw_fail(cause, CLAW_ERR_EXISTS,
		    "a clawssh daemon is already running on %s", path);
	}
	(void)unlink(path);
	old = umask(077);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof sun);
	umask(old);
	if (rc == -1 || chmod(path, 0600) == -1 || listen(fd, 128) == -1 ||
	    fcntl(fd, F_SETFL, O_NONBLOCK) == -1) {
		rc = claw_fail_errno(cause, path, "bind");
		close(fd);
		return rc;
	}
	*out = fd;
	return 0;
}

/* Whether nothing is going on (no clients, no channels). */
static int
daemon_idle(struct daemon *d)
{
	struct dhost	*h;

	if (!TAILQ_EMPTY(&d->clients) || !TAILQ_EMPTY(&d->calls))
		return 0;
	TAILQ_FOREACH(h, &d->hosts, entry) {
		if (dhost_busy(h))
			return 0;
	}
	return 1;
}

/* The poll timeout: keepalives, retries, the idle exit. */
static int
daemon_timeout(struct daemon *d)
{
	struct dhost	*h;
	int64_t		 t = clock_now_ms() + DAEMON_TICK_MS;

	if (d->again) {
		d->again = 0;
		return 0;
	}
	TAILQ_FOREACH(h, &d->hosts, entry)
		t = clock_min(t, dhost_next_event(h));
	t = clock_min(t, droute_next_event(d));
	if (d->idle_ms > 0 && d->idle_since != 0)
		t = clock_min(t, d->idle_since + d->idle_ms);
	return clock_poll_timeout(t);
}

/* Fill pfd for one turn; returns the count. */
static size_t
daemon_pollfds(struct daemon *d, struct pollfd **pfdp, size_t *cap,
    size_t *ncalls)
{
	struct dclient	*c;
	struct dcall	*call;
	struct dhost	*h;
	struct dconn	*k;
	size_t		 n = 0, want = 3;

	TAILQ_FOREACH(c, &d->clients, entry)
		want += 2;
	TAILQ_FOREACH(call, &d->calls, entry)
		want += 3;
	TAILQ_FOREACH(h, &d->hosts, entry) {
		TAILQ_FOREACH(k, &h->conns, entry)
			want++;
	}
	if (want > *cap) {
		*pfdp = xreallocarray(*pfdp, want, sizeof **pfdp);
		*cap = want;
	}
	(*pfdp)[n].fd = d->lfd;
	(*pfdp)[n++].events = POLLIN;
	(*pfdp)[n].fd = d->wake[0];
	(*pfdp)[n++].events = POLLIN;
	(*pfdp)[n].fd = signals_fd();
	(*pfdp)[n++].events = POLLIN;
	TAILQ_FOREACH(c, &d->clients, entry) {
		(*pfdp)[n].fd = dclient_paused(c) || (c->rclosed &&
		    c->stdio) ? -1 : c->fd;
		(*pfdp)[n++].events = c->rclosed ? 0 : POLLIN;
		(*pfdp)[n].fd = c->out.len != 0 ? c->wfd : -1;
		(*pfdp)[n++].events = POLLOUT;
	}
	TAILQ_FOREACH(h, &d->hosts, entry) {
		TAILQ_FOREACH(k, &h->conns, entry) {
			(*pfdp)[n].fd = k->state == DCONN_UP ?
			    transport_fd(k->t) : -1;
			(*pfdp)[n++].events = k->nchan != 0 ?
			    transport_poll_events(k->t) | POLLIN : POLLRDHUP;
		}
	}
	*ncalls = dcall_pollfds(d, *pfdp + n);
	return n + *ncalls;
}

/* Note which sessions had input; an idle one that hung up is dead. */
static void
daemon_sessions(struct daemon *d, const struct pollfd *pfd)
{
	struct dhost	*h;
	struct dconn	*k;

	TAILQ_FOREACH(h, &d->hosts, entry) {
		TAILQ_FOREACH(k, &h->conns, entry) {
			if (pfd->fd != -1 && (pfd->revents & POLLIN))
				k->got_data = 1;
			if (pfd->fd != -1 && k->nchan == 0 &&
			    (pfd->revents & (POLLRDHUP | POLLHUP | POLLERR)))
				k->cap = 0;	/* dropped below */
			pfd++;
		}
	}
}

/* Drop dead sessions and clients. */
static void
daemon_reap(struct daemon *d)
{
	struct dhost	*h;
	struct dclient	*c, *cnext;

	TAILQ_FOREACH(h, &d->hosts, entry)
		dhost_reap(h);
	for (c = TAILQ_FIRST(&d->clients); c != NULL; c = cnext) {
		cnext = TAILQ_NEXT(c, entry);
		if (c->rclosed && TAILQ_EMPTY(&c->calls))
			c->dead = 1;	/* stdin ended, all answered */
		if (c->dead && c->out.len == 0)
			dclient_free(c);
	}
}

/* One turn of the loop. */
static void
daemon_turn(struct daemon *d, struct pollfd **pfdp, size_t *cap)
{
	struct pollfd	*pfd;
	struct dclient	*c;
	struct dhost	*h;
	size_t		 n, i, ncalls;
	int		 sig;

	n = daemon_pollfds(d, pfdp, cap, &ncalls);
	pfd = *pfdp;
	if (poll(pfd, (nfds_t)n, daemon_timeout(d)) == -1 && errno != EINTR) {
		log_warn("poll: %s: stopping", strerror(errno));
		d->quit = 1;
	}
	if ((sig = signals_take()) != 0) {
		log_info("SIG%s from pid %ld: stopping", signals_name(sig),
		    (long)signals_sender());
		d->quit = 1;
	}
	i = 3;
	TAILQ_FOREACH(c, &d->clients, entry)
		i += 2;
	daemon_sessions(d, pfd + i);	/* before anything adds sessions */
	i = 3;
	TAILQ_FOREACH(c, &d->clients, entry) {
		if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
			dclient_read(c, (pfd[i].revents & (POLLHUP |
			    POLLERR)) != 0);
		i += 2;
	}
	if (pfd[1].revents & POLLIN)
		daemon_connected(d);
	dcall_io(d, pfd + (n - ncalls), ncalls);
	droute_tick(d);
	if (pfd[0].revents & POLLIN)
		dclient_accept(d);
	TAILQ_FOREACH(h, &d->hosts, entry)
		dhost_step(h);
	drpc_start_pending(d);
	TAILQ_FOREACH(c, &d->clients, entry)
		dclient_flush(c);
	daemon_reap(d);
}

/* The hosts with a live session: label, sessions, clients. */
static cJSON *
daemon_hosts_json(struct daemon *d)
{
	struct dhost	*h;
	struct dconn	*k;
	cJSON		*a = cJSON_CreateArray(), *o;
	int		 up;

	TAILQ_FOREACH(h, &d->hosts, entry) {
		up = 0;
		TAILQ_FOREACH(k, &h->conns, entry) {
			if (k->state == DCONN_UP)
				up++;
		}
		if (up == 0)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "host", h->label != NULL ?
		    h->label : "?");
		cJSON_AddNumberToObject(o, "sessions", up);
		cJSON_AddNumberToObject(o, "clients", h->nclients);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/*
 * What the allocator holds, all arenas together: "inUse" (allocated and
 * not freed, what a leak grows), "free" (freed but kept) and "system"
 * (taken from the system).  The RSS says little about leaks: after a
 * burst it keeps pages that live blocks pin among freed ones, which
 * malloc_trim cannot give back.  NULL without mallinfo2.
 */
static cJSON *
daemon_heap_json(void)
{
#ifdef HAVE_MALLINFO2
	struct mallinfo2	 mi = mallinfo2();
	cJSON			*o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "inUse", (double)(mi.uordblks + mi.hblkhd));
	cJSON_AddNumberToObject(o, "free", (double)mi.fordblks);
	cJSON_AddNumberToObject(o, "system", (double)(mi.arena + mi.hblkhd));
	return o;
#else
	return NULL;
#endif
}

/* Answer daemon.status or daemon.stop; see daemon_int.h. */
cJSON *
daemon_control(struct daemon *d, const char *method)
{
	struct dclient	*c;
	cJSON		*o, *heap;
	int		 n = 0;

	if (strcmp(method, "daemon.stop") == 0) {
		log_info("asked to stop");
		d->quit = 1;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "pid", (double)getpid());
		cJSON_AddBoolToObject(o, "stopping", 1);
		return o;
	}
	if (strcmp(method, "daemon.status") != 0)
		return NULL;
	TAILQ_FOREACH(c, &d->clients, entry)
		n++;
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "pid", (double)getpid());
	cJSON_AddStringToObject(o, "socket", d->path);
	cJSON_AddNumberToObject(o, "uptime",
	    (double)((clock_now_ms() - d->started) / 1000));
	cJSON_AddNumberToObject(o, "idleTimeout", d->idle_ms / 1000);
	cJSON_AddNumberToObject(o, "clients", n - 1);	/* not the asker */
	cJSON_AddNumberToObject(o, "commands", (double)d->nchannels);
	cJSON_AddNumberToObject(o, "calls", (double)d->ncalls);
	cJSON_AddNumberToObject(o, "running", d->nworkers);
	cJSON_AddItemToObject(o, "hosts", daemon_hosts_json(d));
	if ((heap = daemon_heap_json()) != NULL)
		cJSON_AddItemToObject(o, "heap", heap);
	return o;
}

/* Set up the daemon's state; see daemon_run. */
static int
daemon_init(struct daemon *d, const struct daemon_opts *o, char **cause)
{
	int	rc;

	memset(d, 0, sizeof *d);
	TAILQ_INIT(&d->clients);
	TAILQ_INIT(&d->hosts);
	TAILQ_INIT(&d->calls);
	TAILQ_INIT(&d->watches);
	TAILQ_INIT(&d->routes);
	d->wake[0] = d->wake[1] = -1;
	d->lockfd = -1;
	d->policy = o->policy;
	d->audit = o->audit;
	d->max_line = o->max_line > 0 ? o->max_line : DAEMON_LINE_DEFAULT;
	d->mcp_max_result = o->mcp_max_result;
	d->max_workers = o->max_workers > 0 ? o->max_workers :
	    DAEMON_WORKERS_DEFAULT;
	d->path = xstrdup(o->socket_path);
	d->started = clock_now_ms();
	d->idle_ms = o->idle_timeout * 1000;
	d->max_sessions = o->max_sessions > 0 ? o->max_sessions :
	    DAEMON_SESSIONS_DEFAULT;
	d->max_conns = o->max_conns > 0 ? o->max_conns : DAEMON_CONNS_DEFAULT;
	if (libssh2_init(0) != 0)
		return claw_fail(cause, CLAW_ERR_PROTO,
		    "libssh2 initialisation failed");
	if (pipe2(d->wake, O_CLOEXEC | O_NONBLOCK) == -1)
		return claw_fail_errno(cause, "pipe", "pipe2");
	if (signals_init() != 0)
		return claw_fail(cause, CLAW_ERR_IO,
		    "cannot install signal handlers");
	if ((rc = daemon_listen(d->path, &d->lockfd, &d->lfd, cause)) != 0)
		return rc;
	if (o->stdio != DAEMON_STDIO_NONE)
		(void)drpc_stdio(d, o->stdio == DAEMON_STDIO_MCP, o->agent,
		    o->sandbox);
	return 0;
}

/* Close everything at the end. */
static void
daemon_done(struct daemon *d)
{
	struct dclient	*c;
	struct dhost	*h;
	char		*lock;
	int		 stuck;

	d->quit = 1;	/* in-process commands end, none falls back */
	while ((c = TAILQ_FIRST(&d->clients)) != NULL)
		dclient_free(c);
	drpc_end(d);
	dwatch_free_all(d);
	if ((stuck = daemon_connectors_end(d, DAEMON_EXIT_WAIT_MS)) != 0)
		log_warn("a connection is still being made; exiting without "
		    "it");
	while (!stuck && (h = TAILQ_FIRST(&d->hosts)) != NULL) {
		TAILQ_REMOVE(&d->hosts, h, entry);
		dhost_free(h);
	}
	djournal_free(d);
	droute_free_all(d);
	(void)unlink(d->path);
	lock = xasprintf("%s.lock", d->path);
	(void)unlink(lock);		/* ours: held until the close below */
	free(lock);
	close(d->lfd);
	close(d->lockfd);
	close(d->wake[0]);
	close(d->wake[1]);
	free(d->path);
	if (stuck)
		_exit(0);	/* no atexit clean-up under a running thread */
}

/* Serve until told to stop or idle; see daemon.h. */
int
daemon_run(const struct daemon_opts *o, char **cause)
{
	struct daemon	 d;
	struct pollfd	*pfd = NULL;
	size_t		 cap = 0;
	int		 rc;

	if ((rc = daemon_init(&d, o, cause)) != 0) {
		if (d.wake[0] != -1) {
			close(d.wake[0]);
			close(d.wake[1]);
		}
		if (d.lockfd != -1)
			close(d.lockfd);
		free(d.path);
		return rc;
	}
	log_info("listening on %s", d.path);
	if (o->ready_fd != -1) {
		if (write(o->ready_fd, "", 1) != 1)
			log_debug("could not signal readiness");
		close(o->ready_fd);
	}
	while (!d.quit) {
		daemon_turn(&d, &pfd, &cap);
		if (!daemon_idle(&d))
			d.idle_since = 0;
		else if (d.idle_since == 0) {
			d.idle_since = clock_now_ms();
			malloc_trim(0);		/* give back what a burst took */
		}
		else if (d.idle_ms > 0 &&
		    clock_now_ms() - d.idle_since >= d.idle_ms) {
			log_info("idle for %d s: exiting", d.idle_ms / 1000);
			break;
		}
	}
	free(pfd);
	daemon_done(&d);
	return 0;
}
