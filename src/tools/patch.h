/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Patches applied in memory: no I/O, no path judgement.  Two formats are
 * accepted and told apart by the first non-blank line:
 *
 * - The agent format: "*** Begin Patch", then "*** Add File: P" ('+'
 *   lines), "*** Update File: P" (optionally "*** Move to: Q", then chunks
 *   starting "@@" or "@@ TEXT" with ' ', '-' and '+' lines, a chunk ending
 *   "*** End of File" must match at the end) and "*** Delete File: P"
 *   sections, then "*** End Patch" (only blank lines may follow).
 * - Anything else is read as unified diffs: git diff output (modes, new and
 *   deleted files, renames, "\ No newline at end of file") and plain
 *   "diff -u" output, with junk between files skipped.  "a/" and "b/" are
 *   stripped when both names carry them; timestamps after a tab are
 *   dropped; git's "quoted" names are decoded.  Binary and combined
 *   (merge) diffs, copies, symlinks and submodules are refused.
 *
 * Paths are returned as written (after that stripping), never judged: the
 * caller confines them.  An empty path, a path named by two changes, and a
 * patch without changes are refused.  The text may not contain NUL bytes
 * ("binary data in patch").  Line endings are kept byte for byte: a "\r"
 * before the "\n" is part of the line.
 *
 * Matching.  A unified hunk is tried at its stated line (moved by the
 * offset the previous hunk applied at), then at the nearest other place,
 * exactly, never fuzzily; hunks apply in order and never overlap.  An
 * agent chunk is searched forward from the end of the previous chunk,
 * after first finding its "@@ TEXT" line: exactly, then ignoring trailing
 * whitespace, then ignoring leading and trailing whitespace; the file's own
 * bytes are kept for the context lines it matched.  A chunk without old
 * lines is inserted after its "@@ TEXT" line, else at the end of the file.
 * Applying an agent patch keeps whether the file ends in a newline (an
 * added file always does).  Searching is capped, so hostile input costs
 * bounded time; parsing is linear in the text.
 *
 * Functions returning int give 0 or a negative CLAW_ERR_* code and, where
 * they take char **cause, store an allocated message there on failure (the
 * caller frees it).  Out-pointers are set on success only.  A struct patch
 * is owned by one thread at a time; its files stay valid until patch_free.
 */
#ifndef CLAW_PATCH_H
#define CLAW_PATCH_H

#include <stddef.h>

enum patch_kind {
	PATCH_ADD,		/* create new_path */
	PATCH_DELETE,		/* remove old_path */
	PATCH_UPDATE		/* change old_path, write the result to
				   new_path (then remove old_path if the
				   two differ: a rename) */
};

struct patch_body;

/* One file's change. */
struct patch_file {
	enum patch_kind		 kind;
	char			*old_path;	/* UPDATE and DELETE: the file
						   as it is; NULL for ADD */
	char			*new_path;	/* ADD: the new file; UPDATE:
						   where the result goes (equal
						   to old_path unless renamed);
						   NULL for DELETE */
	int			 new_mode;	/* 0644 or 0755 when a git
						   patch says, else -1 */
	struct patch_body	*body;		/* private: hunks */
};

/* A parsed patch: n changes, in the order of the text. */
struct patch {
	struct patch_file	*files;
	size_t			 n;
	char			*text;		/* private: hunks point here */
};

/*
 * Parse text[0..len) in either format into a newly allocated *out.
 * Failures are CLAW_ERR_PARSE ("patch line N: ...") for malformed text,
 * hunks whose lines disagree with their header and empty input ("no
 * changes in patch"), or CLAW_ERR_UNSUPPORTED for binary and combined
 * diffs, copies, symlinks and submodules (the message names the file).
 */
int	patch_parse(const char *text, size_t len, struct patch **out,
	    char **cause);

/*
 * Apply pf to the current content old[0..oldlen), giving a newly allocated
 * *out (NUL-terminated, not counted in *outlen).  For ADD old must be NULL
 * and oldlen 0.  For DELETE nothing is produced (*out is NULL, *outlen 0):
 * a unified diff's removed lines must equal the file exactly, an agent
 * "Delete File" is not checked.  UPDATE without hunks (a pure rename or
 * mode change) copies old.  Failures: CLAW_ERR_NOTFOUND when a hunk does
 * not match ("src/a.c: hunk 2 (@@ -10,4 +10,5 @@) does not apply", "src/a.c:
 * chunk 2 does not apply: expected lines not found: LINE"), CLAW_ERR_INVAL
 * for misuse.
 */
int	patch_apply(const struct patch_file *pf, const char *old,
	    size_t oldlen, char **out, size_t *outlen, char **cause);

/* Free p and everything it holds; NULL does nothing. */
void	patch_free(struct patch *p);

#endif /* CLAW_PATCH_H */
