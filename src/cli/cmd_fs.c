/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared parts of the file tool commands: options, choosing the copy of
 * the workspace to act on, and pushing a local change at once.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <getopt.h>
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
#include "error.h"
#include "exec.h"
#include "fstore.h"
#include "hostws.h"
#include "num.h"
#include "pathguard.h"
#include "registry.h"
#include "xmalloc.h"

enum {
	OPT_PUSH = CMD_OPT_FIRST_FREE, OPT_JSON, OPT_OFFSET, OPT_LIMIT,
	OPT_LINES, OPT_OLD, OPT_NEW, OPT_ALL, OPT_TIMEOUT
};

#define FS_USAGE_TIMEOUT						\
	"  -s, --sandbox ID      the sandbox, as provision printed it\n"	\
	"  --timeout SECONDS     give up on (and kill) a step on the host\n" \
	"                        after SECONDS (default 60; 0: never)\n"

static const struct option fs_longopts[] = {
	CMD_CONN_LONGOPTS,
	{ "all", no_argument, NULL, OPT_ALL },
	{ "help", no_argument, NULL, 'h' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "limit", required_argument, NULL, OPT_LIMIT },
	{ "lines", no_argument, NULL, OPT_LINES },
	{ "new", required_argument, NULL, OPT_NEW },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "old", required_argument, NULL, OPT_OLD },
	{ "push", no_argument, NULL, OPT_PUSH },
	{ "sandbox", required_argument, NULL, 's' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ NULL, 0, NULL, 0 }
};

/* Parse a byte or line count. */
static int
fs_count(const char *opt, const char *arg, uint64_t *out)
{
	if (num_parse_str(arg, 0, INT64_MAX, out) != 0)
		return cmd_fail("bad %s '%s': want a number", opt, arg);
	return 0;
}

/* The CMD_FS_* bit an option needs (0: always allowed). */
static int
fs_needs(int ch)
{
	switch (ch) {
	case OPT_PUSH:
		return CMD_FS_PUSH;
	case OPT_JSON:
		return CMD_FS_JSON;
	case OPT_OFFSET:
	case OPT_LIMIT:
	case OPT_LINES:
		return CMD_FS_RANGE;
	case OPT_OLD:
	case OPT_NEW:
	case OPT_ALL:
		return CMD_FS_EDIT;
	}
	return 0;
}

/* Take one option. */
static int
fs_option(struct cmd_fs *f, int ch, const char *arg)
{
	switch (ch) {
	case 's':
		f->id = arg;
		return 0;
	case OPT_PUSH:
		f->push = 1;
		return 0;
	case OPT_JSON:
		f->json = 1;
		return 0;
	case OPT_LINES:
		f->lines = 1;
		return 0;
	case OPT_ALL:
		f->all = 1;
		return 0;
	case OPT_OLD:
		f->old = arg;
		return 0;
	case OPT_NEW:
		f->new = arg;
		return 0;
	case OPT_OFFSET:
		return fs_count("--offset", arg, &f->offset);
	case OPT_LIMIT:
		return fs_count("--limit", arg, &f->limit);
	case OPT_TIMEOUT:
		if (cmd_parse_int(arg, 0, INT_MAX / 1000, &f->timeout) != 0)
			return cmd_fail("bad --timeout '%s': want seconds",
			    arg);
		return 0;
	}
	return cmd_fail("bad option (see 'clawssh %s --help')", f->tool);
}

/* Parse a file tool's command line; see cmd_fs.h. */
int
cmd_fs_parse(struct cmd_fs *f, const char *tool, int allowed,
    const char *usage, int argc, char **argv)
{
	int	ch, rc;

	f->tool = tool;
	f->timeout = -1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, CMD_CONN_SHORTOPTS "hs:",
	    fs_longopts, NULL)) != -1) {
		if (ch == 'h') {
			printf("%s%s%s", usage, FS_USAGE_TIMEOUT,
			    CMD_CONN_USAGE);
			return -1;
		}
		if ((rc = cmd_conn_option(&f->b.cc, ch, optarg)) != 0) {
			if (rc == 1)
				continue;
			return rc;
		}
		if ((fs_needs(ch) & ~allowed) != 0)
			return cmd_fail("%s does not take that option (see "
			    "'clawssh %s --help')", tool, tool);
		if ((rc = fs_option(f, ch, optarg)) != 0)
			return rc;
	}
	if (f->id == NULL)
		return cmd_fail("%s: give the sandbox with -s ID", tool);
	f->args = argv + optind;
	f->nargs = argc - optind;
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
