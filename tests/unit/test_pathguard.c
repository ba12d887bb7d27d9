/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for pathguard: the name and link rules, escaping, opening the
 * root, writing files, and writes against hostile layouts (symbolic links
 * planted inside and outside the workspace, files in the way, bad names).
 * The tests that resolve paths run twice (see pathguard_fixture.h): once
 * with openat2(2) and once with the O_NOFOLLOW walk forced.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/openat2.h>

#include <cmocka.h>

#include "error.h"
#include "pathguard.h"
#include "pathguard_fixture.h"
#include "xmalloc.h"

/* --- syntax ------------------------------------------------------------ */

/* Return a string of n copies of c (allocated). */
static char *
repeat(int c, size_t n)
{
	char	*s = xmalloc(n + 1);

	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* Return a path of total bytes made of 200-byte components (allocated). */
static char *
long_path(size_t total)
{
	char	*s = repeat('a', total);
	size_t	 i;

	for (i = 200; i < total; i += 201)
		s[i] = '/';
	if (s[total - 1] == '/')
		s[total - 1] = 'b';
	return s;
}

/* Names that pass and names that do not. */
static void
t_name_check(void **state)
{
	static const char *const good[] = { "a", "a/b", "a/b/c", ".a",
	    "..a", "a..", "a/.b", "...", "a b", "\xc3\xa9t\xc3\xa9", "-x",
	    ".clawssh-tmp-x", NULL };
	static const char *const bad[] = { "", "/", "/a", "..", ".", "a/..",
	    "../a", "a/../b", "a/./b", "./a", "a//b", "a/", "//", "a\nb",
	    "a\tb", "a\x7f", "\x01", "a/b\x1b[2J", NULL };
	char	*s, *cause;
	int	 i;

	for (i = 0; good[i] != NULL; i++) {
		cause = NULL;
		if (pathguard_name_check(good[i], &cause) != 0)
			fail_msg("refused \"%s\": %s", good[i], cause);
	}
	for (i = 0; bad[i] != NULL; i++) {
		cause = NULL;
		if (pathguard_name_check(bad[i], &cause) != CLAW_ERR_INVAL)
			fail_msg("accepted \"%s\"", bad[i]);
		assert_non_null(cause);
		free(cause);
	}
	assert_int_equal(pathguard_name_check(NULL, NULL), CLAW_ERR_INVAL);
	s = repeat('n', 255);
	assert_int_equal(pathguard_name_check(s, NULL), 0);
	free(s);
	s = repeat('n', 256);
	assert_int_equal(pathguard_name_check(s, NULL), CLAW_ERR_INVAL);
	free(s);
	s = long_path(4095);
	assert_int_equal(pathguard_name_check(s, NULL), 0);
	free(s);
	s = long_path(4096);
	assert_int_equal(pathguard_name_check(s, NULL), CLAW_ERR_INVAL);
	free(s);
}

/* Refusals name the entry, escaped, and say why. */
static void
t_name_check_messages(void **state)
{
	char	*cause = NULL;

	assert_int_equal(pathguard_name_check("a\nb\x1b", &cause),
	    CLAW_ERR_INVAL);
	assert_string_equal(cause, "a\\nb\\x1b: control character in path");
	free(cause);
	assert_int_equal(pathguard_name_check("a/../b", &cause),
	    CLAW_ERR_INVAL);
	assert_string_equal(cause, "a/../b: \".\" or \"..\" component");
	free(cause);
	assert_int_equal(pathguard_name_check("/etc/passwd", &cause),
	    CLAW_ERR_INVAL);
	assert_string_equal(cause, "/etc/passwd: absolute path");
	free(cause);
	assert_int_equal(pathguard_name_check("a//b", &cause),
	    CLAW_ERR_INVAL);
	assert_string_equal(cause, "a//b: empty path component");
	free(cause);
}

struct link_case {
	const char	*rel;
	const char	*target;
	int		 ok;
};

/* The symbolic link rule, case by case. */
static void
t_link_check(void **state)
{
	static const struct link_case cases[] = {
		{ "a/b/l", "../x", 1 }, { "a/b/l", "../../x", 1 },
		{ "a/b/l", "../../../x", 0 }, { "a/b/l", "x/../y", 0 },
		{ "a/b/l", "/etc", 0 }, { "a/b/l", ".", 1 },
		{ "a/b/l", "", 0 }, { "a/b/l", "./x", 1 },
		{ "a/b/l", "a/./b", 1 }, { "a/b/l", "..", 1 },
		{ "a/b/l", "../..", 1 }, { "a/b/l", "../../..", 0 },
		{ "a/b/l", "x/..", 0 }, { "a/b/l", "..//x", 1 },
		{ "a/b/l", "../x/", 1 }, { "a/b/l", "./../x", 1 },
		{ "a/b/l", "../a/../b", 0 }, { "a/b/l", "...", 1 },
		{ "a/b/l", "..a/b", 1 }, { "a/b/l", "x\ny", 0 },
		{ "a/b/l", "x\x7f", 0 }, { "a/b/l", "/", 0 },
		{ "a/b/l", "../../x/y/z", 1 }, { "a/b/l", "x/y/../../..", 0 },
		{ "l", "..", 0 }, { "l", "../x", 0 }, { "l", "x", 1 },
		{ "l", ".", 1 }, { "l", "./x/y", 1 }, { "l", "./..", 0 },
		{ "a/b/c/d/e/l", "../../../../../x", 1 },
		{ "a/b/c/d/e/l", "../../../../../../x", 0 },
		{ "a/b/c/d/e/l", "../../../../../a/b/c/d/e/l", 1 },
		{ "../l", "x", 0 }, { "/l", "x", 0 }, { "a//l", "x", 0 },
		{ NULL, NULL, 0 }
	};
	const struct link_case	*c;
	char			*cause, *s;
	int			 r;

	for (c = cases; c->rel != NULL; c++) {
		cause = NULL;
		r = pathguard_link_check(c->rel, c->target, &cause);
		if (c->ok && r != 0)
			fail_msg("%s -> %s refused: %s", c->rel, c->target,
			    cause);
		if (!c->ok && r != CLAW_ERR_INVAL)
			fail_msg("%s -> %s accepted", c->rel, c->target);
		free(cause);
	}
	assert_int_equal(pathguard_link_check("l", NULL, NULL),
	    CLAW_ERR_INVAL);
	s = repeat('x', 256);
	assert_int_equal(pathguard_link_check("l", s, NULL), CLAW_ERR_INVAL);
	free(s);
	s = long_path(4096);
	assert_int_equal(pathguard_link_check("l", s, NULL), CLAW_ERR_INVAL);
	free(s);
	assert_int_equal(pathguard_link_check("a/b/l", "../../../x", &cause),
	    CLAW_ERR_INVAL);
	assert_string_equal(cause,
	    "a/b/l: link target ../../../x: climbs above the workspace root");
	free(cause);
}

/* Escaped forms for messages. */
static void
t_escape(void **state)
{
	static const char *const cases[][2] = {
		{ "plain/name", "plain/name" },
		{ "a\nb\tc\\d", "a\\nb\\tc\\\\d" },
		{ "\x01\x7f\x1b", "\\x01\\x7f\\x1b" },
		{ "\xc2\x9b" "2J", "\\xc2\\x9b2J" },
		{ "\xc3\xa9", "\xc3\xa9" },
		{ "", "" },
	};
	char	*s, *e, *want;
	size_t	 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		e = pathguard_escape(cases[i][0]);
		assert_string_equal(e, cases[i][1]);
		free(e);
	}
	e = pathguard_escape(NULL);
	assert_string_equal(e, "(null)");
	free(e);
	s = repeat('a', 500);
	e = pathguard_escape(s);
	want = xasprintf("%.200s...", s);
	assert_string_equal(e, want);
	free(want);
	free(e);
	free(s);
	s = repeat('\001', 100);
	e = pathguard_escape(s);
	assert_int_equal(strlen(e), 50 * 4 + 3);
	assert_string_equal(e + 200, "...");
	free(e);
	free(s);
}

