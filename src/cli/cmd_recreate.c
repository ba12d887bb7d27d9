/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh recreate: destroy a sandbox and make it again with the
 * settings in force (what it was made with, the config file's sandbox
 * section, then the settings flags given), its sync state started over.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "cmd_box.h"
#include "cmd_conn.h"
#include "cmd_ops.h"
#include "cmd_provision.h"
#include "error.h"
#include "log.h"
#include "managed.h"
#include "provider.h"
#include "registry.h"
#include "signals.h"
#include "sshconfig.h"
#include "transport.h"
#include "xmalloc.h"

/* What the provider is asked for: the record's, or --from and --gpu. */
static int
recreate_request(const struct provision_args *a, struct provider_request *req)
{
	const struct registry_record	*r = a->box.rec;

	memset(req, 0, sizeof *req);
	req->image = a->image != NULL ? a->image : r->provider_image;
	req->policy = r->provider_policy;
	if (a->gpu != NULL)
		req->gpus = a->gpus;
	else if (r->provider_gpus != NULL &&
	    strcmp(r->provider_gpus, "-1") == 0)
		req->gpus = -1;
	else if (r->provider_gpus != NULL &&
	    cmd_parse_int(r->provider_gpus, 1, SANDBOX_GPUS_MAX,
	    &req->gpus) != 0)
		return cmd_fail("sandbox %s: bad providerGpus in its record",
		    r->id);
	return 0;
}

/*
 * Recreate a managed sandbox: its directory goes (if its machine
 * answers), the provider replaces the machine with what the record says
 * was asked for (or --from and --gpu), and the sandbox is made there
 * again.
 */
static int
recreate_managed(struct provision_args *a, const struct sandbox_meta *m)
{
	struct cmd_box		*b = &a->box;
	struct provider_request	 req;
	struct transport_opts	 topts = { b->cc.passphrase_file };
	char			*cause = NULL, *root, *provider;
	int			 rc, existed, created = 0;

	if ((rc = recreate_request(a, &req)) != 0)
		return rc;
	if (cmd_conn_resolve(&b->cc, &b->sc) == 0 && signals_init() == 0 &&
	    transport_connect(b->sc, &topts, &b->t, &cause) == 0)
		hostdir_destroy(b->t, b->rec->remote_root, m->id, &existed,
		    &cause);
	free(cause);
	cause = NULL;
	transport_free(b->t);
	sshconfig_free(b->sc);
	b->t = NULL;
	b->sc = NULL;
	root = xstrdup(b->rec->remote_root);
	provider = xstrdup(b->rec->provider);
	if ((rc = provision_managed_do(b, NULL, provider, &req, 1, root, m,
	    &created)) != 0 && registry_remove(b->reg, m->id, &cause) != 0) {
		log_warn("%s", cause);
		free(cause);
	}
	free(provider);
	free(root);
	return rc;
}

/* The metadata of the sandbox made again: the record's, the settings. */
static int
recreate_meta(struct provision_args *a, const char *id,
    struct sandbox_meta *m)
{
	const struct registry_record	*r = a->box.rec;

	memset(m, 0, sizeof *m);
	m->version = SANDBOX_META_VERSION;
	m->created = (int64_t)time(NULL);
	memcpy(m->id, id, sizeof m->id);
	m->scope = r->scope;
	snprintf(m->key, sizeof m->key, "%s", r->key);
	snprintf(m->workspace, sizeof m->workspace, "%s", r->workspace);
	if (r->provider != NULL)
		a->provider = r->provider;	/* GPUs go to the provider */
	return provision_settings(a, &r->settings, &m->settings);
}

