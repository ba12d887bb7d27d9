/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh destroy ID: remove a sandbox from its host and the registry;
 * clawssh prune: remove the sandboxes idle or old past the limits.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "clawconfig.h"
#include "cmd.h"
#include "cmd_box.h"
#include "cmd_env.h"
#include "cmd_conn.h"
#include "cmd_ops.h"
#include "error.h"
#include "log.h"
#include "managed.h"
#include "registry.h"
#include "signals.h"
#include "sshconfig.h"
#include "transport.h"
#include "xmalloc.h"

#define PRUNE_IDLE_HOURS	24	/* defaults when config says nothing */
#define PRUNE_MAX_AGE_DAYS	7

struct prune_args {
	int		 idle_hours;	/* 0: rule off */
	int		 max_age_days;
	int		 dry_run;
	const char	*cli_ssh_config;	/* -F, if given */
	cJSON		*json;		/* --json: the array printed */
};

#define PRUNE_USAGE	"usage: clawssh prune [--idle-hours N] " \
	"[--max-age-days N] [--dry-run] [--json] [options]"

static const char destroy_usage[] =
    "usage: clawssh destroy [--json] [options] ID\n\n"
    "Remove a sandbox from its host (and its provider) and the registry.\n";
static const char prune_usage[] =
    "usage: clawssh prune [--idle-hours N] [--max-age-days N] [--dry-run]\n"
    "           [--json] [options]\n\n"
    "Remove the sandboxes idle or old past the limits, on every host.\n";

/*
 * If sandbox id is a managed one, delete it at its provider too and drop
 * its pinned host keys.  *existed is set when the provider had it.
 */
static int
destroy_provider(struct cmd_box *b, const char *id, int *existed,
    char **cause)
{
	struct registry_record	*rec = NULL;
	struct managed		 mg;
	int			 rc, had = 0;

	if (registry_get(b->reg, id, &rec, NULL) != 0 ||
	    rec->provider == NULL) {
		registry_record_free(rec);
		return 0;
	}
	if ((rc = managed_open(b->cc.cfg, rec->provider, &mg, cause)) == 0 &&
	    (rc = managed_destroy(&mg, rec->provider_name, &had,
	    cause)) == 0) {
		*existed = *existed || had;
		if (rec->known_hosts != NULL)
			unlink(rec->known_hosts);
	}
	registry_record_free(rec);
	return rc;
}

/*
 * Remove sandbox id on the connected host (if connected: a managed
 * sandbox's machine may be gone), at its provider if it has one, and
 * forget it locally: its record and its sync state.
 */
