/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh list: every sandbox in the registry, with what its host says;
 * clawssh status ID: one of them in detail.  Hosts are visited once each;
 * an unreachable host is shown as such within ConnectTimeout.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "clawconfig.h"
#include "cmd.h"
#include "cmd_box.h"
#include "cmd_boxenv.h"
#include "cmd_conn.h"
#include "cmd_env.h"
#include "cmd_ops.h"
#include "error.h"
#include "hostdir.h"
#include "log.h"
#include "managed.h"
#include "registry.h"
#include "sshconfig.h"
#include "transport.h"
#include "xmalloc.h"

/* How long list waits for a host that gives no ConnectTimeout. */
#define LIST_CONNECT_TIMEOUT	"ConnectTimeout 10"

/* One row: a record and what its host said about it. */
struct list_row {
	struct registry_record	*rec;
	const char		*state;	/* ok stale missing unreachable */
	int			 have_times;
	int64_t			 age, idle;
	struct cJSON		*env;	/* status: the environment */
};

/* The state of a visit to one host. */
struct list_host {
	struct cmd_box		*b;
	const char		*cli_ssh_config;
	struct hostdir_listing	 l;
	int			 reachable;
	int			 only;		/* list the one record's only */
	int			 have_env;	/* status's one step said env */
	struct cJSON		*env;		/* what it said */
};

/*
 * Visit the host of rec: connect and list its sandboxes (status: only
 * rec's, so that its time does not grow with the host's other ones).
 */
static void
list_visit(struct list_host *h, const struct registry_record *rec)
{
	struct cmd_box	*b = h->b;
	char		*cause = NULL, *agent;
	int		 rc;

	transport_free(b->t);
	sshconfig_free(b->sc);
	b->t = NULL;
	b->sc = NULL;
	hostdir_listing_clear(&h->l);
	h->reachable = 0;
	b->cc.target = rec->target;
	b->cc.ssh_config = h->cli_ssh_config != NULL ? h->cli_ssh_config :
	    rec->ssh_config != NULL ? rec->ssh_config :
	    b->cc.cfg->ssh_config_file;
	cmd_box_endpoint(b, rec);
	if (cmd_box_connect(b) != 0)
		return;
	if (h->only) {
		/* status: the entry and the environment in one step */
		rc = cmd_boxenv_status_entry(b, &h->l, &h->env);
		h->have_env = rc != 1;	/* 2: none, the agent said why */
		if ((h->reachable = rc == 0))
			return;
	}
	/* the agent's listing; for status it was just tried */
	agent = h->only ? NULL : cmd_env_agent_cached(b);
	rc = hostdir_list(b->t, rec->remote_root, h->only ? rec->id : NULL,
	    agent, &h->l, &cause);
	free(agent);
	if (rc != 0) {
		cmd_fail("%s", cause);
		free(cause);
		return;
	}
	h->reachable = 1;
}

/* Fill row from the host's listing. */
static void
list_judge(struct list_host *h, struct list_row *row)
{
	struct sandbox_settings	 now;
	char			 hash[SANDBOX_HASH_LEN + 1];
	size_t			 i;

	row->state = "unreachable";
	if (!h->reachable)
		return;
	row->state = "missing";
	for (i = 0; i < h->l.n; i++) {
		if (strcmp(h->l.entries[i].meta.id, row->rec->id) != 0)
			continue;
		row->have_times = 1;
		row->age = h->l.now - h->l.entries[i].created;
		row->idle = h->l.now - h->l.entries[i].last_used;
		cmd_box_settings(h->b, &h->l.entries[i].meta.settings, &now);
		sandbox_config_hash(&now, hash);
		row->state = strcmp(hash, h->l.entries[i].meta.config_hash)
		    == 0 ? "ok" : "stale";
		return;
	}
}

/* Build the rows for recs (visiting each host once). */
static struct list_row *
list_rows(struct list_host *h, struct registry_record **recs, size_t n)
{
	struct list_row	*rows;
	size_t		 i, j;

	rows = xcalloc(n + 1, sizeof *rows);
	for (i = 0; i < n; i++)
		rows[i].rec = recs[i];
	for (i = 0; i < n; i++) {
		if (rows[i].state != NULL)
			continue;
		list_visit(h, recs[i]);
		for (j = i; j < n; j++) {
			if (rows[j].state == NULL &&
			    cmd_box_same_host(recs[i], recs[j]))
				list_judge(h, &rows[j]);
		}
	}
	return rows;
}

