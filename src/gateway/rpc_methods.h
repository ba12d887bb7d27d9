/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The JSON-RPC methods of 'clawssh serve': each method and its params
 * become one worker call (the clawssh CLI run as "/proc/self/exe ARGV"),
 * and the worker's exit status and output become the result.  Params are
 * validated strictly; no param can become an option of the worker.
 * Pure code, no I/O; see docs/protocol.md.
 */
#ifndef CLAW_RPC_METHODS_H
#define CLAW_RPC_METHODS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "ops.h"

enum rpc_result_kind { RPC_RESULT_JSON, RPC_RESULT_TEXT, RPC_RESULT_EXEC };

/* Limits on what a call may put into the worker's argv. */
#define RPC_ARG_MAX	OPS_ARG_MAX	/* one argument, under MAX_ARG_STRLEN */
#define RPC_ARGV_MAX	(1024 * 1024)	/* all of them, env names included */
#define RPC_ARGC_MAX	4096
#define RPC_ENV_MAX	OPS_ENV_MAX	/* --env entries */
#define RPC_PATH_MAX	OPS_PATH_MAX
#define RPC_TIMEOUT_MAX	OPS_TIMEOUT_MAX	/* exec timeout, seconds */

/*
 * An exec the daemon may run itself on the sandbox's host agent channel
 * (daemon_route.c): a sandbox, no terminal, no strict_config.  The
 * command is argv[argi..argc).
 */
struct rpc_exec {
	int		  simple;	/* all of the above holds */
	int		  argi;
	char		 *cwd;		/* params.cwd, or NULL */
	int		  timeout;	/* params.timeout, 0: the config's */
	int		  no_sync;	/* params.no_sync */
};

/*
 * A file tool the daemon may answer itself (daemon_fs.c): fs.read,
 * fs.stat, fs.ls, or fs.write, fs.edit or fs.applyPatch without push,
 * its path checked as the CLI checks it (fs.applyPatch has none);
 * fs.write's content and fs.applyPatch's patch are the call's
 * in[0..inlen).
 */
struct rpc_fs {
	int		  simple;	/* one of those, params as above */
	char		 *path;		/* fstore_path's form: "" is the top */
	uint64_t	  offset;	/* fs.read */
	uint64_t	  limit;	/* 0: to the end */
	int		  lines;	/* offset and limit count lines */
	char		 *old;		/* fs.edit */
	char		 *new;
	int		  all;
	int		  timeout;	/* params.timeout; -1: not given */
};

/*
 * A process call the daemon may make itself (daemon_proc.c):
 * process.start, list, poll, log, wait, kill or write, its params
 * checked; write's data is the call's in[0..inlen);
 * start's command is argv[argi..argc), its env the call's.
 */
struct rpc_proc {
	int		  simple;	/* one of those, params as above */
	int		  op;		/* enum process_op */
	char		 *handle;	/* all but list and start */
	int		  tail;		/* log: last lines, 0: all */
	int		  timeout;	/* wait: seconds, -1: none */
	char		 *sig;		/* kill: NULL: TERM, then KILL */
	int		  eof;		/* write */
	int		  argi;		/* start */
	char		 *name;		/* start: NULL: none */
	int		  pty;		/* start: on a terminal */
	int		  log_max;	/* start: 0: the default */
};

struct rpc_call {
	char		**argv;		/* worker argv, argv[0] = subcommand
					   ("exec", "read", ...), NULL-ended */
	int		  argc;
	char		 *in;		/* worker stdin (file content, patch,
					   process input) or NULL */
	size_t		  inlen;
	int		  stream;	/* 1: stream output as exec.output */
	enum rpc_result_kind result;
	const char	 *result_key;	/* member the text or JSON goes in;
					   NULL: the worker's JSON as is */
	int		  idempotent;	/* may be retried once after the
					   connection was re-established */
	char		 *sandbox;	/* sandbox id or NULL (policy, audit) */
	char		 *host;		/* target host or NULL */
	const char	 *tool;		/* policy/audit name: the method */
	int		  elevated;	/* exec on a host outside any sandbox */
	/*
	 * Environment for the command: argv holds "--env=NAME" only; the
	 * daemon puts NAME=VALUE into the worker's environment, so values
	 * (secrets) never reach any argv.
	 */
	char		**env_names;
	char		**env_values;
	size_t		  nenv;
	/*
	 * The connection options (config, ssh_config, state_dir...):
	 * argv[conn_first..conn_first + conn_n), part of a route's key.
	 */
	int		  conn_first;
	int		  conn_n;
	struct rpc_exec	  exec;		/* exec only */
	struct rpc_fs	  fs;		/* fs.read, fs.stat, fs.ls only */
	struct rpc_proc	  proc;		/* process.* */
	int		  stop;		/* sandbox.stop: the daemon may
					   make it (daemon_proc.c) */
};

/*
 * JSON-RPC method + params -> worker call.  0 and *out filled, or
 * JSONRPC_METHOD_NOT_FOUND / JSONRPC_INVALID_PARAMS with *msg (allocated)
 * naming the parameter and what was expected ("params.timeout: expected
 * an integer from 0 to 31536000").  *out is untouched on failure.
 */
int	rpc_call_build(const char *method, const cJSON *params,
	    struct rpc_call *out, char **msg);

/*
 * The worker finished: exit status (as the CLI's), its stdout/stderr
 * (stdout is empty for streamed calls) and duration.  Returns the
 * JSON-RPC result object, or NULL with *code and *msg (allocated) set:
 * the CLI's last "clawssh: ..." stderr line becomes the message.  Exit 255
 * means clawssh failed; for exec a non-zero exit of the command is a
 * result, not an error: {"exit_status": N, "duration_ms": D}.
 */
cJSON	*rpc_call_result(const struct rpc_call *, int exit_status,
	    const char *out, size_t outlen, const char *err, size_t errlen,
	    int64_t duration_ms, int *code, char **msg);

/* Free what a call holds and zero it; a zeroed call is fine. */
void	rpc_call_clear(struct rpc_call *);

/*
 * The message of a failed worker: the text of the last "clawssh: " line
 * of err, else its last non-empty line, else NULL (allocated, UTF-8).
 */
char	*rpc_stderr_message(const char *err, size_t errlen);

/* 1 if name may be passed with --env (see docs/protocol.md). */
int	rpc_env_name_ok(const char *name);

#endif /* CLAW_RPC_METHODS_H */
