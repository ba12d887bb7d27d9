/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the sync state's log, a byte at a time: a valid log of
 * three blocks is cut at every offset, has every single bit flipped, and
 * gets a zeroed tail (a write that ran out of space) after every offset.
 * Each damaged log must read as the manifest with the first k blocks
 * applied whole, k the number of blocks it still holds intact, never
 * anything else; and whenever bytes were lost the state must say it is
 * damaged (only a cut exactly between blocks cannot be told from an
 * older log).  Also: CRC-32's check value, and old-format logs.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
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

#include "compat.h"
#include "buf.h"
#include "error.h"
#include "manifest.h"
#include "syncstate.h"
#include "syncstate_int.h"
#include "xmalloc.h"
#include "tmpdir.h"

#define SS_NAME		"box.manifest"
#define SS_LOG		"box.manifest.log"
#define NBLOCKS		3
#define ZEROS		64	/* the zeroed tail of a torn append */

/* A valid log and what the state is with its first k blocks. */
struct logcase {
	struct tmptree	*t;
	char		*log;
	size_t		 len;
	size_t		 end[NBLOCKS + 1];	/* header, then each block */
	char		*want[NBLOCKS + 1];	/* the state, as text */
	size_t		 cuts, flips, torn, boundary;
};

/* Add a file entry (its hash from seed) to m. */
static void
add_file(struct manifest *m, const char *path, unsigned seed)
{
	struct manifest_entry	*e = manifest_add(m);

	e->path = xstrdup(path);
	e->type = MANIFEST_FILE;
	e->size = seed;
	e->mtime_sec = 1700000000 + seed;
	e->mode = 0644;
	e->have_hash = 1;
	memset(e->hash, (int)seed, sizeof(e->hash));
}

/* Add a directory entry to m. */
static void
add_dir(struct manifest *m, const char *path)
{
	struct manifest_entry	*e = manifest_add(m);

	e->path = xstrdup(path);
	e->type = MANIFEST_DIR;
	e->mode = 0755;
}

/* m as text (the manifest format), allocated. */
static char *
as_text(const struct manifest *m)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	buf_append_str(&b, "");
	for (i = 0; m != NULL && i < m->n; i++)
		manifest_format_line(&b, &m->e[i]);
	return b.data != NULL ? b.data : xstrdup("");
}

/* Open the state in t's tree, which must work. */
static struct syncstate *
open_state(struct tmptree *t)
{
	struct syncstate	*s = NULL;
	char			*cause = NULL;

	if (syncstate_open(t->fd, SS_NAME, &s, &cause) != 0)
		fail_msg("open: %s", cause);
	return s;
}

/* The whole state in t's tree as text; *damaged set if it says so. */
static char *
state_text(struct tmptree *t, int *damaged, int *noview)
{
	struct syncstate	*s = open_state(t);
	struct manifest		*m = NULL;
	char			*cause = NULL, *text;

	if (syncstate_all(s, &m, &cause) != 0)
		fail_msg("all: %s", cause);
	*damaged = syncstate_damaged(s) != NULL;
	*noview = syncstate_no_view(s) != NULL;
	text = as_text(m);
	manifest_free(m);
	syncstate_close(s);
	return text;
}

