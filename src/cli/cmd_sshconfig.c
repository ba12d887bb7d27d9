/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh ssh-config ID: an OpenSSH client config stanza for a sandbox's
 * host, so that plain ssh (or an editor's remote mode) reaches it with
 * the same user, key and known_hosts as clawssh.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmd_box.h"
#include "cmd_conn.h"
#include "registry.h"
#include "sshconfig.h"

/* Print a keyword with a path, quoted when it holds spaces. */
static void
sshcfg_path(const char *key, const char *path)
{
	if (strpbrk(path, " \t") != NULL)
		printf("    %s \"%s\"\n", key, path);
	else
		printf("    %s %s\n", key, path);
}

/* Print ProxyCommand (already expanded: a '%' is written as "%%"). */
static void
sshcfg_proxy(const char *cmd)
{
	printf("    ProxyCommand ");
	for (; *cmd != '\0'; cmd++) {
		if (*cmd == '%')
			putchar('%');
		putchar(*cmd);
	}
	putchar('\n');
}

/* Print the stanza for the record and its resolved settings. */
static void
sshcfg_print(const struct registry_record *r, const struct sshconfig *sc)
{
	static const char *const strict[] = { "ask", "yes", "accept-new",
	    "no" };
	size_t	i;

	printf("# clawssh sandbox %s (%s/%s); workspace %s/%s/workspace\n",
	    r->id, sandbox_scope_name(r->scope), r->key, r->remote_root,
	    r->id);
	printf("Host clawssh-%s\n", r->id);
	printf("    HostName %s\n    Port %d\n    User %s\n", sc->hostname,
	    sc->port, sc->user);
	for (i = 0; i < sc->n_identity_files; i++)
		sshcfg_path("IdentityFile", sc->identity_files[i]);
	if (sc->identities_only)
		printf("    IdentitiesOnly yes\n");
	for (i = 0; i < sc->n_known_hosts_files; i++)
		sshcfg_path("UserKnownHostsFile", sc->known_hosts_files[i]);
	printf("    StrictHostKeyChecking %s\n", strict[sc->strict]);
	if (sc->connect_timeout > 0)
		printf("    ConnectTimeout %d\n", sc->connect_timeout);
	if (sc->server_alive_interval > 0)
		printf("    ServerAliveInterval %d\n    ServerAliveCountMax "
		    "%d\n", sc->server_alive_interval,
		    sc->server_alive_count_max);
	if (sc->host_key_alias != NULL)
		printf("    HostKeyAlias %s\n", sc->host_key_alias);
	if (sc->proxy_command != NULL)
		sshcfg_proxy(sc->proxy_command);
}

/* The ssh-config command; see clawssh(1). */
int
cmd_sshconfig(int argc, char **argv)
{
	struct cmd_box	b;
	int		ch, rc;

	memset(&b, 0, sizeof b);
	optind = 1;
	while ((ch = getopt_long(argc, argv, CMD_CONN_SHORTOPTS "h",
	    cmd_conn_longopts, NULL)) != -1) {
		if (ch == 'h') {
			cmd_box_free(&b);
			return cmd_help("ssh-config");
		}
		if ((rc = cmd_conn_option(&b.cc, ch, optarg)) != 1) {
			cmd_box_free(&b);
			return rc > 1 ? rc : cmd_fail("usage: clawssh "
			    "ssh-config [options] ID");
		}
	}
	if (optind + 1 != argc) {
		cmd_box_free(&b);
		return cmd_fail("usage: clawssh ssh-config [options] ID");
	}
	if ((rc = cmd_box_load(&b, argv[optind])) == 0 &&
	    (rc = cmd_conn_resolve(&b.cc, &b.sc)) == 0)
		sshcfg_print(b.rec, b.sc);
	cmd_box_free(&b);
	return rc;
}
