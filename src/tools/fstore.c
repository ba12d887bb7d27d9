/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The file tools' view of a workspace: path normalisation and the choice
 * between the local and the remote copy.  See fstore.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "fsedit.h"
#include "fstore_int.h"
#include "hostws.h"
#include "pathguard.h"
#include "xmalloc.h"

#define FSTORE_MOUNT	"/workspace"	/* where sandboxes see it */

/* Make a local store. */
struct fstore *
fstore_local(struct pathguard *pg)
{
	struct fstore	*fs = xcalloc(1, sizeof *fs);

	fs->pg = pg;
	return fs;
}

/* Make a remote store. */
struct fstore *
fstore_remote(struct transport *t, const struct hostws *hw, const char *pre,
    int timeout)
{
	struct fstore	*fs = xcalloc(1, sizeof *fs);

	fs->t = t;
	hostws_copy(&fs->hw, hw);
	if (pre != NULL)
		hostws_pre(&fs->hw, pre);
	fs->timeout = timeout > 0 ? timeout : 0;
	return fs;
}

/* Free a store. */
void
fstore_free(struct fstore *fs)
{
	if (fs == NULL)
		return;
	fstore_staged_free(fs->stage);
	hostws_clear(&fs->hw);
	free(fs);
}

/* Append the components of s to b, dropping empty and "." ones. */
static void
fstore_clean(struct buf *b, const char *s)
{
	size_t	n;

	while (*s != '\0') {
		n = strcspn(s, "/");
		if (n != 0 && !(n == 1 && s[0] == '.')) {
			if (b->len != 0)
				buf_append(b, "/", 1);
			buf_append(b, s, n);
		}
		s += n + (s[n] == '/');
	}
}

/* Normalise a user path; see fstore.h. */
int
fstore_path(const char *user, char **out, char **cause)
{
	struct buf	 b = BUF_INIT;
	size_t		 mlen = strlen(FSTORE_MOUNT);
	const char	*s = user;
	int		 r;

	if (*s == '\0')
		return claw_fail(cause, CLAW_ERR_INVAL, "empty path");
	if (strncmp(s, FSTORE_MOUNT, mlen) == 0 &&
	    (s[mlen] == '/' || s[mlen] == '\0'))
		s += mlen;
	else if (*s == '/')
		return claw_fail(cause, CLAW_ERR_PERM, "%s: absolute path "
		    "outside the workspace (use a path relative to it or "
		    "under /workspace)", user);
	fstore_clean(&b, s);
	if (b.len == 0) {
		buf_free(&b);
		*out = xstrdup("");
		return 0;
	}
	if ((r = pathguard_name_check(b.data, cause)) != 0) {
		buf_free(&b);
		return r;
	}
	*out = buf_detach(&b);
	return 0;
}

/* Read a file; see fstore.h. */
int
fstore_read(struct fstore *fs, const char *path, uint64_t off, uint64_t lim,
    struct buf *out, unsigned *mode, char **cause)
{
	if (*path == '\0')
		return claw_fail(cause, CLAW_ERR_INVAL, "the workspace root "
		    "is a directory");
	if (fs->pg != NULL)
		return fstore_local_read(fs, path, off, lim, out, mode, cause);
	if (fs->stage != NULL)
		return fstore_staged_read(fs, path, off, lim, out, mode,
		    cause);
	return fstore_remote_read(fs, path, off, lim, out, mode, cause);
}

/* Stat an entry; see fstore.h. */
int
fstore_stat(struct fstore *fs, const char *path, struct fstore_stat *st,
    char **cause)
{
	memset(st, 0, sizeof *st);
	if (fs->stage != NULL)
		return claw_fail(cause, CLAW_ERR_UNSUPPORTED, "%s: a staged "
		    "store has no stat", path);
	if (fs->pg != NULL)
		return fstore_local_stat(fs, path, st, cause);
	return fstore_remote_stat(fs, path, st, cause);
}

/* List a directory; see fstore.h. */
int
fstore_list(struct fstore *fs, const char *path, struct fstore_entry **out,
    size_t *n, char **cause)
{
	int	r;

	if (fs->stage != NULL)
		return claw_fail(cause, CLAW_ERR_UNSUPPORTED, "%s: a staged "
		    "store has no listing", path);
	if (fs->pg != NULL)
		r = fstore_local_list(fs, path, out, n, cause);
	else
		r = fstore_remote_list(fs, path, out, n, cause);
	if (r == 0)
		fstore_sort(*out, *n);
	return r;
}

/* Apply changes; see fstore.h. */
int
fstore_commit(struct fstore *fs, const struct fstore_change *ch, size_t n,
    char **cause)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (*ch[i].path == '\0')
			return claw_fail(cause, CLAW_ERR_INVAL, "the workspace "
			    "root is a directory");
	}
	if (fs->pg != NULL)
		return fstore_local_commit(fs, ch, n, cause);
	if (fs->stage != NULL)
		return fstore_staged_commit(fs, ch, n, cause);
	return fstore_remote_commit(fs, ch, n, cause);
}

/* Replace a file; see fstore.h. */
int
fstore_write_file(struct fstore *fs, const char *path, const char *data,
    size_t len, char **cause)
{
	struct fstore_change	c;

	memset(&c, 0, sizeof c);
	c.path = path;
	c.data = data != NULL ? data : "";
	c.len = len;
	c.mode = -1;
	return fstore_commit(fs, &c, 1, cause);
}

/* Read, replace and write back; see fstore.h. */
int
fstore_edit(struct fstore *fs, const char *path, const char *old,
    const char *new, int all, size_t *count, char **cause)
{
	struct fstore_change	 c;
	struct buf		 b = BUF_INIT;
	char			*out = NULL;
	size_t			 outlen;
	unsigned		 mode;
	int			 rc;

	if ((rc = fstore_read(fs, path, 0, 0, &b, &mode, cause)) == 0 &&
	    (rc = fsedit_replace(path, b.data != NULL ? b.data : "", b.len,
	    old, strlen(old), new, strlen(new), all, &out, &outlen, count,
	    cause)) == 0) {
		memset(&c, 0, sizeof c);
		c.path = path;
		c.data = out;
		c.len = outlen;
		c.mode = (int)(mode & 0777);
		rc = fstore_commit(fs, &c, 1, cause);
	}
	free(out);
	buf_free(&b);
	return rc;
}

/* Compare entries by name. */
static int
fstore_cmp(const void *a, const void *b)
{
	return strcmp(((const struct fstore_entry *)a)->name,
	    ((const struct fstore_entry *)b)->name);
}

/* Sort entries by name. */
void
fstore_sort(struct fstore_entry *e, size_t n)
{
	if (n > 1)
		qsort(e, n, sizeof *e, fstore_cmp);
}

/* Free a stat's link. */
void
fstore_stat_clear(struct fstore_stat *st)
{
	free(st->link);
	st->link = NULL;
}

/* Free a listing. */
void
fstore_entries_free(struct fstore_entry *e, size_t n)
{
	size_t	i;

	for (i = 0; e != NULL && i < n; i++) {
		free(e[i].name);
		free(e[i].st.link);
	}
	free(e);
}
