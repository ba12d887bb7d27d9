/*
 * clawssh exec: run one command on a remote host.
 *
 *	clawssh exec [--host] TARGET [options] -- CMD [ARG...]
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "buf.h"
#include "clawconfig.h"
#include "cmd.h"
#include "error.h"
#include "exec.h"
#include "log.h"
#include "remote_cmd.h"
#include "signals.h"
#include "sshconfig.h"
#include "transport.h"
#include "xmalloc.h"

struct exec_args {
	const char	*target;
	const char	*ssh_config;	/* -F */
	const char	*config;	/* --config */
	const char	*user;		/* -l */
	int		 port;		/* -p */
	char		**options;	/* -o, then config.json's, as lines */
	size_t		 noptions;
	struct claw_env	*env;		/* config.json's, then --env */
	size_t		 nenv;
	const char	*cwd;
	const char	*passphrase_file;
	int		 timeout;	/* -1: not given */
	int		 interactive;	/* -i */
	int		 verbose;
	int		 argc;
	char		**argv;
};

static const char exec_usage[] =
    "usage: clawssh exec [--host] TARGET [options] -- CMD [ARG...]\n"
    "\n"
    "TARGET is [user@]host[:port] or a Host alias from the ssh config.\n"
    "\n"
    "  -F FILE               OpenSSH client config (default ~/.ssh/config)\n"
    "  -o KEY=VALUE          ssh_config option, as with ssh -o\n"
    "  -l USER, -p PORT      remote user and port\n"
    "  --config FILE         clawssh config (default\n"
    "                        $XDG_CONFIG_HOME/clawssh/config.json)\n"
    "  --timeout SECONDS     kill the remote command and exit 124\n"
    "  --env NAME=VALUE      set a variable (never shown in argv)\n"
    "  --cwd DIR             remote working directory\n"
    "  -i                    forward stdin even when it is a terminal\n"
    "  --passphrase-file F   passphrase for an encrypted identity\n"
    "  -v                    more logging (repeatable)\n";

enum {
	OPT_CONFIG = 256, OPT_TIMEOUT, OPT_ENV, OPT_CWD, OPT_HOST,
	OPT_PASSPHRASE
};

static const struct option exec_longopts[] = {
	{ "config", required_argument, NULL, OPT_CONFIG },
	{ "cwd", required_argument, NULL, OPT_CWD },
	{ "env", required_argument, NULL, OPT_ENV },
	{ "help", no_argument, NULL, 'h' },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "passphrase-file", required_argument, NULL, OPT_PASSPHRASE },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "verbose", no_argument, NULL, 'v' },
	{ NULL, 0, NULL, 0 }
};

/* Parse a decimal integer in [lo, hi]; 0 on success. */
static int
exec_parse_int(const char *s, int lo, int hi, int *out)
{
	char	*end;
	long	 v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtol(s, &end, 10);
	if (*end != '\0' || v < lo || v > hi)
		return -1;
	*out = (int)v;
	return 0;
}

/*
 * Add NAME=VALUE to the environment list; an existing NAME is replaced
 * when replace is set, else kept.
 */
static int
exec_add_env(struct exec_args *a, const char *spec, int replace)
{
	const char	*eq = strchr(spec, '=');
	char		*name;
	size_t		 i;

	if (eq == NULL)
		return cmd_fail("--env wants NAME=VALUE, got '%s'", spec);
	name = xstrndup(spec, (size_t)(eq - spec));
	if (!remote_cmd_env_name_ok(name)) {
		free(name);
		return cmd_fail("--env: invalid variable name in '%s'", spec);
	}
	for (i = 0; i < a->nenv; i++) {
		if (strcmp(a->env[i].name, name) == 0)
			break;
	}
	if (i == a->nenv) {
		a->env = xreallocarray(a->env, ++a->nenv, sizeof *a->env);
		a->env[i].name = name;
	} else if (!replace) {
		free(name);
		return 0;
	} else {
		free(name);
		freezero(a->env[i].value, strlen(a->env[i].value));
	}
	a->env[i].value = xstrdup(eq + 1);
	return 0;
}

/* Append an ssh_config line ("Key value") to the option list. */
static void
exec_add_option(struct exec_args *a, const char *line)
{
	a->options = xreallocarray(a->options, a->noptions + 1,
	    sizeof *a->options);
	a->options[a->noptions++] = xstrdup(line);
}

