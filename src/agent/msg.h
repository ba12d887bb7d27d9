/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The agent protocol's messages, built on the frame codec: what each
 * frame type carries, encoded and decoded in one place (docs/agent.md).
 * Decoders read hostile frames: unknown tags are skipped, a known tag
 * with a malformed value fails the whole message, strings are bounded,
 * counts are capped.  They return 0 or a negative FRAME_ERR_* code and
 * fill their output on success only.
 */
#ifndef CLAW_AGENT_MSG_H
#define CLAW_AGENT_MSG_H

#include <stdint.h>

#include "frame.h"

#define MSG_PROTO	1	/* the protocol number in HELLO */
#define MSG_CMD_MAX	256	/* a listed process's command line */
#define MSG_PROCS_MAX	4096	/* processes in one listing */

struct msg_hello {
	uint32_t	 proto;
	char		*spec;		/* "" if none */
	uint64_t	 started;	/* epoch seconds, 0 from a client */
	int		 caps;		/* MSG_CAP_* understood */
};
#define MSG_CAP_EXEC	0x1
#define MSG_CAP_PTY	0x2
#define MSG_CAP_STATUS	0x4
#define MSG_CAP_STOP	0x8
#define MSG_CAP_RELAY	0x10	/* serve: EXEC relayed, DATA, EOF */
#define MSG_CAP_SELF	0x20	/* FRAME_EXEC_SELF: the agent's own steps */

/* ERROR codes (TAG_CODE) of serve's answers to an EXEC. */
#define MSG_ERR_NOHOLDER 1	/* nobody answers on RUNDIR/box.sock */
#define MSG_ERR_SPEC	2	/* the holder runs other settings */
#define MSG_ERR_GONE	3	/* the holder ended while it ran */
#define MSG_ERR_REQUEST	4	/* a malformed or unexpected request */
#define MSG_ERR_BUSY	5	/* too many commands at once */
#define MSG_ERR_SYSTEM	6	/* the agent's own failure */

struct msg_exec {
	char		**argv;		/* NULL-terminated; empty: login */
	char		**env;		/* NULL-terminated */
	char		 *cwd;
	uint32_t	  flags;	/* FRAME_EXEC_* */
	uint16_t	  rows;
	uint16_t	  cols;
	uint32_t	  nfds;
};

struct msg_proc {
	uint32_t	pid;
	uint32_t	ppid;
	char		state[2];
	char		cmd[MSG_CMD_MAX + 1];
	uint64_t	rss_kb;
	uint64_t	cpu_ms;
	uint64_t	age_s;
	uint64_t	start_s;
};

/* HELLO: encode (spec NULL: none) and decode (free with _free). */
void	msg_hello_put(struct frame_wr *w, uint32_t id, const char *spec,
	    uint64_t started);
int	msg_hello_get(const struct frame *f, struct msg_hello *m);
void	msg_hello_free(struct msg_hello *m);

/* EXEC: encode and decode; msg_exec_free(NULL-filled) is safe. */
void	msg_exec_put(struct frame_wr *w, uint32_t id, const struct msg_exec *m);
int	msg_exec_get(const struct frame *f, struct msg_exec *m);
/* serve's EXEC: the same, with no fds attached (TAG_NFDS 0 or none). */
int	msg_exec_get_relayed(const struct frame *f, struct msg_exec *m);
/* serve's EXEC: m's fields (nfds unused) with the holder's RUNDIR and
 * spec token (NULL or "": none). */
void	msg_exec_relayed_put(struct frame_wr *w, uint32_t id,
	    const struct msg_exec *m, const char *dir, const char *spec);
void	msg_exec_free(struct msg_exec *m);

/* STARTED: the pid and the number of fds attached. */
int	msg_started_get(const struct frame *f, uint32_t *pid, uint32_t *nfds);
/* EXIT: one of code (0-255) or signal (1-64); the other is -1. */
int	msg_exit_get(const struct frame *f, int *code, int *signo);
/* SIGNAL: the signal number. */
int	msg_signal_get(const struct frame *f, int *signo);
/* ERROR: its message (allocated), "" if it has none. */
int	msg_error_get(const struct frame *f, char **message);
/* One TAG_PROC value of a PROCS frame. */
void	msg_proc_put(struct frame_wr *w, const struct msg_proc *p);
int	msg_proc_get(const struct frame_buf *val, struct msg_proc *p);

/* DATA: one stream's bytes (*p points into f). */
void	msg_data_put(struct frame_wr *w, uint32_t id, int stream,
	    const void *p, size_t n);
int	msg_data_get(const struct frame *f, int *stream, const uint8_t **p,
	    size_t *n);
/* EOF: the stream that ended (0-2). */
int	msg_eof_get(const struct frame *f, int *stream);
/* serve's EXEC: the holder's RUNDIR and spec token (allocated; spec "" if
 * none). */
int	msg_exec_target_get(const struct frame *f, char **dir, char **spec);
/* An ERROR frame with a MSG_ERR_* code; its code, 0 if it has none. */
void	msg_error_code(struct frame_wr *w, uint32_t id, int code,
	    const char *message);
int	msg_error_code_get(const struct frame *f, uint32_t *code);

/* Frames with one field or none. */
void	msg_simple(struct frame_wr *w, int type, uint32_t id);
void	msg_u32(struct frame_wr *w, int type, uint32_t id, int tag,
	    uint32_t v);
void	msg_error(struct frame_wr *w, uint32_t id, const char *message);

#endif /* CLAW_AGENT_MSG_H */
