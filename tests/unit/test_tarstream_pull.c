/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for what a pull's stream may do to the local workspace: no
 * entry with a .git component is written whatever else is sent, only the
 * entries asked for are taken (struct tarstream_expect), one that changed
 * on the host since it was listed is left alone and reported, and modes
 * are masked with the local umask.  The old extraction wrote all of it.
 * Each runs twice (see pathguard_fixture.h): with openat2(2) and the walk.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

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
#include <openssl/evp.h>

#include "error.h"
#include "manifest.h"
#include "tarstream_fixture.h"
#include "xmalloc.h"

#define T_SEC	1000000000	/* tb_file's mtime */
#define T_NSEC	500000000

/* What the skip callback was told. */
struct skips {
	char	*path[8];
	int	 why[8];
	size_t	 n;
};

/* A new pax archive, as the host's GNU tar writes. */
static struct tb *
tb_pax(void)
{
	return tb_new(ARCHIVE_FORMAT_TAR_PAX_RESTRICTED);
}

/* The tarstream_skip_fn: note path and why. */
static void
skip_cb(void *arg, const char *path, int why)
{
	struct skips	*sk = arg;

	assert_true(sk->n < 8);
	sk->path[sk->n] = xstrdup(path);
	sk->why[sk->n++] = why;
}

/* Free what skip_cb noted. */
static void
skips_free(struct skips *sk)
{
	size_t	i;

	for (i = 0; i < sk->n; i++)
		free(sk->path[i]);
}

/* A want entry for a file of content with tb_file's mtime. */
static void
want_file(struct manifest_entry *w, const char *path, const char *content,
    int hash)
{
	memset(w, 0, sizeof *w);
	w->path = (char *)(uintptr_t)path;
	w->type = MANIFEST_FILE;
	w->size = strlen(content);
	w->mtime_sec = T_SEC;
	w->mtime_nsec = T_NSEC;
	w->mode = 0644;
	if (hash) {
		assert_int_equal(EVP_Digest(content, strlen(content), w->hash,
		    NULL, EVP_sha256(), NULL), 1);
		w->have_hash = 1;
	}
}

/* Write file rel of the workspace directly, with content. */
static void
put(struct tfx *fx, const char *rel, const char *content)
{
	tf_write(pf_at(fx->ws, rel), content, strlen(content), 0644, 5, 0);
}

/* Extract tb, which must succeed. */
static void
extract_ok(struct tfx *fx, struct tb *tb)
{
	int	r;

	if ((r = tf_extract_tb(fx, tb, 7, NULL)) != 0)
		fail_msg("extract: %d %s", r, fx->cause);
}

/* --- .git -------------------------------------------------------------- */

/*
 * Nothing with a .git component is written, at any depth, in any case, as
 * a file, directory or link: the local .git/ (and its config) stay as they
 * are, and a plain file named .git does not replace the directory.
 */
static void
t_git_never_written(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	assert_int_equal(mkdir(pf_at(fx->ws, ".git"), 0755), 0);
	put(fx, ".git/config", "[core]\n");
	tb_file(tb, ".git", "gitdir: /tmp/evil\n");
	tb_file(tb, ".git/config", "[core]\n\tfsmonitor = evil\n");
	tb_file(tb, "./.git/hooks/post-checkout", "#!/bin/sh\nevil\n");
	tb_dir(tb, ".git/hooks", 0755);
	tb_symlink(tb, ".git/HEAD", "config");
	tb_file(tb, "sub/.GIT/config", "x");
	tb_dir(tb, "sub/.Git", 0755);
	tf_end_refused(fx, tb, 7, 3);
	pf_content(pf_at(fx->ws, ".git/config"), "[core]\n");
	assert_int_equal(pf_count(pf_at(fx->ws, ".git")), 1);
	pf_absent(pf_at(fx->ws, "sub"));
}

/* A link into .git is refused (the local file tools would follow it). */
static void
t_git_link_refused(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	tb_symlink(tb, "cfg.txt", ".git/config");
	tb_symlink(tb, "d/l", "../.git");
	tf_end_refused(fx, tb, 2, 2);
}

