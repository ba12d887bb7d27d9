/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the workdir setting: its names, the check of the local
 * path used inside, its place in the config hash (none for /workspace,
 * so that existing sandboxes keep theirs) and in the metadata file.
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

#include "compat.h"
#include "error.h"
#include "sandbox.h"
#include "xmalloc.h"

/* sha256 of the default settings' text, from Python. */
#define HASH_DEFAULT \
	"165b4425812e14534c91bc29e10b6745a14b7fe74005f2bcded2dea7db26f1c4"
/* ... with "workdir=local\n" last. */
#define HASH_LOCAL \
	"226e7be61d6a451c85b554f255119d38b538ce058e729f71818e60f32e6f8090"
/* ... with "user=nobody\nworkdir=local\n" last. */
#define HASH_USER_LOCAL \
	"330c43fb4a19b41a610f9a57ad54648885893d0a3c4d9651f2baf457a2afc3fc"

/* The names parse both ways; anything else is refused. */
static void
test_workdir_names(void **state)
{
	enum sandbox_workdir	w = SANDBOX_WORKDIR_LOCAL;

	(void)state;
	assert_int_equal(sandbox_workdir_parse("/workspace", &w), 0);
	assert_int_equal(w, SANDBOX_WORKDIR_WORKSPACE);
	assert_int_equal(sandbox_workdir_parse("local", &w), 0);
	assert_int_equal(w, SANDBOX_WORKDIR_LOCAL);
	assert_string_equal(sandbox_workdir_name(SANDBOX_WORKDIR_WORKSPACE),
	    "/workspace");
	assert_string_equal(sandbox_workdir_name(SANDBOX_WORKDIR_LOCAL),
	    "local");
	assert_string_equal(sandbox_workdir_name((enum sandbox_workdir)7),
	    "unknown");
	assert_int_equal(sandbox_workdir_parse("/srv", &w), CLAW_ERR_INVAL);
	assert_int_equal(sandbox_workdir_parse("Local", &w), CLAW_ERR_INVAL);
	assert_int_equal(sandbox_workdir_parse("/workspace/", &w),
	    CLAW_ERR_INVAL);
	assert_int_equal(sandbox_workdir_parse(NULL, &w), CLAW_ERR_INVAL);
	assert_int_equal(w, SANDBOX_WORKDIR_LOCAL);	/* unchanged */
}

/* Expect sandbox_workdir_check(rt, path) to fail naming part. */
static void
expect_bad(enum contain_runtime rt, const char *path, const char *part)
{
	char	*cause = NULL;

	assert_int_equal(sandbox_workdir_check(rt, path, &cause),
	    CLAW_ERR_INVAL);
	assert_non_null(cause);
	if (strstr(cause, part) == NULL)
		fail_msg("%s: '%s' lacks '%s'", path != NULL ? path : "NULL",
		    cause, part);
	free(cause);
	assert_int_equal(sandbox_workdir_check(rt, path, NULL),
	    CLAW_ERR_INVAL);
}

/* Ordinary local paths pass, with spaces and UTF-8 too. */
static void
test_workdir_check_good(void **state)
{
	static const char *const good[] = { "/home/alice/proj",
	    "/Users/bob/src/my project", "/srv/build", "/root/x",
	    "/workspace", "/tmpfoo", "/procs/x", "/home/\xc3\xa9t\xc3\xa9",
	    "/home/a,b", "/opt/x.y/..z/.git" };
	char		*cause = NULL;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		if (sandbox_workdir_check(CONTAIN_BWRAP, good[i], &cause) != 0)
			fail_msg("%s: %s", good[i], cause);
	}
	assert_int_equal(sandbox_workdir_check(CONTAIN_DOCKER, "/home/a b",
	    &cause), 0);
	assert_null(cause);
}

/* What cannot be a mount point of the workspace inside is refused. */
static void
test_workdir_check_bad(void **state)
{
	char	*long_path;

	(void)state;
	expect_bad(CONTAIN_BWRAP, NULL, "not absolute");
	expect_bad(CONTAIN_BWRAP, "", "not absolute");
	expect_bad(CONTAIN_BWRAP, "home/alice", "not absolute");
	expect_bad(CONTAIN_BWRAP, "/", "'/' itself");
	expect_bad(CONTAIN_BWRAP, "/home//alice", "empty component");
	expect_bad(CONTAIN_BWRAP, "/home/alice/", "empty component");
	expect_bad(CONTAIN_BWRAP, "/home/./alice", "'.' or '..'");
	expect_bad(CONTAIN_BWRAP, "/home/alice/..", "'.' or '..'");
	expect_bad(CONTAIN_BWRAP, "/../etc", "'.' or '..'");
	expect_bad(CONTAIN_BWRAP, "/home/a\nb", "control character");
	expect_bad(CONTAIN_BWRAP, "/home/a\x7f", "control character");
	expect_bad(CONTAIN_BWRAP, "/proc", "at or under /proc");
	expect_bad(CONTAIN_BWRAP, "/proc/1/root", "at or under /proc");
	expect_bad(CONTAIN_BWRAP, "/dev/shm/x", "/dev");
	expect_bad(CONTAIN_BWRAP, "/sys", "/sys");
	expect_bad(CONTAIN_BWRAP, "/tmp/proj", "at or under /tmp");
	expect_bad(CONTAIN_BWRAP, "/run/user/1000/p", "/run");
	expect_bad(CONTAIN_BWRAP, "/workspace/sub", "under /workspace/");
	expect_bad(CONTAIN_DOCKER, "/home/a,b", "CSV");
	expect_bad(CONTAIN_PODMAN, "/home/a\"b", "CSV");
	long_path = xmalloc(SANDBOX_ROOT_MAX + 2);
	memset(long_path, 'a', SANDBOX_ROOT_MAX + 1);
	long_path[0] = '/';
	long_path[SANDBOX_ROOT_MAX + 1] = '\0';
	expect_bad(CONTAIN_BWRAP, long_path, "longer");
	long_path[SANDBOX_ROOT_MAX] = '\0';
	assert_int_equal(sandbox_workdir_check(CONTAIN_BWRAP, long_path,
	    NULL), 0);
	free(long_path);
}

