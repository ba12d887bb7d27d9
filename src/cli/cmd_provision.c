/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh provision: get or create the sandbox of a scope and key on a
 * host; clawssh recreate: destroy it and make it again with the settings
 * now in force.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "clawconfig.h"
#include "cmd.h"
#include "cmd_box.h"
#include "cmd_conn.h"
#include "cmd_ops.h"
#include "cmd_provision.h"
#include "contain.h"
#include "contain_bwrap.h"
#include "error.h"
#include "exec.h"
#include "gpu_alloc.h"
#include "hostws.h"
#include "log.h"
#include "managed.h"
#include "pathguard.h"
#include "provider.h"
#include "registry.h"
#include "remote_err.h"
#include "shquote.h"
#include "signals.h"
#include "sshconfig.h"
#include "tarstream.h"
#include "transfer.h"
#include "transport.h"
#include "xmalloc.h"


static const char provision_usage[] =
    "usage: clawssh provision --host TARGET | --provider NAME\n"
    "           [--policy POLICY] [--scope session|agent|shared]\n"
    "           [--key KEY] [--workspace DIR] [--access none|ro|rw]\n"
    "           [--mode mirror|remote] [--from IMAGE] [--json]\n"
    "           [--runtime bwrap|docker|podman|none] [--network none|host]\n"
    "           [--user nobody|NAME|UID:GID] [--workdir /workspace|local]\n"
    "           [--memory SIZE] [--processes N] [--cpu-seconds N]\n"
    "           [--file-size SIZE] [--open-files N] [--cpus N]\n"
    "           [--gpu N|all]\n"
    "\n"
    "Prints the id of the scope's sandbox on TARGET, creating it once.\n"
    "With --provider, the provider configured as providers.NAME makes the\n"
    "machine (--from IMAGE, --gpu N and --policy P go to it).\n";

/* Take provision's or recreate's parsed options; see cmd_provision.h. */
void
provision_take(struct provision_args *a, const struct cmd_ops *o)
{
	static const char *const lim[] = {
		"memory", "processes", "cpu_seconds", "file_size", "open_files",
		"cpus"
	};
	size_t	i;

	a->scope = cmd_ops_get(o, "scope");
	a->key = cmd_ops_get(o, "key");
	a->workspace = cmd_ops_get(o, "workspace");
	a->mode = cmd_ops_get(o, "mode");
	a->access = cmd_ops_get(o, "access");
	a->image = cmd_ops_get(o, "from");
	a->runtime = cmd_ops_get(o, "runtime");
	a->network = cmd_ops_get(o, "network");
	for (i = 0; i < sizeof lim / sizeof *lim; i++)
		a->limit[i] = cmd_ops_get(o, lim[i]);
	a->gpu = cmd_ops_get(o, "gpu");
	a->user = cmd_ops_get(o, "user");
	a->workdir = cmd_ops_get(o, "workdir");
	a->root = cmd_ops_get(o, "remote_root");
	a->provider = cmd_ops_get(o, "provider");
	a->policy = cmd_ops_get(o, "policy");
	a->json = cmd_ops_flag(o, "json");
	if (cmd_ops_flag(o, "strict_config"))
		a->box.strict_config = 1;
	if (cmd_ops_get(o, "host") != NULL)	/* recreate has none */
		a->box.cc.target = cmd_ops_get(o, "host");
}

/* The settings flags given, for recreate; see cmd_provision.h. */
char *
provision_flags(const struct provision_args *a)
{
	static const char *const names[] = { "mode", "access", "from",
	    "runtime", "network", "gpu", "user", "workdir", "memory",
	    "processes", "cpu-seconds", "file-size", "open-files", "cpus" };
	const char	*v[] = { a->mode, a->access, a->image, a->runtime,
	    a->network, a->gpu, a->user, a->workdir, a->limit[0],
	    a->limit[1], a->limit[2], a->limit[3], a->limit[4], a->limit[5] };
	struct buf	 b = BUF_INIT;
	size_t		 i;

	buf_append_str(&b, "");
	for (i = 0; i < sizeof v / sizeof v[0]; i++) {
		if (v[i] == NULL)
			continue;
		buf_appendf(&b, " --%s ", names[i]);
		shquote_append(&b, v[i]);
	}
	return buf_detach(&b);
}

