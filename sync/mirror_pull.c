/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Mirror mode, the pull: what the command changed in the sandbox comes
 * down, conflicts are kept beside the local files, and the new synced
 * state is saved: appended to the log as a view of the changed paths
 * when the host watcher and the change journal can say, else whole.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "exec.h"
#include "ignore.h"
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

#define MIRROR_ASKED_WATCH	0x1	/* the host watcher, this pull */
#define MIRROR_ASKED_JOURNAL	0x2	/* the change journal, this pull */


/* The mass-deletion guard: more than 1/2 of the files, at least 5. */
#define MIRROR_MASS_NUM		1
#define MIRROR_MASS_DEN		2
#define MIRROR_MASS_MIN		5

/*
 * The local tree now, from prev (a whole state): only the paths the
 * daemon's journal names are looked at, or the whole workspace when it
 * cannot say or journal is unset (this pull took from it already).
 */
static int
mirror_local(struct mirror *m, const struct manifest *prev, int journal,
    struct manifest **out, char **cause)
{
	struct buf	  rep = BUF_INIT;
	char		**paths;
	char		 *why = NULL;
	size_t		  at = 0, n, list;
	int		  rc;

	m->local_how = "scan";
	if (!journal || mirror_journal_take(m, &rep, &at) != 0) {
		buf_free(&rep);
		return mirror_scan(m, prev, out, cause);
	}
	paths = mirror_take_paths(&rep, at, &n, &list);
	rc = mirror_rescan(m, prev, paths, n, out, &why);
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

/* Return 1 if two entries describe the same thing (mirror_int.h). */
int
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
	char			*body, *q;
	int			 rc, status = 0;

