/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fixture for the pathguard unit tests: scratch directories, writing
 * through pathguard, and looking at the result from outside it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pathguard.h"
#include "pathguard_fixture.h"
#include "xmalloc.h"
#include "tmpdir.h"

int	pf_walk_forced;

/* Run the following tests with openat2(2) where the kernel has it. */
static int
pf_group_openat2(void **state)
{
	pf_walk_forced = 0;
	pathguard_force_walk(0);
	return 0;
}

/* Run the following tests with the O_NOFOLLOW walk. */
static int
pf_group_walk(void **state)
{
	pf_walk_forced = 1;
	pathguard_force_walk(1);
	return 0;
}

/* Run tests once with each resolver; return the number of failures. */
int
pf_run(const char *name, const struct CMUnitTest *tests, size_t n)
{
	char	*group;
	int	 fails;

	group = xasprintf("%s/openat2", name);
	fails = _cmocka_run_group_tests(group, tests, n, pf_group_openat2,
	    NULL);
	free(group);
	group = xasprintf("%s/walk", name);
	fails += _cmocka_run_group_tests(group, tests, n, pf_group_walk,
	    NULL);
	free(group);
	return fails;
}

/* Make a fresh top directory with ws/ and out/, and open ws/. */
int
pf_setup(void **state)
{
	struct fx	*fx;
	char		*cause = NULL;

	fx = xcalloc(1, sizeof *fx);
	snprintf(fx->top, sizeof fx->top, "/tmp/test_pathguard.XXXXXX");
	assert_non_null(mkdtemp(fx->top));
	fx->ws = xasprintf("%s/ws", fx->top);
	fx->out = xasprintf("%s/out", fx->top);
	assert_int_equal(mkdir(fx->ws, 0755), 0);
	assert_int_equal(mkdir(fx->out, 0755), 0);
	umask(022);
	assert_int_equal(pathguard_open(fx->ws, &fx->pg, &cause), 0);
	assert_null(cause);
	*state = fx;
	return 0;
}

/* Close and remove everything the test made. */
int
pf_teardown(void **state)
{
	struct fx	*fx = *state;

	pathguard_close(fx->pg);
	tmpdir_remove(fx->top);
	free(fx->ws);
	free(fx->out);
	free(fx);
	return 0;
}

/* Return dir/rel in one of a few rotating static buffers. */
const char *
pf_at(const char *dir, const char *rel)
{
	static char	 bufs[4][PATH_MAX];
	static int	 next;
	char		*b = bufs[next++ % 4];

	snprintf(b, PATH_MAX, "%s/%s", dir, rel);
	return b;
}

/* Assert that cause holds want, then free it. */
void
pf_cause(char *cause, const char *want)
{
	assert_non_null(cause);
	if (strstr(cause, want) == NULL)
		fail_msg("cause \"%s\" lacks \"%s\"", cause, want);
	free(cause);
}

/* Write content to rel through pathguard; return its result. */
int
pf_put(struct fx *fx, const char *rel, const char *content, mode_t mode,
    const struct timespec *mtime, char **cause)
{
	char	*tmp;
	int	 fd, r;

	if ((r = pathguard_write_begin(fx->pg, rel, &fd, &tmp, cause)) != 0)
		return r;
	assert_int_equal(write(fd, content, strlen(content)),
	    (ssize_t)strlen(content));
	r = pathguard_write_commit(fx->pg, rel, tmp, fd, mode, mtime, cause);
	free(tmp);
	return r;
}

/* Write rel, which must work. */
void
pf_put_ok(struct fx *fx, const char *rel, const char *content)
{
	char	*cause = NULL;

	if (pf_put(fx, rel, content, 0644, NULL, &cause) != 0)
		fail_msg("put %s: %s", rel, cause);
}

/* Assert that path holds exactly want. */
void
pf_content(const char *path, const char *want)
{
	char	 buf[4096];
	ssize_t	 n;
	int	 fd;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
	assert_true(fd != -1);
	n = read(fd, buf, sizeof buf - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, want);
}

/* Return the number of entries in the directory path. */
int
pf_count(const char *path)
{
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	assert_non_null(d = opendir(path));
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			n++;
	}
	closedir(d);
	return n;
}

/* Assert that nothing exists at path (not even a dangling link). */
void
pf_absent(const char *path)
{
	struct stat	st;

	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
}

/* Return the st_mode of path, not following it. */
mode_t
pf_mode(const char *path)
{
	struct stat	st;

	assert_int_equal(lstat(path, &st), 0);
	return st.st_mode;
}
