/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for ignore patterns: a table of gitignore(5) cases, checked
 * against git check-ignore when written, then the ignore files themselves
 * (scoping, precedence, defaults, limits), each test in its own temporary
 * directory, removed afterwards.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compat.h"
#include "error.h"
#include "ignore.h"
#include "xmalloc.h"
#include "tmpdir.h"

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

/* One table case: patterns (one a line) as a root .gitignore would hold. */
struct row {
	const char	*pats;
	const char	*path;
	int		 is_dir;
	int		 want;
};

/*
 * Every row agrees with git 2.39 (git check-ignore -v --no-index on a
 * repository holding the patterns as .gitignore and the path).
 */
static const struct row rows[] = {
	/* A name pattern matches at any depth, directories too. */
	{ "*.o", "a.o", 0, 1 },
	{ "*.o", "src/deep/a.o", 0, 1 },
	{ "*.o", "a.obj", 0, 0 },
	{ "*.o", "a.o", 1, 1 },
	{ "*.o", "x.o/inside.c", 0, 1 },
	{ "*.o", ".o", 0, 1 },
	{ "*", "anything/at/all", 0, 1 },
	/* A leading slash anchors to the directory of the file. */
	{ "/build", "build", 1, 1 },
	{ "/build", "build", 0, 1 },
	{ "/build", "src/build", 1, 0 },
	{ "/build", "build/x.c", 0, 1 },
	/* A trailing slash: directories only, and all inside them. */
	{ "build/", "build", 1, 1 },
	{ "build/", "build", 0, 0 },
	{ "build/", "src/build", 1, 1 },
	{ "build/", "src/build/a/b.c", 0, 1 },
	{ "doc/frotz/", "doc/frotz", 1, 1 },
	{ "doc/frotz/", "doc/frotz", 0, 0 },
	{ "doc/frotz/", "a/doc/frotz", 1, 0 },
	{ "doc/frotz/", "doc/frotz/x", 0, 1 },
	{ "frotz/", "a/frotz", 1, 1 },
	/* A slash in the middle anchors too. */
	{ "doc/*.txt", "doc/a.txt", 0, 1 },
	{ "doc/*.txt", "x/doc/a.txt", 0, 0 },
	{ "doc/*.txt", "doc/sub/a.txt", 0, 0 },
	{ "a/b", "a/b", 0, 1 },
	{ "a/b", "x/a/b", 0, 0 },
	/* "**" as a whole component. */
	{ "foo/**", "foo", 1, 0 },
	{ "foo/**", "foo/a", 0, 1 },
	{ "foo/**", "foo/a/b", 0, 1 },
	{ "foo/**", "x/foo/a", 0, 0 },
	{ "**/foo", "foo", 0, 1 },
	{ "**/foo", "a/foo", 0, 1 },
	{ "**/foo", "a/b/foo", 1, 1 },
	{ "**/foo", "a/foobar", 0, 0 },
	{ "**/*.o", "a/b/c.o", 0, 1 },
	{ "**/foo/", "a/foo", 0, 0 },
	{ "**/foo/", "a/foo", 1, 1 },
	{ "**/foo/bar", "foo/bar", 0, 1 },
	{ "**/foo/bar", "x/y/foo/bar", 0, 1 },
	{ "**/foo/bar", "x/foo/baz", 0, 0 },
	{ "a/**/b", "a/b", 0, 1 },
	{ "a/**/b", "a/x/b", 0, 1 },
	{ "a/**/b", "a/x/y/b", 0, 1 },
	{ "a/**/b", "a/xb", 0, 0 },
	{ "a/**/b", "x/a/b", 0, 0 },
	{ "**", "a/b", 0, 1 },
	/* Elsewhere "**" is '*', which stops at '/'. */
	{ "/a**b", "axxb", 0, 1 },
	{ "/a**b", "ax/b", 0, 0 },
	{ "/a*b", "a/xb", 0, 0 },
	{ "/?x**/b", "ax/y/b", 0, 0 },
	{ "/?x**/b", "ax/b", 0, 1 },
	/* ... except, as in git, right after a literal prefix. */
	{ "/ab**\n!abc/", "abc/def", 0, 1 },
	/* Negation: the last match wins. */
	{ "*.o\n!keep.o", "keep.o", 0, 0 },
	{ "*.o\n!keep.o", "other.o", 0, 1 },
	{ "*.o\n!keep.o", "sub/keep.o", 0, 0 },
	{ "!keep.o\n*.o", "keep.o", 0, 1 },
	{ "!keep.o", "keep.o", 0, 0 },
	/* A parent directory excluded: its files cannot come back. */
	{ "build/\n!build/keep.txt", "build/keep.txt", 0, 1 },
	{ "build/*\n!build/keep.txt", "build/keep.txt", 0, 0 },
	{ "build/*\n!build/keep.txt", "build/other.txt", 0, 1 },
	{ "/*\n!/foo\n/foo/*\n!/foo/bar", "foo", 1, 0 },
	{ "/*\n!/foo\n/foo/*\n!/foo/bar", "foo/bar/x", 0, 0 },
	{ "/*\n!/foo\n/foo/*\n!/foo/bar", "foo/baz", 0, 1 },
	{ "/*\n!/foo\n/foo/*\n!/foo/bar", "other", 0, 1 },
	/* Comments, escapes and blank lines. */
	{ "#file", "#file", 0, 0 },
	{ "\\#file", "#file", 0, 1 },
	{ "\\!imp", "!imp", 0, 1 },
	{ "\\!imp", "imp", 0, 0 },
	{ "\n\n*.o\n\n", "a.o", 0, 1 },
	{ "a\\*b", "a*b", 0, 1 },
	{ "a\\*b", "axb", 0, 0 },
	/* Trailing spaces are dropped unless escaped. */
	{ "foo   ", "foo", 0, 1 },
	{ "foo\\ ", "foo ", 0, 1 },
	{ "foo\\ ", "foo", 0, 0 },
	{ "foo\\  ", "foo ", 0, 1 },
	{ " foo", " foo", 0, 1 },
	{ " foo", "foo", 0, 0 },
	/* Bracket expressions. */
	{ "[abc].txt", "a.txt", 0, 1 },
	{ "[abc].txt", "d.txt", 0, 0 },
	{ "[abc].txt", "ab.txt", 0, 0 },
	{ "[a-c].txt", "b.txt", 0, 1 },
	{ "[!a-c].txt", "d.txt", 0, 1 },
	{ "[!a-c].txt", "b.txt", 0, 0 },
	{ "[^a-c].txt", "d.txt", 0, 1 },
	{ "[]a].txt", "].txt", 0, 1 },
	{ "[a-].txt", "-.txt", 0, 1 },
	{ "[\\]].c", "].c", 0, 1 },
	{ "[[:digit:]].log", "7.log", 0, 1 },
	{ "[[:digit:]].log", "x.log", 0, 0 },
	{ "[[:upper:][:digit:]]x", "Qx", 0, 1 },
	{ "/a[/]b", "a/b", 0, 0 },
	/* '?' is one character, never '/'. */
	{ "?.c", "a.c", 0, 1 },
	{ "?.c", "ab.c", 0, 0 },
	{ "?.c", ".c", 0, 0 },
	{ "/a?b", "a/b", 0, 0 },
	/* Case matters. */
	{ "*.O", "a.o", 0, 0 },
};

