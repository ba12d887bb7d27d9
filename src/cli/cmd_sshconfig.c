/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh ssh-config ID: OpenSSH client config stanzas for a sandbox,
 * so that plain ssh (or a tool built on it) reaches it with the same
 * user, key and known_hosts as clawssh: clawssh-ID lands in a login
 * shell inside the sandbox, clawssh-ID-host on its host.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cmd.h"
#include "cmd_box.h"
#include "cmd_conn.h"
#include "cmd_ops.h"
#include "cmd_env.h"
#include "exec.h"
#include "log.h"
#include "registry.h"
#include "shquote.h"
#include "sshconfig.h"
#include "xmalloc.h"

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

/* Print the connection settings of a stanza. */
static void
sshcfg_settings(const struct sshconfig *sc)
{
	static const char *const strict[] = { "ask", "yes", "accept-new",
	    "no" };
	size_t	i;

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

/*
 * Print the stanzas for the record and its resolved settings: with enter
 * (the host path of the sandbox's entry script), clawssh-ID lands in the
 * sandbox (a login shell in its workspace, on a terminal when ssh has
 * one) and clawssh-ID-host on the host; without, clawssh-ID is the host.
 */
static void
sshcfg_print(const struct registry_record *r, const struct sshconfig *sc,
    const char *enter)
{
	const char	*p;

	printf("# clawssh sandbox %s (%s/%s); workspace %s/%s/workspace\n",
	    r->id, sandbox_scope_name(r->scope), r->key, r->remote_root,
	    r->id);
	if (enter == NULL) {
		printf("Host clawssh-%s\n", r->id);
		sshcfg_settings(sc);
		return;
	}
	printf("# clawssh-%s: a shell inside the sandbox; clawssh-%s-host: "
	    "its host\nHost clawssh-%s\n    RequestTTY yes\n"
	    "    RemoteCommand exec sh '", r->id, r->id, r->id);
	for (p = enter; *p != '\0'; p++)	/* checked: no ' or % */
		putchar(*p);
	printf("'\nHost clawssh-%s clawssh-%s-host\n", r->id, r->id);
	sshcfg_settings(sc);
}

/*
 * Write the sandbox's entry script on its host (<remoteRoot>/<id>/enter,
 * replaced atomically): the check-and-touch, then its runtime's wrapper
 * around a login shell on a terminal, as `clawssh shell' runs it.  Sets
 * *path (allocated).  0, or an exit status after printing why.
 */
static int
sshcfg_enter(struct cmd_box *b, char **path)
{
	const struct registry_record	*r = b->rec;
	struct cmd_env_tty		 tty = { 1, 1, 0 };
	struct cmd_env			 e = { NULL, 0 };
	struct sandbox_settings		 now;
	struct buf			 text = BUF_INIT, out = BUF_INIT;
	char				*wrap = NULL, *pre, *ws, *f, *script;
	char				*cause = NULL;
	int				 rc, status = 0;

	f = xasprintf("%s/%s/enter", r->remote_root, r->id);
	if (strpbrk(f, "'%\n") != NULL) {
		free(f);
		return cmd_fail("%s: a remoteRoot with ', %% or a newline "
		    "cannot be named in an ssh config", r->remote_root);
	}
	cmd_box_settings(b, &r->settings, &now);
	if ((rc = cmd_env_wrap(b, &now, &e, NULL, &tty, NULL, &wrap,
	    NULL)) != 0) {
		free(f);
		return rc;
	}
	pre = hostdir_exec_pre(r->remote_root, r->id);
	buf_appendf(&text, "#!/bin/sh\n# clawssh ssh-config %s: a login shell "
	    "in the sandbox\n%s\n", r->id, pre);
	if (wrap != NULL)
		buf_appendf(&text, "%s\nexec \"$@\" sh -c ", wrap);
	else {
		ws = hostdir_workspace(r->remote_root, r->id);
		buf_append_str(&text, "cd -- ");
		shquote_append(&text, ws);
		buf_append_str(&text, " || exit 1\nexec sh -c ");
		free(ws);
	}
	shquote_append(&text, cmd_env_login(&now));
	buf_append_str(&text, "\n");
	script = xasprintf("umask 077; f=%s; cat > \"$f.tmp\" && "
	    "mv -f -- \"$f.tmp\" \"$f\"", f);
	rc = exec_script(b->t, script, text.data, text.len, 4096, &out,
	    &out, &status, &cause);
	if (rc == 0 && status != 0)
		rc = cmd_fail("cannot write %s on the host (status %d)", f,
		    status);
	else if (rc != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
	}
	if (rc == 0)
		*path = f;
	else
		free(f);
	free(script);
	free(pre);
	free(wrap);
	buf_free(&text);
	buf_free(&out);
	return rc;
}

static const char sshconfig_usage[] =
    "usage: clawssh ssh-config [options] ID\n\n"
    "Print ssh_config stanzas for the sandbox: Host clawssh-ID lands in a\n"
    "login shell inside it, Host clawssh-ID-host on its host, with the\n"
    "settings clawssh resolved.\n";

/* The ssh-config command; see clawssh(1). */
int
cmd_sshconfig(int argc, char **argv)
{
	struct cmd_box	 b;
	struct cmd_ops	 o;
	char		*enter = NULL;
	int		 rc;

	memset(&b, 0, sizeof b);
	rc = cmd_ops_parse(&o, "sandbox.sshConfig", &b.cc, sshconfig_usage,
	    argc, argv);
	cmd_ops_free(&o);	/* keeps the operands: they are argv's */
	if (rc == 0 && o.noperands != 1)
		rc = cmd_fail("usage: clawssh ssh-config [options] ID");
	if (rc != 0) {
		cmd_box_free(&b);
		return rc == -1 ? CMD_EXIT_HELP : rc;
	}
	if ((rc = cmd_box_load(&b, o.operands[0])) == 0 &&
	    (rc = cmd_conn_resolve(&b.cc, &b.sc)) == 0) {
		if (cmd_conn_connect(&b.cc, b.sc, &b.t) != 0 ||
		    sshcfg_enter(&b, &enter) != 0)
			log_warn("sandbox %s: no entry script on its host; "
			    "clawssh-%s reaches the host only", b.rec->id,
			    b.rec->id);
		sshcfg_print(b.rec, b.sc, enter);
	}
	free(enter);
	cmd_box_free(&b);
	return rc;
}
