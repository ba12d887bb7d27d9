/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Running one command on an authenticated transport, streaming stdin,
 * stdout and stderr, and reporting its exit the way a shell would.
 */
#ifndef CLAW_EXEC_H
#define CLAW_EXEC_H

#include <stddef.h>

struct buf;
struct claw_env;
struct exec_agent;
struct pty_req;
struct transport;

#define EXEC_STATUS_TIMEOUT	124	/* as timeout(1) */
#define EXEC_STATUS_FAILURE	255	/* connection-level failure, as ssh */
#define EXEC_TERM_KILL_MS	2000	/* a stopped command: TERM to KILL */
/* The warning after a --timeout, with its seconds (%d). */
#define EXEC_TIMEOUT_NOTE	"command timed out after %d s; remote " \
				"process stopped"

/* Where one output stream goes: a descriptor, or a capped buffer. */
struct exec_sink {
	int		 fd;		/* write here when >= 0 */
	struct buf	*buf;		/* else collect here... */
	size_t		 max;		/* ...up to this many bytes */
};

struct exec_opts {
	int			 argc;		/* >= 1 */
	char *const		*argv;
	const char		*pre;		/* sh run before cd, or NULL */
	const char		*cwd;		/* remote directory, or NULL */
	const char		*wrap;		/* runtime prefix (sh), or NULL */
	const struct claw_env	*env;		/* never in any argv */
	size_t			 nenv;
	int			 timeout;	/* seconds; 0 = none */
	const char		*in_data;	/* sent first on stdin */
	size_t			 in_len;
	int			 forward_stdin;	/* then in_fd, else EOF */
	int			*synced;	/* pre prints REMOTE_CMD_SYNCED
					   once it did its work: set to 1
					   if that line came (dropped) */
	int			 in_fd;
	int			 quick_stop;	/* a local signal ends the run
					   at once: closing the channel
					   ends the host's side (no kill,
					   no grace) */
	struct exec_sink	 out;
	struct exec_sink	 err;
	const struct pty_req	*pty;		/* ask for a pseudo-terminal
					   (the output is one stream, on
					   out), or NULL */
	int			 tty_fd;	/* with pty: the local terminal,
					   raw while the command runs, its
					   size sent on SIGWINCH; or -1 */
	const char		*size_file;	/* with pty and no tty_fd:
					   on SIGWINCH the size is read
					   from here ("COLS ROWS", the
					   daemon's exec.resize), or NULL */
	int			*overflowed;	/* set to 1 when a buffer sink
					   overflowed (the run then fails
					   with CLAW_ERR_PARSE), or NULL */
	int			 wrap_watches;	/* wrap ends the command when
					   its sshd goes: no watchdog */
	const struct exec_agent	*agent;		/* through the daemon's host
					   agent channel (no pre, wrap,
					   cwd, pty), or NULL;
					   exec_run then returns
					   CLAW_ERR_UNSUPPORTED when the
					   command did not start there */
};

/*
 * Run o->argv on t.  On return 0, *status is what clawssh should exit with:
 * the remote exit status, 128+N if the command died of signal N, 124 if
 * o->timeout passed (the remote process group is killed first), 128+N if
 * clawssh itself got SIGINT/SIGTERM/SIGHUP N (the remote process group is
 * killed first).  Returns a negative CLAW_ERR_* with *cause set when the
 * connection or channel failed (the caller exits 255), or CLAW_ERR_PARSE
 * when output to a buffer sink passed its cap (the command is stopped).
 */
int	exec_run(struct transport *t, const struct exec_opts *o, int *status,
	    char **cause);

/*
 * Run "sh -c script" on t with the rest of o as given (o->argc and o->argv
 * are set here).  As exec_run.
 */
int	exec_sh(struct transport *t, const char *script, struct exec_opts *o,
	    int *status, char **cause);

/*
 * Set o for a command whose stdin is in[0..inlen) and whose stdout and
 * stderr are captured into out and err, max bytes each (o zeroed
 * first).
 */
void	exec_opts_capture(struct exec_opts *o, const char *in, size_t inlen,
	    size_t max, struct buf *out, struct buf *err);

/*
 * Run the sh script on t with in[0..inlen) as its stdin, collecting
 * stdout in out and stderr in err (each at most max bytes, else
 * CLAW_ERR_PARSE).  *status as for exec_run.
 */
int	exec_script(struct transport *t, const char *script, const char *in,
	    size_t inlen, size_t max, struct buf *out, struct buf *err,
	    int *status, char **cause);

#endif /* CLAW_EXEC_H */
