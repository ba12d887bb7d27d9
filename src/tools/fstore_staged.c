/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A staged store: its reads are answered from files read beforehand (or
 * the error their read gave), and its commit is kept, not done.  The
 * daemon runs fstore_patch on one to apply a patch to a host's copy with
 * steps of its own: the reads first, one step each, then the kept commit
 * as one step (src/daemon/daemon_fs.c).  Stat and listings are not
 * staged.  See fstore.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "fstore_int.h"
#include "xmalloc.h"

/* One file read beforehand. */
struct stage_file {
	char		*path;
	struct buf	 data;
	unsigned	 mode;
	int		 rc;		/* its read's error, or 0 */
	char		*cause;
};

/* The files, and the commit kept. */
struct fstore_stage {
	struct stage_file	*files;
	size_t			 n;
	struct fstore_change	*changes;
	size_t			 nchanges;
	int			 committed;
};

/* Make a staged store. */
struct fstore *
fstore_staged(void)
{
	struct fstore	*fs = xcalloc(1, sizeof *fs);

	fs->stage = xcalloc(1, sizeof *fs->stage);
	return fs;
}

/* Stage a read's result; see fstore.h. */
void
fstore_staged_put(struct fstore *fs, const char *path, const char *data,
    size_t len, unsigned mode, int rc, const char *cause)
{
	struct fstore_stage	*s = fs->stage;
	struct stage_file	*f;

	s->files = xreallocarray(s->files, s->n + 1, sizeof *s->files);
	f = &s->files[s->n++];
	memset(f, 0, sizeof *f);
	f->path = xstrdup(path);
	buf_append(&f->data, data != NULL ? data : "", len);
	f->mode = mode;
	f->rc = rc;
	f->cause = cause != NULL ? xstrdup(cause) : NULL;
}

/* Whether path is staged; see fstore.h. */
int
fstore_staged_has(const struct fstore *fs, const char *path)
{
	size_t	i;

	for (i = 0; i < fs->stage->n; i++)
		if (strcmp(fs->stage->files[i].path, path) == 0)
			return 1;
	return 0;
}

/* A read from the stage. */
int
fstore_staged_read(struct fstore *fs, const char *path, uint64_t off,
    uint64_t lim, struct buf *out, unsigned *mode, char **cause)
{
	struct fstore_stage	*s = fs->stage;
	struct stage_file	*f = NULL;
	size_t			 i, len;

	for (i = 0; i < s->n && f == NULL; i++)
		if (strcmp(s->files[i].path, path) == 0)
			f = &s->files[i];
	if (f == NULL)
		return claw_fail(cause, CLAW_ERR_PROTO, "%s: not read "
		    "beforehand", path);
	if (f->rc != 0) {
		*cause = xstrdup(f->cause != NULL ? f->cause : "failed");
		return f->rc;
	}
	if (mode != NULL)
		*mode = f->mode;
	if (off >= f->data.len)
		return 0;
	len = f->data.len - (size_t)off;
	if (lim != 0 && lim < len)
		len = (size_t)lim;
	buf_append(out, f->data.data + off, len);
	return 0;
}

/* Keep a commit (copied) instead of doing it. */
int
fstore_staged_commit(struct fstore *fs, const struct fstore_change *ch,
    size_t n, char **cause)
{
	struct fstore_stage	*s = fs->stage;
	char			*data;
	size_t			 i;

	if (s->committed)
		return claw_fail(cause, CLAW_ERR_PROTO, "a staged store "
		    "commits once");
	s->changes = xcalloc(n + 1, sizeof *s->changes);
	for (i = 0; i < n; i++) {
		s->changes[i] = ch[i];
		s->changes[i].path = xstrdup(ch[i].path);
		if (ch[i].data != NULL) {
			data = xmalloc(ch[i].len + 1);
			memcpy(data, ch[i].data, ch[i].len);
			data[ch[i].len] = '\0';
			s->changes[i].data = data;
		}
	}
	s->nchanges = n;
	s->committed = 1;
	return 0;
}

/* The commit kept; see fstore.h. */
const struct fstore_change *
fstore_staged_changes(const struct fstore *fs, size_t *n)
{
	*n = fs->stage->nchanges;
	return fs->stage->committed ? fs->stage->changes : NULL;
}

/* Free the stage (fstore_free's part). */
void
fstore_staged_free(struct fstore_stage *s)
{
	size_t	i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++) {
		free(s->files[i].path);
		buf_free(&s->files[i].data);
		free(s->files[i].cause);
	}
	for (i = 0; i < s->nchanges; i++) {
		free((char *)(uintptr_t)s->changes[i].path);
		free((char *)(uintptr_t)s->changes[i].data);
	}
	free(s->files);
	free(s->changes);
	free(s);
}
