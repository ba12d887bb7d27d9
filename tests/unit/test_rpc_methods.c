/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for rpc_methods: every method's worker argv from good
 * params, strict refusal of bad ones (types, ranges, unknown params,
 * '-'-leading strings, injection attempts), env values kept out of argv,
 * and results from exit statuses, CLI JSON and stderr messages.
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

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "jsonrpc.h"
#include "ops.h"
#include "process.h"
#include "rpc_methods.h"
#include "xmalloc.h"

#define ID	"cabcdefghijkl"		/* a well-formed sandbox id */
#define BOX	"\"sandbox\":\"" ID "\""

/* The argv of a call joined with '|'. */
static char *
joined(const struct rpc_call *c)
{
	char	*s = xstrdup(""), *n;
	int	 i;

	assert_non_null(c->argv);
	assert_null(c->argv[c->argc]);
	for (i = 0; i < c->argc; i++) {
		n = xasprintf("%s%s%s", s, i == 0 ? "" : "|", c->argv[i]);
		free(s);
		s = n;
	}
	return s;
}

/* Build method with params text (NULL: none); expect argv want. */
static void
builds(const char *method, const char *params, const char *want,
    struct rpc_call *out)
{
	struct rpc_call	 c;
	cJSON		*p = params != NULL ? cJSON_Parse(params) : NULL;
	char		*msg = NULL, *got;
	int		 rc;

	if (params != NULL && p == NULL)
		fail_msg("bad test JSON: %s", params);
	rc = rpc_call_build(method, p, &c, &msg);
	if (rc != 0)
		fail_msg("%s %s: %d %s", method, params, rc, msg);
	got = joined(&c);
	if (strcmp(got, want) != 0)
		fail_msg("%s:\n got  %s\n want %s", method, got, want);
	assert_string_equal(c.tool, method);
	free(got);
	cJSON_Delete(p);
	if (out != NULL)
		*out = c;
	else
		rpc_call_clear(&c);
}

/* Expect method with params to fail with code and a message part. */
static void
refuses(const char *method, const char *params, int code, const char *part)
{
	struct rpc_call	 c;
	cJSON		*p = params != NULL ? cJSON_Parse(params) : NULL;
	char		*msg = NULL;

	if (params != NULL && p == NULL)
		fail_msg("bad test JSON: %s", params);
	memset(&c, 0xa5, sizeof c);
	assert_int_equal(rpc_call_build(method, p, &c, &msg), code);
	assert_non_null(msg);
	if (strstr(msg, part) == NULL)
		fail_msg("%s %s: message '%s' lacks '%s'", method, params,
		    msg, part);
	assert_true(((unsigned char *)&c)[0] == 0xa5);	/* untouched */
	free(msg);
	cJSON_Delete(p);
}

#define BAD(m, p, part) refuses(m, p, JSONRPC_INVALID_PARAMS, part)

