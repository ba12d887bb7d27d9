/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scratch directories for the unit tests.  See tmpdir.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "tmpdir.h"
#include "xmalloc.h"

/* snprintf into a PATH_MAX buffer; see tmpdir.h. */
void
tmpdir_pathf(char *dst, const char *fmt, ...)
{
	va_list	ap;
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(dst, PATH_MAX, fmt, ap);
	va_end(ap);
	if (n <= 0 || n >= PATH_MAX) {
		fprintf(stderr, "tmpdir_pathf: %s: does not fit\n", fmt);
		abort();
	}
}

/* Remove one entry; nftw calls it children first. */
static int
tmpdir_remove_one(const char *path, const struct stat *sb, int flag,
    struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove a scratch tree; see tmpdir.h. */
int
tmpdir_remove(const char *dir)
{
	return nftw(dir, tmpdir_remove_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ?
	    0 : -1;
}

/* Make top/ and top/tree for one test; see tmpdir.h. */
int
tmptree_setup(void **state)
{
	struct tmptree	*t;

	t = xcalloc(1, sizeof(*t));
	strlcpy(t->top, "/tmp/clawssh-unit.XXXXXX", sizeof(t->top));
	if (mkdtemp(t->top) == NULL ||
	    (t->topfd = open(t->top, O_RDONLY|O_DIRECTORY)) == -1 ||
	    mkdirat(t->topfd, "tree", 0755) != 0 ||
	    (t->fd = openat(t->topfd, "tree", O_RDONLY|O_DIRECTORY)) == -1) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

/* Remove top/ and everything in it; see tmpdir.h. */
int
tmptree_teardown(void **state)
{
	struct tmptree	*t = *state;
	int		 r;

	close(t->fd);
	close(t->topfd);
	r = tmpdir_remove(t->top);
	free(t);
	return r == 0 ? 0 : -1;
}
