/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh sync push|pull ID [PATH...]: move workspace files between the
 * local workspace and a sandbox explicitly (remote mode, or any time).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "clawconfig.h"
#include "clock.h"
#include "error.h"
#include "cmd.h"
#include "cmd_box.h"
#include "cmd_conn.h"
#include "cmd_env.h"
#include "cmd_ops.h"
#include "contain_bwrap.h"
#include "hostws.h"
#include "ignore.h"
#include "log.h"
#include "manifest.h"
#include "mirror.h"
#include "pathguard.h"
#include "registry.h"
#include "signals.h"
#include "tarstream.h"
#include "transfer.h"
#include "xmalloc.h"

static const char sync_usage[] =
    "usage: clawssh sync push|pull [--json] [options] ID [PATH...]\n"
    "       clawssh sync status [--json] [options] ID";
static const char sync_about[] =
    "\n\nMove workspace files up (push) or down (pull), all or the PATHs;\n"
    "status: what the next mirror sync would move (-v: and the rules).\n";

/* Print what moved, as a line or as JSON. */
static void
sync_report(const char *dir, const struct tarstream_stats *st,
    int64_t ms, int json)
{
	if (json)
		printf("{\"direction\": \"%s\", \"files\": %llu, \"dirs\": "
		    "%llu, \"links\": %llu, \"bytes\": %llu, \"refused\": "
		    "%llu, \"ms\": %lld}\n", dir,
		    (unsigned long long)st->files,
		    (unsigned long long)st->dirs,
		    (unsigned long long)st->links,
		    (unsigned long long)st->bytes,
		    (unsigned long long)st->refused, (long long)ms);
	else
		fprintf(stderr, "clawssh: %s %llu files, %llu bytes in %lld "
		    "ms%s\n", dir, (unsigned long long)st->files,
		    (unsigned long long)st->bytes, (long long)ms,
		    st->refused != 0 ? " (some entries refused)" : "");
}

/*
 * After a transfer to or from a mirror sandbox, bring its sync state in
 * step (else the next exec would undo a push's files or a pull's); a
 * failure is a warning: the next exec then moves the changes again.
 */
static void
sync_record(struct cmd_box *b, struct pathguard *pg, char **paths, size_t n,
    struct manifest *pulled)
{
	struct mirror	 m;
	char		*cause = NULL;
	int		 rc;

	if (b->rec->settings.mode != SANDBOX_MODE_MIRROR ||
	    b->rec->settings.access == SANDBOX_ACCESS_NONE) {
		manifest_free(pulled);
		return;
	}
	if ((rc = cmd_box_mirror(b, pg, &m, &cause)) == 0) {
		mirror_pulled(&m, pulled);	/* the scan's hashes */
		pulled = NULL;
		rc = mirror_record(&m, paths, n, &cause);
	}
	manifest_free(pulled);
	if (rc != 0) {
		log_warn("sync state not updated: %s", cause);
		free(cause);
	}
	mirror_close(&m);
}

