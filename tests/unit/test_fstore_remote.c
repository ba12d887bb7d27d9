/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the remote file store (the file tools' host side) over
 * the local transport: the real host scripts under /bin/sh against a
 * directory standing for the sandbox's workspace; no sshd.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "error.h"
#include "fstore.h"
#include "hostws.h"
#include "local_fixture.h"
#include "transport.h"

struct fx {
	struct local_fx		 lx;
	struct hostws		 hw;
	struct fstore		*fs;
};

static int
setup(void **state)
{
	struct fx	*f = calloc(1, sizeof *f);

	local_fx_init(&f->lx, "test_fstore_remote", "host", NULL);
	hostws_init(&f->hw, f->lx.a, NULL);
	f->fs = fstore_remote(f->lx.t, &f->hw, NULL, 30);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx	*f = *state;

	fstore_free(f->fs);
	hostws_clear(&f->hw);
	local_fx_free(&f->lx);
	free(f);
	return 0;
}

/* Read, with its mode, and a window of it. */
static void
test_read(void **state)
{
	struct fx	*f = *state;
	struct buf	 out = BUF_INIT;
	unsigned	 mode = 0;
	char		*cause = NULL;

	local_sh(f->lx.a, "printf 'hello world' > a.txt && chmod 640 a.txt");
	if (fstore_read(f->fs, "a.txt", 0, 0, &out, &mode, &cause) != 0)
		fail_msg("read: %s", cause);
	assert_int_equal(out.len, 11);
	assert_memory_equal(out.data, "hello world", 11);
	assert_int_equal(mode, 0640);
	buf_reset(&out);
	assert_int_equal(fstore_read(f->fs, "a.txt", 6, 3, &out, &mode,
	    &cause), 0);
	assert_int_equal(out.len, 3);
	assert_memory_equal(out.data, "wor", 3);
	buf_free(&out);
	assert_int_not_equal(fstore_read(f->fs, "missing", 0, 0, &out, &mode,
	    &cause), 0);
	free(cause);
}

/* Write whole files atomically, create-only, remove, stat and list. */
static void
test_commit_stat_list(void **state)
{
	struct fx		*f = *state;
	struct fstore_change	 ch[2];
	struct fstore_stat	 st;
	struct fstore_entry	*e = NULL;
	size_t			 n = 0, i;
	char			*cause = NULL;
	int			 seen = 0;

	memset(ch, 0, sizeof ch);
	ch[0].path = "d/one.txt";
	ch[0].data = "1\n";
	ch[0].len = 2;
	ch[0].mode = 0600;
	ch[1].path = "two.txt";
	ch[1].data = "2\n";
	ch[1].len = 2;
	ch[1].mode = -1;
	if (fstore_commit(f->fs, ch, 2, &cause) != 0)
		fail_msg("commit: %s", cause);
	memset(&st, 0, sizeof st);
	assert_int_equal(fstore_stat(f->fs, "d/one.txt", &st, &cause), 0);
	assert_int_equal(st.type, 'f');
	assert_int_equal(st.mode, 0600);
	assert_int_equal(st.size, 2);
	fstore_stat_clear(&st);
	assert_int_equal(fstore_list(f->fs, ".", &e, &n, &cause), 0);
	for (i = 0; i < n; i++)
		seen |= (strcmp(e[i].name, "d") == 0) |
		    (strcmp(e[i].name, "two.txt") == 0) << 1;
	assert_int_equal(seen, 3);
	fstore_entries_free(e, n);
	/* create-only on an existing file fails, and changes nothing */
	ch[0].create_only = 1;
	ch[0].data = "X\n";
	assert_int_not_equal(fstore_commit(f->fs, ch, 1, &cause), 0);
	free(cause);
	cause = NULL;
	local_sh(f->lx.a, "grep -qx 1 d/one.txt");
	/* removal */
	ch[1].data = NULL;
	assert_int_equal(fstore_commit(f->fs, &ch[1], 1, &cause), 0);
	local_sh(f->lx.a, "test ! -e two.txt");
}

/* A link out of the workspace is never read or written through. */
static void
test_link_out(void **state)
{
	struct fx		*f = *state;
	struct fstore_change	 ch;
	struct buf		 out = BUF_INIT;
	unsigned		 mode;
	char			 cmd[256], *cause = NULL;

	snprintf(cmd, sizeof cmd, "mkdir ../outside && echo secret > "
	    "../outside/s && ln -s %s/outside esc", f->lx.top);
	local_sh(f->lx.a, cmd);
	assert_int_not_equal(fstore_read(f->fs, "esc/s", 0, 0, &out, &mode,
	    &cause), 0);
	assert_int_equal(out.len, 0);
	free(cause);
	cause = NULL;
	memset(&ch, 0, sizeof ch);
	ch.path = "esc/planted";
	ch.data = "x";
	ch.len = 1;
	ch.mode = -1;
	assert_int_not_equal(fstore_commit(f->fs, &ch, 1, &cause), 0);
	free(cause);
	snprintf(cmd, sizeof cmd, "test ! -e %s/outside/planted", f->lx.top);
	assert_int_equal(system(cmd), 0);
	buf_free(&out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_commit_stat_list, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_link_out, setup,
		    teardown),
	};

	/* the shell steps of src/host/fstore_*.sh under each sh */
	return local_each_shell("fstore_remote", tests,
	    sizeof tests / sizeof tests[0]);
}