/* One row as JSON. */
static cJSON *
list_row_json(const struct list_row *row)
{
	cJSON	*o = cmd_box_json(row->rec);

	cJSON_AddStringToObject(o, "state", row->state);
	if (row->have_times) {
		cJSON_AddNumberToObject(o, "ageSeconds", (double)row->age);
		cJSON_AddNumberToObject(o, "idleSeconds", (double)row->idle);
	} else {
		cJSON_AddNullToObject(o, "ageSeconds");
		cJSON_AddNullToObject(o, "idleSeconds");
	}
	return o;
}

/* Print one row as a JSON object. */
static void
list_detail_json(const struct list_row *row)
{
	cJSON	*o = list_row_json(row);
	char	*text;

	if (row->env != NULL)
		cJSON_AddItemReferenceToObject(o, "environment", row->env);
	text = cJSON_Print(o);
	printf("%s\n", text);
	free(text);
	cJSON_Delete(o);
}

/* Print one row of the table. */
static void
list_row_print(const struct list_row *row)
{
	const struct registry_record	*r = row->rec;
	char				 host[300], sk[80], age[16], idle[16];

	snprintf(host, sizeof host, "%s@%s:%d", r->user, r->host, r->port);
	snprintf(sk, sizeof sk, "%s/%s", sandbox_scope_name(r->scope),
	    r->key);
	snprintf(age, sizeof age, "-");
	snprintf(idle, sizeof idle, "-");
	if (row->have_times) {
		cmd_box_duration(row->age, age, sizeof age);
		cmd_box_duration(row->idle, idle, sizeof idle);
	}
	printf("%-14s %-28s %-20s %-7s %-6s %-10s %-5s %-5s %s\n", r->id,
	    host, sk, sandbox_mode_name(r->settings.mode),
	    sandbox_access_name(r->settings.access), r->settings.image, age,
	    idle, row->state);
}

/* Print the limits line, if any limit is set. */
static void
list_limits_print(const struct contain_limits *l)
{
	char	cpus[32];

	if (l->memory == 0 && l->nproc == 0 && l->cpu == 0 &&
	    l->fsize == 0 && l->nofile == 0 && l->cpus == 0)
		return;
	contain_cpus_format(l->cpus, cpus, sizeof cpus);
	printf("limits:     memory %lld, processes %lld, cpu %lld s, file size "
	    "%lld, open files %lld, CPUs %s (0: none)\n", (long long)l->memory,
	    (long long)l->nproc, (long long)l->cpu, (long long)l->fsize,
	    (long long)l->nofile, cpus);
}

/* Print one row as "field: value" lines, for status. */
static void
list_detail_print(const struct list_row *row)
{
	const struct registry_record	*r = row->rec;
	char				 age[16] = "-", idle[16] = "-";

	if (row->have_times) {
		cmd_box_duration(row->age, age, sizeof age);
		cmd_box_duration(row->idle, idle, sizeof idle);
	}
	printf("id:         %s\nhost:       %s@%s:%d (%s)\n"
	    "scope:      %s\nkey:        %s\nmode:       %s\n"
	    "access:     %s\nimage:      %s\nruntime:    %s\n"
	    "network:    %s\n", r->id, r->user, r->host, r->port, r->target,
	    sandbox_scope_name(r->scope), r->key,
	    sandbox_mode_name(r->settings.mode),
	    sandbox_access_name(r->settings.access), r->settings.image,
	    contain_runtime_name(r->settings.runtime),
	    contain_network_name(r->settings.network));
	if (r->settings.user[0] != '\0')
		printf("user:       %s\n", r->settings.user);
	if (r->settings.workdir != SANDBOX_WORKDIR_WORKSPACE)
		printf("workdir:    %s\n", sandbox_workdir_path(&r->settings,
		    r->workspace));
	list_limits_print(&r->settings.limits);
	printf("workspace:  %s\nremote:     %s/%s/workspace\n"
	    "age:        %s\nidle:       %s\nstate:      %s\n", r->workspace,
	    r->remote_root, r->id, age, idle, row->state);
	if (r->settings.runtime != CONTAIN_NONE &&
	    (strcmp(row->state, "ok") == 0 || strcmp(row->state, "stale") == 0))
		cmd_boxenv_print(row->env);
}