/* A file where a directory holding a .git is: the .git stays. */
static void
t_git_kept_under_replaced_dir(void **state)
{
	struct tfx	*fx = *state;
	struct tb	*tb = tf_begin();

	assert_int_equal(mkdir(pf_at(fx->ws, "sub"), 0755), 0);
	assert_int_equal(mkdir(pf_at(fx->ws, "sub/.git"), 0755), 0);
	put(fx, "sub/.git/HEAD", "ref\n");
	put(fx, "sub/x", "x");
	tb_file(tb, "sub", "a file now\n");
	tf_end_refused(fx, tb, 1, 3);
	pf_content(pf_at(fx->ws, "sub/.git/HEAD"), "ref\n");
	assert_true(S_ISDIR(pf_mode(pf_at(fx->ws, "sub"))));
}

/* --- asked-for entries ------------------------------------------------- */

/* Entries not asked for are refused: here a hook next to the asked file. */
static void
t_expect_refuses_others(void **state)
{
	struct tfx			*fx = *state;
	struct tb			*tb = tb_pax();
	struct manifest_entry		 w[2];
	const struct manifest_entry	*wp[2] = { &w[0], &w[1] };
	struct tarstream_expect		 ex = { wp, 2, NULL, 0, NULL, NULL, NULL,
					    0 };

	want_file(&w[0], "a", "new a\n", 0);
	memset(&w[1], 0, sizeof w[1]);
	w[1].path = (char *)(uintptr_t)"d";
	w[1].type = MANIFEST_DIR;
	fx->ex = &ex;
	tb_dir(tb, "d", 0755);
	tb_file(tb, "a", "new a\n");
	tb_file(tb, "b", "not asked\n");
	tb_file(tb, "d/c", "not asked either\n");
	tb_file(tb, "a/x", "under a\n");
	extract_ok(fx, tb);
	pf_content(pf_at(fx->ws, "a"), "new a\n");
	pf_absent(pf_at(fx->ws, "b"));
	pf_absent(pf_at(fx->ws, "d/c"));
	assert_true(S_ISDIR(pf_mode(pf_at(fx->ws, "d"))));
	assert_int_equal(fx->st.refused, 3);
	assert_int_equal(fx->st.files, 1);
	assert_int_equal(fx->st.changed, 0);
	assert_int_equal(fx->st.missing, 0);
	tf_clean(fx, NULL);
}

/*
 * A file whose size or mtime is not what was listed, an entry of another
 * type and a link with another target are not written: the local ones
 * stay, each is counted and reported as changed.
 */
static void
t_expect_changed(void **state)
{
	struct tfx			*fx = *state;
	struct tb			*tb = tb_pax();
	struct manifest_entry		 w[4];
	const struct manifest_entry	*wp[4] = { &w[0], &w[1], &w[2], &w[3] };
	struct skips			 sk = { { NULL }, { 0 }, 0 };
	struct tarstream_expect		 ex = { wp, 4, NULL, 0, skip_cb, &sk,
					    NULL, 0 };

	want_file(&w[0], "grew", "12345", 0);
	want_file(&w[1], "touched", "12345", 0);
	want_file(&w[2], "now-dir", "x", 0);
	memset(&w[3], 0, sizeof w[3]);
	w[3].path = (char *)(uintptr_t)"l";
	w[3].type = MANIFEST_LINK;
	w[3].link = (char *)(uintptr_t)"target";
	fx->ex = &ex;
	put(fx, "grew", "old");
	put(fx, "touched", "old");
	put(fx, "now-dir", "old");
	put(fx, "l", "old");
	tb_file(tb, "grew", "123456");		/* a half copy would follow */
	tb_file_mode(tb, "touched", "54321", 5, 0644, T_SEC + 1, T_NSEC);
	tb_dir(tb, "now-dir", 0755);
	tb_symlink(tb, "l", "other");
	extract_ok(fx, tb);
	pf_content(pf_at(fx->ws, "grew"), "old");
	pf_content(pf_at(fx->ws, "touched"), "old");
	pf_content(pf_at(fx->ws, "now-dir"), "old");
	pf_content(pf_at(fx->ws, "l"), "old");
	assert_int_equal(fx->st.changed, 4);
	assert_int_equal(fx->st.refused, 0);
	assert_int_equal(fx->st.files + fx->st.dirs + fx->st.links, 0);
	assert_int_equal(sk.n, 4);
	assert_string_equal(sk.path[0], "grew");
	assert_string_equal(sk.path[3], "l");
	assert_int_equal(sk.why[0], TARSTREAM_SKIP_CHANGED);
	assert_int_equal(sk.why[3], TARSTREAM_SKIP_CHANGED);
	skips_free(&sk);
	tf_clean(fx, NULL);
}

