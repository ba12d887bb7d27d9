/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for jsonc (JSON with comments) and clawconfig (the config file).
 * Every test runs in its own temporary directory, removed afterwards.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <fcntl.h>
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
#include "clawconfig.h"
#include "error.h"
#include "jsonc.h"
#include "sshconfig.h"
#include "xmalloc.h"
#include "tmpdir.h"

/* Per-test state: a private temporary directory. */
struct fixture {
	char	dir[64];
	char	home[128];
};

/* Create the test's directory and a home directory inside it. */
static int
setup(void **state)
{
	struct fixture	*f;

	f = xcalloc(1, sizeof(*f));
	strlcpy(f->dir, "/tmp/test_config.XXXXXX", sizeof(f->dir));
	if (mkdtemp(f->dir) == NULL) {
		free(f);
		return -1;
	}
	snprintf(f->home, sizeof(f->home), "%s/home", f->dir);
	if (mkdir(f->home, 0700) == -1)
		return -1;
	unsetenv("XDG_CONFIG_HOME");
	*state = f;
	return 0;
}

/* Remove the test's directory and everything in it. */
static int
teardown(void **state)
{
	struct fixture	*f = *state;
	int		 r;

	unsetenv("XDG_CONFIG_HOME");
	r = tmpdir_remove(f->dir);
	free(f);
	return r == 0 ? 0 : -1;
}

/* Write len bytes to dir/name, creating missing parent directories. */
static char *
write_file(const char *dir, const char *name, const char *data, size_t len)
{
	char	*path, *p;
	int	 fd;

	path = xasprintf("%s/%s", dir, name);
	for (p = path + strlen(dir) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		assert_true(mkdir(path, 0700) == 0 || access(path, F_OK) == 0);
		*p = '/';
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd != -1);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
	return path;
}

/* Write text as dir/config.json and return its path. */
static char *
write_config(const struct fixture *f, const char *text)
{
	return write_file(f->dir, "config.json", text, strlen(text));
}

/* Parse text with jsonc_parse, expecting failure with message expect. */
static void
expect_jsonc_error(const char *text, size_t len, const char *expect)
{
	cJSON	*root = (cJSON *)(uintptr_t)0x1;
	char	*cause = NULL;

	assert_int_equal(jsonc_parse("t.json", text, len, &root, &cause),
	    CLAW_ERR_PARSE);
	assert_ptr_equal(root, (cJSON *)(uintptr_t)0x1);
	assert_non_null(cause);
	assert_string_equal(cause, expect);
	free(cause);
}

/* As expect_jsonc_error, for a C string. */
static void
expect_jsonc_text(const char *text, const char *expect)
{
	expect_jsonc_error(text, strlen(text), expect);
}

/* Load text as a config file, expecting error err with "PATH" + suffix. */
static void
expect_config_error(const struct fixture *f, const char *text, int err,
    const char *suffix)
{
	struct claw_config	*cfg = (struct claw_config *)(uintptr_t)0x1;
	char			*path, *cause = NULL, *expect;

	path = write_config(f, text);
	assert_int_equal(config_load(path, f->home, &cfg, &cause), err);
	assert_ptr_equal(cfg, (struct claw_config *)(uintptr_t)0x1);
	assert_non_null(cause);
	expect = xasprintf("%s%s", path, suffix);
	assert_string_equal(cause, expect);
	free(expect);
	free(cause);
	free(path);
}

/* Load text as a config file, expecting success. */
static struct claw_config *
load_config(const struct fixture *f, const char *text)
{
	struct claw_config	*cfg = NULL;
	char			*path, *cause = NULL;
	int			 r;

	path = write_config(f, text);
	r = config_load(path, f->home, &cfg, &cause);
	if (r != 0)
		print_error("unexpected error: %s\n", cause);
	assert_int_equal(r, 0);
	assert_null(cause);
	assert_non_null(cfg);
	assert_string_equal(cfg->path, path);
	free(path);
	return cfg;
}

