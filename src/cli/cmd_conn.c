/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Connection options, config loading, target resolution and connecting,
 * shared by the commands that reach a host.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clawconfig.h"
#include "cmd.h"
#include "cmd_conn.h"
#include "error.h"
#include "log.h"
#include "mux_client.h"
#include "num.h"
#include "signals.h"
#include "sshconfig.h"
#include "transport.h"
#include "xmalloc.h"

const struct option cmd_conn_longopts[] = {
	CMD_CONN_LONGOPTS,
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

/* Parse a decimal integer in [lo, hi]; 0 on success. */
int
cmd_parse_int(const char *s, int lo, int hi, int *out)
{
	uint64_t	v;

	if (hi < 0 || num_parse_str(s, 0, (uint64_t)hi, &v) != 0 ||
	    (int64_t)v < lo)
		return CLAW_ERR_INVAL;
	*out = (int)v;
	return 0;
}

/* Append an ssh_config line ("Key value") to the option list. */
static void
cmd_conn_add_line(struct cmd_conn *cc, const char *line)
{
	cc->options = xreallocarray(cc->options, cc->noptions + 1,
	    sizeof *cc->options);
	cc->options[cc->noptions++] = xstrdup(line);
}

/* Take one connection option; see cmd_conn.h. */
int
cmd_conn_option(struct cmd_conn *cc, int ch, const char *arg)
{
	switch (ch) {
	case 'F':
		cc->ssh_config = arg;
		return 1;
	case 'o':
		cmd_conn_add_line(cc, arg);
		return 1;
	case 'l':
		cc->user = arg;
		return 1;
	case 'p':
		if (cmd_parse_int(arg, 1, 65535, &cc->port) != 0)
			return cmd_fail("bad port '%s'", arg);
		return 1;
	case 'v':
		cc->verbose++;
		return 1;
	case CMD_OPT_CONFIG:
		cc->config = arg;
		return 1;
	case CMD_OPT_PASSPHRASE:
		cc->passphrase_file = arg;
		return 1;
	case CMD_OPT_STATE_DIR:
		cc->state_dir = arg;
		return 1;
	case CMD_OPT_NO_DAEMON:
		cc->no_daemon = 1;
		return 1;
	}
	return 0;
}

/* Add "KEY \"PATH\"" as an option line; a path with '"' is refused. */
static int
cmd_conn_add_path(struct cmd_conn *cc, const char *key, const char *path)
{
	char	*line;

	if (strpbrk(path, "\"\n") != NULL)
		return cmd_fail("config: %s path may not contain '\"' or a "
		    "newline", key);
	line = xasprintf("%s \"%s\"", key, path);
	cmd_conn_add_line(cc, line);
	free(line);
	return 0;
}

/* Append the config file's ssh settings after the command line's. */
static int
cmd_conn_apply(struct cmd_conn *cc, const struct claw_config *c)
{
	static const char *const strict[] = { "ask", "yes", "accept-new",
	    "no" };
	char	*line;

	if (c->connect_timeout > 0) {
		line = xasprintf("ConnectTimeout %d", c->connect_timeout);
		cmd_conn_add_line(cc, line);
		free(line);
	}
	if (c->strict >= 0 && c->strict < 4) {
		line = xasprintf("StrictHostKeyChecking %s", strict[c->strict]);
		cmd_conn_add_line(cc, line);
		free(line);
	}
	if ((c->known_hosts_file != NULL && cmd_conn_add_path(cc,
	    "UserKnownHostsFile", c->known_hosts_file) != 0) ||
	    (c->identity_file != NULL && cmd_conn_add_path(cc,
	    "IdentityFile", c->identity_file) != 0))
		return CMD_EXIT_FAILURE;
	if (cc->passphrase_file == NULL)
		cc->passphrase_file = c->passphrase_file;
	if (cc->ssh_config == NULL)
		cc->ssh_config = c->ssh_config_file;
	return 0;
}

/* Load the config and apply it; see cmd_conn.h. */
int
cmd_conn_load(struct cmd_conn *cc)
{
	char	*cause = NULL;
	int	 rc;

	if (config_load(cc->config, cmd_home(), &cc->cfg, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	log_set_level(cc->verbose > cc->cfg->verbose ? cc->verbose :
	    cc->cfg->verbose);
	cc->ncli = cc->noptions;
	return cmd_conn_apply(cc, cc->cfg);
}

/* Free a vector of n lines. */
static void
cmd_conn_lines_free(char **v, size_t n)
{
	while (n > 0)
		free(v[--n]);
	free(v);
}

/* Take a managed endpoint's lines; see cmd_conn.h. */
void
cmd_conn_endpoint(struct cmd_conn *cc, char **lines, size_t n)
{
	cmd_conn_lines_free(cc->ep_lines, cc->nep_lines);
	cc->ep_lines = lines;
	cc->nep_lines = n;
}

/* The -o lines, then the endpoint's, then the config's (not copies). */
static char **
cmd_conn_all_lines(const struct cmd_conn *cc, size_t *n)
{
	char	**v;
	size_t	  i, ncli = cc->cfg != NULL ? cc->ncli : cc->noptions;

	v = xcalloc(cc->noptions + cc->nep_lines + 1, sizeof *v);
	for (i = 0; i < ncli; i++)
		v[i] = cc->options[i];
	for (i = 0; i < cc->nep_lines; i++)
		v[ncli + i] = cc->ep_lines[i];
	for (i = ncli; i < cc->noptions; i++)
		v[cc->nep_lines + i] = cc->options[i];
	*n = cc->noptions + cc->nep_lines;
	return v;
}

/* The ssh config file read; see cmd_conn.h. */
char *
cmd_conn_ssh_config_path(const struct cmd_conn *cc)
{
	if (cc->ssh_config != NULL)
		return xstrdup(cc->ssh_config);
	return xasprintf("%s/.ssh/config", cmd_home());
}

/* Resolve the target through ssh_config; see cmd_conn.h. */
int
cmd_conn_resolve(struct cmd_conn *cc, struct sshconfig **sc)
{
	struct sshconfig_query	 q;
	char			*user = NULL, *host = NULL, *cause = NULL;
	char			*path, **lines;
	size_t			 nlines;
	int			 port = 0, rc, flags = 0;

	if (sshconfig_parse_target(cc->target, &user, &host, &port,
	    &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	memset(&q, 0, sizeof q);
	q.host = host;
	q.user = cc->user != NULL ? cc->user : user;
	q.port = cc->port != 0 ? cc->port : port;
	q.local_user = cmd_local_user();
	q.home = cmd_home();
	lines = cmd_conn_all_lines(cc, &nlines);
	q.options = lines;
	q.noptions = nlines;
	path = cmd_conn_ssh_config_path(cc);
	if (cc->ssh_config == NULL)
		flags = SSHCONFIG_OPTIONAL;
	if ((rc = sshconfig_resolve(path, flags, &q, sc, &cause)) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
	}
	free(lines);
	free(path);
	free(user);
	free(host);
	return rc;
}

/*
 * Whether to start a daemon when none listens: daemon.autostart if the
 * config sets it, else CLAWSSH_AUTOSTART ("0" or "1") if set, else yes.
 * Never for a worker of a daemon (CLAWSSH_DAEMON_SOCKET names the socket
 * of a daemon that owns its lifetime).
 */
static int
cmd_conn_autostart(const struct cmd_conn *cc)
{
	const char	*env = getenv("CLAWSSH_AUTOSTART");

	if (getenv("CLAWSSH_DAEMON_SOCKET") != NULL)
		return 0;
	if (cc->cfg != NULL && cc->cfg->daemon_autostart >= 0)
		return cc->cfg->daemon_autostart;
	if (env != NULL && (strcmp(env, "0") == 0 || strcmp(env, "1") == 0))
		return env[0] == '1';
	return 1;
}

/*
 * Connect through the daemon: 0 with *t set, 1 if there is none to use
 * (connect directly), or a negative CLAW_ERR_* with *cause.  A daemon
 * that cannot be started is not an error: -v says why, and the command
 * connects directly.
 */
static int
cmd_conn_daemon(struct cmd_conn *cc, const struct sshconfig *sc,
    const struct transport_opts *topts, struct transport **t, char **cause)
{
	char	*path = mux_socket_path(cc->cfg != NULL ?
	    cc->cfg->daemon_socket : NULL);
	char	*why = NULL;
	int	 rc;

	rc = mux_connect(path, sc, topts, t, cause);
	if (rc == CLAW_ERR_NOTFOUND && cmd_conn_autostart(cc)) {
		/* Another command may have started one meanwhile: retry. */
		if (cmd_serve_spawn(path, cc->config, &why) != 0)
			log_info("%s: connecting directly", why);
		free(why);
		rc = mux_connect(path, sc, topts, t, cause);
	}
	free(path);
	return rc == CLAW_ERR_NOTFOUND ? 1 : rc;
}

/* Connect and authenticate; see cmd_conn.h. */
int
cmd_conn_connect(struct cmd_conn *cc, const struct sshconfig *sc,
    struct transport **t)
{
	struct transport_opts	 topts = { cc->passphrase_file };
	char			*cause = NULL;
	int			 rc;

	if (signals_init() != 0)
		return cmd_fail("cannot install signal handlers");
	if (!cc->no_daemon &&
	    (rc = cmd_conn_daemon(cc, sc, &topts, t, &cause)) != 1) {
		if (rc == 0)
			return 0;
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	if (transport_connect(sc, &topts, t, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	return 0;
}

/* Return "user@hostname:port" for sc. */
char *
cmd_conn_identity(const struct sshconfig *sc)
{
	return xasprintf("%s@%s:%d", sc->user, sc->hostname, sc->port);
}

/* Free what cc owns. */
void
cmd_conn_free(struct cmd_conn *cc)
{
	size_t	i;

	for (i = 0; i < cc->noptions; i++)
		free(cc->options[i]);
	free(cc->options);
	cmd_conn_lines_free(cc->ep_lines, cc->nep_lines);
	config_free(cc->cfg);
	memset(cc, 0, sizeof *cc);
}

/* Find "--" in argv; see cmd_conn.h. */
int
cmd_dashdash(int argc, char **argv)
{
	int	i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return i;
	}
	return argc;
}