/* Handle one parsed option; returns 0, or the exit status on error. */
static int
exec_option(struct exec_args *a, int ch, const char *arg)
{
	switch (ch) {
	case 'F':
		a->ssh_config = arg;
		return 0;
	case 'o':
		exec_add_option(a, arg);
		return 0;
	case 'l':
		a->user = arg;
		return 0;
	case 'p':
		if (exec_parse_int(arg, 1, 65535, &a->port) != 0)
			return cmd_fail("bad port '%s'", arg);
		return 0;
	case 'i':
		a->interactive = 1;
		return 0;
	case 'v':
		a->verbose++;
		return 0;
	case OPT_CONFIG:
		a->config = arg;
		return 0;
	case OPT_CWD:
		a->cwd = arg;
		return 0;
	case OPT_ENV:
		return exec_add_env(a, arg, 1) == 0 ? 0 : CMD_EXIT_FAILURE;
	case OPT_HOST:
		a->target = arg;
		return 0;
	case OPT_PASSPHRASE:
		a->passphrase_file = arg;
		return 0;
	case OPT_TIMEOUT:
		if (exec_parse_int(arg, 1, INT_MAX / 1000, &a->timeout) != 0)
			return cmd_fail("bad --timeout '%s': want a positive "
			    "number of seconds", arg);
		return 0;
	}
	return -1;
}

/* Parse the command line into a; returns 0 or an exit status. */
static int
exec_parse_args(int argc, char **argv, struct exec_args *a)
{
	int	ch, rc, i, dashdash = argc;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			dashdash = i;
			break;
		}
	}
	optind = 1;
	while ((ch = getopt_long(dashdash, argv, "F:il:o:p:hv",
	    exec_longopts, NULL)) != -1) {
		if (ch == 'h') {
			fputs(exec_usage, stdout);
			return -1;
		}
		if ((rc = exec_option(a, ch, optarg)) > 0)
			return rc;
		if (rc < 0)
			return cmd_fail("%s", "bad option (see 'clawssh exec "
			    "--help')");
	}
	if (a->target == NULL && optind < dashdash)
		a->target = argv[optind++];
	if (optind < dashdash)
		return cmd_fail("unexpected argument '%s' before '--' (put "
		    "the command after '--')", argv[optind]);
	if (a->target == NULL)
		return cmd_fail("no TARGET given (see 'clawssh exec --help')");
	a->argc = dashdash + 1 < argc ? argc - dashdash - 1 : 0;
	a->argv = argv + dashdash + 1;
	if (a->argc == 0)
		return cmd_fail("no command given after '--'");
	return 0;
}

/* Add "KEY \"PATH\"" as an option line; a path with '"' is refused. */
static int
exec_add_path_option(struct exec_args *a, const char *key, const char *path)
{
	char	*line;

	if (strpbrk(path, "\"\n") != NULL)
		return cmd_fail("config: %s path may not contain '\"' or a "
		    "newline", key);
	line = xasprintf("%s \"%s\"", key, path);
	exec_add_option(a, line);
	free(line);
	return 0;
}

/* Fold config.json into the arguments: as defaults, after the CLI. */
static int
exec_apply_config(struct exec_args *a, const struct claw_config *c)
{
	static const char *const strict[] = { "ask", "yes", "accept-new",
	    "no" };
	char	*line;
	size_t	 i;

	if (c->connect_timeout > 0) {
		line = xasprintf("ConnectTimeout %d", c->connect_timeout);
		exec_add_option(a, line);
		free(line);
	}
	if (c->strict >= 0 && c->strict < 4) {
		line = xasprintf("StrictHostKeyChecking %s", strict[c->strict]);
		exec_add_option(a, line);
		free(line);
	}
	if ((c->known_hosts_file != NULL && exec_add_path_option(a,
	    "UserKnownHostsFile", c->known_hosts_file) != 0) ||
	    (c->identity_file != NULL && exec_add_path_option(a,
	    "IdentityFile", c->identity_file) != 0))
		return CMD_EXIT_FAILURE;
	if (a->passphrase_file == NULL)
		a->passphrase_file = c->passphrase_file;
	if (a->ssh_config == NULL)
		a->ssh_config = c->ssh_config_file;
	if (a->timeout < 0)
		a->timeout = c->exec_timeout;
	for (i = 0; i < c->nenv; i++) {
		line = xasprintf("%s=%s", c->env[i].name, c->env[i].value);
		if (exec_add_env(a, line, 0) != 0) {
			freezero(line, strlen(line));
			return CMD_EXIT_FAILURE;
		}
		freezero(line, strlen(line));
	}
	return 0;
}

