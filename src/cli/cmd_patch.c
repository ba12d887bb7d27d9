/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh apply-patch -s ID [--push] < PATCH: apply a unified diff or an
 * agent-format patch to a sandbox's workspace, every file or none.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "cmd.h"
#include "cmd_fs.h"
#include "error.h"
#include "fstore.h"
#include "patch.h"
#include "xmalloc.h"

/* What one patched file turns into. */
struct pp_file {
	char		*old;		/* normalised old path, or NULL */
	char		*new;		/* normalised new path, or NULL */
	char		*data;		/* new content */
	size_t		 len;
	int		 mode;
};

static const char patch_usage[] =
    "usage: clawssh apply-patch -s ID [--push] [--json] < PATCH\n"
    "\n"
    "Apply a unified diff (git diff, diff -u) or a '*** Begin Patch'\n"
    "patch to the sandbox's workspace.  Every file applies or nothing is\n"
    "written; a hunk that does not match is named with its file.  Prints\n"
    "a line a file (A, D, R OLD -> NEW, M PATH; --json: an array of\n"
    "{\"op\", \"path\"} and \"from\" for a rename).\n";

/* Normalise a patch path (NULL stays NULL). */
static int
pp_path(const char *p, char **out, char **cause)
{
	if (p == NULL) {
		*out = NULL;
		return 0;
	}
	return fstore_path(p, out, cause);
}

/* Work out one file's new content from the store's current one. */
static int
pp_one(struct fstore *fs, const struct patch_file *pf, struct pp_file *o,
    char **cause)
{
	struct buf	 cur = BUF_INIT;
	unsigned	 mode = 0644;
	int		 r;

	if ((r = pp_path(pf->old_path, &o->old, cause)) != 0 ||
	    (r = pp_path(pf->new_path, &o->new, cause)) != 0)
		return r;
	if (pf->kind != PATCH_ADD && (r = fstore_read(fs, o->old, 0, 0, &cur,
	    &mode, cause)) != 0)
		return r;
	r = patch_apply(pf, pf->kind == PATCH_ADD ? NULL :
	    (cur.data != NULL ? cur.data : ""), cur.len, &o->data, &o->len,
	    cause);
	o->mode = pf->new_mode >= 0 ? pf->new_mode : (int)(mode & 0777);
	buf_free(&cur);
	return r;
}

/* Turn the worked-out files into store changes (renames: write + rm). */
static size_t
pp_changes(const struct patch *p, const struct pp_file *o,
    struct fstore_change *ch)
{
	size_t	i, n = 0;

	for (i = 0; i < p->n; i++) {
		memset(&ch[n], 0, sizeof ch[n]);
		if (p->files[i].kind == PATCH_DELETE) {
			ch[n++].path = o[i].old;
			continue;
		}
		ch[n].path = o[i].new;
		ch[n].data = o[i].data != NULL ? o[i].data : "";
		ch[n].len = o[i].len;
		ch[n].mode = o[i].mode;
		ch[n].create_only = p->files[i].kind == PATCH_ADD ||
		    strcmp(o[i].old, o[i].new) != 0;
		n++;
		if (p->files[i].kind == PATCH_UPDATE &&
		    strcmp(o[i].old, o[i].new) != 0) {
			memset(&ch[n], 0, sizeof ch[n]);
			ch[n++].path = o[i].old;
		}
	}
	return n;
}

/* The letter for what file i's change did: A, D, R or M. */
static char
pp_op(const struct patch *p, const struct pp_file *o, size_t i)
{
	if (p->files[i].kind == PATCH_ADD)
		return 'A';
	if (p->files[i].kind == PATCH_DELETE)
		return 'D';
	return strcmp(o[i].old, o[i].new) != 0 ? 'R' : 'M';
}

/* Print what was done as --json: [{"op", "path"[, "from"]}, ...]. */
static void
pp_report_json(const struct patch *p, const struct pp_file *o)
{
	cJSON	*a = cJSON_CreateArray(), *e;
	char	 op[2] = { '\0', '\0' };
	size_t	 i;

	for (i = 0; i < p->n; i++) {
		op[0] = pp_op(p, o, i);
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "op", op);
		cJSON_AddStringToObject(e, "path", op[0] == 'D' ? o[i].old :
		    o[i].new);
		if (op[0] == 'R')
			cJSON_AddStringToObject(e, "from", o[i].old);
		cJSON_AddItemToArray(a, e);
	}
	cmd_print_json(a);
	cJSON_Delete(a);
}

/* Print what was done, one line a file, as git does (or as --json). */
static void
pp_report(const struct cmd_fs *f, const struct patch *p,
    const struct pp_file *o)
{
	size_t	i;

	if (f->json) {
		pp_report_json(p, o);
		return;
	}
	for (i = 0; i < p->n; i++) {
		if (p->files[i].kind == PATCH_ADD)
			printf("A %s\n", o[i].new);
		else if (p->files[i].kind == PATCH_DELETE)
			printf("D %s\n", o[i].old);
		else if (strcmp(o[i].old, o[i].new) != 0)
			printf("R %s -> %s\n", o[i].old, o[i].new);
		else
			printf("M %s\n", o[i].new);
	}
}

/* Apply the parsed patch to the open store. */
static int
pp_apply(struct cmd_fs *f, const struct patch *p)
{
	struct fstore_change	*ch;
	struct pp_file		*o;
	char			*cause = NULL;
	size_t			 i, n = 0;
	int			 rc = 0;

	o = xcalloc(p->n + 1, sizeof *o);
	ch = xcalloc(2 * p->n + 1, sizeof *ch);
	for (i = 0; rc == 0 && i < p->n; i++)
		rc = pp_one(f->fs, &p->files[i], &o[i], &cause);
	if (rc == 0) {
		n = pp_changes(p, o, ch);
		rc = fstore_commit(f->fs, ch, n, &cause);
	}
	if (rc != 0)
		rc = cmd_fs_error(f, rc, xasprintf("%s; nothing was changed",
		    cause));
	else {
		pp_report(f, p, o);
		rc = cmd_fs_after_write(f);
	}
	free(cause);
	for (i = 0; i < p->n; i++) {
		free(o[i].old);
		free(o[i].new);
		free(o[i].data);
	}
	free(o);
	free(ch);
	return rc;
}

/* The apply-patch tool. */
int
cmd_apply_patch(int argc, char **argv)
{
	struct cmd_fs	 f;
	struct buf	 b = BUF_INIT;
	struct patch	*p = NULL;
	char		*cause = NULL;
	int		 rc;

	memset(&f, 0, sizeof f);
	if ((rc = cmd_fs_parse(&f, "apply-patch", CMD_FS_PUSH | CMD_FS_JSON,
	    patch_usage, argc, argv)) != 0)
		goto out;
	if (f.nargs != 0) {
		rc = cmd_fail("apply-patch: the patch comes on stdin, not as "
		    "'%s'", f.args[0]);
		goto out;
	}
	if ((rc = cmd_fs_stdin(&f, &b)) != 0)
		goto out;
	if (patch_parse(b.data != NULL ? b.data : "", b.len, &p,
	    &cause) != 0) {
		rc = cmd_fs_fail(&f, cause);
		goto out;
	}
	if ((rc = cmd_fs_open(&f, 1)) == 0)
		rc = pp_apply(&f, p);
out:
	patch_free(p);
	buf_free(&b);
	cmd_fs_free(&f);
	return rc < 0 ? 0 : rc;
}
