/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for tarstream_extract against hostile archives: bad names,
 * hard links, devices and FIFOs, link targets that climb out, chained
 * links, a directory turned into a link, a link planted in the
 * workspace, setuid, setgid and sticky bits, and type changes.  Each
 * hostile entry sits between two plain files that must still arrive;
 * outside/ must stay empty.  Each test runs twice (see
 * pathguard_fixture.h): with openat2(2) and with the walk.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/sysmacros.h>

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

/* --- names ------------------------------------------------------------- */

/*
 * A file named name, between "before" and "after" in an archive of
 * format, is refused on its name alone: before its size is charged (only
 * the 4 bytes of the two plain files count) and before anything is made.
 */
static void
name_refused(struct tfx *fx, int format, const char *name)
{
	struct tb	*tb = tb_new(format);

	tb_file(tb, "before", "b\n");
	tb_file(tb, name, "evil");
	tf_end_refused(fx, tb, 1, 2);
	assert_int_equal(fx->st.bytes, 4);
}

/* An absolute name is refused outright: not made relative, not in ws/. */
static void
t_name_absolute(void **state)
{
	name_refused(*state, ARCHIVE_FORMAT_TAR_USTAR, "/abs/x");
}

/* "../x" is refused. */
static void
t_name_dotdot(void **state)
{
	name_refused(*state, ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, "../x");
}

/* "a/../../x" is refused as a whole: not even a/ is made. */
static void
t_name_dotdot_inner(void **state)
{
	name_refused(*state, ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, "a/../../x");
}

/* A long GNU name (an 'L' record) that climbs out is refused too. */
static void
t_name_gnu_long(void **state)
{
	char	name[300];

	memset(name, 'n', 200);
	snprintf(name + 200, sizeof name - 200, "/../../../x");
	name_refused(*state, ARCHIVE_FORMAT_TAR_GNUTAR, name);
}

/* A long pax name (a "path" record) that climbs out is refused too. */
static void
t_name_pax_long(void **state)
{
	char	name[300];

	memset(name, 'n', 200);
	snprintf(name + 200, sizeof name - 200, "/../../../x");
	name_refused(*state, ARCHIVE_FORMAT_TAR_PAX_INTERCHANGE, name);
}

/*
 * A "." inside a name is refused (pathguard_name_check takes no "."
 * component); only the leading "./" tar writes is dropped.
 */
static void
t_name_dot_inner(void **state)
{
	name_refused(*state, ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, "a/./b");
}

/* A name with a newline is refused. */
static void
t_name_newline(void **state)
{
	name_refused(*state, ARCHIVE_FORMAT_TAR_PAX_RESTRICTED, "a\nb");
}

/* A name with a control byte is refused. */
static void
t_name_control(void **state)
{
	name_refused(*state, ARCHIVE_FORMAT_TAR_USTAR, "a\001b");
}

/* A leading "./" is dropped: "./c/d" lands at c/d. */
static void
t_name_leading_dot(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	tb_file(tb, "./c/d", "ok\n");
	tf_end_refused(fx, tb, 0, 3);
	pf_content(pf_at(fx->ws, "c/d"), "ok\n");
}

/*
 * The directory entry of the root itself, "./" as "tar -cf - ." writes
 * it first (or "."), is no refusal: skipped, the root left as it is.
 */
static void
t_name_root_dir(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tb_new(ARCHIVE_FORMAT_TAR_GNUTAR);

	tb_dir(tb, "./", 0700);
	tb_file(tb, "before", "b\n");
	tb_dir(tb, ".", 0700);
	tf_end_refused(fx, tb, 0, 2);
	assert_int_equal(fx->st.dirs, 0);
	assert_int_equal(pf_mode(fx->ws), S_IFDIR | 0755);
}

/* Anything else named "./" or "." (here a link to "/") is refused. */
static void
t_name_root_link(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	tb_symlink(tb, "./", "/");
	tb_symlink(tb, ".", "/");
	tf_end_refused(fx, tb, 2, 2);
	assert_true(S_ISDIR(pf_mode(fx->ws)));
}

/* --- types ------------------------------------------------------------- */

/* A hard link is refused, even to a file inside. */
static void
t_hardlink(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	tb_hardlink(tb, "h", "before");
	tf_end_refused(fx, tb, 1, 2);
	pf_absent(pf_at(fx->ws, "h"));
}

/*
 * A pax hard link with data (libarchive reads it as a regular file that
 * also names a link target) is refused, not written as a file.
 */
static void
t_hardlink_with_data(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tb_new(ARCHIVE_FORMAT_TAR_PAX_INTERCHANGE);
	size_t		 at;

	tb_file(tb, "before", "b\n");
	at = tb_file(tb, "h", "evil\n");
	tb_patch(tb, at, '1', "before");
	tf_end_refused(fx, tb, 1, 2);
	pf_absent(pf_at(fx->ws, "h"));
	pf_content(pf_at(fx->ws, "before"), "b\n");
}

