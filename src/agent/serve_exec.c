/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * serve: one relayed command's life.  Its EXEC connects to the holder of
 * the RUNDIR it names and exchanges HELLOs; then three pipes are made,
 * the command's ends sent with the EXEC (SCM_RIGHTS) and ours kept to
 * relay stdin, stdout and stderr as DATA and EOF frames.  After the
 * holder's EXIT, what the command left in its pipes is delivered, the
 * streams are closed (a background child that keeps them open loses
 * what it writes later) and the EXIT goes to the client.  Closing the
 * holder's connection before the EXIT makes the holder kill the
 * command's process group.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent.h"
#include "box_client.h"
#include "box_exec.h"
#include "frame.h"
#include "msg.h"
#include "serve.h"
#include "wire.h"

#define SERVE_HOLDER_ID	1	/* our only request on a holder connection */

static void	serve_base_env(struct msg_exec *);

/* Queue an ERROR with a code and a message for the client. */
void
serve_error(struct serve *s, uint32_t id, int code, const char *fmt, ...)
{
	char	msg[512];
	va_list	ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	msg_error_code(&s->out, id, code, msg);
}

/* The running command with the client's id, or NULL. */
struct serve_exec *
serve_exec_find(struct serve *s, uint32_t id)
{
	size_t	i;

	for (i = 0; i < SERVE_EXECS_MAX; i++)
		if (s->ex[i] != NULL && s->ex[i]->id == id)
			return s->ex[i];
	return NULL;
}

/* Close one of our ends. */
static void
serve_close(struct serve_exec *e, int stream)
{
	if (e->fd[stream] != -1) {
		close(e->fd[stream]);
		e->fd[stream] = -1;
	}
}

/* Forget a command: its holder connection closed, its slot free. */
void
serve_exec_free(struct serve *s, struct serve_exec *e)
{
	size_t	i;

	for (i = 0; i < SERVE_EXECS_MAX; i++)
		if (s->ex[i] == e)
			s->ex[i] = NULL;
	for (i = 0; i < 3; i++)
		serve_close(e, (int)i);
	box_client_close(&e->hc);
	msg_exec_free(&e->m);
	free(e->spec);
	free(e->in);
	free(e);
}

/* End a command for the client with an ERROR: it is done. */
static void
serve_fail(struct serve *s, struct serve_exec *e, int code, const char *msg)
{
	serve_error(s, e->id, code, "%s", msg);
	e->state = SERVE_DONE;
}

/* Decode an EXEC into e: 0, or an ERROR queued for the client. */
static int
serve_exec_parse(struct serve *s, const struct frame *f, struct serve_exec *e,
    char **dir)
{
	int	r;

	if ((r = msg_exec_get_relayed(f, &e->m)) != 0 ||
	    (r = msg_exec_target_get(f, dir, &e->spec)) != 0) {
		serve_error(s, f->id, MSG_ERR_REQUEST, "EXEC: %s",
		    frame_strerror(r));
		return -1;
	}
	if ((e->m.flags & FRAME_EXEC_PTY) != 0) {
		serve_error(s, f->id, MSG_ERR_REQUEST, "EXEC: no terminal "
		    "over serve yet");
		return -1;
	}
	if ((e->m.flags & FRAME_EXEC_BASEENV) != 0) {
		e->m.flags &= ~(uint32_t)FRAME_EXEC_BASEENV;
		serve_base_env(&e->m);
	}
	return 0;
}

/* 1 if env (NULL-terminated) sets the variable kv names. */
static int
serve_env_has(char **env, const char *kv)
{
	size_t	n = strcspn(kv, "="), i;

	for (i = 0; env[i] != NULL; i++)
		if (strncmp(env[i], kv, n) == 0 && env[i][n] == '=')
			return 1;
	return 0;
}

/*
 * FRAME_EXEC_BASEENV: the environment box-exec would give the command
 * from ours (the host session's PATH, LANG, TZ, LC_*, HOME=/tmp) under
 * the request's own variables, which win.
 */
static void
serve_base_env(struct msg_exec *m)
{
	char	**base = box_exec_env(NULL), **env;
	size_t	  nb, nm, n, i;

	for (nb = 0; base[nb] != NULL; nb++)
		;
	for (nm = 0; m->env[nm] != NULL; nm++)
		;
	env = xcalloc(nm + nb + 1, sizeof(*env));
	for (n = 0; n < nm; n++)
		env[n] = m->env[n];
	for (i = 0; i < nb; i++)
		if (!serve_env_has(m->env, base[i]))
			env[n++] = xstrdup(base[i]);
	free(m->env);
	free(base);
	m->env = env;
}