static void
test_sandbox_methods(void **state)
{
	struct rpc_call	c;

	(void)state;
	builds("sandbox.provision", "{\"host\":\"testhost\","
	    "\"scope\":\"agent\","
	    "\"key\":\"k 1\",\"workspace\":\"/w\",\"access\":\"ro\","
	    "\"mode\":\"remote\",\"from\":\"alpine\",\"runtime\":\"bwrap\","
	    "\"network\":\"host\",\"memory\":\"512M\",\"processes\":64,"
	    "\"cpu_seconds\":10,\"file_size\":1048576,\"open_files\":100,"
	    "\"gpu\":\"all\",\"remote_root\":\"/srv/c\","
	    "\"strict_config\":true,\"port\":2222,\"user\":\"u\"}",
	    "provision|--host=testhost|--scope=agent|--key=k 1|"
	    "--workspace=/w|--access=ro|--mode=remote|--from=alpine|"
	    "--runtime=bwrap|--network=host|--memory=512M|--processes=64|"
	    "--cpu-seconds=10|--file-size=1048576|--open-files=100|"
	    "--gpu=all|--remote-root=/srv/c|--strict-config|--json|-l|u|-p|"
	    "2222", &c);
	assert_int_equal(c.result, RPC_RESULT_JSON);
	assert_string_equal(c.host, "testhost");
	assert_null(c.sandbox);
	assert_true(c.idempotent);
	assert_false(c.stream);
	rpc_call_clear(&c);
	builds("sandbox.provision", "{\"host\":\"h\",\"gpu\":2}",
	    "provision|--host=h|--gpu=2|--json", NULL);
	builds("sandbox.provision", "{\"host\":\"h\",\"cpus\":1.5}",
	    "provision|--host=h|--cpus=1.5|--json", NULL);
	builds("sandbox.provision", "{\"host\":\"h\",\"cpus\":\"250m\"}",
	    "provision|--host=h|--cpus=250m|--json", NULL);
	BAD("sandbox.provision", "{\"host\":\"h\",\"cpus\":1.2345}",
	    "params.cpus: expected a number of CPUs");
	BAD("sandbox.provision", "{\"host\":\"h\",\"cpus\":\"lots\"}",
	    "params.cpus: expected a number of CPUs");
	/* The runtimes the CLI takes, from the same table (issue 19). */
	builds("sandbox.provision", "{\"host\":\"h\",\"runtime\":\"podman\"}",
	    "provision|--host=h|--runtime=podman|--json", NULL);
	builds("sandbox.provision", "{\"host\":\"h\",\"runtime\":\"docker\"}",
	    "provision|--host=h|--runtime=docker|--json", NULL);
	BAD("sandbox.provision", "{\"host\":\"h\",\"runtime\":\"lxc\"}",
	    "params.runtime: expected one of none, bwrap, docker or podman");
	builds("sandbox.provision", "{\"host\":\"h\",\"workdir\":\"local\"}",
	    "provision|--host=h|--workdir=local|--json", NULL);
	builds("sandbox.provision", "{\"host\":\"h\","
	    "\"workdir\":\"/workspace\"}",
	    "provision|--host=h|--workdir=/workspace|--json", NULL);
	BAD("sandbox.provision", "{\"host\":\"h\",\"workdir\":\"/srv\"}",
	    "workdir");
	builds("sandbox.list", NULL, "list|--json", NULL);
	builds("sandbox.list", "{\"state_dir\":\"/s\",\"config\":\"/c.json\","
	    "\"ssh_config\":\"/sc\",\"ssh_options\":[\"Port=22\"],"
	    "\"passphrase_file\":\"/p\"}", "list|--json|--config=/c.json|-F|"
	    "/sc|--state-dir=/s|--passphrase-file=/p|-o|Port=22", NULL);
	builds("sandbox.status", "{" BOX "}", "status|--json|--|" ID, &c);
	assert_string_equal(c.sandbox, ID);
	rpc_call_clear(&c);
	builds("sandbox.destroy", "{" BOX "}", "destroy|--|" ID, &c);
	assert_int_equal(c.result, RPC_RESULT_TEXT);
	rpc_call_clear(&c);
	builds("sandbox.recreate", "{" BOX "}", "recreate|--|" ID, &c);
	assert_false(c.idempotent);
	rpc_call_clear(&c);
	builds("sandbox.prune", "{\"idle_hours\":2,\"max_age_days\":0,"
	    "\"dry_run\":true}", "prune|--idle-hours=2|--max-age-days=0|"
	    "--dry-run", NULL);
	builds("image.list", "{\"host\":\"h\",\"remote_root\":\"/r\"}",
	    "image|list|--host=h|--remote-root=/r|--json", NULL);
	builds("sync.push", "{" BOX ",\"paths\":[\"-rf\",\"a b\"]}",
	    "sync|push|--json|--|" ID "|-rf|a b", NULL);
	builds("sync.pull", "{" BOX "}", "sync|pull|--json|--|" ID, NULL);
	builds("sync.status", "{" BOX "}", "sync|status|--|" ID, NULL);
}

