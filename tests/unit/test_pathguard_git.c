/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for pathguard's protection of .git: no call that changes the
 * tree creates, writes, renames, removes or touches anything named .git
 * (in any case, at any depth), no link may point into one, and a removed
 * tree keeps the .git it holds.  Before this protection every one of these
 * calls went ahead.  Each runs twice (see pathguard_fixture.h): with
 * openat2(2) and with the walk.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

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

#include <cmocka.h>

#include "error.h"
#include "pathguard.h"
#include "pathguard_fixture.h"
#include "xmalloc.h"

#define GIT_WHY	"a .git is never changed by clawssh"

/* Make ws/.git/config ("[core]") and ws/sub/.git/HEAD directly. */
static void
make_gits(struct fx *fx)
{
	int	fd;

	assert_int_equal(mkdir(pf_at(fx->ws, ".git"), 0755), 0);
	assert_int_equal(mkdir(pf_at(fx->ws, "sub"), 0755), 0);
	assert_int_equal(mkdir(pf_at(fx->ws, "sub/.git"), 0755), 0);
	fd = open(pf_at(fx->ws, ".git/config"), O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "[core]", 6), 6);
	close(fd);
	fd = open(pf_at(fx->ws, "sub/.git/HEAD"), O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
}

/* pathguard_name_protected: a .git component, in any case, anywhere. */
static void
t_name_protected(void **state)
{
	(void)state;
	assert_int_equal(pathguard_name_protected(".git"), 1);
	assert_int_equal(pathguard_name_protected(".git/config"), 1);
	assert_int_equal(pathguard_name_protected("a/.git"), 1);
	assert_int_equal(pathguard_name_protected("a/b/.git/hooks/x"), 1);
	assert_int_equal(pathguard_name_protected(".GIT/config"), 1);
	assert_int_equal(pathguard_name_protected("a/.Git"), 1);
	assert_int_equal(pathguard_name_protected(".gitignore"), 0);
	assert_int_equal(pathguard_name_protected("a/.gitmodules"), 0);
	assert_int_equal(pathguard_name_protected("git"), 0);
	assert_int_equal(pathguard_name_protected("x.git"), 0);
	assert_int_equal(pathguard_name_protected(".git2/x"), 0);
	assert_int_equal(pathguard_name_protected("a/.gi"), 0);
	assert_int_equal(pathguard_name_protected(""), 0);
	assert_int_equal(pathguard_name_protected(NULL), 0);
}

