/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tests for sshconfig: the destination as the command line gives it, that
 * is sshconfig_parse_target, ssh -o options and the query itself.
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

#include "error.h"
#include "sshconfig.h"
#include "sshconfig_fixture.h"

/* ssh -o lines come before the file and win; Host there is refused. */
static void
test_options(void **state)
{
	struct fixture		*fx = *state;
	char			 o1[] = "Port=2300", o2[] = "IdentityFile ~/o";
	char			 o3[] = "User optuser", o4[] = "Host x";
	char			*opts[] = { o1, o2, o3 }, *bad[] = { o1, o4 };
	struct sshconfig_query	 q = { .host = "h", .local_user = "alice",
	    .home = fx->dir, .options = opts, .noptions = 3 };
	struct sshconfig	*c = NULL;
	char			*cause = NULL;
	const char		*path;

	path = write_file(fx->dir, "config",
	    "Port 2400\nUser fileuser\nIdentityFile ~/f\n");
	assert_int_equal(sshconfig_resolve(path, 0, &q, &c, &cause), 0);
	assert_int_equal(c->port, 2300);
	assert_string_equal(c->user, "optuser");
	assert_int_equal(c->n_identity_files, 2);
	assert_string_equal(c->identity_files[0], in_dir(fx->dir, "o"));
	assert_string_equal(c->identity_files[1], in_dir(fx->dir, "f"));
	sshconfig_free(c);
	c = NULL;
	q.options = bad;
	q.noptions = 2;
	assert_int_equal(sshconfig_resolve(NULL, 0, &q, &c, &cause),
	    CLAW_ERR_PARSE);
	assert_null(c);
	assert_string_equal(cause,
	    "command-line line 2: Host is not allowed as an option");
	free(cause);
}

/* ProxyCommand: the raw rest of the line, tokens expanded, first wins. */
static void
test_proxy_command(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig_query	 q = { .host = "box", .local_user = "alice",
	    .home = fx->dir };
	struct sshconfig	*c = NULL;
	char			*cause = NULL;
	const char		*path;

	path = write_file(fx->dir, "config",
	    "Host box\n"
	    "  HostName Example.ORG\n"
	    "  Port 2222\n"
	    "  User bob\n"
	    "  ProxyCommand=  ssh -W '%h:%p' \"gw\" -l %r # %n %%x  \n"
	    "  ProxyCommand second\n"
	    "  HostKeyAlias box-key\n"
	    "  HostKeyAlias other\n");
	assert_int_equal(sshconfig_resolve(path, 0, &q, &c, &cause), 0);
	assert_string_equal(c->host_key_alias, "box-key");
	assert_string_equal(c->proxy_command,
	    "ssh -W 'example.org:2222' \"gw\" -l bob # box %x");
	sshconfig_free(c);
	c = NULL;

	/* No ProxyCommand, and "none", both mean a direct connection. */
	path = write_file(fx->dir, "config", "Host box\n  Port 2\n");
	assert_int_equal(sshconfig_resolve(path, 0, &q, &c, &cause), 0);
	assert_null(c->proxy_command);
	assert_null(c->host_key_alias);
	sshconfig_free(c);
	c = NULL;
	path = write_file(fx->dir, "config",
	    "ProxyCommand NONE\nProxyCommand nc %h %p\n");
	assert_int_equal(sshconfig_resolve(path, 0, &q, &c, &cause), 0);
	assert_null(c->proxy_command);
	sshconfig_free(c);
	c = NULL;

	/* An unknown token, a bare % and an empty command are errors. */
	path = write_file(fx->dir, "config", "ProxyCommand nc %z\n");
	assert_int_equal(sshconfig_resolve(path, 0, &q, &c, &cause),
	    CLAW_ERR_PARSE);
	assert_null(c);
	assert_non_null(strstr(cause, "line 1: unknown token %z"));
	free(cause);
	path = write_file(fx->dir, "config", "ProxyCommand nc %\n");
	assert_int_equal(sshconfig_resolve(path, 0, &q, &c, &cause),
	    CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "'%' at end"));
	free(cause);
	path = write_file(fx->dir, "config", "Host other\nProxyCommand  \n");
	assert_int_equal(sshconfig_resolve(path, 0, &q, &c, &cause),
	    CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "line 2: missing argument"));
	free(cause);
}

