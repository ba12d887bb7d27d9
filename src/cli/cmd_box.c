/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared plumbing of the sandbox commands.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "clawconfig.h"
#include "cmd.h"
#include "cmd_box.h"
#include "contain_bwrap.h"
#include "error.h"
#include "hostws.h"
#include "ignore.h"
#include "log.h"
#include "managed.h"
#include "mirror.h"
#include "mux_client.h"
#include "mux_proto.h"
#include "pathguard.h"
#include "registry.h"
#include "sshconfig.h"
#include "syncstate.h"
#include "transport.h"
#include "xmalloc.h"

/* Open the registry; see cmd_box.h. */
int
cmd_box_registry(struct cmd_box *b)
{
	char	*cause = NULL;
	int	 rc;

	if (b->reg != NULL)
		return 0;
	if (registry_open(b->cc.state_dir, cmd_home(), &b->reg,
	    &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	return 0;
}

/* Load a sandbox's record and aim at its host; see cmd_box.h. */
int
cmd_box_load(struct cmd_box *b, const char *id)
{
	char	*cause = NULL;
	int	 rc;

	if (!sandbox_id_ok(id))
		return cmd_fail("'%s' is not a sandbox id", id);
	if ((rc = cmd_box_registry(b)) != 0)
		return rc;
	if ((rc = registry_get(b->reg, id, &b->rec, &cause)) != 0) {
		if (rc == CLAW_ERR_NOTFOUND)
			rc = cmd_fail("no sandbox %s in %s (see 'clawssh "
			    "list')", id, registry_dir(b->reg));
		else
			rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	if ((b->backend = hostdir_backend_name(b->rec->backend)) == NULL)
		return cmd_fail("sandbox %s: unknown backend '%s'", id,
		    b->rec->backend);
	if (b->cc.target == NULL)
		b->cc.target = b->rec->target;
	if (b->cc.ssh_config == NULL)
		b->cc.ssh_config = b->rec->ssh_config;
	cmd_box_endpoint(b, b->rec);
	return cmd_conn_load(&b->cc);
}

/* Aim at a managed sandbox's endpoint; see cmd_box.h. */
void
cmd_box_endpoint(struct cmd_box *b, const struct registry_record *rec)
{
	char	**lines = NULL;
	size_t	  n = 0;

	if (rec->provider != NULL)
		managed_ssh_lines(rec->host, rec->port, rec->user,
		    rec->proxy_command, rec->identity_file,
		    rec->host_key_alias, rec->known_hosts, &lines, &n);
	cmd_conn_endpoint(&b->cc, lines, n);
}

/* Resolve and connect; see cmd_box.h. */
int
cmd_box_connect(struct cmd_box *b)
{
	int	rc;

	if ((rc = cmd_conn_resolve(&b->cc, &b->sc)) != 0)
		return rc;
	if ((rc = cmd_conn_connect(&b->cc, b->sc, &b->t)) != 0 &&
	    b->rec != NULL && b->rec->provider != NULL)
		log_warn("sandbox %s is provider %s's %s: 'clawssh status %s' "
		    "shows what the provider says", b->rec->id,
		    b->rec->provider, b->rec->provider_name, b->rec->id);
	return rc;
}

/* The settings in force; see cmd_box.h. */
void
cmd_box_settings(const struct cmd_box *b,
    const struct sandbox_settings *base, struct sandbox_settings *out)
{
	const struct claw_config	*c = b->cc.cfg;

	*out = *base;
	if (c == NULL)
		return;
	if (c->sandbox_mode >= 0)
		out->mode = (enum sandbox_mode)c->sandbox_mode;
	if (c->sandbox_access >= 0)
		out->access = (enum sandbox_access)c->sandbox_access;
	if (c->limits.memory >= 0)
		out->limits.memory = c->limits.memory;
	if (c->limits.nproc >= 0)
		out->limits.nproc = c->limits.nproc;
	if (c->limits.cpu >= 0)
		out->limits.cpu = c->limits.cpu;
	if (c->limits.fsize >= 0)
		out->limits.fsize = c->limits.fsize;
	if (c->limits.nofile >= 0)
		out->limits.nofile = c->limits.nofile;
	if (c->limits.cpus >= 0)
		out->limits.cpus = c->limits.cpus;
	if (c->sandbox_runtime >= 0)
		out->runtime = (enum contain_runtime)c->sandbox_runtime;
	if (c->sandbox_network >= 0)
		out->network = (enum contain_network)c->sandbox_network;
	if (c->sandbox_image != NULL)
		snprintf(out->image, sizeof out->image, "%s",
		    c->sandbox_image);
	if (c->sandbox_user != NULL)
		snprintf(out->user, sizeof out->user, "%s", c->sandbox_user);
	if (c->sandbox_workdir >= 0)
		out->workdir = (enum sandbox_workdir)c->sandbox_workdir;
}

/* Whether strict config checking is on. */
int
cmd_box_strict(const struct cmd_box *b)
{
	return b->strict_config || (b->cc.cfg != NULL &&
	    b->cc.cfg->strict_config);
}

/* Warn about, or refuse, a stale sandbox; see cmd_box.h. */
int
cmd_box_stale(struct cmd_box *b, const char *id, const char *stored,
    const struct sandbox_settings *now)
{
	char	hash[SANDBOX_HASH_LEN + 1];

	sandbox_config_hash(now, hash);
	if (strcmp(hash, stored) == 0)
		return 0;
	if (cmd_box_strict(b))
		return cmd_fail("sandbox %s was created with other settings "
		    "(strict config): run: clawssh recreate%s %s", id,
		    b->hint != NULL ? b->hint : "", id);
	if (!b->warned)
		log_warn("sandbox %s was created with other settings; run: "
		    "clawssh recreate%s %s", id, b->hint != NULL ? b->hint :
		    "", id);
	b->warned = 1;
	return 0;
}

/* The remote root from the config, else the default. */
const char *
cmd_box_root(const struct cmd_box *b)
{
	if (b->cc.cfg != NULL && b->cc.cfg->remote_root != NULL)
		return b->cc.cfg->remote_root;
	return SANDBOX_DEFAULT_ROOT;
}

/* Format a duration compactly. */
void
cmd_box_duration(int64_t secs, char *out, size_t len)
{
	if (secs < 0)
		secs = 0;
	if (secs < 120)
		snprintf(out, len, "%llds", (long long)secs);
	else if (secs < 7200)
		snprintf(out, len, "%lldm", (long long)(secs / 60));
	else if (secs < 172800)
		snprintf(out, len, "%lldh", (long long)(secs / 3600));
	else
		snprintf(out, len, "%lldd", (long long)(secs / 86400));
}

/* Whether two records live on the same host and root. */
int
cmd_box_same_host(const struct registry_record *a,
    const struct registry_record *b)
{
	return strcmp(a->target, b->target) == 0 &&
	    strcmp(a->remote_root, b->remote_root) == 0 &&
	    (a->ssh_config == NULL) == (b->ssh_config == NULL) &&
	    (a->ssh_config == NULL || strcmp(a->ssh_config,
	    b->ssh_config) == 0);
}

/* The record as a JSON object. */
cJSON *
cmd_box_json(const struct registry_record *r)
{
	cJSON	*o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "id", r->id);
	cJSON_AddStringToObject(o, "backend", r->backend);
	if (r->provider != NULL) {
		cJSON_AddStringToObject(o, "provider", r->provider);
		cJSON_AddStringToObject(o, "providerName", r->provider_name);
	}
	cJSON_AddStringToObject(o, "target", r->target);
	cJSON_AddStringToObject(o, "user", r->user);
	cJSON_AddStringToObject(o, "host", r->host);
	cJSON_AddNumberToObject(o, "port", r->port);
	cJSON_AddStringToObject(o, "scope", sandbox_scope_name(r->scope));
	cJSON_AddStringToObject(o, "key", r->key);
	cJSON_AddStringToObject(o, "mode",
	    sandbox_mode_name(r->settings.mode));
	cJSON_AddStringToObject(o, "access",
	    sandbox_access_name(r->settings.access));
	cJSON_AddStringToObject(o, "image", r->settings.image);
	cJSON_AddStringToObject(o, "runtime",
	    contain_runtime_name(r->settings.runtime));
	cJSON_AddStringToObject(o, "network",
	    contain_network_name(r->settings.network));
	if (r->settings.user[0] != '\0')
		cJSON_AddStringToObject(o, "runAs", r->settings.user);
	if (r->settings.workdir != SANDBOX_WORKDIR_WORKSPACE)
		cJSON_AddStringToObject(o, "workdir",
		    sandbox_workdir_name(r->settings.workdir));
	cJSON_AddItemToObject(o, "limits",
	    contain_limits_json(&r->settings.limits));
	cJSON_AddStringToObject(o, "configHash", r->config_hash);
	cJSON_AddStringToObject(o, "workspace", r->workspace);
	cJSON_AddStringToObject(o, "remoteRoot", r->remote_root);
	cJSON_AddNumberToObject(o, "created", (double)r->created);
	return o;
}

/* Release everything. */
void
cmd_box_free(struct cmd_box *b)
{
	transport_free(b->t);
	sshconfig_free(b->sc);
	registry_record_free(b->rec);
	registry_close(b->reg);
	cmd_conn_free(&b->cc);
	free(b->hint);
	memset(b, 0, sizeof *b);
}

/* Whether steps may join the environment; see cmd_box.h. */
int
cmd_box_steps_join(const struct sandbox_settings *now)
{
	const char	*off = getenv("CLAWSSH_NO_STEP_JOIN");

	return (off == NULL || strcmp(off, "1") != 0) &&
	    now->runtime == CONTAIN_BWRAP && strcmp(now->image, "host") == 0 &&
	    now->access == SANDBOX_ACCESS_RW && now->gpus == 0 &&
	    now->limits.cpu == 0 && now->limits.fsize == 0 &&
	    now->limits.nproc == 0;
}

/* Where b's host-side steps run; see cmd_box.h. */
void
cmd_box_hostws(const struct cmd_box *b, const char *sub, struct hostws *h)
{
	const struct registry_record	*r = b->rec;
	struct sandbox_settings		 now;
	struct contain_spec		 spec;
	char				*ws, *jail = NULL;

	cmd_box_settings(b, &r->settings, &now);
	if (now.runtime != CONTAIN_NONE) {
		memset(&spec, 0, sizeof spec);
		spec.settings = &now;
		spec.root = r->remote_root;
		spec.id = r->id;
		jail = contain_bwrap_step(&spec, sub);
	}
	if (strcmp(sub, "workspace") == 0)
		ws = hostdir_workspace(r->remote_root, r->id);
	else
		ws = xasprintf("%s/%s/%s", r->remote_root, r->id, sub);
	hostws_init(h, ws, jail);
	if (b->steps != NULL && b->steps->dir != NULL &&
	    strcmp(sub, "workspace") == 0 && cmd_box_steps_join(&now))
		hostws_join(h, b->steps->agent, b->steps->dir,
		    b->steps->token, b->steps->workdir);
	free(ws);
	free(jail);
}

#define BOX_READY_MS	60000	/* the daemon's session is up by then */

/* mirror_hints' take through the daemon's control socket. */
static int
box_hint_take(void *arg, enum mirror_take_kind kind, const struct buf *req,
    int timeout_ms, struct buf *rep, char **why)
{
	struct mux	*mx = arg;
	int		 journal = kind == MIRROR_TAKE_JOURNAL;
	size_t		 len = req->len, i, nul = 0;

	if (!mux_has(mx, journal ? "journal" : "jwatch", BOX_READY_MS)) {
		*why = xstrdup("the running daemon does not offer it (older "
		    "than this clawssh? restart it)");
		return 1;
	}
	if (!journal && !mux_has(mx, "awatch", BOX_READY_MS)) {
		/* an older daemon: the request ends after the jail */
		for (i = 0; i < len && nul < 3; i++)
			nul += req->data[i] == '\0';
		len = i;
	}
	return mux_request(mx, journal ? MUX_JTAKE : MUX_RTAKE, req->data,
	    len, journal ? MUX_JPATHS : MUX_RPATHS, rep, timeout_ms,
	    why) != 0;
}

/* mirror_hints' ack: JACK. */
static void
box_hint_ack(void *arg)
{
	mux_send(arg, MUX_JACK, NULL, 0);
}

/* Open the sync state of b's sandbox; see cmd_box.h. */
int
cmd_box_mirror(struct cmd_box *b, struct pathguard *pg, struct mirror *m,
    char **cause)
{
	struct registry_record	*r = b->rec;
	struct hostws		 hw;
	char			*dir;
	int			 rc;

	cmd_box_hostws(b, "workspace", &hw);
	dir = xasprintf("%s/manifests", registry_dir(b->reg));
	rc = mirror_open(m, b->t, pg, &hw, dir, r->id,
	    (const char *const *)(uintptr_t)b->cc.cfg->sync_exclude,
	    b->cc.cfg->nsync_exclude, cause);
	if (rc == 0)
		ignore_set_push_git(m->ig, b->cc.cfg->sync_push_git);
	if (rc == 0 && transport_mux(b->t) != NULL) {
		m->hints.take = box_hint_take;
		m->hints.ack = box_hint_ack;
		m->hints.arg = transport_mux(b->t);
	}
	free(dir);
	hostws_clear(&hw);
	return rc;
}

/* Push local changes to a connected mirror-mode sandbox; see cmd_box.h. */
int
cmd_box_push(struct cmd_box *b, struct pathguard *pg, char **cause)
{
	struct pathguard	*own = NULL;
	struct mirror		 m;
	int			 rc;

	if (pg == NULL) {
		if ((rc = pathguard_open(b->rec->workspace, &own, cause)) != 0)
			return rc;
		pg = own;
	}
	if ((rc = cmd_box_mirror(b, pg, &m, cause)) == 0)
		rc = mirror_push(&m, cause);
	mirror_close(&m);
	pathguard_close(own);
	return rc;
}

/* Forget a sandbox's sync state; see cmd_box.h. */
int
cmd_box_forget_sync(struct cmd_box *b, const char *id, char **cause)
{
	char	*dir, *name;
	int	 rc;

	dir = xasprintf("%s/manifests", registry_dir(b->reg));
	name = xasprintf("%s.manifest", id);
	rc = syncstate_remove(dir, name, cause);
	free(name);
	free(dir);
	return rc;
}