/* Do the transfer for the loaded, connected sandbox. */
static int
sync_move(struct cmd_box *b, int push, char **paths, size_t n, int json)
{
	struct tarstream_stats	 st;
	struct pathguard	*pg = NULL;
	struct manifest		*pulled = NULL;
	struct hostws		 hw;
	char			*cause = NULL;
	int64_t			 start = clock_now_ms();
	int			 rc, sig;

	memset(&st, 0, sizeof st);
	if (pathguard_open(b->rec->workspace, &pg, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	cmd_box_hostws(b, "workspace", &hw);
	if (push)
		rc = transfer_push(b->t, pg, &hw, paths, n,
		    b->cc.cfg->sync_push_git ? TRANSFER_PUSH_GIT : 0,
		    b->cc.cfg->sync_exclude, b->cc.cfg->nsync_exclude, &st,
		    &cause);
	else
		rc = transfer_pull(b->t, pg, &hw, paths, n, NULL, &st,
		    &pulled, &cause);
	if (rc != 0) {
		sig = rc == CLAW_ERR_INTERRUPTED ? signals_caught(0) : 0;
		rc = cmd_fail("%s", cause);
		if (sig != 0)	/* as a shell reports it */
			rc = 128 + sig;
		free(cause);
	} else {
		sync_report(push ? "pushed" : "pulled", &st,
		    clock_now_ms() - start, json);
		sync_record(b, pg, paths, n, pulled);	/* takes pulled */
		pulled = NULL;
		rc = st.refused != 0 ? 1 : 0;
	}
	manifest_free(pulled);
	hostws_clear(&hw);
	pathguard_close(pg);
	return rc;
}

/* Print the changes of arr as "K PATH" lines (paths escaped). */
static void
sync_status_lines(const char *title, const cJSON *arr)
{
	const cJSON	*o;
	const char	*kind;
	char		*esc;

	printf("%s:\n", title);
	cJSON_ArrayForEach(o, arr) {
		kind = cJSON_GetStringValue(cJSON_GetObjectItem(o, "change"));
		esc = pathguard_escape(cJSON_GetStringValue(
		    cJSON_GetObjectItem(o, "path")));
		/* the letters of earlier releases: P for a mode change */
		printf("%c %s\n", strcmp(kind, "mode") == 0 ? 'P' :
		    toupper((unsigned char)kind[0]), esc);
		free(esc);
	}
}

/* Print the status as one JSON object: synced, up, down, rules. */
static void
sync_status_json(int synced, cJSON *up, cJSON *down, const struct buf *rules)
{
	cJSON	*o = cJSON_CreateObject(), *lines;
	char	*text, *line, *next;

	cJSON_AddBoolToObject(o, "synced", synced);
	cJSON_AddItemReferenceToObject(o, "up", up);
	cJSON_AddItemReferenceToObject(o, "down", down);
	lines = cJSON_AddArrayToObject(o, "rules");
	text = xstrdup(rules->data != NULL ? rules->data : "");
	for (line = text; *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		else
			next = line + strlen(line);
		cJSON_AddItemToArray(lines, cJSON_CreateString(line));
	}
	free(text);
	cmd_print_json(o);
	cJSON_Delete(o);
}

/*
 * Show what the next mirror sync would move each way; with -v (or in
 * JSON, always) also the rules that decide which paths move, and where
 * each came from.
 */
static int
sync_status(struct cmd_box *b, int json)
{
	struct pathguard	*pg = NULL;
	struct mirror		 m;
	struct buf		 rules = BUF_INIT;
	cJSON			*up = cJSON_CreateArray();
	cJSON			*down = cJSON_CreateArray();
	char			*cause = NULL;
	int			 rc, synced = 0;

	memset(&m, 0, sizeof m);
	m.statefd = -1;
	if ((rc = pathguard_open(b->rec->workspace, &pg, &cause)) == 0 &&
	    (rc = cmd_box_mirror(b, pg, &m, &cause)) == 0)
		rc = mirror_status(&m, up, down, &synced, &cause);
	if (rc != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
	} else {
		if (json || b->cc.verbose > 0 || b->cc.cfg->verbose > 0)
			ignore_describe(m.ig, &rules);
		if (json)
			sync_status_json(synced, up, down, &rules);
		else {
			sync_status_lines("up (local changes)", up);
			sync_status_lines("down (sandbox changes)", down);
			fputs(rules.data != NULL ? rules.data : "", stdout);
		}
	}
	mirror_close(&m);
	pathguard_close(pg);
	cJSON_Delete(up);
	cJSON_Delete(down);
	buf_free(&rules);
	return rc;
}

/*
 * Tidy user-given paths in place: drop a leading "./" and trailing '/'
 * (as shells complete directories); pathguard judges the rest.
 */
static void
sync_tidy_paths(char **paths, size_t n)
{
	size_t	i, len;

	for (i = 0; i < n; i++) {
		while (paths[i][0] == '.' && paths[i][1] == '/')
			paths[i] += 2;
		len = strlen(paths[i]);
		while (len > 1 && paths[i][len - 1] == '/')
			paths[i][--len] = '\0';
	}
}

/*
 * Let b's steps run in its running environment where they can (through
 * the daemon, cmd_box_hostws decides): route is where that is.
 */
static int
sync_join(struct cmd_box *b, struct contain_route *route)
{
	struct sandbox_settings	now;

	cmd_box_settings(b, &b->rec->settings, &now);
	return cmd_env_steps_join(b, &now, route);
}

/* The sync command; see clawssh(1). */
int
cmd_sync(int argc, char **argv)
{
	struct cmd_box		b;
	struct contain_route	route;
	struct cmd_ops		o;
	char			*help, **paths;
	size_t			npaths;
	int			rc, json, push, status;

	memset(&b, 0, sizeof b);
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0)) {
		printf("%s%s%s", sync_usage, sync_about, CMD_CONN_USAGE);
		return CMD_EXIT_HELP;
	}
	if (argc < 2 || (strcmp(argv[1], "push") != 0 &&
	    strcmp(argv[1], "pull") != 0 && strcmp(argv[1], "status") != 0))
		return cmd_fail("%s", sync_usage);
	push = strcmp(argv[1], "push") == 0;
	status = strcmp(argv[1], "status") == 0;
	argc--;
	argv++;
	help = xasprintf("%s%s", sync_usage, sync_about);
	rc = cmd_ops_parse(&o, push ? "sync.push" : status ? "sync.status" :
	    "sync.pull", &b.cc, help, argc, argv);
	free(help);
	json = rc == 0 && cmd_ops_flag(&o, "json");
	cmd_ops_free(&o);	/* keeps the operands: they are argv's */
	if (rc != 0 || o.noperands < 1 || (status && o.noperands != 1)) {
		cmd_box_free(&b);
		return rc == -1 ? CMD_EXIT_HELP : rc != 0 ? rc :
		    cmd_fail("%s", sync_usage);
	}
	paths = o.operands + 1;		/* after the ID */
	npaths = (size_t)o.noperands - 1;
	sync_tidy_paths(paths, npaths);
	memset(&route, 0, sizeof route);
	if ((rc = cmd_box_load(&b, o.operands[0])) == 0 &&
	    (rc = cmd_box_connect(&b)) == 0 &&
	    (rc = sync_join(&b, &route)) == 0)
		rc = status ? sync_status(&b, json) : sync_move(&b, push,
		    paths, npaths, json);
	cmd_box_free(&b);
	contain_route_free(&route);
	return rc;
}