/*
 * With a hash listed, content of the same size and mtime that is not it
 * (written over while the host's tar read it) is not written either.
 */
static void
t_expect_hash(void **state)
{
	struct tfx			*fx = *state;
	struct tb			*tb = tb_pax();
	struct manifest_entry		 w[2];
	const struct manifest_entry	*wp[2] = { &w[0], &w[1] };
	struct tarstream_expect		 ex = { wp, 2, NULL, 0, NULL, NULL, NULL,
					    0 };

	want_file(&w[0], "torn", "hello\n", 1);
	want_file(&w[1], "good", "world\n", 1);
	fx->ex = &ex;
	put(fx, "torn", "old");
	tb_file(tb, "torn", "hellp\n");
	tb_file(tb, "good", "world\n");
	extract_ok(fx, tb);
	pf_content(pf_at(fx->ws, "torn"), "old");
	pf_content(pf_at(fx->ws, "good"), "world\n");
	assert_int_equal(fx->st.changed, 1);
	assert_int_equal(fx->st.files, 1);
	tf_clean(fx, NULL);
}

/* An asked-for entry comes once: a second one of that name is refused. */
static void
t_expect_twice(void **state)
{
	struct tfx			*fx = *state;
	struct tb			*tb = tb_pax();
	struct manifest_entry		 w;
	const struct manifest_entry	*wp[1] = { &w };
	struct tarstream_expect		 ex = { wp, 1, NULL, 0, NULL, NULL, NULL,
					    0 };

	want_file(&w, "a", "first\n", 0);
	fx->ex = &ex;
	tb_file(tb, "a", "first\n");
	tb_file(tb, "./a", "first\n");
	extract_ok(fx, tb);
	assert_int_equal(fx->st.refused, 1);
	assert_int_equal(fx->st.files, 1);
	tf_clean(fx, NULL);
}

/* What was asked for and never came is counted and reported. */
static void
t_expect_missing(void **state)
{
	struct tfx			*fx = *state;
	struct tb			*tb = tb_pax();
	struct manifest_entry		 w[2];
	const struct manifest_entry	*wp[2] = { &w[1], &w[0] };
	struct skips			 sk = { { NULL }, { 0 }, 0 };
	struct tarstream_expect		 ex = { wp, 2, NULL, 0, skip_cb, &sk,
					    NULL, 0 };

	want_file(&w[0], "a", "a\n", 0);
	want_file(&w[1], "gone", "b\n", 0);
	fx->ex = &ex;
	tb_file(tb, "a", "a\n");
	extract_ok(fx, tb);
	assert_int_equal(fx->st.missing, 1);
	assert_int_equal(fx->st.files, 1);
	assert_int_equal(sk.n, 1);
	assert_string_equal(sk.path[0], "gone");
	assert_int_equal(sk.why[0], TARSTREAM_SKIP_MISSING);
	skips_free(&sk);
	tf_clean(fx, NULL);
}

