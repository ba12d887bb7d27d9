/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One remote command on a channel, driven by a single poll loop over the
 * SSH socket, local stdin and the signal pipe.  Local writes block, which
 * is the back-pressure: while stdout is slow we stop reading the channel,
 * its window fills and the remote command waits.  Nothing is held whole.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent_req.h"
#include "buf.h"
#include "chan.h"
#include "clock.h"
#include "error.h"
#include "exec.h"
#include "fdio.h"
#include "log.h"
#include "num.h"
#include "pty.h"
#include "remote_cmd.h"
#include "signals.h"
#include "transport.h"
#include "tty.h"
#include "xmalloc.h"

#define EXEC_CHUNK	(64 * 1024)	/* one read or write */
#define EXEC_LINE_MAX	4096		/* longest line before the marker */
#define EXEC_GRACE_MS	5000		/* wait for the channel after a kill */
#define EXEC_MARKER_MS	30000		/* wait for a late pid marker to kill */
#define EXEC_KILL_MS	10000		/* the kill script's own deadline */
#define EXEC_KILL_DS	(EXEC_TERM_KILL_MS / 100) /* TERM to KILL, in ds */

enum exec_stop {
	EXEC_RUNNING = 0,
	EXEC_STOP_TIMEOUT,
	EXEC_STOP_SIGNAL,
	EXEC_STOP_PIPE,
	EXEC_STOP_OVERFLOW
};

struct exec_state {
	struct transport	*t;
	struct chan		*ch;
	const struct exec_opts	*o;
	struct remote_cmd	 rc;
	struct buf		 in;		/* waiting for the channel */
	size_t			 in_off;
	int			 in_eof;	/* no more local input */
	int			 eof_sent;
	int			 started_seen;	/* chan_started, once seen */
	struct buf		 head;		/* stdout before the marker */
	int			 marker_seen;
	int			 sync_checked;	/* the line after it looked at */
	long			 pid;		/* remote process group */
	char			 ident[REMOTE_IDENT_MAX]; /* its leader's */
	int64_t			 deadline;	/* --timeout */
	int64_t			 grace;		/* after a kill */
	int64_t			 kill_at;	/* agent: SIGKILL after TERM */
	enum exec_stop		 stop;
	int			 stop_sig;
	int			 kill_pending;	/* stop came before pid */
	int			 remote_eof;
	int			 closed;
	int			 got_data;	/* socket was readable */
	int			 overflow;	/* a buffer sink overflowed */
	int			 raw;		/* the local terminal is raw */
	int			 sizing;	/* SIGWINCH sends a new size */
	int			 win_pending;	/* a new size to send */
	unsigned		 win_cols;
	unsigned		 win_rows;
};

/*
 * Deliver output to a sink: 0, the error of a write to its fd, or
 * CLAW_ERR_RANGE when its buffer is full.
 */
static int
exec_sink_write(struct exec_state *st, const struct exec_sink *sink,
    const char *p, size_t n)
{
	if (sink->fd >= 0)
		return fdio_write_all(sink->fd, p, n) == 0 ? 0 :
		    claw_err_from_errno(errno);
	if (sink->buf->len + n > sink->max) {
		st->overflow = 1;
		return CLAW_ERR_RANGE;
	}
	buf_append(sink->buf, p, n);
	return 0;
}

static void	exec_kill_late(struct exec_state *);

/* Whether the lines clawssh's wrapper prints first are all seen. */
static int
exec_head_done(const struct exec_state *st)
{
	return st->marker_seen && (st->o->synced == NULL || st->sync_checked);
}

/* One whole line of the head of stdout: a marker, or passed on (0 or <0). */
static int
exec_head_line(struct exec_state *st, const char *line, size_t len)
{
	if (!st->marker_seen && remote_cmd_parse_pid(&st->rc, line, len,
	    &st->pid, st->ident)) {
		st->marker_seen = 1;
		log_debug("remote process group %ld%s%s", st->pid,
		    st->ident[0] != '\0' ? ", leader " : "", st->ident);
		chan_set_pgid(st->ch, st->pid, st->ident);
		exec_kill_late(st);
		return 0;
	}
	if (st->marker_seen && !st->sync_checked) {
		st->sync_checked = 1;
		if (len == sizeof(REMOTE_CMD_SYNCED) - 1 &&
		    memcmp(line, REMOTE_CMD_SYNCED, len) == 0) {
			*st->o->synced = 1;
			return 0;
		}
	}
	return exec_sink_write(st, &st->o->out, line, len);
}

