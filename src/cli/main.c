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

#include <cjson/cJSON.h>
#include <libssh2.h>
#include <openssl/crypto.h>

#include "cmd.h"
#include "cmd_conn.h"
#include "error.h"
#include "jsonc.h"
#include "xmalloc.h"

/* Subcommands: the word after the command comes before its options. */
#define CMD_F_SUB	0x1

static const struct cmd_entry {
	const char	*name;
	int		(*fn)(int, char **);
	const char	*summary;
	int		 flags;
} commands[] = {
	{ "provision", cmd_provision, "get or create a sandbox, print its id",
	    0 },
	{ "exec", cmd_exec, "run a command on a host or in a sandbox", 0 },
	{ "shell", cmd_shell, "an interactive login shell in a sandbox", 0 },
	{ "list", cmd_list, "list sandboxes and their state", 0 },
	{ "status", cmd_status, "show one sandbox", 0 },
	{ "stop", cmd_stop, "end a sandbox's processes, keep its workspace",
	    0 },
	{ "start", cmd_start, "start a sandbox's environment", 0 },
	{ "destroy", cmd_destroy, "remove a sandbox", 0 },
	{ "recreate", cmd_recreate, "remake a sandbox with current settings",
	    0 },
	{ "prune", cmd_prune, "remove idle or old sandboxes", 0 },
	{ "image", cmd_image, "import, list or remove root file system "
	    "images", CMD_F_SUB },
	{ "process", cmd_process, "manage background processes in a "
	    "sandbox", CMD_F_SUB },
	{ "sync", cmd_sync, "push or pull workspace files (sync push|pull)",
	    CMD_F_SUB },
	{ "read", cmd_read, "print a file of a sandbox's workspace", 0 },
	{ "write", cmd_write, "replace a file with stdin, atomically", 0 },
	{ "edit", cmd_edit, "replace exact text in a file", 0 },
	{ "apply-patch", cmd_apply_patch, "apply a diff or agent patch, all "
	    "files or none", 0 },
	{ "ls", cmd_ls, "list a directory of a sandbox's workspace", 0 },
	{ "stat", cmd_stat, "show one file's type, mode, size and time", 0 },
	{ "serve", cmd_serve, "run the daemon that keeps connections warm",
	    0 },
	{ "ssh-config", cmd_sshconfig, "print an ssh_config stanza for a "
	    "sandbox", 0 },
};
#define N_COMMANDS	(sizeof commands / sizeof commands[0])

/* Print the top-level usage to f. */
static void
usage(FILE *f)
{
	size_t	i;

	fprintf(f, "usage: clawssh [-F FILE] [global options] COMMAND "
	    "[options] [args]\n"
	    "       clawssh --version | --help | help COMMAND\n\n"
	    "commands:\n");
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-12s %s\n", commands[i].name,
		    commands[i].summary);
	fprintf(f, "\nglobal options (before COMMAND, as with ssh): -F FILE, "
	    "-o KEY=VALUE,\n-l USER, -p PORT, -v, --config FILE, "
	    "--state-dir DIR, --passphrase-file F,\n--no-daemon.\n"
	    "Run 'clawssh COMMAND --help' for a command's options; "
	    "see clawssh(1).\n");
}

/* The table entry named name, or NULL. */
static const struct cmd_entry *
cmd_find(const char *name)
{
	size_t	i;

	for (i = 0; i < N_COMMANDS; i++) {
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	}
	return NULL;
}

/* Print o as one JSON line on stdout; see cmd.h. */
void
cmd_print_json(const struct cJSON *o)
{
	char	*s = cJSON_PrintUnformatted(o);

	if (s == NULL)
		abort();	/* cJSON allocates through xmalloc */
	puts(s);
	cJSON_free(s);
}

/*
 * Whether w is a global option: 0 not one, 1 one word ("-v", "-Ffile",
 * "--config=FILE"), 2 one that takes the next word as its argument.
 */
