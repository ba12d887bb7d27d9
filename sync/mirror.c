/*
 * Mirror mode: push local changes, run, pull remote changes.
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

#include "buf.h"
#include "error.h"
#include "exec.h"
#include "ignore.h"
#include "log.h"
#include "manifest.h"
#include "mirror.h"
#include "mirror_int.h"
#include "mux_client.h"
#include "mux_proto.h"
#include "pathguard.h"
#include "shquote.h"
#include "strv.h"
#include "transfer.h"
#include "transport.h"
#include "xmalloc.h"

#define MIRROR_JOURNAL_MS	60000		/* the daemon answers by then */
#define MIRROR_READY_MS		60000		/* its session is up by then */
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

/* Prepare; see mirror.h. */
int
mirror_open(struct mirror *m, struct transport *t, struct pathguard *pg,
    const char *remote_ws, const char *statedir, const char *id,
    const char *const *extra, size_t nextra, char **cause)
{
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
	m->remote_ws = xstrdup(remote_ws);
	m->name = xasprintf("%s.manifest", id);
	m->id = xstrdup(id);
	mirror_excludes(m, extra, nextra);
	return ignore_new(extra, nextra, &m->ig, cause);
}

/* Scan the local workspace (ignore rules, hashes reused from prev). */
static int
mirror_scan(struct mirror *m, const struct manifest *prev,
    struct manifest **out, char **cause)
{
	return transfer_scan(m->pg, m->ig, prev, MANIFEST_HASH_CHANGED, out,
	    cause);
}

