/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The clawssh error space and its descriptions.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdarg.h>
#include <string.h>

#include "error.h"
#include "xmalloc.h"

static const char *const claw_errstr[] = {
	[0] = "success",
	[-CLAW_ERR_INVAL] = "invalid argument",
	[-CLAW_ERR_IO] = "input/output error",
	[-CLAW_ERR_PARSE] = "parse error",
	[-CLAW_ERR_NOTFOUND] = "not found",
	[-CLAW_ERR_CONNECT] = "connection failed",
	[-CLAW_ERR_TIMEOUT] = "timed out",
	[-CLAW_ERR_HOSTKEY_UNKNOWN] = "host key is not known",
	[-CLAW_ERR_HOSTKEY_CHANGED] = "host key has changed",
	[-CLAW_ERR_HOSTKEY_REVOKED] = "host key is revoked",
	[-CLAW_ERR_AUTH] = "authentication failed",
	[-CLAW_ERR_PROTO] = "SSH protocol error",
	[-CLAW_ERR_CHANNEL] = "SSH channel error",
	[-CLAW_ERR_INTERRUPTED] = "interrupted",
	[-CLAW_ERR_EXISTS] = "already exists",
	[-CLAW_ERR_PERM] = "permission denied",
	[-CLAW_ERR_UNSUPPORTED] = "not supported",
	[-CLAW_ERR_DENIED] = "denied by policy",
	[-CLAW_ERR_RANGE] = "over a size limit",
	[-CLAW_ERR_NOMEM] = "out of memory",
};

/* Return a static description of err; unknown codes get a generic text. */
const char *
claw_strerror(int err)
{
	if (err > 0 || err <= CLAW_ERR_LAST || claw_errstr[-err] == NULL)
		return "unknown error";
	return claw_errstr[-err];
}

/* Map errno into the clawssh error space; anything unlisted is I/O. */
int
claw_err_from_errno(int errnum)
{
	switch (errnum) {
	case 0:
		return CLAW_OK;
	case ENOMEM:
		return CLAW_ERR_NOMEM;
	case EINVAL:
		return CLAW_ERR_INVAL;
	case ENOENT:
		return CLAW_ERR_NOTFOUND;
	case EEXIST:
		return CLAW_ERR_EXISTS;
	case EACCES:
	case EPERM:
		return CLAW_ERR_PERM;
	case EINTR:
		return CLAW_ERR_INTERRUPTED;
	case ETIMEDOUT:
		return CLAW_ERR_TIMEOUT;
	case ECONNREFUSED:
	case EHOSTUNREACH:
	case ENETUNREACH:
		return CLAW_ERR_CONNECT;
	default:
		return CLAW_ERR_IO;
	}
}

/* Report a failure through cause; see error.h. */
int
claw_fail(char **cause, int err, const char *fmt, ...)
{
	va_list	ap;

	if (cause != NULL) {
		va_start(ap, fmt);
		*cause = xvasprintf(fmt, ap);
		va_end(ap);
	}
	return err;
}

/* Report a failed system call; see error.h. */
int
claw_fail_errno(char **cause, const char *path, const char *what)
{
	int	err = errno;

	return claw_fail(cause, claw_err_from_errno(err), "%s: %s: %s", path,
	    what, strerror(err));
}