static void
test_sandbox_refused(void **state)
{
	(void)state;
	BAD("sandbox.provision", "{}", "params.host: required");
	BAD("sandbox.provision", "{\"host\":\"-oProxyCommand=x\"}",
	    "params.host: may not start with '-'");
	BAD("sandbox.provision", "{\"host\":\"a b\"}", "params.host: spaces");
	BAD("sandbox.provision", "{\"host\":\"h\",\"scope\":\"x\"}",
	    "params.scope: expected one of session, agent or shared");
	BAD("sandbox.provision", "{\"host\":\"h\",\"workspace\":\"w\"}",
	    "params.workspace: expected an absolute path");
	BAD("sandbox.provision", "{\"host\":\"h\",\"memory\":-1}",
	    "params.memory");
	BAD("sandbox.provision", "{\"host\":\"h\",\"memory\":\"lots\"}",
	    "params.memory");
	BAD("sandbox.provision", "{\"host\":\"h\",\"processes\":\"5\"}",
	    "params.processes: expected an integer from 0 to");
	BAD("sandbox.provision", "{\"host\":\"h\",\"gpu\":0}", "params.gpu");
	BAD("sandbox.provision", "{\"host\":\"h\",\"gpu\":1.5}", "params.gpu");
	BAD("sandbox.provision", "{\"host\":\"h\",\"key\":\"a\\nb\"}",
	    "params.key: control characters");
	BAD("sandbox.provision", "{\"host\":\"h\",\"strict_config\":1}",
	    "params.strict_config: expected true or false");
	BAD("sandbox.list", "{\"port\":0}",
	    "params.port: expected an integer from 1 to 65535");
	BAD("sandbox.list", "{\"port\":22.5}", "params.port");
	BAD("sandbox.list", "{\"ssh_options\":[\"-F/x\"]}",
	    "params.ssh_options[0]");
	BAD("sandbox.list", "{\"ssh_options\":[\"Port=1\\u001b\"]}",
	    "params.ssh_options[0]");
	BAD("sandbox.list", "{\"ssh_options\":[\"Port\"]}",
	    "params.ssh_options[0]");
	BAD("sandbox.list", "{\"ssh_options\":\"Port=1\"}",
	    "params.ssh_options");
	BAD("sandbox.list", "{\"config\":\"--help\"}", "params.config");
	BAD("sandbox.list", "{\"user\":\"-x\"}", "params.user");
	BAD("sandbox.list", "{\"bogus\":1}", "params.bogus: unknown parameter");
	BAD("sandbox.list", "[1]", "params: expected an object");
	BAD("sandbox.list", "{\"port\":22,\"port\":23}",
	    "params.port: given twice");
	BAD("sandbox.status", "{}", "params.sandbox: required");
	BAD("sandbox.status", "{\"sandbox\":\"--json\"}",
	    "params.sandbox: expected a sandbox id");
	BAD("sandbox.status", "{\"sandbox\":\"../../etc\"}",
	    "params.sandbox: expected a sandbox id");
	BAD("sandbox.destroy", "{\"sandbox\":5}",
	    "params.sandbox: expected a string");
	BAD("sandbox.prune", "{\"idle_hours\":-1}", "params.idle_hours");
	BAD("image.list", "{}", "params.host: required");
	BAD("sync.push", "{" BOX ",\"paths\":[\"a\\nb\"]}", "params.paths[0]");
	BAD("sync.push", "{" BOX ",\"paths\":[\"\"]}", "params.paths[0]");
	BAD("sync.push", "{" BOX ",\"paths\":[\"a\",\"\\u007f\"]}",
	    "params.paths[1]");
	BAD("sync.push", "{" BOX ",\"paths\":[1]}", "params.paths[0]");
	refuses("sandbox.nope", NULL, JSONRPC_METHOD_NOT_FOUND,
	    "unknown method 'sandbox.nope'");
	refuses("", NULL, JSONRPC_METHOD_NOT_FOUND, "unknown method");
}