/* Per-test state: a private temporary directory, open, and a set. */
struct fx {
	char		 dir[64];
	int		 fd;
	struct ignore	*ig;
};

/* Create the test's directory and a set with the defaults only. */
static int
setup(void **state)
{
	struct fx	*f;
	char		*cause = NULL;

	f = xcalloc(1, sizeof(*f));
	strlcpy(f->dir, "/tmp/test_ignore.XXXXXX", sizeof(f->dir));
	if (mkdtemp(f->dir) == NULL ||
	    (f->fd = open(f->dir, O_RDONLY|O_DIRECTORY)) == -1 ||
	    ignore_new(NULL, 0, &f->ig, &cause) != 0) {
		free(f);
		return -1;
	}
	*state = f;
	return 0;
}

/* Remove the test's directory and everything in it. */
static int
teardown(void **state)
{
	struct fx	*f = *state;
	int		 r;

	ignore_free(f->ig);
	close(f->fd);
	r = tmpdir_remove(f->dir);
	free(f);
	return r == 0 ? 0 : -1;
}

/* Make directory rel (and its parents) in the test's directory. */
static void
make_dir(struct fx *f, const char *rel)
{
	char	*path, *p;

	path = xasprintf("%s/%s", f->dir, rel);
	for (p = path + strlen(f->dir) + 1; (p = strchr(p, '/')) != NULL;
	    p++) {
		*p = '\0';
		(void)mkdir(path, 0755);
		*p = '/';
	}
	(void)mkdir(path, 0755);
	free(path);
}

