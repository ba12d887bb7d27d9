/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Mirror mode: push local changes before the command (the pull after it
 * is in mirror_pull.c), the state left unsaved, and sync status.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "error.h"
#include "exec.h"
#include "ignore.h"
#include "lines.h"
#include "log.h"
#include "manifest.h"
#include "mirror.h"
#include "mirror_int.h"
#include "pathguard.h"
#include "shquote.h"
#include "strv.h"
#include "syncstate.h"
#include "transfer.h"
#include "transport.h"
#include "xmalloc.h"

#define MIRROR_JOURNAL_MS	60000		/* the daemon answers by then */
#define MIRROR_INLINE_MAX	(1024 * 1024)	/* tar sent with the command */
#define MIRROR_INLINE_DEL_MAX	(32 * 1024)	/* deletions in its script */

/* Keep the exclude patterns, NUL-separated, for the daemon's journal. */
static void
mirror_excludes(struct mirror *m, const char *const *extra, size_t nextra)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 0; i < nextra; i++)
		buf_append(&b, extra[i], strlen(extra[i]) + 1);
	m->excl = xmalloc(b.len + 1);
	if (b.len != 0)
		memcpy(m->excl, b.data, b.len);
	m->excl_len = b.len;
	buf_free(&b);
}

/*
 * The keep callback of the mirror's ignore set: a path the last sync
 * left on both sides (in m->known) or that this pull wrote here stays
 * mirrored though a .gitignore matches it: build outputs that came down
 * go on being compared, not taken for deleted here.
 */
static int
mirror_known(void *arg, const char *path, int is_dir)
{
	const struct mirror	*m = arg;

	if (manifest_find(m->known, path) != NULL)
		return 1;
	return strv_has(m->touched, m->ntouched, path) || (is_dir &&
	    strv_has_descendant(m->touched, m->ntouched, path));
}

