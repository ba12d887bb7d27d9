/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Logging to stderr, one line per message, prefixed with the program name.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>

#include "log.h"

static int log_level = LOG_LEVEL_ERROR;

/* Set the verbosity: 0 errors and warnings, 1 info, 2 debug, 3 trace. */
void
log_set_level(int level)
{
	log_level = level;
}

/* Return the current verbosity. */
int
log_get_level(void)
{
	return log_level;
}

/* Write one message line if level is enabled. */
static void
log_vwrite(int level, const char *tag, const char *fmt, va_list ap)
{
	if (level > log_level)
		return;
	fprintf(stderr, "clawssh: %s", tag);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

#define LOG_FN(name, level, tag)					\
void									\
name(const char *fmt, ...)						\
{									\
	va_list	ap;							\
									\
	va_start(ap, fmt);						\
	log_vwrite(level, tag, fmt, ap);				\
	va_end(ap);							\
}

/* Log an error: always shown. */
LOG_FN(log_error, LOG_LEVEL_ERROR, "")
/* Log a warning: always shown. */
LOG_FN(log_warn, LOG_LEVEL_WARN, "warning: ")
/* Log progress shown with -v. */
LOG_FN(log_info, LOG_LEVEL_INFO, "")
/* Log detail shown with -vv. */
LOG_FN(log_debug, LOG_LEVEL_DEBUG, "debug: ")
/* Log protocol detail shown with -vvv. */
LOG_FN(log_trace, LOG_LEVEL_TRACE, "trace: ")
