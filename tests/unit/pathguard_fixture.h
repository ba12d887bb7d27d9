/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fixture for the pathguard unit tests: each test runs in its own mkdtemp
 * directory holding ws/ (the workspace, opened as fx->pg) and out/ (outside
 * the workspace: nothing may ever be written there), removed afterwards.
 * pf_run runs a table of tests twice, with openat2(2) and with the
 * O_NOFOLLOW walk forced.  Helpers fail the running cmocka test on error;
 * include <cmocka.h> before this header.
 */
#ifndef CLAW_PATHGUARD_FIXTURE_H
#define CLAW_PATHGUARD_FIXTURE_H

#include <sys/types.h>

#include <stddef.h>
#include <time.h>

#include "pathguard.h"

/* A test run with pf_setup and pf_teardown. */
#define PF_TEST(fn)	cmocka_unit_test_setup_teardown(fn, pf_setup, \
			    pf_teardown)
#define PF_NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

/* Per-test state. */
struct fx {
	char			 top[64];	/* holds ws/ and out/ */
	char			*ws;		/* the workspace root */
	char			*out;		/* outside: must stay empty */
	struct pathguard	*pg;		/* ws/, opened */
};

extern int	pf_walk_forced;		/* 1 while the walk group runs */

/* Make the directories and open ws/; undo it all. */
int		 pf_setup(void **state);
int		 pf_teardown(void **state);

/* Run tests[0..n) as group "NAME/openat2", then "NAME/walk"; failures. */
int		 pf_run(const char *name, const struct CMUnitTest *tests,
		    size_t n);

/* dir/rel, in one of four rotating static buffers. */
const char	*pf_at(const char *dir, const char *rel);

/* Assert that cause holds want, then free it. */
void		 pf_cause(char *cause, const char *want);

/* Write content to rel through pathguard; its result, *cause set. */
int		 pf_put(struct fx *fx, const char *rel, const char *content,
		    mode_t mode, const struct timespec *mtime, char **cause);

/* Write rel with mode 0644, which must work. */
void		 pf_put_ok(struct fx *fx, const char *rel,
		    const char *content);

/* Assert that path (never followed) holds exactly want. */
void		 pf_content(const char *path, const char *want);

/* The number of entries in the directory path. */
int		 pf_count(const char *path);

/* Assert that nothing, not even a dangling link, is at path. */
void		 pf_absent(const char *path);

/* The st_mode of path, not following it. */
mode_t		 pf_mode(const char *path);

#endif /* CLAW_PATHGUARD_FIXTURE_H */
