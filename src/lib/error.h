/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One error space for clawssh: 0 is success, negative CLAW_ERR_* values are
 * failures.  Codes from libssh2, libarchive and errno are mapped into it
 * at the edge.  -1 is deliberately no code: a bare -1 that leaks from a
 * yes/no helper into an error path reads as "unknown error", never as a
 * real cause (it used to read as "out of memory").
 */
#ifndef CLAW_ERROR_H
#define CLAW_ERROR_H

enum claw_err {
	CLAW_OK = 0,
	CLAW_ERR_INVAL = -2,		/* invalid argument or input */
	CLAW_ERR_IO = -3,		/* local I/O failure */
	CLAW_ERR_PARSE = -4,		/* malformed file or message */
	CLAW_ERR_NOTFOUND = -5,		/* no such thing */
	CLAW_ERR_CONNECT = -6,		/* could not reach the host */
	CLAW_ERR_TIMEOUT = -7,		/* a deadline passed */
	CLAW_ERR_HOSTKEY_UNKNOWN = -8,	/* host key not in known_hosts */
	CLAW_ERR_HOSTKEY_CHANGED = -9,	/* host key differs from known_hosts */
	CLAW_ERR_HOSTKEY_REVOKED = -10,	/* host key marked @revoked */
	CLAW_ERR_AUTH = -11,		/* authentication failed */
	CLAW_ERR_PROTO = -12,		/* SSH protocol or session failure */
	CLAW_ERR_CHANNEL = -13,		/* SSH channel failure */
	CLAW_ERR_INTERRUPTED = -14,	/* stopped by a signal */
	CLAW_ERR_EXISTS = -15,		/* already exists */
	CLAW_ERR_PERM = -16,		/* not permitted */
	CLAW_ERR_UNSUPPORTED = -17,	/* not supported here */
	CLAW_ERR_DENIED = -18,		/* refused by policy */
	CLAW_ERR_RANGE = -19,		/* a size or count over its limit */
	CLAW_ERR_NOMEM = -20,		/* out of memory */
	CLAW_ERR_LAST = -21
};

/* Return a static, human-readable description of err. */
const char	*claw_strerror(int err);

/* Map an errno value into the clawssh error space. */
int		 claw_err_from_errno(int errnum);

/*
 * Set *cause (unless cause is NULL) to the formatted message and return
 * err: the one way modules report a failure.
 */
int		 claw_fail(char **cause, int err, const char *fmt, ...)
		    __attribute__((__format__(__printf__, 3, 4)));

/*
 * Fail with "PATH: WHAT: strerror(errno)" and errno mapped into the
 * clawssh error space.  Call right after the failing system call.
 */
int		 claw_fail_errno(char **cause, const char *path,
		    const char *what);

#endif /* CLAW_ERROR_H */
