/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Mirror mode, the host's side: what changed in the sandbox workspace.
 * Through the daemon, its watcher on the host (daemon_watch.c) names the
 * changed paths and only those are listed (GNU find -files0-from); else
 * the whole workspace is listed with manifest_remote_script().  Both
 * listings are hostile input, parsed with caps.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "exec.h"
#include "host_sh.h"
#include "ignore.h"
#include "log.h"
#include "manifest.h"
#include "mirror.h"
#include "mirror_int.h"
#include "shquote.h"
#include "strv.h"
#include "syncstate.h"
#include "transport.h"
#include "xmalloc.h"

#define MIRROR_LIST_MAX		(512 * 1024 * 1024)	/* listing cap */
#define MIRROR_WATCH_MS		5000	/* the watcher answers by then */
#define MIRROR_TOKEN_LEN	32


/* List the host's workspace (hostile: parsed with caps). */
static int
mirror_list_remote(struct mirror *m, struct manifest **out, char **cause)
{
	char *const		 self[] = { (char *)(uintptr_t)"clawssh-agent",
				    (char *)(uintptr_t)"fs-list", NULL };
	struct buf		 o = BUF_INIT, err = BUF_INIT;
	int			 rc, status = 0;

	/* the agent's own listing where the steps join the environment */
	if ((rc = hostws_capture_self(m->t, &m->hw, self, NULL, 0,
	    MIRROR_LIST_MAX, &o, &err, &status, cause)) ==
	    CLAW_ERR_UNSUPPORTED) {
		free(*cause);
		*cause = NULL;
		rc = hostws_capture(m->t, &m->hw, manifest_remote_script(),
		    NULL, 0, MIRROR_LIST_MAX, &o, &err, &status, cause);
	} else if (rc == 0)
		log_debug("the workspace listed by the agent's fs-list");
	if (rc == 0 && status != 0) {
		*cause = xasprintf("%s: cannot list the sandbox workspace (it "
		    "may have vanished); mirror halted, nothing deleted: "
		    "%.200s", transport_label(m->t),
		    err.data != NULL ? err.data : "");
		rc = CLAW_ERR_PROTO;
	}
	if (rc == 0)
		rc = manifest_parse_find0(o.data != NULL ? o.data : "", o.len,
		    NULL, out, cause);
	buf_free(&o);
	buf_free(&err);
	return rc;
}

/*
 * Drop the entries the pull rule excludes (or that lie under excluded):
 * the protected paths and the user's exclusions; a .gitignore does not
 * keep what the command made from coming down.
 */
static void
mirror_filter(struct mirror *m, struct manifest *r)
{
	char	*cut = NULL;
	size_t	 i, k = 0;
	int	 drop;

	for (i = 0; i < r->n; i++) {
		drop = cut != NULL && mirror_under(r->e[i].path, cut);
		if (!drop && ignore_match_pull(m->ig, r->e[i].path,
		    r->e[i].type == MANIFEST_DIR)) {
			drop = 1;
			free(cut);
			cut = xstrdup(r->e[i].path);
		}
		if (!drop) {
			r->e[k++] = r->e[i];
			continue;
		}
		free(r->e[i].link);
		free(r->e[i].path);
	}
	r->n = k;
	free(cut);
}

/* A listing of the whole workspace, filtered; see mirror_int.h. */
int
mirror_remote_full(struct mirror *m, struct manifest **out, char **cause)
{
	int	rc;

	m->remote_how = "listing";
	if ((rc = mirror_list_remote(m, out, cause)) == 0)
		mirror_filter(m, *out);
	return rc;
}

/*
 * Ask the daemon's watcher on the host for the paths changed in the
 * sandbox workspace: 0 with them NUL-separated in rep from *at, or 1 when
 * only a whole listing can tell (why logged with -v).
 */
static int
mirror_remote_take(struct mirror *m, struct buf *rep, size_t *at)
{
	struct buf	 req = BUF_INIT;
	unsigned char	 raw[MIRROR_TOKEN_LEN / 2];
	size_t		 i;
	int		 rc;

	arc4random_buf(raw, sizeof(raw));
	buf_append(&req, m->hw.dir, strlen(m->hw.dir) + 1);
	for (i = 0; i < sizeof(raw); i++)
		buf_appendf(&req, "%02x", raw[i]);
	buf_append(&req, "", 1);
	if (m->hw.jail != NULL)
		buf_append_str(&req, m->hw.jail);
	buf_append(&req, "", 1);
	if (m->hw.agent != NULL)	/* the agent's own watcher may run */
		buf_append(&req, m->hw.agent, strlen(m->hw.agent) + 1);
	rc = mirror_take(m, &req, MIRROR_TAKE_WATCH, MIRROR_WATCH_MS,
	    "host watcher", "listing the sandbox workspace", rep, at);
	buf_free(&req);
	return rc;
}