/* A free slot for a new command, or -1. */
static int
serve_slot(struct serve *s)
{
	int	i;

	for (i = 0; i < SERVE_EXECS_MAX; i++)
		if (s->ex[i] == NULL)
			return i;
	return -1;
}

/*
 * The sandbox was used: touch DIR/../last-used if it is there (as the sh
 * path's check-and-touch does; prune reads it), never making it.
 */
static void
serve_touch(const char *dir)
{
	char		 path[4096];
	const char	*slash = strrchr(dir, '/');
	int		 n;

	if (slash == NULL || slash == dir)
		return;
	n = snprintf(path, sizeof(path), "%.*s/last-used", (int)(slash - dir),
	    dir);
	if (n > 0 && (size_t)n < sizeof(path))
		(void)utimensat(AT_FDCWD, path, NULL, AT_SYMLINK_NOFOLLOW);
}

/* An EXEC from the client: connect to its holder and say HELLO. */
void
serve_exec_start(struct serve *s, const struct frame *f)
{
	struct frame_wr		 fw = FRAME_WR_INIT;
	struct serve_exec	*e;
	char			*dir = NULL;
	int			 slot, r;

	if (serve_exec_find(s, f->id) != NULL) {
		serve_error(s, f->id, MSG_ERR_REQUEST, "id %u is in use",
		    f->id);
		return;
	}
	if ((slot = serve_slot(s)) == -1) {
		serve_error(s, f->id, MSG_ERR_BUSY, "%d commands run already",
		    SERVE_EXECS_MAX);
		return;
	}
	e = xcalloc(1, sizeof(*e));
	e->id = f->id;
	e->fd[0] = e->fd[1] = e->fd[2] = -1;
	e->hc.w.fd = -1;
	if (serve_exec_parse(s, f, e, &dir) != 0) {
		serve_exec_free(s, e);
		return;
	}
	if ((r = box_connect(dir, &e->hc)) != 0) {
		e->hc.w.fd = -1;
		serve_error(s, f->id, r == -ENOENT || r == -ECONNREFUSED ?
		    MSG_ERR_NOHOLDER : MSG_ERR_SYSTEM, "%s/%s: %s", dir,
		    AGENT_SOCK, strerror(-r));
		free(dir);
		serve_exec_free(s, e);
		return;
	}
	serve_touch(dir);
	free(dir);
	msg_hello_put(&fw, 0, NULL, 0);
	if (wire_queue(&e->hc.w, &fw, NULL, 0) != 0)
		serve_fail(s, e, MSG_ERR_SYSTEM, "cannot queue a HELLO");
	frame_wr_free(&fw);
	s->ex[slot] = e;
}

/* Three pipes; ours non-blocking.  0, or -1 with everything closed. */
static int
serve_pipes(struct serve_exec *e, int theirs[3])
{
	int	p[3][2], i, j;

	for (i = 0; i < 3; i++) {
		if (pipe2(p[i], O_CLOEXEC) == 0)
			continue;
		for (j = 0; j < i; j++) {
			close(p[j][0]);
			close(p[j][1]);
		}
		return -1;
	}
	e->fd[0] = p[0][1];	theirs[0] = p[0][0];
	e->fd[1] = p[1][0];	theirs[1] = p[1][1];
	e->fd[2] = p[2][0];	theirs[2] = p[2][1];
	for (i = 0; i < 3; i++)
		(void)fd_set_nonblock(e->fd[i], 1);
	return 0;
}