/*
 * Pass stdout on, first picking out the pid marker line (and, when
 * o->synced is set, the line saying the changes sent along were unpacked):
 * 0, or exec_sink_write's error.
 */
static int
exec_stdout(struct exec_state *st, const char *p, size_t n)
{
	char	*nl;
	size_t	 len;
	int	 rc;

	if (exec_head_done(st))
		return exec_sink_write(st, &st->o->out, p, n);
	buf_append(&st->head, p, n);
	while (!exec_head_done(st) &&
	    (nl = memchr(st->head.data, '\n', st->head.len)) != NULL) {
		len = (size_t)(nl - st->head.data) + 1;
		if ((rc = exec_head_line(st, st->head.data, len)) != 0)
			return rc;
		buf_consume(&st->head, len);
	}
	if (!exec_head_done(st) && st->head.len > EXEC_LINE_MAX &&
	    st->marker_seen)
		st->sync_checked = 1;
	if (exec_head_done(st) || st->head.len > EXEC_LINE_MAX) {
		if ((rc = exec_sink_write(st, &st->o->out, st->head.data,
		    st->head.len)) != 0)
			return rc;
		buf_reset(&st->head);
	}
	return 0;
}

/* Read one stream (1: stderr) until nothing more is there; <0 on failure. */
static int
exec_read_stream(struct exec_state *st, int stream, char **cause)
{
	char		chunk[EXEC_CHUNK];
	ssize_t		n;
	int		w;

	for (;;) {
		n = chan_read(st->ch, stream, chunk, sizeof chunk, cause);
		if (n <= 0)
			return (int)n;
		if (stream == 0)
			w = exec_stdout(st, chunk, (size_t)n);
		else
			w = exec_sink_write(st, &st->o->err, chunk,
			    (size_t)n);
		if (w != 0) {
			st->stop = EXEC_STOP_PIPE;
			return 0;
		}
	}
}

/* Move pending stdin to the channel, then EOF once input ended. */
static int
exec_flush_stdin(struct exec_state *st, char **cause)
{
	ssize_t	n;
	int	rc;

	while (st->in_off < st->in.len) {
		n = chan_write(st->ch, st->in.data + st->in_off,
		    st->in.len - st->in_off, cause);
		if (n <= 0)
			return (int)n;
		st->in_off += (size_t)n;
	}
	buf_reset(&st->in);
	st->in_off = 0;
	/*
	 * A terminal's input has no end (a command reads ^D, not EOF), and
	 * sshd closes the pty it resizes once it has the channel's EOF: a
	 * command on a pty keeps its input open while it runs.
	 */
	if (st->o->pty != NULL && st->stop == EXEC_RUNNING)
		return 0;
	if (st->in_eof && !st->eof_sent) {
		rc = chan_send_eof(st->ch, cause);
		if (rc == 0)
			st->eof_sent = 1;
		else if (rc < 0)
			return rc;
	}
	return 0;
}

/* Read what local stdin has now into the pending buffer. */
static void
exec_read_stdin(struct exec_state *st)
{
	char	chunk[EXEC_CHUNK];
	ssize_t	n;

	n = read(st->o->in_fd, chunk, sizeof chunk);
	if (n > 0)
		buf_append(&st->in, chunk, (size_t)n);
	else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		st->in_eof = 1;
}