/* ProxyCommand given as an ssh -o line wins over the file. */
static void
test_proxy_option(void **state)
{
	struct fixture		*fx = *state;
	char			 o1[] = "ProxyCommand /usr/sbin/sshd -i -p %p";
	char			*opts[] = { o1 };
	struct sshconfig_query	 q = { .host = "h", .port = 2022,
	    .local_user = "alice", .home = fx->dir, .options = opts,
	    .noptions = 1 };
	struct sshconfig	*c = NULL;
	char			*cause = NULL;
	const char		*path;

	path = write_file(fx->dir, "config", "ProxyCommand other\n");
	assert_int_equal(sshconfig_resolve(path, 0, &q, &c, &cause), 0);
	assert_string_equal(c->proxy_command, "/usr/sbin/sshd -i -p 2022");
	sshconfig_free(c);
}

/* A query without a host is refused. */
static void
test_bad_query(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig_query	 q = { .local_user = "alice",
	    .home = fx->dir };
	struct sshconfig	*c = NULL;
	char			*cause = NULL;

	assert_int_equal(sshconfig_resolve(NULL, 0, &q, &c, &cause),
	    CLAW_ERR_INVAL);
	assert_null(c);
	assert_non_null(cause);
	free(cause);
}

/* Good targets split into user, host and port. */
static void
test_target_good(void **state)
{
	static const struct {
		const char	*target, *user, *host;
		int		 port;
	} cases[] = {
		{ "host", NULL, "host", 0 },
		{ "user@host", "user", "host", 0 },
		{ "host:22", NULL, "host", 22 },
		{ "user@host:2222", "user", "host", 2222 },
		{ "[::1]:2222", NULL, "::1", 2222 },
		{ "[::1]", NULL, "::1", 0 },
		{ "user@[fe80::1]:22", "user", "fe80::1", 22 },
		{ "::1", NULL, "::1", 0 },
		{ "a@b@host:65535", "a@b", "host", 65535 },
	};
	char	*user, *host, *cause = NULL;
	int	 port;
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		user = host = NULL;
		port = -1;
		assert_int_equal(sshconfig_parse_target(cases[i].target, &user,
		    &host, &port, &cause), 0);
		if (cases[i].user == NULL)
			assert_null(user);
		else
			assert_string_equal(user, cases[i].user);
		assert_string_equal(host, cases[i].host);
		assert_int_equal(port, cases[i].port);
		assert_null(cause);
		free(user);
		free(host);
	}
}

/* Bad targets are refused with a cause; outputs stay untouched. */
static void
test_target_bad(void **state)
{
	static const struct {
		const char	*target, *why;
	} cases[] = {
		{ "", "empty target" },
		{ "@host", "empty user" },
		{ "user@", "empty host" },
		{ ":22", "empty host" },
		{ "[]:22", "empty host" },
		{ "host:", "bad port" },
		{ "host:0", "bad port" },
		{ "host:65536", "bad port" },
		{ "host:22x", "bad port" },
		{ "host:-1", "bad port" },
		{ "[::1]:99999", "bad port" },
		{ "[::1", "']'" },
		{ "[::1]x", "after ']'" },
		{ "bad host", "bad character" },
	};
	char	 mark[] = "unset";
	char	*user = mark, *host = mark, *cause;
	int	 port = 7;
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		cause = NULL;
		assert_int_equal(sshconfig_parse_target(cases[i].target, &user,
		    &host, &port, &cause), CLAW_ERR_INVAL);
		assert_non_null(cause);
		if (strstr(cause, cases[i].why) == NULL)
			fail_msg("%s: cause \"%s\"", cases[i].target, cause);
		assert_true(user == mark && host == mark);
		assert_int_equal(port, 7);
		free(cause);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_options),
		T(test_bad_query),
		T(test_proxy_command),
		T(test_proxy_option),
		cmocka_unit_test(test_target_good),
		cmocka_unit_test(test_target_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