static void
test_exec(void **state)
{
	struct rpc_call	c;

	(void)state;
	builds("exec", "{" BOX ",\"argv\":[\"echo\",\"--\",\"-n\",\"$(id)\"],"
	    "\"cwd\":\"sub dir\",\"timeout\":5,\"no_sync\":true,"
	    "\"env\":{\"TOKEN\":\"s3cret\",\"A_1\":\"\"},\"stdin\":\"in\\n\"}",
	    "exec|--sandbox=" ID "|--cwd=sub dir|--timeout=5|--no-sync|"
	    "--env=TOKEN|--env=A_1|--|echo|--|-n|$(id)", &c);
	assert_int_equal(c.result, RPC_RESULT_EXEC);
	assert_true(c.stream);
	assert_false(c.idempotent);
	assert_false(c.elevated);
	assert_int_equal(c.nenv, 2);
	assert_string_equal(c.env_names[0], "TOKEN");
	assert_string_equal(c.env_values[0], "s3cret");
	assert_string_equal(c.env_values[1], "");
	assert_int_equal(c.inlen, 3);
	assert_memory_equal(c.in, "in\n", 3);
	rpc_call_clear(&c);
	builds("exec", "{\"host\":\"user@h:22\",\"argv\":[\"uname\"],"
	    "\"env\":[\"X=a=b\"],\"timeout\":0,\"stdin_base64\":\"AAE=\"}",
	    "exec|--host=user@h:22|--env=X|--|uname", &c);
	assert_true(c.elevated);
	assert_string_equal(c.host, "user@h:22");
	assert_string_equal(c.env_values[0], "a=b");
	assert_int_equal(c.inlen, 2);
	assert_memory_equal(c.in, "\0\1", 2);
	rpc_call_clear(&c);
	/* pty: -tt (a worker has no terminal) and the size, 80x24 unless */
	builds("exec", "{" BOX ",\"argv\":[\"tty\"],\"pty\":true}",
	    "exec|--sandbox=" ID "|-tt|--size=80x24|--|tty", NULL);
	builds("exec", "{" BOX ",\"argv\":[\"tty\"],\"pty\":true,"
	    "\"cols\":132,\"rows\":50}",
	    "exec|--sandbox=" ID "|-tt|--size=132x50|--|tty", NULL);
	builds("exec", "{" BOX ",\"argv\":[\"tty\"],\"pty\":false}",
	    "exec|--sandbox=" ID "|--|tty", NULL);
}

static void
test_exec_refused(void **state)
{
	char	*big, *p;

	(void)state;
	BAD("exec", "{\"argv\":[\"x\"]}", "params: give sandbox or host");
	BAD("exec", "{" BOX ",\"host\":\"h\",\"argv\":[\"x\"]}",
	    "not both");
	BAD("exec", "{" BOX "}", "params.argv: required");
	BAD("exec", "{" BOX ",\"argv\":[]}", "params.argv: expected a "
	    "non-empty array");
	BAD("exec", "{" BOX ",\"argv\":\"ls\"}", "params.argv");
	BAD("exec", "{" BOX ",\"argv\":[\"\"]}", "params.argv[0]");
	BAD("exec", "{" BOX ",\"argv\":[\"ls\",3]}", "params.argv[1]");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"timeout\":31536001}",
	    "params.timeout: expected an integer from 0 to 31536000");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"timeout\":-1}",
	    "params.timeout");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"timeout\":\"5\"}",
	    "params.timeout");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"cwd\":\"a\\nb\"}",
	    "params.cwd: control characters");
	BAD("exec", "{\"host\":\"h\",\"argv\":[\"x\"],\"no_sync\":true}",
	    "params.no_sync: only with sandbox");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"env\":{\"LD_PRELOAD\":"
	    "\"/x.so\"}}", "'LD_PRELOAD' is not an allowed variable name");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"env\":{\"A=B\":\"c\"}}",
	    "params.env.A=B");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"env\":{\"HOME\":\"/\"}}",
	    "HOME");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"env\":[\"NOEQ\"]}",
	    "params.env[0]");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"env\":[\"A=1\",\"A=2\"]}",
	    "'A' given twice");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"env\":{\"A\":1}}",
	    "params.env.A: expected a string");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"env\":\"A=1\"}",
	    "params.env");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"stdin\":\"a\","
	    "\"stdin_base64\":\"YQ==\"}", "not both");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"stdin_base64\":\"@@\"}",
	    "params.stdin_base64: expected base64");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"extra\":1}",
	    "params.extra: unknown parameter");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"cols\":80}",
	    "params.cols: only with pty: true");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"pty\":true,\"rows\":0}",
	    "params.rows");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"pty\":true,"
	    "\"cols\":10001}", "params.cols");
	BAD("exec", "{" BOX ",\"argv\":[\"x\"],\"pty\":\"yes\"}",
	    "params.pty");
	/* An argument over the per-argument limit. */
	big = xmalloc(RPC_ARG_MAX + 2);
	memset(big, 'a', RPC_ARG_MAX + 1);
	big[RPC_ARG_MAX + 1] = '\0';
	p = xasprintf("{" BOX ",\"argv\":[\"echo\",\"%s\"]}", big);
	BAD("exec", p, "too long");
	free(p);
	free(big);
}

