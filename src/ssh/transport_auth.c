/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * User authentication: ssh-agent identities first, then identity files,
 * as OpenSSH does.  Only public keys: there is no one to type a password.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <libssh2.h>

#include "compat.h"
#include "buf.h"
#include "error.h"
#include "keyfile.h"
#include "log.h"
#include "sshconfig.h"
#include "transport.h"
#include "transport_int.h"
#include "xmalloc.h"

/* What one authentication attempt learned, for the final message. */
struct auth_state {
	struct transport		*t;
	const struct sshconfig		*sc;
	const struct transport_opts	*opts;
	int64_t				 deadline;
	struct buf			 tried;	/* "ssh-agent (2 keys), F" */
	struct buf			 notes;	/* why some keys were skipped */
	int				 timed_out;
};

static void	auth_note(struct buf *, const char *, ...)
		    __attribute__((__format__(__printf__, 2, 3)));

/* Append a semicolon-separated note to a list buffer. */
static void
auth_note(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	if (b->len != 0)
		buf_append_str(b, "; ");
	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	buf_append_str(b, s);
	free(s);
}

/*
 * Wait for the session: 0, or transport_wait's CLAW_ERR_TIMEOUT or
 * CLAW_ERR_IO, either remembered as the deadline passing.
 */
static int
auth_wait(struct auth_state *st)
{
	int	rc;

	if ((rc = transport_wait(st->t, st->deadline)) == 0)
		return 0;
	st->timed_out = 1;
	return rc;
}

/* Ask the server which methods it allows; NULL list means already in. */
static int
auth_methods(struct auth_state *st, char **methods, char **cause)
{
	LIBSSH2_SESSION	*s = st->t->session;
	const char	*user = st->sc->user;
	char		*list;

	while ((list = libssh2_userauth_list(s, user,
	    (unsigned)strlen(user))) == NULL) {
		if (libssh2_userauth_authenticated(s)) {
			*methods = NULL;
			return 0;
		}
		if (libssh2_session_last_errno(s) != LIBSSH2_ERROR_EAGAIN ||
		    auth_wait(st) != 0) {
			*cause = xasprintf("%s: %s while asking for "
			    "authentication methods", st->t->label,
			    st->timed_out ? "timed out" : "connection failed");
			return st->timed_out ? CLAW_ERR_TIMEOUT :
			    CLAW_ERR_CONNECT;
		}
	}
	*methods = xstrdup(list);
	return 0;
}

/* Return 1 if blob is the public half of a configured identity file. */
static int
auth_blob_configured(const struct sshconfig *sc, const unsigned char *blob,
    size_t len)
{
	unsigned char	*pub;
	size_t		 i, plen;
	int		 same;

	for (i = 0; i < sc->n_identity_files; i++) {
		pub = keyfile_public_blob(sc->identity_files[i], &plen);
		if (pub == NULL)
			continue;
		same = plen == len && memcmp(pub, blob, len) == 0;
		free(pub);
		if (same)
			return 1;
	}
	return 0;
}

/* Try one agent identity; 1 if accepted, 0 if not, auth_wait's error. */
static int
auth_agent_one(struct auth_state *st, LIBSSH2_AGENT *agent,
    struct libssh2_agent_publickey *id)
{
	int	rc, w;

	if (st->sc->identities_only &&
	    !auth_blob_configured(st->sc, id->blob, id->blob_len))
		return 0;
	log_debug("trying agent key %s", id->comment != NULL ?
	    id->comment : "(no comment)");
	while ((rc = libssh2_agent_userauth(agent, st->sc->user, id)) ==
	    LIBSSH2_ERROR_EAGAIN) {
		if ((w = auth_wait(st)) != 0)
			return w;
	}
	return rc == 0;
}

/* Try every identity the agent holds; returns 1 once one is accepted. */
static int
auth_agent(struct auth_state *st)
{
	struct libssh2_agent_publickey	*id = NULL;
	LIBSSH2_AGENT			*agent;
	int				 ok = 0, n = 0;

	if (getenv("SSH_AUTH_SOCK") == NULL ||
	    (agent = libssh2_agent_init(st->t->session)) == NULL)
		return 0;
	if (libssh2_agent_connect(agent) != 0 ||
	    libssh2_agent_list_identities(agent) != 0) {
		log_debug("ssh-agent not usable");
		libssh2_agent_free(agent);
		return 0;
	}
	while (ok == 0 && libssh2_agent_get_identity(agent, &id, id) == 0) {
		n++;
		ok = auth_agent_one(st, agent, id);
	}
	if (n > 0 && ok != 1) {
		if (st->tried.len != 0)
			buf_append_str(&st->tried, ", ");
		buf_appendf(&st->tried, "ssh-agent (%d key%s)", n,
		    n == 1 ? "" : "s");
	}
	libssh2_agent_disconnect(agent);
	libssh2_agent_free(agent);
	return ok == 1;
}

