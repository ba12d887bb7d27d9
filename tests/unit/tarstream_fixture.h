/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fixture for the tarstream unit tests: each test runs in its own mkdtemp
 * directory holding ws/ (the workspace, opened as fx->pg) and outside/
 * (nothing may ever appear there), removed afterwards; it is
 * pathguard_fixture's, with out/ renamed outside/.  Archives are built
 * in memory with libarchive's writer (struct tb) and served to
 * tarstream_extract in pieces of any size.  Uses the generic helpers of
 * pathguard_fixture.h (pf_run, pf_at, pf_cause, pf_count, pf_absent,
 * pf_mode, pf_content).  Include <cmocka.h> before this header.
 */
#ifndef CLAW_TARSTREAM_FIXTURE_H
#define CLAW_TARSTREAM_FIXTURE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <archive.h>
#include <archive_entry.h>

#include "pathguard.h"
#include "pathguard_fixture.h"
#include "tarstream.h"

/* A test run with tf_setup and tf_teardown. */
#define TF_TEST(fn)	cmocka_unit_test_setup_teardown(fn, tf_setup, \
			    tf_teardown)

/* Per-test state. */
struct tfx {
	struct fx		*pf;		/* pathguard_fixture's */
	const char		*top;		/* holds ws/, outside/ */
	const char		*ws;		/* the workspace root */
	char			*out;		/* must stay empty */
	struct pathguard	*pg;		/* ws/, opened */
	struct tarstream_stats	 st;		/* zero at first */
	char			*cause;		/* last failure */
	const struct tarstream_expect *ex;	/* NULL at first */
};

/* An archive being written into a growable buffer. */
struct tb {
	struct archive	*a;		/* NULL: a plain buffer */
	unsigned char	*buf;
	size_t		 len;
	size_t		 cap;
	int		 mute;		/* drop what is written */
};

/* A stream served to tarstream_extract, piece bytes at a time (0: all). */
struct tf_src {
	const unsigned char	*buf;
	size_t			 len;
	size_t			 off;
	size_t			 piece;
};

/* Make top/, ws/ and outside/ and open ws/; undo it all. */
int		 tf_setup(void **state);
int		 tf_teardown(void **state);

/*
 * Start an archive of format (ARCHIVE_FORMAT_TAR_*), written through as
 * it is built (no blocking), so tb->len is where the next entry starts.
 */
struct tb	*tb_new(int format);

/* Close the archive: end-of-archive blocks.  tb->buf stays. */
void		 tb_close(struct tb *tb);

/* Free tb and its buffer, adding nothing to it.  NULL is fine. */
void		 tb_free(struct tb *tb);

/*
 * A tarstream_write_fn appending to the buffer of the struct tb arg (one
 * made with xcalloc alone, a == NULL, collects a stream).
 */
int		 tf_sink(void *arg, const void *buf, size_t len);

/* Write e and len bytes of data; return the offset where data starts. */
size_t		 tb_entry(struct tb *tb, struct archive_entry *e,
		    const void *data, size_t len);

/* Entries of each kind; mtime 1000000000.5, or as given. */
size_t		 tb_file(struct tb *tb, const char *name,
		    const char *content);
size_t		 tb_file_mode(struct tb *tb, const char *name,
		    const void *data, size_t len, mode_t perm, time_t sec,
		    long nsec);
void		 tb_dir(struct tb *tb, const char *name, mode_t perm);
void		 tb_symlink(struct tb *tb, const char *name,
		    const char *target);
void		 tb_hardlink(struct tb *tb, const char *name,
		    const char *target);
void		 tb_node(struct tb *tb, const char *name, mode_t type,
		    dev_t rdev);

/*
 * Rewrite the ustar header before the data at data_at (as returned by
 * tb_file): typeflag type, linkname link, checksum fixed.  Makes entries
 * libarchive's writer refuses to, such as a hard link with data.
 */
void		 tb_patch(struct tb *tb, size_t data_at, char type,
		    const char *link);

/* The tarstream_read_fn serving a struct tf_src. */
ssize_t		 tf_read(void *arg, const void **buf);

/*
 * Extract buf[0..len) in pieces of piece bytes into fx->ws, expecting
 * fx->ex (tarstream_extract_expect), counting into fx->st (not reset)
 * and setting fx->cause on failure; its result.
 */
int		 tf_extract(struct tfx *fx, const void *buf, size_t len,
		    size_t piece, const struct tarstream_limits *lim);

/* Close tb, extract it in pieces of piece bytes, free it; the result. */
int		 tf_extract_tb(struct tfx *fx, struct tb *tb, size_t piece,
		    const struct tarstream_limits *lim);

/*
 * Assert that top/ holds only ws/, outside/ and extra (unless NULL),
 * that outside/ is empty and that no PATHGUARD_TMP_PREFIX file is left
 * anywhere under top/.
 */
void		 tf_clean(struct tfx *fx, const char *extra);

/*
 * Create the file path directly (not through pathguard) with len bytes of
 * data, mode and mtime sec.nsec; it must not exist yet.
 */
void		 tf_write(const char *path, const void *data, size_t len,
		    mode_t mode, time_t sec, long nsec);

/* Assert that path is a symbolic link to target. */
void		 tf_link(const char *path, const char *target);

/* Fill buf with len reproducible pseudo-random bytes from seed. */
void		 tf_random(void *buf, size_t len, uint32_t seed);

/*
 * The hostile-entry sandwich: tf_begin starts an archive with the file
 * "before"; the test adds its hostile entries; tf_end_refused adds the
 * file "after", extracts in 7-byte pieces and asserts success, that
 * exactly refused entries were refused, that both files arrived, that
 * ws/ holds nentries entries and that tf_clean holds.
 */
struct tb	*tf_begin(void);
void		 tf_end_refused(struct tfx *fx, struct tb *tb,
		    uint64_t refused, int nentries);

#endif /* CLAW_TARSTREAM_FIXTURE_H */
