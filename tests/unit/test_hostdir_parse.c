/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the judges of the host's sandbox listing and of its
 * get-or-create answer (hostdir_parse_list, hostdir_parse_got), as a
 * hostile host may send them: an entry whose metadata is bad is skipped
 * and counted, the others kept; broken framing (a size past the end, a
 * header out of shape, no clock line) fails the whole answer with the
 * host's label in the cause; get-or-create takes exactly one entry after
 * exactly one of its two words; box-entry's answer with the environment
 * ends the listing at its "clawssh-env" line.
 * tests/fuzz/fuzz_host_reply.c runs the same parsers on arbitrary bytes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "buf.h"
#include "error.h"
#include "hostdir.h"
#include "sandbox.h"
#include "xmalloc.h"

#define LABEL	"root@test:22"

/* Append an entry for id made at created, with meta's JSON for id. */
static void
entry(struct buf *b, const char *id, const char *meta_id)
{
	struct sandbox_meta	 m;
	char			*t;

	memset(&m, 0, sizeof m);
	m.version = SANDBOX_META_VERSION;
	snprintf(m.id, sizeof m.id, "%s", meta_id);
	snprintf(m.key, sizeof m.key, "k");
	sandbox_settings_default(&m.settings);
	memset(m.config_hash, 'a', SANDBOX_HASH_LEN);
	m.created = 1700000000;
	snprintf(m.workspace, sizeof m.workspace, "/home/u/ws");
	t = sandbox_meta_encode(&m);
	buf_appendf(b, "clawssh-entry %s 1700000000 1700000050 %zu\n%s", id,
	    strlen(t), t);
	free(t);
}

/* A listing of a good entry and one whose metadata names another id. */
static void
test_list_skips_bad_meta(void **state)
{
	struct hostdir_listing	 l;
	struct buf		 b = BUF_INIT;
	char			*cause = NULL;

	(void)state;
	buf_append_str(&b, "clawssh-now 1700000100\n");
	entry(&b, "cabcdefghijkl", "cabcdefghijkl");
	entry(&b, "cbbcdefghijkl", "cabcdefghijkl");	/* not its own */
	assert_int_equal(hostdir_parse_list(LABEL, &b, &l, &cause), 0);
	assert_null(cause);
	assert_int_equal(l.n, 1);
	assert_int_equal(l.corrupt, 1);
	assert_string_equal(l.entries[0].meta.id, "cabcdefghijkl");
	assert_int_equal(l.now, 1700000100);
	assert_int_equal(l.entries[0].last_used, 1700000050);
	hostdir_listing_clear(&l);
	buf_free(&b);
}

/* Broken framing fails the listing whole, naming the host. */
static void
test_list_framing(void **state)
{
	static const char *const bad[] = {
		"",
		"clawssh-now x\n",
		"clawssh-now 1\nclawssh-entry cabcdefghijkl 1 2 99999\n{}",
		"clawssh-now 1\nclawssh-entry cabcdefghijkl 1 2 3\n{}",
		"clawssh-now 1\nclawssh-entry ../etc/passw 1 2 2\n{}",
		"clawssh-now 1\nclawssh-entry cabcdefghijkl 1 2\n",
		"clawssh-now 1\nclawssh-entry cabcdefghijkl 1 2 -1\n",
		"clawssh-now 1\nsomething else\n",
	};
	struct hostdir_listing	 l;
	struct buf		 b = BUF_INIT;
	char			*cause;
	size_t			 i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		buf_reset(&b);
		buf_append_str(&b, bad[i]);
		cause = NULL;
		assert_int_equal(hostdir_parse_list(LABEL, &b, &l, &cause),
		    CLAW_ERR_PARSE);
		assert_non_null(cause);
		assert_non_null(strstr(cause, LABEL ": malformed listing"));
		free(cause);
		hostdir_listing_clear(&l);
	}
	buf_free(&b);
}

