/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: a pull's tar stream, all of it hostile, extracted by
 * tarstream_extract_expect into a scratch workspace.  The first byte
 * picks what the pull asked for: nothing said, an exact set of entries
 * (a file with a hash, a directory, a link), or the top path "d".  After
 * each input: the result and its cause agree, nothing named .git exists
 * beneath the workspace, nothing appeared beside it, and an exact set
 * let no other name in.  Build with 'make fuzz' (clang); run it on
 * tests/fuzz/corpus_tar.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <dirent.h>
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "manifest.h"
#include "pathguard.h"
#include "tarstream.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char			 fz_top[] = "/tmp/clawssh-fuzz-tar.XXXXXX";
static char			 fz_ws[sizeof fz_top + 4];
static struct pathguard		*fz_pg;
static int			 fz_exact;	/* this input's mode */

/* The input being served, in pieces of up to 509 bytes. */
struct fz_src {
	const uint8_t	*p;
	size_t		 left;
};

/* The tarstream_read_fn over a struct fz_src. */
static ssize_t
fz_read(void *arg, const void **buf)
{
	struct fz_src	*s = arg;
	size_t		 n = s->left < 509 ? s->left : 509;

	*buf = s->p;
	s->p += n;
	s->left -= n;
	return (ssize_t)n;
}

/* Check one entry left in the workspace, then remove it. */
static int
fz_sweep(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char	*rel = path + strlen(fz_ws);

	(void)st;
	if (*rel == '/')
		rel++;
	if (*rel != '\0' && pathguard_name_protected(rel))
		abort();		/* a .git was written */
	if (fz_exact && *rel != '\0' && strcmp(rel, "a") != 0 &&
	    strcmp(rel, "d") != 0 && strcmp(rel, "l") != 0 &&
	    strncmp(rel, PATHGUARD_TMP_PREFIX,
	    strlen(PATHGUARD_TMP_PREFIX)) != 0)
		abort();		/* not asked for */
	if (ftw->level > 0)
		remove(path);
	(void)flag;
	return 0;
}

/* Let the owner into every directory so that it can be emptied. */
static int
fz_open_up(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_D || flag == FTW_DNR)
		chmod(path, 0700);
	return 0;
}

/* Make the scratch workspace once. */
static void
fz_init(void)
{
	char	*cause = NULL;

	if (fz_pg != NULL)
		return;
	log_set_level(-1);
	if (mkdtemp(fz_top) == NULL)
		abort();
	snprintf(fz_ws, sizeof fz_ws, "%s/ws", fz_top);
	if (mkdir(fz_ws, 0700) != 0 || pathguard_open(fz_ws, &fz_pg,
	    &cause) != 0)
		abort();
}

/* Assert that fz_top holds ws alone. */
static void
fz_alone(void)
{
	struct dirent	*de;
	DIR		*d;

	if ((d = opendir(fz_top)) == NULL)
		abort();
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    strcmp(de->d_name, "ws") != 0)
			abort();
	}
	closedir(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest_entry		 w[3];
	const struct manifest_entry	*wp[3] = { &w[0], &w[1], &w[2] };
	struct tarstream_expect		 ex;
	struct tarstream_limits		 lim = { 64, 1 << 20 };
	struct tarstream_stats		 st;
	struct fz_src			 src;
	char				 a[] = "a", d[] = "d", l[] = "l";
	char				*tops[] = { d }, *cause = NULL;
	int				 mode, r;

	fz_init();
	mode = size > 0 ? data[0] % 3 : 0;
	memset(w, 0, sizeof w);
	w[0].path = a;
	w[0].type = MANIFEST_FILE;
	w[0].size = 3;
	w[0].mtime_sec = 1000000000;
	w[0].have_hash = size > 1 && (data[1] & 1);
	w[1].path = d;
	w[1].type = MANIFEST_DIR;
	w[2].path = l;
	w[2].type = MANIFEST_LINK;
	w[2].link = a;
	memset(&ex, 0, sizeof ex);
	if (mode == 1) {
		ex.want = wp;
		ex.nwant = 3;
	} else if (mode == 2) {
		ex.tops = tops;
		ex.ntops = 1;
	}
	fz_exact = mode == 1;
	src.p = data + (size > 0);
	src.left = size - (size > 0);
	memset(&st, 0, sizeof st);
	r = tarstream_extract_expect(fz_pg, fz_read, &src, &lim,
	    mode == 0 ? NULL : &ex, &st, &cause);
	if ((r == 0) != (cause == NULL))
		abort();
	free(cause);
	fz_alone();
	nftw(fz_ws, fz_open_up, 16, FTW_PHYS);
	nftw(fz_ws, fz_sweep, 16, FTW_PHYS | FTW_DEPTH);
	return 0;
}
