/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Logging to stderr, filtered by verbosity (-v repeatable).
 * Not thread-safe; call log_set_level once at start-up.
 */
#ifndef CLAW_LOG_H
#define CLAW_LOG_H

enum log_level {
	LOG_LEVEL_ERROR = 0,
	LOG_LEVEL_WARN = 0,
	LOG_LEVEL_INFO = 1,
	LOG_LEVEL_DEBUG = 2,
	LOG_LEVEL_TRACE = 3
};

void	log_set_level(int);
int	log_get_level(void);
void	log_error(const char *, ...)
	    __attribute__((__format__(__printf__, 1, 2)));
void	log_warn(const char *, ...)
	    __attribute__((__format__(__printf__, 1, 2)));
void	log_info(const char *, ...)
	    __attribute__((__format__(__printf__, 1, 2)));
void	log_debug(const char *, ...)
	    __attribute__((__format__(__printf__, 1, 2)));
void	log_trace(const char *, ...)
	    __attribute__((__format__(__printf__, 1, 2)));

#endif /* CLAW_LOG_H */
