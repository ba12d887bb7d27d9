/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Background processes in a sandbox: started detached on the host (own
 * session, all descriptors redirected) under a small sh supervisor that
 * keeps a bounded output log, a stdin FIFO and the exit status in
 * <sandbox>/procs/<handle>/.  Every call is one remote command over one
 * exec channel (the host agent's proc-*, or a sh script), so a process
 * outlives the clawssh that started it and the connection, and any
 * later clawssh can poll it.  See docs/process.md.
 *
 * Everything the host sends back is parsed as hostile input, with caps.
 * All functions return 0 or a negative CLAW_ERR_* with *cause set
 * (allocated); out-parameters are set on success only.  None is
 * thread-safe with respect to the transport (one thread per session).
 */
#ifndef CLAW_PROCESS_H
#define CLAW_PROCESS_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct claw_env;
struct transport;

#define PROCESS_HANDLE_LEN	9	/* "p" + 8 lowercase hex */
#define PROCESS_NAME_MAX	64	/* [A-Za-z0-9._-] */
#define PROCESS_CMD_MAX		4096	/* display form, truncated */
#define PROCESS_LOG_DEFAULT	(8 * 1024 * 1024)
#define PROCESS_LOG_MIN		4096
#define PROCESS_LOG_LIMIT	(256 * 1024 * 1024)
#define PROCESS_GRACE_DS	50	/* TERM to KILL, 0.1 s units */
/* Caps on what the host says: stderr and short replies, a state line. */
#define PROCESS_ERR_MAX		(64 * 1024)
#define PROCESS_LINE_MAX	(PROCESS_CMD_MAX + 256)
#define PROCESS_NUM_MAX		((uint64_t)1 << 53)	/* any number */

enum process_run {
	PROCESS_RUNNING = 0,
	PROCESS_EXITED,		/* exit_status set (128+N: signal N) */
	PROCESS_KILLED,		/* "process kill" was used; exit_status set */
	PROCESS_LOST		/* no status and no supervisor (a reboot) */
};

struct process_state {
	char		 handle[PROCESS_HANDLE_LEN + 1];
	char		 name[PROCESS_NAME_MAX + 1];	/* "" if none */
	enum process_run run;
	int		 exit_status;	/* 0..255, -1 if not exited */
	int64_t		 started;	/* host clock, epoch seconds */
	uint64_t	 dropped;	/* poll/log: bytes lost first */
	char		*command;	/* display form, printable */
};

/* Return 1 if h is a well-formed handle ("p" + 8 lowercase hex). */
int	process_handle_ok(const char *h);

/* Return 1 if name is a valid process name. */
int	process_name_ok(const char *name);

/* The word for st->run: "running", "exited", "killed" or "lost". */
const char	*process_run_name(enum process_run run);

/* The directory of a sandbox's processes' state (allocated). */
char	*process_dir(const char *sandbox_dir);

/*
 * The display form of argv[0..argc) (allocated): the words, each
 * shell-quoted unless plain, control bytes as '?', capped at
 * PROCESS_CMD_MAX bytes.
 */
char	*process_display(int argc, char *const argv[]);

/*
 * Where a sandbox's processes live: the host (t, or in the daemon only
 * its label), the sandbox's directory there (<remote_root>/<id>) and the
 * host agent's path (NULL: the sh scripts of process_scripts.h; else
 * its proc-* commands, which answer the same; where it has gone from
 * the host, the scripts after all).
 */
struct process_at {
	struct transport	*t;
	const char		*label;		/* NULL: transport_label(t) */
	const char		*sd;
	const char		*agent;
	int			*agent_lost;	/* may be NULL: set to 1 when
						   the agent was not there */
};

/*
 * Whether a step's exit status says the host could not run the agent
 * at all (126, 127: the file gone, or not executable any more): the sh
 * script answers instead (process_step_run does so), and the caller
 * forgets what it knew of the host's agent.
 */
int	process_agent_missing(const struct process_at *at, int status);
/* Say so (-v), set *at->agent_lost, and clear at->agent: the scripts. */
void	process_agent_drop(struct process_at *at);

/*
 * One call to the host for a started process, as the CLI makes it over
 * t and the daemon on a channel of its own: process_step_argv says what
 * to run (and stdin: a write's data), process_step_reply judges what
 * came back.
 */
enum process_op {
	PROCESS_OP_LIST = 0,
	PROCESS_OP_POLL,
	PROCESS_OP_LOG,
	PROCESS_OP_WAIT,
	PROCESS_OP_KILL,
	PROCESS_OP_WRITE,
	PROCESS_OP_START
};

/*
 * A start: argv[0..argc) run in the background in the sandbox's
 * workspace.  shown (NULL: argv's own) is the display form list, poll
 * and log report: the user's words when argv is a wrapper around them
 * (see process_display).  name may be NULL; log_max is the log cap in
 * bytes.  process_start_init checks them (0 for log_max:
 * PROCESS_LOG_DEFAULT; else PROCESS_LOG_MIN..PROCESS_LOG_LIMIT) and
 * makes a new handle: 0, or CLAW_ERR_INVAL with *cause.
 */
struct process_start {
	char		 handle[PROCESS_HANDLE_LEN + 1];
	size_t		 log_max;
	const char	*name;
	int		 argc;
	char *const	*argv;
	char		 shown[PROCESS_CMD_MAX + 1];	/* its display form */
};
int	process_start_init(struct process_start *ps, int argc,
	    char *const argv[], const char *shown, const char *name,
	    size_t log_max, char **cause);

struct process_step {
	enum process_op	 op;
	const char	*handle;	/* all but LIST */
	int		 tail;		/* LOG: last lines, 0: all */
	int		 ds;		/* WAIT: tenths of a second */
	const char	*sig;		/* KILL: NULL: TERM, then KILL */
	int		 eof;		/* WRITE: close stdin after */
	const struct process_start *start; /* START (handle: its) */
};

/* What a step's reply said. */
struct process_reply {
	struct process_state	 st;		/* POLL, LOG, WAIT */
	struct buf		*output;	/* POLL, LOG: appended to */
	struct process_state	*list;		/* LIST (process_list_free) */
	size_t			 n;
	int			 was_running;	/* KILL */
};

/*
 * The host command of s (argv, NULL-ended, allocated, free with
 * strv_free) and the cap on its stdout: 0, or CLAW_ERR_INVAL
 * with *cause for a bad handle or signal.
 */
int	process_step_argv(const struct process_at *at,
	    const struct process_step *s, char ***argv, size_t *max,
	    char **cause);

/*
 * Judge the reply of s's command (its exit status, stdout and stderr)
 * into *r (r->output set by the caller for POLL and LOG): 0, or
 * CLAW_ERR_PROTO (the host refused: its message) / CLAW_ERR_PARSE with
 * *cause.
 */
int	process_step_reply(const struct process_at *at,
	    const struct process_step *s, int status, const struct buf *out,
	    const struct buf *err, struct process_reply *r, char **cause);

/*
 * Start ps's command on at->t with workspace as its directory: pre (may
 * be NULL) is trusted sh run first (the backend's exec_pre); env[0..nenv)
 * is exported for the process, sent on the channel's stdin, never in an
 * argv or on the host's disk.  Returns 0 once the process is running
 * (it may already have exited): ps->handle names it.
 */
int	process_start(const struct process_at *at, const char *workspace,
	    const char *pre, const struct process_start *ps,
	    const struct claw_env *env, size_t nenv, char **cause);

/*
 * Wait up to timeout_ms (-1: without limit) for the process to end, then
 * fill *st as process_poll does (run still PROCESS_RUNNING if the time
 * ran out), without reading its output.  Each remote call waits at most
 * PROCESS_WAIT_SLICE_DS tenths of a second.
 */
#define PROCESS_WAIT_SLICE_DS	300
int	process_wait(const struct process_at *at, const char *handle,
	    int64_t timeout_ms, struct process_state *st, char **cause);

/*
 * Fill *st with the process's state and append to output what it wrote
 * since the last poll (by anyone), preceded by the line
 * "[clawssh: N bytes of earlier output dropped]" when the log cap dropped
 * some of it.  An exited process's output is complete.  Free st's
 * contents with process_state_clear.
 */
int	process_poll(const struct process_at *at, const char *handle,
	    struct process_state *st, struct buf *output, char **cause);

/*
 * As process_poll, but append the whole kept log (tail_lines > 0: its
 * last tail_lines lines) and leave the poll position alone.  The dropped
 * line comes first when the output shown starts where dropped output
 * ended.
 */
int	process_log(const struct process_at *at, const char *handle,
	    int tail_lines, struct process_state *st, struct buf *output,
	    char **cause);

/*
 * List the sandbox's processes: *list (n entries, sorted by start time
 * then handle) is allocated; free with process_list_free.
 */
int	process_list(const struct process_at *at, struct process_state **list,
	    size_t *n, char **cause);

/* Free a list from process_list; NULL-safe. */
void	process_list_free(struct process_state *list, size_t n);

/*
 * Deliver data[0..len) and then, if in_fd >= 0, everything read from
 * in_fd up to its EOF to the process's stdin; with eof set, close its
 * stdin afterwards (it reads EOF once every writer is done).  Fails if
 * the process has exited.  A process that does not read its stdin makes
 * this wait once the pipe is full.
 */
int	process_write(const struct process_at *at, const char *handle,
	    const char *data, size_t len, int in_fd, int eof, char **cause);

/*
 * Signal the process's group and session.  sig NULL: TERM, then KILL
 * after PROCESS_GRACE_DS tenths of a second for whatever is left; else
 * only the named signal ("TERM", "SIGUSR1", ..., or a number from 1 to
 * 64; CLAW_ERR_INVAL if unknown).  Sets *was_running (may be NULL) to 0 if it had already
 * exited.
 */
int	process_kill(const struct process_at *at, const char *handle,
	    const char *sig, int *was_running, char **cause);

/* Free what st owns and reset it; NULL-safe. */
void	process_state_clear(struct process_state *st);

/*
 * Parse one state line "clawssh-proc HANDLE NAME STATE RC START CMD"
 * from the host (len bytes, no newline) into *st.  Returns 0, or
 * CLAW_ERR_PARSE for anything malformed.  Exposed for tests.
 */
int	process_parse_state(const char *line, size_t len,
	    struct process_state *st);

/*
 * Append p[0..len) to out as valid UTF-8 without NULs (each bad byte
 * becomes U+FFFD), for JSON output.
 */
void	process_utf8_clean(struct buf *out, const char *p, size_t len);

#endif /* CLAW_PROCESS_H */
