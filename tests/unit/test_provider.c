/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the provider drivers' shared parts and the managed
 * backend's provider side: names within a driver's limit, endpoint
 * checks, running a provider with a timeout and bounded output, the
 * command driver's answers (read from small scripts), and the pins of
 * the first host key seen.
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
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "managed.h"
#include "provider.h"
#include "xmalloc.h"

static struct provider_conf conf = {
	.name = "p", .driver = "command", .timeout = 2, .ready_timeout = 1
};

/* Names: prefix and id when they fit, the id alone, else an error. */
static void
test_name(void **state)
{
	struct provider_ops	ops = provider_command;
	struct managed		m = { .pc = conf, .ops = &ops };
	char			*name = NULL, *cause = NULL;

	(void)state;
	ops.name_max = 19;
	assert_int_equal(managed_name(&m, "cabcdefghijkl", &name, &cause), 0);
	assert_string_equal(name, "claw-cabcdefghijkl");
	free(name);
	ops.name_max = 13;
	assert_int_equal(managed_name(&m, "cabcdefghijkl", &name, &cause), 0);
	assert_string_equal(name, "cabcdefghijkl");
	free(name);
	ops.name_max = 12;
	assert_int_equal(managed_name(&m, "cabcdefghijkl", &name, &cause),
	    CLAW_ERR_INVAL);
	assert_non_null(strstr(cause, "provider p (command): sandbox names "
	    "are limited to 12"));
	free(cause);
	assert_int_equal(provider_openshell.name_max, 19);
}

/* Endpoints: what passes and what is refused, naming the field. */
static void
test_endpoint_check(void **state)
{
	static const char key[] = "ssh-ed25519 "
	    "AAAAC3NzaC1lZDI1NTE5AAAAIGuedL7hKHgbqQWjIw+WUCDIVYHsvgrsC1K6eZEKO";
	struct provider_endpoint	 ep;
	char				*cause = NULL;
	char				 host[] = "h", nl[] = "a\nb";
	char				 dash[] = "-oProxyCommand=x";
	char				 proxy[] = "ssh -W %h:%p gw", k[200];

	(void)state;
	memset(&ep, 0, sizeof ep);
	ep.host = host;
	ep.proxy_command = proxy;
	snprintf(k, sizeof k, "%s\n%s comment\n", key, key);
	ep.host_keys = k;
	assert_int_equal(provider_endpoint_check(&conf, &ep, &cause), 0);
	ep.host_keys = nl;
	assert_int_equal(provider_endpoint_check(&conf, &ep, &cause),
	    CLAW_ERR_PROTO);
	assert_string_equal(cause, "provider p (command): the endpoint's "
	    "host keys is missing or malformed");
	free(cause);
	ep.host_keys = NULL;
	ep.host = nl;
	assert_int_equal(provider_endpoint_check(&conf, &ep, &cause),
	    CLAW_ERR_PROTO);
	assert_non_null(strstr(cause, "endpoint's host is"));
	free(cause);
	ep.host = dash;
	assert_int_equal(provider_endpoint_check(&conf, &ep, &cause),
	    CLAW_ERR_PROTO);
	free(cause);
	ep.host = host;
	ep.port = 65536;
	assert_int_equal(provider_endpoint_check(&conf, &ep, &cause),
	    CLAW_ERR_PROTO);
	assert_non_null(strstr(cause, "endpoint's port"));
	free(cause);
	ep.port = 22;
	ep.proxy_command = nl;
	assert_int_equal(provider_endpoint_check(&conf, &ep, &cause),
	    CLAW_ERR_PROTO);
	assert_non_null(strstr(cause, "proxy command"));
	free(cause);
}

/* A run: stdin in, stdout and stderr back, the exit status kept. */
static void
test_run(void **state)
{
	char			 sh[] = "/bin/sh", c[] = "-c";
	char			 s1[] = "cat; echo oops >&2; echo x >&2; "
	    "exit 3";
	char			*argv[] = { sh, c, s1, NULL };
	struct provider_run	 r;
	char			*cause = NULL;

	(void)state;
	memset(&r, 0, sizeof r);
	assert_int_equal(provider_run(&conf, argv, "in\n", &r, &cause), 0);
	assert_string_equal(r.out, "in\n");
	assert_string_equal(r.err, "oops / x");
	assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 3);
	assert_int_equal(provider_fail_run(&cause, &conf, "get", &r),
	    CLAW_ERR_PROTO);
	assert_string_equal(cause, "provider p (command): get exited with "
	    "status 3: oops / x");
	free(cause);
	provider_run_free(&r);
}

/* A run that hangs is killed at the timeout, children and all. */
static void
test_run_timeout(void **state)
{
	char			 sh[] = "/bin/sh", c[] = "-c";
	char			 s1[] = "sleep 30 & sleep 31; :";
	char			*argv[] = { sh, c, s1, NULL };
	struct provider_conf	 pc = conf;
	struct provider_run	 r;
	char			*cause = NULL;
	time_t			 start = time(NULL);

	(void)state;
	pc.timeout = 1;
	memset(&r, 0, sizeof r);
	assert_int_equal(provider_run(&pc, argv, NULL, &r, &cause),
	    CLAW_ERR_TIMEOUT);
	assert_true(time(NULL) - start < 5);
	assert_non_null(strstr(cause, "did not answer within 1 s"));
	free(cause);
}

