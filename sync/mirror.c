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
#include "pathguard.h"
#include "shquote.h"
#include "transfer.h"
#include "transport.h"
#include "xmalloc.h"

#define MIRROR_LIST_MAX	(512 * 1024 * 1024)	/* remote listing cap */

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

/* Return 1 if a change's path lies under an earlier deleted directory. */
static int
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
static int
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
	log_info("no change journal running: scanning the workspace");
	if ((rc = mirror_scan(m, old, &now, cause)) != 0 ||
	    (rc = manifest_diff(old, now, &ch, &n)) != 0)
		goto out;
	mirror_plan_push(ch, n, &send, &nsend, &del, &ndel);
	log_info("sync up: %zu to send, %zu to delete", nsend, ndel);
	if ((rc = mirror_remote_delete(m, &del, cause)) != 0 ||
	    (nsend != 0 && (rc = transfer_push_list(m->t, m->pg,
	    m->remote_ws, send, nsend, &m->up, cause)) != 0))
		goto out;
	m->deleted_remote = ndel;
	m->base = now;
	now = NULL;
	rc = manifest_save(m->statefd, m->name, m->base, cause);
out:
	buf_free(&del);
	free(send);
	free(ch);
	manifest_free(old);
	manifest_free(now);
	return rc;
}

/* List the host's workspace (hostile: parsed with caps). */
static int
mirror_list_remote(struct mirror *m, struct manifest **out, char **cause)
{
	struct buf	 o = BUF_INIT, err = BUF_INIT;
	char		*qws, *qs, *script;
	int		 rc, status = 0;

	qws = shquote(m->remote_ws);
	qs = shquote(manifest_remote_script());
	script = xasprintf("cd -- %s && sh -c %s", qws, qs);
	rc = exec_script(m->t, script, NULL, 0, MIRROR_LIST_MAX, &o, &err,
	    &status, cause);
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
	free(script);
	free(qs);
	free(qws);
	buf_free(&o);
	buf_free(&err);
	return rc;
}

/* Drop the entries the ignore rules exclude (or lie under excluded). */
static void
mirror_filter(struct mirror *m, struct manifest *r)
{
	char	*cut = NULL;
	size_t	 i, k = 0;
	int	 drop;

	for (i = 0; i < r->n; i++) {
		drop = cut != NULL && mirror_under(r->e[i].path, cut);
		if (!drop && ignore_match(m->ig, r->e[i].path,
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
 * Whether path changed here while the command ran (base -> local): the
 * pull never overwrites such a change (if the host changed it too, that is
 * a conflict and the local copy is kept), and it was never pushed.
 */
static int
mirror_unpushed(const struct manifest *base, const struct manifest *local,
    const char *path)
{
	return !mirror_same(manifest_find(base, path),
	    manifest_find(local, path));
}

/*
 * The manifest to save after a pull.  The local tree now (after) is right
 * for every path both sides agree on; for a path changed here during the
 * command (conflicts included: the local copy wins) the old entry is kept,
 * or none for a new file, so that the next push sends the change.
 */
static struct manifest *
mirror_next_base(const struct manifest *base, const struct manifest *local,
    const struct manifest *after)
{
	struct manifest			*out = manifest_new();
	const struct manifest_entry	*b;
	size_t				 i;

	for (i = 0; i < after->n; i++) {
		if (!mirror_unpushed(base, local, after->e[i].path))
			mirror_keep(out, &after->e[i]);
		else if ((b = manifest_find(base, after->e[i].path)) != NULL)
			mirror_keep(out, b);
	}
	for (i = 0; base != NULL && i < base->n; i++) {
		if (manifest_find(after, base->e[i].path) == NULL &&
		    mirror_unpushed(base, local, base->e[i].path))
			mirror_keep(out, &base->e[i]);
	}
	manifest_sort(out);
	return out;
}

/* Bring the host's changes down; see mirror.h. */
int
mirror_pull(struct mirror *m, char **cause)
{
	struct manifest	*remote = NULL, *local = NULL, *after = NULL;
	struct manifest	*next;
	int		 rc;

	if ((rc = mirror_list_remote(m, &remote, cause)) != 0)
		return rc;
	mirror_filter(m, remote);
	if (remote->n == 0 && m->base != NULL && m->base->n > 0) {
		*cause = xasprintf("%s: the sandbox workspace is empty; "
		    "mirror halted instead of deleting the local workspace",
		    transport_label(m->t));
		rc = CLAW_ERR_PERM;
	} else if ((rc = mirror_scan(m, m->base, &local, cause)) == 0 &&
	    (rc = mirror_apply(m, remote, local, cause)) == 0 &&
	    (rc = mirror_scan(m, local, &after, cause)) == 0) {
		next = mirror_next_base(m->base, local, after);
		rc = manifest_save(m->statefd, m->name, next, cause);
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
	    (rc = mirror_list_remote(m, &remote, cause)) == 0) {
		mirror_filter(m, remote);
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
	if (m->statefd != -1)
		close(m->statefd);
	manifest_free(m->base);
	ignore_free(m->ig);
	free(m->remote_ws);
	free(m->name);
	memset(m, 0, sizeof *m);
	m->statefd = -1;
}