/* Writing a file into .git, or over a .git file, is refused. */
static void
t_write_refused(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL, *tmp = NULL;
	int		 fd = -1;

	make_gits(fx);
	assert_int_equal(pf_put(fx, ".git/config", "evil", 0644, NULL,
	    &cause), CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	assert_int_equal(pf_put(fx, ".git/hooks/post-checkout", "evil",
	    0755, NULL, &cause), CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	assert_int_equal(pf_put(fx, "sub/.GIT/HEAD", "x", 0644, NULL,
	    &cause), CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	assert_int_equal(pathguard_write_begin(fx->pg, "new/.git", &fd, &tmp,
	    &cause), CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	assert_int_equal(fd, -1);
	assert_null(tmp);
	pf_content(pf_at(fx->ws, ".git/config"), "[core]");
	assert_int_equal(pf_count(pf_at(fx->ws, ".git")), 1);
	pf_absent(pf_at(fx->ws, "new"));
}

/* A commit of a temporary file onto a .git name is refused too. */
static void
t_commit_refused(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL, *tmp = NULL;
	int		 fd = -1;

	make_gits(fx);
	assert_int_equal(pathguard_write_begin(fx->pg, "f", &fd, &tmp,
	    &cause), 0);
	assert_int_equal(pathguard_write_commit(fx->pg, ".git", tmp, fd,
	    0644, NULL, &cause), CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	assert_true(S_ISDIR(pf_mode(pf_at(fx->ws, ".git"))));
	assert_int_equal(pathguard_write_abort(fx->pg, "f", tmp, -1), 0);
	free(tmp);
}

/* Directories, links, metadata and renames in or of .git are refused. */
static void
t_change_refused(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;
	mode_t		 before;

	make_gits(fx);
	pf_put_ok(fx, "f", "x");
	assert_int_equal(pathguard_mkdirs(fx->pg, ".git/hooks", 0755,
	    &cause), CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	assert_int_equal(pathguard_mkdirs(fx->pg, "a/.git", 0755, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	pf_absent(pf_at(fx->ws, "a"));
	assert_int_equal(pathguard_symlink(fx->pg, ".git/x", "y", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	before = pf_mode(pf_at(fx->ws, ".git"));
	assert_int_equal(pathguard_set_meta(fx->pg, ".git", 0777, NULL,
	    &cause), CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	assert_int_equal(pf_mode(pf_at(fx->ws, ".git")), before);
	assert_int_equal(pathguard_rename(fx->pg, "f", ".git/config",
	    &cause), CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	assert_int_equal(pathguard_rename(fx->pg, ".git", "g", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	pf_content(pf_at(fx->ws, ".git/config"), "[core]");
	pf_content(pf_at(fx->ws, "f"), "x");
}

/* Unlinking or removing .git, or a file in it, is refused. */
static void
t_remove_refused(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;

	make_gits(fx);
	assert_int_equal(pathguard_unlink(fx->pg, ".git/config", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	assert_int_equal(pathguard_remove_tree(fx->pg, ".git", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	assert_int_equal(pathguard_remove_tree(fx->pg, "sub/.Git", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, GIT_WHY);
	pf_content(pf_at(fx->ws, ".git/config"), "[core]");
	pf_content(pf_at(fx->ws, "sub/.git/HEAD"), "");
}

/*
 * Removing a tree that holds a .git (a nested clone, a submodule) removes
 * the rest, keeps the .git and the directories holding it, and says so.
 */
static void
t_remove_tree_keeps_git(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;

	make_gits(fx);
	pf_put_ok(fx, "sub/a", "a");
	pf_put_ok(fx, "sub/d/b", "b");
	assert_int_equal(mkdir(pf_at(fx->ws, "sub/d/e"), 0755), 0);
	assert_int_equal(mkdir(pf_at(fx->ws, "sub/d/e/.git"), 0755), 0);
	assert_int_equal(pathguard_remove_tree(fx->pg, "sub", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "sub: holds a .git, which is never removed");
	pf_content(pf_at(fx->ws, "sub/.git/HEAD"), "");
	assert_true(S_ISDIR(pf_mode(pf_at(fx->ws, "sub/d/e/.git"))));
	pf_absent(pf_at(fx->ws, "sub/a"));
	pf_absent(pf_at(fx->ws, "sub/d/b"));
	assert_int_equal(pf_count(pf_at(fx->ws, "sub")), 2);
	assert_int_equal(pf_count(pf_at(fx->ws, "sub/d")), 1);
	/* without a .git, a tree goes whole, as before */
	pf_put_ok(fx, "plain/x/y", "y");
	assert_int_equal(pathguard_remove_tree(fx->pg, "plain", &cause), 0);
	pf_absent(pf_at(fx->ws, "plain"));
}

/* No link may point into .git, however the target is spelt. */
static void
t_link_into_git(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;

	make_gits(fx);
	assert_int_equal(pathguard_link_check("cfg.txt", ".git/config",
	    &cause), CLAW_ERR_INVAL);
	pf_cause(cause, "leads into .git");
	assert_int_equal(pathguard_link_check("a/l", "../.GIT", &cause),
	    CLAW_ERR_INVAL);
	pf_cause(cause, "leads into .git");
	assert_int_equal(pathguard_link_check("a/l", "./sub/.git/x",
	    &cause), CLAW_ERR_INVAL);
	pf_cause(cause, "leads into .git");
	assert_int_equal(pathguard_symlink(fx->pg, "cfg.txt", ".git/config",
	    &cause), CLAW_ERR_INVAL);
	pf_cause(cause, "leads into .git");
	pf_absent(pf_at(fx->ws, "cfg.txt"));
	assert_int_equal(pathguard_link_check("l", ".gitignore", NULL), 0);
	assert_int_equal(pathguard_link_check("l", "x.git/y", NULL), 0);
}

/* Reading .git stays allowed: only changes are refused. */
static void
t_read_allowed(void **state)
{
	struct fx	*fx = *state;
	struct stat	 st;
	char		*cause = NULL;
	int		 fd = -1;

	make_gits(fx);
	assert_int_equal(pathguard_lstat(fx->pg, ".git/config", &st,
	    &cause), 0);
	assert_int_equal(pathguard_open_read(fx->pg, ".git/config", &fd,
	    &cause), 0);
	close(fd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		PF_TEST(t_name_protected), PF_TEST(t_write_refused),
		PF_TEST(t_commit_refused), PF_TEST(t_change_refused),
		PF_TEST(t_remove_refused), PF_TEST(t_remove_tree_keeps_git),
		PF_TEST(t_link_into_git), PF_TEST(t_read_allowed),
	};

	return pf_run("git", tests, PF_NITEMS(tests)) == 0 ? 0 : 1;
}