/* Both comment kinds are ignored; comment markers inside strings are kept. */
static void
test_jsonc_comments(void **state)
{
	const char	*text =
	    "// leading line comment\n"
	    "{ /* block\n   over lines */ \"a\": \"x//y\", // trailing\n"
	    "  \"b\": \"p/*q*/r\", \"c\": \"e\\\"//f\", /**/ \"d\": 7 }\n"
	    "/* end */ // done";
	cJSON		*root = NULL;
	char		*cause = NULL;

	(void)state;
	assert_int_equal(jsonc_parse("t.json", text, strlen(text), &root,
	    &cause), 0);
	assert_null(cause);
	assert_string_equal(cJSON_GetObjectItem(root, "a")->valuestring,
	    "x//y");
	assert_string_equal(cJSON_GetObjectItem(root, "b")->valuestring,
	    "p/*q*/r");
	assert_string_equal(cJSON_GetObjectItem(root, "c")->valuestring,
	    "e\"//f");
	assert_int_equal(cJSON_GetObjectItem(root, "d")->valueint, 7);
	assert_int_equal(cJSON_GetArraySize(root), 4);
	cJSON_Delete(root);
}

/* Syntax errors name the exact line and column, comments included. */
static void
test_jsonc_syntax_position(void **state)
{
	const char	*missing_comma =
	    "{\n  \"a\": 1,\n  \"b\": 2 \"c\": 3\n}\n";
	const char	*after_block = "/* c */ {\"a\": tru}";
	const char	*after_line = "// hi\n{\"a\": [1, 2,, 3]}";
	const char	*crlf = "{\r\n\"a\": 1,\r\n\"b\" 2}";

	(void)state;
	expect_jsonc_error(missing_comma, strlen(missing_comma),
	    "t.json:3:10: syntax error near '\"c\": 3'");
	expect_jsonc_error(after_block, strlen(after_block),
	    "t.json:1:15: syntax error near 'tru}'");
	expect_jsonc_error(after_line, strlen(after_line),
	    "t.json:2:13: syntax error near ', 3]}'");
	expect_jsonc_error(crlf, strlen(crlf),
	    "t.json:3:5: syntax error near '2}'");
}

/* Bad keys, trailing commas and broken strings point at the culprit. */
static void
test_jsonc_syntax_strings(void **state)
{
	(void)state;
	expect_jsonc_text("{\"a\": 1,}",
	    "t.json:1:9: syntax error near '}'");
	expect_jsonc_text("{\n  a: 1}",
	    "t.json:2:3: syntax error near 'a: 1}'");
	expect_jsonc_text("{\"a\": [1, 2,]}",
	    "t.json:1:13: syntax error near ']}'");
	expect_jsonc_text("{\"a\": [1, 2x]}",
	    "t.json:1:12: syntax error near 'x]}'");
	expect_jsonc_text("{\"a\": \"x\\q\"}",
	    "t.json:1:9: syntax error near '\\x5cq\"}'");
	expect_jsonc_text("{\"a\": \"abc\\\"}",
	    "t.json:1:7: syntax error near '\"abc\\x5c\"}'");
	expect_jsonc_text("{\"a\" 1}",
	    "t.json:1:6: syntax error near '1}'");
}

/* Input that stops inside a value is an error at the end of input. */
static void
test_jsonc_unexpected_end(void **state)
{
	(void)state;
	expect_jsonc_error("{\"a\": 1", 7,
	    "t.json:1:8: unexpected end of input");
	expect_jsonc_error("[1,\n2,\n", 7,
	    "t.json:3:1: unexpected end of input");
}

/* An unterminated block comment is reported where it starts. */
static void
test_jsonc_unterminated_comment(void **state)
{
	const char	*text = "{\"a\": 1}\n  /* never closed\n\n";

	(void)state;
	expect_jsonc_error(text, strlen(text),
	    "t.json:2:3: unterminated comment");
}

/* Anything but whitespace and comments after the value is an error. */
static void
test_jsonc_trailing_garbage(void **state)
{
	const char	*text = "{} // ok\n /* ok */ x";

	(void)state;
	expect_jsonc_error(text, strlen(text),
	    "t.json:2:11: unexpected content after the JSON value");
	expect_jsonc_error("{}{}", 4,
	    "t.json:1:3: unexpected content after the JSON value");
}

/* Empty input and input with only comments are errors. */
static void
test_jsonc_empty(void **state)
{
	const char	*comments = " // nothing\n/* here */\n";

	(void)state;
	expect_jsonc_error("", 0, "t.json: empty file");
	expect_jsonc_error(comments, strlen(comments), "t.json: no JSON value");
}

/* A NUL byte anywhere, even in a comment, is rejected with its position. */
static void
test_jsonc_nul_byte(void **state)
{
	const char	 text[] = "{\"a\":\n // \0 x\n 1}";
	struct fixture	*f = *state;
	cJSON		*root = NULL;
	char		*path, *cause = NULL, *expect;

	expect_jsonc_error(text, sizeof(text) - 1,
	    "t.json:2:5: NUL byte in input");
	path = write_file(f->dir, "nul.json", text, sizeof(text) - 1);
	assert_int_equal(jsonc_load_file(path, &root, &cause),
	    CLAW_ERR_PARSE);
	assert_null(root);
	expect = xasprintf("%s:2:5: NUL byte in input", path);
	assert_string_equal(cause, expect);
	free(expect);
	free(cause);
	free(path);
}