/* The path inside: the local one only for workdir local. */
static void
test_workdir_path(void **state)
{
	struct sandbox_settings	s;

	(void)state;
	sandbox_settings_default(&s);
	assert_int_equal(s.workdir, SANDBOX_WORKDIR_WORKSPACE);
	assert_string_equal(sandbox_workdir_path(&s, "/home/a"), "/workspace");
	s.workdir = SANDBOX_WORKDIR_LOCAL;
	assert_string_equal(sandbox_workdir_path(&s, "/home/a"), "/home/a");
	assert_string_equal(sandbox_workdir_path(&s, NULL), "/workspace");
}

/*
 * /workspace leaves the hash as it was (existing sandboxes keep theirs);
 * local adds "workdir=local" last, after the user.
 */
static void
test_workdir_hash(void **state)
{
	struct sandbox_settings	s;
	char			h[SANDBOX_HASH_LEN + 1];

	(void)state;
	sandbox_settings_default(&s);
	sandbox_config_hash(&s, h);
	assert_string_equal(h, HASH_DEFAULT);
	s.workdir = SANDBOX_WORKDIR_LOCAL;
	sandbox_config_hash(&s, h);
	assert_string_equal(h, HASH_LOCAL);
	strlcpy(s.user, "nobody", sizeof s.user);
	sandbox_config_hash(&s, h);
	assert_string_equal(h, HASH_USER_LOCAL);
}

/* Fill m with valid metadata for workdir w. */
static void
meta_example(struct sandbox_meta *m, enum sandbox_workdir w)
{
	memset(m, 0, sizeof *m);
	m->version = SANDBOX_META_VERSION;
	m->scope = SANDBOX_SCOPE_SESSION;
	strlcpy(m->key, "k", sizeof m->key);
	sandbox_id(m->scope, m->key, "a@h:22", m->id);
	sandbox_settings_default(&m->settings);
	m->settings.workdir = w;
	sandbox_config_hash(&m->settings, m->config_hash);
	m->created = 1700000000;
	strlcpy(m->workspace, "/home/alice/p", sizeof m->workspace);
}

/* The metadata keeps "workdir" for local only, and reads it back. */
static void
test_workdir_meta(void **state)
{
	struct sandbox_meta	 m, got;
	char			*text, *cause = NULL;

	(void)state;
	meta_example(&m, SANDBOX_WORKDIR_WORKSPACE);
	text = sandbox_meta_encode(&m);
	assert_null(strstr(text, "workdir"));
	assert_int_equal(sandbox_meta_decode(text, strlen(text), m.id, &got,
	    &cause), 0);
	assert_int_equal(got.settings.workdir, SANDBOX_WORKDIR_WORKSPACE);
	free(text);
	meta_example(&m, SANDBOX_WORKDIR_LOCAL);
	text = sandbox_meta_encode(&m);
	assert_non_null(strstr(text, "\"workdir\":\t\"local\""));
	assert_int_equal(sandbox_meta_decode(text, strlen(text), m.id, &got,
	    &cause), 0);
	assert_int_equal(got.settings.workdir, SANDBOX_WORKDIR_LOCAL);
	assert_string_equal(got.config_hash, HASH_LOCAL);
	free(text);
}

/* A bad or repeated "workdir" is a parse error naming the field. */
static void
test_workdir_meta_bad(void **state)
{
	static const char *const bad[] = { "\"/srv\"", "7", "null",
	    "\"local\", \"workdir\": \"local\"" };
	struct sandbox_meta	 m, got;
	char			*text, *bad_text, *at, *cause = NULL;
	size_t			 i;

	(void)state;
	meta_example(&m, SANDBOX_WORKDIR_LOCAL);
	text = sandbox_meta_encode(&m);
	at = strstr(text, "\"local\"");
	assert_non_null(at);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		bad_text = xasprintf("%.*s%s%s", (int)(at - text), text,
		    bad[i], at + strlen("\"local\""));
		assert_int_equal(sandbox_meta_decode(bad_text,
		    strlen(bad_text), m.id, &got, &cause), CLAW_ERR_PARSE);
		assert_non_null(strstr(cause, "field 'workdir'"));
		free(cause);
		cause = NULL;
		free(bad_text);
	}
	free(text);
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_workdir_names),
		cmocka_unit_test(test_workdir_check_good),
		cmocka_unit_test(test_workdir_check_bad),
		cmocka_unit_test(test_workdir_path),
		cmocka_unit_test(test_workdir_hash),
		cmocka_unit_test(test_workdir_meta),
		cmocka_unit_test(test_workdir_meta_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
