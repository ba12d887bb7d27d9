/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh-agent serve: the host agent's channel (issue 18, docs/agent.md
 * "serve").  One process per SSH channel speaks frames on stdin and
 * stdout and runs any number of commands at once in the sandboxes'
 * persistent environments: each EXEC names a holder's RUNDIR; serve
 * joins that holder as box-exec would, but with pipes of its own as the
 * command's stdin, stdout and stderr, relayed as DATA and EOF frames
 * tagged with the request's id.  It starts no holder: an EXEC for a
 * sandbox whose holder is not running is refused (MSG_ERR_NOHOLDER), and
 * the client runs its sh path, which starts one.
 */
#ifndef CLAW_AGENT_SERVE_H
#define CLAW_AGENT_SERVE_H

#include <stddef.h>
#include <stdint.h>

#include "box_client.h"
#include "frame.h"
#include "msg.h"

#define SERVE_EXECS_MAX	256		/* commands at once */
#define SERVE_CHUNK	(32 * 1024)	/* bytes read from a stream at once */
#define SERVE_OUT_HIGH	(1024 * 1024)	/* queued for the client: stop
					   reading the commands' output */
#define SERVE_IN_HIGH	(1024 * 1024)	/* a command's unwritten stdin:
					   stop reading the client */

enum serve_state {
	SERVE_HELLO,		/* waiting for the holder's HELLO */
	SERVE_RUN,		/* EXEC sent to the holder */
	SERVE_DONE		/* EXIT (or an error) sent to the client */
};

/* One relayed command. */
struct serve_exec {
	uint32_t		 id;		/* the client's request id */
	enum serve_state	 state;
	struct box_client	 hc;		/* the holder's connection */
	struct msg_exec		 m;		/* what to run */
	char			*spec;		/* "" or the settings wanted */
	int			 fd[3];		/* ours: stdin to write,
						   stdout, stderr to read;
						   -1 once closed */
	uint8_t			*in;		/* stdin not yet written: */
	size_t			 inoff;		/* from in + inoff, */
	size_t			 inlen;		/* inlen bytes; */
	size_t			 incap;		/* in's size */
	int			 in_eof;	/* close stdin once written */
	int			 started;	/* STARTED relayed: output may
						   follow it (never before) */
	int			 exited;	/* EXIT came: code or signo */
	int			 code;
	int			 signo;
};

/* The client's side and every command. */
struct serve {
	uint8_t			*rbuf;		/* frames from the client */
	size_t			 rlen;
	size_t			 rcap;
	int			 client_eof;
	struct frame_wr		 out;		/* frames to the client */
	size_t			 sent;		/* of out, written */
	int			 out_err;	/* the client cannot be written */
	int			 hello;		/* the client's HELLO came */
	struct serve_exec	*ex[SERVE_EXECS_MAX];
};

int	serve_main(int argc, char **argv);

/* serve_exec.c: one command's life (serve.c drives the loop). */
void	serve_exec_start(struct serve *s, const struct frame *f);
void	serve_exec_holder(struct serve *s, struct serve_exec *e);
void	serve_exec_read(struct serve *s, struct serve_exec *e, int stream);
void	serve_exec_write(struct serve *s, struct serve_exec *e);
void	serve_exec_input(struct serve *s, const struct frame *f);
void	serve_exec_signal(struct serve *s, const struct frame *f);
void	serve_exec_free(struct serve *s, struct serve_exec *e);
struct serve_exec *serve_exec_find(struct serve *s, uint32_t id);
/* Queue a frame for the client: an ERROR with a MSG_ERR_* code. */
void	serve_error(struct serve *s, uint32_t id, int code, const char *fmt,
	    ...) __attribute__((format(printf, 4, 5)));

#endif /* CLAW_AGENT_SERVE_H */