/* Control and non-ASCII bytes in an error excerpt are escaped. */
static void
test_jsonc_excerpt_escaped(void **state)
{
	const char	*text = "{\"a\": \xff\x01'\\}";

	(void)state;
	expect_jsonc_error(text, strlen(text),
	    "t.json:1:7: syntax error near '\\xff\\x01\\x27\\x5c}'");
}

/* jsonc_load_file reads a file and names it in messages. */
static void
test_jsonc_load_file(void **state)
{
	struct fixture	*f = *state;
	cJSON		*root = NULL;
	char		*path, *cause = NULL, *expect;

	path = write_file(f->dir, "ok.json", "[1, 2] // c", 11);
	assert_int_equal(jsonc_load_file(path, &root, &cause), 0);
	assert_int_equal(cJSON_GetArraySize(root), 2);
	cJSON_Delete(root);
	free(path);

	root = NULL;
	path = write_file(f->dir, "bad.json", "[1 2]", 5);
	assert_int_equal(jsonc_load_file(path, &root, &cause),
	    CLAW_ERR_PARSE);
	assert_null(root);
	expect = xasprintf("%s:1:4: syntax error near '2]'", path);
	assert_string_equal(cause, expect);
	free(expect);
	free(cause);
	free(path);
}

/* A missing file is CLAW_ERR_NOTFOUND; a directory is refused. */
static void
test_jsonc_load_missing_and_dir(void **state)
{
	struct fixture	*f = *state;
	cJSON		*root = NULL;
	char		*path, *cause = NULL, *expect;

	path = xasprintf("%s/absent.json", f->dir);
	assert_int_equal(jsonc_load_file(path, &root, &cause),
	    CLAW_ERR_NOTFOUND);
	assert_null(root);
	expect = xasprintf("%s: no such file", path);
	assert_string_equal(cause, expect);
	free(expect);
	free(cause);
	free(path);

	cause = NULL;
	assert_int_equal(jsonc_load_file(f->dir, &root, &cause),
	    CLAW_ERR_INVAL);
	assert_null(root);
	expect = xasprintf("%s: not a regular file", f->dir);
	assert_string_equal(cause, expect);
	free(expect);
	free(cause);
}

/* A FIFO is refused without blocking in open. */
static void
test_jsonc_load_fifo(void **state)
{
	struct fixture	*f = *state;
	cJSON		*root = NULL;
	char		*path, *cause = NULL;

	path = xasprintf("%s/fifo", f->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(jsonc_load_file(path, &root, &cause),
	    CLAW_ERR_INVAL);
	assert_null(root);
	assert_non_null(strstr(cause, ": not a regular file"));
	free(cause);
	free(path);
}

/* Files over 16 MiB are refused; exactly 16 MiB is read. */
static void
test_jsonc_too_large(void **state)
{
	struct fixture	*f = *state;
	cJSON		*root = NULL;
	char		*path, *cause = NULL, *expect;
	int		 fd;

	path = write_file(f->dir, "big.json", "1", 1);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_true(fd != -1);
	/* Sparse: spaces would parse, NULs prove the size check comes first. */
	assert_int_equal(ftruncate(fd, 16 * 1024 * 1024 + 1), 0);
	close(fd);
	assert_int_equal(jsonc_load_file(path, &root, &cause),
	    CLAW_ERR_PARSE);
	assert_null(root);
	expect = xasprintf("%s: larger than 16 MiB", path);
	assert_string_equal(cause, expect);
	free(expect);
	free(cause);

	cause = NULL;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	assert_int_equal(ftruncate(fd, 16 * 1024 * 1024), 0);
	close(fd);
	assert_int_equal(jsonc_load_file(path, &root, &cause),
	    CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, ":1:2: NUL byte in input"));
	free(cause);
	free(path);
}