/* Write len bytes of data to file rel, making its directories. */
static void
put_data(struct fx *f, const char *rel, const char *data, size_t len)
{
	char	*dir, *slash;
	int	 fd;

	dir = xstrdup(rel);
	if ((slash = strrchr(dir, '/')) != NULL) {
		*slash = '\0';
		make_dir(f, dir);
	}
	free(dir);
	fd = openat(f->fd, rel, O_WRONLY|O_CREAT|O_TRUNC, 0644);
	assert_true(fd != -1);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* Write the string text to file rel. */
static void
put_file(struct fx *f, const char *rel, const char *text)
{
	put_data(f, rel, text, strlen(text));
}

/* Load directory rel ("" the root) into f->ig; return the result. */
static int
load_dir(struct fx *f, const char *rel, char **cause)
{
	int	fd, r;

	fd = *rel == '\0' ? dup(f->fd) :
	    openat(f->fd, rel, O_RDONLY|O_DIRECTORY);
	assert_true(fd != -1);
	r = ignore_load_dir(f->ig, fd, rel, cause);
	close(fd);
	return r;
}

/* Load directory rel, expecting success. */
static void
load_ok(struct fx *f, const char *rel)
{
	char	*cause = NULL;

	assert_int_equal(load_dir(f, rel, &cause), 0);
	assert_null(cause);
}

/* Check a failure: r is want and *cause (then freed, NULLed) has fragment. */
static void
check_fail(int r, int want, char **cause, const char *fragment)
{
	assert_int_equal(r, want);
	assert_non_null(*cause);
	assert_non_null(strstr(*cause, fragment));
	free(*cause);
	*cause = NULL;
}

/* One table row: its patterns as configuration lines, then a match. */
static void
test_row(void **state)
{
	const struct row	*row = *state;
	struct ignore		*ig = NULL;
	char			*copy, *p, *lines[8], *cause = NULL;
	size_t			 n = 0;

	copy = xstrdup(row->pats);
	for (p = copy; n < NITEMS(lines); p++) {
		lines[n++] = p;
		if ((p = strchr(p, '\n')) == NULL)
			break;
		*p = '\0';
	}
	assert_int_equal(ignore_new((const char *const *)lines, n, &ig,
	    &cause), 0);
	assert_int_equal(ignore_match(ig, row->path, row->is_dir),
	    row->want);
	ignore_free(ig);
	free(copy);
}

/* A subdirectory's .gitignore applies below it, relative to it, only. */
static void
test_nested_scope(void **state)
{
	struct fx	*f = *state;

	put_file(f, ".gitignore", "*.tmp\n");
	put_file(f, "sub/.gitignore", "*.log\n/only\n");
	make_dir(f, "other");
	load_ok(f, "");
	load_ok(f, "sub");
	load_ok(f, "other");
	assert_int_equal(ignore_match(f->ig, "sub/a.log", 0), 1);
	assert_int_equal(ignore_match(f->ig, "sub/x/y/a.log", 0), 1);
	assert_int_equal(ignore_match(f->ig, "a.log", 0), 0);
	assert_int_equal(ignore_match(f->ig, "other/a.log", 0), 0);
	assert_int_equal(ignore_match(f->ig, "sub/only", 0), 1);
	assert_int_equal(ignore_match(f->ig, "sub/x/only", 0), 0);
	assert_int_equal(ignore_match(f->ig, "only", 0), 0);
	assert_int_equal(ignore_match(f->ig, "sub/a.tmp", 0), 1);
}

/* A deeper file wins: its '!' re-includes what the root excluded. */
static void
test_nested_negation(void **state)
{
	struct fx	*f = *state;

	put_file(f, ".gitignore", "*.log\n");
	put_file(f, "sub/.gitignore", "!keep.log\n");
	load_ok(f, "");
	load_ok(f, "sub");
	assert_int_equal(ignore_match(f->ig, "sub/keep.log", 0), 0);
	assert_int_equal(ignore_match(f->ig, "keep.log", 0), 1);
	assert_int_equal(ignore_match(f->ig, "sub/other.log", 0), 1);
}

/* .clawsshignore is read after .gitignore and can undo it with '!'. */
static void
test_clawsshignore_overrides(void **state)
{
	struct fx	*f = *state;

	put_file(f, ".gitignore", "*.env\nnode_modules/\n");
	put_file(f, ".clawsshignore", "!keep.env\n*.iso\n");
	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, "keep.env", 0), 0);
	assert_int_equal(ignore_match(f->ig, "prod.env", 0), 1);
	assert_int_equal(ignore_match(f->ig, "node_modules", 1), 1);
	assert_int_equal(ignore_match(f->ig, "disk.iso", 0), 1);
}

