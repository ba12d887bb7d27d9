/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for pathguard operations other than writing: a replaced
 * root, unlink and remove_tree next to links that point outside,
 * set_meta, rename, lstat, mkdirs, symlink, and mount points.  Each runs
 * twice (see pathguard_fixture.h): with openat2(2) and with the walk.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
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

/* --- the root ---------------------------------------------------------- */

/* Every operation refuses once the root is no longer what was opened. */
static void
check_all_refuse(struct fx *fx, const char *tmp, int fd)
{
	struct stat	 st;
	char		*cause = NULL, *t2 = NULL;
	const char	*want = "was replaced; sync stopped";
	int		 fd2 = -1;

	assert_int_equal(pathguard_check_root(fx->pg, &cause), CLAW_ERR_PERM);
	pf_cause(cause, want);
	assert_int_equal(pathguard_mkdirs(fx->pg, "n", 0755, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, want);
	assert_int_equal(pathguard_write_begin(fx->pg, "n", &fd2, &t2,
	    &cause), CLAW_ERR_PERM);
	pf_cause(cause, want);
	assert_int_equal(fd2, -1);
	assert_int_equal(pathguard_write_commit(fx->pg, "f", tmp, fd, 0644,
	    NULL, &cause), CLAW_ERR_PERM);
	pf_cause(cause, want);
	assert_int_equal(pathguard_write_abort(fx->pg, "f", tmp, -1),
	    CLAW_ERR_PERM);
	assert_int_equal(pathguard_symlink(fx->pg, "l", "x", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, want);
	assert_int_equal(pathguard_unlink(fx->pg, "f", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, want);
	assert_int_equal(pathguard_remove_tree(fx->pg, "d", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, want);
	assert_int_equal(pathguard_set_meta(fx->pg, "d", 0700, NULL, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, want);
	assert_int_equal(pathguard_rename(fx->pg, "f", "g", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, want);
	assert_int_equal(pathguard_lstat(fx->pg, "f", &st, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, want);
}

/* Populate ws with f and d, and begin a write of f; return its fd. */
static int
root_prepare(struct fx *fx, char **tmp)
{
	char	*cause = NULL;
	int	 fd;

	pf_put_ok(fx, "f", "keep");
	assert_int_equal(pathguard_mkdirs(fx->pg, "d", 0755, &cause), 0);
	assert_int_equal(pathguard_write_begin(fx->pg, "f", &fd, tmp,
	    &cause), 0);
	return fd;
}

/* The root moved away and a new directory put in its place. */
static void
t_root_replaced(void **state)
{
	struct fx	*fx = *state;
	char		*tmp, *old = xasprintf("%s.old", fx->ws);
	int		 fd;

	fd = root_prepare(fx, &tmp);
	assert_int_equal(rename(fx->ws, old), 0);
	assert_int_equal(mkdir(fx->ws, 0755), 0);
	check_all_refuse(fx, tmp, fd);
	assert_int_equal(pf_count(fx->ws), 0);
	pf_content(pf_at(old, "f"), "keep");
	assert_true(S_ISDIR(pf_mode(pf_at(old, "d"))));
	free(tmp);
	free(old);
}

/* The root replaced by a link to where it went, or removed. */
static void
t_root_linked_or_gone(void **state)
{
	struct fx	*fx = *state;
	char		*tmp, *old = xasprintf("%s.old", fx->ws);
	int		 fd;

	fd = root_prepare(fx, &tmp);
	assert_int_equal(rename(fx->ws, old), 0);
	assert_int_equal(symlink(old, fx->ws), 0);
	check_all_refuse(fx, tmp, fd);
	pf_content(pf_at(old, "f"), "keep");
	assert_int_equal(unlink(fx->ws), 0);
	fd = open(pf_at(old, tmp), O_WRONLY);
	check_all_refuse(fx, tmp, fd);
	pf_content(pf_at(old, "f"), "keep");
	free(tmp);
	free(old);
}

/* --- removal ----------------------------------------------------------- */

/* Unlinking a link removes the link, never its target. */
static void
t_unlink(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;

	assert_int_equal(close(open(pf_at(fx->out, "t"), O_CREAT | O_WRONLY,
	    0644)), 0);
	assert_int_equal(symlink(pf_at(fx->out, "t"), pf_at(fx->ws, "l")), 0);
	assert_int_equal(pathguard_unlink(fx->pg, "l", &cause), 0);
	pf_absent(pf_at(fx->ws, "l"));
	assert_true(S_ISREG(pf_mode(pf_at(fx->out, "t"))));
	pf_put_ok(fx, "f", "x");
	assert_int_equal(pathguard_unlink(fx->pg, "f", &cause), 0);
	pf_absent(pf_at(fx->ws, "f"));
	assert_int_equal(pathguard_unlink(fx->pg, "missing", &cause), 0);
	assert_int_equal(pathguard_unlink(fx->pg, "no/dir/x", &cause), 0);
	assert_null(cause);
	assert_int_equal(pathguard_mkdirs(fx->pg, "d", 0755, &cause), 0);
	assert_int_equal(pathguard_unlink(fx->pg, "d", &cause),
	    CLAW_ERR_EXISTS);
	pf_cause(cause, "d: is a directory");
	assert_int_equal(symlink(fx->out, pf_at(fx->ws, "o")), 0);
	assert_int_equal(pathguard_unlink(fx->pg, "o/t", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link");
	assert_true(S_ISREG(pf_mode(pf_at(fx->out, "t"))));
}

/* Removing a tree never reaches through the links inside it. */
static void
t_remove_tree(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;

	assert_int_equal(mkdir(pf_at(fx->out, "sub"), 0755), 0);
	assert_int_equal(close(open(pf_at(fx->out, "sub/k"), O_CREAT | O_WRONLY,
	    0644)), 0);
	pf_put_ok(fx, "t/f", "x");
	pf_put_ok(fx, "t/s/g", "y");
	assert_int_equal(pathguard_mkdirs(fx->pg, "t/s/empty/deeper", 0755,
	    &cause), 0);
	assert_int_equal(symlink(fx->out, pf_at(fx->ws, "t/s/lo")), 0);
	assert_int_equal(symlink(pf_at(fx->out, "sub/k"),
	    pf_at(fx->ws, "t/lk")), 0);
	assert_int_equal(mkfifo(pf_at(fx->ws, "t/s/fifo"), 0644), 0);
	assert_int_equal(pathguard_remove_tree(fx->pg, "t", &cause), 0);
	pf_absent(pf_at(fx->ws, "t"));
	assert_true(S_ISREG(pf_mode(pf_at(fx->out, "sub/k"))));
	assert_int_equal(pf_count(fx->out), 1);
	assert_int_equal(pathguard_remove_tree(fx->pg, "t", &cause), 0);
	assert_int_equal(pathguard_remove_tree(fx->pg, "t/u/v", &cause), 0);
	pf_put_ok(fx, "f", "x");
	assert_int_equal(pathguard_remove_tree(fx->pg, "f", &cause), 0);
	pf_absent(pf_at(fx->ws, "f"));
	assert_int_equal(symlink(fx->out, pf_at(fx->ws, "lo")), 0);
	assert_int_equal(pathguard_remove_tree(fx->pg, "lo/sub", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link");
	assert_int_equal(pathguard_remove_tree(fx->pg, "lo", &cause), 0);
	pf_absent(pf_at(fx->ws, "lo"));
	assert_true(S_ISREG(pf_mode(pf_at(fx->out, "sub/k"))));
	assert_int_equal(pf_count(fx->ws), 0);
}

/* --- metadata, rename, lstat, mkdirs, links ---------------------------- */

/* Modes are stripped, times set, links never followed. */
static void
t_set_meta(void **state)
{
	struct fx	*fx = *state;
	struct timespec	 mt = { 1000000000, 5 }, lt = { 1100000000, 7 };
	struct stat	 st;
	char		*cause = NULL;

	assert_int_equal(pathguard_mkdirs(fx->pg, "d", 0700, &cause), 0);
	pf_put_ok(fx, "d/f", "x");
	assert_int_equal(pathguard_set_meta(fx->pg, "d", 07755, &mt, &cause),
	    0);
	assert_int_equal(lstat(pf_at(fx->ws, "d"), &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(st.st_mtim.tv_sec, mt.tv_sec);
	assert_int_equal(st.st_mtim.tv_nsec, mt.tv_nsec);
	assert_int_equal(pathguard_set_meta(fx->pg, "d/f", 0640, NULL,
	    &cause), 0);
	assert_int_equal(pf_mode(pf_at(fx->ws, "d/f")) & 07777, 0640);
	assert_int_equal(pathguard_symlink(fx->pg, "l", "d", &cause), 0);
	assert_int_equal(pathguard_set_meta(fx->pg, "l", 0600, &lt, &cause),
	    0);
	assert_int_equal(pf_mode(pf_at(fx->ws, "d")) & 07777, 0755);
	assert_int_equal(lstat(pf_at(fx->ws, "l"), &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(st.st_mtim.tv_sec, lt.tv_sec);
	assert_int_equal(lstat(pf_at(fx->ws, "d"), &st), 0);
	assert_int_equal(st.st_mtim.tv_sec, mt.tv_sec);
	assert_int_equal(pathguard_set_meta(fx->pg, "missing", 0600, NULL,
	    &cause), CLAW_ERR_NOTFOUND);
	pf_cause(cause, "missing: cannot stat");
}

/* Renames stay beneath the root and never move a tree shallower. */
static void
t_rename(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;

	pf_put_ok(fx, "f", "mine");
	assert_int_equal(pathguard_rename(fx->pg, "f", "f.clawssh-remote",
	    &cause), 0);
	pf_absent(pf_at(fx->ws, "f"));
	pf_content(pf_at(fx->ws, "f.clawssh-remote"), "mine");
	assert_int_equal(pathguard_rename(fx->pg, "f", "g", &cause),
	    CLAW_ERR_NOTFOUND);
	pf_cause(cause, "f: cannot rename to g");
	pf_put_ok(fx, "a/g", "x");
	assert_int_equal(pathguard_rename(fx->pg, "a/g", "g", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "a/g: cannot move to the shallower g");
	assert_int_equal(pathguard_rename(fx->pg, "f.clawssh-remote", "a/h",
	    &cause), 0);
	pf_content(pf_at(fx->ws, "a/h"), "mine");
	assert_int_equal(pathguard_mkdirs(fx->pg, "a/dd", 0755, &cause), 0);
	assert_int_equal(pathguard_rename(fx->pg, "a/h", "a/dd", &cause),
	    CLAW_ERR_EXISTS);
	pf_cause(cause, "a directory is in the way");
	assert_int_equal(symlink(fx->out, pf_at(fx->ws, "o")), 0);
	assert_int_equal(pathguard_rename(fx->pg, "a/h", "o/h", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link");
	assert_int_equal(pathguard_rename(fx->pg, "o/x", "a/x", &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link");
	assert_int_equal(pathguard_rename(fx->pg, "a/h", "a/dd/h", &cause),
	    0);
	assert_int_equal(pf_count(fx->out), 0);
}

/* lstat beneath the root: files, links, missing entries. */
static void
t_lstat(void **state)
{
	struct fx	*fx = *state;
	struct stat	 st;
	char		*cause = NULL;

	pf_put_ok(fx, "d/f", "12345");
	assert_int_equal(pathguard_lstat(fx->pg, "d/f", &st, &cause), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 5);
	assert_int_equal(pathguard_lstat(fx->pg, "d", &st, &cause), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(symlink(fx->out, pf_at(fx->ws, "d/l")), 0);
	assert_int_equal(pathguard_lstat(fx->pg, "d/l", &st, &cause), 0);
	assert_true(S_ISLNK(st.st_mode));
	memset(&st, 0xa5, sizeof st);
	assert_int_equal(pathguard_lstat(fx->pg, "d/missing", &st, &cause),
	    CLAW_ERR_NOTFOUND);
	pf_cause(cause, "d/missing");
	assert_int_equal(st.st_size, (off_t)0xa5a5a5a5a5a5a5a5ULL);
	assert_int_equal(pathguard_lstat(fx->pg, "x/y/z", &st, &cause),
	    CLAW_ERR_NOTFOUND);
	pf_cause(cause, "x/y/z: no such directory: x");
	assert_int_equal(pathguard_lstat(fx->pg, "d/l/x", &st, &cause),
	    CLAW_ERR_PERM);
	pf_cause(cause, "symbolic link at d/l");
}

/* mkdirs creates what is missing with stripped modes. */
static void
t_mkdirs(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL;

	assert_int_equal(pathguard_mkdirs(fx->pg, "x/y/z", 0750, &cause), 0);
	assert_int_equal(pf_mode(pf_at(fx->ws, "x/y/z")) & 07777, 0750);
	assert_int_equal(pf_mode(pf_at(fx->ws, "x/y")) & 07777, 0755);
	assert_int_equal(pathguard_mkdirs(fx->pg, "x/y/z", 0700, &cause), 0);
	assert_int_equal(pf_mode(pf_at(fx->ws, "x/y/z")) & 07777, 0750);
	assert_int_equal(pathguard_mkdirs(fx->pg, "s", 07777, &cause), 0);
	assert_int_equal(pf_mode(pf_at(fx->ws, "s")) & 07777, 0755);
	assert_int_equal(pathguard_mkdirs(fx->pg, "n", 0, &cause), 0);
	assert_int_equal(pf_mode(pf_at(fx->ws, "n")) & 07777, 0700);
	pf_put_ok(fx, "n/f", "writable");
}

/* Links are judged, made atomically, and replace files and links. */
static void
t_symlink(void **state)
{
	struct fx	*fx = *state;
	char		*cause = NULL, buf[64];
	ssize_t		 n;

	assert_int_equal(pathguard_symlink(fx->pg, "a/b/l", "../x", &cause),
	    0);
	n = readlink(pf_at(fx->ws, "a/b/l"), buf, sizeof buf);
	assert_int_equal(n, 4);
	assert_memory_equal(buf, "../x", 4);
	assert_int_equal(pathguard_symlink(fx->pg, "a/b/l", "../../y",
	    &cause), 0);
	n = readlink(pf_at(fx->ws, "a/b/l"), buf, sizeof buf);
	assert_int_equal(n, 7);
	assert_memory_equal(buf, "../../y", 7);
	pf_put_ok(fx, "a/b/f", "x");
	assert_int_equal(pathguard_symlink(fx->pg, "a/b/f", "l", &cause), 0);
	assert_true(S_ISLNK(pf_mode(pf_at(fx->ws, "a/b/f"))));
	assert_int_equal(pathguard_symlink(fx->pg, "a/b/l2", "../../../x",
	    &cause), CLAW_ERR_INVAL);
	pf_cause(cause, "climbs above the workspace root");
	assert_int_equal(pathguard_symlink(fx->pg, "c/l", "/etc/passwd",
	    &cause), CLAW_ERR_INVAL);
	pf_cause(cause, "c/l: link target /etc/passwd: absolute");
	pf_absent(pf_at(fx->ws, "c"));
	assert_int_equal(pf_count(pf_at(fx->ws, "a/b")), 2);
	assert_int_equal(pf_count(fx->ws), 1);
}

/*
 * Run fn in a child with a private tmpfs mounted at ws/d/m and the root
 * opened again; return its exit status (77: no mount namespace here).
 */
static int
in_mount_ns(struct fx *fx, int (*fn)(struct fx *))
{
	pid_t	pid;
	int	status;

	if ((pid = fork()) == 0) {
		if (unshare(CLONE_NEWNS) != 0 ||
		    mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL) !=
		    0 ||
		    mkdir(pf_at(fx->ws, "d"), 0755) != 0 ||
		    mkdir(pf_at(fx->ws, "d/m"), 0755) != 0 ||
		    mount("none", pf_at(fx->ws, "d/m"), "tmpfs", 0, NULL) != 0)
			_exit(77);
		/* The old descriptor still sees the old namespace. */
		pathguard_close(fx->pg);
		if (pathguard_open(fx->ws, &fx->pg, NULL) != 0)
			_exit(78);
		_exit(fn(fx));
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* In the child (no cmocka asserts): the mount is not crossed. */
static int
mount_child(struct fx *fx)
{
	struct stat	 st;
	char		*cause = NULL, *tmp = NULL;
	int		 fd, r;

	r = pathguard_write_begin(fx->pg, "d/m/f", &fd, &tmp, &cause);
	if (r != CLAW_ERR_PERM ||
	    strstr(cause, "crosses a mount point at d/m") == NULL)
		return 1;
	free(cause);
	if (pathguard_remove_tree(fx->pg, "d", &cause) != CLAW_ERR_PERM ||
	    strstr(cause, "d/m: is a mount point") == NULL)
		return 2;
	free(cause);
	if (lstat(pf_at(fx->ws, "d/m"), &st) != 0 || !S_ISDIR(st.st_mode))
		return 3;
	return 0;
}

/* Mount points beneath the root are not crossed. */
static void
t_mount_point(void **state)
{
	struct fx	*fx = *state;
	int		 r;

	if ((r = in_mount_ns(fx, mount_child)) == 77)
		skip();
	assert_int_equal(r, 0);
}


int
main(void)
{
	const struct CMUnitTest tests[] = {
		PF_TEST(t_root_replaced), PF_TEST(t_root_linked_or_gone),
		PF_TEST(t_unlink), PF_TEST(t_remove_tree), PF_TEST(t_set_meta),
		PF_TEST(t_rename), PF_TEST(t_lstat), PF_TEST(t_mkdirs),
		PF_TEST(t_symlink), PF_TEST(t_mount_point),
	};

	return pf_run("ops", tests, PF_NITEMS(tests)) == 0 ? 0 : 1;
}
