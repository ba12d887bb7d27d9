/* SPDX-License-Identifier: BSD-2-Clause */
/* box-exec --pty: relay stdin and stdout to the command's pty master. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/ioctl.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "agent.h"
#include "box_exec.h"

static struct termios	pty_saved;
static int		pty_raw;

/* Put stdin back as it was (atexit, and safe to call twice). */
static void
pty_restore(void)
{
	if (pty_raw) {
		(void)tcsetattr(STDIN_FILENO, TCSADRAIN, &pty_saved);
		pty_raw = 0;
	}
}

/* The window size to ask for: stdin's, else 80x24. */
void
pty_winsize(struct exec_run *x)
{
	struct winsize	ws;

	x->rows = 24;
	x->cols = 80;
	if (ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row != 0 &&
	    ws.ws_col != 0) {
		x->rows = ws.ws_row;
		x->cols = ws.ws_col;
	}
}

/* The master arrived: raw mode on a tty stdin. */
void
pty_start(struct exec_run *x, int master)
{
	struct termios	t;

	x->master = master;
	x->in_open = 1;
	(void)fd_set_nonblock(master, 1);
	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &pty_saved) != 0)
		return;
	t = pty_saved;
	cfmakeraw(&t);
	atexit(pty_restore);
	if (tcsetattr(STDIN_FILENO, TCSADRAIN, &t) == 0)
		pty_raw = 1;
}

/* SIGWINCH: stdin's size to the master (which signals the command). */
void
pty_resize(struct exec_run *x)
{
	struct winsize	ws;

	if (x->master == -1 || ioctl(STDIN_FILENO, TIOCGWINSZ, &ws) != 0)
		return;
	(void)ioctl(x->master, TIOCSWINSZ, &ws);
}

/* Add stdin (when its buffer is empty) and the master to p. */
void
pty_pollfds(struct exec_run *x, struct pollfd *p, int *n)
{
	p[*n].fd = x->in_open && x->in_len == 0 ? STDIN_FILENO : -1;
	p[*n].events = POLLIN;
	p[*n + 1].fd = x->master;
	p[*n + 1].events = POLLIN | (x->in_len > 0 ? POLLOUT : 0);
	*n += 2;
}

/* Read stdin into the buffer. */
static void
pty_read_stdin(struct exec_run *x)
{
	ssize_t	n;

	if ((n = read(STDIN_FILENO, x->in, sizeof(x->in))) > 0) {
		x->in_len = (size_t)n;
		x->in_off = 0;
	} else if (n == 0 || (errno != EINTR && errno != EAGAIN))
		x->in_open = 0;
}

/* Write the buffer to the master, as far as it takes it. */
static void
pty_write_master(struct exec_run *x)
{
	ssize_t	n;

	n = write(x->master, x->in + x->in_off, x->in_len - x->in_off);
	if (n > 0 && (x->in_off += (size_t)n) == x->in_len)
		x->in_len = x->in_off = 0;
	else if (n == -1 && errno != EINTR && errno != EAGAIN)
		x->in_len = x->in_off = 0;	/* the command is gone */
}

/* Master to stdout: 1 if more may come, 0 at its end (EOF or EIO). */
static int
pty_read_master(struct exec_run *x)
{
	char	buf[EXEC_RELAY_BUF];
	ssize_t	n;

	if ((n = read(x->master, buf, sizeof(buf))) > 0) {
		(void)write_all(STDOUT_FILENO, buf, (size_t)n);
		return 1;
	}
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return 1;
	close(x->master);
	x->master = -1;
	x->in_open = 0;
	return 0;
}

/* Step the relay on what poll said. */
void
pty_step(struct exec_run *x, const struct pollfd *p, int from)
{
	if (p[from].fd != -1 && (p[from].revents & (POLLIN | POLLHUP)))
		pty_read_stdin(x);
	if (p[from + 1].fd == -1)
		return;
	if (p[from + 1].revents & POLLOUT)
		pty_write_master(x);
	if (x->master != -1 &&
	    (p[from + 1].revents & (POLLIN | POLLHUP | POLLERR)))
		(void)pty_read_master(x);	/* a hangup reads EIO */
}

/* Read what the master still holds, without waiting for more. */
void
pty_drain(struct exec_run *x)
{
	struct pollfd	pfd;

	while (x->master != -1) {
		pfd.fd = x->master;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 0) <= 0 || pty_read_master(x) == 0)
			break;
	}
	pty_restore();
}