/* Prepare; see mirror.h. */
int
mirror_open(struct mirror *m, struct transport *t, struct pathguard *pg,
    const struct hostws *hw, const char *statedir, const char *id,
    const char *const *extra, size_t nextra, char **cause)
{
	int	rc;

	memset(m, 0, sizeof *m);
	m->t = t;
	m->pg = pg;
	m->statefd = -1;
	if (mkdir(statedir, 0700) == -1 && errno != EEXIST) {
		*cause = xasprintf("%s: %s", statedir, strerror(errno));
		return CLAW_ERR_IO;
	}
	m->statefd = open(statedir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (m->statefd == -1) {
		*cause = xasprintf("%s: %s", statedir, strerror(errno));
		return CLAW_ERR_IO;
	}
	hostws_copy(&m->hw, hw);
	m->name = xasprintf("%s.manifest", id);
	m->id = xstrdup(id);
	mirror_excludes(m, extra, nextra);
	if ((rc = ignore_new(extra, nextra, &m->ig, cause)) == 0)
		ignore_set_keep(m->ig, mirror_known, m);
	return rc;
}

/* Take what the pull wrote; see mirror.h. */
void
mirror_pulled(struct mirror *m, struct manifest *pulled)
{
	manifest_free(m->pulled);
	m->pulled = pulled;
}

/*
 * What a scan of m is given as prev: prev itself, or a view of it (the
 * same entries, not copied) whose known is what the pull wrote
 * (m->pulled), for the scan to take those files' hashes from.  A scan
 * takes a known hash only for a file it finds on disk with the same
 * size and time, and never makes an entry of it.
 */
static const struct manifest *
mirror_hinted(const struct mirror *m, const struct manifest *prev,
    struct manifest *view)
{
	if (m->pulled == NULL)
		return prev;
	memset(view, 0, sizeof *view);
	if (prev != NULL)
		*view = *prev;
	view->known = m->pulled;
	return view;
}

/* Scan the local workspace (ignore rules, hashes reused from prev). */
int
mirror_scan(struct mirror *m, const struct manifest *prev,
    struct manifest **out, char **cause)
{
	struct manifest	view;
	int		rc;

	m->known = prev;
	rc = transfer_scan(m->pg, m->ig, mirror_hinted(m, prev, &view),
	    MANIFEST_HASH_CHANGED, out, cause);
	m->known = NULL;
	return rc;
}

/* Update prev by the paths v[0..n); see mirror_int.h. */
int
mirror_rescan(struct mirror *m, const struct manifest *prev,
    char *const *v, size_t n, struct manifest **out, char **cause)
{
	struct manifest	view;
	int		rc;

	m->known = prev;
	rc = transfer_rescan(m->pg, m->ig, mirror_hinted(m, prev, &view), v,
	    n, MANIFEST_HASH_CHANGED, out, cause);
	m->known = NULL;
	return rc;
}

/* Take from the daemon; see mirror_int.h. */
int
mirror_take(struct mirror *m, const struct buf *req,
    enum mirror_take_kind kind, int timeout_ms, const char *what,
    const char *fallback, struct buf *rep, size_t *at)
{
	char	*why = NULL;
	int	 ok;

	if (m->hints.take == NULL) {
		log_info("%s: no daemon running: %s", what, fallback);
		return 1;
	}
	if (m->hints.take(m->hints.arg, kind, req, timeout_ms, rep,
	    &why) != 0) {
		log_info("%s: %s: %s", what, why, fallback);
		free(why);
		return 1;
	}
	m->journal = 1;		/* a JACK is owed */
	ok = rep->len >= 2 && rep->data[1] == '\0' && ((rep->data[0] == 'P' &&
	    rep->data[rep->len - 1] == '\0') || rep->data[0] == 'L');
	if (!ok) {
		log_info("%s: %.*s: %s", what, rep->len > 1 &&
		    rep->data[0] == 'F' ? (int)rep->len - 1 : 9, rep->len > 1 &&
		    rep->data[0] == 'F' ? rep->data + 1 : "no answer",
		    fallback);
		return 1;
	}
	*at = 2;
	return 0;
}

/*
 * Ask the daemon's change journal for the paths changed here since the
 * last take: 0 with the paths in *rep (NUL-separated from *at to the
 * end), or 1 when only a scan can tell (why logged with -v).
 */
int
mirror_journal_take(struct mirror *m, struct buf *rep, size_t *at)
{
	struct buf	req = BUF_INIT;
	int		rc;

	buf_append(&req, pathguard_root(m->pg),
	    strlen(pathguard_root(m->pg)) + 1);
	buf_append(&req, m->id, strlen(m->id) + 1);
	if (m->excl_len != 0)
		buf_append(&req, m->excl, m->excl_len);
	rc = mirror_take(m, &req, MIRROR_TAKE_JOURNAL, MIRROR_JOURNAL_MS,
	    "change journal", "scanning the workspace", rep, at);
	buf_free(&req);
	if (rc == 0 && rep->data[0] != 'P') {
		log_info("change journal: odd answer: scanning the workspace");
		return 1;
	}
	return rc;
}

/* The paths of a take's answer, sorted; see mirror_int.h. */
char **
mirror_take_paths(const struct buf *rep, size_t at, size_t *n, size_t *list)
{
	char	**v = NULL;
	size_t	  cap = 0;
	int	  with_list = rep->data[0] == 'L';

	*list = with_list ? rep->len + 1 : rep->len;	/* + 1: malformed */
	for (*n = 0; at < rep->len; at += strlen(rep->data + at) + 1) {
		if (memchr(rep->data + at, '\0', rep->len - at) == NULL)
			break;
		if (with_list && rep->data[at] == '\0') {
			*list = at + 1;
			break;
		}
		if (*n == cap) {
			cap = cap == 0 ? 16 : cap * 2;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[(*n)++] = rep->data + at;
	}
	if (*n > 1)
		qsort(v, *n, sizeof(*v), strv_cmp);
	return v;
}

/* Tell the daemon's journal that what was taken is synced. */
void
mirror_journal_ack(struct mirror *m)
{
	if (m->journal && m->hints.ack != NULL)
		m->hints.ack(m->hints.arg);
	m->journal = 0;
}

/* Return 1 if path lies under the directory dir; see mirror_int.h. */
int
mirror_under(const char *path, const char *dir)
{
	size_t	len = strlen(dir);

	return dir[0] != '\0' && strncmp(path, dir, len) == 0 &&
	    path[len] == '/';
}

/* Remove the paths in del (one a line) on the host. */
static int
mirror_remote_delete(struct mirror *m, const struct buf *del, char **cause)
{
	struct buf	 out = BUF_INIT, err = BUF_INIT;
	int		 rc, status = 0;

	if (del->len == 0)
		return 0;
	rc = hostws_capture(m->t, &m->hw, "while IFS= read -r p; do "
	    "rm -rf -- \"./$p\" || exit 1; done", del->data, del->len, 4096,
	    &out, &err, &status, cause);
	if (rc == 0 && status != 0) {
		*cause = xasprintf("%s: deleting on the host failed: %.200s",
		    transport_label(m->t), err.data != NULL ? err.data : "");
		rc = CLAW_ERR_PROTO;
	}
	buf_free(&out);
	buf_free(&err);
	return rc;
}

/*
 * Return 1 if path can travel: names pathguard refuses (control characters
 * such as a newline, over-long ones) stay local, with a warning, so that
 * they can never be misread by the host's shell or tar.
 */
int
mirror_syncable(const char *path)
{
	char	*why = NULL;

	if (pathguard_name_check(path, &why) == 0)
		return 1;
	log_warn("not syncing %s", why);
	free(why);
	return 0;
}

/* Split changes into paths to send and top-level paths to delete. */
static void
mirror_plan_push(const struct manifest_change *ch, size_t n, char ***send,
    size_t *nsend, struct buf *del, size_t *ndel)
{
	size_t		 i;

	*send = xcalloc(n + 1, sizeof **send);
	*nsend = *ndel = 0;
	for (i = 0; i < n; i++) {
		if (!mirror_syncable(ch[i].now != NULL ? ch[i].now->path :
		    ch[i].old->path))
			continue;
		if (ch[i].kind != MANIFEST_CH_DELETED) {
			(*send)[(*nsend)++] = ch[i].now->path;
			continue;
		}
		(*ndel)++;
		buf_appendf(del, "%s\n", ch[i].old->path);
	}
}

/*
 * Pack small changes to go with the command (see mirror_inline): the tar
 * stream on its stdin after the preamble, and a script for its "pre"
 * step that removes what was deleted, unpacks the stream, and says so
 * with REMOTE_CMD_SYNCED.  0 if packed; else they go on a channel of
 * their own.
 */
static int
mirror_inline_plan(struct mirror *m, char **send, size_t nsend,
    const struct buf *del)
{
	struct buf	 tar = BUF_INIT, pre = BUF_INIT, body = BUF_INIT;
	struct buf	 fix = BUF_INIT;
	struct lines	 lr;
	char		*why = NULL, *q, *step, *feed;
	const char	*p;
	size_t		 n;

	if (del->len > MIRROR_INLINE_DEL_MAX)
		return CLAW_ERR_RANGE;
	if (nsend != 0 && transfer_pack_list(m->pg, send, nsend,
	    MIRROR_INLINE_MAX, &tar, &m->up, &why) != 0) {
		log_debug("sync up: %s", why);
		free(why);
		buf_free(&tar);
		return CLAW_ERR_RANGE;
	}
	transfer_parents(send, nsend, &fix);
	buf_append_str(&body, TRANSFER_FIX_PARENTS ":");
	lines_init(&lr, del->data, del->len);
	while (lines_next(&lr, del->len, &p, &n) == 0) {
		q = xstrndup(p, n);
		buf_append_str(&body, " && rm -rf -- ./");
		shquote_append(&body, q);
		free(q);
	}
	buf_append_str(&body, " || exit 1\n");
	if (tar.len != 0) {	/* staged: a cut stream leaves nothing */
		feed = xasprintf("head -c %zu |", tar.len);
		transfer_stage_body(&body, feed);
		free(feed);
	}
	step = hostws_inline(&m->hw, body.data);
	buf_appendf(&pre, "{ %s\n} || { echo 'clawssh: sync up failed on "
	    "the host' >&2; exit 255; }; printf '\\001clawssh-synced\\n'",
	    step);
	free(step);
	buf_free(&body);
	if (tar.len != 0)	/* the parents, then the tar */
		buf_append(&fix, tar.data, tar.len);
	buf_free(&tar);
	m->inl_len = fix.len;
	m->inl_tar = buf_detach(&fix);
	m->inl_pre = buf_detach(&pre);
	return 0;
}

/* The changes to send along with the command; see mirror.h. */
const char *
mirror_inline(const struct mirror *m, const char **data, size_t *len)
{
	*data = m->inl_tar;
	*len = m->inl_len;
	return m->inl_pre;
}

/* Whether the changes sent along arrived; see mirror.h. */
void
mirror_inline_done(struct mirror *m, int synced)
{
	if (m->inl_pre == NULL || synced)
		return;
	m->base_unsaved = 0;	/* the host has not got them */
	m->push_failed = 1;
}

/*
 * Keep old's mtime on the files of now whose content did not change (the
 * same size and hash) though their mtime did, except on the paths in
 * skip[0..nskip) (sorted: fetched from the host, with its time).  Such a
 * touch does not travel, so the host still has old's time, and the state
 * must say what both sides agree on (else the next whole listing would
 * fetch the file back).
 */
void
mirror_keep_times(struct manifest *now, const struct manifest *old,
    char *const *skip, size_t nskip)
{
	const struct manifest_entry	*o;
	struct manifest_entry		*e;
	size_t				 i;

	for (i = 0; now != NULL && old != NULL && i < now->n; i++) {
		e = &now->e[i];
		if (e->type != MANIFEST_FILE || !e->have_hash ||
		    (o = manifest_find(old, e->path)) == NULL ||
		    o->type != MANIFEST_FILE || !o->have_hash ||
		    o->size != e->size ||
		    memcmp(o->hash, e->hash, sizeof(o->hash)) != 0 ||
		    (o->mtime_sec == e->mtime_sec &&
		    o->mtime_nsec == e->mtime_nsec) ||
		    strv_has(skip, nskip, e->path))
			continue;
		e->mtime_sec = o->mtime_sec;
		e->mtime_nsec = o->mtime_nsec;
	}
}

/* Keep copies of v[0..n) as the scope of m->base, a view. */
static void
mirror_set_scope(struct mirror *m, char *const *v, size_t n)
{
	size_t	i;

	m->scope = xcalloc(n + 1, sizeof(*m->scope));
	for (i = 0; i < n; i++)
		m->scope[i] = xstrdup(v[i]);
	m->nscope = n;
	m->partial = 1;
}

/*
 * The saved state and the local tree as views of the journal's paths
 * v[0..n) (sorted): 0, or with *why set CLAW_ERR_UNSUPPORTED when the
 * state cannot answer for them, else the error of syncstate_view or of the
 * rescan.
 */
static int
mirror_up_part(struct mirror *m, char *const *v, size_t n,
    struct manifest **old, struct manifest **now, char **why)
{
	const char	*no;
	int		 rc;

	if ((no = syncstate_no_view(m->st)) != NULL) {
		*why = xstrdup(no);
		return CLAW_ERR_UNSUPPORTED;
	}
	if ((rc = syncstate_view(m->st, v, n, old, why)) != 0)
		return rc;
	if ((rc = mirror_rescan(m, *old, v, n, now, why)) != 0) {
		manifest_free(*old);
		*old = NULL;
		return rc;
	}
	mirror_set_scope(m, v, n);
	m->local_how = "journal";
	log_info("change journal: %zu changed paths, no scan", n);
	return 0;
}

/*
 * The last synced state and the local tree now: views of the paths the
 * daemon's journal names when it can say and the saved state answers
 * for them (m->partial set), else the whole state and a scan.
 */
static int
mirror_up_trees(struct mirror *m, struct manifest **old,
    struct manifest **now, char **cause)
{
	struct buf	  rep = BUF_INIT;
	char		**paths, *why = NULL;
	size_t		  at = 0, n, list;
	int		  rc;

	m->local_how = "scan";
	if (mirror_journal_take(m, &rep, &at) == 0) {
		paths = mirror_take_paths(&rep, at, &n, &list);
		rc = mirror_up_part(m, paths, n, old, now, &why);
		free(paths);
		buf_free(&rep);
		if (rc == 0)
			return 0;
		log_info("change journal: %s: scanning the workspace", why);
		free(why);
	}
	buf_free(&rep);
	if (syncstate_missing(m->st))
		log_info("no sync state yet: sending the whole workspace");
	if ((rc = syncstate_all(m->st, old, cause)) != 0) {
		if (rc != CLAW_ERR_PARSE || syncstate_damaged(m->st) == NULL)
			return rc;
		free(*cause);		/* a damaged manifest: rebuilt */
		*cause = NULL;
		*old = NULL;
	}
	if ((rc = mirror_scan(m, *old, now, cause)) != 0 ||
	    syncstate_damaged(m->st) == NULL)
		return rc;
	manifest_free(*old);
	*old = NULL;
	return mirror_heal_old(m, now, old, cause);
}

/* Send local changes; see mirror.h. */
int
mirror_push(struct mirror *m, char **cause)
{
	struct manifest		*old = NULL, *now = NULL;
	struct manifest_change	*ch = NULL;
	struct buf		 del = BUF_INIT;
	char			**send = NULL;
	size_t			 n = 0, nsend, ndel;
	int			 rc;

	if ((rc = syncstate_open(m->statefd, m->name, &m->st, cause)) != 0)
		return rc;
	if ((rc = mirror_up_trees(m, &old, &now, cause)) != 0 ||
	    (rc = manifest_diff(old, now, &ch, &n)) != 0)
		goto out;
	mirror_plan_push(ch, n, &send, &nsend, &del, &ndel);
	log_info("sync up: %zu to send, %zu to delete", nsend, ndel);
	if (m->allow_inline && (nsend != 0 || ndel != 0) &&
	    mirror_inline_plan(m, send, nsend, &del) == 0)
		log_info("sync up: sent along with the command");
	else if ((rc = mirror_remote_delete(m, &del, cause)) != 0 ||
	    (nsend != 0 && (rc = transfer_push_list(m->t, m->pg,
	    &m->hw, send, nsend, &m->up, cause)) != 0))
		goto out;
	m->deleted_remote = ndel;
	mirror_keep_times(now, old, NULL, 0);
	m->base = now;
	m->base_unsaved = 1;	/* the pull saves its result instead */
	now = NULL;
out:
	buf_free(&del);
	free(send);
	free(ch);
	manifest_free(old);
	manifest_free(now);
	return rc;
}

/* Add each change to arr as {"change": KIND, "path": PATH}. */
static void
mirror_describe(const struct manifest_change *ch, size_t n, cJSON *arr)
{
	const char	*path, *kind;
	cJSON		*o;
	size_t		 i;

	for (i = 0; i < n; i++) {
		path = ch[i].now != NULL ? ch[i].now->path : ch[i].old->path;
		kind = ch[i].kind == MANIFEST_CH_ADDED ? "added" :
		    ch[i].kind == MANIFEST_CH_MODIFIED ? "modified" :
		    ch[i].kind == MANIFEST_CH_MODE ? "mode" :
		    ch[i].kind == MANIFEST_CH_LINK ? "link" : "deleted";
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "change", kind);
		cJSON_AddStringToObject(o, "path", path);
		cJSON_AddItemToArray(arr, o);
	}
}

/* What would move each way; see mirror.h. */
int
mirror_status(struct mirror *m, cJSON *up, cJSON *down, int *synced,
    char **cause)
{
	struct manifest		*base = NULL, *local = NULL, *remote = NULL;
	struct manifest_change	*ch = NULL;
	size_t			 n = 0;
	int			 rc;

	if ((rc = syncstate_open(m->statefd, m->name, &m->st, cause)) != 0 ||
	    (rc = syncstate_all(m->st, &base, cause)) != 0)
		return rc;
	*synced = base != NULL;
	if ((rc = mirror_scan(m, base, &local, cause)) == 0 &&
	    (rc = manifest_diff(base, local, &ch, &n)) == 0) {
		mirror_describe(ch, n, up);
		free(ch);
		ch = NULL;
	}
	if (rc == 0 && base != NULL &&
	    (rc = mirror_remote_full(m, &remote, cause)) == 0) {
		if ((rc = manifest_diff(base, remote, &ch, &n)) == 0)
			mirror_describe(ch, n, down);
	}
	free(ch);
	manifest_free(base);
	manifest_free(local);
	manifest_free(remote);
	return rc;
}

/* Stage the push's view in the state, once; see mirror_int.h. */
void
mirror_stage_base(struct mirror *m)
{
	if (!m->partial || m->staged)
		return;
	syncstate_stage(m->st, m->scope, m->nscope, m->base);
	m->staged = 1;
}

/* Save the push's result when no pull did (see mirror_close). */
static void
mirror_save_base(struct mirror *m)
{
	char	*cause = NULL;
	int	 rc;

	if (m->partial) {
		mirror_stage_base(m);
		rc = syncstate_commit(m->st, &cause);
	} else
		rc = syncstate_save_all(m->st, m->base, &cause);
	if (rc != 0) {
		log_warn("sync state not saved: %s", cause);
		free(cause);
	}
}

/* Release everything. */
void
mirror_close(struct mirror *m)
{
	if (m->base_unsaved && m->st != NULL)
		mirror_save_base(m);
	if (m->statefd != -1)
		close(m->statefd);
	syncstate_close(m->st);
	manifest_free(m->base);
	manifest_free(m->pulled);
	ignore_free(m->ig);
	hostws_clear(&m->hw);
	free(m->name);
	free(m->id);
	free(m->excl);
	free(m->inl_tar);
	free(m->inl_pre);
	while (m->ntouched > 0)
		free(m->touched[--m->ntouched]);
	free(m->touched);
	while (m->nscope > 0)
		free(m->scope[--m->nscope]);
	free(m->scope);
	memset(m, 0, sizeof *m);
	m->statefd = -1;
}
