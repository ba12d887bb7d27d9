/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the tool policy: parsing (with errors naming the key),
 * the deny-wins rule across the global, agent and sandbox levels, globs
 * across dots, elevated exec, the rule named on refusal, and the "policy"
 * and "audit" keys of the configuration file.
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
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "compat.h"
#include "clawconfig.h"
#include "error.h"
#include "jsonc.h"
#include "policy.h"
#include "xmalloc.h"
#include "tmpdir.h"

/* Parse text (JSON with comments) as a policy; fail the test if bad. */
static struct claw_policy *
parse_ok(const char *text)
{
	struct claw_policy	*p = NULL;
	cJSON			*obj = NULL;
	char			*cause = NULL;

	assert_int_equal(jsonc_parse("t", text, strlen(text), &obj, &cause),
	    0);
	if (policy_parse(obj, "policy", &p, &cause) != 0)
		fail_msg("policy_parse: %s", cause);
	cJSON_Delete(obj);
	return p;
}

/* Parse text, expecting CLAW_ERR_PARSE with exactly the message want. */
static void
parse_bad(const char *text, const char *want)
{
	struct claw_policy	*p = NULL;
	cJSON			*obj = NULL;
	char			*cause = NULL;

	assert_int_equal(jsonc_parse("t", text, strlen(text), &obj, &cause),
	    0);
	assert_int_equal(policy_parse(obj, "policy", &p, &cause),
	    CLAW_ERR_PARSE);
	assert_null(p);
	assert_non_null(cause);
	assert_string_equal(cause, want);
	free(cause);
	cJSON_Delete(obj);
}

/* Check one call: want 0 or the exact refusing rule. */
static void
check(const struct claw_policy *p, const char *agent, const char *sandbox,
    const char *tool, int elevated, const char *want)
{
	char	*rule = NULL;
	int	 r;

	r = policy_check(p, agent, sandbox, tool, elevated, &rule);
	if (want == NULL) {
		if (r != 0)
			fail_msg("%s refused: %s", tool, rule);
		assert_null(rule);
		return;
	}
	assert_int_equal(r, CLAW_ERR_DENIED);
	assert_non_null(rule);
	assert_string_equal(rule, want);
	free(rule);
}

/* No policy: everything but elevated exec. */
static void
test_null_policy(void **state)
{
	(void)state;
	check(NULL, NULL, NULL, "exec", 0, NULL);
	check(NULL, "bot", "abc", "fs.write", 0, NULL);
	check(NULL, NULL, NULL, "exec", 1, "policy.elevated is false");
	assert_int_equal(policy_check(NULL, NULL, NULL, NULL, 0, NULL),
	    CLAW_ERR_INVAL);
	assert_string_equal(claw_strerror(CLAW_ERR_DENIED),
	    "denied by policy");
}

/* An empty object allows all; elevated only when true. */
static void
test_empty_and_elevated(void **state)
{
	struct claw_policy	*p;

	(void)state;
	p = parse_ok("{}");
	check(p, NULL, NULL, "sandbox.provision", 0, NULL);
	check(p, NULL, NULL, "exec", 1, "policy.elevated is false");
	policy_free(p);
	p = parse_ok("{ \"elevated\": true, \"allow\": [] }");
	check(p, NULL, NULL, "exec", 1, NULL);
	policy_free(p);
	p = parse_ok("{ \"elevated\": true, \"deny\": [\"exec\"] }");
	check(p, NULL, NULL, "exec", 1, "policy.deny[0] \"exec\"");
	policy_free(p);
}

/* Global lists: globs match across dots; deny wins over allow. */
static void
test_global(void **state)
{
	struct claw_policy	*p;

	(void)state;
	p = parse_ok("{ \"allow\": [\"exec\", \"fs.*\", \"process.*\"],\n"
	    "  // comments are fine\n"
	    "  \"deny\": [\"image.*\", \"fs.write\"] }");
	check(p, NULL, NULL, "exec", 0, NULL);
	check(p, NULL, NULL, "fs.read", 0, NULL);
	check(p, NULL, NULL, "fs.applyPatch", 0, NULL);
	check(p, NULL, NULL, "process.start", 0, NULL);
	check(p, NULL, NULL, "fs.write", 0, "policy.deny[1] \"fs.write\"");
	check(p, NULL, NULL, "sync.push", 0,
	    "policy.allow (no entry matches \"sync.push\")");
	check(p, NULL, NULL, "execx", 0,
	    "policy.allow (no entry matches \"execx\")");
	check(p, NULL, NULL, "fs", 0,
	    "policy.allow (no entry matches \"fs\")");
	/* A hostile tool name is escaped in the rule. */
	check(p, NULL, NULL, "x\"\n", 0,
	    "policy.allow (no entry matches \"x\\x22\\x0a\")");
	policy_free(p);
	p = parse_ok("{ \"allow\": [\"*\"], \"deny\": [\"*.write\", "
	    "\"sandbox.?rovision\"] }");
	check(p, NULL, NULL, "a.b.c.d", 0, NULL);
	check(p, NULL, NULL, "fs.write", 0, "policy.deny[0] \"*.write\"");
	check(p, NULL, NULL, "sandbox.provision", 0,
	    "policy.deny[1] \"sandbox.?rovision\"");
	policy_free(p);
}