/*
 * Get the passphrase for an encrypted key, or note why there is none:
 * CLAW_ERR_NOTFOUND without a passphrase source, CLAW_ERR_IO if it cannot
 * be read.
 */
static int
auth_passphrase(struct auth_state *st, const char *path, char **pass)
{
	char	*err = NULL;

	*pass = NULL;
	if (st->opts == NULL || st->opts->passphrase_file == NULL) {
		auth_note(&st->notes, "%s is encrypted and no passphrase "
		    "source is configured (set ssh.passphraseFile in the "
		    "config or use --passphrase-file)", path);
		return CLAW_ERR_NOTFOUND;
	}
	if ((*pass = keyfile_read_passphrase(st->opts->passphrase_file,
	    &err)) == NULL) {
		auth_note(&st->notes, "%s", err);
		free(err);
		return CLAW_ERR_IO;
	}
	return 0;
}

/*
 * Try one identity file; 1 if accepted, 0 if not, CLAW_ERR_TIMEOUT on
 * timeout.
 */
static int
auth_file_one(struct auth_state *st, const char *path)
{
	char	*pass = NULL;
	int	 enc, rc;

	if ((enc = keyfile_is_encrypted(path)) < 0) {
		if (enc != CLAW_ERR_NOTFOUND || st->sc->identity_files_set)
			auth_note(&st->notes, "%s: not a readable private key",
			    path);
		return 0;
	}
	if (enc == 1 && auth_passphrase(st, path, &pass) != 0)
		return 0;
	log_debug("trying identity file %s", path);
	if (st->tried.len != 0)
		buf_append_str(&st->tried, ", ");
	buf_append_str(&st->tried, path);
	while ((rc = libssh2_userauth_publickey_fromfile_ex(st->t->session,
	    st->sc->user, (unsigned)strlen(st->sc->user), NULL, path,
	    pass)) == LIBSSH2_ERROR_EAGAIN) {
		if (auth_wait(st) != 0)
			break;
	}
	if (pass != NULL)
		freezero(pass, strlen(pass));
	if (rc == LIBSSH2_ERROR_FILE)
		auth_note(&st->notes, "%s could not be loaded (wrong "
		    "passphrase or unsupported key format)", path);
	if (st->timed_out)
		return CLAW_ERR_TIMEOUT;
	return rc == 0;
}

/* Try every identity file in order; returns 1 once one is accepted. */
static int
auth_files(struct auth_state *st)
{
	size_t	i;
	int	rc;

	for (i = 0; i < st->sc->n_identity_files; i++) {
		if ((rc = auth_file_one(st, st->sc->identity_files[i])) != 0)
			return rc;
	}
	return 0;
}

/* Build the final "permission denied" message. */
static char *
auth_failure(struct auth_state *st, const char *methods)
{
	return xasprintf("%s: permission denied (server allows: %s); tried %s"
	    "%s%s. Check that the key is in the remote authorized_keys "
	    "(RSA keys need SHA-2 signatures, which libssh2 1.10 lacks: use "
	    "ed25519 or ECDSA)", st->t->label, methods,
	    st->tried.len != 0 ? st->tried.data : "no keys",
	    st->notes.len != 0 ? "; " : "",
	    st->notes.len != 0 ? st->notes.data : "");
}

/* Authenticate; see transport_int.h. */
int
transport_auth(struct transport *t, const struct sshconfig *sc,
    const struct transport_opts *opts, int64_t deadline, char **cause)
{
	struct auth_state	 st = { t, sc, opts, deadline, BUF_INIT,
				    BUF_INIT, 0 };
	char			*methods = NULL;
	int			 rc, ok = 0;

	if ((rc = auth_methods(&st, &methods, cause)) != 0 || methods == NULL)
		return rc;
	log_debug("server allows authentication: %s", methods);
	if (strstr(methods, "publickey") != NULL) {
		ok = auth_agent(&st);
		if (!ok && !st.timed_out)
			ok = auth_files(&st);
	}
	rc = 0;
	if (st.timed_out) {
		*cause = xasprintf("%s: authentication timed out "
		    "(ConnectTimeout)", t->label);
		rc = CLAW_ERR_TIMEOUT;
	} else if (ok != 1) {
		*cause = auth_failure(&st, methods);
		rc = CLAW_ERR_AUTH;
	}
	free(methods);
	buf_free(&st.tried);
	buf_free(&st.notes);
	return rc;
}
