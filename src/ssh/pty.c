/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Pseudo-terminal requests: terminal type, size and encoded modes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <string.h>

#include "compat.h"
#include "pty.h"

/* RFC 4254 section 8 opcodes. */
enum {
	PTY_OP_END = 0, PTY_VINTR = 1, PTY_VQUIT = 2, PTY_VERASE = 3,
	PTY_VKILL = 4, PTY_VEOF = 5, PTY_VSTART = 8, PTY_VSTOP = 9,
	PTY_VSUSP = 10, PTY_VREPRINT = 12, PTY_VWERASE = 13,
	PTY_VLNEXT = 14, PTY_IGNPAR = 30, PTY_ISTRIP = 33, PTY_INLCR = 34,
	PTY_IGNCR = 35, PTY_ICRNL = 36, PTY_IXON = 38, PTY_IXOFF = 40,
	PTY_IMAXBEL = 41, PTY_IUTF8 = 42, PTY_ISIG = 50, PTY_ICANON = 51,
	PTY_ECHO = 53, PTY_ECHOE = 54, PTY_ECHOK = 55, PTY_ECHONL = 56,
	PTY_IEXTEN = 59, PTY_ECHOCTL = 60, PTY_ECHOKE = 61, PTY_OPOST = 70,
	PTY_ONLCR = 72, PTY_CS8 = 91, PTY_PARENB = 92,
	PTY_ISPEED = 128, PTY_OSPEED = 129
};

/* Append one opcode and its value. */
static void
pty_mode(struct pty_req *r, unsigned char op, uint32_t v)
{
	unsigned char	*p = r->modes + r->modes_len;

	if (r->modes_len + 5 > PTY_MODES_MAX - 1)
		return;
	p[0] = op;
	p[1] = (unsigned char)(v >> 24);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 8);
	p[4] = (unsigned char)v;
	r->modes_len += 5;
}

/*
 * The modes: a sane terminal (as "stty sane", UTF-8), except that what
 * PTY_STTY_ON names starts off: 35 opcodes, 176 bytes with the end
 * (libssh2 1.10 takes at most 256 bytes of type and modes together).
 */
static void
pty_modes(struct pty_req *r, int erase)
{
	static const unsigned char	cc[][2] = {
		{ PTY_VINTR, 3 }, { PTY_VQUIT, 28 }, { PTY_VKILL, 21 },
		{ PTY_VEOF, 4 }, { PTY_VSTART, 17 }, { PTY_VSTOP, 19 },
		{ PTY_VSUSP, 26 }, { PTY_VREPRINT, 18 }, { PTY_VWERASE, 23 },
		{ PTY_VLNEXT, 22 },
		{ PTY_IGNPAR, 0 }, { PTY_ISTRIP, 0 }, { PTY_INLCR, 0 },
		{ PTY_IGNCR, 0 }, { PTY_IXOFF, 0 }, { PTY_IMAXBEL, 1 },
		{ PTY_IUTF8, 1 }, { PTY_ECHOE, 1 }, { PTY_ECHOK, 1 },
		{ PTY_ECHONL, 0 }, { PTY_ECHOCTL, 1 }, { PTY_ECHOKE, 1 },
		{ PTY_OPOST, 1 }, { PTY_ONLCR, 1 }, { PTY_CS8, 1 },
		{ PTY_PARENB, 0 },
		/* PTY_STTY_ON: off until the preamble is read */
		{ PTY_ICANON, 0 }, { PTY_ISIG, 0 }, { PTY_IEXTEN, 0 },
		{ PTY_ECHO, 0 }, { PTY_ICRNL, 0 }, { PTY_IXON, 0 },
	};
	size_t	i;

	r->modes_len = 0;
	pty_mode(r, PTY_VERASE, erase >= 0 && erase < 256 ?
	    (uint32_t)erase : 127);
	for (i = 0; i < sizeof cc / sizeof cc[0]; i++)
		pty_mode(r, cc[i][0], cc[i][1]);
	pty_mode(r, PTY_ISPEED, 38400);
	pty_mode(r, PTY_OSPEED, 38400);
	r->modes[r->modes_len++] = PTY_OP_END;
}

/* Whether term is acceptable; see pty.h. */
int
pty_term_ok(const char *term)
{
	const char	*p;

	if (term == NULL || term[0] == '\0' || strlen(term) > PTY_TERM_MAX)
		return 0;
	for (p = term; *p != '\0'; p++) {
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' ||
		    *p == '+' || *p == '-'))
			return 0;
	}
	return 1;
}

/* Fill a request; see pty.h. */
void
pty_req_init(struct pty_req *r, const char *term, unsigned cols,
    unsigned rows, int erase)
{
	memset(r, 0, sizeof *r);
	(void)strlcpy(r->term, pty_term_ok(term) ? term : PTY_TERM_DEFAULT,
	    sizeof r->term);
	if (cols == 0 || rows == 0 || cols > PTY_SIZE_MAX ||
	    rows > PTY_SIZE_MAX) {
		cols = 80;
		rows = 24;
	}
	r->cols = cols;
	r->rows = rows;
	pty_modes(r, erase);
}