/* The kinds are judged apart: a root .clawsshignore "!" wins below too. */
static void
test_deeper_beats_clawsshignore(void **state)
{
	struct fx	*f = *state;

	put_file(f, ".clawsshignore", "!*.log\n");
	put_file(f, "sub/.gitignore", "*.log\n");
	load_ok(f, "");
	load_ok(f, "sub");
	/* A user's '!' re-includes whatever a .gitignore says (ignore.h). */
	assert_int_equal(ignore_match(f->ig, "sub/a.log", 0), 0);
	assert_int_equal(ignore_match(f->ig, "a.log", 0), 0);
}

/* A file under an excluded directory stays excluded despite a '!'. */
static void
test_no_reinclude_under_excluded_dir(void **state)
{
	struct fx	*f = *state;

	put_file(f, ".gitignore", "build/\n");
	put_file(f, ".clawsshignore", "!build/keep.txt\n");
	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, "build", 1), 1);
	assert_int_equal(ignore_match(f->ig, "build/keep.txt", 0), 1);
	assert_int_equal(ignore_match(f->ig, "build/sub/keep.txt", 0), 1);
}

/* The same holds when the '!' comes from a file inside that directory. */
static void
test_no_reinclude_from_inside(void **state)
{
	struct fx	*f = *state;

	put_file(f, ".gitignore", "build/\n");
	put_file(f, "build/.gitignore", "!*\n");
	load_ok(f, "");
	load_ok(f, "build");
	assert_int_equal(ignore_match(f->ig, "build/keep.txt", 0), 1);
}

/* Defaults: .git directories and clawssh's temporary files. */
static void
test_defaults(void **state)
{
	struct fx	*f = *state;

	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, ".git", 1), 1);
	assert_int_equal(ignore_match(f->ig, ".git/config", 0), 1);
	assert_int_equal(ignore_match(f->ig, "vendor/lib/.git", 1), 1);
	assert_int_equal(ignore_match(f->ig, ".git", 0), 1);	/* a gitfile */
	assert_int_equal(ignore_match(f->ig, "a/.GIT/x", 0), 1);
	assert_int_equal(ignore_match(f->ig, ".gitignore", 0), 0);
	assert_int_equal(ignore_match(f->ig, ".clawssh-tmp-x", 0), 1);
	assert_int_equal(ignore_match(f->ig, "a/.clawssh-tmp-123", 0), 1);
	assert_int_equal(ignore_match(f->ig, "src/main.c", 0), 0);
}

/*
 * No ignore file and no sync.exclude pattern brings .git back: the sandbox
 * writes the ignore files (before, "!.git/" here put the local .git into
 * the mirror both ways).
 */