static void
test_fs(void **state)
{
	struct rpc_call	c;

	(void)state;
	builds("fs.read", "{" BOX ",\"path\":\"-rf\",\"offset\":10,"
	    "\"limit\":20,\"lines\":true}", "read|--sandbox=" ID
	    "|--offset=10|--limit=20|--lines|--|-rf", &c);
	assert_string_equal(c.result_key, "content");
	rpc_call_clear(&c);
	builds("fs.write", "{" BOX ",\"path\":\"a/b\",\"content\":\"x\\ny\","
	    "\"push\":true}", "write|--sandbox=" ID "|--push|--|a/b", &c);
	assert_memory_equal(c.in, "x\ny", 3);
	assert_int_equal(c.inlen, 3);
	rpc_call_clear(&c);
	builds("fs.write", "{" BOX ",\"path\":\"e\",\"content\":\"\"}",
	    "write|--sandbox=" ID "|--|e", &c);
	assert_non_null(c.in);
	assert_int_equal(c.inlen, 0);
	rpc_call_clear(&c);
	builds("fs.write", "{" BOX ",\"path\":\"bin\",\"content_base64\":"
	    "\"AP8=\"}", "write|--sandbox=" ID "|--|bin", &c);
	assert_int_equal(c.inlen, 2);
	rpc_call_clear(&c);
	builds("fs.edit", "{" BOX ",\"path\":\"f\",\"old\":\"--all\","
	    "\"new\":\"-x\\n\",\"all\":true}", "edit|--sandbox=" ID
	    "|--old=--all|--new=-x\n|--all|--|f", NULL);
	builds("fs.edit", "{" BOX ",\"path\":\"f\",\"old\":\"a\",\"new\":\"\"}",
	    "edit|--sandbox=" ID "|--old=a|--new=|--|f", NULL);
	builds("fs.applyPatch", "{" BOX ",\"patch\":\"--- a\\n+++ b\\n\"}",
	    "apply-patch|--sandbox=" ID, &c);
	assert_string_equal(c.in, "--- a\n+++ b\n");
	assert_false(c.idempotent);
	rpc_call_clear(&c);
	builds("fs.ls", "{" BOX "}", "ls|--sandbox=" ID "|--json", &c);
	assert_string_equal(c.result_key, "entries");
	rpc_call_clear(&c);
	builds("fs.ls", "{" BOX ",\"path\":\"--\"}", "ls|--sandbox=" ID
	    "|--json|--|--", NULL);
	builds("fs.stat", "{" BOX ",\"path\":\"x\"}", "stat|--sandbox=" ID
	    "|--json|--|x", NULL);
}

static void
test_fs_refused(void **state)
{
	(void)state;
	BAD("fs.read", "{" BOX "}", "params.path: required");
	BAD("fs.read", "{" BOX ",\"path\":\"\"}", "params.path: expected a "
	    "non-empty string");
	BAD("fs.read", "{" BOX ",\"path\":\"a\\rb\"}", "params.path");
	BAD("fs.read", "{" BOX ",\"path\":\"a\",\"offset\":-1}",
	    "params.offset");
	BAD("fs.read", "{" BOX ",\"path\":\"a\",\"offset\":1e300}",
	    "params.offset");
	BAD("fs.read", "{\"path\":\"a\"}", "params.sandbox: required");
	BAD("fs.write", "{" BOX ",\"path\":\"a\"}", "params.content: required");
	BAD("fs.write", "{" BOX ",\"path\":\"a\",\"content\":5}",
	    "params.content: expected a string");
	BAD("fs.edit", "{" BOX ",\"path\":\"a\",\"old\":\"\",\"new\":\"x\"}",
	    "params.old: expected a non-empty string");
	BAD("fs.edit", "{" BOX ",\"path\":\"a\",\"old\":\"x\"}",
	    "params.new: required");
	BAD("fs.applyPatch", "{" BOX "}", "params.patch: required");
	BAD("fs.applyPatch", "{" BOX ",\"patch\":\"x\",\"path\":\"a\"}",
	    "params.path: unknown parameter");
	BAD("fs.stat", "{" BOX ",\"path\":[\"a\"]}", "params.path");
}

