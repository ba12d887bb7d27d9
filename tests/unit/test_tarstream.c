/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for tarstream: a round trip through tarstream_create and
 * tarstream_extract, creation on its own, the caps, malformed, cut and
 * empty streams, failing sources and a workspace root replaced while the
 * stream is read.  Hostile entries are in test_tarstream_hostile.c.
 * Each test runs twice (see pathguard_fixture.h): with openat2(2) and
 * with the walk.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

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

#include "error.h"
#include "pathguard.h"
#include "tarstream.h"
#include "tarstream_fixture.h"
#include "xmalloc.h"

#define BIG_SIZE	(1024 * 1024)

/* --- helpers ----------------------------------------------------------- */

/* Make top/src (allowed by tf_clean(fx, "src")) and open it. */
static struct pathguard *
src_open(struct tfx *fx)
{
	struct pathguard	*pg;
	char			*cause = NULL;

	assert_int_equal(mkdir(pf_at(fx->top, "src"), 0755), 0);
	assert_int_equal(pathguard_open(pf_at(fx->top, "src"), &pg, &cause),
	    0);
	return pg;
}

/* Set the mtime of path (not followed) to sec.nsec. */
static void
src_mtime(const char *path, time_t sec, long nsec)
{
	struct timespec	ts[2] = { { 0, UTIME_OMIT }, { sec, nsec } };

	assert_int_equal(utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW),
	    0);
}

/* Assert that the files a and b hold the same bytes. */
static void
same_content(const char *a, const char *b, off_t size)
{
	char	*ba, *bb;
	int	 fa, fb;

	ba = xmalloc((size_t)size + 1);
	bb = xmalloc((size_t)size + 1);
	assert_true((fa = open(a, O_RDONLY | O_NOFOLLOW)) != -1);
	assert_true((fb = open(b, O_RDONLY | O_NOFOLLOW)) != -1);
	assert_int_equal(read(fa, ba, (size_t)size + 1), (ssize_t)size);
	assert_int_equal(read(fb, bb, (size_t)size + 1), (ssize_t)size);
	assert_memory_equal(ba, bb, (size_t)size);
	close(fa);
	close(fb);
	free(ba);
	free(bb);
}

/* Assert that a and b (never followed) are alike as sync sees them. */
static void
same_entry(const char *a, const char *b)
{
	struct stat	sa, sb;
	char		ta[PATH_MAX];
	ssize_t		n;

	assert_int_equal(lstat(a, &sa), 0);
	assert_int_equal(lstat(b, &sb), 0);
	assert_int_equal(sa.st_mode & S_IFMT, sb.st_mode & S_IFMT);
	if (S_ISLNK(sa.st_mode)) {
		assert_true((n = readlink(a, ta, sizeof ta - 1)) >= 0);
		ta[n] = '\0';
		tf_link(b, ta);
		return;
	}
	assert_int_equal(sa.st_mode & 07777, sb.st_mode & 07777);
	assert_int_equal(sa.st_mtim.tv_sec, sb.st_mtim.tv_sec);
	assert_int_equal(sa.st_mtim.tv_nsec, sb.st_mtim.tv_nsec);
	if (S_ISREG(sa.st_mode)) {
		assert_int_equal(sa.st_size, sb.st_size);
		same_content(a, b, sa.st_size);
	}
}