/* Run the kill script for the remote process group on a new channel. */
static void
exec_kill_remote(struct transport *t, long pid, const char *ident)
{
	struct chan	*ch;
	int64_t		 deadline = clock_now_ms() + EXEC_KILL_MS;
	char		*script, *cause = NULL, sink[1024];
	ssize_t		 n, m;

	script = remote_cmd_kill_script(pid, ident, EXEC_KILL_DS);
	if ((ch = chan_exec(t, script, NULL, deadline, &cause)) == NULL) {
		log_warn("cannot stop remote process group %ld: %s", pid,
		    cause);
		free(cause);
		free(script);
		return;
	}
	while (!chan_eof(ch) && clock_now_ms() < deadline) {
		n = chan_read(ch, 0, sink, sizeof sink, &cause);
		m = chan_read(ch, 1, sink, sizeof sink, &cause);
		if (n < 0 || m < 0) {
			free(cause);
			break;
		}
		if (n == 0 && m == 0 && !chan_pending(ch) &&
		    transport_wait(t, deadline) != 0)
			break;
	}
	chan_free(ch);
	free(script);
	log_info("stopped remote process group %ld", pid);
}

/* Signal an agent channel's command (a broken channel ends the run). */
static void
exec_agent_signal(struct exec_state *st, int sig)
{
	char	*cause = NULL;

	if (chan_signal(st->ch, sig, &cause) != 0) {
		log_debug("%s", cause);
		free(cause);
	}
}

/*
 * Through the host agent's channel: serve's EXEC, no wrapper and so no
 * pid marker; CLAW_ERR_UNSUPPORTED when it cannot go that way.
 */
static int
exec_start_agent(struct exec_state *st, char **cause)
{
	struct buf	frame = BUF_INIT;

	if (agent_req_frame(st->o->agent, st->o->argc, st->o->argv,
	    st->o->env, st->o->nenv, &frame) != 0) {
		*cause = xstrdup("the command does not fit in a frame");
		return CLAW_ERR_UNSUPPORTED;
	}
	log_trace("remote command through the host agent: %s", st->o->argv[0]);
	st->ch = chan_exec_agent(st->t, st->o->agent->path, frame.data,
	    frame.len, cause);
	buf_free_secret(&frame);
	if (st->ch == NULL)
		return CLAW_ERR_UNSUPPORTED;
	st->marker_seen = st->sync_checked = 1;
	if (st->o->in_len != 0)
		buf_append(&st->in, st->o->in_data, st->o->in_len);
	if (!st->o->forward_stdin)
		st->in_eof = 1;
	return 0;
}

/*
 * Stop the remote command for reason; later calls do nothing.  If its pid
 * has not arrived yet (a slow login shell), the kill waits for it.
 */
static void
exec_stop(struct exec_state *st, enum exec_stop reason, int sig)
{
	if (st->stop != EXEC_RUNNING && st->stop != EXEC_STOP_PIPE)
		return;
	if (reason == EXEC_STOP_OVERFLOW)
		log_debug("remote output over its limit; stopping it");
	st->stop = reason;
	st->stop_sig = sig;
	st->in_eof = 1;
	if (st->o->agent != NULL) {
		exec_agent_signal(st, SIGTERM);
		st->kill_at = clock_now_ms() + EXEC_KILL_DS * 100;
		st->grace = clock_now_ms() + EXEC_GRACE_MS;
	} else if (st->pid > 0) {
		exec_kill_remote(st->t, st->pid, st->ident);
		st->grace = clock_now_ms() + EXEC_GRACE_MS;
	} else {
		log_info("remote pid not known yet; waiting for it to stop "
		    "the command");
		st->kill_pending = 1;
		st->grace = clock_now_ms() + EXEC_MARKER_MS;
	}
}

/* The pid arrived after a stop was asked for: kill now. */
static void
exec_kill_late(struct exec_state *st)
{
	if (!st->kill_pending)
		return;
	st->kill_pending = 0;
	exec_kill_remote(st->t, st->pid, st->ident);
	st->grace = clock_now_ms() + EXEC_GRACE_MS;
}

/*
 * With a terminal here: raw mode while the command runs (its keys, ^C
 * included, are bytes for the remote terminal) and SIGWINCH caught; with
 * a size file instead (a daemon's worker), SIGWINCH caught only.
 */
static void
exec_tty_start(struct exec_state *st)
{
	int	fd = st->o->tty_fd;

	if (st->o->pty == NULL || (fd < 0 && st->o->size_file == NULL))
		return;
	if (fd >= 0 && tty_raw(fd) != 0)
		log_warn("cannot put the terminal in raw mode");
	else if (fd >= 0)
		st->raw = 1;
	if (tty_winch_init() != 0)
		log_warn("cannot follow the terminal's size (SIGWINCH)");
	else
		st->sizing = 1;
}

