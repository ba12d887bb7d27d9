/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh apply-patch -s ID [--push] < PATCH: apply a unified diff or an
 * agent-format patch to a sandbox's workspace, every file or none.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "cmd.h"
#include "cmd_fs.h"
#include "fstore.h"
#include "fstore_patch.h"
#include "patch.h"

static const char patch_usage[] =
    "usage: clawssh apply-patch -s ID [--push] [--json] < PATCH\n"
    "\n"
    "Apply a unified diff (git diff, diff -u) or a '*** Begin Patch'\n"
    "patch to the sandbox's workspace.  Every file applies or nothing is\n"
    "written; a hunk that does not match is named with its file.  Prints\n"
    "a line a file (A, D, R OLD -> NEW, M PATH; --json: an array of\n"
    "{\"op\", \"path\"} and \"from\" for a rename).\n";

/* Apply the parsed patch to the open store and say what was done. */
static int
pp_apply(struct cmd_fs *f, const struct patch *p)
{
	struct buf	 report = BUF_INIT;
	char		*cause = NULL;
	int		 rc;

	if ((rc = fstore_patch(f->fs, p, f->json, &report, &cause)) != 0)
		rc = cmd_fs_error(f, rc, cause);
	else {
		fwrite(report.data != NULL ? report.data : "", 1, report.len,
		    stdout);
		rc = cmd_fs_after_write(f);
	}
	buf_free(&report);
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
	if ((rc = cmd_fs_parse(&f, "fs.applyPatch", patch_usage, argc,
	    argv)) != 0)
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