/* Resolve TARGET through the ssh config. */
static int
exec_resolve(struct exec_args *a, struct sshconfig **sc)
{
	struct sshconfig_query	 q;
	char			*user = NULL, *host = NULL, *cause = NULL, *path;
	int			 port = 0, rc, flags = 0;

	if (sshconfig_parse_target(a->target, &user, &host, &port,
	    &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	memset(&q, 0, sizeof q);
	q.host = host;
	q.user = a->user != NULL ? a->user : user;
	q.port = a->port != 0 ? a->port : port;
	q.local_user = cmd_local_user();
	q.home = cmd_home();
	q.options = a->options;
	q.noptions = a->noptions;
	if (a->ssh_config != NULL)
		path = xstrdup(a->ssh_config);
	else {
		path = xasprintf("%s/.ssh/config", q.home);
		flags = SSHCONFIG_OPTIONAL;
	}
	rc = sshconfig_resolve(path, flags, &q, sc, &cause);
	if (rc != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
	}
	free(path);
	free(user);
	free(host);
	return rc;
}

/* Connect and run the command; returns the exit status. */
static int
exec_connect_run(struct exec_args *a, const struct sshconfig *sc)
{
	struct transport_opts	 topts = { a->passphrase_file };
	struct exec_opts	 eo;
	struct transport	*t = NULL;
	char			*cause = NULL;
	int			 rc, status = CMD_EXIT_FAILURE;

	if (signals_init() != 0)
		return cmd_fail("cannot install signal handlers");
	if ((rc = transport_connect(sc, &topts, &t, &cause)) != 0) {
		status = cmd_fail("%s", cause);
		free(cause);
		return status;
	}
	memset(&eo, 0, sizeof eo);
	eo.argc = a->argc;
	eo.argv = a->argv;
	eo.cwd = a->cwd;
	eo.env = a->env;
	eo.nenv = a->nenv;
	eo.timeout = a->timeout > 0 ? a->timeout : 0;
	eo.forward_stdin = a->interactive || !isatty(STDIN_FILENO);
	eo.in_fd = STDIN_FILENO;
	eo.out.fd = STDOUT_FILENO;
	eo.err.fd = STDERR_FILENO;
	if ((rc = exec_run(t, &eo, &status, &cause)) != 0) {
		status = cmd_fail("%s", cause);
		free(cause);
	} else if (status == EXEC_STATUS_TIMEOUT && eo.timeout > 0)
		log_warn("command timed out after %d s; remote process "
		    "stopped", eo.timeout);
	transport_free(t);
	return status;
}

/* Release everything the arguments own. */
static void
exec_args_free(struct exec_args *a)
{
	size_t	i;

	for (i = 0; i < a->noptions; i++)
		free(a->options[i]);
	free(a->options);
	for (i = 0; i < a->nenv; i++) {
		free(a->env[i].name);
		freezero(a->env[i].value, strlen(a->env[i].value));
	}
	free(a->env);
}

/* The exec command; see clawssh(1). */
int
cmd_exec(int argc, char **argv)
{
	struct exec_args	 a;
	struct claw_config	*c = NULL;
	struct sshconfig	*sc = NULL;
	char			*cause = NULL;
	int			 rc;

	memset(&a, 0, sizeof a);
	a.timeout = -1;
	if ((rc = exec_parse_args(argc, argv, &a)) != 0) {
		exec_args_free(&a);
		return rc < 0 ? 0 : rc;
	}
	if (config_load(a.config, cmd_home(), &c, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		goto out;
	}
	log_set_level(a.verbose > c->verbose ? a.verbose : c->verbose);
	if ((rc = exec_apply_config(&a, c)) != 0 ||
	    (rc = exec_resolve(&a, &sc)) != 0)
		goto out;
	rc = exec_connect_run(&a, sc);
out:
	sshconfig_free(sc);
	config_free(c);
	exec_args_free(&a);
	return rc;
}