/* get-or-create: one of its two words, then exactly one good entry. */
static void
test_got(void **state)
{
	struct hostdir_entry	 e;
	struct buf		 b = BUF_INIT;
	char			*cause = NULL;
	int			 created = -1;

	(void)state;
	buf_append_str(&b, "clawssh-created\n");
	entry(&b, "cabcdefghijkl", "cabcdefghijkl");
	assert_int_equal(hostdir_parse_got(LABEL, &b, &e, &created, &cause),
	    0);
	assert_int_equal(created, 1);
	assert_string_equal(e.meta.id, "cabcdefghijkl");

	buf_reset(&b);
	buf_append_str(&b, "clawssh-found\n");
	entry(&b, "cabcdefghijkl", "cabcdefghijkl");
	assert_int_equal(hostdir_parse_got(LABEL, &b, &e, &created, &cause),
	    0);
	assert_int_equal(created, 0);

	buf_append_str(&b, "more\n");	/* a second thing after the entry */
	assert_int_equal(hostdir_parse_got(LABEL, &b, &e, &created, &cause),
	    CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "malformed answer"));
	free(cause);
	cause = NULL;

	buf_reset(&b);
	buf_append_str(&b, "clawssh-maybe\n");
	entry(&b, "cabcdefghijkl", "cabcdefghijkl");
	assert_int_equal(hostdir_parse_got(LABEL, &b, &e, &created, &cause),
	    CLAW_ERR_PARSE);
	free(cause);
	cause = NULL;

	buf_reset(&b);
	buf_append_str(&b, "clawssh-found\n");
	entry(&b, "cabcdefghijkl", "cbbcdefghijkl");	/* not its own */
	assert_int_equal(hostdir_parse_got(LABEL, &b, &e, &created, &cause),
	    CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "corrupt metadata"));
	assert_non_null(strstr(cause, "destroy it"));
	free(cause);
	buf_free(&b);
}

/*
 * box-entry's answer with the environment: the listing up to the
 * "clawssh-env" line, the offset after it; that line inside an entry's
 * metadata is the metadata's; no such line is an error.
 */
static void
test_entry_env(void **state)
{
	struct hostdir_listing	 l;
	struct buf		 b = BUF_INIT;
	char			*cause = NULL;
	size_t			 at = 0, meta_end;

	(void)state;
	buf_append_str(&b, "clawssh-now 1\n");
	entry(&b, "cabcdefghijkl", "cabcdefghijkl");
	meta_end = b.len;
	buf_append_str(&b, "clawssh-env\n{\"running\":false}\n");
	assert_int_equal(hostdir_parse_entry_env(LABEL, &b, &l, &at,
	    &cause), 0);
	assert_int_equal(l.n, 1);
	assert_int_equal(at, meta_end + 12);
	assert_string_equal(b.data + at, "{\"running\":false}\n");
	hostdir_listing_clear(&l);

	buf_reset(&b);			/* no entry: the clock, then env */
	buf_append_str(&b, "clawssh-now 1\nclawssh-env\n{}");
	assert_int_equal(hostdir_parse_entry_env(LABEL, &b, &l, &at,
	    &cause), 0);
	assert_int_equal(l.n, 0);
	assert_string_equal(b.data + at, "{}");

	buf_reset(&b);			/* the line inside the metadata */
	buf_append_str(&b, "clawssh-now 1\n"
	    "clawssh-entry cabcdefghijkl 1 2 12\nclawssh-env\n");
	assert_int_equal(hostdir_parse_entry_env(LABEL, &b, &l, &at,
	    &cause), CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "no environment after it"));
	free(cause);
	cause = NULL;
	hostdir_listing_clear(&l);

	buf_reset(&b);			/* a plain listing has none */
	buf_append_str(&b, "clawssh-now 1\n");
	assert_int_equal(hostdir_parse_entry_env(LABEL, &b, &l, &at,
	    &cause), CLAW_ERR_PARSE);
	free(cause);
	hostdir_listing_clear(&l);
	buf_free(&b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_skips_bad_meta),
		cmocka_unit_test(test_list_framing),
		cmocka_unit_test(test_got),
		cmocka_unit_test(test_entry_env),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