static void
test_process(void **state)
{
	struct rpc_call	c;

	(void)state;
	builds("process.start", "{" BOX ",\"argv\":[\"sleep\",\"9\"],"
	    "\"name\":\"srv.1\",\"log_max\":4096,\"env\":{\"K\":\"v\"}}",
	    "process|start|--sandbox=" ID "|--json|--name=srv.1|"
	    "--log-max=4096|--env=K|--|sleep|9", &c);
	assert_int_equal(c.nenv, 1);
	assert_false(c.stream);
	/* what the daemon starts it from, not the argv */
	assert_true(c.proc.simple);
	assert_int_equal(c.proc.op, PROCESS_OP_START);
	assert_string_equal(c.argv[c.proc.argi], "sleep");
	assert_string_equal(c.proc.name, "srv.1");
	assert_int_equal(c.proc.log_max, 4096);
	assert_false(c.proc.pty);
	assert_int_equal(c.conn_n, 0);
	rpc_call_clear(&c);
	/* a terminal, made by the daemon too; connection params key the
	 * route */
	builds("process.start", "{" BOX ",\"argv\":[\"sh\"],\"pty\":true,"
	    "\"state_dir\":\"/s\"}", "process|start|--sandbox=" ID
	    "|--state-dir=/s|--json|--pty|--|sh", &c);
	assert_true(c.proc.simple);
	assert_true(c.proc.pty);
	assert_int_equal(c.conn_n, 1);
	assert_string_equal(c.argv[c.conn_first], "--state-dir=/s");
	rpc_call_clear(&c);
	builds("process.poll", "{" BOX ",\"handle\":\"p0123abcd\","
	    "\"config\":\"/c\"}", "process|poll|--sandbox=" ID
	    "|--config=/c|--json|--|p0123abcd", &c);
	assert_int_equal(c.conn_n, 1);
	rpc_call_clear(&c);
	builds("process.list", "{" BOX "}", "process|list|--sandbox=" ID
	    "|--json", NULL);
	builds("process.poll", "{" BOX ",\"handle\":\"p0123abcd\"}",
	    "process|poll|--sandbox=" ID "|--json|--|p0123abcd", NULL);
	builds("process.log", "{" BOX ",\"handle\":\"p0123abcd\",\"tail\":5}",
	    "process|log|--sandbox=" ID "|--json|--tail=5|--|p0123abcd", NULL);
	builds("process.write", "{" BOX ",\"handle\":\"p0123abcd\","
	    "\"data\":\"y\\n\",\"eof\":true}", "process|write|--sandbox=" ID
	    "|--eof|--|p0123abcd", &c);
	assert_string_equal(c.in, "y\n");
	rpc_call_clear(&c);
	builds("process.write", "{" BOX ",\"handle\":\"p0123abcd\","
	    "\"eof\":true}", "process|write|--sandbox=" ID
	    "|--eof|--|p0123abcd", &c);
	assert_non_null(c.in);
	assert_int_equal(c.inlen, 0);
	rpc_call_clear(&c);
	builds("process.kill", "{" BOX ",\"handle\":\"p0123abcd\","
	    "\"signal\":\"KILL\"}", "process|kill|--sandbox=" ID
	    "|--signal=KILL|--|p0123abcd", NULL);
	builds("process.kill", "{" BOX ",\"handle\":\"p0123abcd\","
	    "\"signal\":9}", "process|kill|--sandbox=" ID
	    "|--signal=9|--|p0123abcd", NULL);
}