/* The holder said HELLO: check it, then send the EXEC with the pipes. */
static void
serve_exec_launch(struct serve *s, struct serve_exec *e, const struct frame *f)
{
	struct frame_wr	fw = FRAME_WR_INIT;
	int		theirs[3], r, i;

	if ((r = msg_hello_get(f, &e->hc.hello)) != 0 ||
	    e->hc.hello.proto != MSG_PROTO) {
		serve_fail(s, e, MSG_ERR_SYSTEM, "the sandbox environment "
		    "speaks another protocol");
		return;
	}
	if (e->spec[0] != '\0' && strcmp(e->spec, e->hc.hello.spec) != 0) {
		serve_fail(s, e, MSG_ERR_SPEC, "the sandbox environment runs "
		    "with other settings");
		return;
	}
	if ((e->m.flags & FRAME_EXEC_SELF) != 0 &&
	    (e->hc.hello.caps & MSG_CAP_SELF) == 0) {
		serve_fail(s, e, MSG_ERR_SPEC, "the sandbox environment "
		    "predates the agent's own steps");
		return;
	}
	if (serve_pipes(e, theirs) != 0) {
		serve_fail(s, e, MSG_ERR_SYSTEM, strerror(errno));
		return;
	}
	e->m.nfds = 3;
	msg_exec_put(&fw, SERVE_HOLDER_ID, &e->m);
	r = wire_queue(&e->hc.w, &fw, theirs, 3);
	frame_wr_free(&fw);
	for (i = 0; i < 3; i++)
		close(theirs[i]);
	if (r != 0) {
		serve_fail(s, e, MSG_ERR_SYSTEM, strerror(-r));
		return;
	}
	e->state = SERVE_RUN;
}

/* Read what stream has now; its end is an EOF frame. */
void
serve_exec_read(struct serve *s, struct serve_exec *e, int stream)
{
	uint8_t	buf[SERVE_CHUNK];
	ssize_t	n;

	if (e->fd[stream] == -1)
		return;
	do
		n = read(e->fd[stream], buf, sizeof(buf));
	while (n == -1 && errno == EINTR);
	if (n == -1 && errno == EAGAIN)
		return;
	if (n > 0) {
		msg_data_put(&s->out, e->id, stream, buf, (size_t)n);
		return;
	}
	serve_close(e, stream);
	msg_u32(&s->out, FRAME_EOF, e->id, TAG_STREAM, (uint32_t)stream);
}

/* The command ended: its leftover output, its streams' ends, its EXIT. */
static void
serve_exec_finish(struct serve *s, struct serve_exec *e)
{
	int	stream, before;

	for (stream = 1; stream <= 2; stream++) {
		do {
			before = (int)s->out.len;
			serve_exec_read(s, e, stream);
		} while (e->fd[stream] != -1 && (int)s->out.len != before);
		if (e->fd[stream] != -1) {
			serve_close(e, stream);
			msg_u32(&s->out, FRAME_EOF, e->id, TAG_STREAM,
			    (uint32_t)stream);
		}
	}
	serve_close(e, 0);
	if (e->signo > 0)
		msg_u32(&s->out, FRAME_EXIT, e->id, TAG_SIGNO,
		    (uint32_t)e->signo);
	else
		msg_u32(&s->out, FRAME_EXIT, e->id, TAG_CODE,
		    (uint32_t)e->code);
	e->state = SERVE_DONE;
}

/* One frame from the holder. */
static void
serve_exec_frame(struct serve *s, struct serve_exec *e, const struct frame *f)
{
	char		*msg = NULL;
	uint32_t	 pid, nfds;

	if (f->type == FRAME_HELLO && e->state == SERVE_HELLO) {
		serve_exec_launch(s, e, f);
		return;
	}
	if (f->type == FRAME_STARTED && e->state == SERVE_RUN &&
	    msg_started_get(f, &pid, &nfds) == 0) {
		msg_u32(&s->out, FRAME_STARTED, e->id, TAG_PID, pid);
		e->started = 1;
		return;
	}
	if (f->type == FRAME_EXIT && e->state == SERVE_RUN && e->started &&
	    msg_exit_get(f, &e->code, &e->signo) == 0) {
		e->exited = 1;
		serve_exec_finish(s, e);
		return;
	}
	if (f->type == FRAME_ERROR && msg_error_get(f, &msg) == 0) {
		serve_fail(s, e, MSG_ERR_REQUEST, msg);
		free(msg);
		return;
	}
	serve_fail(s, e, MSG_ERR_SYSTEM, "the sandbox environment broke the "
	    "protocol");
}