/* An entry "n" of type (with rdev) is refused; nothing is made. */
static void
node_refused(struct tfx *fx, mode_t type, dev_t rdev)
{
	struct tb	*tb = tf_begin();

	tb_node(tb, "n", type, rdev);
	tf_end_refused(fx, tb, 1, 2);
	pf_absent(pf_at(fx->ws, "n"));
}

/* A character device is refused. */
static void
t_chardev(void **state)
{
	node_refused(*state, S_IFCHR, makedev(1, 3));
}

/* A block device is refused. */
static void
t_blockdev(void **state)
{
	node_refused(*state, S_IFBLK, makedev(8, 0));
}

/* A FIFO is refused. */
static void
t_fifo(void **state)
{
	node_refused(*state, S_IFIFO, 0);
}

/* --- link targets ------------------------------------------------------ */

/* A link name -> target is refused by the link rule; nothing is made. */
static void
link_refused(struct tfx *fx, const char *name, const char *target)
{
	struct tb	*tb = tf_begin();

	tb_symlink(tb, name, target);
	tf_end_refused(fx, tb, 1, 2);
	pf_absent(pf_at(fx->ws, name));
}

/* A link to an absolute path is refused. */
static void
t_link_absolute(void **state)
{
	link_refused(*state, "pw", "/etc/passwd");
}

/* A link at the top that climbs one level is refused. */
static void
t_link_up_top(void **state)
{
	link_refused(*state, "up", "../x");
}

/* A link with ".." after a name is refused. */
static void
t_link_dotdot_inner(void **state)
{
	link_refused(*state, "l", "x/../y");
}

/*
 * Chained links: "l1" -> "." is harmless and made, "a" -> "l1/.." (which
 * would reach the parent of the root through l1) is refused, and a file
 * "l1/x" is refused because it would go through a link.
 */
static void
t_link_chain(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	tb_symlink(tb, "l1", ".");
	tb_symlink(tb, "a", "l1/..");
	tb_file(tb, "l1/x", "evil");
	tf_end_refused(fx, tb, 2, 3);
	tf_link(pf_at(fx->ws, "l1"), ".");
	pf_absent(pf_at(fx->ws, "a"));
	pf_absent(pf_at(fx->ws, "x"));
	assert_int_equal(fx->st.links, 1);
}

/* A link that stays inside is made as it is. */
static void
t_link_inside(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	tb_symlink(tb, "d/l", "../before");
	tf_end_refused(fx, tb, 0, 3);
	tf_link(pf_at(fx->ws, "d/l"), "../before");
}

/* --- a directory and a link of the same name --------------------------- */

/*
 * Directory "a", a link "a" -> "../outside" (refused by the link rule)
 * and then "a/f": the refused link destroyed nothing, so "a" is still the
 * directory, with its earlier file, and "a/f" lands in it.
 */
static void
t_dir_then_bad_link(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	tb_dir(tb, "a", 0755);
	tb_file(tb, "a/g", "g\n");
	tb_symlink(tb, "a", "../outside");
	tb_file(tb, "a/f", "f\n");
	tb_file(tb, "after", "a\n");
	assert_int_equal(tf_extract_tb(fx, tb, 7, NULL), 0);
	assert_int_equal(fx->st.refused, 1);
	assert_int_equal(fx->st.deleted, 0);
	assert_true(S_ISDIR(pf_mode(pf_at(fx->ws, "a"))));
	pf_content(pf_at(fx->ws, "a/g"), "g\n");
	pf_content(pf_at(fx->ws, "a/f"), "f\n");
	assert_int_equal(pf_count(fx->ws), 3);
	tf_clean(fx, NULL);
}

/*
 * Directory "a", then a link "a" -> "b" (inside, allowed): the directory
 * is replaced by the link; "a/f" after it is refused (it would go
 * through a link), and nothing appears under b/ or outside.
 */
static void
t_dir_then_good_link(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	tb_dir(tb, "a", 0755);
	tb_symlink(tb, "a", "b");
	tb_file(tb, "a/f", "evil");
	tb_file(tb, "after", "a\n");
	assert_int_equal(tf_extract_tb(fx, tb, 7, NULL), 0);
	assert_int_equal(fx->st.refused, 1);
	assert_int_equal(fx->st.deleted, 1);
	tf_link(pf_at(fx->ws, "a"), "b");
	pf_absent(pf_at(fx->ws, "b"));
	assert_int_equal(pf_count(fx->ws), 3);
	tf_clean(fx, NULL);
}

