/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The control socket's channel protocol between a clawssh command and the
 * daemon that holds the warm SSH sessions (like OpenSSH's ControlMaster).
 *
 * A client opens with MUX_MAGIC, then speaks frames: a 4-byte big-endian
 * length of what follows, a type byte, a 4-byte channel number chosen by
 * the client, and the payload.  One connection is bound to one host by
 * MUX_HELLO; many channels run on it at once.
 *
 *	client				daemon
 *	HELLO  (json: resolved ssh settings)
 *					READY (label, NUL, capabilities)
 *					| ERROR (code, text)
 *	OPEN   c (command line)
 *	| OPEN_PTY c (terminal request, command line)
 *	| OPEN_AGENT c (agent path, NUL, the host agent's EXEC frame)
 *					OPENED c | ERROR c
 *	RESIZE c (new window size of its terminal)
 *	DATA c, EOF c (stdin)		STDOUT c, STDERR c, EOF c
 *	MARKER c (nonce of the pid marker line the command prints first)
 *	PGID c (remote process group: killed if the client goes away)
 *	SIGNAL c (a signal number for an OPEN_AGENT command's group)
 *					EXIT c (status, signal name)
 *	CLOSE c (release the channel)
 *	JTAKE 0 (root, consumer, excludes)
 *					JPATHS 0 (the change journal's set)
 *	RTAKE 0 (host workspace, token, jail)
 *					RPATHS 0 (the host watcher's set)
 *	JACK 0 (the sets taken were synced)
 *
 * JTAKE's payload is NUL-separated: the workspace root (absolute), the
 * consumer (a sandbox id: each has its own set), then sync.exclude
 * patterns.  JPATHS is "P" then a NUL and the dirty paths, each ended by
 * a NUL; or "F" and the reason a full scan is needed.  What a client took
 * goes back into its consumer's set if it leaves before JACK.  RTAKE
 * (the sandbox workspace's path on the host, NUL, 32 hex digits, NUL,
 * the sh text of the sandbox's step jail or nothing, NUL: see
 * sync/hostws.h) asks for what changed there, answered as JPATHS is,
 * once every change made before it has been seen (see daemon_watch.c).
 * To a daemon offering "awatch", the path of the agent on the host and a
 * NUL may follow: the watcher is then the agent's own.
 *
 * OPEN_PTY's payload: the columns and rows (4 bytes each, big-endian),
 * the terminal type's length (1 byte) and the type, the modes' length (1
 * byte) and the encoded modes (see pty.h), then the command line.
 * RESIZE's: the columns and rows.  Only to a daemon offering "pty".
 *
 * OPEN_AGENT runs a contained command through the host agent's channel
 * (`clawssh-agent serve`, one per host and agent path, kept by the
 * daemon; see docs/agent.md): no shell, no new SSH channel.  The frame
 * is serve's EXEC (FRAME_EXEC with TAG_DIR); its id is the daemon's
 * business.  OPENED comes once the command started; its output, EOF and
 * EXIT (the status, or 128+N for signal N, with no signal name) as for
 * OPEN.  An ERROR before OPENED with the number CLAW_ERR_UNSUPPORTED means
 * the command did not start and the sh path should run it (no holder,
 * other settings, no agent there); stdin sent before OPENED is dropped,
 * so a client holds it until then.  Only to a daemon offering "agent".
 *
 * ERROR on channel 0 is about the connection: every channel is gone.
 */
#ifndef CLAW_MUX_PROTO_H
#define CLAW_MUX_PROTO_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct pty_req;

#define MUX_MAGIC	"CLAWMUX1\n"
/*
 * What this daemon understands beyond the frames every version has, as
 * space-separated words after the label in READY (older daemons send the
 * label alone): "journal" JTAKE/JACK, "jwatch" RTAKE with the jail (an
 * older daemon's "watch" ran the watcher outside it: not used), "pty"
 * OPEN_PTY and RESIZE, "agent" OPEN_AGENT and SIGNAL, "awatch" RTAKE
 * with the agent's path.  A command asks only what its daemon has (see
 * mux_has).
 */
#define MUX_CAPS	"journal jwatch pty agent awatch"
#define MUX_MAGIC_LEN	(sizeof MUX_MAGIC - 1)
#define MUX_HEADER	9		/* length, type, channel */
#define MUX_PAYLOAD_MAX	(256 * 1024)	/* one frame's payload */

enum mux_type {
	MUX_HELLO = 1,
	MUX_READY,
	MUX_ERROR,
	MUX_OPEN,
	MUX_OPENED,
	MUX_DATA,
	MUX_EOF,
	MUX_PGID,
	MUX_CLOSE,
	MUX_STDOUT,
	MUX_STDERR,
	MUX_EXIT,
	MUX_MARKER,
	MUX_JTAKE,
	MUX_JPATHS,
	MUX_JACK,
	MUX_RTAKE,
	MUX_RPATHS,
	MUX_OPEN_PTY,
	MUX_RESIZE,
	MUX_OPEN_AGENT,
	MUX_SIGNAL,
	MUX_TYPE_LAST
};

/* One frame; payload points into the buffer it was read from. */
struct mux_frame {
	enum mux_type	 type;
	uint32_t	 chan;
	const char	*payload;
	size_t		 len;
};

/* Append a frame to out (len <= MUX_PAYLOAD_MAX). */
void	mux_frame_put(struct buf *out, enum mux_type type, uint32_t chan,
	    const void *payload, size_t len);

/* Append a frame whose payload is a 4-byte signed number then text. */
void	mux_frame_put_num(struct buf *out, enum mux_type type, uint32_t chan,
	    int32_t num, const char *text);

/*
 * Take the first complete frame of p[0..n): 1 with *f and *used set, 0 if
 * more bytes are needed, CLAW_ERR_PROTO (with *cause) if the bytes cannot
 * be a frame (unknown type, length out of range).
 */
int	mux_frame_get(const char *p, size_t n, struct mux_frame *f,
	    size_t *used, char **cause);

/*
 * Split a payload made by mux_frame_put_num: 0 with *num set and *text an
 * allocated NUL-terminated copy (control characters replaced by '?'), or
 * CLAW_ERR_PROTO if it is shorter than the number.
 */
int	mux_frame_num(const struct mux_frame *f, int32_t *num, char **text);

/* Append an OPEN_PTY frame for command on chan. */
void	mux_frame_put_pty(struct buf *out, uint32_t chan,
	    const struct pty_req *pty, const char *command);

/*
 * Split an OPEN_PTY payload: 0 with *pty filled and *command allocated,
 * or CLAW_ERR_PROTO with *cause when any part is malformed or out of
 * range (a type pty_term_ok refuses, a size of 0 or over PTY_SIZE_MAX,
 * modes over PTY_MODES_MAX, an empty command or a NUL in it).
 */
int	mux_frame_get_pty(const struct mux_frame *f, struct pty_req *pty,
	    char **command, char **cause);

/* Append a RESIZE frame. */
void	mux_frame_put_size(struct buf *out, uint32_t chan, unsigned cols,
	    unsigned rows);

/* Split a RESIZE payload: 0, or CLAW_ERR_PROTO (bad length or size). */
int	mux_frame_get_size(const struct mux_frame *f, unsigned *cols,
	    unsigned *rows);

#endif /* CLAW_MUX_PROTO_H */
