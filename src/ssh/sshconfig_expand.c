/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ssh_config(5) expansion: %-tokens and ~ in paths, and the last step of
 * sshconfig_resolve, which fills in every default and expands the file
 * lists once the final host, user and port are known.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "compat.h"
#include "buf.h"
#include "error.h"
#include "log.h"
#include "sshconfig.h"
#include "sshconfig_int.h"
#include "xmalloc.h"

static const char *const sc_default_ids[] = {
	"~/.ssh/id_rsa", "~/.ssh/id_ecdsa", "~/.ssh/id_ecdsa_sk",
	"~/.ssh/id_ed25519", "~/.ssh/id_ed25519_sk", "~/.ssh/id_xmss",
	"~/.ssh/id_dsa", NULL
};
static const char *const sc_default_ukh[] = {
	"~/.ssh/known_hosts", "~/.ssh/known_hosts2", NULL
};
static const char *const sc_default_gkh[] = {
	"/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2", NULL
};

/* Return the value of token key, or NULL if it is not one. */
static const char *
sc_token_find(const struct sc_token *tok, char key)
{
	for (; tok->key != '\0'; tok++) {
		if (tok->key == key)
			return tok->value;
	}
	return NULL;
}

/* Expand %-tokens in s; on an unknown one set *bad, CLAW_ERR_PARSE. */
int
sshconfig_percent(const char *s, const struct sc_token *tok, char **out,
    char *bad)
{
	struct buf	 b = BUF_INIT;
	const char	*v;

	for (; *s != '\0'; s++) {
		if (*s != '%') {
			buf_append(&b, s, 1);
			continue;
		}
		if (*++s == '%')
			v = "%";
		else if ((v = sc_token_find(tok, *s)) == NULL) {
			*bad = *s;
			buf_free(&b);
			return CLAW_ERR_PARSE;
		}
		buf_append_str(&b, v);
	}
	*out = buf_detach(&b);
	return 0;
}

/* Report a bad %-token found in value at file and line. */
int
sshconfig_percent_err(char **cause, const char *file, size_t line,
    const char *value, char bad)
{
	if (bad == '\0')
		return sshconfig_err(cause, file, line, "'%%' at end of \"%s\"",
		    value);
	return sshconfig_err(cause, file, line, "unknown token %%%c in \"%s\"",
	    bad, value);
}

/* Look up the home directory of user name; NULL if there is none. */
static char *
sc_home_of(const char *name)
{
	struct passwd	 pw, *res = NULL;
	char		 buf[4096];

	if (getpwnam_r(name, &pw, buf, sizeof buf, &res) != 0 || res == NULL)
		return NULL;
	return xstrdup(pw.pw_dir);
}

/* Expand a leading ~ or ~user in s; CLAW_ERR_NOTFOUND if no such user. */
int
sshconfig_tilde(const char *home, const char *s, char **out)
{
	const char	*slash;
	char		*name, *dir;

	if (*s != '~') {
		*out = xstrdup(s);
		return 0;
	}
	if ((slash = strchr(s, '/')) == NULL)
		slash = s + strlen(s);
	if (slash == s + 1)
		dir = xstrdup(home);
	else {
		name = xstrndup(s + 1, (size_t)(slash - s - 1));
		dir = sc_home_of(name);
		free(name);
		if (dir == NULL)
			return CLAW_ERR_NOTFOUND;
	}
	*out = xasprintf("%s%s", strcmp(dir, "/") == 0 && *slash == '/' ?
	    "" : dir, slash);
	free(dir);
	return 0;
}

/* Expand ~ and then %-tokens in one item. */
static int
sc_expand_item(const struct sc_item *it, const struct sc_token *tok,
    const char *home, char **out, char **cause)
{
	char	*t, bad = '\0';
	int	 r;

	if (sshconfig_tilde(home, it->value, &t) != 0)
		return sshconfig_err(cause, it->file, it->line,
		    "unknown user in \"%s\"", it->value);
	r = sshconfig_percent(t, tok, out, &bad);
	free(t);
	if (r != 0)
		return sshconfig_percent_err(cause, it->file, it->line,
		    it->value, bad);
	return 0;
}

/* Expand %-tokens (not ~: the shell sees the command) in ProxyCommand. */
static int
sc_expand_proxy(const struct sc_item *it, const struct sc_token *tok,
    char **out, char **cause)
{
	char	bad = '\0';

	if (sshconfig_percent(it->value, tok, out, &bad) != 0)
		return sshconfig_percent_err(cause, it->file, it->line,
		    it->value, bad);
	return 0;
}

/* Return 1 if s is one of v[0..n). */
static int
sc_strv_has(char *const *v, size_t n, const char *s)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (strcmp(v[i], s) == 0)
			return 1;
	}
	return 0;
}