static const char levels[] =
    "{ \"allow\": [\"exec\", \"fs.*\", \"sandbox.*\"],\n"
    "  \"agents\": {\n"
    "    \"ci-bot\": { \"allow\": [\"exec\", \"fs.read\"],\n"
    "                \"deny\": [\"fs.*\"] },\n"
    "    \"reader\": { \"allow\": [\"fs.read\", \"fs.ls\"] },\n"
    "    \"free\": {}\n"
    "  },\n"
    "  \"sandboxes\": {\n"
    "    \"sb1\": { \"deny\": [\"exec\"] },\n"
    "    \"sb2\": { \"allow\": [\"fs.read\", \"exec\"] }\n"
    "  }\n"
    "}";

/* Agent and sandbox levels: any deny refuses, every allow must match. */
static void
test_levels(void **state)
{
	struct claw_policy	*p;

	(void)state;
	p = parse_ok(levels);
	/* The agent's deny beats its own allow and the global one. */
	check(p, "ci-bot", NULL, "fs.read", 0,
	    "policy.agents.ci-bot.deny[0] \"fs.*\"");
	check(p, "ci-bot", NULL, "exec", 0, NULL);
	check(p, "ci-bot", NULL, "sandbox.list", 0,
	    "policy.agents.ci-bot.allow (no entry matches \"sandbox.list\")");
	check(p, "reader", NULL, "fs.ls", 0, NULL);
	check(p, "reader", NULL, "exec", 0,
	    "policy.agents.reader.allow (no entry matches \"exec\")");
	/* The global allow still applies to every agent. */
	check(p, "free", NULL, "sync.push", 0,
	    "policy.allow (no entry matches \"sync.push\")");
	check(p, "unknown", NULL, "exec", 0, NULL);
	/* Sandbox deny and allow. */
	check(p, NULL, "sb1", "exec", 0, "policy.sandboxes.sb1.deny[0] "
	    "\"exec\"");
	check(p, "free", "sb1", "fs.read", 0, NULL);
	check(p, NULL, "sb2", "fs.ls", 0,
	    "policy.sandboxes.sb2.allow (no entry matches \"fs.ls\")");
	check(p, "reader", "sb2", "fs.read", 0, NULL);
	/* Deny anywhere beats allow anywhere, whatever the order. */
	check(p, "reader", "sb1", "exec", 0,
	    "policy.sandboxes.sb1.deny[0] \"exec\"");
	check(p, "ci-bot", "sb2", "fs.read", 0,
	    "policy.agents.ci-bot.deny[0] \"fs.*\"");
	check(p, NULL, "other", "exec", 0, NULL);
	/* A NULL rule pointer is fine. */
	assert_int_equal(policy_check(p, "ci-bot", NULL, "fs.ls", 0, NULL),
	    CLAW_ERR_DENIED);
	policy_free(p);
}

/* Many agents are found (sorted lookup). */
static void
test_many_agents(void **state)
{
	struct claw_policy	*p;
	char			*text, name[32];
	int			 i;

	(void)state;
	text = xstrdup("{ \"agents\": {");
	for (i = 0; i < 200; i++) {
		char	*t = xasprintf("%s%s\"a%03d\": { \"deny\": "
		    "[\"t%d\"] }", text, i ? "," : "", (199 * i) % 200,
		    (199 * i) % 200);
		free(text);
		text = t;
	}
	{
		char	*t = xasprintf("%s } }", text);
		free(text);
		text = t;
	}
	p = parse_ok(text);
	free(text);
	for (i = 0; i < 200; i++) {
		char	want[128], tool[16];

		snprintf(name, sizeof(name), "a%03d", i);
		snprintf(tool, sizeof(tool), "t%d", i);
		snprintf(want, sizeof(want), "policy.agents.%s.deny[0] "
		    "\"%s\"", name, tool);
		check(p, name, NULL, tool, 0, want);
		check(p, name, NULL, "t999", 0, NULL);
	}
	policy_free(p);
}