/* Apply one named setting over s; 0 or an exit status. */
static int
provision_setting(const char *what, const char *val,
    int (*parse)(const char *, int *), int *field)
{
	if (val != NULL && parse(val, field) != 0)
		return cmd_fail("bad --%s '%s'", what, val);
	return 0;
}

/*
 * Adapters from the typed parsers to provision_setting: 0, or the
 * parser's code.
 */
static int
parse_mode(const char *s, int *v)
{
	enum sandbox_mode	m;
	int			rc;

	if ((rc = sandbox_mode_parse(s, &m)) != 0)
		return rc;
	*v = (int)m;
	return 0;
}

static int
parse_access(const char *s, int *v)
{
	enum sandbox_access	x;
	int			rc;

	if ((rc = sandbox_access_parse(s, &x)) != 0)
		return rc;
	*v = (int)x;
	return 0;
}

static int
parse_runtime(const char *s, int *v)
{
	enum contain_runtime	x;
	int			rc;

	if ((rc = contain_runtime_parse(s, &x)) != 0)
		return rc;
	*v = (int)x;
	return 0;
}

static int
parse_network(const char *s, int *v)
{
	enum contain_network	x;
	int			rc;

	if ((rc = contain_network_parse(s, &x)) != 0)
		return rc;
	*v = (int)x;
	return 0;
}

static int
parse_workdir(const char *s, int *v)
{
	enum sandbox_workdir	x;
	int			rc;

	if ((rc = sandbox_workdir_parse(s, &x)) != 0)
		return rc;
	*v = (int)x;
	return 0;
}

/* Apply the limit flags (in struct contain_limits order) over l. */
static int
provision_limits(const struct provision_args *a, struct contain_limits *l)
{
	static const char *const names[] = { "memory", "processes",
	    "cpu-seconds", "file-size", "open-files" };
	int64_t		*f[] = { &l->memory, &l->nproc, &l->cpu, &l->fsize,
	    &l->nofile };
	char		*cause = NULL;
	size_t		 i;
	int		 rc;

	for (i = 0; i < 5; i++) {
		if (a->limit[i] == NULL ||
		    contain_size_parse(a->limit[i], f[i], &cause) == 0)
			continue;
		rc = cmd_fail("bad --%s: %s", names[i], cause);
		free(cause);
		return rc;
	}
	if (a->limit[5] != NULL &&
	    contain_cpus_parse(a->limit[5], &l->cpus, &cause) != 0) {
		rc = cmd_fail("bad --cpus: %s", cause);
		free(cause);
		return rc;
	}
	return 0;
}

/* Check the image and user in s against its runtime. */
static int
provision_check(const struct provision_args *a, struct sandbox_settings *s)
{
	char	*cause = NULL;
	int	 rc;

	if ((s->runtime == CONTAIN_DOCKER || s->runtime == CONTAIN_PODMAN) &&
	    strcmp(s->image, "host") == 0)
		return cmd_fail("runtime %s needs --from IMAGE (an image "
		    "reference the engine has, such as debian:bookworm)",
		    contain_runtime_name(s->runtime));
	if (a->image != NULL && strlen(a->image) >= sizeof s->image)
		return cmd_fail("--from: longer than %d bytes",
		    SANDBOX_REF_MAX);
	if (sandbox_image_check_for(s->runtime, s->image, &cause) != 0) {
		rc = cmd_fail("%s%s", a->image != NULL ? "--from: " :
		    "sandbox.image: ", cause);
		free(cause);
		return rc;
	}
	if (a->user != NULL && strlen(a->user) >= sizeof s->user)
		return cmd_fail("--user: longer than %d bytes",
		    SANDBOX_USER_MAX);
	if (s->user[0] != '\0' && sandbox_user_check(s->user, &cause) != 0) {
		rc = cmd_fail("%s%s", a->user != NULL ? "--user: " :
		    "sandbox.user: ", cause);
		free(cause);
		return rc;
	}
	if (s->user[0] != '\0' && s->runtime == CONTAIN_NONE)
		return cmd_fail("%s needs a contained runtime (bwrap, docker "
		    "or podman): runtime none runs commands as the remote "
		    "user", a->user != NULL ? "--user" : "sandbox.user");
	return 0;
}