/* Take from the daemon; see mirror_int.h. */
int
mirror_take(struct mirror *m, const struct buf *req, int type, int want,
    int timeout_ms, const char *what, const char *fallback, struct buf *rep,
    size_t *at)
{
	struct mux	*mx = transport_mux(m->t);
	char		*why = NULL;
	int		 ok;

	if (mx == NULL) {
		log_info("%s: no daemon running: %s", what, fallback);
		return 1;
	}
	if (!mux_has(mx, type == MUX_JTAKE ? "journal" : "watch",
	    MIRROR_READY_MS)) {
		log_info("%s: the running daemon does not offer it (older "
		    "than this clawssh? restart it): %s", what, fallback);
		return 1;
	}
	if (mux_request(mx, type, req->data, req->len, want, rep,
	    timeout_ms, &why) != 0) {
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
static int
mirror_journal_take(struct mirror *m, struct buf *rep, size_t *at)
{
	struct buf	req = BUF_INIT;
	int		rc;

	buf_append(&req, pathguard_root(m->pg),
	    strlen(pathguard_root(m->pg)) + 1);
	buf_append(&req, m->id, strlen(m->id) + 1);
	if (m->excl_len != 0)
		buf_append(&req, m->excl, m->excl_len);
	rc = mirror_take(m, &req, MUX_JTAKE, MUX_JPATHS, MIRROR_JOURNAL_MS,
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

/*
 * The local tree now, from prev: only the paths the daemon's journal
 * names are looked at, or the whole workspace when it cannot say.
 */
static int
mirror_local(struct mirror *m, const struct manifest *prev,
    struct manifest **out, char **cause)
{
	struct buf	  rep = BUF_INIT;
	char		**paths;
	char		 *why = NULL;
	size_t		  at = 0, n, list;
	int		  rc;

	m->local_how = "scan";
	if (mirror_journal_take(m, &rep, &at) != 0) {
		buf_free(&rep);
		return mirror_scan(m, prev, out, cause);
	}
	paths = mirror_take_paths(&rep, at, &n, &list);
	rc = transfer_rescan(m->pg, m->ig, prev, paths, n,
	    MANIFEST_HASH_CHANGED, out, &why);
	free(paths);
	buf_free(&rep);
	if (rc == 0) {
		log_info("change journal: %zu changed paths, no scan", n);
		m->local_how = "journal";
		return 0;
	}
	log_info("change journal: %s: scanning the workspace", why);
	free(why);
	return mirror_scan(m, prev, out, cause);
}

/* Tell the daemon's journal that what was taken is synced. */
static void
mirror_journal_ack(struct mirror *m)
{
	struct mux	*mx = transport_mux(m->t);

	if (m->journal && mx != NULL)
		mux_send(mx, MUX_JACK, NULL, 0);
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
	char		*q, *script;
	int		 rc, status = 0;

	if (del->len == 0)
		return 0;
	q = shquote(m->remote_ws);
	script = xasprintf("cd -- %s && while IFS= read -r p; do "
	    "rm -rf -- \"./$p\" || exit 1; done", q);
	rc = exec_script(m->t, script, del->data, del->len, 4096, &out, &err,
	    &status, cause);
	if (rc == 0 && status != 0) {
		*cause = xasprintf("%s: deleting on the host failed: %.200s",
		    transport_label(m->t), err.data != NULL ? err.data : "");
		rc = CLAW_ERR_PROTO;
	}
	free(script);
	free(q);
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
	struct buf	 tar = BUF_INIT, pre = BUF_INIT;
	char		*why = NULL, *q;
	const char	*p, *nl;

	if (del->len > MIRROR_INLINE_DEL_MAX)
		return CLAW_ERR_RANGE;
	if (nsend != 0 && transfer_pack_list(m->pg, send, nsend,
	    MIRROR_INLINE_MAX, &tar, &m->up, &why) != 0) {
		log_debug("sync up: %s", why);
		free(why);
		buf_free(&tar);
		return CLAW_ERR_RANGE;
	}
	q = shquote(m->remote_ws);
	buf_appendf(&pre, "__claw_w=%s; { mkdir -p -- \"$__claw_w\"", q);
	free(q);
	for (p = del->data; del->len != 0 && p < del->data + del->len;
	    p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(del->data + del->len - p));
		q = xstrndup(p, (size_t)(nl - p));
		buf_append_str(&pre, " && rm -rf -- \"$__claw_w\"/");
		shquote_append(&pre, q);
		free(q);
	}
	if (tar.len != 0)
		buf_appendf(&pre, " && head -c %zu | tar -xpf - -C "
		    "\"$__claw_w\"", tar.len);
	buf_append_str(&pre, "; } || { echo 'clawssh: sync up failed on "
	    "the host' >&2; exit 255; }; printf '\\001clawssh-synced\\n'");
	m->inl_len = tar.len;
	m->inl_tar = buf_detach(&tar);
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

	rc = manifest_load(m->statefd, m->name, NULL, &old, cause);
	if (rc == CLAW_ERR_NOTFOUND) {
		free(*cause);
		*cause = NULL;
		log_info("no sync state yet: sending the whole workspace");
	} else if (rc != 0)
		return rc;
	if ((rc = mirror_local(m, old, &now, cause)) != 0 ||
	    (rc = manifest_diff(old, now, &ch, &n)) != 0)
		goto out;
	mirror_plan_push(ch, n, &send, &nsend, &del, &ndel);
	log_info("sync up: %zu to send, %zu to delete", nsend, ndel);
	if (m->allow_inline && (nsend != 0 || ndel != 0) &&
	    mirror_inline_plan(m, send, nsend, &del) == 0)
		log_info("sync up: sent along with the command");
	else if ((rc = mirror_remote_delete(m, &del, cause)) != 0 ||
	    (nsend != 0 && (rc = transfer_push_list(m->t, m->pg,
	    m->remote_ws, send, nsend, &m->up, cause)) != 0))
		goto out;
	m->deleted_remote = ndel;
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

/* Return 1 if two entries describe the same thing. */
static int
mirror_same(const struct manifest_entry *a, const struct manifest_entry *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	if (a->type != b->type)
		return 0;
	if (a->type == MANIFEST_LINK)
		return strcmp(a->link, b->link) == 0;
	if (a->type == MANIFEST_DIR)
		return 1;
	if (a->have_hash && b->have_hash)
		return a->size == b->size &&
		    memcmp(a->hash, b->hash, sizeof a->hash) == 0;
	return a->size == b->size && a->mtime_sec == b->mtime_sec &&
	    a->mtime_nsec == b->mtime_nsec;
}

/* Stream the host's copy of path into fd (cat over a channel). */
static int
mirror_fetch(struct mirror *m, const char *path, int fd, char **why)
{
	struct exec_opts	 o;
	struct buf		 err = BUF_INIT;
	char			*script, *qws, *q;
	int			 rc, status = 0;

	qws = shquote(m->remote_ws);
	q = shquote(path);
	script = xasprintf("cd -- %s && exec cat -- ./%s", qws, q);
	memset(&o, 0, sizeof o);
	o.out.fd = fd;
	o.err.fd = -1;
	o.err.buf = &err;
	o.err.max = 4096;
	if ((rc = exec_sh(m->t, script, &o, &status, why)) == 0 &&
	    status != 0) {
		*why = xasprintf("cat failed on the host (status %d)", status);
		rc = CLAW_ERR_PROTO;
	}
	free(script);
	free(q);
	free(qws);
	buf_free(&err);
	return rc;
}

/* Note a path the pull changes here, so that only those are rescanned. */
static void
mirror_touch(struct mirror *m, const char *path)
{
	if (m->ntouched == m->ctouched) {
		m->ctouched = m->ctouched == 0 ? 16 : m->ctouched * 2;
		m->touched = xreallocarray(m->touched, m->ctouched,
		    sizeof(*m->touched));
	}
	m->touched[m->ntouched++] = xstrdup(path);
}

/* Sort the touched paths and drop duplicates. */
static void
mirror_touched_uniq(struct mirror *m)
{
	strv_uniq(m->touched, &m->ntouched, 1);
}

/* Save the host's version of a conflicting file beside the local one. */
static void
mirror_conflict(struct mirror *m, const struct manifest_entry *remote)
{
	char	*name, *tmp = NULL, *why = NULL;
	int	 fd, rc = 0;

	m->conflicts++;
	name = xasprintf("%s%s", remote->path, MIRROR_CONFLICT_SUFFIX);
	log_warn("conflict: %s changed both here and in the sandbox; kept "
	    "the local one%s%s", remote->path, remote->type ==
	    MANIFEST_FILE ? ", the sandbox's is in " : "",
	    remote->type == MANIFEST_FILE ? name : "");
	if (remote->type != MANIFEST_FILE ||
	    (rc = pathguard_write_begin(m->pg, name, &fd, &tmp, &why)) != 0)
		goto out;
	mirror_touch(m, name);
	if ((rc = mirror_fetch(m, remote->path, fd, &why)) == 0)
		rc = pathguard_write_commit(m->pg, name, tmp, fd,
		    remote->mode, NULL, &why);
	else
		pathguard_write_abort(m->pg, name, tmp, fd);
out:
	if (rc != 0 && why != NULL)
		log_warn("could not save %s: %s", name, why);
	free(why);
	free(tmp);
	free(name);
}

/* Return 1 if the local tree has anything under dir not as in base. */
static int
mirror_dirty_under(struct mirror *m, const struct manifest *local,
    const char *dir)
{
	size_t	i;

	for (i = 0; i < local->n; i++) {
		if (mirror_under(local->e[i].path, dir) &&
		    !mirror_same(&local->e[i], manifest_find(m->base,
		    local->e[i].path)))
			return 1;
	}
	return 0;
}

/* Apply the host's deletion of old locally, unless it changed here. */
static int
mirror_delete_local(struct mirror *m, const struct manifest *local,
    const struct manifest_entry *old, char **cause)
{
	if (old->type == MANIFEST_DIR && mirror_dirty_under(m, local,
	    old->path)) {
		m->conflicts++;
		log_warn("conflict: %s was removed in the sandbox but has "
		    "local changes; kept", old->path);
		return 0;
	}
	m->deleted_local++;
	mirror_touch(m, old->path);
	return pathguard_remove_tree(m->pg, old->path, cause);
}

/* Sort one remote change: fetch it, delete locally, or keep a conflict. */
static int
mirror_sort(struct mirror *m, const struct manifest *local,
    const struct manifest_change *c, char **get, size_t *nget,
    char **cause)
{
	const char			*path;
	const struct manifest_entry	*cur;

	path = c->old != NULL ? c->old->path : c->now->path;
	if (!mirror_syncable(path))
		return 0;
	cur = manifest_find(local, path);
	if (!mirror_same(cur, c->old) && mirror_same(cur, c->now))
		return 0;	/* already as the host has it (a resumed pull) */
	if (!mirror_same(cur, c->old)) {
		if (c->now != NULL)
			mirror_conflict(m, c->now);
		else {
			m->conflicts++;
			log_warn("conflict: %s was removed in the sandbox "
			    "but changed here; kept", path);
		}
		return 0;
	}
	if (c->kind == MANIFEST_CH_DELETED)
		return mirror_delete_local(m, local, c->old, cause);
	log_debug("fetch %s (%s)", c->now->path, c->kind ==
	    MANIFEST_CH_ADDED ? "added" : c->kind == MANIFEST_CH_MODE ?
	    "mode" : c->kind == MANIFEST_CH_LINK ? "link" : "modified");
	get[(*nget)++] = c->now->path;
	mirror_touch(m, c->now->path);
	return 0;
}

/* Apply the host's changes; see mirror.h. */
static int
mirror_apply(struct mirror *m, const struct manifest *remote,
    const struct manifest *local, char **cause)
{
	struct manifest_change	*ch = NULL;
	char			**get;
	size_t			  n = 0, nget = 0, i;
	int			  rc;

	if ((rc = manifest_diff(m->base, remote, &ch, &n)) != 0) {
		*cause = xstrdup("sync state is corrupt");
		return rc;
	}
	get = xcalloc(n + 1, sizeof *get);
	for (i = 0; rc == 0 && i < n; i++)
		rc = mirror_sort(m, local, &ch[i], get, &nget, cause);
	log_info("sync down: %zu to fetch, %zu deleted here, %zu conflicts",
	    nget, m->deleted_local, m->conflicts);
	if (rc == 0 && nget != 0)
		rc = transfer_pull_list(m->t, m->pg, m->remote_ws, get, nget,
		    NULL, &m->down, cause);
	free(get);
	free(ch);
	return rc;
}

/* Append a deep copy of e to m. */
static void
mirror_keep(struct manifest *m, const struct manifest_entry *e)
{
	struct manifest_entry	*n = manifest_add(m);

	*n = *e;
	n->path = xstrdup(e->path);
	n->link = e->link != NULL ? xstrdup(e->link) : NULL;
}

/*
 * The manifest to save after a pull.  The local tree now (after) is right
 * for every path both sides agree on; for a path changed here during the
 * command (base -> local: conflicts included, the local copy wins) the old
 * entry is kept, or none for a new file, so that the next push sends the
 * change.  Those paths come from a diff of base and local (a merge walk),
 * so the common case costs one pass.
 */
static struct manifest *
mirror_next_base(const struct manifest *base, const struct manifest *local,
    const struct manifest *after)
{
	struct manifest			*out = manifest_new();
	struct manifest_change		*ch = NULL;
	const struct manifest_entry	*b;
	char				**u = NULL;
	size_t				 n = 0, i;

	if (manifest_diff(base, local, &ch, &n) != 0)
		n = 0;		/* both are sorted: cannot happen */
	u = xcalloc(n + 1, sizeof(*u));
	for (i = 0; i < n; i++)
		u[i] = ch[i].now != NULL ? ch[i].now->path : ch[i].old->path;
	strv_uniq(u, &n, 0);	/* a type change is listed twice */
	for (i = 0; i < after->n; i++) {
		if (!strv_has(u, n, after->e[i].path))
			mirror_keep(out, &after->e[i]);
		else if ((b = manifest_find(base, after->e[i].path)) != NULL)
			mirror_keep(out, b);
	}
	for (i = 0; i < n; i++) {
		if (manifest_find(after, u[i]) == NULL &&
		    (b = manifest_find(base, u[i])) != NULL)
			mirror_keep(out, b);
	}
	manifest_sort(out);
	free(u);
	free(ch);
	return out;
}

/*
 * The local tree after the pull applied the host's changes to local: only
 * the paths it touched are looked at again (a scan if that fails).
 */
static int
mirror_after(struct mirror *m, const struct manifest *local,
    struct manifest **out, char **cause)
{
	char	*why = NULL;

	mirror_touched_uniq(m);
	if (transfer_rescan(m->pg, m->ig, local, m->touched, m->ntouched,
	    MANIFEST_HASH_CHANGED, out, &why) == 0)
		return 0;
	log_info("%s: scanning the workspace", why);
	free(why);
	return mirror_scan(m, local, out, cause);
}

/* Bring the host's changes down; see mirror.h. */
int
mirror_pull(struct mirror *m, char **cause)
{
	struct manifest	*remote = NULL, *local = NULL, *after = NULL;
	struct manifest	*next;
	int		 rc;

	if (m->push_failed) {
		*cause = xstrdup("the local changes did not reach the host: "
		    "nothing pulled (the next exec sends them again)");
		return CLAW_ERR_PROTO;
	}
	if ((rc = mirror_remote_now(m, &remote, cause)) != 0)
		return rc;
	if (remote->n == 0 && m->base != NULL && m->base->n > 0) {
		*cause = xasprintf("%s: the sandbox workspace is empty; "
		    "mirror halted instead of deleting the local workspace",
		    transport_label(m->t));
		rc = CLAW_ERR_PERM;
	} else if ((rc = mirror_local(m, m->base, &local, cause)) == 0 &&
	    (rc = mirror_apply(m, remote, local, cause)) == 0 &&
	    (rc = mirror_after(m, local, &after, cause)) == 0) {
		next = mirror_next_base(m->base, local, after);
		if ((rc = manifest_save(m->statefd, m->name, next,
		    cause)) == 0) {
			m->base_unsaved = 0;
			mirror_journal_ack(m);
		}
		manifest_free(next);
	}
	manifest_free(remote);
	manifest_free(local);
	manifest_free(after);
	return rc;
}

/* Describe changes as "KIND PATH" lines (paths escaped). */
static void
mirror_describe(const struct manifest_change *ch, size_t n, struct buf *b)
{
	static const char	*kinds = "?AMPLD";
	const char		*path;
	char			*esc;
	size_t			 i;
	int			 k;

	for (i = 0; i < n; i++) {
		path = ch[i].now != NULL ? ch[i].now->path : ch[i].old->path;
		k = ch[i].kind == MANIFEST_CH_ADDED ? 1 : ch[i].kind ==
		    MANIFEST_CH_MODIFIED ? 2 : ch[i].kind == MANIFEST_CH_MODE ?
		    3 : ch[i].kind == MANIFEST_CH_LINK ? 4 : 5;
		esc = pathguard_escape(path);
		buf_appendf(b, "%c %s\n", kinds[k], esc);
		free(esc);
	}
}

/* What would move each way; see mirror.h. */
int
mirror_status(struct mirror *m, struct buf *up, struct buf *down,
    char **cause)
{
	struct manifest		*base = NULL, *local = NULL, *remote = NULL;
	struct manifest_change	*ch = NULL;
	size_t			 n = 0;
	int			 rc;

	rc = manifest_load(m->statefd, m->name, NULL, &base, cause);
	if (rc == CLAW_ERR_NOTFOUND) {
		free(*cause);
		*cause = NULL;
	} else if (rc != 0)
		return rc;
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

/* Release everything. */
void
mirror_close(struct mirror *m)
{
	char	*cause = NULL;

	if (m->base_unsaved && manifest_save(m->statefd, m->name, m->base,
	    &cause) != 0) {
		log_warn("sync state not saved: %s", cause);
		free(cause);
	}
	if (m->statefd != -1)
		close(m->statefd);
	manifest_free(m->base);
	ignore_free(m->ig);
	free(m->remote_ws);
	free(m->name);
	free(m->id);
	free(m->excl);
	free(m->inl_tar);
	free(m->inl_pre);
	while (m->ntouched > 0)
		free(m->touched[--m->ntouched]);
	free(m->touched);
	memset(m, 0, sizeof *m);
	m->statefd = -1;
}