/* Malformed policies: errors name the key. */
static void
test_parse_errors(void **state)
{
	(void)state;
	parse_bad("[]", "policy: expected an object");
	parse_bad("{ \"allwo\": [] }", "unknown key 'policy.allwo'");
	parse_bad("{ \"allow\": \"exec\" }",
	    "policy.allow: expected an array of patterns");
	parse_bad("{ \"deny\": [\"exec\", 3] }", "policy.deny[1]: expected "
	    "a non-empty string of at most 256 bytes");
	parse_bad("{ \"deny\": [\"\"] }", "policy.deny[0]: expected "
	    "a non-empty string of at most 256 bytes");
	parse_bad("{ \"elevated\": 1 }",
	    "policy.elevated: expected true or false");
	parse_bad("{ \"allow\": [], \"allow\": [] }",
	    "policy.allow: duplicate key");
	parse_bad("{ \"agents\": [] }", "policy.agents: expected an object");
	parse_bad("{ \"agents\": { \"a\": 1 } }",
	    "policy.agents.a: expected an object");
	parse_bad("{ \"agents\": { \"a\": {}, \"a\": {} } }",
	    "policy.agents.a: duplicate key");
	parse_bad("{ \"agents\": { \"\": {} } }", "policy.agents.: empty name");
	parse_bad("{ \"agents\": { \"bot\": { \"elevated\": true } } }",
	    "unknown key 'policy.agents.bot.elevated'");
	parse_bad("{ \"sandboxes\": { \"s\\n1\": { \"deny\": [1] } } }",
	    "policy.sandboxes.s\\x0a1.deny[0]: expected a non-empty string "
	    "of at most 256 bytes");
	parse_bad("{ \"sandboxes\": { \"x\": { \"agents\": {} } } }",
	    "unknown key 'policy.sandboxes.x.agents'");
}

/* Write text to dir/config.json and return the path (allocated). */
static char *
write_config(const char *dir, const char *text)
{
	char	*path;
	FILE	*f;

	path = xasprintf("%s/config.json", dir);
	assert_non_null(f = fopen(path, "w"));
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* The "policy" and "audit" keys of config.json. */
static void
test_config_keys(void **state)
{
	struct claw_config	*cfg = NULL;
	char			 dir[] = "/tmp/test_policy.XXXXXX";
	char			*path, *cause = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	path = write_config(dir, "{ \"policy\": { \"deny\": [\"fs.*\"] },\n"
	    "  \"audit\": { \"file\": \"~/audit.log\" } }");
	assert_int_equal(config_load(path, "/home/u", &cfg, &cause), 0);
	assert_non_null(cfg->policy);
	assert_string_equal(cfg->audit_file, "/home/u/audit.log");
	check(cfg->policy, NULL, NULL, "fs.ls", 0, "policy.deny[0] \"fs.*\"");
	config_free(cfg);
	free(path);

	path = write_config(dir, "{ \"audit\": { \"file\": \"\" } }");
	assert_int_equal(config_load(path, "/home/u", &cfg, &cause), 0);
	assert_null(cfg->policy);
	assert_string_equal(cfg->audit_file, "");
	config_free(cfg);
	free(path);

	path = write_config(dir, "{ \"policy\": { \"agents\": { \"b\": "
	    "{ \"allow\": [false] } } } }");
	assert_int_equal(config_load(path, "/home/u", &cfg, &cause),
	    CLAW_ERR_PARSE);
	assert_non_null(strstr(cause,
	    "config.json: policy.agents.b.allow[0]: expected"));
	free(cause);
	free(path);

	path = write_config(dir, "{ \"audit\": { \"file\": 3 } }");
	assert_int_equal(config_load(path, "/home/u", &cfg, &cause),
	    CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "audit.file: expected a string"));
	free(cause);
	free(path);
	assert_int_equal(tmpdir_remove(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_null_policy),
		cmocka_unit_test(test_empty_and_elevated),
		cmocka_unit_test(test_global),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_many_agents),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_config_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
