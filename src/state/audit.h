/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The audit log: one JSON object per line for each tool call the daemon
 * serves, appended to a file (by default $XDG_STATE_HOME/clawssh/
 * audit.log, else ~/.local/state/clawssh/audit.log; the config's
 * "audit": { "file": ... } overrides it, and "" turns the log off).
 *
 *	{"time":"2026-12-02T15:04:05.123Z","caller":"uid=1000 pid=42",
 *	 "agent":"bot","sandbox":"3f2a...","host":null,"tool":"exec",
 *	 "elevated":false,"duration_ms":12,"exit_status":0,"bytes_in":0,
 *	 "bytes_out":6,"error":null}
 *
 * (one line in the file).  A missing string is null; strings are cut to
 * AUDIT_FIELD_MAX bytes and invalid UTF-8 is replaced by U+FFFD, control
 * characters are escaped.  The record has no place for arguments, file
 * contents or environment values, on purpose: keep it that way.
 *
 * Each line is one write(2) on a descriptor opened with O_APPEND, so
 * lines from several processes or threads never interleave.  An audit
 * handle may be shared by threads.
 */
#ifndef CLAW_AUDIT_H
#define CLAW_AUDIT_H

#include <stdint.h>

#define AUDIT_FIELD_MAX		1024	/* bytes kept of one string */

struct audit;

struct audit_rec {
	int64_t		 start_ms;	/* wall clock, epoch ms */
	int64_t		 duration_ms;
	const char	*caller;	/* e.g. "uid=1000 pid=4242 agent=bot" */
	const char	*agent;		/* NULL: none */
	const char	*sandbox;	/* NULL: none */
	const char	*host;		/* NULL: none */
	const char	*tool;
	int		 elevated;
	int		 exit_status;	/* -1 when it never ran */
	const char	*error;		/* message, denied rule, or NULL */
	uint64_t	 bytes_in;
	uint64_t	 bytes_out;
};

/*
 * Return the default log path (allocated): $XDG_STATE_HOME/clawssh/
 * audit.log if that variable is set and absolute, else home/.local/state/
 * clawssh/audit.log; NULL if home is needed but NULL or empty.
 */
char	*audit_default_path(const char *home);

/*
 * Open the log at path for appending, creating missing directories (mode
 * 0700) and the file (mode 0600; an existing file's group and other bits
 * are removed).  A final symbolic link or anything but a regular file is
 * refused.  path "" turns auditing off: *out is set to NULL and audit_write
 * on it does nothing.  Returns 0 or a negative CLAW_ERR_* with *cause.
 */
int	audit_open(const char *path, struct audit **out, char **cause);

/*
 * Append one line for rec.  Returns 0 (also for a NULL audit), or
 * CLAW_ERR_IO (or another mapped errno) if the line could not be written
 * whole; the caller decides whether that stops the call.
 */
int	audit_write(struct audit *, const struct audit_rec *rec);

/* Format rec as its line, without the newline (free(3) it); for tests. */
char	*audit_format(const struct audit_rec *rec);

/* Close the log; NULL is fine. */
void	audit_free(struct audit *);

#endif /* CLAW_AUDIT_H */
