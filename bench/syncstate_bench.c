/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How a view of the sync state scales: a manifest of DIRS directories of
 * 100 files each, then BLOCKS logged changes of one file each (spread
 * over the tree, as an agent editing many files leaves them), and the
 * mean time of a view of one path, against the time of reading the whole
 * state (what every sync did before the log).  Run by bench/sync_bench.sh
 * after building with 'make bench/syncstate_bench':
 *	bench/syncstate_bench DIRS BLOCKS SCRATCHDIR
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "manifest.h"
#include "syncstate.h"
#include "xmalloc.h"

#define SB_FILES	100	/* files per directory */
#define SB_RUNS		10

/* Milliseconds on the monotonic clock. */
static double
sb_now(void)
{
	struct timespec	t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Append an entry to m (path taken). */
static void
sb_add(struct manifest *m, char *path, int type, uint64_t size)
{
	struct manifest_entry	*e = manifest_add(m);

	e->path = path;
	e->type = type;
	e->mode = type == MANIFEST_DIR ? 0755 : 0644;
	e->size = size;
	e->mtime_sec = 1796000000;
}

/* Save the tree, then log blocks changes of one file each. */
static struct syncstate *
sb_state(int dfd, size_t dirs, size_t blocks)
{
	struct manifest		*m = manifest_new(), *part;
	struct syncstate	*s;
	char			*cause = NULL, *p;
	size_t			 i, j;

	for (i = 0; i < dirs; i++) {
		sb_add(m, xasprintf("d%05zu", i), MANIFEST_DIR, 0);
		for (j = 0; j < SB_FILES; j++)
			sb_add(m, xasprintf("d%05zu/f%03zu", i, j),
			    MANIFEST_FILE, 10);
	}
	manifest_sort(m);
	if (syncstate_open(dfd, "bench.manifest", &s, &cause) != 0 ||
	    syncstate_save_all(s, m, &cause) != 0) {
		fprintf(stderr, "syncstate_bench: %s\n", cause);
		exit(1);
	}
	for (i = 0; i < blocks; i++) {
		p = xasprintf("d%05zu/f%03zu", (i * 7919) % dirs,
		    (i * 31) % SB_FILES);
		part = manifest_new();
		sb_add(part, xstrdup(p), MANIFEST_FILE, i);
		syncstate_stage(s, &p, 1, part);
		manifest_free(part);
		free(p);
	}
	manifest_free(m);
	return s;
}

int
main(int argc, char **argv)
{
	struct syncstate	*s;
	struct manifest		*v = NULL;
	char			*cause = NULL, *path;
	size_t			 dirs, blocks, i;
	double			 t, view, all;
	int			 dfd;

	if (argc != 4 || (dirs = strtoul(argv[1], NULL, 10)) == 0 ||
	    (dfd = open(argv[3], O_RDONLY | O_DIRECTORY)) == -1) {
		fprintf(stderr, "usage: syncstate_bench DIRS BLOCKS DIR\n");
		return 2;
	}
	blocks = strtoul(argv[2], NULL, 10);
	s = sb_state(dfd, dirs, blocks);
	path = xstrdup("d00001/f005");
	t = sb_now();
	for (i = 0; i < SB_RUNS; i++) {
		if (syncstate_view(s, &path, 1, &v, &cause) != 0)
			return 1;
		manifest_free(v);
	}
	view = (sb_now() - t) / SB_RUNS;
	t = sb_now();
	for (i = 0; i < SB_RUNS; i++) {
		if (syncstate_all(s, &v, &cause) != 0)
			return 1;
		manifest_free(v);
	}
	all = (sb_now() - t) / SB_RUNS;
	printf("state of %zu entries, %zu logged blocks: view %.2f ms, "
	    "whole %.1f ms\n", dirs * (SB_FILES + 1), blocks, view, all);
	syncstate_close(s);
	unlinkat(dfd, "bench.manifest", 0);
	close(dfd);
	free(path);
	return 0;
}
