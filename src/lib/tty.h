/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The local terminal while a remote command has a pseudo-terminal: raw
 * mode (restored on every way out, exit included), its window size, and
 * SIGWINCH turned into a readable event on a self-pipe.
 */
#ifndef CLAW_TTY_H
#define CLAW_TTY_H

/*
 * Put the terminal on fd in raw mode (cfmakeraw), keeping its modes for
 * tty_restore, which also runs at exit.  0, or CLAW_ERR_IO if fd is not
 * a terminal or its modes cannot be set.  A second call while raw does
 * nothing.
 */
int	tty_raw(int fd);

/* Give the terminal tty_raw changed its modes back; idempotent. */
void	tty_restore(void);

/*
 * The window size of the terminal on fd: 0 with *cols and *rows set
 * (neither 0), or CLAW_ERR_IO if fd is not a terminal or has no size.
 */
int	tty_size(int fd, unsigned *cols, unsigned *rows);

/*
 * The erase character of the terminal on fd (VERASE), or -1 when fd is
 * not a terminal.
 */
int	tty_erase_char(int fd);

/* Catch SIGWINCH from now on.  0 or CLAW_ERR_IO. */
int	tty_winch_init(void);

/* The fd to poll for POLLIN (a SIGWINCH came); -1 before the init. */
int	tty_winch_fd(void);

/* Whether a SIGWINCH came since the last call; drains the pipe. */
int	tty_winch_take(void);

#endif /* CLAW_TTY_H */
