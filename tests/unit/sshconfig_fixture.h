/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scratch-directory fixture shared by test_sshconfig.c and
 * test_sshconfig_target.c.
 */
#ifndef CLAW_SSHCONFIG_FIXTURE_H
#define CLAW_SSHCONFIG_FIXTURE_H

#include <sys/stat.h>

#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

/* One test's scratch directory, also used as the home directory. */
struct fixture {
	char	dir[64];
};

/* Make a fresh directory with an empty .ssh inside. */
static inline int
setup(void **state)
{
	struct fixture	*fx;
	char		 path[PATH_MAX];

	if ((fx = calloc(1, sizeof *fx)) == NULL)
		return -1;
	snprintf(fx->dir, sizeof fx->dir, "/tmp/test_sshconfig.XXXXXX");
	if (mkdtemp(fx->dir) == NULL)
		return -1;
	snprintf(path, sizeof path, "%s/.ssh", fx->dir);
	if (mkdir(path, 0700) != 0)
		return -1;
	*state = fx;
	return 0;
}

/* Remove one entry during the depth-first walk. */
static inline int
remove_entry(const char *path, const struct stat *sb, int type,
    struct FTW *ftw)
{
	(void)sb;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* Remove the scratch directory and everything in it. */
static inline int
teardown(void **state)
{
	struct fixture	*fx = *state;
	int		 r;

	r = nftw(fx->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
	free(fx);
	return r;
}

/* Write text to dir/name; return the full path (static buffer). */
static inline const char *
write_file(const char *dir, const char *name, const char *text)
{
	static char	 path[PATH_MAX];
	FILE		*f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* Return "dir/rest" in a static buffer, for comparing paths. */
static inline const char *
in_dir(const char *dir, const char *rest)
{
	static char	path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", dir, rest);
	return path;
}

/* A test run in its own fresh scratch directory. */
#define T(f)	cmocka_unit_test_setup_teardown(f, setup, teardown)

#endif /* CLAW_SSHCONFIG_FIXTURE_H */
