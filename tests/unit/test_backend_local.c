/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the host backend (backends/host/hostdir.c: get-or-create, list,
 * destroy, the per-command check) over the local transport: its real
 * host scripts under /bin/sh against a directory standing for the
 * remote root; no sshd.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

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
#include "exec.h"
#include "hostdir.h"
#include "local_fixture.h"
#include "sandbox.h"
#include "transport.h"

struct fx {
	struct local_fx		 lx;
	char			 root[160];
};

static int
setup(void **state)
{
	struct fx	*f = calloc(1, sizeof *f);

	local_fx_init(&f->lx, "test_backend_local", NULL, NULL);
	snprintf(f->root, sizeof f->root, "%s/root", f->lx.top);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx	*f = *state;

	local_fx_free(&f->lx);
	free(f);
	return 0;
}

/* The metadata of an agent-scoped sandbox for key. */
static void
meta(struct sandbox_meta *m, const char *key)
{
	memset(m, 0, sizeof *m);
	m->version = SANDBOX_META_VERSION;
	m->scope = SANDBOX_SCOPE_AGENT;
	snprintf(m->key, sizeof m->key, "%s", key);
	sandbox_id(m->scope, m->key, "local", m->id);
	sandbox_settings_default(&m->settings);
	sandbox_config_hash(&m->settings, m->config_hash);
	m->created = 1796200000;
	snprintf(m->workspace, sizeof m->workspace, "/home/u/proj");
}

/* Create once, find it again, list it, check it, destroy it. */
static void
test_lifecycle(void **state)
{
	struct fx		*f = *state;
	struct sandbox_meta	 want;
	struct hostdir_entry	 got;
	struct hostdir_listing	 l;
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	const char		*agent;
	char			*cause = NULL, *pre, *ws, dir[256];
	int			 created = -1, existed = -1, status = -1;
	struct stat		 sb;

	meta(&want, "k1");
	memset(&got, 0, sizeof got);
	if (hostdir_get_or_create(f->lx.t, f->root, &want, &got, &created,
	    &cause) != 0)
		fail_msg("get_or_create: %s", cause);
	assert_int_equal(created, 1);
	assert_string_equal(got.meta.id, want.id);
	ws = hostdir_workspace(f->root, want.id);
	snprintf(dir, sizeof dir, "%s", ws);
	assert_int_equal(stat(dir, &sb), 0);
	assert_true(S_ISDIR(sb.st_mode));
	assert_int_equal(hostdir_get_or_create(f->lx.t, f->root, &want,
	    &got, &created, &cause), 0);
	assert_int_equal(created, 0);
	memset(&l, 0, sizeof l);
	assert_int_equal(hostdir_list(f->lx.t, f->root, NULL, NULL, &l,
	    &cause), 0);
	assert_int_equal(l.n, 1);
	assert_string_equal(l.entries[0].meta.id, want.id);
	assert_string_equal(l.entries[0].meta.key, "k1");
	hostdir_listing_clear(&l);
	/* the same through the host agent's box-entry, all and one */
	if ((agent = getenv("CLAWSSH_AGENT")) != NULL) {
		assert_int_equal(hostdir_list(f->lx.t, f->root, NULL, agent,
		    &l, &cause), 0);
		assert_int_equal(l.n, 1);
		assert_string_equal(l.entries[0].meta.key, "k1");
		hostdir_listing_clear(&l);
		assert_int_equal(hostdir_list(f->lx.t, f->root, want.id,
		    agent, &l, &cause), 0);
		assert_int_equal(l.n, 1);
		hostdir_listing_clear(&l);
		/* an agent that is not there: the script, the same answer */
		assert_int_equal(hostdir_list(f->lx.t, f->root, NULL,
		    "/nonexistent/agent", &l, &cause), 0);
		assert_int_equal(l.n, 1);
		hostdir_listing_clear(&l);
	}
	/* the per-command check passes while it is there */
	pre = hostdir_exec_pre(f->root, want.id);
	assert_int_equal(exec_script(f->lx.t, pre, NULL, 0, 4096, &out, &err,
	    &status, &cause), 0);
	assert_int_equal(status, 0);
	assert_int_equal(hostdir_destroy(f->lx.t, f->root, want.id,
	    &existed, &cause), 0);
	assert_int_equal(existed, 1);
	assert_int_not_equal(stat(dir, &sb), 0);
	/* and fails, saying so, once it is gone */
	buf_reset(&out);
	buf_reset(&err);
	assert_int_equal(exec_script(f->lx.t, pre, NULL, 0, 4096, &out, &err,
	    &status, &cause), 0);
	assert_int_not_equal(status, 0);
	assert_int_equal(hostdir_destroy(f->lx.t, f->root, want.id,
	    &existed, &cause), 0);
	assert_int_equal(existed, 0);
	free(pre);
	free(ws);
	buf_free(&out);
	buf_free(&err);
}

/* A damaged metadata file is skipped and counted, not trusted. */
static void
test_list_corrupt(void **state)
{
	struct fx		*f = *state;
	struct sandbox_meta	 want;
	struct hostdir_entry	 got;
	struct hostdir_listing	 l;
	char			*cause = NULL, cmd[512];
	int			 created;

	meta(&want, "k2");
	assert_int_equal(hostdir_get_or_create(f->lx.t, f->root, &want,
	    &got, &created, &cause), 0);
	snprintf(cmd, sizeof cmd, "printf '{\"id\":\"../../etc\"' > "
	    "%s/%s/meta.json", f->root, want.id);
	assert_int_equal(system(cmd), 0);
	memset(&l, 0, sizeof l);
	assert_int_equal(hostdir_list(f->lx.t, f->root, NULL, NULL, &l,
	    &cause), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(l.corrupt, 1);
	hostdir_listing_clear(&l);
	if (getenv("CLAWSSH_AGENT") != NULL) {
		assert_int_equal(hostdir_list(f->lx.t, f->root, NULL,
		    getenv("CLAWSSH_AGENT"), &l, &cause), 0);
		assert_int_equal(l.n, 0);
		assert_int_equal(l.corrupt, 1);
		hostdir_listing_clear(&l);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lifecycle, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_list_corrupt, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
