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
 * Two kinds of rules, judged apart (see docs/sync.md, "Which paths move"):
 *
 * The user's exclusions, lowest precedence first (a later match wins):
 *   1. built-in default: ".clawssh-tmp-*" (PATHGUARD_TMP_PREFIX: the
 *      temporary files of clawssh's own writes);
 *   2. the sync.exclude patterns from the configuration, in order;
 *   3. per directory, its ".clawsshignore", the deeper directory winning
 *      over its ancestors, as git does.
 * They keep a path out of the push and of the pull (ignore_match_pull
 * asks them alone), tracked by git or not.  A '!' among them re-includes
 * a path whatever a .gitignore says.
 *
 * The .gitignore files, per directory, the deeper one winning: they keep
 * out of the push only, and only what git does not track.  At the root's
 * first ignore_load_dir git is asked (ignore_git.h) which files it tracks: a
 * tracked file, and a directory holding one, is never excluded by a
 * .gitignore.  Nor is a path the keep callback keeps (ignore_set_keep:
 * mirror mode keeps what is in its synced state, so that what came down
 * from the sandbox stays mirrored).  ignore_set_user_only turns the
 * .gitignore files off (the daemon's journal watches what the pull may
 * bring).
 *
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
 * The push rule: return 1 if relpath (relative to the workspace root,
 * "a/b/c" form, no leading or trailing '/') stays out of what goes up,
 * else 0; is_dir says whether it is a directory.  A .git path is
 * excluded first (unless ignore_set_push_git turned that off); then the
 * user's exclusions, then the .gitignore files for a path neither
 * tracked nor kept.  Every ancestor directory of relpath is judged
 * first; an excluded ancestor excludes relpath, and a .gitignore's
 * exclusion of an ancestor holds for its untracked paths even when the
 * ancestor itself is spared for holding tracked ones.  The root ("") is
 * never excluded.
 */
int	ignore_match(const struct ignore *ig, const char *relpath, int is_dir);

/*
 * The pull rule: as ignore_match with the .gitignore files left out (the
 * protected paths and the user's exclusions alone).
 */
int	ignore_match_pull(const struct ignore *ig, const char *relpath,
	    int is_dir);

/*
 * Whether to spare path (a directory if is_dir) from the .gitignore
 * files: return 1 to keep it in the push.
 */
typedef int (*ignore_keep_fn)(void *arg, const char *path, int is_dir);

/* Set (or, with NULL, clear) the keep callback; see above. */
void	ignore_set_keep(struct ignore *ig, ignore_keep_fn keep, void *arg);

/* If on, the .gitignore files never apply (and git is not asked). */
void	ignore_set_user_only(struct ignore *ig, int on);

struct buf;

/*
 * Append to b, one per line, the rules in force and where each came
 * from (the protected paths, the defaults, sync.exclude, each loaded
 * .clawsshignore and .gitignore, how many files git tracks or why it
 * could not say), each with the direction it applies to.
 */
void	ignore_describe(const struct ignore *ig, struct buf *b);

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
