/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for sparse files: holes stay holes through tarstream_create
 * and tarstream_extract (before, the stream carried every zero and the
 * copy took its full size on disk), and an archive made by GNU tar with
 * --format=posix --sparse (what the host sends) comes down with its holes.
 * Skipped where the scratch file system does not keep holes, or where GNU
 * tar is missing.  Each runs twice: with openat2(2) and the walk.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/wait.h>

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

#include "error.h"
#include "fdio.h"
#include "tarstream_fixture.h"
#include "xmalloc.h"

#define SP_SIZE		((off_t)64 << 20)	/* 64 MiB */
#define SP_DATA		4096			/* bytes of data in it */
#define SP_AT		((off_t)40 << 20)	/* where the data is */
#define SP_SMALL	(1 << 20)		/* "small": under 1 MiB */

/* The bytes st_blocks says path takes on disk. */
static off_t
disk_bytes(const char *path)
{
	struct stat	sb;

	assert_int_equal(lstat(path, &sb), 0);
	return (off_t)sb.st_blocks * 512;
}

/* Assert that files a and b hold the same bytes. */
static void
same_bytes(const char *a, const char *b)
{
	static char	ba[1 << 16], bb[1 << 16];
	ssize_t		na, nb;
	int		fa, fb;

	assert_true((fa = open(a, O_RDONLY)) >= 0);
	assert_true((fb = open(b, O_RDONLY)) >= 0);
	do {
		na = read(fa, ba, sizeof ba);
		nb = read(fb, bb, sizeof bb);
		assert_int_equal(na, nb);
		assert_true(na >= 0);
		assert_memory_equal(ba, bb, (size_t)na);
	} while (na > 0);
	close(fa);
	close(fb);
}

/*
 * Make path a 64 MiB file with 4 KiB of random data at 40 MiB and holes
 * elsewhere; 0, or -1 when the file system filled the holes in.
 */
static int
make_sparse(const char *path)
{
	char	data[SP_DATA];
	int	fd;

	tf_random(data, sizeof data, 7);
	assert_true((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644)) >= 0);
	assert_int_equal(ftruncate(fd, SP_SIZE), 0);
	assert_int_equal(pwrite(fd, data, sizeof data, SP_AT),
	    (ssize_t)sizeof data);
	close(fd);
	return disk_bytes(path) < SP_SMALL ? 0 : -1;
}

/*
 * A 64 MiB file with 4 KiB of data round-trips through tarstream_create
 * and tarstream_extract byte for byte; the stream and the copy on disk
 * stay small.
 */
static void
t_sparse_round_trip(void **state)
{
	struct tfx		*fx = *state;
	struct tarstream_stats	 cst;
	struct pathguard	*src;
	struct tb		*sink = xcalloc(1, sizeof *sink);
	char			 big[] = "big", *paths[] = { big };
	char			*srcdir, *cause = NULL;
	int			 r;

	srcdir = xasprintf("%s/src", fx->top);
	assert_int_equal(mkdir(srcdir, 0755), 0);
	if (make_sparse(pf_at(srcdir, "big")) != 0) {
		free(srcdir);
		free(sink);
		skip();
	}
	assert_int_equal(pathguard_open(srcdir, &src, &cause), 0);
	memset(&cst, 0, sizeof cst);
	r = tarstream_create(src, paths, 1, tf_sink, sink, &cst, &cause);
	if (r != 0)
		fail_msg("create: %s", cause);
	pathguard_close(src);
	assert_true(sink->len < SP_SMALL);
	assert_int_equal(cst.bytes, (uint64_t)SP_SIZE);
	if ((r = tf_extract(fx, sink->buf, sink->len, 0, NULL)) != 0)
		fail_msg("extract: %s", fx->cause);
	assert_int_equal(fx->st.files, 1);
	assert_int_equal(fx->st.bytes, (uint64_t)SP_SIZE);
	same_bytes(pf_at(srcdir, "big"), pf_at(fx->ws, "big"));
	assert_true(disk_bytes(pf_at(fx->ws, "big")) < SP_SMALL);
	assert_int_equal(unlink(pf_at(srcdir, "big")), 0);
	assert_int_equal(rmdir(srcdir), 0);
	free(srcdir);
	tb_free(sink);
	tf_clean(fx, NULL);
}

