/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Host key policy: order the algorithms so a key we already know is
 * offered first, then check the server's key against known_hosts, record
 * it when StrictHostKeyChecking allows, and refuse a changed key always.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include <libssh2.h>

#include "buf.h"
#include "error.h"
#include "knownhosts.h"
#include "strv.h"
#include "log.h"
#include "sshconfig.h"
#include "transport_int.h"
#include "xmalloc.h"

/*
 * Host key algorithms we verify, in OpenSSH's default order.  Certificate
 * variants are left out: we do not check certificates.  libssh2 1.10 has no
 * rsa-sha2-* host keys, so an RSA-only server running OpenSSH >= 8.8 cannot
 * be reached (see docs/libssh2-notes.md).
 */
static const char *const hostkey_algs[] = {
	"ssh-ed25519",
	"ecdsa-sha2-nistp256",
	"ecdsa-sha2-nistp384",
	"ecdsa-sha2-nistp521",
	"ssh-rsa",
};
#define N_HOSTKEY_ALGS	(sizeof hostkey_algs / sizeof hostkey_algs[0])

/* Collect the user's and the global known_hosts files in one array. */
static char **
hostkey_files(const struct sshconfig *sc, size_t *n)
{
	char	**files;
	size_t	  i, k = 0;

	files = xcalloc(sc->n_known_hosts_files +
	    sc->n_global_known_hosts_files + 1, sizeof *files);
	for (i = 0; i < sc->n_known_hosts_files; i++)
		files[k++] = sc->known_hosts_files[i];
	for (i = 0; i < sc->n_global_known_hosts_files; i++)
		files[k++] = sc->global_known_hosts_files[i];
	*n = k;
	return files;
}

/* Return 1 if alg is in the NULL-terminated list. */
static int
hostkey_listed(char **list, const char *alg)
{
	for (; list != NULL && *list != NULL; list++) {
		if (strcmp(*list, alg) == 0)
			return 1;
	}
	return 0;
}

/* Prefer the key types known_hosts already has for this host. */
void
transport_hostkey_prefs(struct transport *t, const struct sshconfig *sc)
{
	struct buf	  b = BUF_INIT;
	char		**files, **known = NULL;
	size_t		  n, i;
	int		  pass;

	files = hostkey_files(sc, &n);
	if (knownhosts_types(files, n, SSHCONFIG_KEYNAME(sc), sc->port,
	    &known) != 0)
		known = NULL;
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < N_HOSTKEY_ALGS; i++) {
			if (hostkey_listed(known, hostkey_algs[i]) != !pass)
				continue;
			if (b.len != 0)
				buf_append_str(&b, ",");
			buf_append_str(&b, hostkey_algs[i]);
		}
	}
	log_debug("host key algorithms: %s", b.data);
	libssh2_session_method_pref(t->session, LIBSSH2_METHOD_HOSTKEY,
	    b.data);
	strv_free(known);
	free(files);
	buf_free(&b);
}

/* Return the short upper-case name OpenSSH prints for a key type. */
static const char *
hostkey_type_label(const char *type)
{
	if (type == NULL)
		return "unknown";
	if (strcmp(type, "ssh-ed25519") == 0)
		return "ED25519";
	if (strncmp(type, "ecdsa-", 6) == 0)
		return "ECDSA";
	if (strcmp(type, "ssh-rsa") == 0)
		return "RSA";
	if (strcmp(type, "ssh-dss") == 0)
		return "DSA";
	return type;
}

/* Return the known_hosts name of the host: host, or [host]:port. */
static char *
hostkey_name(const struct sshconfig *sc)
{
	if (sc->port == 22)
		return xstrdup(SSHCONFIG_KEYNAME(sc));
	return xasprintf("[%s]:%d", SSHCONFIG_KEYNAME(sc), sc->port);
}

