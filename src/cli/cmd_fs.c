/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared parts of the file tool commands: options, choosing the copy of
 * the workspace to act on, and pushing a local change at once.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "clawconfig.h"
#include "cmd.h"
#include "cmd_env.h"
#include "cmd_fs.h"
#include "cmd_ops.h"
#include "error.h"
#include "exec.h"
#include "fstore.h"
#include "hostws.h"
#include "num.h"
#include "pathguard.h"
#include "registry.h"
#include "xmalloc.h"

/* Parse a file tool's command line; see cmd_fs.h. */
int
cmd_fs_parse(struct cmd_fs *f, const char *method, const char *usage,
    int argc, char **argv)
{
	struct cmd_ops	o;
	int64_t		v;
	int		rc;

	f->timeout = -1;
	rc = cmd_ops_parse(&o, method, &f->b.cc, usage, argc, argv);
	f->tool = o.op->cli;
	cmd_ops_free(&o);	/* the file tools have no repeated option */
	if (rc != 0)
		return rc;
	/* each tool has some of these; the others read as not given */
	f->id = cmd_ops_get(&o, "sandbox");
	f->push = cmd_ops_flag(&o, "push");
	f->json = cmd_ops_flag(&o, "json");
	f->lines = cmd_ops_flag(&o, "lines");
	if (cmd_ops_int(&o, "offset", &v))
		f->offset = (uint64_t)v;
	if (cmd_ops_int(&o, "limit", &v))
		f->limit = (uint64_t)v;
	f->old = cmd_ops_get(&o, "old");
	f->new = cmd_ops_get(&o, "new");
	f->all = cmd_ops_flag(&o, "all");
	if (cmd_ops_int(&o, "timeout", &v))
		f->timeout = (int)v;
	if (f->id == NULL)
		return cmd_fail("%s: give the sandbox with -s ID", f->tool);
	f->args = o.operands;
	f->nargs = o.noperands;
	return 0;
}

/* Open the local canonical copy. */
static int
fs_open_local(struct cmd_fs *f)
{
	char	*cause = NULL;

	if (f->b.rec->workspace == NULL)
		return cmd_fail("%s: sandbox %s has no local workspace",
		    f->tool, f->id);
	if (pathguard_open(f->b.rec->workspace, &f->pg, &cause) != 0)
		return cmd_fs_fail(f, cause);
	f->fs = fstore_local(f->pg);
	f->local = 1;
	return 0;
}

/*
 * Where the host-side steps on f's sandbox run: its step jail over the
 * directory its commands see (private/ for access none).
 */
static void
fs_hostws(struct cmd_fs *f, const struct sandbox_settings *s,
    struct hostws *hw)
{
	cmd_box_hostws(&f->b, s->access == SANDBOX_ACCESS_NONE ? "private" :
	    "workspace", hw);
}

/* Load the sandbox and open its canonical copy; see cmd_fs.h. */
int
cmd_fs_open(struct cmd_fs *f, int writing)
{
	struct sandbox_settings	 s;
	struct registry_record	*r;
	struct hostws		 hw;
	char			*pre;
	int			 rc;

	if ((rc = cmd_box_load(&f->b, f->id)) != 0)
		return rc;
	r = f->b.rec;
	cmd_box_settings(&f->b, &r->settings, &s);
	if (writing && s.access == SANDBOX_ACCESS_RO)
		return cmd_fail("%s: sandbox %s has a read-only workspace",
		    f->tool, f->id);
	if (s.mode == SANDBOX_MODE_MIRROR && s.access != SANDBOX_ACCESS_NONE)
		return fs_open_local(f);
	if (f->push)
		return cmd_fail("%s: --push is for mirror mode; this sandbox's "
		    "files live on the host", f->tool);
	if ((rc = cmd_box_connect(&f->b)) != 0 ||
	    (rc = cmd_env_steps_route(&f->b, &s, &f->route)) != 0)
		return rc;
	if (f->route.dir != NULL)
		f->b.steps = &f->route;
	fs_hostws(f, &s, &hw);
	pre = hostdir_exec_pre(r->remote_root, r->id);
	f->fs = fstore_remote(f->b.t, &hw, pre, f->timeout >= 0 ?
	    f->timeout : FSTORE_TIMEOUT);
	free(pre);
	hostws_clear(&hw);
	return 0;
}

/* Push local changes now; see cmd_fs.h. */
int
cmd_fs_after_write(struct cmd_fs *f)
{
	char	*cause = NULL;
	int	 rc;

	if (!f->local || !f->push)
		return 0;
	if ((rc = cmd_box_connect(&f->b)) != 0)
		return rc;
	if ((rc = cmd_box_push(&f->b, f->pg, &cause)) != 0) {
		rc = cmd_fail("%s: written locally, but the push failed: %s",
		    f->tool, cause);
		free(cause);
	}
	return rc;
}

/* Read all of stdin; see cmd_fs.h. */
int
cmd_fs_stdin(struct cmd_fs *f, struct buf *b)
{
	char	chunk[65536];
	ssize_t	n;

	for (;;) {
		n = read(STDIN_FILENO, chunk, sizeof chunk);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return cmd_fail("%s: stdin: %s", f->tool,
			    strerror(errno));
		if (n == 0)
			return 0;
		if (b->len + (size_t)n > FSTORE_FILE_MAX)
			return cmd_fail("%s: stdin over %d MiB; nothing "
			    "written", f->tool, FSTORE_FILE_MAX >> 20);
		buf_append(b, chunk, (size_t)n);
	}
}

/* Report a failure. */
int
cmd_fs_fail(struct cmd_fs *f, char *cause)
{
	int	rc = cmd_fail("%s: %s", f->tool, cause != NULL ? cause :
	    "failed");

	free(cause);
	return rc;
}

/* Report an fstore failure; see cmd_fs.h. */
int
cmd_fs_error(struct cmd_fs *f, int r, char *cause)
{
	int	rc = cmd_fs_fail(f, cause);

	return r == CLAW_ERR_TIMEOUT ? EXEC_STATUS_TIMEOUT : rc;
}

/* Release everything. */
void
cmd_fs_free(struct cmd_fs *f)
{
	fstore_free(f->fs);
	pathguard_close(f->pg);
	cmd_box_free(&f->b);
	contain_route_free(&f->route);
	memset(f, 0, sizeof *f);
}