/* Work out the settings from base, config and flags; see cmd_provision.h. */
int
provision_settings(struct provision_args *a,
    const struct sandbox_settings *base, struct sandbox_settings *s)
{
	int			 mode, access, runtime, network, workdir, rc;

	cmd_box_settings(&a->box, base, s);
	mode = (int)s->mode;
	access = (int)s->access;
	runtime = (int)s->runtime;
	network = (int)s->network;
	workdir = (int)s->workdir;
	if ((rc = provision_setting("mode", a->mode, parse_mode,
	    &mode)) != 0 || (rc = provision_setting("access", a->access,
	    parse_access, &access)) != 0 || (rc = provision_setting("runtime",
	    a->runtime, parse_runtime, &runtime)) != 0 ||
	    (rc = provision_setting("network", a->network, parse_network,
	    &network)) != 0 || (rc = provision_setting("workdir",
	    a->workdir, parse_workdir, &workdir)) != 0)
		return rc;
	s->mode = (enum sandbox_mode)mode;
	s->access = (enum sandbox_access)access;
	s->runtime = (enum contain_runtime)runtime;
	s->network = (enum contain_network)network;
	s->workdir = (enum sandbox_workdir)workdir;
	if ((rc = provision_limits(a, &s->limits)) != 0)
		return rc;
	if (a->gpu != NULL && strcmp(a->gpu, "all") == 0)
		s->gpus = -1;
	else if (a->gpu != NULL && cmd_parse_int(a->gpu, 1, SANDBOX_GPUS_MAX,
	    &s->gpus) != 0)
		return cmd_fail("bad --gpu '%s': want a number from 1 to %d, or "
		    "all", a->gpu, SANDBOX_GPUS_MAX);
	if (a->provider != NULL) {
		/* The provider gives the machine its GPUs and image. */
		a->gpus = s->gpus;
		s->gpus = 0;
		return 0;
	}
	if (s->gpus != 0 && s->runtime == CONTAIN_NONE)
		return cmd_fail("--gpu needs a runtime that binds the assigned "
		    "GPUs' devices into the sandbox (bwrap, docker, podman)");
	if (a->image != NULL)
		snprintf(s->image, sizeof s->image, "%s", a->image);
	if (a->user != NULL)
		snprintf(s->user, sizeof s->user, "%s", a->user);
	return provision_check(a, s);
}
/* Work out scope and key; fills meta's. */
static int
provision_scope(struct provision_args *a, struct sandbox_meta *m)
{
	const struct claw_config	*c = a->box.cc.cfg;
	const char			*key = a->key;
	char				*cause = NULL;
	int				 rc;

	m->scope = c->sandbox_scope >= 0 ?
	    (enum sandbox_scope)c->sandbox_scope : SANDBOX_SCOPE_SESSION;
	if (a->scope != NULL && sandbox_scope_parse(a->scope,
	    &m->scope) != 0)
		return cmd_fail("bad --scope '%s': want session, agent or "
		    "shared", a->scope);
	if (m->scope == SANDBOX_SCOPE_SHARED && (key == NULL || *key == '\0'))
		key = SANDBOX_SHARED_KEY;
	if (key == NULL)
		return cmd_fail("--key is required for scope %s",
		    sandbox_scope_name(m->scope));
	if (sandbox_key_check(m->scope, key, &cause) != 0) {
		rc = cmd_fail("--key: %s", cause);
		free(cause);
		return rc;
	}
	snprintf(m->key, sizeof m->key, "%s", key);
	return 0;
}

/*
 * Resolve --workspace (default: the current directory) to a real path.
 * This is the only source of a sandbox's local path: what the host's
 * metadata says is checked against it (provision_do), never taken.
 */
static int
provision_workspace(struct provision_args *a, struct sandbox_meta *m)
{
	char	*real;

	real = realpath(a->workspace != NULL ? a->workspace : ".", NULL);
	if (real == NULL)
		return cmd_fail("--workspace %s: not found",
		    a->workspace != NULL ? a->workspace : ".");
	if (strlen(real) > SANDBOX_ROOT_MAX) {
		free(real);
		return cmd_fail("--workspace: path too long");
	}
	snprintf(m->workspace, sizeof m->workspace, "%s", real);
	free(real);
	return 0;
}