/* Too much output is refused; a missing executable is status 127. */
static void
test_run_limits(void **state)
{
	char			 sh[] = "/bin/sh", c[] = "-c";
	char			 s1[] = "head -c 2000000 /dev/zero";
	char			 none[] = "/nonexistent/provider";
	char			*argv[] = { sh, c, s1, NULL };
	char			*argv2[] = { none, NULL };
	struct provider_run	 r;
	char			*cause = NULL;

	(void)state;
	memset(&r, 0, sizeof r);
	assert_int_equal(provider_run(&conf, argv, NULL, &r, &cause),
	    CLAW_ERR_PROTO);
	assert_non_null(strstr(cause, "printed more than"));
	free(cause);
	assert_int_equal(provider_run(&conf, argv2, NULL, &r, &cause), 0);
	assert_true(WIFEXITED(r.status) && WEXITSTATUS(r.status) == 127);
	assert_non_null(strstr(r.err, "No such file"));
	provider_run_free(&r);
}

/* Write an executable script answering with text; return its path. */
static char *
script(const char *dir, const char *text)
{
	char	*path;
	FILE	*f;

	path = xasprintf("%s/p.sh", dir);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "#!/bin/sh\ncat >/dev/null\ncat <<'EOF'\n%s\nEOF\n", text);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(chmod(path, 0755), 0);
	return path;
}

/* The command driver: a good answer read, bad ones refused clearly. */
static void
test_command_answers(void **state)
{
	static const struct {
		const char	*answer, *why;
	} bad[] = {
		{ "{\"state\": \"running\"}", "state is missing or not valid" },
		{ "[1]", "not a JSON object" },
		{ "{\"error\": \"quota\"}", "get: quota" },
		{ "{\"state\": \"ready\", \"endpoint\": {\"port\": \"22\"}}",
		    "endpoint.port" },
		{ "{\"name\": \"other\", \"state\": \"absent\"}",
		    "answered for another sandbox" },
	};
	struct provider_conf	 pc = conf;
	struct provider_sandbox	 sb;
	char			 dir[] = "/tmp/test_provider.XXXXXX";
	char			*cause = NULL, *path;
	size_t			 i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	pc.command = path = script(dir, "{\"name\": \"n\", \"state\": "
	    "\"ready\", \"message\": \"up\", \"gpus\": \"0,1\", \"endpoint\": "
	    "{\"host\": \"10.0.0.5\", \"port\": 2222, \"user\": \"u\", "
	    "\"proxyCommand\": \"nc %h %p\", \"execWrap\": \"srun\"}}");
	if (provider_command.get(&pc, "n", &sb, &cause) != 0)
		fail_msg("%s", cause);
	assert_int_equal(sb.state, PROVIDER_READY);
	assert_string_equal(sb.state_text, "up");
	assert_string_equal(sb.gpus, "0,1");
	assert_string_equal(sb.ep.host, "10.0.0.5");
	assert_int_equal(sb.ep.port, 2222);
	assert_string_equal(sb.ep.proxy_command, "nc %h %p");
	assert_string_equal(sb.ep.exec_wrap, "srun");
	provider_sandbox_clear(&sb);
	free(path);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		pc.command = path = script(dir, bad[i].answer);
		assert_int_not_equal(provider_command.get(&pc, "n", &sb,
		    &cause), 0);
		if (strstr(cause, bad[i].why) == NULL)
			fail_msg("%s: %s", bad[i].answer, cause);
		free(cause);
		unlink(path);
		free(path);
	}
	rmdir(dir);
}

/* The StrictHostKeyChecking line managed_ssh_lines gives for pin. */
static char *
pin_strict(const char *pin)
{
	char	**lines = NULL, *strict = NULL;
	size_t	  n = 0, i;

	managed_ssh_lines("h", 0, NULL, NULL, NULL, NULL, pin, &lines, &n);
	for (i = 0; i < n; i++) {
		if (strncmp(lines[i], "StrictHostKeyChecking ", 22) == 0)
			strict = xstrdup(lines[i] + 22);
		free(lines[i]);
	}
	free(lines);
	return strict;
}

/*
 * A pin of the first key seen: made empty (accept-new), kept once it has
 * a key (yes), emptied for a fresh sandbox; a missing or linked one
 * accepts nothing new.
 */
static void
test_pin_first(void **state)
{
	char	 dir[] = "/tmp/test_provider.XXXXXX";
	char	*pin, *link, *cause = NULL, *strict;
	FILE	*f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	pin = xasprintf("%s/pin", dir);
	link = xasprintf("%s/link", dir);
	assert_string_equal(strict = pin_strict(pin), "yes");
	free(strict);
	assert_int_equal(managed_pin_first(pin, 0, &cause), 0);
	assert_string_equal(strict = pin_strict(pin), "accept-new");
	free(strict);
	assert_non_null(f = fopen(pin, "a"));
	fputs("h ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIKey\n", f);
	fclose(f);
	assert_string_equal(strict = pin_strict(pin), "yes");
	free(strict);
	assert_int_equal(managed_pin_first(pin, 0, &cause), 0);
	assert_string_equal(strict = pin_strict(pin), "yes");
	free(strict);
	assert_int_equal(managed_pin_first(pin, 1, &cause), 0);
	assert_string_equal(strict = pin_strict(pin), "accept-new");
	free(strict);
	assert_int_equal(symlink(pin, link), 0);
	assert_string_equal(strict = pin_strict(link), "yes");
	free(strict);
	assert_int_not_equal(managed_pin_first(link, 1, &cause), 0);
	free(cause);
	unlink(link);
	unlink(pin);
	rmdir(dir);
	free(link);
	free(pin);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_endpoint_check),
		cmocka_unit_test(test_run),
		cmocka_unit_test(test_run_timeout),
		cmocka_unit_test(test_run_limits),
		cmocka_unit_test(test_command_answers),
		cmocka_unit_test(test_pin_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