static int
main_global_word(const char *w)
{
	static const char *const longarg[] = { "--config", "--state-dir",
	    "--passphrase-file", NULL };
	size_t	i, len;

	if (strcmp(w, "--verbose") == 0 || strcmp(w, "--no-daemon") == 0)
		return 1;
	if (w[0] == '-' && w[1] == 'v' && strspn(w + 1, "v") == strlen(w + 1))
		return 1;
	if (w[0] == '-' && w[1] != '\0' && strchr("Folp", w[1]) != NULL)
		return w[2] == '\0' ? 2 : 1;
	for (i = 0; longarg[i] != NULL; i++) {
		len = strlen(longarg[i]);
		if (strncmp(w, longarg[i], len) == 0 && w[len] == '\0')
			return 2;
		if (strncmp(w, longarg[i], len) == 0 && w[len] == '=')
			return 1;
	}
	return 0;
}

/*
 * Take the global options before the command: the connection options,
 * as ssh takes -F before the host.  Returns how many words they are (0 if
 * none), or CLAW_ERR_INVAL after saying why.
 */
static int
main_globals(int argc, char **argv)
{
	int	i, k;

	for (i = 1; i < argc && (k = main_global_word(argv[i])) != 0; i++) {
		if (k == 2 && ++i == argc) {
			cmd_fail("%s wants an argument (try 'clawssh --help')",
			    argv[i - 1]);
			return CLAW_ERR_INVAL;
		}
	}
	return i - 1;
}

/*
 * Run command c with args (args[0] is its name) and the nglobal global
 * options moved after its name (after its subcommand, for those that
 * have one), where its own parser takes them.
 */
static int
main_run(const struct cmd_entry *c, char **globals, int nglobal, int nargs,
    char **args)
{
	char	**v;
	int	  n = 0, i, at, rc;

	at = (c->flags & CMD_F_SUB) && nargs > 1 && args[1][0] != '-' ? 2 : 1;
	v = xreallocarray(NULL, (size_t)(nargs + nglobal + 1), sizeof *v);
	for (i = 0; i < at; i++)
		v[n++] = args[i];
	for (i = 0; i < nglobal; i++)
		v[n++] = globals[i];
	for (i = at; i < nargs; i++)
		v[n++] = args[i];
	v[n] = NULL;
	rc = c->fn(n, v);
	free(v);
	return rc == CMD_EXIT_HELP ? 0 : rc;
}

/* Take the global options, then run the command they come before. */
/*
 * Print the version, and the libssh2 and OpenSSL inside it, as ssh -V
 * does: where they are linked in (configure's default), only a rebuild
 * takes their security updates.
 */
static void
main_version(void)
{
#ifdef CLAWSSH_STATIC_LIBS
	const char	*how = "linked in";
#else
	const char	*how = "shared";
#endif

	printf("clawssh %s (libssh2 %s, %s, %s)\n", PACKAGE_VERSION,
	    libssh2_version(0), OpenSSL_version(OPENSSL_VERSION), how);
}

int
main(int argc, char **argv)
{
	const struct cmd_entry	*c;
	static char		 helpopt[] = "--help";
	char			*helpv[3];
	int			 ng;

	jsonc_hooks();
	if ((ng = main_globals(argc, argv)) < 0)
		return CMD_EXIT_FAILURE;
	if (argc < ng + 2) {
		usage(stderr);
		return CMD_EXIT_FAILURE;
	}
	if (strcmp(argv[ng + 1], "--version") == 0 ||
	    strcmp(argv[ng + 1], "-V") == 0) {
		main_version();
		return 0;
	}
	if (strcmp(argv[ng + 1], "help") == 0 && argc == ng + 3) {
		/* "clawssh help CMD" is "clawssh CMD --help". */
		helpv[0] = argv[ng + 2];
		helpv[1] = helpopt;
		helpv[2] = NULL;
		if ((c = cmd_find(argv[ng + 2])) == NULL)
			return cmd_fail("unknown command '%s' (try 'clawssh "
			    "--help')", argv[ng + 2]);
		return main_run(c, NULL, 0, 2, helpv);
	}
	if (strcmp(argv[ng + 1], "--help") == 0 ||
	    strcmp(argv[ng + 1], "-h") == 0 ||
	    strcmp(argv[ng + 1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if ((c = cmd_find(argv[ng + 1])) == NULL && argv[ng + 1][0] == '-')
		return cmd_fail("'%s' is not a global option (those are "
		    "listed by 'clawssh --help')", argv[ng + 1]);
	if (c == NULL)
		return cmd_fail("unknown command '%s' (try 'clawssh --help')",
		    argv[ng + 1]);
	return main_run(c, argv + 1, ng, argc - ng - 1, argv + ng + 1);
}