static int
destroy_one(struct cmd_box *b, const char *root, const char *id,
    int *existed)
{
	char	*cause = NULL;
	int	 rc;

	if ((b->t != NULL && hostdir_destroy(b->t, root, id, existed,
	    &cause) != 0) || destroy_provider(b, id, existed, &cause) != 0 ||
	    registry_remove(b->reg, id, &cause) != 0 ||
	    cmd_box_forget_sync(b, id, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	return 0;
}

/* Try to reach a managed sandbox's machine; quietly give up if gone. */
static void
destroy_reach(struct cmd_box *b)
{
	struct transport_opts	 topts = { b->cc.passphrase_file };
	char			*why = NULL;

	if (cmd_conn_resolve(&b->cc, &b->sc) != 0 || signals_init() != 0)
		return;
	if (transport_connect(b->sc, &topts, &b->t, &why) != 0) {
		log_info("sandbox %s: its machine did not answer (%s); "
		    "deleting it at provider %s", b->rec->id, why,
		    b->rec->provider);
		free(why);
		b->t = NULL;
	}
}

/* Print destroy's --json object. */
static void
destroy_json(const char *id, int existed)
{
	cJSON	*o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddBoolToObject(o, "existed", existed);
	cmd_print_json(o);
	cJSON_Delete(o);
}

/* The destroy command; see clawssh(1). */
int
cmd_destroy(int argc, char **argv)
{
	struct cmd_box	 b;
	struct cmd_ops	 o;
	char		*cause = NULL;
	int		 rc, existed = 0, json;

	memset(&b, 0, sizeof b);
	rc = cmd_ops_parse(&o, "sandbox.destroy", &b.cc, destroy_usage, argc,
	    argv);
	json = rc == 0 && cmd_ops_flag(&o, "json");
	cmd_ops_free(&o);	/* keeps the values: they are argv's */
	if (rc != 0) {
		rc = rc == -1 ? CMD_EXIT_HELP : rc;
		goto out;
	}
	if (o.noperands != 1)
		goto usage;
	if ((rc = cmd_box_load(&b, o.operands[0])) != 0)
		goto out;
	if (b.rec->provider != NULL)
		destroy_reach(&b);
	else if ((rc = cmd_box_connect(&b)) != 0)
		goto out;
	if (registry_lock(b.reg, b.rec->id, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		goto out;
	}
	if ((rc = destroy_one(&b, b.rec->remote_root, b.rec->id,
	    &existed)) == 0 && json)
		destroy_json(b.rec->id, existed);
	else if (rc == 0)
		printf("%s %s\n", existed ? "destroyed" : "forgot (already "
		    "gone from its host)", b.rec->id);
	goto out;
usage:
	rc = rc > 1 ? rc : cmd_fail("usage: clawssh destroy [--json] "
	    "[options] ID");
out:
	cmd_box_free(&b);
	return rc;
}

/* Why entry e should go, or NULL if it stays. */
static const char *
prune_reason(const struct prune_args *p, const struct hostdir_listing *l,
    const struct hostdir_entry *e, char *buf, size_t len)
{
	char	dur[16];

	if (p->idle_hours > 0 &&
	    l->now - e->last_used > (int64_t)p->idle_hours * 3600) {
		cmd_box_duration(l->now - e->last_used, dur, sizeof dur);
		snprintf(buf, len, "idle %s", dur);
		return buf;
	}
	if (p->max_age_days > 0 &&
	    l->now - e->created > (int64_t)p->max_age_days * 86400) {
		cmd_box_duration(l->now - e->created, dur, sizeof dur);
		snprintf(buf, len, "age %s", dur);
		return buf;
	}
	return NULL;
}

/* Say that id goes (or would) and why: a line, or an object for --json. */
static void
prune_say(const struct prune_args *p, const char *id, const char *why)
{
	cJSON	*o;

	if (p->json == NULL) {
		printf("%s %s (%s)\n", p->dry_run ? "would prune" : "pruned",
		    id, why);
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "id", id);
	cJSON_AddStringToObject(o, "reason", why);
	cJSON_AddBoolToObject(o, "pruned", !p->dry_run);
	cJSON_AddItemToArray(p->json, o);
}

/* Prune the sandboxes under rec's root on rec's (connected) host. */
static int
prune_host(struct cmd_box *b, const struct prune_args *p,
    const struct registry_record *rec)
{
	struct hostdir_listing	 l;
	const char		*why;
	char			*cause = NULL, *agent, buf[64];
	size_t			 i;
	int			 rc = 0, existed;

	agent = cmd_env_agent_cached(b);
	rc = hostdir_list(b->t, rec->remote_root, NULL, agent, &l, &cause);
	free(agent);
	if (rc != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	for (i = 0; i < l.n && rc == 0; i++) {
		why = prune_reason(p, &l, &l.entries[i], buf, sizeof buf);
		if (why == NULL)
			continue;
		prune_say(p, l.entries[i].meta.id, why);
		if (p->dry_run)
			continue;
		if (registry_lock(b->reg, l.entries[i].meta.id,
		    &cause) != 0) {
			rc = cmd_fail("%s", cause);
			free(cause);
			break;
		}
		rc = destroy_one(b, rec->remote_root, l.entries[i].meta.id,
		    &existed);
		registry_unlock(b->reg);
	}
	hostdir_listing_clear(&l);
	return rc;
}

/* Parse prune's options over the config's defaults. */
static int
prune_parse(int argc, char **argv, struct cmd_box *b, struct prune_args *p)
{
	struct cmd_ops	o;
	int64_t		idle = -1, age = -1;
	int		rc;

	rc = cmd_ops_parse(&o, "sandbox.prune", &b->cc, prune_usage, argc,
	    argv);
	if (rc == 0) {
		cmd_ops_int(&o, "idle_hours", &idle);
		cmd_ops_int(&o, "max_age_days", &age);
		p->dry_run = cmd_ops_flag(&o, "dry_run");
		if (cmd_ops_flag(&o, "json"))
			p->json = cJSON_CreateArray();
		if (o.noperands != 0)
			rc = cmd_fail("%s", PRUNE_USAGE);
	}
	cmd_ops_free(&o);
	if (rc != 0)
		return rc == -1 ? CMD_EXIT_HELP : rc;
	p->cli_ssh_config = b->cc.ssh_config;
	if ((rc = cmd_conn_load(&b->cc)) != 0)
		return rc;
	p->idle_hours = b->cc.cfg->prune_idle_hours >= 0 ?
	    b->cc.cfg->prune_idle_hours : PRUNE_IDLE_HOURS;
	p->max_age_days = b->cc.cfg->prune_max_age_days >= 0 ?
	    b->cc.cfg->prune_max_age_days : PRUNE_MAX_AGE_DAYS;
	if (idle >= 0)		/* in range: the table's check */
		p->idle_hours = (int)idle;
	if (age >= 0)
		p->max_age_days = (int)age;
	return 0;
}

/* Visit every host in the registry once and prune there. */
static int
prune_all(struct cmd_box *b, const struct prune_args *p,
    struct registry_record **recs, size_t n)
{
	size_t	i, j;
	int	rc = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < i && !cmd_box_same_host(recs[i], recs[j]); j++)
			;
		if (j < i)
			continue;
		transport_free(b->t);
		sshconfig_free(b->sc);
		b->t = NULL;
		b->sc = NULL;
		b->cc.target = recs[i]->target;
		b->cc.ssh_config = p->cli_ssh_config != NULL ?
		    p->cli_ssh_config :
		    recs[i]->ssh_config != NULL ? recs[i]->ssh_config :
		    b->cc.cfg->ssh_config_file;
		cmd_box_endpoint(b, recs[i]);
		if (cmd_box_connect(b) != 0 ||
		    prune_host(b, p, recs[i]) != 0)
			rc = 1;
	}
	return rc;
}

/* The prune command; see clawssh(1). */
int
cmd_prune(int argc, char **argv)
{
	struct cmd_box		  b;
	struct prune_args	  p;
	struct registry_record	**recs = NULL;
	char			 *cause = NULL;
	size_t			  n = 0;
	int			  rc;

	memset(&b, 0, sizeof b);
	memset(&p, 0, sizeof p);
	if ((rc = prune_parse(argc, argv, &b, &p)) != 0)
		goto out;
	if ((rc = cmd_box_registry(&b)) != 0)
		goto out;
	if (registry_list(b.reg, &recs, &n, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		goto out;
	}
	rc = prune_all(&b, &p, recs, n);
	if (p.json != NULL)
		cmd_print_json(p.json);
out:
	cJSON_Delete(p.json);
	registry_records_free(recs);
	cmd_box_free(&b);
	return rc;
}
