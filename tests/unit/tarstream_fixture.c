/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fixture for the tarstream unit tests: scratch directories, archives
 * built in memory, and a stream served in pieces.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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

#include "pathguard.h"
#include "tarstream.h"
#include "tarstream_fixture.h"
#include "xmalloc.h"

/* Let the owner into every directory so that it can be removed. */
static int
tf_open_up(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	if (flag == FTW_D || flag == FTW_DNR)
		chmod(path, 0700);
	return 0;
}

/* Set up as pathguard_fixture does, with out/ renamed outside/. */
int
tf_setup(void **state)
{
	struct tfx	*fx;
	void		*pf;

	pf_setup(&pf);
	fx = xcalloc(1, sizeof *fx);
	fx->pf = pf;
	fx->top = fx->pf->top;
	fx->ws = fx->pf->ws;
	fx->pg = fx->pf->pg;
	fx->out = xasprintf("%s/outside", fx->top);
	assert_int_equal(rename(fx->pf->out, fx->out), 0);
	*state = fx;
	return 0;
}

/* Close and remove everything the test made, whatever its modes. */
int
tf_teardown(void **state)
{
	struct tfx	*fx = *state;
	void		*pf = fx->pf;

	nftw(fx->top, tf_open_up, 16, FTW_PHYS);
	pf_teardown(&pf);
	free(fx->cause);
	free(fx->out);
	free(fx);
	return 0;
}

/* Append len bytes to the buffer of the struct tb arg. */
int
tf_sink(void *arg, const void *buf, size_t len)
{
	struct tb	*tb = arg;

	while (tb->cap - tb->len < len) {
		tb->cap = tb->cap == 0 ? 65536 : tb->cap * 2;
		tb->buf = xreallocarray(tb->buf, tb->cap, 1);
	}
	memcpy(tb->buf + tb->len, buf, len);
	tb->len += len;
	return 0;
}

/* libarchive's write callback: append, unless muted. */
static la_ssize_t
tb_write_cb(struct archive *a, void *data, const void *buf, size_t len)
{
	struct tb	*tb = data;

	if (!tb->mute)
		tf_sink(tb, buf, len);
	return (la_ssize_t)len;
}

/* Start an archive of format, written through as it is built. */
struct tb *
tb_new(int format)
{
	struct tb	*tb;

	tb = xcalloc(1, sizeof *tb);
	assert_non_null(tb->a = archive_write_new());
	assert_int_equal(archive_write_set_format(tb->a, format), ARCHIVE_OK);
	assert_int_equal(archive_write_set_bytes_per_block(tb->a, 0),
	    ARCHIVE_OK);
	assert_int_equal(archive_write_open2(tb->a, tb, NULL, tb_write_cb,
	    NULL, NULL), ARCHIVE_OK);
	return tb;
}

/* Close the archive, writing the end-of-archive blocks. */
void
tb_close(struct tb *tb)
{
	assert_int_equal(archive_write_close(tb->a), ARCHIVE_OK);
}

/* Free tb without writing anything more. */
void
tb_free(struct tb *tb)
{
	if (tb == NULL)
		return;
	/* Drop what freeing writes (archive_write_fail would leak). */
	tb->mute = 1;
	if (tb->a != NULL)
		archive_write_free(tb->a);
	free(tb->buf);
	free(tb);
}

/* Write e and its data; return the offset where the data starts. */
size_t
tb_entry(struct tb *tb, struct archive_entry *e, const void *data,
    size_t len)
{
	size_t	start;

	if (archive_write_header(tb->a, e) != ARCHIVE_OK)
		fail_msg("header %s: %s", archive_entry_pathname(e),
		    archive_error_string(tb->a));
	start = tb->len;
	if (len > 0)
		assert_int_equal(archive_write_data(tb->a, data, len),
		    (la_ssize_t)len);
	archive_entry_free(e);
	return start;
}

/* A new entry named name of type and permissions mode. */
static struct archive_entry *
tb_new_entry(const char *name, mode_t mode)
{
	struct archive_entry	*e;

	assert_non_null(e = archive_entry_new());
	archive_entry_set_pathname(e, name);
	archive_entry_set_mode(e, mode);
	archive_entry_set_mtime(e, 1000000000, 500000000);
	archive_entry_set_size(e, 0);
	return e;
}

/* A regular file with content, mode 0644. */
size_t
tb_file(struct tb *tb, const char *name, const char *content)
{
	return tb_file_mode(tb, name, content, strlen(content), 0644,
	    1000000000, 500000000);
}

/* A regular file with data, perm and mtime sec.nsec. */
size_t
tb_file_mode(struct tb *tb, const char *name, const void *data, size_t len,
    mode_t perm, time_t sec, long nsec)
{
	struct archive_entry	*e = tb_new_entry(name, S_IFREG | perm);

	archive_entry_set_size(e, (la_int64_t)len);
	archive_entry_set_mtime(e, sec, nsec);
	return tb_entry(tb, e, data, len);
}

/* A directory. */
void
tb_dir(struct tb *tb, const char *name, mode_t perm)
{
	tb_entry(tb, tb_new_entry(name, S_IFDIR | perm), NULL, 0);
}

/* A symbolic link name -> target. */
void
tb_symlink(struct tb *tb, const char *name, const char *target)
{
	struct archive_entry	*e = tb_new_entry(name, S_IFLNK | 0777);

	archive_entry_set_symlink(e, target);
	tb_entry(tb, e, NULL, 0);
}

