/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for validation on load: a stored record file that has been
 * edited, spoiled or replaced by a link fails with a cause naming the file,
 * and members a newer writer added are ignored.  Every test runs in its own
 * temporary directory, removed afterwards.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "compat.h"
#include "error.h"
#include "jsonc.h"
#include "registry.h"
#include "registry_fixture.h"
#include "xmalloc.h"

#define MAX(a, b)	((a) > (b) ? (a) : (b))

/* One bad value for one member of a stored record. */
struct field_case {
	const char	*test;		/* test name */
	const char	*member;
	const char	*json;		/* the value; NULL: drop the member */
	size_t		 len;		/* if not 0: a string of len 'a's */
};

/* Store ID_A, then set member name of its file to value (NULL: drop it). */
static void
edit_record(struct rf *f, const char *name, cJSON *value)
{
	cJSON	*root = NULL;
	char	*cause = NULL, *text;

	rf_put_record(rf_open(f), ID_A);
	assert_int_equal(jsonc_load_file(f->path_a, &root, &cause), 0);
	cJSON_DeleteItemFromObjectCaseSensitive(root, name);
	if (value != NULL)
		cJSON_AddItemToObject(root, name, value);
	assert_non_null(text = cJSON_Print(root));
	rf_write_file(f->path_a, text, strlen(text));
	cJSON_free(text);
	cJSON_Delete(root);
}

/* Loading ID_A must fail with PARSE and a cause "PATH" + suffix. */
static void
expect_load_error(struct rf *f, const char *suffix)
{
	struct registry_record	*got = (struct registry_record *)0x1;
	char			*cause = NULL, *want;

	want = xasprintf("%s%s", f->path_a, suffix);
	assert_int_equal(registry_get(rf_open(f), ID_A, &got, &cause),
	    CLAW_ERR_PARSE);
	assert_ptr_equal(got, (struct registry_record *)0x1);
	assert_non_null(cause);
	if (strncmp(cause, want, strlen(want)) != 0)
		fail_msg("cause \"%s\" does not start \"%s\"", cause, want);
	free(cause);
	free(want);
}

/* Make the value a field case describes (NULL: drop the member). */
static cJSON *
field_value(const struct field_case *fc)
{
	cJSON	*v;
	char	*s;

	if (fc->len != 0) {
		s = xmalloc(fc->len + 1);
		memset(s, 'a', fc->len);
		s[fc->len] = '\0';
		v = cJSON_CreateString(s);
		free(s);
		return v;
	}
	if (fc->json == NULL)
		return NULL;
	assert_non_null(v = cJSON_Parse(fc->json));
	return v;
}

/* A stored record with one bad member fails with "FILE: field 'x': ". */
static void
test_load_field(void **state)
{
	struct rf		*f = *state;
	const struct field_case	*fc = f->arg;
	char			*suffix;

	edit_record(f, fc->member, field_value(fc));
	suffix = xasprintf(": field '%s': ", fc->member);
	expect_load_error(f, suffix);
	free(suffix);
}

#define S(s)	"\"" s "\""

static struct field_case field_cases[] = {
	{ "test_load_id_mismatch", "id", S(ID_B), 0 },
	{ "test_load_id_not_string", "id", "7", 0 },
	{ "test_load_id_malformed", "id", S("../x"), 0 },
	{ "test_load_missing_host", "host", NULL, 0 },
	{ "test_load_empty_backend", "backend", S(""), 0 },
	{ "test_load_port_zero", "port", "0", 0 },
	{ "test_load_port_too_big", "port", "65536", 0 },
	{ "test_load_port_fraction", "port", "22.5", 0 },
	{ "test_load_port_string", "port", S("22"), 0 },
	{ "test_load_relative_root", "remoteRoot", S("srv/claw"), 0 },
	{ "test_load_hash_upper", "configHash", S("0123456789ABCDEF"
	    "0123456789abcdef0123456789abcdef0123456789abcdef"), 0 },
	{ "test_load_hash_short", "configHash", S("0123abcd"), 0 },
	{ "test_load_huge_string", "target", NULL, 4097 },
	{ "test_load_relative_workspace", "workspace", S("home/u"), 0 },
	{ "test_load_bad_scope", "scope", S("global"), 0 },
	{ "test_load_bad_mode", "mode", S("MIRROR"), 0 },
	{ "test_load_access_not_string", "access", "true", 0 },
	{ "test_load_bad_image", "image", S("../etc"), 0 },
	{ "test_load_long_image", "image", NULL, 65 },
	{ "test_load_bad_key", "key", S("a/b"), 0 },
	{ "test_load_control_char", "user", S("alice\\u001b[2J"), 0 },
	{ "test_load_created_negative", "created", "-1", 0 },
	{ "test_load_created_fraction", "created", "1.5", 0 },
	{ "test_load_ssh_config_not_string", "sshConfig", "1", 0 },
};

/* A whole record file that must not load. */
struct file_case {
	const char	*test;
	const char	*text;
	size_t		 size;		/* padded with spaces to this size */
	const char	*suffix;	/* the cause after the file name */
};

/* A spoiled record file fails with a cause naming the file. */
static void
test_load_file(void **state)
{
	struct rf		*f = *state;
	const struct file_case	*fc = f->arg;
	char			*text;
	size_t			 len = strlen(fc->text);

	edit_record(f, "id", NULL);
	text = xmalloc(MAX(len, fc->size) + 1);
	memset(text, ' ', MAX(len, fc->size));
	memcpy(text, fc->text, len);
	rf_write_file(f->path_a, text, MAX(len, fc->size));
	free(text);
	expect_load_error(f, fc->suffix);
}

static struct file_case file_cases[] = {
	{ "test_load_not_json", "not json at all", 0, ":1:1: " },
	{ "test_load_not_object", "[1, 2]", 0, ": not a JSON object" },
	{ "test_load_too_large", "{}", 100 * 1024, ": larger than 64 KiB" },
	{ "test_load_empty_file", "", 0, ": empty file" },
};

/* A record file that is a symbolic link is refused. */
static void
test_load_symlink_refused(void **state)
{
	struct rf		*f = *state;
	struct registry_record	*got = NULL;
	char			*cause = NULL;

	rf_put_record(rf_open(f), ID_B);
	assert_int_equal(symlink(ID_B ".json", f->path_a), 0);
	rf_check_fail(registry_get(f->reg, ID_A, &got, &cause), CLAW_ERR_INVAL,
	    &cause, "symbolic link");
	assert_null(got);
}

/* Unknown members (a newer writer) are ignored. */
static void
test_load_unknown_member(void **state)
{
	struct rf		*f = *state;
	struct registry_record	*got;

	edit_record(f, "futureField", cJSON_CreateString("x"));
	got = rf_get_record(rf_open(f), ID_A);
	assert_int_equal(got->port, 2222);
	registry_record_free(got);
}

/* Run every test, each in its own directory; table cases by name. */
int
main(void)
{
	const struct CMUnitTest	tests[] = {
		RF_TEST(test_load_symlink_refused),
		RF_TEST(test_load_unknown_member),
	};
	struct CMUnitTest	all[RF_NITEMS(tests) + RF_NITEMS(field_cases) +
				    RF_NITEMS(file_cases)];
	size_t			n = RF_NITEMS(tests);

	memcpy(all, tests, sizeof(tests));
	RF_ADD_CASES(all, n, test_load_field, field_cases);
	RF_ADD_CASES(all, n, test_load_file, file_cases);
	return _cmocka_run_group_tests("test_registry_load", all, n, NULL,
	    NULL);
}
