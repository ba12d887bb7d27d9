/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a remote pseudo-terminal is asked for with: the terminal type, the
 * window size, and the encoded terminal modes (RFC 4254 section 8).
 *
 * The modes start the terminal with no echo and no line editing or signal
 * keys (PTY_STTY_ON off), so the wrapper's preamble on stdin (environment
 * values: secrets) is neither echoed back nor mangled by the line
 * discipline; the wrapper turns them on with "stty PTY_STTY_ON" once it has
 * read the preamble (see remote_cmd.h).
 */
#ifndef CLAW_PTY_H
#define CLAW_PTY_H

#include <stddef.h>

#define PTY_TERM_DEFAULT	"xterm"
#define PTY_TERM_MAX		64	/* longer $TERM: PTY_TERM_DEFAULT */
#define PTY_MODES_MAX		192	/* libssh2 1.10: term + modes <= 256 */
#define PTY_SIZE_MAX		10000	/* columns or rows */
#define PTY_STTY_ON		"icanon isig iexten echo icrnl ixon"

/* A pseudo-terminal request. */
struct pty_req {
	char		 term[PTY_TERM_MAX + 1];
	unsigned	 cols, rows;
	unsigned char	 modes[PTY_MODES_MAX];
	size_t		 modes_len;
};

/*
 * Fill r: term (NULL, empty, too long or with bytes other than
 * [A-Za-z0-9._+-]: PTY_TERM_DEFAULT), the size (0 or over PTY_SIZE_MAX:
 * 80x24), the modes with erase as VERASE (-1: DEL).
 */
void	pty_req_init(struct pty_req *r, const char *term, unsigned cols,
	    unsigned rows, int erase);

/* Whether term is a terminal type pty_req_init would keep. */
int	pty_term_ok(const char *term);

#endif /* CLAW_PTY_H */
