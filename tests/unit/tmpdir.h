/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the unit tests share for their scratch directories.
 */
#ifndef CLAW_TEST_TMPDIR_H
#define CLAW_TEST_TMPDIR_H

/*
 * Remove dir and everything below it, never following a symbolic link.
 * Returns 0, or -1 if something could not be removed.
 */
int	tmpdir_remove(const char *dir);

/* snprintf into dst, a PATH_MAX buffer; aborts if it does not fit. */
void	tmpdir_pathf(char *dst, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* A test's scratch space: top/ (fresh, under /tmp) holding tree/. */
struct tmptree {
	char	top[64];
	int	topfd;		/* top/ */
	int	fd;		/* top/tree, the root a test works on */
};

/* cmocka setup and teardown: make one in *state, remove it all. */
int	tmptree_setup(void **state);
int	tmptree_teardown(void **state);

#endif /* CLAW_TEST_TMPDIR_H */