/* Free n strings of v and v. */
void
sshconfig_strv_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Expand a list into a new array, dropping "none" and duplicates. */
static int
sc_expand_list(const struct sc_list *l, const struct sc_token *tok,
    const char *home, char ***vp, size_t *np, char **cause)
{
	char	**v = NULL, *s;
	size_t	  i, n = 0;
	int	  r;

	for (i = 0; i < l->n; i++) {
		if (strcasecmp(l->items[i].value, "none") == 0)
			continue;
		if ((r = sc_expand_item(&l->items[i], tok, home, &s,
		    cause)) != 0) {
			sshconfig_strv_free(v, n);
			return r;
		}
		if (sc_strv_has(v, n, s)) {
			free(s);
			continue;
		}
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n++] = s;
	}
	*vp = v;
	*np = n;
	return 0;
}

/* Fill a list nobody set with built-in defaults. */
static void
sc_list_defaults(struct sc_list *l, const char *const *defaults)
{
	if (l->set)
		return;
	for (; *defaults != NULL; defaults++)
		sshconfig_list_add(l, *defaults, NULL, 0);
}

/* Set the host name buffers: long (%l) and up to the first dot (%L). */
static void
sc_local_host(char *lhost, char *shost, size_t len)
{
	if (gethostname(lhost, len) != 0) {
		log_debug("gethostname: %s", strerror(errno));
		lhost[0] = '\0';
	}
	lhost[len - 1] = '\0';
	strlcpy(shost, lhost, len);
	shost[strcspn(shost, ".")] = '\0';
}

/* Expand the file lists of p into c with the final values of c. */
static int
sc_finish_lists(struct sc_parse *p, struct sshconfig *c, char **cause)
{
	const struct sshconfig_query *q = p->q;
	char	 port[16], uid[32], lhost[256], shost[256];
	const struct sc_token tok[] = {
		{ 'd', q->home }, { 'h', c->hostname }, { 'i', uid },
		{ 'k', q->host }, { 'L', shost }, { 'l', lhost },
		{ 'n', q->host }, { 'p', port }, { 'r', c->user },
		{ 'u', q->local_user }, { '\0', NULL }
	};
	int	 r;

	snprintf(port, sizeof port, "%d", c->port);
	snprintf(uid, sizeof uid, "%lu", (unsigned long)getuid());
	sc_local_host(lhost, shost, sizeof lhost);
	sc_list_defaults(&p->ids, sc_default_ids);
	sc_list_defaults(&p->ukh, sc_default_ukh);
	sc_list_defaults(&p->gkh, sc_default_gkh);
	if ((r = sc_expand_list(&p->ids, tok, q->home, &c->identity_files,
	    &c->n_identity_files, cause)) != 0)
		return r;
	if ((r = sc_expand_list(&p->ukh, tok, q->home, &c->known_hosts_files,
	    &c->n_known_hosts_files, cause)) != 0)
		return r;
	if (p->proxy.n > 0 && (r = sc_expand_proxy(&p->proxy.items[0], tok,
	    &c->proxy_command, cause)) != 0)
		return r;
	return sc_expand_list(&p->gkh, tok, q->home,
	    &c->global_known_hosts_files, &c->n_global_known_hosts_files,
	    cause);
}

/* Copy the integer settings into c with defaults filled in. */
static void
sc_finish_ints(const struct sc_parse *p, struct sshconfig *c)
{
	const int	*v = p->ints;

	if (p->q->port > 0)
		c->port = p->q->port;
	else
		c->port = v[SC_PORT] > 0 ? v[SC_PORT] : 22;
	c->identities_only = v[SC_IDONLY] == 1;
	c->strict = SSHCONFIG_STRICT_ASK;
	if (v[SC_STRICT] != -1)
		c->strict = (enum sshconfig_strict)v[SC_STRICT];
	c->hash_known_hosts = v[SC_HASH] == 1;
	c->connect_timeout = v[SC_CTIMEOUT] > 0 ? v[SC_CTIMEOUT] : 0;
	c->server_alive_interval = v[SC_ALIVE] >= 0 ? v[SC_ALIVE] :
	    SSHCONFIG_ALIVE_DEFAULT;
	c->server_alive_count_max = v[SC_ALIVEMAX] >= 0 ? v[SC_ALIVEMAX] : 3;
}

/* Lower-case a string in place. */
static void
sc_lower(char *s)
{
	for (; *s != '\0'; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Build the resolved config from what was read. */
int
sshconfig_finish(struct sc_parse *p, struct sshconfig **out, char **cause)
{
	const struct sshconfig_query *q = p->q;
	struct sshconfig	*c;
	int			 r;

	c = xcalloc(1, sizeof *c);
	c->host = xstrdup(q->host);
	c->hostname = xstrdup(p->hostname != NULL ? p->hostname : q->host);
	sc_lower(c->hostname);
	if (q->user != NULL)
		c->user = xstrdup(q->user);
	else
		c->user = xstrdup(p->user != NULL ? p->user : q->local_user);
	c->identity_files_set = p->ids.set;
	if (p->host_key_alias != NULL)
		c->host_key_alias = xstrdup(p->host_key_alias);
	sc_finish_ints(p, c);
	if ((r = sc_finish_lists(p, c, cause)) != 0) {
		sshconfig_free(c);
		return r;
	}
	*out = c;
	return 0;
}
