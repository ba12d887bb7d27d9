/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A parsed patch (patch.h) applied to a file store (fstore.h): every file
 * or none.  The apply-patch tool's operation, for the CLI and for the
 * daemon answering fs.applyPatch itself.
 */
#ifndef CLAW_FSTORE_PATCH_H
#define CLAW_FSTORE_PATCH_H

struct buf;
struct fstore;
struct patch;

/*
 * Work out every file of p from fs's current content, then commit them
 * all in one fstore_commit (renames: a create-only write and a removal),
 * so a hunk that does not match changes nothing.  On success append to
 * report what was done, one line a file as git says it ("A PATH",
 * "D PATH", "R OLD -> NEW", "M PATH"), or with json one line holding
 * [{"op", "path"[, "from"]}, ...].  On failure *cause ends in "; nothing
 * was changed".
 */
int	fstore_patch(struct fstore *fs, const struct patch *p, int json,
	    struct buf *report, char **cause);

#endif /* CLAW_FSTORE_PATCH_H */
