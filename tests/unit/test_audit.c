/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the audit log: the line format, escaping of control
 * characters and bad UTF-8, the file's creation (directories, mode 0600,
 * no symbolic link), "" turning it off, and eight processes appending 500
 * lines each without interleaving.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "compat.h"
#include "audit.h"
#include "error.h"
#include "xmalloc.h"
#include "tmpdir.h"

#define WRITERS		8
#define LINES		500

/* Make the test's directory. */
static int
setup(void **state)
{
	char	*dir;

	dir = xstrdup("/tmp/test_audit.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		free(dir);
		return -1;
	}
	*state = dir;
	return 0;
}

/* Remove the test's directory. */
static int
teardown(void **state)
{
	char	*dir = *state;
	int	 r;

	r = tmpdir_remove(dir);
	free(dir);
	return r;
}

/* Read the whole file at path (NUL-terminated, allocated). */
static char *
slurp(const char *path)
{
	FILE	*f;
	char	*data;
	long	 len;

	assert_non_null(f = fopen(path, "r"));
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	rewind(f);
	data = xcalloc(1, (size_t)len + 1);
	assert_int_equal(fread(data, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	return data;
}

/* Every field, in order, with null for missing strings. */
static void
test_format(void **state)
{
	struct audit_rec	 rec;
	char			*line;

	(void)state;
	memset(&rec, 0, sizeof(rec));
	rec.start_ms = 1796223845123LL;	/* 2026-12-02T15:04:05.123Z */
	rec.duration_ms = 42;
	rec.caller = "uid=1000 pid=4242 agent=bot";
	rec.agent = "bot";
	rec.sandbox = "sb1";
	rec.tool = "exec";
	rec.exit_status = 3;
	rec.bytes_in = 7;
	rec.bytes_out = 1099511627776ULL;
	line = audit_format(&rec);
	assert_string_equal(line, "{\"time\":\"2026-12-02T15:04:05.123Z\","
	    "\"caller\":\"uid=1000 pid=4242 agent=bot\",\"agent\":\"bot\","
	    "\"sandbox\":\"sb1\",\"host\":null,\"tool\":\"exec\","
	    "\"elevated\":false,\"duration_ms\":42,\"exit_status\":3,"
	    "\"bytes_in\":7,\"bytes_out\":1099511627776,\"error\":null}");
	free(line);

	memset(&rec, 0, sizeof(rec));
	rec.start_ms = 0;
	rec.elevated = 1;
	rec.host = "gpu1";
	rec.tool = "exec";
	rec.exit_status = -1;
	rec.error = "policy.elevated is false";
	line = audit_format(&rec);
	assert_string_equal(line, "{\"time\":\"1970-01-01T00:00:00.000Z\","
	    "\"caller\":null,\"agent\":null,\"sandbox\":null,"
	    "\"host\":\"gpu1\",\"tool\":\"exec\",\"elevated\":true,"
	    "\"duration_ms\":0,\"exit_status\":-1,\"bytes_in\":0,"
	    "\"bytes_out\":0,\"error\":\"policy.elevated is false\"}");
	free(line);
}

/* Control characters escaped, bad UTF-8 replaced, long strings cut. */
static void
test_escaping(void **state)
{
	struct audit_rec	 rec;
	cJSON			*obj;
	char			*line, *big;

	(void)state;
	memset(&rec, 0, sizeof(rec));
	rec.tool = "fs.read";
	rec.caller = "a\nb\t\"c\"\x1b[31m";
	rec.agent = "caf\xc3\xa9 \xff\xfe \xe2\x82";
	big = xcalloc(1, 5000);
	memset(big, 'x', 4999);
	big[AUDIT_FIELD_MAX - 1] = '\xc3';	/* cut in the middle */
	big[AUDIT_FIELD_MAX] = '\xa9';
	rec.error = big;
	line = audit_format(&rec);
	assert_null(strchr(line, '\n'));
	assert_null(strchr(line, '\x1b'));
	assert_non_null(strstr(line,
	    "\"caller\":\"a\\nb\\t\\\"c\\\"\\u001b[31m\""));
	assert_non_null(obj = cJSON_Parse(line));
	assert_string_equal(cJSON_GetObjectItem(obj, "agent")->valuestring,
	    "caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd \xef\xbf\xbd\xef\xbf\xbd");
	assert_int_equal(strlen(cJSON_GetObjectItem(obj,
	    "error")->valuestring), AUDIT_FIELD_MAX - 1);
	cJSON_Delete(obj);
	free(line);
	free(big);
}

/* The file and its directories are made private; "" is off. */
static void
test_open(void **state)
{
	struct audit_rec	 rec;
	struct audit		*a = (struct audit *)1;
	struct stat		 st;
	char			*path, *dirpath, *link, *data, *line;
	char			*cause = NULL;

	memset(&rec, 0, sizeof(rec));
	rec.tool = "exec";
	assert_int_equal(audit_open("", &a, &cause), 0);
	assert_null(a);
	assert_int_equal(audit_write(NULL, &rec), 0);

	path = xasprintf("%s/state/clawssh/audit.log", (char *)*state);
	assert_int_equal(audit_open(path, &a, &cause), 0);
	assert_int_equal(audit_write(a, &rec), 0);
	assert_int_equal(audit_write(a, &rec), 0);
	audit_free(a);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	dirpath = xasprintf("%s/state/clawssh", (char *)*state);
	assert_int_equal(stat(dirpath, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);
	data = slurp(path);
	line = audit_format(&rec);
	assert_int_equal(strlen(data), 2 * (strlen(line) + 1));
	free(line);
	free(data);

	/* An existing file open to others is narrowed. */
	assert_int_equal(chmod(path, 0644), 0);
	assert_int_equal(audit_open(path, &a, &cause), 0);
	audit_free(a);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	/* A symbolic link or a directory is refused. */
	link = xasprintf("%s/link.log", (char *)*state);
	assert_int_equal(symlink(path, link), 0);
	assert_int_not_equal(audit_open(link, &a, &cause), 0);
	assert_non_null(strstr(cause, "link.log"));
	free(cause);
	assert_int_equal(audit_open(dirpath, &a, &cause), CLAW_ERR_IO);
	free(cause);
	free(link);
	free(dirpath);
	free(path);
}

/* Eight processes append 500 lines each: every line parses whole. */
static void
test_concurrent(void **state)
{
	struct audit_rec	 rec;
	struct audit		*a;
	cJSON			*obj;
	char			*path, *data, *line, *save, *cause = NULL;
	char			 caller[64], err[600];
	int			 w, i, status, count[WRITERS] = { 0 }, n = 0;
	pid_t			 pid[WRITERS];

	path = xasprintf("%s/audit.log", (char *)*state);
	memset(err, 'e', sizeof(err) - 1);
	err[sizeof(err) - 1] = '\0';
	for (w = 0; w < WRITERS; w++) {
		assert_int_not_equal(pid[w] = fork(), -1);
		if (pid[w] != 0)
			continue;
		if (audit_open(path, &a, &cause) != 0)
			_exit(2);
		memset(&rec, 0, sizeof(rec));
		snprintf(caller, sizeof(caller), "writer=%d", w);
		rec.caller = caller;
		rec.tool = "fs.write";
		rec.error = err;
		for (i = 0; i < LINES; i++) {
			rec.bytes_in = (uint64_t)i;
			if (audit_write(a, &rec) != 0)
				_exit(3);
		}
		audit_free(a);
		_exit(0);
	}
	for (w = 0; w < WRITERS; w++) {
		assert_int_equal(waitpid(pid[w], &status, 0), pid[w]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	data = slurp(path);
	for (line = strtok_r(data, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if ((obj = cJSON_Parse(line)) == NULL)
			fail_msg("line %d does not parse: %.80s", n, line);
		assert_int_equal(sscanf(cJSON_GetObjectItem(obj,
		    "caller")->valuestring, "writer=%d", &w), 1);
		assert_in_range(w, 0, WRITERS - 1);
		assert_int_equal(cJSON_GetObjectItem(obj,
		    "bytes_in")->valuedouble, count[w]);
		count[w]++;
		n++;
		cJSON_Delete(obj);
	}
	assert_int_equal(n, WRITERS * LINES);
	free(data);
	free(path);
}

/* The default path follows XDG_STATE_HOME, else home. */
static void
test_default_path(void **state)
{
	char	*p;

	(void)state;
	unsetenv("XDG_STATE_HOME");
	p = audit_default_path("/home/u/");
	assert_string_equal(p, "/home/u/.local/state/clawssh/audit.log");
	free(p);
	assert_null(audit_default_path(NULL));
	setenv("XDG_STATE_HOME", "relative", 1);
	assert_null(audit_default_path(""));
	setenv("XDG_STATE_HOME", "/x/state", 1);
	p = audit_default_path(NULL);
	assert_string_equal(p, "/x/state/clawssh/audit.log");
	free(p);
	unsetenv("XDG_STATE_HOME");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test_setup_teardown(test_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent, setup,
		    teardown),
		cmocka_unit_test(test_default_path),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