/* Open the channel and start the command. */
static int
exec_start(struct exec_state *st, char **cause)
{
	int	rc;

	if (st->o->agent != NULL)
		return exec_start_agent(st, cause);
	if ((rc = remote_cmd_build_wrapped(&st->rc, st->o->argc, st->o->argv,
	    st->o->pre, st->o->wrap, st->o->cwd, st->o->env, st->o->nenv,
	    (st->o->pty != NULL ? REMOTE_CMD_PTY : 0) |
	    (st->o->wrap_watches ? REMOTE_CMD_NO_WATCHDOG : 0), cause)) != 0)
		return rc;
	log_trace("remote command: %s", st->rc.command);
	if ((st->ch = chan_exec_pty(st->t, st->rc.command, st->rc.nonce,
	    st->o->pty, CLOCK_NEVER, cause)) == NULL)
		return CLAW_ERR_CONNECT;
	exec_tty_start(st);
	buf_append(&st->in, st->rc.preamble, st->rc.preamble_len);
	if (st->o->in_len != 0)
		buf_append(&st->in, st->o->in_data, st->o->in_len);
	if (!st->o->forward_stdin)
		st->in_eof = 1;
	return 0;
}

/* Send the local terminal's new size, once SIGWINCH said it changed. */
static int
exec_resize(struct exec_state *st, char **cause)
{
	int	rc;

	if (!st->win_pending)
		return 0;
	if ((rc = chan_resize(st->ch, st->win_cols, st->win_rows,
	    cause)) < 0)
		return rc;
	if (rc == 0) {
		log_debug("terminal size %ux%u", st->win_cols, st->win_rows);
		st->win_pending = 0;
	}
	return 0;
}

/*
 * Read a terminal size "COLS ROWS" (each 1 to PTY_SIZE_MAX) from path,
 * a file the daemon writes before it signals SIGWINCH: 0, CLAW_ERR_INVAL
 * without a path, open's error mapped, CLAW_ERR_IO if it cannot be read,
 * or CLAW_ERR_PARSE if it holds no such size.
 */
static int
exec_size_file(const char *path, unsigned *cols, unsigned *rows)
{
	char		 buf[32], *sp;
	uint64_t	 c, r;
	ssize_t		 n;
	int		 fd;

	if (path == NULL)
		return CLAW_ERR_INVAL;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return claw_err_from_errno(errno);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return n == 0 ? CLAW_ERR_PARSE : CLAW_ERR_IO;
	if (buf[n - 1] == '\n')
		n--;
	if ((sp = memchr(buf, ' ', (size_t)n)) == NULL ||
	    num_parse(buf, (size_t)(sp - buf), 0, PTY_SIZE_MAX, &c) != 0 ||
	    num_parse(sp + 1, (size_t)(buf + n - sp - 1), 0, PTY_SIZE_MAX,
	    &r) != 0 || c < 1 || r < 1)
		return CLAW_ERR_PARSE;
	*cols = (unsigned)c;
	*rows = (unsigned)r;
	return 0;
}

/* A SIGWINCH came: note the terminal's size to send if it is new. */
static void
exec_winch(struct exec_state *st)
{
	unsigned	cols, rows;

	if (!tty_winch_take())
		return;
	if (st->o->tty_fd >= 0 ? tty_size(st->o->tty_fd, &cols, &rows) != 0 :
	    exec_size_file(st->o->size_file, &cols, &rows) != 0)
		return;
	st->win_cols = cols;
	st->win_rows = rows;
	st->win_pending = 1;
}

