/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scripts for the host-side steps on a sandbox's workspace.  See
 * hostws.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "agent_req.h"
#include "buf.h"
#include "error.h"
#include "exec.h"
#include "hostws.h"
#include "log.h"
#include "shquote.h"
#include "transport.h"
#include "xmalloc.h"

/* Set h; see hostws.h. */
void
hostws_init(struct hostws *h, const char *dir, const char *jail)
{
	memset(h, 0, sizeof *h);
	h->dir = xstrdup(dir);
	h->jail = jail != NULL ? xstrdup(jail) : NULL;
}

/* A copy or NULL. */
static char *
hostws_dup(const char *s)
{
	return s != NULL ? xstrdup(s) : NULL;
}

/* Copy; see hostws.h. */
void
hostws_copy(struct hostws *dst, const struct hostws *src)
{
	hostws_init(dst, src->dir, src->jail);
	dst->pre = hostws_dup(src->pre);
	dst->agent = hostws_dup(src->agent);
	dst->rundir = hostws_dup(src->rundir);
	dst->token = hostws_dup(src->token);
	dst->workdir = hostws_dup(src->workdir);
}

/* Join the environment; see hostws.h. */
void
hostws_join(struct hostws *h, const char *agent, const char *rundir,
    const char *token, const char *workdir)
{
	h->agent = xstrdup(agent);
	h->rundir = xstrdup(rundir);
	h->token = xstrdup(token);
	h->workdir = xstrdup(workdir);
}

/* Set the check run first; see hostws.h. */
void
hostws_pre(struct hostws *h, const char *pre)
{
	free(h->pre);
	h->pre = hostws_dup(pre);
}

/* Free h's strings; see hostws.h. */
void
hostws_clear(struct hostws *h)
{
	free(h->dir);
	free(h->jail);
	free(h->pre);
	free(h->agent);
	free(h->rundir);
	free(h->token);
	free(h->workdir);
	h->dir = h->jail = h->pre = NULL;
	h->agent = h->rundir = h->token = h->workdir = NULL;
}

/*
 * Append the agent's box-exec line for body in h's running environment
 * (--join: it starts nothing), with extra options (--check).
 */
static void
hostws_box_exec(struct buf *b, const struct hostws *h, const char *extra,
    const char *body)
{
	buf_append_str(b, "\"$__claw_j\" box-exec --join");
	buf_append_str(b, extra);
	buf_append_str(b, " --dir ");
	shquote_append(b, h->rundir);
	buf_append_str(b, " --spec ");
	shquote_append(b, h->token);
	if (body == NULL)
		return;
	buf_append_str(b, " --watch-parent --cwd ");
	shquote_append(b, h->workdir);
	buf_append_str(b, " -- sh -c ");
	shquote_append(b, body);
}

/*
 * For a joined h with a jail: run body in the sandbox's running
 * environment when the agent finds it running with h's settings (exec
 * there when whole is set), else go on to the jail.  The daemon's channel
 * tries this first (hostws_run); this is the way without it.
 */
static void
hostws_append_join(struct buf *b, const struct hostws *h, const char *body,
    int whole)
{
	buf_append_str(b, "__claw_j=");
	shquote_append(b, h->agent);
	buf_append_str(b, "\nif ");
	hostws_box_exec(b, h, " --check", NULL);
	buf_append_str(b, " 2>/dev/null; then\n");
	buf_append_str(b, whole ? "exec " : "");
	hostws_box_exec(b, h, "", body);
	buf_append_str(b, whole ? "\nfi\n" : "\nelse\n");
}

/* Append the step: the check, then the jail and exec, or cd and the body. */
static void
hostws_append(struct buf *b, const struct hostws *h, const char *body)
{
	if (h->agent != NULL && h->jail != NULL)
		hostws_append_join(b, h, body, 1);
	if (h->pre != NULL)
		buf_appendf(b, "%s\n", h->pre);
	if (h->jail != NULL) {
		buf_appendf(b, "%s\nexec \"$@\" sh -c ", h->jail);
		shquote_append(b, body);
		return;
	}
	buf_append_str(b, "mkdir -p -- ");
	shquote_append(b, h->dir);
	buf_append_str(b, " && cd -- ");
	shquote_append(b, h->dir);
	buf_appendf(b, " || exit 1\n%s", body);
}

/* A whole script; see hostws.h. */
char *
hostws_script(const struct hostws *h, const char *body)
{
	struct buf	b = BUF_INIT;

	hostws_append(&b, h, body);
	return buf_detach(&b);
}