/* A file that is all hole, and one with no hole, round-trip too. */
static void
t_sparse_edges(void **state)
{
	struct tfx		*fx = *state;
	struct tb		*sink = xcalloc(1, sizeof *sink);
	char			 hole[] = "hole", full[] = "full";
	char			*cause = NULL, *paths[] = { hole, full };
	int			 fd;

	assert_true((fd = open(pf_at(fx->ws, "hole"), O_WRONLY | O_CREAT,
	    0644)) >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	close(fd);
	pf_put_ok(fx->pf, "full", "no holes here\n");
	if (tarstream_create(fx->pg, paths, 2, tf_sink, sink, NULL,
	    &cause) != 0)
		fail_msg("create: %s", cause);
	assert_int_equal(unlink(pf_at(fx->ws, "hole")), 0);
	assert_int_equal(unlink(pf_at(fx->ws, "full")), 0);
	if (tf_extract(fx, sink->buf, sink->len, 3, NULL) != 0)
		fail_msg("extract: %s", fx->cause);
	assert_int_equal(pf_mode(pf_at(fx->ws, "hole")), S_IFREG | 0644);
	assert_int_equal(disk_bytes(pf_at(fx->ws, "hole")), 0);
	pf_content(pf_at(fx->ws, "full"), "no holes here\n");
	tb_free(sink);
	tf_clean(fx, NULL);
}

/* Run sh -c cmd in dir; its exit status (127: no shell). */
static int
run_in(const char *dir, const char *cmd)
{
	pid_t	pid;
	int	status;

	if ((pid = fork()) == 0) {
		if (chdir(dir) == 0)
			execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Read all of path into a new buffer; set *len. */
static unsigned char *
slurp(const char *path, size_t *len)
{
	struct stat	 sb;
	unsigned char	*buf;
	int		 fd;

	assert_true((fd = open(path, O_RDONLY)) >= 0);
	assert_int_equal(fstat(fd, &sb), 0);
	buf = xmalloc((size_t)sb.st_size + 1);
	assert_int_equal(fdio_read_full(fd, buf, (size_t)sb.st_size),
	    (ssize_t)sb.st_size);
	close(fd);
	*len = (size_t)sb.st_size;
	return buf;
}

/*
 * GNU tar's own sparse archive (pax, sparse format 1.0), as the host sends
 * it: the file comes down at its size, with its data, holes kept.
 */
static void
t_sparse_gnu_tar(void **state)
{
	struct tfx	*fx = *state;
	unsigned char	*buf, tail[2];
	char		*dir;
	size_t		 len;
	int		 fd;

	if (run_in("/", "tar --version 2>/dev/null | grep -q 'GNU tar'")
	    != 0) {
		print_message("GNU tar not found: skipped\n");
		skip();
	}
	dir = xasprintf("%s/gnu", fx->top);
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(run_in(dir, "truncate -s 32M f && echo x >>f && "
	    "tar --format=posix --sparse -cf a.tar f && rm f"), 0);
	buf = slurp(pf_at(dir, "a.tar"), &len);
	assert_true(len < SP_SMALL);
	if (tf_extract(fx, buf, len, 0, NULL) != 0)
		fail_msg("extract: %s", fx->cause);
	assert_int_equal(fx->st.files, 1);
	assert_true(disk_bytes(pf_at(fx->ws, "f")) < SP_SMALL);
	assert_true((fd = open(pf_at(fx->ws, "f"), O_RDONLY)) >= 0);
	assert_int_equal(lseek(fd, 0, SEEK_END), (32 << 20) + 2);
	assert_int_equal(pread(fd, tail, 2, 32 << 20), 2);
	assert_memory_equal(tail, "x\n", 2);
	close(fd);
	free(buf);
	assert_int_equal(unlink(pf_at(dir, "a.tar")), 0);
	assert_int_equal(rmdir(dir), 0);
	free(dir);
	tf_clean(fx, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TF_TEST(t_sparse_round_trip), TF_TEST(t_sparse_edges),
		TF_TEST(t_sparse_gnu_tar),
	};

	return pf_run("tarstream_sparse", tests, PF_NITEMS(tests)) == 0 ?
	    0 : 1;
}
