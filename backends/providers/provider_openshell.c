/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "openshell" provider driver: drives NVIDIA OpenShell's CLI.
 *
 *	openshell [ARGS...] sandbox get NAME
 *	openshell [ARGS...] sandbox create --help
 *	openshell [ARGS...] sandbox create --name NAME [--from IMAGE]
 *	    [--gpu [N]] [--policy P] [EXTRA...] [--detach -- sleep infinity]
 *	openshell [ARGS...] sandbox ssh-config NAME
 *	openshell [ARGS...] sandbox delete NAME
 *	openshell [ARGS...] sandbox list
 *
 * get prints "key: value" lines of which "Phase:" matters (Provisioning,
 * Ready, Error, Deleting...); an unknown name fails with "not found" on
 * stderr.  ssh-config prints an OpenSSH client config block (Host, User,
 * ProxyCommand, ...), read here with the sshconfig module.  create
 * --help says which release's flags the CLI has (docs/providers.md: a
 * bare --gpu up to 0.0.68, a count since; --detach since 0.0.111, where
 * the trailing command is the main process).  OpenShell cannot run on
 * the build machines: the driver is tested against a stand-in
 * (tests/providers/openshell-standin), a contract test.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/wait.h>

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
#include "log.h"
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
		{ "error", PROVIDER_FAILED },	/* main process ended, too */
		{ "failed", PROVIDER_FAILED },
		{ "completed", PROVIDER_FAILED },	/* main exited 0 (later) */
		{ "stopping", PROVIDER_FAILED },	/* until sandbox start */
		{ "stopped", PROVIDER_FAILED },
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
		rc = sshconfig_resolve(path, SSHCONFIG_NO_INCLUDE, &q, &sc,
		    &why);
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
	/* Its StrictHostKeyChecking no and known_hosts at /dev/null are
	 * not taken: the first contact pins the key it sees. */
	ep->pin_first_seen = 1;
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

/* How a "sandbox create --help" shows an option. */
enum os_opt {
	OS_OPT_ABSENT = 0,
	OS_OPT_FLAG,		/* "--gpu": takes no value */
	OS_OPT_VALUE		/* "--gpu [<COUNT>]", "--gpu <N>", "--gpu=" */
};

/* What this CLI's "sandbox create" takes, read from its --help. */
struct os_cli {
	enum os_opt	detach;	/* since 0.0.111, where the trailing
				   command is the sandbox's main process */
	enum os_opt	gpu;	/* a bare flag (one device) up to 0.0.68,
				   an optional count since 0.0.69 */
};

/* Skip blanks and terminal escape sequences (ESC [ ... letter). */
static const char *
os_skip(const char *p, const char *end)
{
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p + 1 >= end || p[0] != '\033' || p[1] != '[')
			return p;
		for (p += 2; p < end && !isalpha((unsigned char)*p); p++)
			;
		if (p < end)
			p++;
	}
}

/* How the option words at p (up to end) show opt, if they name it. */
static enum os_opt
os_help_line(const char *p, const char *end, const char *opt)
{
	size_t	n;

	while (p < end && *p == '-') {
		n = strcspn(p, " ,=[\t\r\n\033");
		if (p + n > end)
			n = (size_t)(end - p);
		if (n == strlen(opt) && strncmp(p, opt, n) == 0) {
			p += n;
			if (p < end && (*p == '=' || *p == '['))
				return OS_OPT_VALUE;
			p = os_skip(p, end);
			return p < end && (*p == '<' || *p == '[') ?
			    OS_OPT_VALUE : OS_OPT_FLAG;
		}
		p += n;
		if (p >= end || *p != ',')	/* "-o, --output" goes on */
			break;
		p = os_skip(p + 1, end);
	}
	return OS_OPT_ABSENT;
}

/*
 * How help text shows opt ("--gpu").  Only option lines count, those
 * whose first word starts with '-' ("  -o, --output <OUTPUT>", "      --gpu
 * [<COUNT>]"), so a mention in another option's description does not.
 */
static enum os_opt
os_help_option(const char *help, const char *opt)
{
	const char	*line, *nl;
	enum os_opt	 o;

	for (line = help; *line != '\0'; line = nl + (*nl != '\0')) {
		nl = line + strcspn(line, "\n");
		if ((o = os_help_line(os_skip(line, nl), nl, opt)) !=
		    OS_OPT_ABSENT)
			return o;
	}
	return OS_OPT_ABSENT;
}

