/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agent protocol's frames (docs/agent.md):
 *
 *	u32 length	bytes after this field, FRAME_HEAD..FRAME_MAX
 *	u8  version	FRAME_VERSION
 *	u8  type	enum frame_type
 *	u32 id		request id; replies carry their request's
 *	fields		{ u16 tag, u32 length, bytes } until the end
 *
 * All integers are big-endian.  A field's bytes may hold fields
 * themselves (a nested record, such as one process of a listing).
 * Everything read comes from a peer and is hostile: one bounded reader
 * (struct frame_buf) does every read, and never reads outside the
 * buffer it is given.  No I/O here; this file has no dependency but libc.
 */
#ifndef CLAW_AGENT_FRAME_H
#define CLAW_AGENT_FRAME_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_VERSION	1
#define FRAME_MAX	(1024 * 1024)	/* bytes after the length */
#define FRAME_HEAD	6		/* version, type, id */
#define FRAME_FIELD	6		/* a field's tag and length */

enum frame_type {
	FRAME_HELLO = 1,	/* both ways, first on a connection */
	FRAME_EXEC,		/* run a command */
	FRAME_STARTED,		/* it runs: its pid (and pty master) */
	FRAME_EXIT,		/* it ended: code or signal */
	FRAME_SIGNAL,		/* signal a command's process group */
	FRAME_STATUS,		/* list the sandbox's processes */
	FRAME_PROCS,		/* the listing */
	FRAME_STOP,		/* end the sandbox */
	FRAME_OK,
	FRAME_ERROR,		/* a request failed: TAG_MESSAGE */
	FRAME_DATA,		/* serve: a command's stream bytes */
	FRAME_EOF		/* serve: the end of a command's stream */
};
#define FRAME_TYPE_LAST	FRAME_EOF

enum frame_tag {
	TAG_PROTO = 1,		/* u32 protocol number */
	TAG_CAP,		/* string, repeated: a capability */
	TAG_SPEC,		/* string: the holder's spec token */
	TAG_STARTED,		/* u64: the holder's start, epoch seconds */
	TAG_ARG,		/* string, repeated: argv */
	TAG_ENV,		/* string, repeated: NAME=VALUE */
	TAG_CWD,		/* string */
	TAG_FLAGS,		/* u32: FRAME_EXEC_* */
	TAG_WINSIZE,		/* u32: rows << 16 | columns */
	TAG_NFDS,		/* u32: fds attached to this frame */
	TAG_PID,		/* u32 */
	TAG_CODE,		/* u32: exit code */
	TAG_SIGNO,		/* u32: signal number */
	TAG_MESSAGE,		/* string */
	TAG_PROC,		/* nested: one process */
	TAG_PPID,		/* u32 */
	TAG_STATE,		/* string: one letter */
	TAG_CMD,		/* string: command line, spaces for NULs */
	TAG_RSS_KB,		/* u64 */
	TAG_CPU_MS,		/* u64 */
	TAG_AGE_S,		/* u64: seconds since the process started */
	TAG_START_S,		/* u64: its start, seconds after the holder's */
	TAG_DIR,		/* string: serve's EXEC: the holder's RUNDIR */
	TAG_STREAM,		/* u32: 0 stdin, 1 stdout, 2 stderr */
	TAG_BYTES		/* bytes: DATA's payload */
};

#define FRAME_EXEC_PTY		0x1
#define FRAME_EXEC_LOGIN	0x2
#define FRAME_EXEC_BASEENV	0x4	/* serve: add its own PATH, LANG... */
#define FRAME_EXEC_SELF		0x8	/* argv is the agent's own command
					   (clawssh-agent fs-read ...): run
					   /proc/self/exe, not a PATH search */

/* Errors: 0 is success, these are negative. */
#define FRAME_ERR_LENGTH	-1	/* length out of range */
#define FRAME_ERR_VERSION	-2	/* unknown frame version */
#define FRAME_ERR_TYPE		-3	/* unknown frame type */
#define FRAME_ERR_FIELD		-4	/* a field overruns its frame */
#define FRAME_ERR_VALUE		-5	/* a value of the wrong size or form */
#define FRAME_ERR_SHORT		-6	/* read past the end of a buffer */

/* A bounded reader over p[0..len): off is how far it has read. */
struct frame_buf {
	const uint8_t	*p;
	size_t		 len;
	size_t		 off;
};

/* One frame found at the start of a buffer; body points into it. */
struct frame {
	uint8_t		 version;
	uint8_t		 type;
	uint32_t	 id;
	struct frame_buf body;		/* the fields */
	size_t		 used;		/* bytes of the buffer it took */
};

/* Growable output for frames; err sticks once set. */
struct frame_wr {
	uint8_t		*data;
	size_t		 len;
	size_t		 cap;
	size_t		 start;		/* where the open frame begins */
	int		 err;
};
#define FRAME_WR_INIT	{ NULL, 0, 0, 0, 0 }

/*
 * Look for a frame at the start of p[0..len).  1: found, *f filled
 * (its fields walked: none overruns the frame); 0: not all there yet;
 * negative FRAME_ERR_*: the stream cannot be followed.
 */
int	frame_parse(const void *p, size_t len, struct frame *f);
/* A string naming a FRAME_ERR_* code. */
const char *frame_strerror(int err);

/* Start reading p[0..len). */
void	frame_buf_init(struct frame_buf *b, const void *p, size_t len);
/* Getters: 0 and the value, or FRAME_ERR_SHORT and b unchanged. */
int	frame_get_u8(struct frame_buf *b, uint8_t *v);
int	frame_get_u16(struct frame_buf *b, uint16_t *v);
int	frame_get_u32(struct frame_buf *b, uint32_t *v);
int	frame_get_u64(struct frame_buf *b, uint64_t *v);
int	frame_get_bytes(struct frame_buf *b, size_t n, const uint8_t **v);
/*
 * The next field of b: 1 and its tag and value (a reader of its own
 * bytes), 0 at the end of b, FRAME_ERR_FIELD if it overruns b.
 */
int	frame_next_field(struct frame_buf *b, uint16_t *tag,
	    struct frame_buf *val);
/* A whole value as a u32 / u64: FRAME_ERR_VALUE unless the exact size. */
int	frame_val_u32(const struct frame_buf *val, uint32_t *v);
int	frame_val_u64(const struct frame_buf *val, uint64_t *v);
/*
 * A whole value as a string of at most max bytes without NUL:
 * FRAME_ERR_VALUE otherwise.  *s is allocated (free it).
 */
int	frame_val_str(const struct frame_buf *val, size_t max, char **s);

/* Writer.  Frames are appended; frame_end closes the open one. */
void	frame_begin(struct frame_wr *w, int type, uint32_t id);
void	frame_put_u32(struct frame_wr *w, int tag, uint32_t v);
void	frame_put_u64(struct frame_wr *w, int tag, uint64_t v);
void	frame_put_bytes(struct frame_wr *w, int tag, const void *p,
	    size_t n);
void	frame_put_str(struct frame_wr *w, int tag, const char *s);
/* A nested field: begin returns its offset, end fills its length. */
size_t	frame_nest_begin(struct frame_wr *w, int tag);
void	frame_nest_end(struct frame_wr *w, size_t at);
/* Close the open frame: 0, or FRAME_ERR_LENGTH if it grew too big. */
int	frame_end(struct frame_wr *w);
/* Forget everything written; keep the memory. */
void	frame_wr_reset(struct frame_wr *w);
/* Free the writer's memory. */
void	frame_wr_free(struct frame_wr *w);

#endif /* CLAW_AGENT_FRAME_H */