/* Replace name in t's tree with len bytes of data. */
static void
file_put(struct tmptree *t, const char *name, const char *data, size_t len)
{
	int	fd;

	fd = openat(t->fd, name, O_WRONLY|O_CREAT|O_TRUNC, 0600);
	assert_true(fd != -1);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* Read name in t's tree whole into *len bytes, allocated. */
static char *
file_get(struct tmptree *t, const char *name, size_t *len)
{
	struct stat	 st;
	char		*p;
	int		 fd;

	assert_true((fd = openat(t->fd, name, O_RDONLY)) != -1);
	assert_int_equal(fstat(fd, &st), 0);
	p = xmalloc((size_t)st.st_size + 1);
	assert_int_equal(read(fd, p, (size_t)st.st_size), st.st_size);
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

/*
 * Build the case: a manifest saved whole, then three commits (a file
 * deleted, a directory's contents replaced, a file added), each a block;
 * the state after each is read back as the model.
 */
static void
build(struct logcase *c)
{
	struct syncstate	*s = open_state(c->t);
	struct manifest		*m = manifest_new(), *part;
	char			*cause = NULL, *v[1], *log;
	size_t			 k, len;
	int			 d, nv;

	add_file(m, "a", 1);
	add_dir(m, "d");
	add_file(m, "d/x", 2);
	add_file(m, "d/y", 3);
	add_file(m, "x", 4);
	if (syncstate_save_all(s, m, &cause) != 0)
		fail_msg("save_all: %s", cause);
	for (k = 0; k < NBLOCKS; k++) {
		part = manifest_new();
		if (k == 1)
			add_file(part, "d/z", 5);
		if (k == 2)
			add_file(part, "x", 4);	/* made again, the same */
		v[0] = xstrdup(k == 1 ? "d/x" : "x");
		if (k == 1) {
			free(v[0]);
			v[0] = xstrdup("d");
			add_dir(part, "d");
			manifest_sort(part);
		}
		syncstate_stage(s, v, 1, part);
		if (syncstate_commit(s, &cause) != 0)
			fail_msg("commit: %s", cause);
		free(v[0]);
		manifest_free(part);
	}
	syncstate_close(s);
	manifest_free(m);
	c->log = file_get(c->t, SS_LOG, &c->len);
	log = c->log;
	/* the block ends: the header's newline, then each ". CRC\n" */
	c->end[0] = (size_t)((char *)memchr(log, '\n', c->len) - log) + 1;
	for (k = 1; k <= NBLOCKS; k++) {
		len = c->end[k - 1];
		while (!(log[len] == '.' && log[len + 1] == ' '))
			len = (size_t)((char *)memchr(log + len, '\n',
			    c->len - len) - log) + 1;
		c->end[k] = len + 11;
	}
	assert_int_equal(c->end[NBLOCKS], c->len);
	for (k = 0; k <= NBLOCKS; k++) {
		file_put(c->t, SS_LOG, log, c->end[k]);
		c->want[k] = state_text(c->t, &d, &nv);
		assert_int_equal(d, 0);
		if (k > 0)
			assert_string_not_equal(c->want[k], c->want[k - 1]);
	}
}

/* The number of whole blocks before byte at. */
static size_t
blocks_before(const struct logcase *c, size_t at)
{
	size_t	k = 0;

	while (k < NBLOCKS && c->end[k + 1] <= at)
		k++;
	return at < c->end[0] ? 0 : k;
}

/*
 * Read back the log data (len bytes) damaged at byte at: the state must
 * be the first blocks_before(at) blocks applied, damaged unless clean.
 */
static void
check(struct logcase *c, const char *data, size_t len, size_t at,
    int clean, const char *what)
{
	char	*got;
	size_t	 k = blocks_before(c, at);
	int	 d, nv;

	file_put(c->t, SS_LOG, data, len);
	got = state_text(c->t, &d, &nv);
	if (strcmp(got, c->want[k]) != 0)
		fail_msg("%s at byte %zu: not the first %zu blocks:\n%s\n"
		    "want:\n%s", what, at, k, got, c->want[k]);
	if (!clean && (!d || !nv))
		fail_msg("%s at byte %zu: not said to be damaged", what, at);
	if (clean && d)
		fail_msg("%s at byte %zu: said to be damaged", what, at);
	free(got);
}

/* Whether at is where the header or a block ends (a clean cut). */
static int
is_boundary(const struct logcase *c, size_t at)
{
	size_t	k;

	for (k = 0; k <= NBLOCKS; k++) {
		if (c->end[k] == at)
			return 1;
	}
	return 0;
}

/* Every cut, every flipped bit, every zeroed tail. */
static void
test_every_byte(void **state)
{
	struct logcase	 c;
	char		*d;
	size_t		 at, bit, k;

	memset(&c, 0, sizeof(c));
	c.t = *state;
	build(&c);
	d = xmalloc(c.len + ZEROS);
	for (at = 0; at < c.len; at++) {
		check(&c, c.log, at, at, is_boundary(&c, at), "cut");
		c.boundary += is_boundary(&c, at);
		c.cuts++;
		memcpy(d, c.log, at);
		memset(d + at, 0, ZEROS);
		check(&c, d, at + ZEROS, at, 0, "zeroed tail");
		c.torn++;
		for (bit = 0; bit < 8; bit++) {
			memcpy(d, c.log, c.len);
			d[at] ^= (char)(1 << bit);
			check(&c, d, c.len, at, 0, "flipped bit");
			c.flips++;
		}
	}
	print_message("log of %zu bytes: %zu cuts (%zu clean, between "
	    "blocks), %zu zeroed tails, %zu flipped bits: none misapplied\n",
	    c.len, c.cuts, c.boundary, c.torn, c.flips);
	free(d);
	free(c.log);
	for (k = 0; k <= NBLOCKS; k++)
		free(c.want[k]);
}

/* CRC-32's check value, as zlib computes it. */
static void
test_crc32(void **state)
{
	(void)state;
	assert_int_equal(syncstate_crc32("123456789", 9), 0xcbf43926u);
	assert_int_equal(syncstate_crc32("", 0), 0);
}

/*
 * An old-format (version 1) log is read and used; the next commit folds
 * it into the manifest, written whole, and removes it.  One cut short
 * is dropped whole and the state is damaged.
 */
static void
test_old_format(void **state)
{
	struct tmptree		*t = *state;
	struct syncstate	*s = open_state(t);
	struct manifest		*m = manifest_new(), *part = manifest_new();
	struct stat		 st;
	char			*cause = NULL, *head, *log, *got, *v[1];
	int			 d, nv;

	add_file(m, "a", 1);
	add_file(m, "x", 4);
	if (syncstate_save_all(s, m, &cause) != 0)
		fail_msg("save_all: %s", cause);
	syncstate_close(s);
	assert_int_equal(fstatat(t->fd, SS_NAME, &st, 0), 0);
	head = xasprintf("clawssh-manifest-log 1 %llu %lld %lld.%09ld\n",
	    (unsigned long long)st.st_ino, (long long)st.st_size,
	    (long long)st.st_mtim.tv_sec, (long)st.st_mtim.tv_nsec);
	log = xasprintf("%sS x\n.\n", head);		/* x deleted */
	file_put(t, SS_LOG, log, strlen(log));
	got = state_text(t, &d, &nv);
	assert_int_equal(d, 0);
	assert_int_equal(nv, 0);
	assert_null(strstr(got, " x -\n"));
	free(got);
	file_put(t, SS_LOG, log, strlen(log) - 2);	/* cut short */
	got = state_text(t, &d, &nv);
	assert_int_equal(d, 1);
	assert_non_null(strstr(got, " x -\n"));		/* the manifest's */
	free(got);
	file_put(t, SS_LOG, log, strlen(log));
	s = open_state(t);
	add_file(part, "b", 7);
	v[0] = xstrdup("b");
	syncstate_stage(s, v, 1, part);
	if (syncstate_commit(s, &cause) != 0)
		fail_msg("commit: %s", cause);
	syncstate_close(s);
	assert_int_equal(fstatat(t->fd, SS_LOG, &st, 0), -1);	/* folded */
	got = state_text(t, &d, &nv);
	assert_null(strstr(got, " x -\n"));
	assert_non_null(strstr(got, " b -\n"));
	free(got);
	free(v[0]);
	free(head);
	free(log);
	manifest_free(m);
	manifest_free(part);
}

int
main(void)
{
#define T(fn)	cmocka_unit_test_setup_teardown(fn, tmptree_setup, tmptree_teardown)
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_crc32),
		T(test_every_byte),
		T(test_old_format),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
