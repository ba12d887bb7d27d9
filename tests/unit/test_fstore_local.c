/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the local file tools' protection of .git: a write, an
 * edit (a whole new content) or a removal never changes .git, neither by
 * its name nor through a symbolic link the sandbox made (cfg.txt ->
 * .git/config, pulled down before links into .git were refused).  Before,
 * the write of cfg.txt followed the link and replaced .git/config.  Each
 * runs twice: with openat2(2) (links inside are followed) and with the
 * walk (no link is followed: the link itself is replaced).
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
#include "fstore.h"
#include "pathguard.h"
#include "pathguard_fixture.h"
#include "xmalloc.h"

#define CONFIG	"[core]\n\tbare = false\n"

/* Make ws/.git/config, cfg.txt -> .git/config, g -> .git, real.txt. */
static void
plant(struct fx *fx)
{
	int	fd;

	assert_int_equal(mkdir(pf_at(fx->ws, ".git"), 0755), 0);
	fd = open(pf_at(fx->ws, ".git/config"), O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, CONFIG, strlen(CONFIG)),
	    (ssize_t)strlen(CONFIG));
	close(fd);
	assert_int_equal(symlink(".git/config", pf_at(fx->ws, "cfg.txt")), 0);
	assert_int_equal(symlink(".git", pf_at(fx->ws, "g")), 0);
	pf_put_ok(fx, "real.txt", "real\n");
	assert_int_equal(symlink("real.txt", pf_at(fx->ws, "l")), 0);
}

/* Commit one change of path: data (NULL: remove); the result, *cause. */
static int
commit1(struct fx *fx, const char *path, const char *data, char **cause)
{
	struct fstore		*fs = fstore_local(fx->pg);
	struct fstore_change	 c;
	int			 r;

	memset(&c, 0, sizeof c);
	c.path = path;
	c.data = data;
	c.len = data != NULL ? strlen(data) : 0;
	c.mode = -1;
	*cause = NULL;
	r = fstore_commit(fs, &c, 1, cause);
	fstore_free(fs);
	return r;
}

/* Writing through cfg.txt -> .git/config leaves .git/config as it was. */
static void
t_write_through_link(void **state)
{
	struct fx	*fx = *state;
	char		*cause;
	int		 r;

	plant(fx);
	r = commit1(fx, "cfg.txt", "[core]\n\tfsmonitor = evil\n", &cause);
	if (!pf_walk_forced) {
		assert_int_equal(r, CLAW_ERR_PERM);
		pf_cause(cause, "cfg.txt: leads into .git (.git/config)");
		assert_true(S_ISLNK(pf_mode(pf_at(fx->ws, "cfg.txt"))));
	} else {			/* the link itself was replaced */
		assert_int_equal(r, 0);
		assert_true(S_ISREG(pf_mode(pf_at(fx->ws, "cfg.txt"))));
	}
	pf_content(pf_at(fx->ws, ".git/config"), CONFIG);
	assert_int_equal(pf_count(pf_at(fx->ws, ".git")), 1);
}

/* A directory link to .git is no way in either. */
static void
t_write_through_dir_link(void **state)
{
	struct fx	*fx = *state;
	char		*cause;

	plant(fx);
	assert_int_equal(commit1(fx, "g/config", "evil", &cause),
	    CLAW_ERR_PERM);
	free(cause);
	assert_int_equal(commit1(fx, "g/hooks/pre-commit", "evil", &cause),
	    CLAW_ERR_PERM);
	free(cause);
	pf_content(pf_at(fx->ws, ".git/config"), CONFIG);
	pf_absent(pf_at(fx->ws, ".git/hooks"));
}

/* .git by its own name, in any case, is refused with a clear message. */
static void
t_write_git_by_name(void **state)
{
	struct fx	*fx = *state;
	char		*cause;

	plant(fx);
	assert_int_equal(commit1(fx, ".git/config", "evil", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, ".git/config: inside .git: the file tools never "
	    "change .git");
	assert_int_equal(commit1(fx, "/workspace/.GIT/config", "evil",
	    &cause), CLAW_ERR_PERM);
	pf_cause(cause, "inside .git");
	assert_int_equal(commit1(fx, "sub/.git/HEAD", "evil", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "inside .git");
	pf_content(pf_at(fx->ws, ".git/config"), CONFIG);
	pf_absent(pf_at(fx->ws, "sub"));
}

/* Removing through the link, or .git/config itself, is refused too. */
static void
t_remove_through_link(void **state)
{
	struct fx	*fx = *state;
	char		*cause;
	int		 r;

	plant(fx);
	r = commit1(fx, "cfg.txt", NULL, &cause);
	if (!pf_walk_forced) {
		assert_int_equal(r, CLAW_ERR_PERM);
		pf_cause(cause, "leads into .git");
	} else
		assert_int_equal(r, 0);
	assert_int_equal(commit1(fx, ".git/config", NULL, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "inside .git");
	pf_content(pf_at(fx->ws, ".git/config"), CONFIG);
}

/* A commit with one change into .git changes nothing at all. */
static void
t_commit_all_or_nothing(void **state)
{
	struct fx		*fx = *state;
	struct fstore		*fs = fstore_local(fx->pg);
	struct fstore_change	 c[2];
	char			*cause = NULL;

	plant(fx);
	memset(c, 0, sizeof c);
	c[0].path = "real.txt";
	c[0].data = "changed\n";
	c[0].len = 8;
	c[0].mode = -1;
	c[1] = c[0];
	c[1].path = ".git/config";
	assert_int_equal(fstore_commit(fs, c, 2, &cause), CLAW_ERR_PERM);
	pf_cause(cause, "inside .git");
	fstore_free(fs);
	pf_content(pf_at(fx->ws, "real.txt"), "real\n");
	pf_content(pf_at(fx->ws, ".git/config"), CONFIG);
}

/* A link to another file inside still works as before. */
static void
t_link_inside_kept(void **state)
{
	struct fx	*fx = *state;
	char		*cause;

	plant(fx);
	assert_int_equal(commit1(fx, "l", "new\n", &cause), 0);
	if (!pf_walk_forced) {
		pf_content(pf_at(fx->ws, "real.txt"), "new\n");
		assert_true(S_ISLNK(pf_mode(pf_at(fx->ws, "l"))));
	} else
		pf_content(pf_at(fx->ws, "l"), "new\n");
	assert_int_equal(commit1(fx, ".gitignore", "*.o\n", &cause), 0);
	pf_content(pf_at(fx->ws, ".gitignore"), "*.o\n");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		PF_TEST(t_write_through_link),
		PF_TEST(t_write_through_dir_link),
		PF_TEST(t_write_git_by_name), PF_TEST(t_remove_through_link),
		PF_TEST(t_commit_all_or_nothing), PF_TEST(t_link_inside_kept),
	};

	return pf_run("fstore_local", tests, PF_NITEMS(tests)) == 0 ? 0 : 1;
}