static void
test_git_not_reincluded(void **state)
{
	struct fx	*f = *state;

	put_file(f, ".clawsshignore", "!.git/\n!.git\n!.git/**\n");
	put_file(f, ".gitignore", "!.git/\n");
	put_file(f, "sub/.gitignore", "!.git/\n!/.git/hooks/\n");
	load_ok(f, "");
	load_ok(f, "sub");
	assert_int_equal(ignore_match(f->ig, ".git", 1), 1);
	assert_int_equal(ignore_match(f->ig, ".git/config", 0), 1);
	assert_int_equal(ignore_match(f->ig, "sub/.git", 1), 1);
	assert_int_equal(ignore_match(f->ig, "sub/.git/hooks/x", 0), 1);
	assert_int_equal(ignore_match(f->ig, ".clawssh-tmp-x", 0), 1);
}

/*
 * sync.pushGit (ignore_set_push_git): .git is judged by the patterns as
 * any other path, so it goes up unless a pattern excludes it.
 */
static void
test_push_git(void **state)
{
	struct fx	*f = *state;

	put_file(f, ".clawsshignore", ".git/objects/\n");
	load_ok(f, "");
	ignore_set_push_git(f->ig, 1);
	assert_int_equal(ignore_match(f->ig, ".git", 1), 0);
	assert_int_equal(ignore_match(f->ig, ".git/config", 0), 0);
	assert_int_equal(ignore_match(f->ig, ".git/objects/ab", 0), 1);
	assert_int_equal(ignore_match(f->ig, ".clawssh-tmp-x", 0), 1);
	ignore_set_push_git(f->ig, 0);
	assert_int_equal(ignore_match(f->ig, ".git/config", 0), 1);
}

/* Configuration patterns apply from the root, below the files. */
static void
test_config_patterns(void **state)
{
	struct fx	*f = *state;
	const char	*extra[] = { "*.tmp", "/dist", "!.git/", "secret" };
	char		*cause = NULL;

	ignore_free(f->ig);
	f->ig = NULL;
	assert_int_equal(ignore_new(extra, NITEMS(extra), &f->ig, &cause), 0);
	put_file(f, ".gitignore", "!important.tmp\n");
	put_file(f, ".clawsshignore", "!secret\n");
	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, "a/b.tmp", 0), 1);
	assert_int_equal(ignore_match(f->ig, "dist", 1), 1);
	assert_int_equal(ignore_match(f->ig, "a/dist", 1), 0);
	assert_int_equal(ignore_match(f->ig, ".git", 1), 1);	/* no effect */
	/* A .gitignore cannot undo the user's exclusion (ignore.h). */
	assert_int_equal(ignore_match(f->ig, "important.tmp", 0), 1);
	assert_int_equal(ignore_match(f->ig, "secret", 0), 0);
}

/* A malformed configuration pattern is an error naming it. */
static void
test_bad_config_pattern(void **state)
{
	struct ignore	*ig = (struct ignore *)0x1;
	const char	*bad[] = { "ok", "foo[", "[[:nope:]]", "trail\\" };
	const char	*one[1];
	char		*cause = NULL;
	size_t		 i;

	(void)state;
	for (i = 1; i < NITEMS(bad); i++) {
		one[0] = bad[i];
		check_fail(ignore_new(one, 1, &ig, &cause), CLAW_ERR_PARSE,
		    &cause, bad[i]);
		assert_ptr_equal(ig, (struct ignore *)0x1);
	}
	check_fail(ignore_new(bad, 2, &ig, &cause), CLAW_ERR_PARSE, &cause,
	    "'foo[': unterminated");
	assert_ptr_equal(ig, (struct ignore *)0x1);
}

/* In a file, a malformed pattern never matches; the others still do. */
static void
test_bad_file_pattern(void **state)
{
	struct fx	*f = *state;

	put_file(f, ".gitignore", "foo[\nbar\n");
	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, "foo[", 0), 0);
	assert_int_equal(ignore_match(f->ig, "bar", 0), 1);
}