/* Record an unknown key when policy allows; otherwise refuse it. */
static int
hostkey_unknown(const struct sshconfig *sc, const unsigned char *key,
    size_t len, const char *label, const char *fp, char **cause)
{
	char	*name = hostkey_name(sc), *err = NULL;
	int	 rc = 0;

	if (sc->strict != SSHCONFIG_STRICT_ACCEPT_NEW &&
	    sc->strict != SSHCONFIG_STRICT_NO) {
		*cause = xasprintf("host key for %s is not known (%s key "
		    "%s) and StrictHostKeyChecking is %s: add it to %s, or "
		    "connect once with -o StrictHostKeyChecking=accept-new",
		    name, label, fp, sc->strict == SSHCONFIG_STRICT_YES ?
		    "yes" : "ask (no prompt here, so refused)",
		    sc->n_known_hosts_files > 0 ? sc->known_hosts_files[0] :
		    "a known_hosts file");
		rc = CLAW_ERR_HOSTKEY_UNKNOWN;
	} else if (sc->n_known_hosts_files == 0)
		log_warn("not recording host key for %s: no "
		    "UserKnownHostsFile", name);
	else if (knownhosts_add(sc->known_hosts_files[0],
	    SSHCONFIG_KEYNAME(sc), sc->port, key, len, sc->hash_known_hosts,
	    &err) != 0) {
		log_warn("could not record host key for %s: %s", name, err);
		free(err);
	} else
		log_warn("Permanently added '%s' (%s) to the list of known "
		    "hosts in %s.", name, label, sc->known_hosts_files[0]);
	free(name);
	return rc;
}

/* Describe a changed or revoked key, naming the file and line. */
static int
hostkey_refuse(const struct sshconfig *sc, int verdict,
    const struct knownhosts_where *w, const char *label, const char *fp,
    char **cause)
{
	char	*name = hostkey_name(sc);

	if (verdict == CLAW_ERR_HOSTKEY_REVOKED)
		*cause = xasprintf("host key for %s (%s key %s) is marked "
		    "as revoked in %s:%zu; refusing to connect", name, label,
		    fp, w->file, w->line);
	else
		*cause = xasprintf("WARNING: REMOTE HOST IDENTIFICATION HAS "
		    "CHANGED for %s: the server sent %s key %s, which "
		    "differs from the offending key in %s:%zu. Someone could "
		    "be eavesdropping on you (man-in-the-middle), or the host "
		    "key was replaced. If you know why, remove the old key "
		    "with: ssh-keygen -R '%s' -f '%s'", name, label, fp,
		    w->file, w->line, name, w->file);
	free(name);
	return verdict;
}

/* Verify the server's host key; see transport_connect. */
int
transport_hostkey_verify(struct transport *t, const struct sshconfig *sc,
    char **cause)
{
	struct knownhosts_where	 w = { NULL, 0 };
	const unsigned char	*key;
	char			**files, *type, *fp;
	const char		*label;
	size_t			 len, n;
	int			 ktype, rc;

	key = (const unsigned char *)libssh2_session_hostkey(t->session,
	    &len, &ktype);
	if (key == NULL || len == 0) {
		*cause = xasprintf("%s: server sent no host key", t->label);
		return CLAW_ERR_PROTO;
	}
	type = knownhosts_key_type(key, len);
	label = hostkey_type_label(type);
	fp = knownhosts_fingerprint(key, len);
	log_debug("server host key: %s %s", label, fp);
	files = hostkey_files(sc, &n);
	rc = knownhosts_check(files, n, SSHCONFIG_KEYNAME(sc), sc->port, key,
	    len, &w, cause);
	if (rc == 0)
		log_debug("host key found in %s:%zu", w.file, w.line);
	else if (rc == CLAW_ERR_HOSTKEY_UNKNOWN)
		rc = hostkey_unknown(sc, key, len, label, fp, cause);
	else if (rc == CLAW_ERR_HOSTKEY_CHANGED ||
	    rc == CLAW_ERR_HOSTKEY_REVOKED)
		rc = hostkey_refuse(sc, rc, &w, label, fp, cause);
	knownhosts_where_clear(&w);
	free(files);
	free(type);
	free(fp);
	return rc;
}