/*
 * List the changed paths v[0..n) (sorted) on the host, each with all
 * below it; a path below another listed one comes with that one.
 */
static int
mirror_list_part(struct mirror *m, char *const *v, size_t n,
    struct manifest **out, char **cause)
{
	char *const	 self[] = { (char *)(uintptr_t)"clawssh-agent",
			    (char *)(uintptr_t)"fs-list", (char *)(uintptr_t)"-",
			    NULL };
	struct buf	 in = BUF_INIT, o = BUF_INIT, err = BUF_INIT;
	size_t		 i;
	int		 rc, status = 0;

	for (i = 0; i < n; i++) {
		if (!strv_has_ancestor(v, n, v[i], 0) &&
		    mirror_syncable(v[i]))
			buf_appendf(&in, "%s\n", v[i]);
	}
	if ((rc = hostws_capture_self(m->t, &m->hw, self, in.data, in.len,
	    MIRROR_LIST_MAX, &o, &err, &status, cause)) ==
	    CLAW_ERR_UNSUPPORTED) {
		free(*cause);
		*cause = NULL;
		rc = hostws_capture(m->t, &m->hw, HOST_SH_LIST_PART, in.data,
		    in.len, MIRROR_LIST_MAX, &o, &err, &status, cause);
	}
	if (rc == 0 && status != 0) {
		*cause = xasprintf("listing the changed paths failed: %.200s",
		    err.data != NULL ? err.data : "");
		rc = CLAW_ERR_PROTO;
	}
	if (rc == 0)
		rc = manifest_parse_find0_part(o.data != NULL ? o.data : "",
		    o.len, NULL, out, cause);
	buf_free(&in);
	buf_free(&o);
	buf_free(&err);
	return rc;
}

/*
 * base with every changed path (and what lay below it) replaced by what
 * the partial listing found there; see mirror_int.h.
 */
struct manifest *
mirror_remote_apply(const struct manifest *base, const struct mirror_rch *ch)
{
	struct manifest	*out;
	const char	*why;
	size_t		 bad;

	out = syncstate_splice(base, ch->v, ch->n, ch->part);
	if (manifest_check_tree(out, &bad, &why) != 0) {
		log_info("host watcher: %s: %s: listing the sandbox "
		    "workspace", out->e[bad].path, why);
		manifest_free(out);
		return NULL;
	}
	return out;
}

/* What the watcher saw change; see mirror_int.h. */
int
mirror_remote_changes(struct mirror *m, struct mirror_rch *ch)
{
	char	*why = NULL;
	size_t	 at = 0, list;
	int	 rc;

	memset(ch, 0, sizeof(*ch));
	if (mirror_remote_take(m, &ch->rep, &at) != 0) {
		buf_free(&ch->rep);
		return 1;
	}
	ch->v = mirror_take_paths(&ch->rep, at, &ch->n, &list);
	if (ch->rep.data[0] == 'L')	/* the watcher listed them */
		rc = list > ch->rep.len ? CLAW_ERR_PARSE :
		    manifest_parse_find0_part(ch->rep.data + list,
		    ch->rep.len - list, NULL, &ch->part, &why);
	else if (ch->n == 0) {
		ch->part = manifest_new();
		rc = 0;
	} else
		rc = mirror_list_part(m, ch->v, ch->n, &ch->part, &why);
	if (rc != 0) {
		log_info("host watcher: %s: listing the sandbox workspace",
		    why != NULL ? why : "listing cut short");
		free(why);
		mirror_rch_free(ch);
		return 1;
	}
	mirror_filter(m, ch->part);
	return 0;
}

/* Release what mirror_remote_changes found. */
void
mirror_rch_free(struct mirror_rch *ch)
{
	free(ch->v);
	manifest_free(ch->part);
	buf_free(&ch->rep);
	memset(ch, 0, sizeof(*ch));
}

/* The sandbox workspace now; see mirror_int.h. */
int
mirror_remote_now(struct mirror *m, const struct manifest *base,
    struct manifest **out, char **cause)
{
	struct mirror_rch	 ch;
	struct manifest		*now = NULL;

	if (base != NULL && mirror_remote_changes(m, &ch) == 0) {
		if ((now = mirror_remote_apply(base, &ch)) != NULL)
			log_info("host watcher: %zu changed paths, no listing "
			    "of the whole workspace", ch.n);
		mirror_rch_free(&ch);
	}
	if (now == NULL)
		return mirror_remote_full(m, out, cause);
	m->remote_how = "watcher";
	*out = now;
	return 0;
}
