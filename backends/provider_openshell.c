/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "openshell" provider driver: drives NVIDIA OpenShell's CLI.
 *
 *	openshell [ARGS...] sandbox get NAME
 *	openshell [ARGS...] sandbox create --name NAME [--from IMAGE]
 *	    [--gpu N] [--policy P] [EXTRA...]
 *	openshell [ARGS...] sandbox ssh-config NAME
 *	openshell [ARGS...] sandbox delete NAME
 *	openshell [ARGS...] sandbox list
 *
 * get prints "key: value" lines of which "Phase:" matters (Provisioning,
 * Ready, Error, Deleting...); an unknown name fails with "not found" on
 * stderr.  ssh-config prints an OpenSSH client config block (Host, User,
 * ProxyCommand, ...), read here with the sshconfig module.  OpenShell
 * cannot run on the build machines: the driver is tested against a
 * stand-in (tests/providers/openshell-standin), a contract test.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <ctype.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "error.h"
#include "provider.h"
#include "sshconfig.h"
#include "xmalloc.h"

#define OS_NAME_MAX	19	/* OpenShell's limit on sandbox names */
#define OS_DEFAULT	"openshell"

/* Run "openshell ARGS... w0 w1 ..." (NULL-terminated words). */
static int
os_call(const struct provider_conf *pc, const char *const *words,
    struct provider_run *r, char **cause)
{
	char	**argv;
	size_t	  i, n = 0, nw = 0;
	int	  rc;

	while (words[nw] != NULL)
		nw++;
	argv = xcalloc(pc->nargs + nw + 2, sizeof *argv);
	argv[n++] = (char *)(uintptr_t)(pc->command != NULL ? pc->command :
	    OS_DEFAULT);
	for (i = 0; i < pc->nargs; i++)
		argv[n++] = pc->args[i];
	for (i = 0; i < nw; i++)
		argv[n++] = (char *)(uintptr_t)words[i];
	memset(r, 0, sizeof *r);
	rc = provider_run(pc, argv, NULL, r, cause);
	free(argv);
	return rc;
}

/* Whether a failed get means "no such sandbox". */
static int
os_not_found(const struct provider_run *r)
{
	const char	*s;

	for (s = r->err; *s != '\0'; s++) {
		if (strncasecmp(s, "not found", 9) == 0 ||
		    strncasecmp(s, "notfound", 8) == 0)
			return 1;
	}
	return 0;
}

/* Map an OpenShell phase to a state. */
static enum provider_state
os_phase(const char *phase)
{
	static const struct {
		const char		*name;
		enum provider_state	 state;
	} map[] = {
		{ "ready", PROVIDER_READY },
		{ "running", PROVIDER_READY },
		{ "provisioning", PROVIDER_PENDING },
		{ "pending", PROVIDER_PENDING },
		{ "creating", PROVIDER_PENDING },
		{ "starting", PROVIDER_PENDING },
		{ "unknown", PROVIDER_PENDING },
		{ "error", PROVIDER_FAILED },
		{ "failed", PROVIDER_FAILED },
		{ "deleting", PROVIDER_GONE },
		{ "terminating", PROVIDER_GONE },
		{ "deleted", PROVIDER_GONE },
	};
	size_t	i;

	for (i = 0; i < sizeof map / sizeof map[0]; i++) {
		if (strcasecmp(phase, map[i].name) == 0)
			return map[i].state;
	}
	return PROVIDER_FAILED;
}

/* Find "Phase: X" (any case, any indent) in get's output; NULL if none. */
static char *
os_find_phase(const char *out)
{
	const char	*line, *nl, *v;
	size_t		 n;

	for (line = out; *line != '\0'; line = nl + (*nl != '\0')) {
		nl = line + strcspn(line, "\n");
		line += strspn(line, " \t");
		if (strncasecmp(line, "phase", 5) != 0)
			continue;
		v = line + 5;
		v += strspn(v, " \t");
		if (*v != ':')
			continue;
		v++;
		v += strspn(v, " \t");
		for (n = 0; v + n < nl && (isalnum((unsigned char)v[n]) ||
		    v[n] == '-' || v[n] == '_'); n++)
			;
		if (n > 0 && n < 64)
			return xstrndup(v, n);
	}
	return NULL;
}

