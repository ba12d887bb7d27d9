/*
 * Scratch directory removal for the unit tests.  See tmpdir.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <ftw.h>
#include <stdio.h>

#include "tmpdir.h"

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