/* A stream of whole seconds (ustar) matches a listing's nanoseconds. */
static void
t_expect_whole_seconds(void **state)
{
	struct tfx			*fx = *state;
	struct tb			*tb = tb_new(ARCHIVE_FORMAT_TAR_USTAR);
	struct manifest_entry		 w;
	const struct manifest_entry	*wp[1] = { &w };
	struct tarstream_expect		 ex = { wp, 1, NULL, 0, NULL, NULL, NULL,
					    0 };

	want_file(&w, "a", "abc", 0);
	fx->ex = &ex;
	tb_file(tb, "a", "abc");
	extract_ok(fx, tb);
	pf_content(pf_at(fx->ws, "a"), "abc");
	assert_int_equal(fx->st.changed, 0);
	tf_clean(fx, NULL);
}

/* Top paths (sync pull PATH): the path and what is below it, nothing else. */
static void
t_expect_tops(void **state)
{
	struct tfx		*fx = *state;
	struct tb		*tb = tb_pax();
	char			 d[] = "d", f[] = "f", *tops[] = { d, f };
	struct tarstream_expect	 ex = { NULL, 0, tops, 2, NULL, NULL, NULL, 0 };

	fx->ex = &ex;
	tb_dir(tb, "./", 0755);
	tb_dir(tb, "d/", 0755);
	tb_file(tb, "d/x", "x");
	tb_file(tb, "d/y/z", "z");
	tb_file(tb, "f", "f");
	tb_file(tb, "dx", "no");
	tb_file(tb, "e/d", "no");
	tb_file(tb, "d/.git/config", "no");
	extract_ok(fx, tb);
	pf_content(pf_at(fx->ws, "d/x"), "x");
	pf_content(pf_at(fx->ws, "d/y/z"), "z");
	pf_content(pf_at(fx->ws, "f"), "f");
	pf_absent(pf_at(fx->ws, "dx"));
	pf_absent(pf_at(fx->ws, "e"));
	pf_absent(pf_at(fx->ws, "d/.git"));
	assert_int_equal(fx->st.refused, 3);
	tf_clean(fx, NULL);
}

/* --- modes ------------------------------------------------------------- */

/* Extract the modes test archive under mask. */
static void
umask_extract(struct tfx *fx, mode_t mask)
{
	struct tb	*tb = tb_pax();
	mode_t		 old;

	tb_file_mode(tb, "ww", "x", 1, 0666, T_SEC, 0);
	tb_file_mode(tb, "wx", "x", 1, 04777, T_SEC, 0);
	tb_dir(tb, "wd", 01777);
	old = umask(mask);
	extract_ok(fx, tb);
	umask(old);
}

/* World-writable modes come down as the local umask would make them. */
static void
t_umask_022(void **state)
{
	struct tfx	*fx = *state;

	umask_extract(fx, 022);
	assert_int_equal(pf_mode(pf_at(fx->ws, "ww")), S_IFREG | 0644);
	assert_int_equal(pf_mode(pf_at(fx->ws, "wx")), S_IFREG | 0755);
	assert_int_equal(pf_mode(pf_at(fx->ws, "wd")), S_IFDIR | 0755);
	tf_clean(fx, NULL);
}

/* A strict umask is kept too. */
static void
t_umask_077(void **state)
{
	struct tfx	*fx = *state;

	umask_extract(fx, 077);
	assert_int_equal(pf_mode(pf_at(fx->ws, "ww")), S_IFREG | 0600);
	assert_int_equal(pf_mode(pf_at(fx->ws, "wx")), S_IFREG | 0700);
	assert_int_equal(pf_mode(pf_at(fx->ws, "wd")), S_IFDIR | 0700);
	tf_clean(fx, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		TF_TEST(t_git_never_written), TF_TEST(t_git_link_refused),
		TF_TEST(t_git_kept_under_replaced_dir),
		TF_TEST(t_expect_refuses_others), TF_TEST(t_expect_changed),
		TF_TEST(t_expect_hash), TF_TEST(t_expect_twice),
		TF_TEST(t_expect_missing), TF_TEST(t_expect_whole_seconds),
		TF_TEST(t_expect_tops), TF_TEST(t_umask_022),
		TF_TEST(t_umask_077),
	};

	return pf_run("tarstream_pull", tests, PF_NITEMS(tests)) == 0 ?
	    0 : 1;
}