/* Unknown keys are errors at every level, named with their section. */
static void
test_config_unknown_key(void **state)
{
	struct fixture	*f = *state;

	expect_config_error(f, "{\"ssh\": {\"conectTimeout\": 5}}",
	    CLAW_ERR_PARSE, ": unknown key 'ssh.conectTimeout'");
	expect_config_error(f, "{\"sssh\": {}}", CLAW_ERR_PARSE,
	    ": unknown key 'sssh'");
	expect_config_error(f, "{\"log\": {\"verbose\": 1, \"color\": 1}}",
	    CLAW_ERR_PARSE, ": unknown key 'log.color'");
	expect_config_error(f, "{\"exec\": {\"a\\u0001b\": 1}}",
	    CLAW_ERR_PARSE, ": unknown key 'exec.a\\x01b'");
}

/* Values of the wrong JSON type are errors naming the key. */
static void
test_config_wrong_type(void **state)
{
	struct fixture	*f = *state;

	expect_config_error(f, "{\"ssh\": {\"connectTimeout\": \"10\"}}",
	    CLAW_ERR_PARSE,
	    ": ssh.connectTimeout: expected an integer from 0 to 86400");
	expect_config_error(f, "{\"log\": {\"verbose\": true}}",
	    CLAW_ERR_PARSE, ": log.verbose: expected an integer from 0 to 3");
	expect_config_error(f, "{\"ssh\": {\"identityFile\": 1}}",
	    CLAW_ERR_PARSE, ": ssh.identityFile: expected a non-empty string");
	expect_config_error(f, "{\"ssh\": {\"configFile\": \"\"}}",
	    CLAW_ERR_PARSE, ": ssh.configFile: expected a non-empty string");
	expect_config_error(f, "{\"ssh\": []}", CLAW_ERR_PARSE,
	    ": ssh: expected an object");
	expect_config_error(f, "{\"exec\": {\"env\": [\"A=1\"]}}",
	    CLAW_ERR_PARSE, ": exec.env: expected an object");
	expect_config_error(f, "{\"exec\": {\"env\": {\"A\": 1}}}",
	    CLAW_ERR_PARSE, ": exec.env.A: expected a string");
	expect_config_error(f,
	    "{\"ssh\": {\"strictHostKeyChecking\": \"ask\"}}", CLAW_ERR_PARSE,
	    ": ssh.strictHostKeyChecking: expected \"yes\", \"accept-new\" "
	    "or \"no\"");
	expect_config_error(f,
	    "{\"ssh\": {\"strictHostKeyChecking\": true}}", CLAW_ERR_PARSE,
	    ": ssh.strictHostKeyChecking: expected \"yes\", \"accept-new\" "
	    "or \"no\"");
}

/* Integers outside their range are errors; the bounds themselves pass. */
static void
test_config_out_of_range(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;

	expect_config_error(f, "{\"ssh\": {\"connectTimeout\": 86401}}",
	    CLAW_ERR_PARSE,
	    ": ssh.connectTimeout: expected an integer from 0 to 86400");
	expect_config_error(f, "{\"ssh\": {\"connectTimeout\": -1}}",
	    CLAW_ERR_PARSE,
	    ": ssh.connectTimeout: expected an integer from 0 to 86400");
	expect_config_error(f, "{\"exec\": {\"timeout\": 31536001}}",
	    CLAW_ERR_PARSE,
	    ": exec.timeout: expected an integer from 0 to 31536000");
	expect_config_error(f, "{\"log\": {\"verbose\": 4}}", CLAW_ERR_PARSE,
	    ": log.verbose: expected an integer from 0 to 3");
	cfg = load_config(f, "{\"ssh\": {\"connectTimeout\": 86400},"
	    "\"exec\": {\"timeout\": 31536000}, \"log\": {\"verbose\": 3}}");
	assert_int_equal(cfg->connect_timeout, 86400);
	assert_int_equal(cfg->exec_timeout, 31536000);
	assert_int_equal(cfg->verbose, 3);
	config_free(cfg);
}

