/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host-directory backend (hostdir.h): a sandbox is a directory
 * <root>/<id>/ on a host, holding workspace/, meta.json and a last-used
 * stamp.
 * Every operation is one sh script over one exec channel (see
 * hostdir_scripts.h: the scripts are src/host/hostdir_*.sh), its values
 * passed as positional parameters; its output is parsed here as hostile
 * input.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "exec.h"
#include "hostdir.h"
#include "hostdir_int.h"
#include "hostdir_scripts.h"
#include "lines.h"
#include "log.h"
#include "num.h"
#include "remote_err.h"
#include "sandbox.h"
#include "shquote.h"
#include "transport.h"
#include "xmalloc.h"

#define HOSTDIR_OUT_MAX	(16 * 1024 * 1024)	/* a listing's output cap */
#define HOSTDIR_ERR_MAX	(64 * 1024)
#define HOSTDIR_TIME_MAX	((int64_t)1 << 53)

/* A script with its positional parameters; see hostdir_int.h. */
char *
hostdir_script(const char *body, ...)
{
	struct buf	 b = BUF_INIT;
	va_list		 ap;
	const char	*arg;

	buf_append_str(&b, "set --");
	va_start(ap, body);
	while ((arg = va_arg(ap, const char *)) != NULL) {
		buf_append_str(&b, " ");
		shquote_append(&b, arg);
	}
	va_end(ap);
	buf_append_str(&b, "\n");
	buf_append_str(&b, body);
	return buf_detach(&b);
}

/* Run a script, requiring status 0; output lands in out. */
int
hostdir_run(struct transport *t, const char *script, const char *in,
    size_t inlen, struct buf *out, char **cause)
{
	struct buf	err = BUF_INIT;
	int		rc, status = 0;

	rc = exec_script(t, script, in, inlen, HOSTDIR_OUT_MAX, out, &err,
	    &status, cause);
	if (rc == 0 && status != 0) {
		*cause = remote_err_explain(t, &err, status);
		rc = CLAW_ERR_PROTO;
	}
	buf_free(&err);
	return rc;
}

/* Take one line from l, allocated; see hostdir_int.h. */
char *
hostdir_line(struct lines *l)
{
	const char	*s;
	size_t		 n;

	if (lines_next(l, HOSTDIR_LINE_MAX, &s, &n) != 0)
		return NULL;
	return xstrndup(s, n);
}

/* Parse a non-negative decimal below 2^53; 0 or CLAW_ERR_PARSE. */
static int
hostdir_number(const char *s, int64_t *v)
{
	uint64_t	n;

	if (num_parse_str(s, 0, HOSTDIR_TIME_MAX - 1, &n) != 0)
		return CLAW_ERR_PARSE;
	*v = (int64_t)n;
	return 0;
}

/* Parse "clawssh-entry ID CREATED USED SIZE"; 0 or CLAW_ERR_PARSE. */
static int
hostdir_entry_header(char *line, char *id, int64_t *created, int64_t *used,
    int64_t *size)
{
	char	*f[6], *save = NULL, *p = line;
	int	 n = 0;

	while (n < 6 && (f[n] = strtok_r(p, " ", &save)) != NULL) {
		n++;
		p = NULL;
	}
	if (n != 5 || strcmp(f[0], "clawssh-entry") != 0 ||
	    !sandbox_id_ok(f[1]) || hostdir_number(f[2], created) != 0 ||
	    hostdir_number(f[3], used) != 0 || hostdir_number(f[4], size) != 0 ||
	    *size > SANDBOX_META_MAX)
		return CLAW_ERR_PARSE;
	memcpy(id, f[1], SANDBOX_ID_LEN + 1);
	return 0;
}

/*
 * Parse one entry at l: header line, then SIZE bytes of metadata.
 * Returns 0 (entry filled), 1 (framing fine, metadata bad: skipped), or
 * CLAW_ERR_PARSE (framing broken).
 */
static int
hostdir_entry(struct lines *l, struct hostdir_entry *e, char **cause)
{
	const char	*meta;
	char		*line, id[SANDBOX_ID_LEN + 1];
	int64_t		 size;
	int		 rc;

	memset(e, 0, sizeof *e);
	if ((line = hostdir_line(l)) == NULL)
		return CLAW_ERR_PARSE;
	rc = hostdir_entry_header(line, id, &e->created, &e->last_used, &size);
	free(line);
	if (rc != 0 || lines_bytes(l, (size_t)size, &meta) != 0)
		return CLAW_ERR_PARSE;
	memcpy(e->meta.id, id, sizeof id);
	rc = sandbox_meta_decode(meta, (size_t)size, id, &e->meta, cause);
	return rc == 0 ? 0 : 1;
}

/* Append an entry to a listing. */
static void
hostdir_list_add(struct hostdir_listing *l, const struct hostdir_entry *e)
{
	l->entries = xreallocarray(l->entries, l->n + 1, sizeof *l->entries);
	l->entries[l->n++] = *e;
}

