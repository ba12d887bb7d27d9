/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The remote side of an exec, as text: the command line handed to the
 * remote user's shell, the preamble sent on its stdin, and the script that
 * stops it.
 *
 * The command line prints a marker with the shell's pid on stdout (sshd
 * makes that shell a session and process-group leader, so the pid names
 * the whole group), reads the preamble from stdin up to a random nonce line
 * and evaluates it (so environment values never appear in any argv),
 * starts a watchdog that stops the command's process group when the sshd
 * that runs it goes away (the caller's connection is gone), then changes
 * directory and execs the quoted argv.  An argv too long for the line
 * (REMOTE_CMD_LINE_MAX) comes in the preamble, as a function the line
 * calls.
 */
#ifndef CLAW_REMOTE_CMD_H
#define CLAW_REMOTE_CMD_H

#include <stddef.h>

/* An environment variable given to a command (config exec.env, --env). */
struct claw_env {
	char	*name;
	char	*value;
};

#define REMOTE_CMD_NONCE_LEN	32	/* hex characters */
#define REMOTE_CMD_MARKER	"\001clawssh-pid "
/*
 * A process's identity, "BOOT_ID START" (/proc/PID/stat's start time in
 * ticks since that boot), with its NUL: what the wrapper's marker adds
 * after the pid on Linux, so that a kill much later (the next session
 * after one died, the host rebooted meanwhile) can tell the process from
 * another that has its number by now.
 */
#define REMOTE_IDENT_MAX	64
#define REMOTE_CMD_WATCH_DS	2	/* watchdog check, tenths of a second */
#define REMOTE_CMD_WATCH_GRACE_DS 20	/* TERM to KILL, tenths of a second */
#define REMOTE_CMD_SYNCED	"\001clawssh-synced\n"	/* see exec_opts */
/*
 * The longest command line put in the exec request itself: libssh2 sends
 * at most LIBSSH2_PACKET_MAXPAYLOAD (40000) bytes a packet, and a longer
 * request fails as "Unable to send channel request".  Longer commands
 * carry their words in the preamble, on stdin.
 */
#define REMOTE_CMD_LINE_MAX	32768

struct remote_cmd {
	char	*command;		/* for the exec request */
	char	*preamble;		/* for stdin, before the user's data */
	size_t	 preamble_len;
	char	 nonce[REMOTE_CMD_NONCE_LEN + 1];
};

/*
 * Build the command for argv[0..argc) (argc >= 1) run in cwd (NULL: the
 * login directory) with env[0..nenv) set.  pre, when not NULL, is sh code
 * run first (after the environment is set, before cd); it is trusted text
 * built by clawssh, never user input.  Environment names must be
 * [A-Za-z_][A-Za-z0-9_]*.  Returns 0, or CLAW_ERR_INVAL with *cause set.
 * Free with remote_cmd_clear.
 */
int	remote_cmd_build(struct remote_cmd *rc, int argc, char *const argv[],
	    const char *pre, const char *cwd, const struct claw_env *env,
	    size_t nenv, char **cause);

/*
 * The command's stdin is a pseudo-terminal asked for with pty.h's modes:
 * once the preamble is read, "stty PTY_STTY_ON" gives it echo, line
 * editing and signal keys.
 */
#define REMOTE_CMD_PTY	0x1

/*
 * The wrapper watches the connection itself (the host agent's box-exec
 * ends the command when its sshd goes): no watchdog process.
 */
#define REMOTE_CMD_NO_WATCHDOG	0x2

/*
 * As remote_cmd_build, with wrap (trusted sh text, or NULL) run after pre:
 * it sets the positional parameters to a command prefix (a runtime such
 * as bwrap, which takes care of the working directory), and the command
 * line ends in 'exec "$@" ARGV'.  cwd is ignored when wrap is given.
 * flags: REMOTE_CMD_PTY, REMOTE_CMD_NO_WATCHDOG, or 0.
 */
int	remote_cmd_build_wrapped(struct remote_cmd *rc, int argc,
	    char *const argv[], const char *pre, const char *wrap,
	    const char *cwd, const struct claw_env *env, size_t nenv,
	    int flags, char **cause);

/* Wipe the preamble (it holds environment values) and free everything. */
void	remote_cmd_clear(struct remote_cmd *rc);

/*
 * Look at one complete stdout line (with its newline) for the pid marker.
 * Returns 1 and sets *pid if line is exactly the marker for this nonce with
 * a plausible pid (2 .. 4194304), 0 otherwise; ident (REMOTE_IDENT_MAX
 * bytes) gets the identity after it, or "" (none, or not well formed).
 * Remote output is hostile: anything else is not the marker.  The line
 * may end in "\r\n" (a pseudo-terminal's output).
 */
int	remote_cmd_parse_pid(const struct remote_cmd *rc, const char *line,
	    size_t len, long *pid, char *ident);

/*
 * "PID[ BOOT_ID START]" of p[0..len) (the marker's tail, a client's
 * MUX_PGID): 0 with *pid and ident ("" without one, or a malformed
 * one), or -1 when the pid is not plausible.
 */
int	remote_cmd_parse_ident(const char *p, size_t len, long *pid,
	    char *ident);

/*
 * Return the script (allocated) that sends SIGTERM to the process group
 * and session of pid, waits up to grace_ds tenths of a second for them to
 * go, then sends SIGKILL.  With ident (not NULL or ""), a live process
 * pid whose identity differs is another's by now: the script then
 * signals nothing.  A pid no longer alive is signalled still: its group
 * and session, while anything holds them, cannot be another's.
 */
char	*remote_cmd_kill_script(long pid, const char *ident, int grace_ds);

/*
 * The prefix of the host-side scripts' own variables: no environment
 * variable given to a command may start with it (the preamble could
 * otherwise preset one, e.g. the host user's id the runtime wrapper
 * decides the user switch on).
 */
#define REMOTE_CMD_RESERVED	"__claw"

/*
 * Return 1 if name is a valid environment variable name
 * ([A-Za-z_][A-Za-z0-9_]*) and does not start with REMOTE_CMD_RESERVED.
 */
int	remote_cmd_env_name_ok(const char *name);

#endif /* CLAW_REMOTE_CMD_H */