/* Escape % as %% so that a ProxyCommand survives another expansion. */
static char *
os_escape_percent(const char *s)
{
	struct buf	b = BUF_INIT;

	for (; *s != '\0'; s++)
		buf_append_str(&b, *s == '%' ? "%%" : (char[]){ *s, '\0' });
	return buf_detach(&b);
}

/* The first Host pattern of a config text that is a plain name. */
static char *
os_first_host(const char *text)
{
	const char	*line, *nl, *p;
	size_t		 n;

	for (line = text; *line != '\0'; line = nl + (*nl != '\0')) {
		nl = line + strcspn(line, "\n");
		line += strspn(line, " \t");
		if (strncasecmp(line, "host", 4) != 0 ||
		    (line[4] != ' ' && line[4] != '\t' && line[4] != '='))
			continue;
		p = line + 4 + strspn(line + 4, " \t=");
		n = strcspn(p, " \t\r\n");
		if (n > 0 && n < 256 && memchr(p, '*', n) == NULL &&
		    memchr(p, '?', n) == NULL && *p != '!')
			return xstrndup(p, n);
	}
	return NULL;
}

/* Read ssh-config's output as an OpenSSH config; fill ep. */
static int
os_parse_ssh_config(const struct provider_conf *pc, const char *text,
    struct provider_endpoint *ep, char **cause)
{
	struct sshconfig_query	 q;
	struct sshconfig	*sc = NULL;
	char			 path[] = "/tmp/clawssh-openshell.XXXXXX";
	char			*alias, *why = NULL;
	const char		*home = getenv("HOME");
	struct passwd		*pw;
	FILE			*f;
	int			 fd, rc;

	if ((alias = os_first_host(text)) == NULL)
		return provider_fail(cause, pc, CLAW_ERR_PROTO, "ssh-config "
		    "printed no Host block");
	if ((fd = mkstemp(path)) == -1 || (f = fdopen(fd, "w")) == NULL) {
		if (fd != -1)
			close(fd);
		free(alias);
		return provider_fail(cause, pc, CLAW_ERR_IO, "cannot write a "
		    "temporary file");
	}
	fputs(text, f);
	rc = fclose(f) == 0 ? 0 : CLAW_ERR_IO;
	memset(&q, 0, sizeof q);
	q.host = alias;
	q.local_user = (pw = getpwuid(getuid())) != NULL ? pw->pw_name : "";
	q.home = home != NULL && *home == '/' ? home : "/";
	if (rc == 0)
		rc = sshconfig_resolve(path, 0, &q, &sc, &why);
	unlink(path);
	free(alias);
	if (rc != 0) {
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "ssh-config: %s",
		    why != NULL ? why : "write failed");
		free(why);
		return rc;
	}
	ep->host = xstrdup(sc->hostname);
	ep->port = sc->port;
	/* No User line: the usual default (the local user) applies later. */
	if (*q.local_user == '\0' || strcmp(sc->user, q.local_user) != 0)
		ep->user = xstrdup(sc->user);
	if (sc->proxy_command != NULL)
		ep->proxy_command = os_escape_percent(sc->proxy_command);
	if (sc->identity_files_set && sc->n_identity_files > 0)
		ep->identity_file = xstrdup(sc->identity_files[0]);
	sshconfig_free(sc);
	return 0;
}

/* Fetch the endpoint of a ready sandbox. */
static int
os_endpoint(const struct provider_conf *pc, const char *name,
    struct provider_endpoint *ep, char **cause)
{
	const char		*w[] = { "sandbox", "ssh-config", name, NULL };
	struct provider_run	 r;
	int			 rc;

	if ((rc = os_call(pc, w, &r, cause)) != 0)
		return rc;
	if (r.status != 0)
		rc = provider_fail_run(cause, pc, "sandbox ssh-config", &r);
	else if (memchr(r.out, '\0', r.len) != NULL)
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "ssh-config "
		    "printed a NUL byte");
	else
		rc = os_parse_ssh_config(pc, r.out, ep, cause);
	provider_run_free(&r);
	return rc;
}

/* sandbox get NAME, and ssh-config when it is ready. */
static int
os_get(const struct provider_conf *pc, const char *name,
    struct provider_sandbox *out, char **cause)
{
	const char		*w[] = { "sandbox", "get", name, NULL };
	struct provider_run	 r;
	char			*phase;
	int			 rc;