/* --- opening ----------------------------------------------------------- */

/* The resolver in use is the one the group asked for. */
static void
t_resolver(void **state)
{
	struct open_how	how = { .flags = O_PATH | O_DIRECTORY,
			    .resolve = RESOLVE_BENEATH };
	int		fd;

	fd = (int)syscall(SYS_openat2, AT_FDCWD, ".", &how, sizeof how);
	if (pf_walk_forced || fd == -1)
		assert_string_equal(pathguard_resolver(), "walk");
	else
		assert_string_equal(pathguard_resolver(), "openat2");
	if (fd != -1)
		close(fd);
}

/* Opening finds the real path; bad roots are refused. */
static void
t_open(void **state)
{
	struct fx		*fx = *state;
	struct pathguard	*pg = NULL;
	char			*cause = NULL, *real;

	real = realpath(fx->ws, NULL);
	assert_string_equal(pathguard_root(fx->pg), real);
	free(real);
	assert_int_equal(symlink(fx->ws, pf_at(fx->top, "wslink")), 0);
	assert_int_equal(pathguard_open(pf_at(fx->top, "wslink"), &pg, &cause),
	    0);
	assert_string_equal(pathguard_root(pg), pathguard_root(fx->pg));
	pathguard_close(pg);
	pg = NULL;
	assert_int_equal(pathguard_open(pf_at(fx->top, "nope"), &pg, &cause),
	    CLAW_ERR_NOTFOUND);
	assert_null(pg);
	pf_cause(cause, "cannot resolve workspace root");
	assert_int_equal(close(open(pf_at(fx->top, "file"), O_CREAT | O_WRONLY,
	    0600)), 0);
	assert_int_equal(pathguard_open(pf_at(fx->top, "file"), &pg, &cause),
	    CLAW_ERR_IO);
	pf_cause(cause, "cannot open workspace root");
	pathguard_close(NULL);
	assert_int_equal(pathguard_check_root(fx->pg, NULL), 0);
}

