/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Raw mode and window size of the local terminal; see tty.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/ioctl.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "error.h"
#include "tty.h"

static struct termios		tty_saved;
static int			tty_saved_fd = -1;
static int			tty_atexit_set;
static int			tty_winch_pipe[2] = { -1, -1 };

/* Restore the saved modes; see tty.h. */
void
tty_restore(void)
{
	int	saved = errno;

	if (tty_saved_fd == -1)
		return;
	while (tcsetattr(tty_saved_fd, TCSADRAIN, &tty_saved) == -1 &&
	    errno == EINTR)
		;
	tty_saved_fd = -1;
	errno = saved;
}

/* Enter raw mode; see tty.h. */
int
tty_raw(int fd)
{
	struct termios	t;

	if (tty_saved_fd != -1)
		return 0;
	if (tcgetattr(fd, &tty_saved) == -1)
		return CLAW_ERR_IO;
	if (!tty_atexit_set) {
		if (atexit(tty_restore) != 0)
			return CLAW_ERR_IO;
		tty_atexit_set = 1;
	}
	t = tty_saved;
	cfmakeraw(&t);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(fd, TCSADRAIN, &t) == -1)
		return CLAW_ERR_IO;
	tty_saved_fd = fd;
	return 0;
}

/* The terminal's window size; see tty.h. */
int
tty_size(int fd, unsigned *cols, unsigned *rows)
{
	struct winsize	ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) == -1 || ws.ws_col == 0 ||
	    ws.ws_row == 0)
		return CLAW_ERR_IO;
	*cols = ws.ws_col;
	*rows = ws.ws_row;
	return 0;
}

/* The terminal's erase character; see tty.h. */
int
tty_erase_char(int fd)
{
	struct termios	t;

	if (tcgetattr(fd, &t) == -1)
		return -1;
	return t.c_cc[VERASE];
}

/* Note a SIGWINCH in the pipe; async-signal-safe. */
static void
tty_winch_handler(int sig)
{
	unsigned char	c = 1;
	int		saved = errno;

	(void)sig;
	if (write(tty_winch_pipe[1], &c, 1) == -1) {
		/* full: one is pending already */
	}
	errno = saved;
}

/* Catch SIGWINCH; see tty.h. */
int
tty_winch_init(void)
{
	struct sigaction	sa;

	if (tty_winch_pipe[0] != -1)
		return 0;
	if (pipe2(tty_winch_pipe, O_CLOEXEC | O_NONBLOCK) == -1)
		return CLAW_ERR_IO;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tty_winch_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGWINCH, &sa, NULL) == -1)
		return CLAW_ERR_IO;
	return 0;
}

/* The pipe's read end; see tty.h. */
int
tty_winch_fd(void)
{
	return tty_winch_pipe[0];
}

/* Whether a SIGWINCH came; see tty.h. */
int
tty_winch_take(void)
{
	unsigned char	c;
	int		got = 0;

	if (tty_winch_pipe[0] == -1)
		return 0;
	while (read(tty_winch_pipe[0], &c, 1) == 1)
		got = 1;
	return got;
}