/* Do all the channel work possible without waiting. */
static int
exec_pump(struct exec_state *st, char **cause)
{
	int	rc;

	if ((rc = exec_resize(st, cause)) != 0 ||
	    (rc = exec_flush_stdin(st, cause)) != 0 ||
	    (rc = exec_read_stream(st, 0, cause)) != 0 ||
	    (rc = exec_read_stream(st, 1, cause)) != 0)
		return rc;
	/*
	 * Reading may have taken what stdin waited for (a host agent's
	 * OPENED): send it now, for nothing else will wake the poll.
	 */
	if (st->in.len != 0 || (st->in_eof && !st->eof_sent))
		if ((rc = exec_flush_stdin(st, cause)) != 0)
			return rc;
	if (st->stop == EXEC_STOP_PIPE && st->grace == 0 &&
	    st->o->quick_stop && !st->overflow) {
		st->stop_sig = SIGPIPE;		/* closing the channel ends it */
		st->in_eof = 1;
		st->grace = clock_now_ms();
	} else if (st->stop == EXEC_STOP_PIPE && st->grace == 0)
		exec_stop(st, st->overflow ? EXEC_STOP_OVERFLOW :
		    EXEC_STOP_PIPE, SIGPIPE);
	if (!st->remote_eof && chan_eof(st->ch))
		st->remote_eof = 1;
	if (st->remote_eof && !st->closed) {
		rc = chan_wait_closed(st->ch, cause);
		if (rc == 0)
			st->closed = 1;
		else if (rc < 0)
			return rc;
	}
	return 0;
}

/* Compute the poll timeout from keepalive, --timeout and grace. */
static int
exec_timeout_ms(struct exec_state *st, int keepalive_ms)
{
	int64_t	deadline = CLOCK_NEVER;
	int	ms;

	if (st->stop == EXEC_RUNNING)
		deadline = st->deadline;
	else if (st->grace != 0)
		deadline = st->grace;
	if (st->kill_at != 0)
		deadline = clock_min(deadline, st->kill_at);
	ms = clock_poll_timeout(deadline);
	if (keepalive_ms >= 0 && (ms < 0 || keepalive_ms < ms))
		ms = keepalive_ms;
	return ms;
}

/* Act on a signal caught while waiting (or none). */
static void
exec_signal(struct exec_state *st)
{
	int	sig = 0;

	if (signals_fd() != -1 && (sig = signals_take()) != 0 &&
	    st->o->quick_stop) {
		st->stop = EXEC_STOP_SIGNAL;
		st->stop_sig = sig;
		st->in_eof = 1;
		st->grace = clock_now_ms();
	} else if (sig != 0) {
		if (st->stop == EXEC_STOP_SIGNAL)
			st->grace = clock_now_ms();
		exec_stop(st, EXEC_STOP_SIGNAL, sig);
	}
}

/* Wait for the socket, stdin or a signal; act on timeouts and signals. */
static int
exec_wait(struct exec_state *st, char **cause)
{
	struct pollfd	pfd[4];
	int		n = 2, ka_ms, rc, in = -1, wake;

	if ((rc = transport_keepalive(st->t, st->got_data, &ka_ms,
	    cause)) != 0)
		return rc;
	pfd[0].fd = transport_fd(st->t);
	pfd[0].events = transport_poll_events(st->t) | POLLIN;
	pfd[1].fd = signals_fd();
	pfd[1].events = POLLIN;
	if (st->sizing && tty_winch_fd() != -1) {
		pfd[n].fd = tty_winch_fd();
		pfd[n++].events = POLLIN;
	}
	if (!st->in_eof && st->in.len == 0 && chan_started(st->ch)) {
		in = n;
		pfd[n].fd = st->o->in_fd;
		pfd[n++].events = POLLIN;
	}
	/*
	 * Output a pump read for the other stream does not wake poll, nor
	 * does a host agent's OPENED that a pump took after stdin was last
	 * flushed (chan_eof pumps): stdin waiting for it, with no local
	 * input to wake us (in_data alone), would wait for ever.  One turn
	 * without waiting once the channel is seen started.
	 */
	wake = chan_pending(st->ch) || st->win_pending;
	if (!st->started_seen && chan_started(st->ch)) {
		st->started_seen = 1;
		wake = 1;
	}
	if (poll(pfd, (nfds_t)n, wake ? 0 : exec_timeout_ms(st, ka_ms)) ==
	    -1 && errno != EINTR)
		return CLAW_ERR_IO;
	st->got_data = (pfd[0].revents & (POLLIN | POLLHUP)) != 0;
	if (in != -1 && (pfd[in].revents & (POLLIN | POLLHUP | POLLERR)))
		exec_read_stdin(st);
	if (st->sizing)
		exec_winch(st);
	exec_signal(st);
	if (st->stop == EXEC_RUNNING && st->deadline != CLOCK_NEVER &&
	    clock_now_ms() >= st->deadline)
		exec_stop(st, EXEC_STOP_TIMEOUT, 0);
	if (st->kill_at != 0 && clock_now_ms() >= st->kill_at) {
		st->kill_at = 0;
		exec_agent_signal(st, SIGKILL);
	}
	return 0;
}

