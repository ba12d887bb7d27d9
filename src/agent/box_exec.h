/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * box-exec's state while its command runs, shared by its loop
 * (box_exec.c) and the pty relay (box_pty.c).
 */
#ifndef CLAW_AGENT_BOX_EXEC_H
#define CLAW_AGENT_BOX_EXEC_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "box_client.h"

#define EXEC_RELAY_BUF	16384

struct exec_run {
	struct box_client c;
	uint32_t	  id;		/* the EXEC request's */
	int		  sig[2];	/* self-pipe of caught signals */
	int		  started;
	int		  status;	/* exit status; -1 until EXIT */
	int		  pty;		/* --pty */
	int		  master;	/* the pty master; -1 */
	int		  in_open;	/* stdin still read */
	unsigned char	  in[EXEC_RELAY_BUF];	/* stdin to the master */
	size_t		  in_len;
	size_t		  in_off;
	uint16_t	  rows;
	uint16_t	  cols;
	uint64_t	  kill_at;	/* parent gone: SIGKILL then; 0 */
};

/*
 * The environment box-exec gives a command, from its own: PATH (a
 * default when unset or empty), LANG, TERM, TZ, LC_*, the names in keep
 * (space-separated, or NULL), HOME=/tmp.  The array is allocated; its
 * strings are environ's.
 */
char	**box_exec_env(const char *keep);

/* The window size to ask for: stdin's, else 80x24. */
void	pty_winsize(struct exec_run *x);
/* The master arrived: raw mode on a tty stdin (restored at exit). */
void	pty_start(struct exec_run *x, int master);
/* SIGWINCH: stdin's size to the master. */
void	pty_resize(struct exec_run *x);
/* Add the relay's fds to p (from *n on). */
void	pty_pollfds(struct exec_run *x, struct pollfd *p, int *n);
/* Step the relay on what poll said about p[from..]. */
void	pty_step(struct exec_run *x, const struct pollfd *p, int from);
/* Read what the master still holds (after the command's end). */
void	pty_drain(struct exec_run *x);

#endif /* CLAW_AGENT_BOX_EXEC_H */