/* The holder's connection is ready: send what waits, read what came. */
void
serve_exec_holder(struct serve *s, struct serve_exec *e)
{
	struct frame	f;
	int		r;

	if (wire_pending(&e->hc.w) && (r = wire_flush(&e->hc.w)) < 0) {
		serve_fail(s, e, MSG_ERR_GONE, "the sandbox environment "
		    "ended while the command ran");
		return;
	}
	r = wire_recv(&e->hc.w);
	if (r == -EAGAIN)
		return;
	if (r <= 0) {
		serve_error(s, e->id, MSG_ERR_GONE, "the sandbox environment "
		    "ended while the command ran%s%s", r < 0 ? ": " : "",
		    r < 0 ? strerror(-r) : "");
		e->state = SERVE_DONE;
		return;
	}
	while (e->state != SERVE_DONE && (r = wire_frame(&e->hc.w, &f)) == 1) {
		serve_exec_frame(s, e, &f);
		wire_consume(&e->hc.w, &f);
	}
	if (r < 0 && e->state != SERVE_DONE)
		serve_fail(s, e, MSG_ERR_SYSTEM, "the sandbox environment "
		    "broke the protocol");
}

/* Write what the client sent for the command's stdin. */
void
serve_exec_write(struct serve *s, struct serve_exec *e)
{
	ssize_t	n;

	(void)s;
	while (e->fd[0] != -1 && e->inlen > 0) {
		n = write(e->fd[0], e->in + e->inoff, e->inlen);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n == -1) {		/* EPIPE: it closed its stdin */
			e->inlen = 0;
			serve_close(e, 0);
			break;
		}
		e->inoff += (size_t)n;
		e->inlen -= (size_t)n;
		if (e->inlen == 0)
			e->inoff = 0;
	}
	if (e->inlen == 0 && e->in_eof)
		serve_close(e, 0);
}

/*
 * Room for n more bytes of e's stdin after what is kept: what was written
 * is dropped from the front only when it is half the buffer or more, and
 * the buffer doubles, so a stream costs no copy of its backlog per write
 * and no reallocation per frame (musl's realloc of a large block is an
 * mremap, and its TLB flush, each time).
 */
static void
serve_exec_room(struct serve_exec *e, size_t n)
{
	size_t	cap;

	if (e->inoff + e->inlen + n <= e->incap)
		return;
	if (e->inoff > 0 && e->inoff >= e->incap / 2) {
		memmove(e->in, e->in + e->inoff, e->inlen);
		e->inoff = 0;
		if (e->inlen + n <= e->incap)
			return;
	}
	for (cap = e->incap < 65536 ? 65536 : e->incap;
	    cap < e->inoff + e->inlen + n; cap *= 2)
		;
	e->in = xreallocarray(e->in, cap, 1);
	e->incap = cap;
}

/* DATA or EOF from the client for a command's stdin. */
void
serve_exec_input(struct serve *s, const struct frame *f)
{
	struct serve_exec	*e = serve_exec_find(s, f->id);
	const uint8_t		*p;
	size_t			 n;
	int			 stream;

	if (f->type == FRAME_EOF) {
		if (msg_eof_get(f, &stream) != 0 || stream != 0)
			serve_error(s, f->id, MSG_ERR_REQUEST, "bad EOF");
		else if (e != NULL)
			e->in_eof = 1;
		return;
	}
	if (msg_data_get(f, &stream, &p, &n) != 0 || stream != 0) {
		serve_error(s, f->id, MSG_ERR_REQUEST, "bad DATA");
		return;
	}
	/* a command that ended, or closed its stdin, drops its input */
	if (e == NULL || e->state == SERVE_DONE || e->in_eof ||
	    (e->state == SERVE_RUN && e->fd[0] == -1))
		return;
	serve_exec_room(e, n);
	memcpy(e->in + e->inoff + e->inlen, p, n);
	e->inlen += n;
}

/* SIGNAL from the client: to the command's process group. */
void
serve_exec_signal(struct serve *s, const struct frame *f)
{
	struct serve_exec	*e = serve_exec_find(s, f->id);
	struct frame_wr		 fw = FRAME_WR_INIT;
	int			 signo;

	if (msg_signal_get(f, &signo) != 0) {
		serve_error(s, f->id, MSG_ERR_REQUEST, "bad SIGNAL");
		return;
	}
	if (e == NULL || e->state == SERVE_DONE)
		return;
	if (e->state == SERVE_HELLO) {	/* not started: it never will be */
		serve_fail(s, e, MSG_ERR_REQUEST, "signalled before it ran");
		return;
	}
	msg_u32(&fw, FRAME_SIGNAL, SERVE_HOLDER_ID, TAG_SIGNO, (uint32_t)signo);
	if (wire_queue(&e->hc.w, &fw, NULL, 0) != 0)
		serve_fail(s, e, MSG_ERR_SYSTEM, "cannot queue a SIGNAL");
	frame_wr_free(&fw);
}