#define HOSTDIR_ENV_LINE	"clawssh-env\n"	/* box-entry's, before status */

/*
 * Parse a listing from label's host in out; with env_at, the listing
 * ends at box-entry's HOSTDIR_ENV_LINE, and *env_at is the offset of
 * what follows it.  See hostdir_parse_list.
 */
static int
hostdir_parse(const char *label, const struct buf *out,
    struct hostdir_listing *l, size_t *env_at, char **cause)
{
	struct lines		 lr;
	struct hostdir_entry	 e;
	char			*line, *why = NULL;
	size_t			 n = strlen(HOSTDIR_ENV_LINE);
	int			 rc;

	memset(l, 0, sizeof *l);
	lines_init(&lr, out->data, out->len);
	if ((line = hostdir_line(&lr)) == NULL ||
	    strncmp(line, "clawssh-now ", 12) != 0 ||
	    hostdir_number(line + 12, &l->now) != 0) {
		free(line);
		*cause = xasprintf("%s: malformed listing", label);
		return CLAW_ERR_PARSE;
	}
	free(line);
	while (lines_left(&lr) != 0) {
		if (env_at != NULL && lines_left(&lr) >= n &&
		    memcmp(lr.p, HOSTDIR_ENV_LINE, n) == 0) {
			*env_at = (size_t)(lr.p - out->data) + n;
			return 0;
		}
		if ((rc = hostdir_entry(&lr, &e, &why)) < 0) {
			*cause = xasprintf("%s: malformed listing entry",
			    label);
			return CLAW_ERR_PARSE;
		}
		if (rc == 0)
			hostdir_list_add(l, &e);
		else {
			log_warn("%s: skipping sandbox %.*s: %s", label,
			    SANDBOX_ID_LEN, e.meta.id, why);
			l->corrupt++;
		}
		free(why);
		why = NULL;
	}
	if (env_at != NULL) {
		*cause = xasprintf("%s: the listing has no environment after "
		    "it", label);
		return CLAW_ERR_PARSE;
	}
	return 0;
}

/* Parse a whole listing from label's host; see hostdir.h. */
int
hostdir_parse_list(const char *label, const struct buf *out,
    struct hostdir_listing *l, char **cause)
{
	return hostdir_parse(label, out, l, NULL, cause);
}

/* Parse box-entry's answer with the environment; see hostdir.h. */
int
hostdir_parse_entry_env(const char *label, const struct buf *out,
    struct hostdir_listing *l, size_t *env_at, char **cause)
{
	return hostdir_parse(label, out, l, env_at, cause);
}

/* The host agent's box-entry command; see hostdir.h. */
char *
hostdir_entry_command(const char *agent, const char *root, const char *id,
    const char *run)
{
	struct buf	s = BUF_INIT;

	buf_append_str(&s, "exec ");
	shquote_append(&s, agent);
	buf_append_str(&s, " box-entry ");
	shquote_append(&s, root);
	buf_append_str(&s, " ");
	shquote_append(&s, id != NULL ? id : "*");
	if (run != NULL) {
		buf_append_str(&s, " ");
		shquote_append(&s, run);
	}
	return buf_detach(&s);
}

/*
 * The listing from the host agent's box-entry: 0 with out filled, or 1
 * (nothing said) for the script to do it: a failure, an older agent.
 */
static int
hostdir_list_agent(struct transport *t, const char *root, const char *id,
    const char *agent, struct hostdir_listing *out)
{
	struct buf	 o = BUF_INIT;
	char		*cause = NULL, *cmd;
	int		 rc;

	cmd = hostdir_entry_command(agent, root, id, NULL);
	if ((rc = hostdir_run(t, cmd, NULL, 0, &o, &cause)) == 0 &&
	    (rc = hostdir_parse_list(transport_label(t), &o, out,
	    &cause)) != 0)
		hostdir_listing_clear(out);
	if (rc != 0)
		log_info("%s: the host agent's listing: %s; the script "
		    "instead", transport_label(t), cause);
	else
		log_debug("%s: listed by the host agent", transport_label(t));
	free(cause);
	free(cmd);
	buf_free(&o);
	return rc == 0 ? 0 : 1;
}

/* List sandboxes under root; see hostdir.h. */
int
hostdir_list(struct transport *t, const char *root, const char *id,
    const char *agent, struct hostdir_listing *out, char **cause)
{
	struct buf	 o = BUF_INIT;
	char		*script;
	int		 rc;

	memset(out, 0, sizeof *out);
	if (id != NULL && !sandbox_id_ok(id)) {
		*cause = xasprintf("invalid sandbox id '%s'", id);
		return CLAW_ERR_INVAL;
	}
	if (agent != NULL && hostdir_list_agent(t, root, id, agent, out) == 0)
		return 0;
	script = hostdir_script(HOSTDIR_SCRIPT_LIST, root,
	    id != NULL ? id : "c????????????", NULL);
	if ((rc = hostdir_run(t, script, NULL, 0, &o, cause)) == 0 &&
	    (rc = hostdir_parse_list(transport_label(t), &o, out,
	    cause)) != 0)
		hostdir_listing_clear(out);
	free(script);
	buf_free(&o);
	return rc;
}