/* The daemon's limits where 0 would mean nothing: refused, naming the key. */
static void
test_config_daemon_ranges(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;

	expect_config_error(f, "{\"daemon\": {\"maxWorkers\": 0}}",
	    CLAW_ERR_PARSE,
	    ": daemon.maxWorkers: expected an integer from 1 to 4096");
	expect_config_error(f, "{\"daemon\": {\"maxWorkers\": 4097}}",
	    CLAW_ERR_PARSE,
	    ": daemon.maxWorkers: expected an integer from 1 to 4096");
	expect_config_error(f, "{\"daemon\": {\"maxSessions\": 0}}",
	    CLAW_ERR_PARSE,
	    ": daemon.maxSessions: expected an integer from 1 to 1000");
	expect_config_error(f, "{\"daemon\": {\"maxConnections\": 0}}",
	    CLAW_ERR_PARSE,
	    ": daemon.maxConnections: expected an integer from 1 to 64");
	expect_config_error(f, "{\"daemon\": {\"maxRequestBytes\": 10}}",
	    CLAW_ERR_PARSE, ": daemon.maxRequestBytes: expected an integer "
	    "from 1024 to 1073741824");
	expect_config_error(f, "{\"daemon\": {\"idleTimeout\": -1}}",
	    CLAW_ERR_PARSE,
	    ": daemon.idleTimeout: expected an integer from 0 to 604800");
	cfg = load_config(f, "{\"daemon\": {\"maxWorkers\": 1, "
	    "\"maxSessions\": 1, \"maxConnections\": 1, "
	    "\"maxRequestBytes\": 1024, \"idleTimeout\": 0}}");
	assert_int_equal(cfg->daemon_max_workers, 1);
	assert_int_equal(cfg->daemon_max_line, 1024);
	config_free(cfg);
}

/* Numbers that are not whole are errors, however large. */
static void
test_config_non_integer(void **state)
{
	struct fixture	*f = *state;

	expect_config_error(f, "{\"exec\": {\"timeout\": 1.5}}",
	    CLAW_ERR_PARSE,
	    ": exec.timeout: expected an integer from 0 to 31536000");
	expect_config_error(f, "{\"exec\": {\"timeout\": 1e30}}",
	    CLAW_ERR_PARSE,
	    ": exec.timeout: expected an integer from 0 to 31536000");
	expect_config_error(f, "{\"log\": {\"verbose\": 0.0001}}",
	    CLAW_ERR_PARSE, ": log.verbose: expected an integer from 0 to 3");
	expect_config_error(f, "{\"log\": {\"verbose\": 1e999}}",
	    CLAW_ERR_PARSE, ": log.verbose: expected an integer from 0 to 3");
}

/* Environment names must be valid shell variable names. */
static void
test_config_bad_env_name(void **state)
{
	struct fixture	*f = *state;

	expect_config_error(f, "{\"exec\": {\"env\": {\"1A\": \"x\"}}}",
	    CLAW_ERR_PARSE, ": exec.env.1A: invalid variable name");
	expect_config_error(f, "{\"exec\": {\"env\": {\"A-B\": \"x\"}}}",
	    CLAW_ERR_PARSE, ": exec.env.A-B: invalid variable name");
	expect_config_error(f, "{\"exec\": {\"env\": {\"A=B\": \"x\"}}}",
	    CLAW_ERR_PARSE, ": exec.env.A=B: invalid variable name");
	expect_config_error(f, "{\"exec\": {\"env\": {\"\": \"x\"}}}",
	    CLAW_ERR_PARSE, ": exec.env.: invalid variable name");
	expect_config_error(f, "{\"exec\": {\"env\": {\"A\\nB\": \"x\"}}}",
	    CLAW_ERR_PARSE, ": exec.env.A\\x0aB: invalid variable name");
}

/* A key given twice in one object is an error, at every level. */
static void
test_config_duplicate_key(void **state)
{
	struct fixture	*f = *state;

	expect_config_error(f,
	    "{\"exec\": {\"timeout\": 1, \"timeout\": 2}}", CLAW_ERR_PARSE,
	    ": duplicate key 'exec.timeout'");
	expect_config_error(f, "{\"log\": {}, \"ssh\": {}, \"log\": {}}",
	    CLAW_ERR_PARSE, ": duplicate key 'log'");
	expect_config_error(f,
	    "{\"exec\": {\"env\": {\"A\": \"1\", \"B\": \"2\", \"A\": \"3\"}}}",
	    CLAW_ERR_PARSE, ": duplicate key 'exec.env.A'");
}

/* The top level must be an object. */
static void
test_config_top_level_not_object(void **state)
{
	struct fixture	*f = *state;

	expect_config_error(f, "[{\"ssh\": {}}]", CLAW_ERR_PARSE,
	    ": expected an object at the top level");
	expect_config_error(f, "\"ssh\"", CLAW_ERR_PARSE,
	    ": expected an object at the top level");
}

/* Syntax errors from the config file carry the file, line and column. */
static void
test_config_syntax_error(void **state)
{
	struct fixture	*f = *state;

	expect_config_error(f, "{\n  \"ssh\": {\n    \"connectTimeout\" 5\n",
	    CLAW_ERR_PARSE, ":3:22: syntax error near '5'");
}