/* A link planted in ws/ before the stream is not followed. */
static void
t_planted_link(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	assert_int_equal(symlink("../outside", pf_at(fx->ws, "p")), 0);
	tb_file(tb, "p/f", "evil");
	tf_end_refused(fx, tb, 1, 3);
	tf_link(pf_at(fx->ws, "p"), "../outside");
}

/* --- modes ------------------------------------------------------------- */

/* A setuid file arrives 0755. */
static void
t_setuid_stripped(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	tb_file_mode(tb, "s", "x", 1, 04755, 1, 0);
	tf_end_refused(fx, tb, 0, 3);
	assert_int_equal(pf_mode(pf_at(fx->ws, "s")), S_IFREG | 0755);
}

/* A setgid file arrives 0755. */
static void
t_setgid_stripped(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	tb_file_mode(tb, "s", "x", 1, 02755, 1, 0);
	tf_end_refused(fx, tb, 0, 3);
	assert_int_equal(pf_mode(pf_at(fx->ws, "s")), S_IFREG | 0755);
}

/*
 * A sticky, setgid directory arrives 0777 (its final mode, not 0700)
 * under umask 0, the one umask that lets 0777 through.
 */
static void
t_sticky_dir_stripped(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();
	mode_t		 old = umask(0);

	tb_dir(tb, "t", 03777);
	tf_end_refused(fx, tb, 0, 3);
	umask(old);
	assert_int_equal(pf_mode(pf_at(fx->ws, "t")), S_IFDIR | 0777);
}

/* --- type changes ------------------------------------------------------ */

/* A file where a directory (with content) is: the directory goes. */
static void
t_file_replaces_dir(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	assert_int_equal(mkdir(pf_at(fx->ws, "x"), 0755), 0);
	assert_int_equal(mkdir(pf_at(fx->ws, "x/y"), 0755), 0);
	tb_file(tb, "x", "file\n");
	tf_end_refused(fx, tb, 0, 3);
	assert_int_equal(fx->st.deleted, 1);
	pf_content(pf_at(fx->ws, "x"), "file\n");
}

/* A directory where a file is: the file goes. */
static void
t_dir_replaces_file(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	tf_write(pf_at(fx->ws, "x"), "old\n", 4, 0644, 1, 0);
	tb_dir(tb, "x", 0750);
	tb_file(tb, "x/y", "y\n");
	tf_end_refused(fx, tb, 0, 3);
	assert_int_equal(fx->st.deleted, 1);
	assert_int_equal(pf_mode(pf_at(fx->ws, "x")), S_IFDIR | 0750);
	pf_content(pf_at(fx->ws, "x/y"), "y\n");
}

/*
 * A directory and then a file of the same name in one archive: the file
 * keeps its own mode and time; the directory's, set at the end, are not
 * applied to it.
 */
static void
t_dir_then_file(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();
	struct stat	 st;

	tb_dir(tb, "x", 0777);
	tb_file_mode(tb, "x", "f", 1, 0600, 2000000000, 0);
	tf_end_refused(fx, tb, 0, 3);
	assert_int_equal(fx->st.deleted, 1);
	assert_int_equal(lstat(pf_at(fx->ws, "x"), &st), 0);
	assert_int_equal(st.st_mode, S_IFREG | 0600);
	assert_int_equal(st.st_mtim.tv_sec, 2000000000);
	assert_int_equal(st.st_mtim.tv_nsec, 0);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		TF_TEST(t_name_absolute), TF_TEST(t_name_dotdot),
		TF_TEST(t_name_dotdot_inner), TF_TEST(t_name_gnu_long),
		TF_TEST(t_name_pax_long), TF_TEST(t_name_dot_inner),
		TF_TEST(t_name_newline), TF_TEST(t_name_control),
		TF_TEST(t_name_leading_dot), TF_TEST(t_name_root_dir),
		TF_TEST(t_name_root_link),
		TF_TEST(t_hardlink), TF_TEST(t_hardlink_with_data),
		TF_TEST(t_chardev), TF_TEST(t_blockdev),
		TF_TEST(t_fifo), TF_TEST(t_link_absolute),
		TF_TEST(t_link_up_top), TF_TEST(t_link_dotdot_inner),
		TF_TEST(t_link_chain), TF_TEST(t_link_inside),
		TF_TEST(t_dir_then_bad_link), TF_TEST(t_dir_then_good_link),
		TF_TEST(t_planted_link), TF_TEST(t_setuid_stripped),
		TF_TEST(t_setgid_stripped), TF_TEST(t_sticky_dir_stripped),
		TF_TEST(t_file_replaces_dir), TF_TEST(t_dir_replaces_file),
		TF_TEST(t_dir_then_file),
	};

	return pf_run("tarstream_hostile", tests, PF_NITEMS(tests)) == 0 ?
	    0 : 1;
}