	q = shquote(path);
	body = xasprintf("exec cat -- ./%s", q);
	memset(&o, 0, sizeof o);
	o.out.fd = fd;
	o.err.fd = -1;
	o.err.buf = &err;
	o.err.max = 4096;
	if ((rc = hostws_run(m->t, &m->hw, body, &o, &status, why)) == 0 &&
	    status != 0) {
		*why = xasprintf("cat failed on the host (status %d)", status);
		rc = CLAW_ERR_PROTO;
	}
	free(body);
	free(q);
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

/* Save the host's copy of a conflicting file beside ours (mirror_int.h). */
void
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
mirror_dirty_under(const struct manifest *base, const struct manifest *local,
    const char *dir)
{
	size_t	i;

	for (i = 0; i < local->n; i++) {
		if (mirror_under(local->e[i].path, dir) &&
		    !mirror_same(&local->e[i], manifest_find(base,
		    local->e[i].path)))
			return 1;
	}
	return 0;
}

/* Apply the host's deletion of old locally, unless it changed here. */
static int
mirror_delete_local(struct mirror *m, const struct manifest *base,
    const struct manifest *local, const struct manifest_entry *old,
    char **cause)
{
	if (old->type == MANIFEST_DIR && mirror_dirty_under(base, local,
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

/*
 * Return 1 if path names an ignore file (.gitignore, .clawsshignore):
 * its rules decide what the next syncs send and take, so it comes from
 * the local side only.  A sandbox that could write one here could
 * un-ignore a local secret and have the next push send it.
 */
static int
mirror_rules_file(const char *path)
{
	const char	*base = strrchr(path, '/');

	base = base != NULL ? base + 1 : path;
	return strcmp(base, ".gitignore") == 0 ||
	    strcmp(base, ".clawsshignore") == 0;
}

/*
 * Sort one remote change: fetch it, delete locally, or keep a conflict.
 * gone is set when this pull deleted the path here already (the first
 * half of a type change), so that nothing is there now.
 */
static int
mirror_sort(struct mirror *m, const struct manifest *base,
    const struct manifest *local, const struct manifest_change *c,
    int gone, const struct manifest_entry **get, size_t *nget, char **cause)
{
	const char			*path;
	const struct manifest_entry	*cur;

	path = c->old != NULL ? c->old->path : c->now->path;
	if (!mirror_syncable(path))
		return 0;
	if (pathguard_name_protected(path)) {
		log_debug("not brought back: %s (a .git never is)", path);
		return 0;
	}
	if ((c->now == NULL || c->now->type != MANIFEST_DIR) &&
	    mirror_rules_file(path)) {
		log_warn("not brought back: %s (ignore files come from the "
		    "local side; the sandbox's copy stays there)", path);
		return 0;
	}
	cur = gone ? NULL : manifest_find(local, path);
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
		return mirror_delete_local(m, base, local, c->old, cause);
	log_debug("fetch %s (%s)", c->now->path, c->kind ==
	    MANIFEST_CH_ADDED ? "added" : c->kind == MANIFEST_CH_MODE ?
	    "mode" : c->kind == MANIFEST_CH_LINK ? "link" : "modified");
	get[(*nget)++] = c->now;
	mirror_touch(m, c->now->path);
	return 0;
}

/* Apply the host's changes (base to remote) to local. */
static int
mirror_apply(struct mirror *m, const struct manifest *base,
    const struct manifest *remote, const struct manifest *local,
    char **cause)
{
	struct manifest_change		 *ch = NULL;
	const struct manifest_entry	**get;
	struct manifest			 *pulled;
	char				**gone;
	size_t				  n = 0, nget = 0, ngone = 0, i, was;
	int				  rc, sorted = 0, g;

	if ((rc = manifest_diff(base, remote, &ch, &n)) != 0) {
		*cause = xstrdup("sync state is corrupt");
		return rc;
	}
	get = xcalloc(n + 1, sizeof *get);
	gone = xcalloc(n + 1, sizeof *gone);
	for (i = 0; rc == 0 && i < n; i++) {
		/* the deletions come first: then what they removed */
		if (ch[i].kind != MANIFEST_CH_DELETED && !sorted++)
			qsort(gone, ngone, sizeof(*gone), strv_cmp);
		g = sorted && strv_has_ancestor(gone, ngone,
		    ch[i].now->path, 1);
		was = m->deleted_local;
		rc = mirror_sort(m, base, local, &ch[i], g, get, &nget,
		    cause);
		if (m->deleted_local != was)
			gone[ngone++] = ch[i].old->path;
	}
	log_info("sync down: %zu to fetch, %zu deleted here, %zu conflicts",
	    nget, m->deleted_local, m->conflicts);
	if (rc == 0 && nget != 0) {
		rc = transfer_pull_list(m->t, m->pg, &m->hw, get, nget,
		    NULL, &m->down, &pulled, cause);
		mirror_pulled(m, pulled);
	}
	if (rc == 0 && m->down.changed + m->down.missing != 0)
		log_warn("sync down: %llu changed or gone in the sandbox "
		    "during the pull: left as they are here for the next sync",
		    (unsigned long long)(m->down.changed + m->down.missing));
	free(gone);
	free(get);
	free(ch);
	return rc;
}

/*
 * The manifest to save after a pull.  The local tree now (after) is right
 * for every path both sides agree on; for a path changed here during the
 * command (base -> local: conflicts included, the local copy wins) the old
 * entry is kept, or none for a new file, so that the next push sends the
 * change.  Those paths come from a diff of base and local (a merge walk),
 * so the common case costs one pass.  Touches that did not travel keep
 * base's time (mirror_keep_times; m->touched were fetched).
 */
static struct manifest *
mirror_next_base(const struct mirror *m, const struct manifest *base,
    const struct manifest *local, const struct manifest *after)
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
			manifest_add_copy(out, &after->e[i]);
		else if ((b = manifest_find(base, after->e[i].path)) != NULL)
			manifest_add_copy(out, b);
	}
	for (i = 0; i < n; i++) {
		if (manifest_find(after, u[i]) == NULL &&
		    (b = manifest_find(base, u[i])) != NULL)
			manifest_add_copy(out, b);
	}
	manifest_sort(out);
	mirror_keep_times(out, base, m->touched, m->ntouched);
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
	if (mirror_rescan(m, local, m->touched, m->ntouched, out,
	    &why) == 0)
		return 0;
	log_info("%s: scanning the workspace", why);
	free(why);
	return mirror_scan(m, local, out, cause);
}

/* Save next as the whole state and tell the daemon it is synced. */
static int
mirror_save_whole(struct mirror *m, const struct manifest *next,
    char **cause)
{
	int	rc;

	if ((rc = syncstate_save_all(m->st, next, cause)) == 0) {
		m->base_unsaved = 0;
		mirror_journal_ack(m);
	}
	return rc;
}

/* The number of files and links of base that remote no longer has. */
static size_t
mirror_count_gone(const struct manifest *base, const struct manifest *remote,
    size_t *files)
{
	size_t	i, gone = 0;

	*files = 0;
	for (i = 0; base != NULL && i < base->n; i++) {
		if (base->e[i].type == MANIFEST_DIR)
			continue;
		(*files)++;
		gone += manifest_find(remote, base->e[i].path) == NULL;
	}
	return gone;
}

/*
 * The mass-deletion guard: a pull that would delete here more than
 * MIRROR_MASS_NUM / MIRROR_MASS_DEN of the files and links last synced
 * (and at least MIRROR_MASS_MIN of them) halts, deleting nothing, unless
 * the caller allowed it for this exec (--allow-mass-delete).
 */
static int
mirror_mass_delete(struct mirror *m, const struct manifest *base,
    const struct manifest *remote, char **cause)
{
	size_t	files, gone = mirror_count_gone(base, remote, &files);

	if (gone < MIRROR_MASS_MIN || gone * MIRROR_MASS_DEN <=
	    files * MIRROR_MASS_NUM)
		return 0;
	if (m->allow_mass_delete) {
		log_warn("sync down: deleting %zu of %zu files here, as "
		    "allowed", gone, files);
		return 0;
	}
	*cause = xasprintf("%s: %zu of the %zu files last synced are gone "
	    "from the sandbox workspace; mirror halted instead of deleting "
	    "them here (nothing was deleted; to restore the sandbox from "
	    "here: clawssh sync push %s; to take the deletions: an exec "
	    "with --allow-mass-delete)", transport_label(m->t), gone, files,
	    m->id);
	return CLAW_ERR_PERM;
}

/*
 * The pull on the whole state.  asked says whom mirror_pull_part asked
 * already before it gave up (MIRROR_ASKED_*): their answers are spent,
 * so the host is listed, or the workspace scanned, whole.
 */
static int
mirror_pull_whole(struct mirror *m, int asked, char **cause)
{
	struct manifest	*base = m->base, *remote = NULL, *local = NULL;
	struct manifest	*after = NULL, *next;
	int		 rc;

	if (m->partial && (rc = syncstate_all(m->st, &base, cause)) != 0)
		return rc;	/* (the push's view is staged in it) */
	if ((rc = mirror_remote_now(m, asked & MIRROR_ASKED_WATCH ||
	    m->healing ? NULL : base, &remote, cause)) != 0)
		goto out;
	if (remote->n == 0 && base != NULL && base->n > 0) {
		*cause = xasprintf("%s: the sandbox workspace is empty; "
		    "mirror halted instead of deleting the local workspace",
		    transport_label(m->t));
		rc = CLAW_ERR_PERM;
	} else if ((rc = mirror_mass_delete(m, base, remote, cause)) != 0)
		goto out;
	else if ((rc = mirror_local(m, base,
	    !(asked & MIRROR_ASKED_JOURNAL), &local, cause)) == 0 &&
	    (rc = mirror_apply(m, base, remote, local, cause)) == 0 &&
	    (rc = mirror_after(m, local, &after, cause)) == 0) {
		next = mirror_next_base(m, base, local, after);
		rc = mirror_save_whole(m, next, cause);
		manifest_free(next);
	}
out:
	if (base != m->base)
		manifest_free(base);
	manifest_free(remote);
	manifest_free(local);
	manifest_free(after);
	return rc;
}

/*
 * The paths a partial pull looks at: those the watcher and the journal
 * name, and beside each of the watcher's the name of its conflict copy;
 * sorted, unique, as pointers (the copies' names allocated in *names).
 */
static char **
mirror_part_scope(const struct mirror_rch *ch, char *const *p2, size_t n2,
    char ***names, size_t *n)
{
	char	**v = xcalloc(2 * ch->n + n2 + 1, sizeof(*v));
	size_t	  i;

	*names = xcalloc(ch->n + 1, sizeof(**names));
	for (i = 0; i < ch->n; i++) {
		v[i] = ch->v[i];
		(*names)[i] = xasprintf("%s%s", ch->v[i],
		    MIRROR_CONFLICT_SUFFIX);
		v[ch->n + i] = (*names)[i];
	}
	if (n2 != 0)
		memcpy(v + 2 * ch->n, p2, n2 * sizeof(*v));
	*n = 2 * ch->n + n2;
	strv_uniq(v, n, 0);
	return v;
}

/*
 * After a partial pull applied the host's changes: the local tree as a
 * view of v[0..n), from local, and the state to save, both appended to
 * the log.  If a path the pull changed lies outside v (it cannot) or
 * the rescan fails, the whole state is saved instead.
 */
static int
mirror_finish_part(struct mirror *m, char *const *v, size_t n,
    const struct manifest *base, const struct manifest *local,
    char **cause)
{
	struct manifest	*after = NULL, *all = NULL, *wide, *next;
	char		*why = NULL;
	size_t		 i;
	int		 rc;

	mirror_touched_uniq(m);
	for (i = 0; i < m->ntouched; i++) {
		if (!strv_has_ancestor(v, n, m->touched[i], 1))
			break;
	}
	if (i == m->ntouched && mirror_rescan(m, local, m->touched,
	    m->ntouched, &after, &why) == 0) {
		next = mirror_next_base(m, base, local, after);
		syncstate_stage(m->st, v, n, next);
		manifest_free(next);
		manifest_free(after);
		if ((rc = syncstate_commit(m->st, cause)) == 0) {
			m->base_unsaved = 0;
			mirror_journal_ack(m);
		}
		return rc;
	}
	log_info("sync down: %s: saving the whole sync state", why != NULL ?
	    why : "a change outside the paths looked at");
	free(why);
	if ((rc = syncstate_all(m->st, &all, cause)) != 0)
		return rc;
	wide = syncstate_splice(all, v, n, local);
	if ((rc = mirror_after(m, wide, &after, cause)) == 0) {
		next = mirror_next_base(m, all, wide, after);
		rc = mirror_save_whole(m, next, cause);
		manifest_free(next);
	}
	manifest_free(after);
	manifest_free(wide);
	manifest_free(all);
	return rc;
}

/* The number of m's entries directly in the workspace root. */
static size_t
mirror_top_count(const struct manifest *m)
{
	size_t	i, n = 0;

	for (i = 0; i < m->n; i++)
		n += strchr(m->e[i].path, '/') == NULL;
	return n;
}

/*
 * The pull after a partial push: only the paths the host watcher and the
 * change journal name are looked at, on views of the state.  1 (nothing
 * done) when a whole pull must do it instead.
 */
static int
mirror_pull_part(struct mirror *m, int *asked, char **cause)
{
	struct mirror_rch	  ch;
	struct buf		  rep = BUF_INIT;
	struct manifest		 *base = NULL, *remote = NULL, *local = NULL;
	char			**p2 = NULL, **v = NULL, **names = NULL;
	char			 *why = NULL;
	size_t			  at = 0, n2 = 0, n = 0, i, list, files;
	int			  rc = 1;

	*asked = MIRROR_ASKED_WATCH;
	if (mirror_remote_changes(m, &ch) != 0)
		return 1;
	*asked |= MIRROR_ASKED_JOURNAL;
	if (mirror_journal_take(m, &rep, &at) != 0)
		goto out;
	p2 = mirror_take_paths(&rep, at, &n2, &list);
	v = mirror_part_scope(&ch, p2, n2, &names, &n);
	if (syncstate_view(m->st, v, n, &base, &why) != 0 ||
	    (remote = mirror_remote_apply(base, &ch)) == NULL ||
	    mirror_rescan(m, base, p2, n2, &local, &why) != 0) {
		log_info("sync down: %s: syncing the whole workspace",
		    why != NULL ? why : "the watcher missed a change");
		goto out;
	}
	if (mirror_count_gone(base, remote, &files) >= MIRROR_MASS_MIN) {
		/* a fraction of what?  only the whole state can tell */
		log_info("sync down: many files gone in the sandbox: looking "
		    "at the whole workspace");
		goto out;
	}
	if (mirror_top_count(remote) == 0 && mirror_top_count(base) > 0) {
		/* emptied?  only the whole listing can tell */
		log_info("sync down: the last names at the top of the "
		    "sandbox workspace may be gone: listing it whole");
		goto out;
	}
	m->remote_how = "watcher";
	m->local_how = "journal";
	log_info("host watcher: %zu changed paths, no listing of the whole "
	    "workspace", ch.n);
	log_info("change journal: %zu changed paths, no scan", n2);
	if ((rc = mirror_apply(m, base, remote, local, cause)) == 0)
		rc = mirror_finish_part(m, v, n, base, local, cause);
out:
	free(why);
	for (i = 0; names != NULL && i < ch.n; i++)
		free(names[i]);
	free(names);
	free(v);
	free(p2);
	buf_free(&rep);
	mirror_rch_free(&ch);
	manifest_free(base);
	manifest_free(remote);
	manifest_free(local);
	return rc;
}

/* Bring the host's changes down; see mirror.h. */
int
mirror_pull(struct mirror *m, char **cause)
{
	int	rc, asked = 0;

	if (m->push_failed) {
		*cause = xstrdup("the local changes did not reach the host: "
		    "nothing pulled (the next exec sends them again)");
		return CLAW_ERR_PROTO;
	}
	if (m->partial) {
		mirror_stage_base(m);
		if ((rc = mirror_pull_part(m, &asked, cause)) <= 0)
			return rc;
	}
	return mirror_pull_whole(m, asked, cause);
}