/* Turn the channel's end into the status clawssh exits with. */
static int
exec_status(struct exec_state *st)
{
	char	*sig;
	int	 num, status;

	if (st->stop == EXEC_STOP_TIMEOUT)
		return EXEC_STATUS_TIMEOUT;
	if (st->stop == EXEC_STOP_SIGNAL || st->stop == EXEC_STOP_PIPE)
		return 128 + st->stop_sig;
	chan_exit(st->ch, &status, &sig);
	if (sig != NULL) {
		num = signals_from_name(sig);
		log_info("remote command killed by signal %s", sig);
		free(sig);
		return num > 0 ? 128 + num : EXEC_STATUS_FAILURE;
	}
	return status & 0xff;
}

/* Release the channel and buffers. */
static void
exec_cleanup(struct exec_state *st)
{
	if (st->raw)
		tty_restore();
	chan_free(st->ch);
	remote_cmd_clear(&st->rc);
	buf_free_secret(&st->in);
	buf_free(&st->head);
}

/* Run one command; see exec.h. */
int
exec_run(struct transport *t, const struct exec_opts *o, int *status,
    char **cause)
{
	struct exec_state	st;
	int			rc;

	memset(&st, 0, sizeof st);
	st.t = t;
	st.o = o;
	st.deadline = o->timeout > 0 ?
	    clock_now_ms() + (int64_t)o->timeout * 1000 : CLOCK_NEVER;
	if ((rc = exec_start(&st, cause)) != 0)
		goto out;
	for (;;) {
		if ((rc = exec_pump(&st, cause)) != 0 || st.closed)
			break;
		if (st.grace != 0 && clock_now_ms() >= st.grace)
			break;
		if ((rc = exec_wait(&st, cause)) != 0)
			break;
	}
	if (st.kill_pending)
		log_warn("could not stop the remote command: its pid never "
		    "arrived");
	if (o->overflowed != NULL)
		*o->overflowed = st.overflow;
	if (rc == 0 && st.overflow) {
		*cause = xasprintf("%s: remote output larger than expected",
		    transport_label(t));
		rc = CLAW_ERR_PARSE;
	} else if (rc == 0) {
		if (st.head.len != 0)
			(void)exec_sink_write(&st, &o->out, st.head.data,
			    st.head.len);
		*status = exec_status(&st);
	}
out:
	exec_cleanup(&st);
	return rc;
}

/* Run "sh -c script"; see exec.h. */
int
exec_sh(struct transport *t, const char *script, struct exec_opts *o,
    int *status, char **cause)
{
	char	 sh[] = "sh", dash_c[] = "-c";
	char	*argv[4];

	argv[0] = sh;
	argv[1] = dash_c;
	argv[2] = (char *)(uintptr_t)script;
	argv[3] = NULL;
	o->argc = 3;
	o->argv = argv;
	return exec_run(t, o, status, cause);
}

/* Options for captured, capped output; see exec.h. */
void
exec_opts_capture(struct exec_opts *o, const char *in, size_t inlen,
    size_t max, struct buf *out, struct buf *err)
{
	memset(o, 0, sizeof *o);
	o->in_data = in;
	o->in_len = inlen;
	o->in_fd = -1;
	o->out.fd = o->err.fd = -1;
	o->out.buf = out;
	o->err.buf = err;
	o->out.max = o->err.max = max;
}

/* Run a script with captured, capped output; see exec.h. */
int
exec_script(struct transport *t, const char *script, const char *in,
    size_t inlen, size_t max, struct buf *out, struct buf *err, int *status,
    char **cause)
{
	struct exec_opts	o;

	exec_opts_capture(&o, in, inlen, max, out, err);
	return exec_sh(t, script, &o, status, cause);
}