/* tarstream_create of paths[0..n) from src into wr(arg); its result. */
static int
create(struct pathguard *src, const char *const *paths, size_t n,
    tarstream_write_fn wr, void *arg, struct tarstream_stats *st,
    char **cause)
{
	char	**v;
	size_t	  i;
	int	  r;

	v = xreallocarray(NULL, n, sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = xstrdup(paths[i]);
	r = tarstream_create(src, v, n, wr, arg, st, cause);
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return r;
}

/* A tarstream_write_fn that counts its calls and fails the second. */
static int
sink_fail_second(void *arg, const void *buf, size_t len)
{
	int	*calls = arg;

	return ++*calls == 2 ? CLAW_ERR_IO : 0;
}

/* A tarstream_read_fn that serves its source, then fails. */
static ssize_t
read_then_fail(void *arg, const void **buf)
{
	struct tf_src	*src = arg;

	if (src->off == src->len)
		return -1;
	return tf_read(src, buf);
}

/* --- the round trip ---------------------------------------------------- */

static const char *const rt_paths[] = {
	"d", "d/e", "d/big", "d/e/deep", "d/lnk", "empty", "f", "top"
};

/* Build the source tree of the round trip in top/src. */
static void
rt_tree(struct tfx *fx)
{
	char	*big, *src = xstrdup(pf_at(fx->top, "src"));

	assert_int_equal(mkdir(pf_at(src, "d"), 0755), 0);
	assert_int_equal(mkdir(pf_at(src, "d/e"), 0750), 0);
	big = xmalloc(BIG_SIZE);
	tf_random(big, BIG_SIZE, 42);
	tf_write(pf_at(src, "d/big"), big, BIG_SIZE, 0644, 1600000000,
	    999999999);
	free(big);
	tf_write(pf_at(src, "d/e/deep"), "deep\n", 5, 0600, 1600000001, 1);
	tf_write(pf_at(src, "empty"), "", 0, 0755, 1600000002, 123456789);
	tf_write(pf_at(src, "f"), "hello\n", 6, 0640, 1600000003, 500);
	assert_int_equal(symlink("../f", pf_at(src, "d/lnk")), 0);
	assert_int_equal(symlink("d/e", pf_at(src, "top")), 0);
	assert_int_equal(chmod(pf_at(src, "d"), 0755), 0);
	assert_int_equal(chmod(pf_at(src, "d/e"), 0750), 0);
	src_mtime(pf_at(src, "d/e"), 1500000000, 250000000);
	src_mtime(pf_at(src, "d"), 1500000001, 750000001);
	free(src);
}

/*
 * Files, an empty file, a 1 MiB file, nested directories and relative
 * links survive create and extract (served 7 bytes at a time) with their
 * content, types, modes, link targets and mtimes to the nanosecond; the
 * directories' mtimes are set after their content was written.
 */
static void
t_round_trip(void **state)
{
	struct tfx		*fx = *state;
	struct tarstream_stats	 cst;
	struct pathguard	*src;
	struct tb		 out;
	char			*cause = NULL, dir[PATH_MAX];
	size_t			 i, n = PF_NITEMS(rt_paths);

	snprintf(dir, sizeof dir, "%s/src", fx->top);
	memset(&cst, 0, sizeof cst);
	memset(&out, 0, sizeof out);
	src = src_open(fx);
	rt_tree(fx);
	assert_int_equal(create(src, rt_paths, n, tf_sink, &out,
	    &cst, &cause), 0);
	assert_null(cause);
	assert_int_equal(cst.files, 4);
	assert_int_equal(cst.dirs, 2);
	assert_int_equal(cst.links, 2);
	assert_int_equal(cst.bytes, BIG_SIZE + 5 + 6);
	assert_int_equal(tf_extract(fx, out.buf, out.len, 7, NULL), 0);
	assert_int_equal(fx->st.files, 4);
	assert_int_equal(fx->st.dirs, 2);
	assert_int_equal(fx->st.links, 2);
	assert_int_equal(fx->st.bytes, BIG_SIZE + 5 + 6);
	assert_int_equal(fx->st.refused, 0);
	assert_int_equal(fx->st.deleted, 0);
	for (i = 0; i < n; i++)
		same_entry(pf_at(dir, rt_paths[i]), pf_at(fx->ws, rt_paths[i]));
	assert_int_equal(pf_count(fx->ws), 4);
	free(out.buf);
	pathguard_close(src);
	tf_clean(fx, "src");
}

/* Pieces of one byte are put together as well as pieces of any size. */
static void
t_one_byte_pieces(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tb_new(ARCHIVE_FORMAT_TAR_GNUTAR);
	char		 data[1500];

	tf_random(data, sizeof data, 7);
	tb_dir(tb, "d", 0755);
	tb_file_mode(tb, "d/f", data, sizeof data, 0644, 1, 0);
	tb_symlink(tb, "l", "d/f");
	assert_int_equal(tf_extract_tb(fx, tb, 1, NULL), 0);
	assert_int_equal(fx->st.files + fx->st.dirs + fx->st.links, 3);
	assert_int_equal(pf_mode(pf_at(fx->ws, "d/f")) & 0777, 0644);
	tf_link(pf_at(fx->ws, "l"), "d/f");
	tf_clean(fx, NULL);
}

/* --- creation ---------------------------------------------------------- */

/* A path that is gone is skipped, and so is a FIFO. */
static void
t_create_skips(void **state)
{
	struct tfx		*fx = *state;
	struct pathguard	*src = src_open(fx);
	struct tb		 out;
	char			*cause = NULL;
	const char		*const paths[] = { "gone", "p", "f" };

	memset(&out, 0, sizeof out);
	assert_int_equal(mkfifo(pf_at(fx->top, "src/p"), 0644), 0);
	tf_write(pf_at(fx->top, "src/f"), "f\n", 2, 0644, 1, 0);
	assert_int_equal(create(src, paths, 3, tf_sink, &out, NULL,
	    &cause), 0);
	assert_int_equal(tf_extract(fx, out.buf, out.len, 0, NULL), 0);
	assert_int_equal(fx->st.files, 1);
	assert_int_equal(fx->st.refused, 0);
	assert_int_equal(pf_count(fx->ws), 1);
	pf_content(pf_at(fx->ws, "f"), "f\n");
	free(out.buf);
	pathguard_close(src);
	tf_clean(fx, "src");
}

/* Setuid, setgid and sticky bits are not sent. */
static void
t_create_strips_bits(void **state)
{
	struct tfx		*fx = *state;
	struct pathguard	*src = src_open(fx);
	struct archive		*a;
	struct archive_entry	*e;
	struct tb		 out;
	char			*cause = NULL;
	const char		*const paths[] = { "d", "f" };

	memset(&out, 0, sizeof out);
	assert_int_equal(mkdir(pf_at(fx->top, "src/d"), 0755), 0);
	assert_int_equal(chmod(pf_at(fx->top, "src/d"), 03755), 0);
	tf_write(pf_at(fx->top, "src/f"), "x", 1, 04755, 1, 0);
	assert_int_equal(create(src, paths, 2, tf_sink, &out, NULL,
	    &cause), 0);
	assert_non_null(a = archive_read_new());
	archive_read_support_format_tar(a);
	assert_int_equal(archive_read_open_memory(a, out.buf, out.len), 0);
	assert_int_equal(archive_read_next_header(a, &e), ARCHIVE_OK);
	assert_int_equal(archive_entry_mode(e), S_IFDIR | 0755);
	assert_int_equal(archive_read_next_header(a, &e), ARCHIVE_OK);
	assert_int_equal(archive_entry_mode(e), S_IFREG | 0755);
	assert_int_equal(archive_read_next_header(a, &e), ARCHIVE_EOF);
	archive_read_free(a);
	free(out.buf);
	pathguard_close(src);
	tf_clean(fx, "src");
}

/*
 * A failed creation leaves the stream unfinished: no padding and no
 * end-of-archive blocks are written after the failure, so a reader
 * cannot take what was sent for a complete archive.
 */
static void
t_create_failure_unfinished(void **state)
{
	struct tfx		*fx = *state;
	struct pathguard	*src = src_open(fx);
	struct tb		 out;
	char			*cause = NULL;
	const char		*const paths[] = { "f", "../x" };

	memset(&out, 0, sizeof out);
	tf_write(pf_at(fx->top, "src/f"), "hello", 5, 0644, 1, 0);
	assert_int_equal(create(src, paths, 2, tf_sink, &out, NULL,
	    &cause), CLAW_ERR_INVAL);
	pf_cause(cause, "component");
	assert_int_not_equal(out.len % 512, 0);
	assert_int_equal(tf_extract(fx, out.buf, out.len, 0, NULL),
	    CLAW_ERR_PARSE);
	pf_absent(pf_at(fx->ws, "f"));
	free(out.buf);
	pathguard_close(src);
	tf_clean(fx, "src");
}

/*
 * A sink that fails inside a file's content fails the creation with a
 * cause, and is not called again: neither the rest of the file nor the
 * end-of-archive blocks are pushed after the failure.
 */
static void
t_create_sink_fails(void **state)
{
	struct tfx		*fx = *state;
	struct pathguard	*src = src_open(fx);
	char			*big, *cause = NULL;
	const char		*const paths[] = { "big", "f" };
	int			 calls = 0;

	big = xmalloc(BIG_SIZE);
	tf_random(big, BIG_SIZE, 3);
	tf_write(pf_at(fx->top, "src/big"), big, BIG_SIZE, 0644, 1, 0);
	free(big);
	tf_write(pf_at(fx->top, "src/f"), "hello", 5, 0644, 1, 0);
	assert_int_equal(create(src, paths, 2, sink_fail_second, &calls, NULL,
	    &cause), CLAW_ERR_IO);
	pf_cause(cause, "writing the stream failed");
	assert_int_equal(calls, 2);
	pathguard_close(src);
	tf_clean(fx, "src");
}

/* --- caps -------------------------------------------------------------- */

/* A sixth entry passes max_entries 5: stopped, the limit named. */
static void
t_max_entries(void **state)
{
	struct tfx		*fx = *state;
	struct tarstream_limits	 lim = { 5, TARSTREAM_MAX_BYTES };
	struct tb		*tb = tb_new(ARCHIVE_FORMAT_TAR_USTAR);
	char			 name[16];
	int			 i;

	for (i = 0; i < 6; i++) {
		snprintf(name, sizeof name, "f%d", i);
		tb_file(tb, name, "x");
	}
	assert_int_equal(tf_extract_tb(fx, tb, 0, &lim), CLAW_ERR_PERM);
	pf_cause(xstrdup(fx->cause), "more than 5 entries (limit)");
	assert_int_equal(pf_count(fx->ws), 5);
	pf_absent(pf_at(fx->ws, "f5"));
	tf_clean(fx, NULL);
}

/* An archive of 600-byte files named names[0..n). */
static struct tb *
files_600(const char *const *names, size_t n)
{
	struct tb	*tb = tb_new(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED);
	char		 data[600];
	size_t		 i;

	memset(data, 'x', sizeof data);
	for (i = 0; i < n; i++)
		tb_file_mode(tb, names[i], data, sizeof data, 0644, 1, 0);
	return tb;
}

/* Two files of 600 bytes pass max_bytes 1000: the second is not written. */
static void
t_max_bytes(void **state)
{
	struct tfx		*fx = *state;
	struct tarstream_limits	 lim = { 100, 1000 };
	const char		*const ab[] = { "a", "b" };

	assert_int_equal(tf_extract_tb(fx, files_600(ab, 2), 0, &lim),
	    CLAW_ERR_PERM);
	pf_cause(xstrdup(fx->cause), "exceeds 1000 bytes (limit)");
	assert_int_equal(pf_count(fx->ws), 1);
	pf_absent(pf_at(fx->ws, "b"));
	tf_clean(fx, NULL);
}

/*
 * The byte cap counts this stream only: counts already in st (from an
 * earlier stream) neither lower nor lift it.
 */
static void
t_max_bytes_per_stream(void **state)
{
	struct tfx		*fx = *state;
	struct tarstream_limits	 lim = { 100, 1000 };
	const char		*const a[] = { "a" };
	const char		*const bc[] = { "b", "c" };

	fx->st.bytes = 500;
	assert_int_equal(tf_extract_tb(fx, files_600(a, 1), 0, &lim), 0);
	assert_int_equal(fx->st.bytes, 1100);
	assert_int_equal(tf_extract_tb(fx, files_600(bc, 2), 0, &lim),
	    CLAW_ERR_PERM);
	assert_int_equal(fx->st.bytes, 1700);
	pf_absent(pf_at(fx->ws, "c"));
	assert_int_equal(pf_count(fx->ws), 2);
	tf_clean(fx, NULL);
}

/*
 * A huge declared size with little data behind it: an error, no file and
 * no temporary file left behind.
 */
static void
t_huge_size_truncated(void **state)
{
	struct tfx		*fx = *state;
	struct tb		*tb;
	struct archive_entry	*e;
	char			 data[1000];

	memset(data, 'x', sizeof data);
	tb = tb_new(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED);
	assert_non_null(e = archive_entry_new());
	archive_entry_set_pathname(e, "huge");
	archive_entry_set_mode(e, S_IFREG | 0644);
	archive_entry_set_size(e, (la_int64_t)16 << 30);
	tb_entry(tb, e, data, sizeof data);
	assert_int_equal(tf_extract(fx, tb->buf, tb->len, 7, NULL),
	    CLAW_ERR_PARSE);
	tb_free(tb);
	assert_int_equal(pf_count(fx->ws), 0);
	tf_clean(fx, NULL);
}

/* --- malformed, cut, empty --------------------------------------------- */

/* Random bytes are no tar stream. */
static void
t_garbage(void **state)
{
	struct tfx	*fx = *state;
	char		 junk[4096];

	tf_random(junk, sizeof junk, 1234);
	assert_int_equal(tf_extract(fx, junk, sizeof junk, 0, NULL),
	    CLAW_ERR_PARSE);
	assert_int_equal(pf_count(fx->ws), 0);
	tf_clean(fx, NULL);
}

/* Build "a" then "b" (1000 bytes each); return where b's data starts. */
static size_t
cut_archive(struct tb **tbp)
{
	struct tb	*tb = tb_new(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED);
	char		 data[1000];
	size_t		 at;

	memset(data, 'n', sizeof data);
	tb_file_mode(tb, "a", data, sizeof data, 0644, 1, 0);
	at = tb_file_mode(tb, "b", data, sizeof data, 0644, 1, 0);
	tb_close(tb);
	*tbp = tb;
	return at;
}

/* A stream cut inside the second file: the first complete, no second. */
static void
t_cut_second_absent(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb;
	size_t		 at = cut_archive(&tb);
	struct stat	 st;

	assert_int_equal(tf_extract(fx, tb->buf, at + 700, 7, NULL),
	    CLAW_ERR_PARSE);
	tb_free(tb);
	assert_int_equal(lstat(pf_at(fx->ws, "a"), &st), 0);
	assert_int_equal(st.st_size, 1000);
	pf_absent(pf_at(fx->ws, "b"));
	assert_int_equal(pf_count(fx->ws), 1);
	tf_clean(fx, NULL);
}

/* Cut inside a file that was there before: the old content stays. */
static void
t_cut_second_keeps_old(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb;
	size_t		 at = cut_archive(&tb);

	tf_write(pf_at(fx->ws, "b"), "old\n", 4, 0644, 1, 0);
	assert_int_equal(tf_extract(fx, tb->buf, at + 700, 0, NULL),
	    CLAW_ERR_PARSE);
	tb_free(tb);
	pf_content(pf_at(fx->ws, "b"), "old\n");
	assert_int_equal(pf_count(fx->ws), 2);
	tf_clean(fx, NULL);
}

/* A source that fails inside a file: an error, no torn file, no temp. */
static void
t_read_error(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb;
	size_t		 at = cut_archive(&tb);
	struct tf_src	 src = { tb->buf, at + 700, 0, 100 };
	char		*cause = NULL;

	assert_true(tarstream_extract(fx->pg, read_then_fail, &src, NULL,
	    &fx->st, &cause) < 0);
	pf_cause(cause, "reading the stream failed");
	tb_free(tb);
	pf_absent(pf_at(fx->ws, "b"));
	assert_int_equal(pf_count(fx->ws), 1);
	tf_clean(fx, NULL);
}

/*
 * An empty stream (no bytes at all) is not a tar stream: CLAW_ERR_PARSE.
 * A remote tar that worked sends end-of-archive blocks at least; nothing
 * at all means it failed before writing, which must not pass as "nothing
 * to do".
 */
static void
t_empty_stream(void **state)
{
	struct tfx	*fx = *state;

	assert_int_equal(tf_extract(fx, "", 0, 0, NULL), CLAW_ERR_PARSE);
	assert_int_equal(pf_count(fx->ws), 0);
	tf_clean(fx, NULL);
}

/* An archive of end-of-archive blocks only is a valid empty archive. */
static void
t_empty_archive(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tb_new(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED);

	assert_int_equal(tf_extract_tb(fx, tb, 7, NULL), 0);
	assert_int_equal(fx->st.files + fx->st.dirs + fx->st.refused, 0);
	assert_int_equal(pf_count(fx->ws), 0);
	tf_clean(fx, NULL);
}

/* --- the root replaced ------------------------------------------------- */

/* A source that swaps the workspace once it served swap_at bytes. */
struct swap_src {
	struct tf_src	 src;
	size_t		 swap_at;
	struct tfx	*fx;
	int		 swapped;
};

/* Serve; once past swap_at, move ws/ to ws.old/ and make a new ws/. */
static ssize_t
swap_read(void *arg, const void **buf)
{
	struct swap_src	*s = arg;

	if (!s->swapped && s->src.off >= s->swap_at) {
		assert_int_equal(rename(s->fx->ws, pf_at(s->fx->top,
		    "ws.old")), 0);
		assert_int_equal(mkdir(s->fx->ws, 0755), 0);
		s->swapped = 1;
	}
	return tf_read(&s->src, buf);
}

/*
 * The root replaced after the first entry: stopped with "replaced";
 * the first entry is in the old root, nothing at all in the new ws/.
 */
static void
t_root_replaced(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tb_new(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED);
	struct swap_src	 s;
	char		*cause = NULL;

	memset(&s, 0, sizeof s);
	tb_file(tb, "f1", "one\n");
	s.swap_at = tb_file(tb, "f2", "two\n") - 512;
	tb_dir(tb, "d", 0755);
	tb_file(tb, "d/f3", "three\n");
	tb_close(tb);
	s.src.buf = tb->buf;
	s.src.len = tb->len;
	s.src.piece = 7;
	s.fx = fx;
	assert_int_equal(tarstream_extract(fx->pg, swap_read, &s, NULL,
	    &fx->st, &cause), CLAW_ERR_PERM);
	pf_cause(cause, "replaced");
	tb_free(tb);
	assert_true(s.swapped);
	assert_int_equal(pf_count(fx->ws), 0);
	pf_content(pf_at(fx->top, "ws.old/f1"), "one\n");
	assert_int_equal(pf_count(pf_at(fx->top, "ws.old")), 1);
	tf_clean(fx, "ws.old");
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		TF_TEST(t_round_trip), TF_TEST(t_one_byte_pieces),
		TF_TEST(t_create_skips), TF_TEST(t_create_strips_bits),
		TF_TEST(t_create_failure_unfinished),
		TF_TEST(t_create_sink_fails),
		TF_TEST(t_max_entries), TF_TEST(t_max_bytes),
		TF_TEST(t_max_bytes_per_stream),
		TF_TEST(t_huge_size_truncated), TF_TEST(t_garbage),
		TF_TEST(t_cut_second_absent), TF_TEST(t_cut_second_keeps_old),
		TF_TEST(t_read_error), TF_TEST(t_empty_stream),
		TF_TEST(t_empty_archive), TF_TEST(t_root_replaced),
	};

	return pf_run("tarstream", tests, PF_NITEMS(tests)) == 0 ? 0 : 1;
}