static void
test_process_refused(void **state)
{
	(void)state;
	BAD("process.start", "{" BOX "}", "params.argv: required");
	BAD("process.start", "{" BOX ",\"argv\":[\"x\"],\"name\":\"-n\"}",
	    "params.name");
	BAD("process.start", "{" BOX ",\"argv\":[\"x\"],\"name\":\"a/b\"}",
	    "params.name");
	BAD("process.start", "{" BOX ",\"argv\":[\"x\"],\"log_max\":1}",
	    "params.log_max");
	BAD("process.poll", "{" BOX "}", "params.handle: required");
	BAD("process.poll", "{" BOX ",\"handle\":\"--json\"}",
	    "params.handle: expected a process handle");
	BAD("process.poll", "{" BOX ",\"handle\":\"p0123abcd\",\"tail\":1}",
	    "params.tail: unknown parameter");
	BAD("process.log", "{" BOX ",\"handle\":\"p0123abcd\",\"tail\":0}",
	    "params.tail");
	BAD("process.write", "{" BOX ",\"handle\":\"p0123abcd\"}",
	    "params.data: required unless eof");
	BAD("process.kill", "{" BOX ",\"handle\":\"p0123abcd\","
	    "\"signal\":\"-9\"}", "params.signal");
	BAD("process.kill", "{" BOX ",\"handle\":\"p0123abcd\","
	    "\"signal\":\"NOPE\"}", "params.signal");
	BAD("process.kill", "{" BOX ",\"handle\":\"p0123abcd\","
	    "\"signal\":0}", "params.signal");
}

/*
 * Every listed method is found, and builds from no params or refuses them
 * with a message.
 */
static void
test_method_names(void **state)
{
	struct rpc_call	 c;
	char		*msg;
	size_t		 i, n = 0;
	int		 rc;

	(void)state;
	for (i = 0; i < ops_n; i++) {
		msg = NULL;
		rc = rpc_call_build(ops_table[i].method, NULL, &c, &msg);
		if (ops_table[i].only != 0) {
			assert_int_equal(rc, JSONRPC_METHOD_NOT_FOUND);
			free(msg);
			continue;
		}
		n++;
		assert_int_not_equal(rc, JSONRPC_METHOD_NOT_FOUND);
		if (rc == 0)
			rpc_call_clear(&c);
		else
			assert_non_null(msg);
		free(msg);
	}
	assert_int_equal(n, 29);
}

static void
test_env_names(void **state)
{
	(void)state;
	assert_true(rpc_env_name_ok("API_TOKEN"));
	assert_true(rpc_env_name_ok("_x9"));
	assert_false(rpc_env_name_ok(""));
	assert_false(rpc_env_name_ok("9x"));
	assert_false(rpc_env_name_ok("A-B"));
	assert_false(rpc_env_name_ok("LD_LIBRARY_PATH"));
	assert_false(rpc_env_name_ok("XDG_CONFIG_HOME"));
	assert_false(rpc_env_name_ok("SSH_AUTH_SOCK"));
	assert_false(rpc_env_name_ok("PATH"));
	assert_false(rpc_env_name_ok("GLIBC_TUNABLES"));
}

/* Build a call for method/params for the result tests. */
static void
call_for(const char *method, const char *params, struct rpc_call *c)
{
	cJSON	*p = cJSON_Parse(params);
	char	*msg = NULL;

	assert_int_equal(rpc_call_build(method, p, c, &msg), 0);
	cJSON_Delete(p);
}

/* Print a result compactly. */
static void
result_is(cJSON *r, const char *want)
{
	char	*s;

	assert_non_null(r);
	s = cJSON_PrintUnformatted(r);
	assert_string_equal(s, want);
	cJSON_free(s);
	cJSON_Delete(r);
}