/* Print rows as a table or a JSON array. */
static void
list_print(const struct list_row *rows, size_t n, int json)
{
	cJSON	*a;
	char	*text;
	size_t	 i;

	if (json) {
		a = cJSON_CreateArray();
		for (i = 0; i < n; i++)
			cJSON_AddItemToArray(a, list_row_json(&rows[i]));
		text = cJSON_Print(a);
		printf("%s\n", text);
		free(text);
		cJSON_Delete(a);
		return;
	}
	printf("%-14s %-28s %-20s %-7s %-6s %-10s %-5s %-5s %s\n", "ID",
	    "HOST", "SCOPE/KEY", "MODE", "ACCESS", "IMAGE", "AGE", "IDLE",
	    "STATE");
	for (i = 0; i < n; i++)
		list_row_print(&rows[i]);
}

static const char list_usage[] =
    "usage: clawssh list [--json] [--provider NAME] [options]\n\n"
    "List the sandboxes of the local registry with what their hosts say.\n";
static const char status_usage[] =
    "usage: clawssh status [--json] [options] ID\n\n"
    "Show one sandbox: its record, its host's view, its provider's, and\n"
    "its environment (running or not, its processes).\n";

/*
 * Parse list's or status's options (the operations table's); sets *json
 * and, for list, *provider; *id is status's operand.  0, or an exit
 * status (CMD_EXIT_HELP after --help).
 */
static int
list_parse(int argc, char **argv, struct cmd_box *b, int *json,
    const char **provider, const char **id)
{
	struct cmd_ops	o;
	int		rc, list = id == NULL;

	rc = cmd_ops_parse(&o, list ? "sandbox.list" : "sandbox.status",
	    &b->cc, list ? list_usage : status_usage, argc, argv);
	if (rc == 0) {
		*json = cmd_ops_flag(&o, "json");
		if (list)
			*provider = cmd_ops_get(&o, "provider");
		if (o.noperands != (list ? 0 : 1))
			rc = cmd_fail("%s", list ? "usage: clawssh list "
			    "[--json] [--provider NAME] [options]" :
			    "usage: clawssh status [--json] [options] ID");
		else if (!list)
			*id = o.operands[0];
	}
	cmd_ops_free(&o);
	return rc == -1 ? CMD_EXIT_HELP : rc;
}

/* Load config and registry, with list's connect-timeout fallback. */
static int
list_setup(struct cmd_box *b)
{
	int	rc;

	if ((rc = cmd_box_registry(b)) != 0 ||
	    (rc = cmd_conn_load(&b->cc)) != 0)
		return rc;
	cmd_conn_option(&b->cc, 'o', LIST_CONNECT_TIMEOUT);
	return 0;
}

/* Show records with their hosts' view; shared by list and status. */
static int
list_show(struct cmd_box *b, const char *cli_ssh_config,
    struct registry_record **recs, size_t n, int json, int detail)
{
	struct list_host	 h;
	struct list_row		*rows;
	int			 rc = 0;

	memset(&h, 0, sizeof h);
	h.b = b;
	h.cli_ssh_config = cli_ssh_config;
	h.only = detail;
	rows = list_rows(&h, recs, n);
	if (detail && strcmp(rows[0].state, "ok") != 0 &&
	    strcmp(rows[0].state, "stale") != 0)
		rc = 1;
	if (detail && rc == 0)
		rows[0].env = h.have_env ? h.env : cmd_boxenv_status(b);
	else
		cJSON_Delete(h.env);	/* missing or unreachable: not shown */
	if (detail && !json)
		list_detail_print(&rows[0]);
	else if (detail)
		list_detail_json(&rows[0]);
	else
		list_print(rows, n, json);
	cJSON_Delete(rows[0].env);
	hostdir_listing_clear(&h.l);
	free(rows);
	return rc;
}