/* The step as a child of the script; see hostws.h. */
char *
hostws_inline(const struct hostws *h, const char *body)
{
	struct buf	b = BUF_INIT;

	if (h->jail == NULL) {
		buf_append_str(&b, "(\n");
		hostws_append(&b, h, body);
		buf_append_str(&b, "\n)");
	} else {
		if (h->agent != NULL)
			hostws_append_join(&b, h, body, 0);
		if (h->pre != NULL)
			buf_appendf(&b, "%s\n", h->pre);
		buf_appendf(&b, "%s\n\"$@\" sh -c ", h->jail);
		shquote_append(&b, body);
		if (h->agent != NULL)
			buf_append_str(&b, "\nfi");
	}
	return buf_detach(&b);
}

/* Run a step; see hostws.h. */
int
hostws_run(struct transport *t, const struct hostws *h, const char *body,
    struct exec_opts *o, int *status, char **cause)
{
	struct exec_agent	 ea;
	char			*script;
	int			 rc;

	if (h->agent != NULL && transport_mux(t) != NULL) {
		memset(&ea, 0, sizeof ea);
		ea.path = h->agent;
		ea.dir = h->rundir;
		ea.spec = h->token;
		ea.cwd = h->workdir;
		o->agent = &ea;
		rc = exec_sh(t, body, o, status, cause);
		o->agent = NULL;
		if (rc != CLAW_ERR_UNSUPPORTED) {
			log_debug("a step in the sandbox's running environment");
			return rc;
		}
		log_debug("a step through the host agent's channel: %s; in a "
		    "jail of its own", *cause != NULL ? *cause : "refused");
		free(*cause);
		*cause = NULL;
	}
	if (h->agent != NULL && h->jail != NULL)
		log_debug("a step that joins the environment if the agent "
		    "finds it running (box-exec --join), else takes a jail of "
		    "its own");
	script = hostws_script(h, body);
	rc = exec_sh(t, script, o, status, cause);
	free(script);
	return rc;
}

/* Run the agent's own step; see hostws.h. */
int
hostws_run_self(struct transport *t, const struct hostws *h,
    char *const *argv, struct exec_opts *o, int *status, char **cause)
{
	struct exec_agent	 ea;
	const char		*no = getenv("CLAWSSH_NO_AGENT_SELF");
	int			 rc, argc;

	if (h->agent == NULL || transport_mux(t) == NULL ||
	    (no != NULL && strcmp(no, "1") == 0))
		return CLAW_ERR_UNSUPPORTED;
	for (argc = 0; argv[argc] != NULL; argc++)
		;
	memset(&ea, 0, sizeof ea);
	ea.path = h->agent;
	ea.dir = h->rundir;
	ea.spec = h->token;
	ea.cwd = h->workdir;
	ea.self = 1;
	o->agent = &ea;
	o->argc = argc;
	o->argv = argv;
	rc = exec_run(t, o, status, cause);
	o->agent = NULL;
	o->argc = 0;
	o->argv = NULL;
	return rc;
}

/* Whether the agent did not know its step; see hostws.h. */
int
hostws_self_unknown(int status, const struct buf *err)
{
	static const char	usage[] = "usage: clawssh-agent";

	return status == 125 && err->len >= sizeof usage - 1 &&
	    memcmp(err->data, usage, sizeof usage - 1) == 0;
}

/* The agent's own step with captured output; see hostws.h. */
int
hostws_capture_self(struct transport *t, const struct hostws *h,
    char *const *argv, const char *in, size_t inlen, size_t max,
    struct buf *out, struct buf *err, int *status, char **cause)
{
	struct exec_opts	o;
	int			rc;

	exec_opts_capture(&o, in, inlen, max, out, err);
	rc = hostws_run_self(t, h, argv, &o, status, cause);
	if (rc == 0 && hostws_self_unknown(*status, err)) {
		buf_reset(out);
		buf_reset(err);
		rc = CLAW_ERR_UNSUPPORTED;
	}
	return rc;
}

/* A step with captured output; see hostws.h. */
int
hostws_capture(struct transport *t, const struct hostws *h, const char *body,
    const char *in, size_t inlen, size_t max, struct buf *out,
    struct buf *err, int *status, char **cause)
{
	struct exec_opts	o;

	exec_opts_capture(&o, in, inlen, max, out, err);
	return hostws_run(t, h, body, &o, status, cause);
}