/* Ask "sandbox create --help" what this CLI takes. */
static int
os_cli_probe(const struct provider_conf *pc, struct os_cli *cli,
    char **cause)
{
	const char		*w[] = { "sandbox", "create", "--help", NULL };
	struct provider_run	 r;
	int			 rc;

	memset(cli, 0, sizeof *cli);
	if ((rc = os_call(pc, w, &r, cause)) != 0)
		return rc;
	if (r.status != 0)
		rc = provider_fail_run(cause, pc, "sandbox create --help", &r);
	else if (memchr(r.out, '\0', r.len) != NULL)
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "sandbox create "
		    "--help printed a NUL byte");
	else {
		cli->detach = os_help_option(r.out, "--detach");
		cli->gpu = os_help_option(r.out, "--gpu");
		log_debug("provider %s: sandbox create takes --detach: %s, "
		    "--gpu: %s", pc->name, cli->detach != OS_OPT_ABSENT ?
		    "yes" : "no", cli->gpu == OS_OPT_VALUE ? "a count" :
		    cli->gpu == OS_OPT_FLAG ? "a bare flag" : "no");
	}
	provider_run_free(&r);
	return rc;
}

/*
 * Add the words that ask this CLI for gpus GPUs (0: none, -1: all) to
 * w at *n; count (16 bytes) holds the number.  CLAW_ERR_INVAL for what
 * the CLI cannot ask for.
 */
static int
os_gpu_words(const struct provider_conf *pc, const struct os_cli *cli,
    int gpus, char *count, const char **w, size_t *n, char **cause)
{
	if (gpus == 0)
		return 0;
	if (cli->gpu == OS_OPT_ABSENT)
		return provider_fail(cause, pc, CLAW_ERR_INVAL, "this "
		    "OpenShell CLI's sandbox create has no --gpu");
	if (cli->gpu == OS_OPT_FLAG && gpus != 1)
		return provider_fail(cause, pc, CLAW_ERR_INVAL, "this "
		    "OpenShell CLI takes a bare --gpu, one device (OpenShell "
		    "before 0.0.69): it cannot ask for %s GPUs",
		    gpus < 0 ? "all" : "several");
	if (gpus < 0)
		return provider_fail(cause, pc, CLAW_ERR_INVAL, "OpenShell "
		    "asks for a number of GPUs (--gpu COUNT), not for all of "
		    "them: give --gpu N");
	w[(*n)++] = "--gpu";
	if (cli->gpu == OS_OPT_VALUE) {
		snprintf(count, 16, "%d", gpus);
		w[(*n)++] = count;
	}
	return 0;
}

/*
 * sandbox create --name NAME [--from IMAGE] [--gpu [N]] [--policy P]
 * [EXTRA...], and where the CLI takes --detach (0.0.111 and later, where
 * the trailing command is the sandbox's main process and its end ends
 * the sandbox) "--detach -- sleep infinity", a main process that stays.
 * Older CLIs get no command: their sandbox stays up by itself.
 */
static int
os_create(const struct provider_conf *pc, const char *name,
    const struct provider_request *rq, char **cause)
{
	struct provider_run	 r;
	struct os_cli		 cli;
	const char		**w;
	char			 count[16];
	size_t			 i, n = 0;
	int			 rc;

	if ((rc = os_cli_probe(pc, &cli, cause)) != 0)
		return rc;
	w = xcalloc(rq->nextra + 16, sizeof *w);
	w[n++] = "sandbox";
	w[n++] = "create";
	w[n++] = "--name";
	w[n++] = name;
	if (rq->image != NULL) {
		w[n++] = "--from";
		w[n++] = rq->image;
	}
	if ((rc = os_gpu_words(pc, &cli, rq->gpus, count, w, &n,
	    cause)) != 0) {
		free(w);
		return rc;
	}
	if (rq->policy != NULL) {
		w[n++] = "--policy";
		w[n++] = rq->policy;
	}
	for (i = 0; i < rq->nextra; i++)
		w[n++] = rq->extra[i];
	if (cli.detach != OS_OPT_ABSENT) {
		w[n++] = "--detach";
		w[n++] = "--";
		w[n++] = "sleep";
		w[n++] = "infinity";
	}
	rc = os_call(pc, w, &r, cause);
	free(w);
	if (rc == 0 && r.status != 0) {
		rc = provider_fail_run(cause, pc, "sandbox create", &r);
		/* A usage error (clap exits 2): another try would not do. */
		if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 2)
			rc = CLAW_ERR_INVAL;
	}
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