/* Parse get-or-create's answer from label's host; see hostdir.h. */
int
hostdir_parse_got(const char *label, const struct buf *out,
    struct hostdir_entry *got, int *created, char **cause)
{
	struct lines	 lr;
	char		*line, *why = NULL;
	int		 rc;

	lines_init(&lr, out->data, out->len);
	if ((line = hostdir_line(&lr)) == NULL)
		line = xstrdup("");
	*created = strcmp(line, "clawssh-created") == 0;
	rc = *created || strcmp(line, "clawssh-found") == 0 ? 0 :
	    CLAW_ERR_PARSE;
	free(line);
	if (rc == 0 && (rc = hostdir_entry(&lr, got, &why)) == 1) {
		*cause = xasprintf("%s: sandbox %s has corrupt metadata (%s);"
		    " destroy it to start again", label, got->meta.id, why);
		free(why);
		return CLAW_ERR_PARSE;
	}
	if (rc != 0 || lines_left(&lr) != 0) {
		*cause = xasprintf("%s: malformed answer from the host",
		    label);
		return CLAW_ERR_PARSE;
	}
	return 0;
}

/* Find or atomically create a sandbox; see hostdir.h. */
int
hostdir_get_or_create(struct transport *t, const char *root,
    const struct sandbox_meta *want, struct hostdir_entry *got,
    int *created, char **cause)
{
	struct buf	 o = BUF_INIT;
	char		*script, *meta;
	int		 rc;

	meta = sandbox_meta_encode(want);
	script = hostdir_script(HOSTDIR_SCRIPT_GET_OR_CREATE, root, want->id,
	    want->settings.image,
	    contain_runtime_name(want->settings.runtime), NULL);
	if ((rc = hostdir_run(t, script, meta, strlen(meta), &o, cause)) == 0)
		rc = hostdir_parse_got(transport_label(t), &o, got, created,
		    cause);
	free(script);
	free(meta);
	buf_free(&o);
	return rc;
}

/* Remove a sandbox; see hostdir.h. */
int
hostdir_destroy(struct transport *t, const char *root, const char *id,
    int *existed, char **cause)
{
	struct buf	 o = BUF_INIT;
	char		*script;
	int		 rc;

	if (!sandbox_id_ok(id)) {
		*cause = xasprintf("invalid sandbox id '%s'", id);
		return CLAW_ERR_INVAL;
	}
	script = hostdir_script(HOSTDIR_SCRIPT_DESTROY, root, id, NULL);
	if ((rc = hostdir_run(t, script, NULL, 0, &o, cause)) == 0) {
		if (o.data != NULL &&
		    strcmp(o.data, "clawssh-destroyed\n") == 0)
			*existed = 1;
		else if (o.data != NULL &&
		    strcmp(o.data, "clawssh-missing\n") == 0)
			*existed = 0;
		else {
			*cause = xasprintf("%s: malformed answer from the "
			    "host", transport_label(t));
			rc = CLAW_ERR_PARSE;
		}
	}
	free(script);
	buf_free(&o);
	return rc;
}

/* The sandbox directory, root/id. */
static char *
hostdir_dir(const char *root, const char *id)
{
	return xasprintf("%s/%s", root, id);
}

/*
 * The check-and-touch run before each command; see hostdir.h.  The
 * function __claw_pre, called with the sandbox directory and the id,
 * then unset: the command's own positional parameters stay as they are.
 */
char *
hostdir_exec_pre(const char *root, const char *id)
{
	struct buf	 b = BUF_INIT;
	char		*dir = hostdir_dir(root, id);

	buf_append_str(&b, HOSTDIR_SCRIPT_EXEC_PRE "__claw_pre ");
	shquote_append(&b, dir);
	buf_append_str(&b, " ");
	shquote_append(&b, id);
	buf_append_str(&b, "; unset -f __claw_pre");
	free(dir);
	return buf_detach(&b);
}

/* The workspace directory; see hostdir.h. */
char *
hostdir_workspace(const char *root, const char *id)
{
	return xasprintf("%s/%s/workspace", root, id);
}

/* The backend name records may carry that name spells; see hostdir.h. */
const char *
hostdir_backend_name(const char *name)
{
	if (name != NULL && strcmp(name, HOSTDIR_BACKEND_SSH) == 0)
		return HOSTDIR_BACKEND_SSH;
	if (name != NULL && strcmp(name, HOSTDIR_BACKEND_MANAGED) == 0)
		return HOSTDIR_BACKEND_MANAGED;
	return NULL;
}

/* Free a listing's entries; see hostdir.h. */
void
hostdir_listing_clear(struct hostdir_listing *l)
{
	if (l == NULL)
		return;
	free(l->entries);
	memset(l, 0, sizeof *l);
}