/* A .gitignore that is a symbolic link is skipped. */
static void
test_symlink_skipped(void **state)
{
	struct fx	*f = *state;

	put_file(f, "patterns", "*.o\n");
	assert_int_equal(symlinkat("patterns", f->fd, ".gitignore"), 0);
	put_file(f, ".clawsshignore", "*.a\n");
	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, "x.o", 0), 0);
	assert_int_equal(ignore_match(f->ig, "x.a", 0), 1);
}

/* A .gitignore that is not a regular file is skipped. */
static void
test_directory_skipped(void **state)
{
	struct fx	*f = *state;

	make_dir(f, ".gitignore");
	put_file(f, ".clawsshignore", "*.a\n");
	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, "x.a", 0), 1);
}

/* A file over IGNORE_FILE_MAX is refused, leaving the set unchanged. */
static void
test_huge_refused(void **state)
{
	struct fx	*f = *state;
	char		*data, *cause = NULL;

	data = xmalloc(IGNORE_FILE_MAX + 1);
	memset(data, '#', IGNORE_FILE_MAX + 1);
	memcpy(data, "*.o\n", 4);
	put_file(f, "sub/.gitignore", "*.c\n");
	put_data(f, "sub/.clawsshignore", data, IGNORE_FILE_MAX + 1);
	free(data);
	check_fail(load_dir(f, "sub", &cause), CLAW_ERR_PARSE, &cause,
	    "sub/.clawsshignore: larger than 1 MiB");
	assert_int_equal(ignore_match(f->ig, "sub/x.c", 0), 0);
	assert_int_equal(ignore_match(f->ig, "sub/x.o", 0), 0);
}

/* A file of exactly IGNORE_FILE_MAX bytes is read. */
static void
test_max_size_read(void **state)
{
	struct fx	*f = *state;
	char		*data;

	data = xmalloc(IGNORE_FILE_MAX);
	memset(data, '#', IGNORE_FILE_MAX);
	memcpy(data, "*.o\n", 4);
	data[IGNORE_FILE_MAX - 1] = '\n';
	put_data(f, ".gitignore", data, IGNORE_FILE_MAX);
	free(data);
	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, "x.o", 0), 1);
}

/* A UTF-8 byte order mark and CRLF line ends are dropped. */
static void
test_bom_crlf(void **state)
{
	struct fx	*f = *state;

	put_file(f, ".gitignore", "\xef\xbb\xbf*.o\r\n/build\r\nlast.txt");
	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, "a.o", 0), 1);
	assert_int_equal(ignore_match(f->ig, "build", 1), 1);
	assert_int_equal(ignore_match(f->ig, "last.txt", 0), 1);
}

/* Loading a directory again replaces its patterns. */
static void
test_reload_replaces(void **state)
{
	struct fx	*f = *state;

	put_file(f, ".gitignore", "*.a\n");
	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, "x.a", 0), 1);
	put_file(f, ".gitignore", "*.b\n");
	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, "x.a", 0), 0);
	assert_int_equal(ignore_match(f->ig, "x.b", 0), 1);
	assert_int_equal(unlinkat(f->fd, ".gitignore", 0), 0);
	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, "x.b", 0), 0);
}

/* A parent loaded after its child still applies below the child. */
static void
test_out_of_order_load(void **state)
{
	struct fx	*f = *state;

	put_file(f, "a/.gitignore", "*.x\n");
	put_file(f, "a/b/c/.gitignore", "!keep.x\n");
	put_file(f, ".gitignore", "*.y\n");
	load_ok(f, "a/b/c");
	load_ok(f, "");
	load_ok(f, "a");
	assert_int_equal(ignore_match(f->ig, "a/b/c/keep.x", 0), 0);
	assert_int_equal(ignore_match(f->ig, "a/b/c/other.x", 0), 1);
	assert_int_equal(ignore_match(f->ig, "a/b/c/d/other.y", 0), 1);
	assert_int_equal(ignore_match(f->ig, "a/keep.x", 0), 1);
}

