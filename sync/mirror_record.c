/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Mirror mode after an explicit transfer (clawssh sync push or pull):
 * what both sides now agree on becomes the synced state, so that the
 * next mirrored exec neither undoes the transfer nor sends it again.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "log.h"
#include "manifest.h"
#include "mirror.h"
#include "mirror_int.h"
#include "strv.h"
#include "syncstate.h"
#include "xmalloc.h"

/* Return 1 if path is at or below one of v[0..n) (all when n is 0). */
static int
record_in_scope(const char *path, char *const *v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(path, v[i]) == 0 || mirror_under(path, v[i]))
			return 1;
	return n == 0;
}

/* The paths where local and remote differ (sorted, unique; allocated). */
static int
record_differ(const struct manifest *remote, const struct manifest *local,
    char ***out, size_t *nout)
{
	struct manifest_change	*ch = NULL;
	char			**v;
	size_t			  i, n = 0;
	int			  rc;

	if ((rc = manifest_diff(remote, local, &ch, &n)) != 0)
		return rc;
	v = xcalloc(n + 1, sizeof(*v));
	for (i = 0; i < n; i++)
		v[i] = ch[i].now != NULL ? ch[i].now->path : ch[i].old->path;
	qsort(v, n, sizeof(*v), strv_cmp);
	strv_uniq(v, &n, 0);
	free(ch);
	*out = v;
	*nout = n;
	return 0;
}

/*
 * Add e to out if its parent directory is there (out is built in path
 * order, so a parent always comes first): the state stays a tree.
 */
static void
record_add(struct manifest *out, const struct manifest_entry *e)
{
	const struct manifest_entry	*p;
	const char			*slash = strrchr(e->path, '/');
	char				*dir;

	if (slash != NULL) {
		dir = xstrndup(e->path, (size_t)(slash - e->path));
		p = manifest_find(out, dir);
		free(dir);
		if (p == NULL || p->type != MANIFEST_DIR)
			return;
	}
	manifest_add_copy(out, e);
}

/*
 * The new state: outside the scope, old's entries; inside it, the local
 * entries the host shows the same, and old's entry where the two sides
 * still differ (a change the next exec must still move).
 */
static struct manifest *
record_merge(const struct manifest *old, const struct manifest *local,
    char *const *differ, size_t ndiffer, char *const *v, size_t n)
{
	struct manifest			*all, *out;
	const struct manifest_entry	*e;
	size_t				 i;

	all = manifest_new();
	for (i = 0; old != NULL && i < old->n; i++) {
		e = &old->e[i];
		if (!record_in_scope(e->path, v, n) ||
		    strv_has(differ, ndiffer, e->path))
			manifest_add_copy(all, e);
	}
	for (i = 0; i < local->n; i++) {
		e = &local->e[i];
		if (record_in_scope(e->path, v, n) &&
		    !strv_has(differ, ndiffer, e->path))
			manifest_add_copy(all, e);
	}
	manifest_sort(all);
	out = manifest_new();
	for (i = 0; i < all->n; i++)
		record_add(out, &all->e[i]);
	manifest_free(all);
	return out;
}

/* Record what an explicit transfer left in step; see mirror.h. */
int
mirror_record(struct mirror *m, char *const *v, size_t n, char **cause)
{
	struct manifest	 *old = NULL, *local = NULL, *remote = NULL, *now;
	char		**differ = NULL;
	size_t		  ndiffer = 0;
	int		  rc;

	if ((rc = syncstate_open(m->statefd, m->name, &m->st, cause)) != 0 ||
	    (rc = syncstate_all(m->st, &old, cause)) != 0 ||
	    (rc = mirror_scan(m, old, &local, cause)) != 0 ||
	    (rc = mirror_remote_full(m, &remote, cause)) != 0)
		goto out;
	if ((rc = record_differ(remote, local, &differ, &ndiffer)) != 0) {
		rc = claw_fail(cause, rc, "sync state: unsorted listing");
		goto out;
	}
	now = record_merge(old, local, differ, ndiffer, v, n);
	log_info("sync state: %zu entries in step, %zu still differ",
	    now->n, ndiffer);
	rc = syncstate_save_all(m->st, now, cause);
	manifest_free(now);
out:
	free(differ);
	manifest_free(old);
	manifest_free(local);
	manifest_free(remote);
	return rc;
}