/* "~" and a leading "~/" expand to home; other paths are kept. */
static void
test_config_tilde(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;
	char			*expect;

	cfg = load_config(f, "{\"ssh\": {"
	    "\"configFile\": \"~/.ssh/config\", \"knownHostsFile\": \"~\","
	    "\"identityFile\": \"/abs/~/id\", "
	    "\"passphraseFile\": \"~bob/p\"}}");
	expect = xasprintf("%s/.ssh/config", f->home);
	assert_string_equal(cfg->ssh_config_file, expect);
	free(expect);
	assert_string_equal(cfg->known_hosts_file, f->home);
	assert_string_equal(cfg->identity_file, "/abs/~/id");
	assert_string_equal(cfg->passphrase_file, "~bob/p");
	config_free(cfg);
}

/* A "~" path without a home directory is an error. */
static void
test_config_tilde_no_home(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg = NULL;
	char			*path, *cause = NULL, *expect;

	path = write_config(f, "{\"ssh\": {\"identityFile\": \"~/id\"}}");
	assert_int_equal(config_load(path, NULL, &cfg, &cause),
	    CLAW_ERR_INVAL);
	assert_null(cfg);
	expect = xasprintf("%s: ssh.identityFile: cannot expand ~ without a "
	    "home directory", path);
	assert_string_equal(cause, expect);
	free(expect);
	free(cause);
	free(path);
}

/* The default path follows an absolute XDG_CONFIG_HOME, else home. */
static void
test_config_default_path(void **state)
{
	char	*p;

	(void)state;
	p = config_default_path("/home/u");
	assert_string_equal(p, "/home/u/.config/clawssh/config.json");
	free(p);
	p = config_default_path("/home/u/");
	assert_string_equal(p, "/home/u/.config/clawssh/config.json");
	free(p);
	assert_null(config_default_path(NULL));
	assert_null(config_default_path(""));

	assert_int_equal(setenv("XDG_CONFIG_HOME", "/xdg/conf", 1), 0);
	p = config_default_path("/home/u");
	assert_string_equal(p, "/xdg/conf/clawssh/config.json");
	free(p);
	p = config_default_path(NULL);
	assert_string_equal(p, "/xdg/conf/clawssh/config.json");
	free(p);

	assert_int_equal(setenv("XDG_CONFIG_HOME", "", 1), 0);
	p = config_default_path("/home/u");
	assert_string_equal(p, "/home/u/.config/clawssh/config.json");
	free(p);
	assert_int_equal(setenv("XDG_CONFIG_HOME", "rel/conf", 1), 0);
	p = config_default_path("/home/u");
	assert_string_equal(p, "/home/u/.config/clawssh/config.json");
	free(p);
}

/* Assert cfg holds nothing but the defaults. */
static void
assert_defaults(const struct claw_config *cfg)
{
	assert_null(cfg->path);
	assert_null(cfg->ssh_config_file);
	assert_int_equal(cfg->connect_timeout, 0);
	assert_int_equal(cfg->strict, -1);
	assert_null(cfg->known_hosts_file);
	assert_null(cfg->identity_file);
	assert_null(cfg->passphrase_file);
	assert_int_equal(cfg->exec_timeout, 0);
	assert_null(cfg->env);
	assert_int_equal(cfg->nenv, 0);
	assert_int_equal(cfg->verbose, 0);
}

/* A missing default file gives the defaults, with or without a home. */
static void
test_config_missing_default(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg = NULL;
	char			*cause = NULL;

	assert_int_equal(config_load(NULL, f->home, &cfg, &cause), 0);
	assert_null(cause);
	assert_defaults(cfg);
	config_free(cfg);

	cfg = NULL;
	assert_int_equal(config_load(NULL, NULL, &cfg, &cause), 0);
	assert_defaults(cfg);
	config_free(cfg);
}

/* The default file is read from home, or from XDG_CONFIG_HOME if set. */
static void
test_config_default_file(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg = NULL;
	const char		*text;
	char			*cause = NULL, *path, *xdg;

	text = "{\"log\": {\"verbose\": 2}}";
	path = write_file(f->home, ".config/clawssh/config.json", text,
	    strlen(text));
	assert_int_equal(config_load(NULL, f->home, &cfg, &cause), 0);
	assert_string_equal(cfg->path, path);
	assert_int_equal(cfg->verbose, 2);
	config_free(cfg);
	free(path);

	xdg = xasprintf("%s/xdg", f->dir);
	assert_int_equal(mkdir(xdg, 0700), 0);
	text = "{\"log\": {\"verbose\": 1}}";
	path = write_file(xdg, "clawssh/config.json", text, strlen(text));
	assert_int_equal(setenv("XDG_CONFIG_HOME", xdg, 1), 0);
	cfg = NULL;
	assert_int_equal(config_load(NULL, f->home, &cfg, &cause), 0);
	assert_string_equal(cfg->path, path);
	assert_int_equal(cfg->verbose, 1);
	config_free(cfg);
	free(path);
	free(xdg);
}