/* Many directories with ignore files: each keeps to its own subtree. */
static void
test_many_scopes(void **state)
{
	struct fx	*f = *state;
	char		 rel[64], path[96];
	int		 i;

	for (i = 0; i < 100; i++) {
		snprintf(rel, sizeof(rel), "d%d", i);
		snprintf(path, sizeof(path), "%s/.gitignore", rel);
		put_file(f, path, "*.x\n");
		load_ok(f, rel);
	}
	for (i = 0; i < 100; i++) {
		snprintf(path, sizeof(path), "d%d/sub/f.x", i);
		assert_int_equal(ignore_match(f->ig, path, 0), 1);
		snprintf(path, sizeof(path), "e%d/f.x", i);
		assert_int_equal(ignore_match(f->ig, path, 0), 0);
	}
}

/* No ignore files: nothing but the defaults. */
static void
test_no_files(void **state)
{
	struct fx	*f = *state;

	make_dir(f, "sub");
	load_ok(f, "");
	load_ok(f, "sub");
	assert_int_equal(ignore_match(f->ig, "sub/a.o", 0), 0);
	assert_int_equal(ignore_match(f->ig, "sub/.git", 1), 1);
}

/* A reldir with a leading or trailing '/' is refused. */
static void
test_bad_reldir(void **state)
{
	struct fx	*f = *state;
	char		*cause = NULL;

	check_fail(ignore_load_dir(f->ig, f->fd, "/abs", &cause),
	    CLAW_ERR_INVAL, &cause, "/abs");
	check_fail(ignore_load_dir(f->ig, f->fd, "sub/", &cause),
	    CLAW_ERR_INVAL, &cause, "sub/");
}

/* The root itself is never excluded, even by "*". */
static void
test_root_kept(void **state)
{
	struct fx	*f = *state;

	put_file(f, ".gitignore", "*\n");
	load_ok(f, "");
	assert_int_equal(ignore_match(f->ig, "", 1), 0);
	assert_int_equal(ignore_match(f->ig, "a", 0), 1);
}

/* ignore_free(NULL) does nothing. */
static void
test_free_null(void **state)
{
	(void)state;
	ignore_free(NULL);
}

/* Return a test name for row: its patterns ('|' between) and its path. */
static char *
row_name(const struct row *row)
{
	char	*name, *p;

	name = xasprintf("row '%s' %s%s -> %d", row->pats, row->path,
	    row->is_dir ? "/" : "", row->want);
	for (p = name; (p = strchr(p, '\n')) != NULL; p++)
		*p = '|';
	return name;
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_free_null),
#define T(fn)	cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_nested_scope),
		T(test_nested_negation),
		T(test_clawsshignore_overrides),
		T(test_deeper_beats_clawsshignore),
		T(test_no_reinclude_under_excluded_dir),
		T(test_no_reinclude_from_inside),
		T(test_defaults),
		T(test_git_not_reincluded),
		T(test_push_git),
		T(test_config_patterns),
		cmocka_unit_test(test_bad_config_pattern),
		T(test_bad_file_pattern),
		T(test_symlink_skipped),
		T(test_directory_skipped),
		T(test_huge_refused),
		T(test_max_size_read),
		T(test_bom_crlf),
		T(test_reload_replaces),
		T(test_out_of_order_load),
		T(test_many_scopes),
		T(test_no_files),
		T(test_bad_reldir),
		T(test_root_kept),
#undef T
	};
	struct CMUnitTest	all[NITEMS(tests) + NITEMS(rows)];
	char			*names[NITEMS(rows)];
	size_t			 i, n = NITEMS(tests);
	int			 r;

	memcpy(all, tests, sizeof(tests));
	for (i = 0; i < NITEMS(rows); i++, n++) {
		names[i] = row_name(&rows[i]);
		all[n] = (struct CMUnitTest)cmocka_unit_test(test_row);
		all[n].name = names[i];
		all[n].initial_state = (void *)(uintptr_t)&rows[i];
	}
	r = _cmocka_run_group_tests("test_ignore", all, n, NULL, NULL);
	for (i = 0; i < NITEMS(rows); i++)
		free(names[i]);
	return r;
}
