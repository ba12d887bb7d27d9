/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh: run tool calls in remote sandboxes over SSH.
 * This file dispatches to the sub-commands.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "jsonc.h"

static const struct {
	const char	*name;
	int		(*fn)(int, char **);
	const char	*summary;
} commands[] = {
	{ "provision", cmd_provision, "get or create a sandbox, print its id" },
	{ "exec", cmd_exec, "run a command on a host or in a sandbox" },
	{ "list", cmd_list, "list sandboxes and their state" },
	{ "status", cmd_status, "show one sandbox" },
	{ "destroy", cmd_destroy, "remove a sandbox" },
	{ "recreate", cmd_recreate, "remake a sandbox with current settings" },
	{ "prune", cmd_prune, "remove idle or old sandboxes" },
	{ "image", cmd_image, "import, list or remove root file system "
	    "images" },
	{ "process", cmd_process, "manage background processes in a "
	    "sandbox" },
	{ "sync", cmd_sync, "push or pull workspace files (sync push|pull)" },
	{ "read", cmd_read, "print a file of a sandbox's workspace" },
	{ "write", cmd_write, "replace a file with stdin, atomically" },
	{ "edit", cmd_edit, "replace exact text in a file" },
	{ "apply-patch", cmd_apply_patch, "apply a diff or agent patch, all "
	    "files or none" },
	{ "ls", cmd_ls, "list a directory of a sandbox's workspace" },
	{ "stat", cmd_stat, "show one file's type, mode, size and time" },
	{ "serve", cmd_serve, "run the daemon that keeps connections warm" },
	{ "ssh-config", cmd_sshconfig, "print an ssh_config stanza for a "
	    "sandbox" },
};
#define N_COMMANDS	(sizeof commands / sizeof commands[0])

/* Print the top-level usage to f. */
static void
usage(FILE *f)
{
	size_t	i;

	fprintf(f, "usage: clawssh COMMAND [options] [args]\n"
	    "       clawssh --version | --help\n\ncommands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name,
		    commands[i].summary);
	fprintf(f, "\nRun 'clawssh COMMAND --help' for a command's options; "
	    "see clawssh(1).\n");
}

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

int
main(int argc, char **argv)
{
	size_t	i;

	jsonc_hooks();
	if (argc < 2) {
		usage(stderr);
		return CMD_EXIT_FAILURE;
	}
	if (strcmp(argv[1], "--version") == 0 ||
	    strcmp(argv[1], "-V") == 0) {
		printf("clawssh %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	for (i = 0; i < N_COMMANDS; i++) {
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	}
	return cmd_fail("unknown command '%s' (try 'clawssh --help')",
	    argv[1]);
}