/* For status of a managed sandbox: what its provider says now. */
static void
list_provider_print(struct cmd_box *b)
{
	const struct registry_record	*r = b->rec;
	struct provider_sandbox		 sb;
	struct managed			 mg;
	char				*cause = NULL;

	memset(&sb, 0, sizeof sb);
	printf("provider:   %s, as %s: ", r->provider, r->provider_name);
	if (managed_open(b->cc.cfg, r->provider, &mg, &cause) != 0 ||
	    mg.ops->get(&mg.pc, r->provider_name, &sb, &cause) != 0) {
		printf("(%s)\n", cause);
		free(cause);
		return;
	}
	printf("%s", provider_state_name(sb.state));
	if (sb.state_text != NULL && strcmp(sb.state_text,
	    provider_state_name(sb.state)) != 0)
		printf(" (%s)", sb.state_text);
	if (sb.gpus != NULL)
		printf(", GPUs %s", sb.gpus);
	printf("\n");
	provider_sandbox_clear(&sb);
}

/* The id of the local record for provider's sandbox name, or "-". */
static const char *
list_provider_id(const char *provider, const char *name,
    struct registry_record **recs, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (recs[i]->provider != NULL &&
		    strcmp(recs[i]->provider, provider) == 0 &&
		    strcmp(recs[i]->provider_name, name) == 0)
			return recs[i]->id;
	}
	return "-";
}

/*
 * list --provider NAME: the sandboxes the provider has, with the local
 * record of each ("-": none, e.g. one whose record was lost).
 */
static int
list_provider(struct cmd_box *b, const char *provider,
    struct registry_record **recs, size_t n, int json)
{
	struct provider_sandbox	*v = NULL;
	struct managed		 mg;
	cJSON			*a, *o;
	char			*cause = NULL, *text;
	const char		*id;
	size_t			 i, k = 0;
	int			 rc;

	if (managed_open(b->cc.cfg, provider, &mg, &cause) != 0 ||
	    mg.ops->list(&mg.pc, &v, &k, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	a = cJSON_CreateArray();
	if (!json)
		printf("%-20s %-8s %-14s %s\n", "NAME", "STATE", "ID", "SAYS");
	for (i = 0; i < k; i++) {
		id = list_provider_id(provider, v[i].name, recs, n);
		if (!json) {
			printf("%-20s %-8s %-14s %s\n", v[i].name,
			    provider_state_name(v[i].state), id,
			    v[i].state_text != NULL ? v[i].state_text : "");
			continue;
		}
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", v[i].name);
		cJSON_AddStringToObject(o, "state",
		    provider_state_name(v[i].state));
		cJSON_AddStringToObject(o, "id", id);
		cJSON_AddItemToArray(a, o);
	}
	if (json) {
		text = cJSON_Print(a);
		printf("%s\n", text);
		free(text);
	}
	cJSON_Delete(a);
	provider_sandboxes_free(v, k);
	return 0;
}

/* The list command; see clawssh(1). */
int
cmd_list(int argc, char **argv)
{
	struct cmd_box		  b;
	struct registry_record	**recs = NULL;
	const char		 *cli, *provider = NULL;
	char			 *cause = NULL;
	size_t			  n = 0;
	int			  rc, json = 0;

	memset(&b, 0, sizeof b);
	if ((rc = list_parse(argc, argv, &b, &json, &provider, NULL)) != 0)
		goto out;
	cli = b.cc.ssh_config;
	if ((rc = list_setup(&b)) != 0)
		goto out;
	if (registry_list(b.reg, &recs, &n, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		goto out;
	}
	if (provider != NULL)
		rc = list_provider(&b, provider, recs, n, json);
	else
		rc = list_show(&b, cli, recs, n, json, 0);
out:
	registry_records_free(recs);
	cmd_box_free(&b);
	return rc;
}

/* The status command; see clawssh(1). */
int
cmd_status(int argc, char **argv)
{
	struct cmd_box		 b;
	struct registry_record	*one[2];
	const char		*cli, *id = NULL;
	int			 rc, json = 0;

	memset(&b, 0, sizeof b);
	if ((rc = list_parse(argc, argv, &b, &json, NULL, &id)) != 0)
		goto out;
	cli = b.cc.ssh_config;
	if ((rc = cmd_box_load(&b, id)) != 0)
		goto out;
	cmd_conn_option(&b.cc, 'o', LIST_CONNECT_TIMEOUT);
	one[0] = b.rec;
	one[1] = NULL;
	rc = list_show(&b, cli, one, 1, json, 1);
	if (!json && b.rec->provider != NULL)
		list_provider_print(&b);
out:
	cmd_box_free(&b);
	return rc;
}