/* A hard link name to target. */
void
tb_hardlink(struct tb *tb, const char *name, const char *target)
{
	struct archive_entry	*e = tb_new_entry(name, S_IFREG | 0644);

	archive_entry_set_hardlink(e, target);
	tb_entry(tb, e, NULL, 0);
}

/* A device or FIFO of type (S_IFCHR, S_IFBLK, S_IFIFO). */
void
tb_node(struct tb *tb, const char *name, mode_t type, dev_t rdev)
{
	struct archive_entry	*e = tb_new_entry(name, type | 0666);

	archive_entry_set_rdev(e, rdev);
	tb_entry(tb, e, NULL, 0);
}

/*
 * Rewrite the ustar header before the data at data_at: typeflag type,
 * linkname link, and a checksum that fits again.
 */
void
tb_patch(struct tb *tb, size_t data_at, char type, const char *link)
{
	unsigned char	*h;
	unsigned int	 sum = 0;
	size_t		 i;

	assert_true(data_at >= 512 && data_at <= tb->len);
	assert_true(strlen(link) < 100);
	h = tb->buf + data_at - 512;
	h[156] = (unsigned char)type;
	memset(h + 157, 0, 100);
	memcpy(h + 157, link, strlen(link));
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
}

/* Serve the next piece of a struct tf_src. */
ssize_t
tf_read(void *arg, const void **buf)
{
	struct tf_src	*src = arg;
	size_t		 n = src->len - src->off;

	if (src->piece != 0 && n > src->piece)
		n = src->piece;
	*buf = src->buf + src->off;
	src->off += n;
	return (ssize_t)n;
}

/* Extract buf[0..len) in pieces into fx->ws. */
int
tf_extract(struct tfx *fx, const void *buf, size_t len, size_t piece,
    const struct tarstream_limits *lim)
{
	struct tf_src	src = { buf, len, 0, piece };
	int		r;

	free(fx->cause);
	fx->cause = NULL;
	r = tarstream_extract_expect(fx->pg, tf_read, &src, lim, fx->ex,
	    &fx->st, &fx->cause);
	if (r == 0)
		assert_null(fx->cause);
	else
		assert_non_null(fx->cause);
	return r;
}

/* Close tb, extract it, free it. */
int
tf_extract_tb(struct tfx *fx, struct tb *tb, size_t piece,
    const struct tarstream_limits *lim)
{
	int	r;

	tb_close(tb);
	r = tf_extract(fx, tb->buf, tb->len, piece, lim);
	tb_free(tb);
	return r;
}

/* Fail if a temporary file of pathguard's is found. */
static int
tf_tmp_one(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	if (strncmp(path + ftw->base, PATHGUARD_TMP_PREFIX,
	    strlen(PATHGUARD_TMP_PREFIX)) == 0)
		fail_msg("temporary file left behind: %s", path);
	return 0;
}

/* Assert that top/ holds only ws/, outside/ and extra; outside/ empty. */
void
tf_clean(struct tfx *fx, const char *extra)
{
	struct dirent	*de;
	DIR		*d;

	assert_int_equal(pf_count(fx->out), 0);
	assert_true(S_ISDIR(pf_mode(fx->ws)));
	assert_non_null(d = opendir(fx->top));
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, "ws") == 0 ||
		    strcmp(de->d_name, "outside") == 0 ||
		    (extra != NULL && strcmp(de->d_name, extra) == 0))
			continue;
		closedir(d);
		fail_msg("unexpected %s in the test directory", de->d_name);
	}
	closedir(d);
	assert_int_equal(nftw(fx->top, tf_tmp_one, 16, FTW_PHYS), 0);
}

/* Create the file path directly (not through pathguard). */
void
tf_write(const char *path, const void *data, size_t len, mode_t mode,
    time_t sec, long nsec)
{
	struct timespec	ts[2] = { { 0, UTIME_OMIT }, { sec, nsec } };
	int		fd;

	assert_true((fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600)) !=
	    -1);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(futimens(fd, ts), 0);
	close(fd);
}

/* Assert that path is a symbolic link to target. */
void
tf_link(const char *path, const char *target)
{
	char	buf[PATH_MAX];
	ssize_t	n;

	assert_true(S_ISLNK(pf_mode(path)));
	assert_true((n = readlink(path, buf, sizeof buf - 1)) >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, target);
}

/* Fill buf with reproducible pseudo-random bytes (xorshift32). */
void
tf_random(void *buf, size_t len, uint32_t seed)
{
	unsigned char	*p = buf;
	uint32_t	 x = seed != 0 ? seed : 1;
	size_t		 i;

	for (i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)(x >> 24);
	}
}

/* Start the sandwich: an archive with the file "before". */
struct tb *
tf_begin(void)
{
	struct tb	*tb = tb_new(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED);

	tb_file(tb, "before", "b\n");
	return tb;
}

/* End the sandwich with "after", extract, and check the outcome. */
void
tf_end_refused(struct tfx *fx, struct tb *tb, uint64_t refused,
    int nentries)
{
	int	r;

	tb_file(tb, "after", "a\n");
	if ((r = tf_extract_tb(fx, tb, 7, NULL)) != 0)
		fail_msg("extract: %d %s", r, fx->cause);
	assert_int_equal(fx->st.refused, refused);
	pf_content(pf_at(fx->ws, "before"), "b\n");
	pf_content(pf_at(fx->ws, "after"), "a\n");
	assert_int_equal(pf_count(fx->ws), nentries);
	tf_clean(fx, NULL);
}