static void
test_results(void **state)
{
	struct rpc_call	 c;
	const char	*err;
	char		*msg = NULL;
	int		 code = 0;

	(void)state;
	/* exec: a failing command is a result. */
	call_for("exec", "{" BOX ",\"argv\":[\"false\"]}", &c);
	result_is(rpc_call_result(&c, 1, "", 0, "", 0, 12, &code, &msg),
	    "{\"exit_status\":1,\"duration_ms\":12}");
	/* ... so is 255 from the command itself. */
	err = "boom\n";
	result_is(rpc_call_result(&c, 255, NULL, 0, err, strlen(err), 3,
	    &code, &msg), "{\"exit_status\":255,\"duration_ms\":3}");
	/* clawssh's own failure is an error with its message. */
	err = "remote noise\nclawssh: testhost: connection refused\n";
	assert_null(rpc_call_result(&c, 255, NULL, 0, err, strlen(err), 3,
	    &code, &msg));
	assert_int_equal(code, JSONRPC_REMOTE_FAILED);
	assert_string_equal(msg, "testhost: connection refused");
	free(msg);
	msg = NULL;
	/* Not streamed: the output goes in the result. */
	c.stream = 0;
	result_is(rpc_call_result(&c, 0, "hi\n", 3, "\xff", 1, 1, &code,
	    &msg), "{\"exit_status\":0,\"duration_ms\":1,\"stdout\":"
	    "\"hi\\n\",\"stderr_base64\":\"/w==\"}");
	rpc_call_clear(&c);

	/* JSON output, as is or wrapped. */
	call_for("fs.stat", "{" BOX ",\"path\":\"a\"}", &c);
	result_is(rpc_call_result(&c, 0, "{\"name\":\"a\",\"size\":3}\n", 23,
	    NULL, 0, 5, &code, &msg), "{\"name\":\"a\",\"size\":3}");
	assert_null(rpc_call_result(&c, 0, "not json", 8, NULL, 0, 5, &code,
	    &msg));
	assert_int_equal(code, JSONRPC_INTERNAL_ERROR);
	free(msg);
	msg = NULL;
	err = "clawssh: warning: x\nclawssh: a: no such file\n";
	assert_null(rpc_call_result(&c, 255, NULL, 0, err, strlen(err), 5,
	    &code, &msg));
	assert_int_equal(code, JSONRPC_REMOTE_FAILED);
	assert_string_equal(msg, "a: no such file");
	free(msg);
	msg = NULL;
	rpc_call_clear(&c);
	call_for("fs.ls", "{" BOX "}", &c);
	result_is(rpc_call_result(&c, 0, "[{\"name\":\"\xff\"}]", 14, NULL, 0,
	    5, &code, &msg), "{\"entries\":[{\"name\":\"\xef\xbf\xbd\"}]}");
	rpc_call_clear(&c);

	/* Text output. */
	call_for("fs.read", "{" BOX ",\"path\":\"a\"}", &c);
	result_is(rpc_call_result(&c, 0, "line\n", 5, NULL, 0, 5, &code,
	    &msg), "{\"content\":\"line\\n\"}");
	result_is(rpc_call_result(&c, 0, "\0\1", 2, NULL, 0, 5, &code, &msg),
	    "{\"content_base64\":\"AAE=\"}");
	/* No stderr at all: the status says it. */
	assert_null(rpc_call_result(&c, 1, NULL, 0, NULL, 0, 5, &code,
	    &msg));
	assert_string_equal(msg, "clawssh exited with status 1");
	free(msg);
	msg = NULL;
	rpc_call_clear(&c);
	call_for("fs.edit", "{" BOX ",\"path\":\"a\",\"old\":\"x\","
	    "\"new\":\"y\"}", &c);
	result_is(rpc_call_result(&c, 0, "1 replacement\n", 14, NULL, 0, 5,
	    &code, &msg), "{\"text\":\"1 replacement\\n\"}");
	rpc_call_clear(&c);
}

static void
test_stderr_message(void **state)
{
	char	*m;

	(void)state;
	assert_null(rpc_stderr_message(NULL, 0));
	assert_null(rpc_stderr_message("\n\n", 2));
	m = rpc_stderr_message("a\nlast line\r\n\n", 14);
	assert_string_equal(m, "last line");
	free(m);
	m = rpc_stderr_message("clawssh: x\n", 10);	/* no newline seen */
	assert_string_equal(m, "x");
	free(m);
	m = rpc_stderr_message("clawssh: \xff\n", 11);
	assert_string_equal(m, "\xef\xbf\xbd");
	free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sandbox_methods),
		cmocka_unit_test(test_sandbox_refused),
		cmocka_unit_test(test_exec),
		cmocka_unit_test(test_exec_refused),
		cmocka_unit_test(test_fs),
		cmocka_unit_test(test_fs_refused),
		cmocka_unit_test(test_process),
		cmocka_unit_test(test_process_refused),
		cmocka_unit_test(test_method_names),
		cmocka_unit_test(test_env_names),
		cmocka_unit_test(test_results),
		cmocka_unit_test(test_stderr_message),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