/* A broken default file is still an error. */
static void
test_config_default_file_broken(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg = NULL;
	char			*cause = NULL, *path, *expect;

	path = write_file(f->home, ".config/clawssh/config.json", "{,}", 3);
	assert_int_equal(config_load(NULL, f->home, &cfg, &cause),
	    CLAW_ERR_PARSE);
	assert_null(cfg);
	expect = xasprintf("%s:1:2: syntax error near ',}'", path);
	assert_string_equal(cause, expect);
	free(expect);
	free(cause);
	free(path);
}

/* An explicit config path that does not exist is an error. */
static void
test_config_missing_explicit(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg = NULL;
	char			*cause = NULL, *path, *expect;

	path = xasprintf("%s/nope.json", f->dir);
	assert_int_equal(config_load(path, f->home, &cfg, &cause),
	    CLAW_ERR_NOTFOUND);
	assert_null(cfg);
	expect = xasprintf("%s: no such file", path);
	assert_string_equal(cause, expect);
	free(expect);
	free(cause);
	free(path);
}

/* Every strictHostKeyChecking value maps to its sshconfig_strict. */
static void
test_config_strict_values(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;

	cfg = load_config(f, "{\"ssh\": {\"strictHostKeyChecking\": \"yes\"}}");
	assert_int_equal(cfg->strict, SSHCONFIG_STRICT_YES);
	config_free(cfg);
	cfg = load_config(f,
	    "{\"ssh\": {\"strictHostKeyChecking\": \"accept-new\"}}");
	assert_int_equal(cfg->strict, SSHCONFIG_STRICT_ACCEPT_NEW);
	config_free(cfg);
	cfg = load_config(f, "{\"ssh\": {\"strictHostKeyChecking\": \"no\"}}");
	assert_int_equal(cfg->strict, SSHCONFIG_STRICT_NO);
	config_free(cfg);
	cfg = load_config(f, "{} // nothing set");
	assert_int_equal(cfg->strict, -1);
	config_free(cfg);
}

/* A config setting every field reads back exactly. */
static void
test_config_full(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;
	char			*expect;

	cfg = load_config(f,
	    "// full configuration\n"
	    "{\n"
	    "  \"ssh\": {\n"
	    "    \"configFile\": \"~/.ssh/config\",\n"
	    "    \"connectTimeout\": 10, /* seconds */\n"
	    "    \"strictHostKeyChecking\": \"accept-new\",\n"
	    "    \"knownHostsFile\": \"/etc/claw/known_hosts\",\n"
	    "    \"identityFile\": \"~/.ssh/id_ed25519\",\n"
	    "    \"passphraseFile\": \"/run/pass\"\n"
	    "  },\n"
	    "  \"exec\": {\n"
	    "    \"timeout\": 300,\n"
	    "    \"env\": { \"LANG\": \"C.UTF-8\", \"_X1\": \"\", "
	    "\"TOKEN\": \"s3cr=t // not a comment\" }\n"
	    "  },\n"
	    "  \"log\": { \"verbose\": 2 }\n"
	    "}\n");
	expect = xasprintf("%s/.ssh/config", f->home);
	assert_string_equal(cfg->ssh_config_file, expect);
	free(expect);
	assert_int_equal(cfg->connect_timeout, 10);
	assert_int_equal(cfg->strict, SSHCONFIG_STRICT_ACCEPT_NEW);
	assert_string_equal(cfg->known_hosts_file, "/etc/claw/known_hosts");
	expect = xasprintf("%s/.ssh/id_ed25519", f->home);
	assert_string_equal(cfg->identity_file, expect);
	free(expect);
	assert_string_equal(cfg->passphrase_file, "/run/pass");
	assert_int_equal(cfg->exec_timeout, 300);
	assert_int_equal(cfg->nenv, 3);
	assert_string_equal(cfg->env[0].name, "LANG");
	assert_string_equal(cfg->env[0].value, "C.UTF-8");
	assert_string_equal(cfg->env[1].name, "_X1");
	assert_string_equal(cfg->env[1].value, "");
	assert_string_equal(cfg->env[2].name, "TOKEN");
	assert_string_equal(cfg->env[2].value, "s3cr=t // not a comment");
	assert_int_equal(cfg->verbose, 2);
	config_free(cfg);
}