/* Destroy, forget the sync state, make it again; 0 or an exit status. */
static int
recreate_do(struct provision_args *a, const char *id)
{
	struct cmd_box		*b = &a->box;
	struct sandbox_meta	 m;
	char			*cause = NULL, *root;
	int			 rc, existed = 0, created = 0;

	if ((rc = recreate_meta(a, id, &m)) != 0 ||
	    (rc = provision_workdir(b, b->rec->remote_root, &m)) != 0)
		return rc;
	sandbox_config_hash(&m.settings, m.config_hash);
	if (b->rec->provider == NULL && hostdir_destroy(b->t,
	    b->rec->remote_root, id, &existed, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	if (cmd_box_forget_sync(b, id, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	if (b->rec->provider != NULL)
		return recreate_managed(a, &m);
	root = xstrdup(b->rec->remote_root);
	if ((rc = provision_do(b, NULL, root, &m, &created)) == 0 &&
	    m.settings.gpus != 0)
		rc = provision_gpus(b, root, m.settings.gpus, created);
	if (rc == 0 && created && m.settings.mode == SANDBOX_MODE_REMOTE)
		rc = provision_seed(b, root);
	free(root);
	return rc;
}

static const char recreate_usage[] =
    "usage: clawssh recreate [--access none|ro|rw] [--mode mirror|remote]\n"
    "           [--from IMAGE] [--runtime bwrap|docker|podman|none]\n"
    "           [--network none|host] [--user nobody|NAME|UID:GID]\n"
    "           [--workdir /workspace|local]\n"
    "           [--memory SIZE] [--processes N] [--cpu-seconds N]\n"
    "           [--file-size SIZE] [--open-files N] [--cpus N]\n"
    "           [--gpu N|all] [options] ID\n\n"
    "Destroy a sandbox and make it again, same id, empty, with the\n"
    "settings it has: the config file's sandbox section, then these\n"
    "flags (as provision's), override them.  Its sync state starts over.\n";

/*
 * Whether word is one of provision's options that recreate does not
 * take: one that names another sandbox (host, scope, key, ...).
 */
static int
recreate_foreign(const char *w)
{
	const struct op_entry	*prov = ops_by_method("sandbox.provision");
	const struct op_entry	*re = ops_by_method("sandbox.recreate");
	const struct op_arg	*a;
	size_t			 n;

	if (strncmp(w, "--", 2) != 0)
		return 0;
	w += 2;
	n = strcspn(w, "=");
	for (a = prov->args; a->name != NULL; a++)
		if (a->opt != NULL && strlen(a->opt) == n &&
		    strncmp(a->opt, w, n) == 0 &&
		    ops_arg(re, OPS_SURFACE_CLI, a->name) == NULL)
			return 1;
	return 0;
}

/*
 * Parse recreate's command line: the connection options and provision's
 * settings flags (the operations table's sandbox.recreate), then the
 * id; what names another sandbox (host, scope, key, ...) is refused.
 * 0, -1 for --help, or a status.
 */
static int
recreate_parse(int argc, char **argv, struct provision_args *a,
    const char **id)
{
	struct cmd_ops	o;
	int		i, rc;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (recreate_foreign(argv[i]))
			return cmd_fail("recreate keeps the sandbox's host, "
			    "scope, key, workspace, root and provider: give "
			    "only settings flags (see 'clawssh recreate "
			    "--help')");
	rc = cmd_ops_parse(&o, "sandbox.recreate", &a->box.cc,
	    recreate_usage, argc, argv);
	cmd_ops_free(&o);	/* keeps the values: they are argv's */
	if (rc != 0)
		return rc;
	provision_take(a, &o);
	if (o.noperands != 1)
		return cmd_fail("usage: clawssh recreate [options] ID (see "
		    "'clawssh recreate --help')");
	*id = o.operands[0];
	return 0;
}

/* The recreate command; see clawssh(1). */
int
cmd_recreate(int argc, char **argv)
{
	struct provision_args	 a;
	const char		*id = NULL;
	char			*cause = NULL;
	int			 rc;

	memset(&a, 0, sizeof a);
	if ((rc = recreate_parse(argc, argv, &a, &id)) != 0) {
		cmd_box_free(&a.box);
		return rc < 0 ? 0 : rc;
	}
	if ((rc = cmd_box_load(&a.box, id)) == 0 &&
	    (a.box.rec->provider != NULL ||
	    (rc = cmd_box_connect(&a.box)) == 0)) {
		if ((rc = registry_lock(a.box.reg, a.box.rec->id,
		    &cause)) != 0) {
			rc = cmd_fail("%s", cause);
			free(cause);
		} else {
			a.box.warned = 1;
			if ((rc = recreate_do(&a, id)) == 0)
				printf("%s\n", a.box.rec->id);
		}
	}
	cmd_box_free(&a.box);
	return rc;
}
