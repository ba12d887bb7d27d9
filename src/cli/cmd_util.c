/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Small helpers of every command (cmd.h): the one-line error, the home
 * directory, the local user.  Apart from main.c so that unit tests of
 * CLI parts can link them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "cmd.h"

/* Print the one-line error and return the failure status. */
int
cmd_fail(const char *fmt, ...)
{
	va_list	ap;

	fflush(stdout);
	fputs("clawssh: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CMD_EXIT_FAILURE;
}

/* Return the home directory: $HOME, else the password database. */
const char *
cmd_home(void)
{
	const char	*home = getenv("HOME");
	struct passwd	*pw;

	if (home != NULL && *home == '/')
		return home;
	if ((pw = getpwuid(getuid())) != NULL && pw->pw_dir != NULL)
		return pw->pw_dir;
	return "/";
}

/* Return the login name of the real user. */
const char *
cmd_local_user(void)
{
	static char	 name[256];
	struct passwd	*pw;

	if (name[0] == '\0') {
		if ((pw = getpwuid(getuid())) != NULL)
			snprintf(name, sizeof name, "%s", pw->pw_name);
		else
			snprintf(name, sizeof name, "%lu",
			    (unsigned long)getuid());
	}
	return name;
}