/* Copy a managed sandbox's provider fields from old into r. */
static void
provision_record_managed(struct registry_record *r,
    const struct registry_record *old)
{
	char *const	 from[] = { old->provider, old->provider_name,
	    old->proxy_command, old->identity_file, old->exec_wrap,
	    old->known_hosts, old->provider_image, old->provider_policy,
	    old->provider_gpus, old->host_key_alias };
	char		**to[] = { &r->provider, &r->provider_name,
	    &r->proxy_command, &r->identity_file, &r->exec_wrap,
	    &r->known_hosts, &r->provider_image, &r->provider_policy,
	    &r->provider_gpus, &r->host_key_alias };
	size_t		  i;

	for (i = 0; i < sizeof to / sizeof to[0]; i++)
		*to[i] = from[i] != NULL ? xstrdup(from[i]) : NULL;
}

/*
 * Make the local record for what the host has (allocated); the local
 * workspace is the one this side asked for, not the host's word.
 */
static struct registry_record *
provision_record(struct cmd_box *b, const char *root,
    const struct hostdir_entry *e, const char *workspace)
{
	const struct sandbox_meta	*m = &e->meta;
	struct registry_record		*r;

	r = xcalloc(1, sizeof *r);
	memcpy(r->id, m->id, sizeof r->id);
	r->backend = xstrdup(b->backend);
	r->target = xstrdup(b->cc.target);
	r->ssh_config = b->cc.ssh_config != NULL ?
	    xstrdup(b->cc.ssh_config) : NULL;
	r->user = xstrdup(b->sc->user);
	r->host = xstrdup(b->sc->hostname);
	r->port = b->sc->port;
	r->remote_root = xstrdup(root);
	r->scope = m->scope;
	r->key = xstrdup(m->key);
	r->settings = m->settings;
	memcpy(r->config_hash, m->config_hash, sizeof r->config_hash);
	r->workspace = xstrdup(workspace);
	r->created = e->created != 0 ? e->created : m->created;
	if (b->rec != NULL && b->rec->provider != NULL)
		provision_record_managed(r, b->rec);
	return r;
}

/*
 * Refuse a found sandbox whose metadata names another local workspace
 * than the one this side asked for.  The host (or, under runtime none, a
 * command in the sandbox) can write its metadata: taking its path would
 * let it choose which local directory is pushed and pulled into.
 */
static int
provision_check_workspace(const struct cmd_box *b,
    const struct sandbox_meta *want, const struct sandbox_meta *got)
{
	if (strcmp(got->workspace, want->workspace) == 0)
		return 0;
	return cmd_fail("sandbox %s on %s was provisioned for local "
	    "workspace '%s'; this provision names '%s': pass --workspace "
	    "'%s' to use it, or run 'clawssh destroy %s' first", want->id,
	    b->cc.target, got->workspace, want->workspace, got->workspace,
	    want->id);
}

/*
 * Drop the saved sync state of sandbox got unless it is this instance's:
 * one this call created, or one whose local record is missing or names
 * another creation time (destroyed and made again behind this record),
 * is new, and a state kept from the old one would have the next mirrored
 * exec push nothing and find the workspace empty.  0 or an exit status.
 */
