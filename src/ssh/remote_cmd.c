/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Remote command lines: the exec wrapper, its stdin preamble, the pid
 * marker, and the kill script.  Every word that came from the user goes
 * through shquote.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"
#include "buf.h"
#include "error.h"
#include "num.h"
#include "pty.h"
#include "remote_cmd.h"
#include "shquote.h"
#include "xmalloc.h"

#define REMOTE_PID_MAX	4194304L	/* Linux pid_max upper bound */
#define REMOTE_RUN_FN	"__claw_run"	/* a long argv's function */

/* Return 1 if name is a valid environment variable name. */
int
remote_cmd_env_name_ok(const char *name)
{
	const char	*p;

	if (name[0] == '\0' || (name[0] >= '0' && name[0] <= '9') ||
	    strncmp(name, REMOTE_CMD_RESERVED, sizeof REMOTE_CMD_RESERVED - 1)
	    == 0)
		return 0;
	for (p = name; *p != '\0'; p++) {
		if (!(*p == '_' || (*p >= 'a' && *p <= 'z') ||
		    (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
			return 0;
	}
	return 1;
}

/*
 * Fill nonce with random hex characters.  arc4random (the kernel's
 * getrandom underneath) rather than OpenSSL's RAND_bytes: a warm exec
 * through the daemon never needs libcrypto, and initialising its random
 * generator costs milliseconds per command.
 */
static void
remote_cmd_nonce(char *nonce)
{
	unsigned char	raw[REMOTE_CMD_NONCE_LEN / 2];
	size_t		i;

	arc4random_buf(raw, sizeof raw);
	for (i = 0; i < sizeof raw; i++)
		snprintf(nonce + 2 * i, 3, "%02x", raw[i]);
}

/*
 * Write the stdin preamble: one export per variable, the function that
 * runs a long argv (run: its definition, or NULL), then the nonce.
 */
static int
remote_cmd_preamble(struct remote_cmd *rc, const struct claw_env *env,
    size_t nenv, const struct buf *run, char **cause)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 0; i < nenv; i++) {
		if (!remote_cmd_env_name_ok(env[i].name)) {
			*cause = xasprintf("invalid environment variable "
			    "name '%s'", env[i].name);
			buf_free_secret(&b);
			return CLAW_ERR_INVAL;
		}
		buf_appendf(&b, "export %s=", env[i].name);
		shquote_append(&b, env[i].value);
		buf_append_str(&b, "\n");
	}
	if (run != NULL)
		buf_append(&b, run->data, run->len);
	buf_appendf(&b, "%s\n", rc->nonce);
	rc->preamble_len = b.len;
	rc->preamble = buf_detach(&b);
	return 0;
}

/* Build the command line and preamble; see remote_cmd.h. */
int
remote_cmd_build(struct remote_cmd *rc, int argc, char *const argv[],
    const char *pre, const char *cwd, const struct claw_env *env,
    size_t nenv, char **cause)
{
	return remote_cmd_build_wrapped(rc, argc, argv, pre, NULL, cwd, env,
	    nenv, 0, cause);
}

/*
 * Append the watchdog: a grandchild of the wrapper shell (so no command
 * ever waits for it or reaps it), on /dev/null with descriptors 3 to 9
 * closed (so it holds none of the
 * channel's pipes and the channel closes when the command's output ends),
 * that checks every REMOTE_CMD_WATCH_DS tenths of a second whether the
 * command ($$, which the shell execs into) still runs and whether the sshd
 * process that started it ($PPID) is still there.  sshd goes away when
 * the connection does (cut, client or daemon killed, sshd killed), and
 * then the watchdog stops the command's process group and session: TERM,
 * up to REMOTE_CMD_WATCH_GRACE_DS for the command to go, KILL.  It
 * ignores TERM itself (it is in that group) until it sends the KILL that
 * ends it too.  Background processes started with "process start" have
 * sessions of their own and are not touched.
 */
static void
remote_cmd_watchdog(struct buf *b)
{
	buf_appendf(b, "__claw_pp=$PPID; ( ( trap '' TERM HUP INT; "
	    "__claw_i=0; while kill -s 0 $$ 2>/dev/null; do "
	    "if [ -d /proc/$$ ]; then [ -d /proc/$__claw_pp ] || break; "
	    "else kill -s 0 $__claw_pp 2>/dev/null || break; fi; "
	    "sleep 0.%d 2>/dev/null || sleep 1; done; "
	    "kill -s 0 $$ 2>/dev/null || exit 0; "
	    "kill -s TERM -- -$$ 2>/dev/null; pkill -TERM -s $$ 2>/dev/null; "
	    "while kill -s 0 $$ 2>/dev/null && [ $__claw_i -lt %d ]; do "
	    "sleep 0.1 2>/dev/null || sleep 1; __claw_i=$((__claw_i+1)); "
	    "done; pkill -KILL -s $$ 2>/dev/null; kill -s KILL -- -$$ "
	    "2>/dev/null ) </dev/null >/dev/null 2>&1 3>&- 4>&- 5>&- 6>&- "
	    "7>&- 8>&- 9>&- & ); "
	    "unset __claw_pp; ", REMOTE_CMD_WATCH_DS, REMOTE_CMD_WATCH_GRACE_DS);
}

/*
 * The end of the command line: 'exec ARGV' ('exec "$@" ARGV' after a
 * wrapper), or, when that would make the line longer than
 * REMOTE_CMD_LINE_MAX, a call of a function the preamble defines with
 * that exec in it (*run), so that the exec request stays small and the
 * words travel on stdin.  On a terminal too: the preamble is read before
 * "stty PTY_STTY_ON", without line editing, so no line is cut.
 */
static void
remote_cmd_argv(struct buf *b, int argc, char *const argv[], int wrapped,
    struct buf *run)
{
	const char	*exec = wrapped ? "exec \"$@\" " : "exec ";
	struct buf	 words = BUF_INIT;

	shquote_append_argv(&words, argc, argv);
	if (b->len + strlen(exec) + words.len <= REMOTE_CMD_LINE_MAX) {
		buf_append_str(b, exec);
		buf_append(b, words.data, words.len);
	} else {
		buf_appendf(run, "%s() { %s", REMOTE_RUN_FN, exec);
		buf_append(run, words.data, words.len);
		buf_append_str(run, "\n}\n");
		buf_appendf(b, "%s%s", REMOTE_RUN_FN, wrapped ? " \"$@\"" : "");
	}
	buf_free(&words);
}

/* The 19 words of a stat line between the name and the start time. */
#define REMOTE_STAT_SKIP						\
	"__claw_x __claw_x __claw_x __claw_x __claw_x __claw_x __claw_x "	\
	"__claw_x __claw_x __claw_x __claw_x __claw_x __claw_x __claw_x "	\
	"__claw_x __claw_x __claw_x __claw_x __claw_x"

/*
 * sh that turns $__claw_s, a /proc/PID/stat line, into its start time
 * (the 20th word after the name, whatever the name holds), with
 * builtins only and no word splitting (zsh does not split an unquoted
 * expansion), for the kill script.  A printf format: its %% are doubled.
 */
#define REMOTE_START_SH							\
	"__claw_s=${__claw_s##*) }; __claw_i=1; "			\
	"while [ $__claw_i -lt 20 ]; do __claw_s=${__claw_s#* }; "	\
	"__claw_i=$((__claw_i+1)); done; __claw_s=${__claw_s%%%% *}; "

/* Build a command line that may run argv through a wrapper. */
int
remote_cmd_build_wrapped(struct remote_cmd *rc, int argc, char *const argv[],
    const char *pre, const char *wrap, const char *cwd,
    const struct claw_env *env, size_t nenv, int flags, char **cause)
{
	struct buf	b = BUF_INIT, run = BUF_INIT;
	int		r;

	memset(rc, 0, sizeof *rc);
	if (argc < 1 || (cwd != NULL && *cwd == '\0')) {
		*cause = xstrdup(argc < 1 ? "no command given" :
		    "empty working directory");
		return CLAW_ERR_INVAL;
	}
	remote_cmd_nonce(rc->nonce);
	/*
	 * The marker: pid, then its identity where /proc has it.  One read
	 * splits the stat line (on every exec: REMOTE_START_SH's loop costs
	 * 0.4 ms in bash, one read 0.05); a name with a space in it would
	 * shift the words, so the identity is left out unless the name is
	 * one word.
	 */
	buf_appendf(&b, "if read -r __claw_b 2>/dev/null "
	    "< /proc/sys/kernel/random/boot_id && read -r __claw_p __claw_c "
	    REMOTE_STAT_SKIP " __claw_s __claw_x 2>/dev/null < /proc/$$/stat "
	    "&& [ \"$__claw_p\" = \"$$\" ] && case $__claw_c in '('*')') "
	    ";; *) false;; esac; then printf "
	    "'\\001clawssh-pid %s %%s %%s %%s\\n' \"$$\" \"$__claw_b\" "
	    "\"$__claw_s\"; else printf '\\001clawssh-pid %s %%s\\n' "
	    "\"$$\"; fi; unset __claw_b __claw_p __claw_c __claw_s __claw_x; "
	    "__claw_ok=; __claw_e=; "
	    "while IFS= read -r __claw_l; do "
	    "if [ \"$__claw_l\" = %s ]; then __claw_ok=1; break; fi; "
	    "__claw_e=\"$__claw_e$__claw_l\n\"; done; "
	    "[ -n \"$__claw_ok\" ] || exit 255; eval \"$__claw_e\"; "
	    "unset __claw_l __claw_e __claw_ok; ", rc->nonce, rc->nonce,
	    rc->nonce);
	if (flags & REMOTE_CMD_PTY)
		buf_append_str(&b, "stty " PTY_STTY_ON " 2>/dev/null; ");
	if ((flags & REMOTE_CMD_NO_WATCHDOG) == 0)
		remote_cmd_watchdog(&b);
	if (pre != NULL)
		buf_appendf(&b, "%s; ", pre);
	if (wrap != NULL)
		buf_appendf(&b, "\n%s\n", wrap);
	else if (cwd != NULL) {
		buf_append_str(&b, "cd -- ");
		shquote_append(&b, cwd);
		buf_append_str(&b, " || exit 1; ");
	}
	remote_cmd_argv(&b, argc, argv, wrap != NULL, &run);
	if ((r = remote_cmd_preamble(rc, env, nenv, run.len > 0 ? &run : NULL,
	    cause)) != 0) {
		buf_free(&b);
		buf_free(&run);
		return r;
	}
	buf_free(&run);
	rc->command = buf_detach(&b);
	return 0;
}

/* Free a built command, wiping the preamble. */
void
remote_cmd_clear(struct remote_cmd *rc)
{
	if (rc->preamble != NULL)
		freezero(rc->preamble, rc->preamble_len);
	free(rc->command);
	memset(rc, 0, sizeof *rc);
}

/* A pid and maybe its identity; see remote_cmd.h. */
int
remote_cmd_parse_ident(const char *p, size_t len, long *pid, char *ident)
{
	const char	*sp = memchr(p, ' ', len), *start;
	size_t		 n = sp != NULL ? (size_t)(sp - p) : len, k;
	uint64_t	 v;

	ident[0] = '\0';
	if (num_parse(p, n, NUM_CANONICAL, REMOTE_PID_MAX, &v) != 0 || v < 2)
		return -1;
	*pid = (long)v;
	if (sp == NULL)
		return 0;
	/* " BOOT_ID START": 36 of [0-9a-f-], a space, 1 to 20 digits */
	p = sp + 1;
	len -= n + 1;
	if (len < 38 || p[36] != ' ')
		return 0;
	for (k = 0; k < 36; k++)
		if (p[k] == '\0' || strchr("0123456789abcdef-", p[k]) == NULL)
			return 0;
	start = p + 37;
	n = len - 37;
	if (n == 0 || n > 20)
		return 0;
	for (k = 0; k < n; k++)
		if (start[k] < '0' || start[k] > '9')
			return 0;
	memcpy(ident, p, len);
	ident[len] = '\0';
	return 0;
}

/* Recognise the pid marker line for this nonce; see remote_cmd.h. */
int
remote_cmd_parse_pid(const struct remote_cmd *rc, const char *line,
    size_t len, long *pid, char *ident)
{
	size_t		mlen = sizeof REMOTE_CMD_MARKER - 1, i, end;

	if (len == 0 || line[len - 1] != '\n')
		return 0;
	end = len - 1;		/* the digits end here, before "\n"... */
	if (end > 0 && line[end - 1] == '\r')
		end--;		/* ...or "\r\n" */
	if (end < mlen + REMOTE_CMD_NONCE_LEN + 2 ||
	    memcmp(line, REMOTE_CMD_MARKER, mlen) != 0 ||
	    memcmp(line + mlen, rc->nonce, REMOTE_CMD_NONCE_LEN) != 0 ||
	    line[mlen + REMOTE_CMD_NONCE_LEN] != ' ')
		return 0;
	i = mlen + REMOTE_CMD_NONCE_LEN + 1;
	return remote_cmd_parse_ident(line + i, end - i, pid, ident) == 0;
}

/* Return the TERM-wait-KILL script for pid's group and session. */
char *
remote_cmd_kill_script(long pid, const char *ident, int grace_ds)
{
	char	*check, *script;

	/* ident is checked (hex, '-', digits, one space): safe in quotes */
	check = ident == NULL || *ident == '\0' ? xstrdup("") : xasprintf(
	    "if read -r __claw_s 2>/dev/null < /proc/%ld/stat && "
	    "read -r __claw_b 2>/dev/null < /proc/sys/kernel/random/boot_id; "
	    "then " REMOTE_START_SH "[ \"$__claw_b $__claw_s\" = '%s' ] || "
	    "exit 0; fi; ", pid, ident);
	script = xasprintf("%skill -s TERM -- -%ld 2>/dev/null; "
	    "pkill -TERM -s %ld 2>/dev/null; __claw_i=0; "
	    "while kill -s 0 -- -%ld 2>/dev/null && [ $__claw_i -lt %d ]; "
	    "do sleep 0.1 2>/dev/null || sleep 1; __claw_i=$((__claw_i+1)); "
	    "done; kill -s KILL -- -%ld 2>/dev/null; "
	    "pkill -KILL -s %ld 2>/dev/null; exit 0",
	    check, pid, pid, pid, grace_ds, pid, pid);
	free(check);
	return script;
}