/* Empty sections and an empty env are fine and change nothing. */
static void
test_config_empty_sections(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;

	cfg = load_config(f, "{\"ssh\": {}, \"exec\": {\"env\": {}}, "
	    "\"log\": {}}");
	assert_null(cfg->env);
	assert_int_equal(cfg->nenv, 0);
	assert_int_equal(cfg->strict, -1);
	config_free(cfg);
	config_free(NULL);
}

#define T(fn)	cmocka_unit_test_setup_teardown(fn, setup, teardown)

/* Run every test, each in its own directory. */
/* sync.exclude: an array of non-empty patterns, kept in order. */
static void
test_sync_exclude(void **state)
{
	const struct fixture	*f = *state;
	struct claw_config	*cfg;

	cfg = load_config(f, "{ \"sync\": { \"exclude\": [\"*.log\", "
	    "\"node_modules/\"] } }");
	assert_int_equal(cfg->nsync_exclude, 2);
	assert_string_equal(cfg->sync_exclude[0], "*.log");
	assert_string_equal(cfg->sync_exclude[1], "node_modules/");
	config_free(cfg);
	expect_config_error(f, "{ \"sync\": { \"exclude\": \"*.log\" } }",
	    CLAW_ERR_PARSE, ": sync.exclude: expected an array of pattern "
	    "strings");
	expect_config_error(f, "{ \"sync\": { \"exclude\": [\"\"] } }",
	    CLAW_ERR_PARSE, ": sync.exclude: expected at most 1000 non-empty "
	    "pattern strings");
	expect_config_error(f, "{ \"sync\": { \"exclude\": [1] } }",
	    CLAW_ERR_PARSE, ": sync.exclude: expected at most 1000 non-empty "
	    "pattern strings");
	expect_config_error(f, "{ \"sync\": { \"exlude\": [] } }",
	    CLAW_ERR_PARSE, ": unknown key 'sync.exlude'");
}

/*
 * sync.pushGit: a boolean, false unless the local configuration says so
 * (the key was unknown before: the first load failed).
 */
static void
test_sync_push_git(void **state)
{
	const struct fixture	*f = *state;
	struct claw_config	*cfg;

	cfg = load_config(f, "{ \"sync\": { } }");
	assert_int_equal(cfg->sync_push_git, 0);
	config_free(cfg);
	cfg = load_config(f, "{ \"sync\": { \"pushGit\": true } }");
	assert_int_equal(cfg->sync_push_git, 1);
	config_free(cfg);
	cfg = load_config(f, "{ \"sync\": { \"pushGit\": false } }");
	assert_int_equal(cfg->sync_push_git, 0);
	config_free(cfg);
	expect_config_error(f, "{ \"sync\": { \"pushGit\": 1 } }",
	    CLAW_ERR_PARSE, ": sync.pushGit: expected true or false");
	expect_config_error(f, "{ \"sync\": { \"pushGit\": \"yes\" } }",
	    CLAW_ERR_PARSE, ": sync.pushGit: expected true or false");
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		T(test_jsonc_comments),
		T(test_sync_exclude),
		T(test_sync_push_git),
		T(test_jsonc_syntax_position),
		T(test_jsonc_syntax_strings),
		T(test_jsonc_unexpected_end),
		T(test_jsonc_unterminated_comment),
		T(test_jsonc_trailing_garbage),
		T(test_jsonc_empty),
		T(test_jsonc_nul_byte),
		T(test_jsonc_excerpt_escaped),
		T(test_jsonc_load_file),
		T(test_jsonc_load_missing_and_dir),
		T(test_jsonc_load_fifo),
		T(test_jsonc_too_large),
		T(test_config_unknown_key),
		T(test_config_wrong_type),
		T(test_config_out_of_range),
		T(test_config_non_integer),
		T(test_config_daemon_ranges),
		T(test_config_bad_env_name),
		T(test_config_duplicate_key),
		T(test_config_top_level_not_object),
		T(test_config_syntax_error),
		T(test_config_tilde),
		T(test_config_tilde_no_home),
		T(test_config_default_path),
		T(test_config_missing_default),
		T(test_config_default_file),
		T(test_config_default_file_broken),
		T(test_config_missing_explicit),
		T(test_config_strict_values),
		T(test_config_full),
		T(test_config_empty_sections),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
