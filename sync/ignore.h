/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Which workspace paths sync leaves alone, decided as git decides with
 * gitignore(5) patterns.
 *
 * Before any pattern, .git is excluded: every path with a component that
 * pathguard_name_protected names (".git" in any case, a directory or a
 * file, at any depth) and everything beneath it.  No pattern undoes this:
 * "!.git/" in an ignore file or in sync.exclude has no effect on .git, since
 * the sandbox writes ignore files that come down to the local workspace
 * and could otherwise put the local .git into the mirror.  Only the local
 * configuration (sync.pushGit, through ignore_set_push_git) can let .git
 * go up; pulls never write it whatever this says (pathguard refuses).
 *
 * Sources, lowest precedence first (a later match wins):
 *   1. built-in default: ".clawssh-tmp-*" (PATHGUARD_TMP_PREFIX: the
 *      temporary files of clawssh's own writes);
 *   2. the sync.exclude patterns from the configuration, in order;
 *   3. per directory, its ".gitignore" and then its ".clawsshignore", the
 *      deeper directory winning over its ancestors, as git does: a/.gitignore
 *      overrides the root's .clawsshignore for paths under a/.
 * Patterns of 1 and 2 apply relative to the workspace root; those of a file
 * apply relative to the directory holding it.  Being the lowest, the
 * default can be undone anywhere by a '!' pattern.
 *
 * Pattern syntax is gitignore(5)'s: blank lines and lines starting with '#'
 * are skipped; "\#" and "\!" start a pattern with a literal '#' or '!';
 * trailing spaces are dropped unless escaped with '\'; a CR before the
 * newline is dropped; '!' negates (re-includes); a trailing '/' matches
 * directories only; a '/' at the start or in the middle anchors the pattern
 * to its directory, otherwise it matches a name at any depth below it; '*'
 * matches any run of characters but '/', '?' one character but '/',
 * "[...]" a class with ranges, "[!...]" or "[^...]" negation and
 * "[:alpha:]"-style names; '\' quotes the next character.  "**" as a whole
 * component matches across directories: leading ("** /x": x at any depth),
 * trailing ("x/ **": everything inside x) or between ("a/ ** /b": a/b,
 * a/x/b, a/x/y/b); the spaces are not part of the pattern, only of this
 * comment.  Elsewhere "**" is '*'.  Matching is case-sensitive.
 *
 * A path under an excluded directory is excluded, whatever later patterns
 * say: as in git, a file cannot be re-included if a parent directory is
 * excluded.
 *
 * Not thread-safe while loading; ignore_match on a loaded set only reads it,
 * so concurrent matches are safe.
 */
#ifndef CLAW_IGNORE_H
#define CLAW_IGNORE_H

#include <stddef.h>

/* Largest ignore file read; a larger one is refused. */
#define IGNORE_FILE_MAX		(1024 * 1024)

struct ignore;

/*
 * Make a set holding the defaults and the nextra configuration patterns in
 * extra (NULL if nextra is 0), each string read as one line of a gitignore
 * file.  Returns 0 and sets *out, or CLAW_ERR_PARSE with *cause naming a
 * malformed pattern (an unterminated '[', an unknown "[:class:]", a trailing
 * lone '\').
 */
int	ignore_new(const char *const *extra, size_t nextra,
	    struct ignore **out, char **cause);

/*
 * Read ".gitignore" and then ".clawsshignore" from the open directory dirfd
 * and add their patterns, scoped to reldir: the directory's path relative to
 * the workspace root, "" for the root itself, otherwise "a/b" with no leading
 * or trailing '/'.  Call it while descending, before judging the directory's
 * entries; loading a directory again replaces what it had.  A missing file
 * is no error; one that is a symbolic link or not a regular file is skipped
 * (log_debug); a malformed line in a file never matches, as in git, and is
 * reported with log_warn.  Returns 0, CLAW_ERR_INVAL for a bad reldir,
 * CLAW_ERR_PARSE for a file over IGNORE_FILE_MAX bytes, or another negative
 * code when a file cannot be opened or read; *cause is set on failure and ig
 * is then unchanged.
 */
int	ignore_load_dir(struct ignore *ig, int dirfd, const char *reldir,
	    char **cause);

/*
 * Return 1 if relpath (relative to the workspace root, "a/b/c" form, no
 * leading or trailing '/') is excluded, else 0; is_dir says whether it is a
 * directory.  A .git path is excluded first (unless ignore_set_push_git
 * turned that off).  Every ancestor directory of relpath is judged first,
 * with the patterns of the directories above it; an excluded ancestor
 * excludes relpath.  The root ("") is never excluded.  Allocates nothing.
 */
int	ignore_match(const struct ignore *ig, const char *relpath, int is_dir);

/*
 * If on, .git paths are judged by the patterns alone, as any other path
 * (sync.pushGit: the local configuration sends .git up); if off, the
 * default of ignore_new, they are always excluded.  Call it before the
 * set is shared between threads.
 */
void	ignore_set_push_git(struct ignore *ig, int on);

/*
 * A manifest_skip_cb (see manifest.h) over ig passed as arg: on entering a
 * directory it loads that directory's ignore files (a failure is logged
 * and stops the scan), for each entry it answers ignore_match.
 */
int	ignore_skip_cb(void *arg, int dirfd, const char *reldir,
	    const char *relpath, int is_dir);

/* Free ig and all its patterns; NULL does nothing. */
void	ignore_free(struct ignore *ig);

#endif /* CLAW_IGNORE_H */