	memset(out, 0, sizeof *out);
	if ((rc = os_call(pc, w, &r, cause)) != 0)
		return rc;
	if (r.status != 0 && os_not_found(&r)) {
		out->name = xstrdup(name);
		out->state = PROVIDER_ABSENT;
		out->state_text = xstrdup("not found");
	} else if (r.status != 0)
		rc = provider_fail_run(cause, pc, "sandbox get", &r);
	else if ((phase = os_find_phase(r.out)) == NULL)
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "sandbox get %s: "
		    "no \"Phase:\" in its output", name);
	else {
		out->name = xstrdup(name);
		out->state = os_phase(phase);
		out->state_text = phase;
	}
	provider_run_free(&r);
	if (rc == 0 && out->state == PROVIDER_READY &&
	    (rc = os_endpoint(pc, name, &out->ep, cause)) != 0)
		provider_sandbox_clear(out);
	return rc;
}

/* sandbox create --name NAME ... */
static int
os_create(const struct provider_conf *pc, const char *name,
    const struct provider_request *rq, char **cause)
{
	struct provider_run	 r;
	const char		**w;
	char			 gpus[16];
	size_t			 i, n = 0;
	int			 rc;

	w = xcalloc(rq->nextra + 12, sizeof *w);
	w[n++] = "sandbox";
	w[n++] = "create";
	w[n++] = "--name";
	w[n++] = name;
	if (rq->image != NULL) {
		w[n++] = "--from";
		w[n++] = rq->image;
	}
	if (rq->gpus != 0) {
		snprintf(gpus, sizeof gpus, "%d", rq->gpus);
		w[n++] = "--gpu";
		w[n++] = rq->gpus < 0 ? "all" : gpus;
	}
	if (rq->policy != NULL) {
		w[n++] = "--policy";
		w[n++] = rq->policy;
	}
	for (i = 0; i < rq->nextra; i++)
		w[n++] = rq->extra[i];
	rc = os_call(pc, w, &r, cause);
	free(w);
	if (rc == 0 && r.status != 0)
		rc = provider_fail_run(cause, pc, "sandbox create", &r);
	provider_run_free(&r);
	return rc;
}

/* sandbox delete NAME; "not found" means it was already gone. */
static int
os_destroy(const struct provider_conf *pc, const char *name, int *existed,
    char **cause)
{
	const char		*w[] = { "sandbox", "delete", name, NULL };
	struct provider_run	 r;
	int			 rc;

	if ((rc = os_call(pc, w, &r, cause)) != 0)
		return rc;
	*existed = r.status == 0;
	if (r.status != 0 && !os_not_found(&r))
		rc = provider_fail_run(cause, pc, "sandbox delete", &r);
	provider_run_free(&r);
	return rc;
}

/* sandbox list: the names clawssh gave, each looked up. */
static int
os_list(const struct provider_conf *pc, struct provider_sandbox **out,
    size_t *n, char **cause)
{
	const char		*w[] = { "sandbox", "list", NULL };
	struct provider_run	 r;
	struct provider_sandbox	*v = NULL;
	const char		*line, *nl;
	char			*name;
	size_t			 k = 0, len;
	int			 rc;

	if ((rc = os_call(pc, w, &r, cause)) != 0)
		return rc;
	if (r.status != 0)
		rc = provider_fail_run(cause, pc, "sandbox list", &r);
	for (line = r.out; rc == 0 && *line != '\0';
	    line = nl + (*nl != '\0')) {
		nl = line + strcspn(line, "\n");
		line += strspn(line, " \t");
		len = strcspn(line, " \t\r\n");
		if (len == 0 || len > OS_NAME_MAX ||
		    strncmp(line, "claw-", 5) != 0)
			continue;
		name = xstrndup(line, len);
		v = xreallocarray(v, k + 1, sizeof *v);
		if ((rc = os_get(pc, name, &v[k], cause)) == 0)
			k++;
		free(name);
	}
	provider_run_free(&r);
	if (rc != 0) {
		provider_sandboxes_free(v, k);
		return rc;
	}
	*out = v;
	*n = k;
	return 0;
}

const struct provider_ops provider_openshell = {
	.driver = "openshell",
	.name_max = OS_NAME_MAX,
	.get = os_get,
	.create = os_create,
	.destroy = os_destroy,
	.list = os_list,
};