static int
provision_forget_old(struct cmd_box *b, const struct hostdir_entry *got,
    int created)
{
	struct registry_record	*old = NULL;
	char			*cause = NULL;
	int64_t			 when;
	int			 keep, rc;

	when = got->created != 0 ? got->created : got->meta.created;
	keep = !created && registry_get(b->reg, got->meta.id, &old,
	    NULL) == 0 && old->created == when;
	registry_record_free(old);
	if (keep)
		return 0;
	log_debug("sandbox %s: a new instance; its sync state starts over",
	    got->meta.id);
	if (cmd_box_forget_sync(b, got->meta.id, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	return 0;
}

/*
 * Ask b's connected host whether bwrap can make the mount point of m's
 * workdir there (contain_bwrap_workdir); 0 or an exit status.
 */
static int
provision_workdir_host(struct cmd_box *b, const char *root,
    const struct sandbox_meta *m)
{
	struct contain_spec	 spec;
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	char			*script, *cause = NULL, *msg;
	int			 rc, status = 0;

	memset(&spec, 0, sizeof spec);
	spec.settings = &m->settings;
	spec.root = root;
	spec.id = m->id;
	spec.workdir = m->workspace;
	script = contain_bwrap_workdir(&spec);
	rc = exec_script(b->t, script, NULL, 0, 4096, &out, &err, &status,
	    &cause);
	free(script);
	if (rc != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
	} else if (status != 0) {
		msg = remote_err_clean(err.data, err.len);
		rc = cmd_fail("%s: %s", transport_label(b->t),
		    strncmp(msg, "clawssh: ", 9) == 0 ? msg + 9 : msg);
		free(msg);
	}
	buf_free(&out);
	buf_free(&err);
	return rc;
}

/* Check the workdir of the sandbox m describes; see cmd_provision.h. */
int
provision_workdir(struct cmd_box *b, const char *root,
    const struct sandbox_meta *m)
{
	const struct sandbox_settings	*s = &m->settings;
	char				*cause = NULL;
	int				 rc;

	if (s->workdir != SANDBOX_WORKDIR_LOCAL)
		return 0;
	if (sandbox_workdir_check(s->runtime, m->workspace, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	if (s->runtime == CONTAIN_NONE)
		log_info("workdir local: runtime none runs commands in the "
		    "host's directory; nothing changes");
	if (s->runtime != CONTAIN_BWRAP || b->t == NULL ||
	    strcmp(m->workspace, SANDBOX_WORKSPACE) == 0)
		return 0;
	return provision_workdir_host(b, root, m);
}

/*
 * On the connected host, get or create the sandbox want describes, check
 * it is the one asked for (scope, key, local workspace), and record it.
 * The caller holds the id lock.
 */
int
provision_do(struct cmd_box *b, struct provision_args *a, const char *root,
    const struct sandbox_meta *want, int *created)
{
	struct hostdir_entry	 got;
	struct sandbox_settings	 now;
	struct registry_record	*rec;
	char			*cause = NULL;
	int			 rc;

	if ((rc = provision_workdir(b, root, want)) != 0)
		return rc;
	if (hostdir_get_or_create(b->t, root, want, &got, created,
	    &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	if (got.meta.scope != want->scope ||
	    strcmp(got.meta.key, want->key) != 0)
		return cmd_fail("sandbox %s on %s belongs to %s/%s, not "
		    "%s/%s", want->id, b->cc.target,
		    sandbox_scope_name(got.meta.scope), got.meta.key,
		    sandbox_scope_name(want->scope), want->key);
	if ((rc = provision_check_workspace(b, want, &got.meta)) != 0)
		return rc;
	/*
	 * A found sandbox keeps what it was made with unless the config
	 * or a flag given now says otherwise: stale then, and the hint
	 * names those flags for recreate.
	 */
	now = want->settings;
	if (!*created && a != NULL && (rc = provision_settings(a,
	    &got.meta.settings, &now)) != 0)
		return rc;
	if (!*created && (rc = cmd_box_stale(b, want->id,
	    got.meta.config_hash, &now)) != 0)
		return rc;
	if ((rc = provision_forget_old(b, &got, *created)) != 0)
		return rc;
	rec = provision_record(b, root, &got, want->workspace);
	rec->settings.limits = want->settings.limits;
	registry_record_free(b->rec);
	b->rec = rec;
	/* The old record may have owned these; rec holds copies. */
	b->cc.target = rec->target;
	b->cc.ssh_config = rec->ssh_config;
	if (registry_put(b->reg, b->rec, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	log_info("sandbox %s %s on %s", want->id, *created ? "created" :
	    "found", b->cc.target);
	return 0;
}

/* Print the outcome: the id alone, or the record as JSON. */
static void
provision_print(const struct cmd_box *b, int json, int created)
{
	cJSON	*o;
	char	*text;

	if (!json) {
		printf("%s\n", b->rec->id);
		return;
	}
	o = cmd_box_json(b->rec);
	cJSON_AddBoolToObject(o, "new", created);
	text = cJSON_Print(o);
	printf("%s\n", text);
	free(text);
	cJSON_Delete(o);
}

/* Parse provision's command line; 0, -1 for --help, or a status. */
static int
provision_parse(int argc, char **argv, struct provision_args *a)
{
	struct cmd_ops	o;
	int		rc;

	rc = cmd_ops_parse(&o, "sandbox.provision", &a->box.cc,
	    provision_usage, argc, argv);
	cmd_ops_free(&o);	/* keeps the values: they are argv's */
	if (rc != 0)
		return rc;
	provision_take(a, &o);
	if (a->box.cc.target == NULL && a->provider == NULL &&
	    o.noperands > 0) {
		a->box.cc.target = o.operands[0];
		o.operands++;
		o.noperands--;
	}
	if (o.noperands > 0)
		return cmd_fail("unexpected argument '%s'", o.operands[0]);
	if (a->box.cc.target != NULL && a->provider != NULL)
		return cmd_fail("--host and --provider exclude each other");
	if (a->box.cc.target == NULL && a->provider == NULL)
		return cmd_fail("--host TARGET or --provider NAME is required");
	if (a->policy != NULL && a->provider == NULL)
		return cmd_fail("--policy goes with --provider");
	return 0;
}

/* Work out everything the new sandbox's metadata says. */
static int
provision_meta(struct provision_args *a, struct sandbox_meta *m,
    const char **root)
{
	struct sandbox_settings	 base;
	char			*cause = NULL, *ident;
	int			 rc;

	sandbox_settings_default(&base);
	memset(m, 0, sizeof *m);
	m->version = SANDBOX_META_VERSION;
	m->created = (int64_t)time(NULL);
	*root = a->root != NULL ? a->root : cmd_box_root(&a->box);
	if (sandbox_root_check(*root, &cause) != 0) {
		rc = cmd_fail("remoteRoot: %s", cause);
		free(cause);
		return rc;
	}
	if ((rc = provision_scope(a, m)) != 0 ||
	    (rc = provision_settings(a, &base, &m->settings)) != 0 ||
	    (rc = provision_workspace(a, m)) != 0)
		return rc;
	if (a->provider == NULL &&
	    (rc = cmd_conn_resolve(&a->box.cc, &a->box.sc)) != 0)
		return rc;
	sandbox_config_hash(&m->settings, m->config_hash);
	if (a->provider != NULL)
		ident = xasprintf("managed:%s", a->provider);
	else
		ident = cmd_conn_identity(a->box.sc);
	sandbox_id(m->scope, m->key, ident, m->id);
	free(ident);
	return 0;
}

/*
 * Seed a new remote-mode sandbox: stream the local workspace up once,
 * staged and renamed into place on the host.  On failure the sandbox is
 * destroyed again, so that a retry starts clean.
 */
int
provision_seed(struct cmd_box *b, const char *root)
{
	struct tarstream_stats	 st;
	struct pathguard	*pg = NULL;
	struct hostws		 hw;
	char			*ws, *cause = NULL, *why = NULL;
	int			 rc, existed;

	memset(&st, 0, sizeof st);
	ws = hostdir_workspace(root, b->rec->id);
	hostws_init(&hw, ws, NULL);	/* a stage: see transfer_push */
	if ((rc = pathguard_open(b->rec->workspace, &pg, &cause)) == 0)
		rc = transfer_push(b->t, pg, &hw, NULL, 0, TRANSFER_STAGE |
		    (b->cc.cfg->sync_push_git ? TRANSFER_PUSH_GIT : 0),
		    b->cc.cfg->sync_exclude, b->cc.cfg->nsync_exclude, &st,
		    &cause);
	pathguard_close(pg);
	hostws_clear(&hw);
	free(ws);
	if (rc == 0) {
		log_info("seeded %s: %llu files, %llu bytes", b->rec->id,
		    (unsigned long long)st.files,
		    (unsigned long long)st.bytes);
		return 0;
	}
	if (hostdir_destroy(b->t, root, b->rec->id, &existed, &why) != 0 ||
	    registry_remove(b->reg, b->rec->id, &why) != 0) {
		log_warn("%s", why);
		free(why);
	}
	rc = cmd_fail("seeding sandbox %s failed: %s", b->rec->id, cause);
	free(cause);
	return rc;
}

/* Give the sandbox its GPUs on the host; undo a new sandbox on failure. */
int
provision_gpus(struct cmd_box *b, const char *root, int want, int created)
{
	char	*cause = NULL, *why = NULL, *list;
	int	*got = NULL, rc, existed;
	size_t	 n = 0;

	if ((rc = hostdir_gpu_assign(b->t, root, b->rec->id, want, &got, &n,
	    &cause)) == 0) {
		list = gpu_visible(got, n);
		log_info("sandbox %s has GPU %s", b->rec->id, list);
		free(list);
		free(got);
		return 0;
	}
	if (created && (hostdir_destroy(b->t, root, b->rec->id, &existed,
	    &why) != 0 || registry_remove(b->reg, b->rec->id, &why) != 0)) {
		log_warn("%s", why);
		free(why);
	}
	rc = cmd_fail("GPUs for sandbox %s: %s", b->rec->id, cause);
	free(cause);
	return rc;
}

/*
 * The record a managed sandbox starts from: its provider fields, which
 * provision_record carries over; pins the endpoint's host keys, if any,
 * in the state directory, or makes the pin of the first key seen there
 * (emptied for a sandbox this call made).
 */
static int
provision_managed_rec(struct cmd_box *b, const char *provider,
    const char *name, const struct provider_request *req,
    const struct provider_sandbox *sb, const char *id, int made,
    char **cause)
{
	const struct provider_endpoint	*ep = &sb->ep;
	struct registry_record		*r;
	char				*dir;
	int				 rc = 0;

	r = xcalloc(1, sizeof *r);
	r->provider = xstrdup(provider);
	r->provider_name = xstrdup(name);
	r->proxy_command = ep->proxy_command != NULL ?
	    xstrdup(ep->proxy_command) : NULL;
	r->identity_file = ep->identity_file != NULL ?
	    xstrdup(ep->identity_file) : NULL;
	r->exec_wrap = ep->exec_wrap != NULL ? xstrdup(ep->exec_wrap) : NULL;
	r->host_key_alias = ep->host_key_alias != NULL ?
	    xstrdup(ep->host_key_alias) : NULL;
	r->host = xstrdup(ep->host);
	r->port = ep->port;	/* 0: ssh_config's; set once resolved */
	r->user = ep->user != NULL ? xstrdup(ep->user) : NULL;
	r->provider_image = req->image != NULL ? xstrdup(req->image) : NULL;
	r->provider_policy = req->policy != NULL ? xstrdup(req->policy) :
	    NULL;
	r->provider_gpus = req->gpus != 0 ? xasprintf("%d", req->gpus) : NULL;
	if (ep->host_keys != NULL || ep->pin_first_seen) {
		dir = xasprintf("%s/known_hosts.d", registry_dir(b->reg));
		if (mkdir(dir, 0700) == -1 && errno != EEXIST)
			rc = claw_fail_errno(cause, dir, "mkdir");
		r->known_hosts = xasprintf("%s/%s", dir, id);
		free(dir);
		if (rc == 0 && ep->host_keys != NULL)
			rc = managed_pin_keys(r->known_hosts, ep->host_keys,
			    cause);
		else if (rc == 0)
			rc = managed_pin_first(r->known_hosts, made, cause);
	}
	registry_record_free(b->rec);
	b->rec = r;
	return rc;
}

/* Connect to a managed sandbox's endpoint; errors name the provider. */
static int
provision_managed_connect(struct cmd_box *b, const struct managed *mg,
    const char *name, char **cause)
{
	struct transport_opts		 topts = { b->cc.passphrase_file };
	const struct registry_record	*r = b->rec;
	char				**lines = NULL, *why = NULL;
	size_t				  n = 0;
	int				  rc;

	managed_ssh_lines(r->host, r->port, r->user, r->proxy_command,
	    r->identity_file, r->host_key_alias, r->known_hosts, &lines, &n);
	cmd_conn_endpoint(&b->cc, lines, n);
	b->cc.target = r->provider_name;
	if (cmd_conn_resolve(&b->cc, &b->sc) != 0)
		return provider_fail(cause, &mg->pc, CLAW_ERR_INVAL, "the "
		    "endpoint of %s cannot be used (see above)", name);
	b->rec->port = b->sc->port;	/* what the record keeps */
	if (signals_init() != 0)
		return claw_fail(cause, CLAW_ERR_IO, "cannot install signal "
		    "handlers");
	if ((rc = transport_connect(b->sc, &topts, &b->t, &why)) != 0) {
		rc = provider_fail(cause, &mg->pc, rc, "sandbox %s reported "
		    "ready, but its endpoint failed: %s", name, why);
		free(why);
	}
	return rc;
}

/*
 * Get or create the sandbox through the provider (replace: delete it
 * first and make it again), wait for it, reach its endpoint, then make
 * the sandbox directory there as on a directly reached host (hostdir.h)
 * and record it.
 * What this call created at the provider is deleted again on failure,
 * and nothing is recorded.
 */
int
provision_managed_do(struct cmd_box *b, struct provision_args *a,
    const char *provider,
    const struct provider_request *req, int replace, const char *root,
    const struct sandbox_meta *m, int *created)
{
	struct managed		 mg;
	struct provider_sandbox	 sb;
	char			*name = NULL, *cause = NULL, *why = NULL;
	int			 rc, made = replace, existed;

	memset(&sb, 0, sizeof sb);
	b->backend = HOSTDIR_BACKEND_MANAGED;
	if ((rc = managed_open(b->cc.cfg, provider, &mg, &cause)) == 0 &&
	    (rc = managed_name(&mg, m->id, &name, &cause)) == 0) {
		if (replace)
			rc = managed_replace(&mg, name, req, &sb, &cause);
		else
			rc = managed_ensure(&mg, name, req, &sb, &made,
			    &cause);
	}
	if (rc == 0 && (rc = provision_managed_rec(b, provider, name, req,
	    &sb, m->id, made, &cause)) == 0)
		rc = provision_managed_connect(b, &mg, name, &cause);
	if (rc != 0) {
		rc = cmd_fail("%s", cause != NULL ? cause :
		    "provisioning failed");
		free(cause);
	} else if ((rc = provision_do(b, a, root, m, created)) == 0 &&
	    *created && m->settings.mode == SANDBOX_MODE_REMOTE)
		rc = provision_seed(b, root);
	*created = *created || made;
	if (rc != 0 && made) {
		log_info("provider %s: deleting %s again", provider, name);
		if (managed_destroy(&mg, name, &existed, &why) != 0) {
			log_warn("%s", why);
			free(why);
		}
	}
	/* A pin stays with the sandbox it belongs to: a failed provision
	 * of one that was there already (its key refused) keeps it. */
	if (rc != 0 && made && b->rec != NULL && b->rec->known_hosts != NULL)
		unlink(b->rec->known_hosts);
	provider_sandbox_clear(&sb);
	free(name);
	return rc;
}

/* Provision through a provider; see provision_managed_do. */
static int
provision_managed(struct provision_args *a, const char *root,
    const struct sandbox_meta *m, int *created)
{
	struct provider_request	 req;

	memset(&req, 0, sizeof req);
	req.image = a->image;
	req.gpus = a->gpus;
	req.policy = a->policy;
	return provision_managed_do(&a->box, a, a->provider, &req, 0, root, m,
	    created);
}

/* Lock the id, connect, get or create; 0 or an exit status. */
static int
provision_locked(struct provision_args *a, const char *root,
    const struct sandbox_meta *m, int *created)
{
	struct cmd_box	*b = &a->box;
	char		*cause = NULL;
	int		 rc;

	if (registry_lock(b->reg, m->id, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	if (a->provider != NULL) {
		rc = provision_managed(a, root, m, created);
		registry_unlock(b->reg);
		return rc;
	}
	if ((rc = cmd_conn_connect(&b->cc, b->sc, &b->t)) == 0 &&
	    (rc = provision_do(b, a, root, m, created)) == 0 &&
	    m->settings.gpus != 0)
		rc = provision_gpus(b, root, m->settings.gpus, *created);
	if (rc == 0 && *created && m->settings.mode == SANDBOX_MODE_REMOTE)
		rc = provision_seed(b, root);
	registry_unlock(b->reg);
	return rc;
}

/* The provision command; see clawssh(1). */
int
cmd_provision(int argc, char **argv)
{
	struct provision_args	 a;
	struct sandbox_meta	 m;
	const char		*root;
	int			 rc, created = 0;

	memset(&a, 0, sizeof a);
	a.box.backend = HOSTDIR_BACKEND_SSH;
	if ((rc = provision_parse(argc, argv, &a)) != 0) {
		cmd_box_free(&a.box);
		return rc < 0 ? 0 : rc;
	}
	a.box.hint = provision_flags(&a);
	if ((rc = cmd_conn_load(&a.box.cc)) == 0 &&
	    (rc = cmd_box_registry(&a.box)) == 0 &&
	    (rc = provision_meta(&a, &m, &root)) == 0 &&
	    (rc = provision_locked(&a, root, &m, &created)) == 0)
		provision_print(&a.box, a.json, created);
	cmd_box_free(&a.box);
	return rc;
}