/* --- writing ----------------------------------------------------------- */

/* A new file gets its parents, content, stripped mode and time. */
static void
t_write_new(void **state)
{
	struct fx	*fx = *state;
	struct timespec	 mt = { 1234567890, 123456789 };
	struct stat	 st;
	char		*cause = NULL;

	assert_int_equal(pf_put(fx, "a/b/f", "hello", 04755, &mt, &cause), 0);
	assert_null(cause);
	pf_content(pf_at(fx->ws, "a/b/f"), "hello");
	assert_int_equal(lstat(pf_at(fx->ws, "a/b/f"), &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(st.st_mtim.tv_sec, mt.tv_sec);
	assert_int_equal(st.st_mtim.tv_nsec, mt.tv_nsec);
	assert_true(S_ISDIR(pf_mode(pf_at(fx->ws, "a/b"))));
	assert_int_equal(pf_put(fx, "g", "x", 06777, NULL, &cause), 0);
	assert_int_equal(pf_mode(pf_at(fx->ws, "g")) & 07777, 0777);
	assert_int_equal(pf_count(pf_at(fx->ws, "a/b")), 1);
	assert_int_equal(pf_count(fx->out), 0);
}

/* Committing over a file replaces it in one step. */
static void
t_write_replace(void **state)
{
	struct fx	*fx = *state;
	struct stat	 before, after;
	char		*tmp, *cause = NULL, buf[8];
	int		 fd, old;

	pf_put_ok(fx, "f", "old");
	assert_int_equal(lstat(pf_at(fx->ws, "f"), &before), 0);
	assert_true((old = open(pf_at(fx->ws, "f"), O_RDONLY)) != -1);
	assert_int_equal(pathguard_write_begin(fx->pg, "f", &fd, &tmp,
	    &cause), 0);
	assert_int_equal(strncmp(tmp, PATHGUARD_TMP_PREFIX,
	    strlen(PATHGUARD_TMP_PREFIX)), 0);
	assert_int_equal(write(fd, "new", 3), 3);
	pf_content(pf_at(fx->ws, "f"), "old");
	assert_int_equal(pathguard_write_commit(fx->pg, "f", tmp, fd, 0600,
	    NULL, &cause), 0);
	pf_content(pf_at(fx->ws, "f"), "new");
	assert_int_equal(lstat(pf_at(fx->ws, "f"), &after), 0);
	assert_true(before.st_ino != after.st_ino);
	assert_int_equal(read(old, buf, sizeof buf), 3);
	assert_memory_equal(buf, "old", 3);
	close(old);
	pf_absent(pf_at(fx->ws, tmp));
	assert_int_equal(pf_count(fx->ws), 1);
	free(tmp);
}

/* A directory at the target is never replaced by a file. */
static void
t_write_over_dir(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;

	assert_int_equal(pathguard_mkdirs(fx->pg, "d/sub", 0755, &cause), 0);
	assert_int_equal(pf_put(fx, "d", "x", 0644, NULL, &cause),
	    CLAW_ERR_EXISTS);
	pf_cause(cause, "d: is a directory");
	assert_true(S_ISDIR(pf_mode(pf_at(fx->ws, "d"))));
	assert_int_equal(pathguard_mkdirs(fx->pg, "e", 0755, &cause), 0);
	assert_int_equal(pf_put(fx, "e", "x", 0644, NULL, &cause),
	    CLAW_ERR_EXISTS);
	pf_cause(cause, "is a directory");
	assert_true(S_ISDIR(pf_mode(pf_at(fx->ws, "e"))));
	assert_int_equal(pf_count(fx->ws), 2);
}

/* Committing over a FIFO replaces the FIFO; it is never opened. */
static void
t_write_over_fifo(void **state)
{
	struct fx	*fx = *state;

	assert_int_equal(mkfifo(pf_at(fx->ws, "ff"), 0644), 0);
	alarm(10);
	pf_put_ok(fx, "ff", "data");
	alarm(0);
	assert_true(S_ISREG(pf_mode(pf_at(fx->ws, "ff"))));
	pf_content(pf_at(fx->ws, "ff"), "data");
}

/* Abort removes the temporary file; bad temporary names are refused. */
static void
t_write_abort(void **state)
{
	struct fx	*fx = *state;
	char		*tmp, *cause = NULL;
	int		 fd;

	assert_int_equal(pathguard_write_begin(fx->pg, "a/f", &fd, &tmp,
	    &cause), 0);
	assert_int_equal(pf_count(pf_at(fx->ws, "a")), 1);
	assert_int_equal(pathguard_write_commit(fx->pg, "a/f", "../x", fd,
	    0644, NULL, &cause), CLAW_ERR_INVAL);
	pf_cause(cause, "invalid temporary file name");
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(pathguard_write_abort(fx->pg, "a/f", "x/y", -1),
	    CLAW_ERR_INVAL);
	assert_int_equal(pathguard_write_abort(fx->pg, "a/f", tmp, -1), 0);
	assert_int_equal(pf_count(pf_at(fx->ws, "a")), 0);
	assert_int_equal(pathguard_write_abort(fx->pg, "a/f", tmp, -1), 0);
	free(tmp);
	assert_int_equal(pathguard_write_begin(fx->pg, "g", &fd, &tmp,
	    &cause), 0);
	assert_int_equal(pathguard_write_abort(fx->pg, "g", tmp, fd), 0);
	assert_int_equal(pf_count(fx->ws), 1);
	free(tmp);
}

/* --- hostile layouts --------------------------------------------------- */

/* A parent that is a link to an outside directory is refused. */
static void
t_link_parent_outside(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;

	assert_int_equal(symlink(fx->out, pf_at(fx->ws, "a")), 0);
	assert_int_equal(pf_put(fx, "a/b/f", "evil", 0644, NULL, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "a/b/f: goes through a symbolic link at a");
	assert_int_equal(pf_put(fx, "a/f", "evil", 0644, NULL, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "goes through a symbolic link");
	assert_int_equal(pathguard_mkdirs(fx->pg, "a/b", 0755, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link");
	assert_int_equal(pathguard_symlink(fx->pg, "a/l", "x", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link");
	assert_int_equal(pf_count(fx->out), 0);
	assert_int_equal(pf_count(fx->ws), 1);
}

/* A parent that is a link to a directory inside is refused all the same. */
static void
t_link_parent_inside(void **state)
{
	struct fx	*fx = *state;
	struct stat	 st;
	char		*cause = NULL;

	assert_int_equal(pathguard_mkdirs(fx->pg, "real/sub", 0755, &cause),
	    0);
	assert_int_equal(symlink("real", pf_at(fx->ws, "a")), 0);
	assert_int_equal(pf_put(fx, "a/f", "x", 0644, NULL, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link");
	assert_int_equal(pf_put(fx, "a/sub/f", "x", 0644, NULL, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link at a");
	assert_int_equal(pathguard_lstat(fx->pg, "a/sub", &st, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link");
	assert_int_equal(pathguard_set_meta(fx->pg, "a/sub", 0700, NULL,
	    &cause), CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link");
	assert_int_equal(pf_count(pf_at(fx->ws, "real")), 1);
}

/* A directory, then a link of the same name, then a file under it. */
static void
t_dir_then_link(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;

	assert_int_equal(pathguard_mkdirs(fx->pg, "a", 0755, &cause), 0);
	assert_int_equal(pathguard_symlink(fx->pg, "a", fx->out, &cause),
	    CLAW_ERR_INVAL);
	pf_cause(cause, "absolute");
	assert_int_equal(pathguard_symlink(fx->pg, "a", "x", &cause),
	    CLAW_ERR_EXISTS);
	pf_cause(cause, "a: is a directory");
	assert_true(S_ISDIR(pf_mode(pf_at(fx->ws, "a"))));
	pf_put_ok(fx, "a/f", "inside");
	pf_content(pf_at(fx->ws, "a/f"), "inside");
	assert_true(S_ISREG(pf_mode(pf_at(fx->ws, "a/f"))));
	assert_int_equal(pf_count(fx->ws), 1);
	assert_int_equal(pf_count(fx->out), 0);
}

/* Links planted earlier are never followed by a later write. */
static void
t_planted_link(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;

	assert_int_equal(symlink(fx->out, pf_at(fx->ws, "p")), 0);
	assert_int_equal(pf_put(fx, "p/f", "evil", 0644, NULL, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link");
	assert_int_equal(symlink("nowhere/deeper", pf_at(fx->ws, "q")), 0);
	assert_int_equal(pf_put(fx, "q/f", "evil", 0644, NULL, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link");
	assert_int_equal(pathguard_mkdirs(fx->pg, "q/d", 0755, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link");
	pf_absent(pf_at(fx->ws, "nowhere"));
	assert_int_equal(pathguard_mkdirs(fx->pg, "d/e", 0755, &cause), 0);
	assert_int_equal(symlink(fx->out, pf_at(fx->ws, "d/e/x")), 0);
	assert_int_equal(pf_put(fx, "d/e/x/f", "evil", 0644, NULL, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link at d/e/x");
	pf_put_ok(fx, "d/e/x", "replaces the link");
	assert_true(S_ISREG(pf_mode(pf_at(fx->ws, "d/e/x"))));
	assert_int_equal(pf_count(fx->out), 0);
}

/* A regular file where a directory is needed is refused. */
static void
t_file_in_the_way(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;

	pf_put_ok(fx, "f", "x");
	assert_int_equal(pf_put(fx, "f/g", "x", 0644, NULL, &cause),
	    CLAW_ERR_EXISTS);
	pf_cause(cause, "f/g: not a directory: f");
	assert_int_equal(pathguard_mkdirs(fx->pg, "f/g/h", 0755, &cause),
	    CLAW_ERR_EXISTS);
	pf_cause(cause, "not a directory: f");
	assert_int_equal(pathguard_mkdirs(fx->pg, "f", 0755, &cause),
	    CLAW_ERR_EXISTS);
	pf_cause(cause, "not a directory");
	assert_true(S_ISREG(pf_mode(pf_at(fx->ws, "f"))));
}

/* Bad names are refused by every operation before anything happens. */
static void
t_bad_names(void **state)
{
	struct fx	*fx = *state;
	struct stat	 st;
	char		*cause = NULL, *tmp = NULL;
	int		 fd = -1;

	assert_int_equal(pathguard_write_begin(fx->pg, "../x", &fd, &tmp,
	    &cause), CLAW_ERR_INVAL);
	pf_cause(cause, "../x");
	assert_int_equal(fd, -1);
	assert_null(tmp);
	assert_int_equal(pathguard_mkdirs(fx->pg, "/etc", 0755, NULL),
	    CLAW_ERR_INVAL);
	assert_int_equal(pathguard_unlink(fx->pg, "a/../b", NULL),
	    CLAW_ERR_INVAL);
	assert_int_equal(pathguard_remove_tree(fx->pg, "", NULL),
	    CLAW_ERR_INVAL);
	assert_int_equal(pathguard_lstat(fx->pg, ".", &st, NULL),
	    CLAW_ERR_INVAL);
	assert_int_equal(pathguard_set_meta(fx->pg, "a//b", 0, NULL, NULL),
	    CLAW_ERR_INVAL);
	assert_int_equal(pathguard_rename(fx->pg, "f", "../f", NULL),
	    CLAW_ERR_INVAL);
	assert_int_equal(pathguard_symlink(fx->pg, "a\n", "x", NULL),
	    CLAW_ERR_INVAL);
	assert_int_equal(pf_count(fx->ws), 0);
	assert_int_equal(pf_count(fx->top), 2);
}


int
main(void)
{
	const struct CMUnitTest syntax[] = {
		cmocka_unit_test(t_name_check),
		cmocka_unit_test(t_name_check_messages),
		cmocka_unit_test(t_link_check),
		cmocka_unit_test(t_escape),
	};
	const struct CMUnitTest resolve[] = {
		PF_TEST(t_resolver), PF_TEST(t_open), PF_TEST(t_write_new),
		PF_TEST(t_write_replace), PF_TEST(t_write_over_dir),
		PF_TEST(t_write_over_fifo), PF_TEST(t_write_abort),
		PF_TEST(t_link_parent_outside), PF_TEST(t_link_parent_inside),
		PF_TEST(t_dir_then_link), PF_TEST(t_planted_link),
		PF_TEST(t_file_in_the_way), PF_TEST(t_bad_names),
	};
	int	fails;

	fails = cmocka_run_group_tests_name("syntax", syntax, NULL, NULL);
	fails += pf_run("write", resolve, PF_NITEMS(resolve));
	return fails == 0 ? 0 : 1;
}
