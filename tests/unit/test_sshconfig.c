/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tests for sshconfig: reading ssh_config(5) files and resolving settings.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "sshconfig.h"
#include "sshconfig_fixture.h"

/* Make directory dir/name. */
static void
make_dir(const char *dir, const char *name)
{
	char	path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_int_equal(mkdir(path, 0700), 0);
}

/* Resolve host (user, port from the command line) against dir/config. */
static int
resolve(const char *dir, const char *host, const char *user, int port,
    struct sshconfig **out, char **cause)
{
	struct sshconfig_query	q;
	char			path[PATH_MAX];

	memset(&q, 0, sizeof q);
	q.host = host;
	q.user = user;
	q.port = port;
	q.local_user = "alice";
	q.home = dir;
	snprintf(path, sizeof path, "%s/config", dir);
	return sshconfig_resolve(path, 0, &q, out, cause);
}

/* Resolve and insist that it works. */
static struct sshconfig *
resolve_ok(const char *dir, const char *host, const char *user, int port)
{
	struct sshconfig	*c = NULL;
	char			*cause = NULL;
	int			 r;

	r = resolve(dir, host, user, port, &c, &cause);
	if (r != 0)
		fail_msg("resolve %s: %d %s", host, r, cause);
	assert_null(cause);
	assert_non_null(c);
	return c;
}

/* Write text as the config and check it fails with code, naming line. */
static void
expect_error(const char *dir, const char *text, int code, int line,
    const char *needle)
{
	struct sshconfig	*c = NULL;
	char			*cause = NULL, prefix[PATH_MAX + 32];
	int			 r;

	write_file(dir, "config", text);
	r = resolve(dir, "host", NULL, 0, &c, &cause);
	assert_int_equal(r, code);
	assert_null(c);
	assert_non_null(cause);
	snprintf(prefix, sizeof prefix, "%s/config line %d: ", dir, line);
	if (strncmp(cause, prefix, strlen(prefix)) != 0 ||
	    strstr(cause, needle) == NULL)
		fail_msg("cause \"%s\" lacks \"%s\" or \"%s\"", cause, prefix,
		    needle);
	free(cause);
}

/* Host lines: several patterns, '*' and '?', negation cancels a block. */
static void
test_host_patterns(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;

	write_file(fx->dir, "config",
	    "Host web?.example.com *.internal\n"
	    "\tPort 2201\n"
	    "Host *.example.com !bad.example.com\n"
	    "\tUser deploy\n"
	    "Host *\n"
	    "\tConnectTimeout 5\n");
	c = resolve_ok(fx->dir, "web1.example.com", NULL, 0);
	assert_int_equal(c->port, 2201);
	assert_string_equal(c->user, "deploy");
	assert_int_equal(c->connect_timeout, 5);
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "db.internal", NULL, 0);
	assert_int_equal(c->port, 2201);
	assert_string_equal(c->user, "alice");
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "web12.example.com", NULL, 0);
	assert_int_equal(c->port, 22);
	assert_string_equal(c->user, "deploy");
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "bad.example.com", NULL, 0);
	assert_int_equal(c->port, 22);
	assert_string_equal(c->user, "alice");
	assert_int_equal(c->connect_timeout, 5);
	sshconfig_free(c);
}

/* A Host line with only negated patterns matches nothing. */
static void
test_host_negation_only(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;

	write_file(fx->dir, "config", "Host !foo\n\tPort 2000\n");
	c = resolve_ok(fx->dir, "bar", NULL, 0);
	assert_int_equal(c->port, 22);
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "foo", NULL, 0);
	assert_int_equal(c->port, 22);
	sshconfig_free(c);
}

/* Host patterns see the host as typed, not the HostName, case and all. */
static void
test_host_matches_alias(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;

	write_file(fx->dir, "config",
	    "Host alias\n\tHostName Real.Example.com\n"
	    "Host real.example.com\n\tPort 2000\n"
	    "Host ALIAS\n\tUser upper\n");
	c = resolve_ok(fx->dir, "alias", NULL, 0);
	assert_string_equal(c->host, "alias");
	assert_string_equal(c->hostname, "real.example.com");
	assert_int_equal(c->port, 22);
	assert_string_equal(c->user, "alice");
	sshconfig_free(c);
}

/* Lines before any Host or Match apply to every host. */
static void
test_global_lines(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;

	write_file(fx->dir, "config",
	    "User everyone\nPort 2500\nHost x\n\tUser xonly\n\tPort 2600\n");
	c = resolve_ok(fx->dir, "x", NULL, 0);
	assert_string_equal(c->user, "everyone");
	assert_int_equal(c->port, 2500);
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "y", NULL, 0);
	assert_string_equal(c->user, "everyone");
	sshconfig_free(c);
}

/* The first value obtained wins; the command line beats the file. */
static void
test_first_value_wins(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;

	write_file(fx->dir, "config",
	    "Host alias\n"
	    "\tHostName real.example.com\n\tPort 2000\n\tUser first\n"
	    "\tServerAliveInterval 10\n"
	    "Host *\n"
	    "\tHostName other.example.com\n\tPort 3000\n\tUser second\n"
	    "\tStrictHostKeyChecking no\n\tStrictHostKeyChecking yes\n"
	    "\tServerAliveInterval 20\n\tServerAliveCountMax 7\n"
	    "\tServerAliveCountMax 8\n\tIdentitiesOnly yes\n"
	    "\tIdentitiesOnly no\n");
	c = resolve_ok(fx->dir, "alias", NULL, 0);
	assert_string_equal(c->hostname, "real.example.com");
	assert_int_equal(c->port, 2000);
	assert_string_equal(c->user, "first");
	assert_int_equal(c->strict, SSHCONFIG_STRICT_NO);
	assert_int_equal(c->server_alive_interval, 10);
	assert_int_equal(c->server_alive_count_max, 7);
	assert_int_equal(c->identities_only, 1);
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "zzz", NULL, 0);
	assert_string_equal(c->hostname, "other.example.com");
	assert_int_equal(c->port, 3000);
	assert_int_equal(c->server_alive_interval, 20);
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "alias", "cmdline", 4000);
	assert_int_equal(c->port, 4000);
	assert_string_equal(c->user, "cmdline");
	sshconfig_free(c);
}

/* IdentityFile accumulates over blocks, in order, without duplicates. */
static void
test_identity_accumulates(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;

	write_file(fx->dir, "config",
	    "Host a\n"
	    "\tIdentityFile ~/.ssh/one\n\tIdentityFile ~/.ssh/two\n"
	    "Host *\n"
	    "\tIdentityFile %d/.ssh/one\n\tIdentityFile /abs/three\n");
	c = resolve_ok(fx->dir, "a", NULL, 0);
	assert_int_equal(c->identity_files_set, 1);
	assert_int_equal(c->n_identity_files, 3);
	assert_string_equal(c->identity_files[0], in_dir(fx->dir,
	    ".ssh/one"));
	assert_string_equal(c->identity_files[1], in_dir(fx->dir,
	    ".ssh/two"));
	assert_string_equal(c->identity_files[2], "/abs/three");
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "b", NULL, 0);
	assert_int_equal(c->n_identity_files, 2);
	assert_string_equal(c->identity_files[0], in_dir(fx->dir,
	    ".ssh/one"));
	assert_string_equal(c->identity_files[1], "/abs/three");
	sshconfig_free(c);
}

/* The first known hosts line gives the whole list; later ones are ignored. */
static void
test_known_hosts_first_line(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;

	write_file(fx->dir, "config",
	    "Host h\n\tUserKnownHostsFile /kh/a /kh/b\n"
	    "\tGlobalKnownHostsFile /g/a\n"
	    "Host *\n\tUserKnownHostsFile /kh/c\n"
	    "\tGlobalKnownHostsFile /g/b /g/c\n");
	c = resolve_ok(fx->dir, "h", NULL, 0);
	assert_int_equal(c->n_known_hosts_files, 2);
	assert_string_equal(c->known_hosts_files[0], "/kh/a");
	assert_string_equal(c->known_hosts_files[1], "/kh/b");
	assert_int_equal(c->n_global_known_hosts_files, 1);
	assert_string_equal(c->global_known_hosts_files[0], "/g/a");
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "other", NULL, 0);
	assert_int_equal(c->n_known_hosts_files, 1);
	assert_string_equal(c->known_hosts_files[0], "/kh/c");
	assert_int_equal(c->n_global_known_hosts_files, 2);
	sshconfig_free(c);
}

/* With no file every default is filled in. */
static void
test_defaults(void **state)
{
	static const char *const ids[] = { "id_rsa", "id_ecdsa",
	    "id_ecdsa_sk", "id_ed25519", "id_ed25519_sk", "id_xmss",
	    "id_dsa" };
	struct fixture		*fx = *state;
	struct sshconfig_query	 q = { .host = "Example.COM",
	    .local_user = "alice", .home = fx->dir };
	struct sshconfig	*c = NULL;
	char			*cause = NULL, name[64];
	size_t			 i;

	assert_int_equal(sshconfig_resolve(NULL, 0, &q, &c, &cause), 0);
	assert_string_equal(c->host, "Example.COM");
	assert_string_equal(c->hostname, "example.com");
	assert_string_equal(c->user, "alice");
	assert_int_equal(c->port, 22);
	assert_int_equal(c->identity_files_set, 0);
	assert_int_equal(c->n_identity_files, 7);
	for (i = 0; i < 7; i++) {
		snprintf(name, sizeof name, ".ssh/%s", ids[i]);
		assert_string_equal(c->identity_files[i], in_dir(fx->dir,
		    name));
	}
	assert_int_equal(c->n_known_hosts_files, 2);
	assert_string_equal(c->known_hosts_files[0], in_dir(fx->dir,
	    ".ssh/known_hosts"));
	assert_string_equal(c->known_hosts_files[1], in_dir(fx->dir,
	    ".ssh/known_hosts2"));
	assert_int_equal(c->n_global_known_hosts_files, 2);
	assert_string_equal(c->global_known_hosts_files[0],
	    "/etc/ssh/ssh_known_hosts");
	assert_string_equal(c->global_known_hosts_files[1],
	    "/etc/ssh/ssh_known_hosts2");
	assert_int_equal(c->strict, SSHCONFIG_STRICT_ASK);
	assert_int_equal(c->identities_only, 0);
	assert_int_equal(c->hash_known_hosts, 0);
	assert_int_equal(c->connect_timeout, 0);
	assert_int_equal(c->server_alive_interval, SSHCONFIG_ALIVE_DEFAULT);
	assert_int_equal(c->server_alive_count_max, 3);
	sshconfig_free(c);
}

/* Case-insensitive keywords, '=', quotes, escapes and comments. */
static void
test_syntax(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;

	write_file(fx->dir, "config",
	    "# a comment with an unbalanced \" quote\n"
	    "   \n"
	    "\n"
	    "pOrT=2222\n"
	    "USER = \"john smith\"   # trailing comment\n"
	    "  IdentityFile \"~/.ssh/my key\"\n"
	    "IdentityFile ~/.ssh/a\\ b\n"
	    "ConnectTimeout\t=\t7\r\n"
	    "identitiesonly yes\n"
	    "HashKnownHosts=true\n"
	    "UserKnownHostsFile \"~/.ssh/kh one\" ~/.ssh/kh2\n"
	    "GlobalKnownHostsFile /etc/g1\n"
	    "ServerAliveInterval 1m30s\n"
	    "ServerAliveCountMax 0\n"
	    "ForwardAgent yes\n"
	    "NoSuchKeyword whatever you like\n"
	    "HostName=h#x\n");
	c = resolve_ok(fx->dir, "host", NULL, 0);
	assert_int_equal(c->port, 2222);
	assert_string_equal(c->user, "john smith");
	assert_string_equal(c->hostname, "h#x");
	assert_int_equal(c->n_identity_files, 2);
	assert_string_equal(c->identity_files[0], in_dir(fx->dir,
	    ".ssh/my key"));
	assert_string_equal(c->identity_files[1], in_dir(fx->dir,
	    ".ssh/a b"));
	assert_int_equal(c->connect_timeout, 7);
	assert_int_equal(c->identities_only, 1);
	assert_int_equal(c->hash_known_hosts, 1);
	assert_int_equal(c->n_known_hosts_files, 2);
	assert_string_equal(c->known_hosts_files[0], in_dir(fx->dir,
	    ".ssh/kh one"));
	assert_string_equal(c->known_hosts_files[1], in_dir(fx->dir,
	    ".ssh/kh2"));
	assert_int_equal(c->n_global_known_hosts_files, 1);
	assert_string_equal(c->global_known_hosts_files[0], "/etc/g1");
	assert_int_equal(c->server_alive_interval, 90);
	assert_int_equal(c->server_alive_count_max, 0);
	sshconfig_free(c);
}

/* A line longer than any fixed buffer is read whole. */
static void
test_long_line(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;
	char			*text, *name;
	size_t			 n = 10000;

	assert_non_null(name = malloc(n + 1));
	memset(name, 'k', n);
	name[n] = '\0';
	assert_non_null(text = malloc(n + 64));
	snprintf(text, n + 64, "IdentityFile /x/%s\nPort 2345\n", name);
	write_file(fx->dir, "config", text);
	c = resolve_ok(fx->dir, "host", NULL, 0);
	assert_int_equal(c->n_identity_files, 1);
	assert_int_equal(strlen(c->identity_files[0]), n + 3);
	assert_string_equal(c->identity_files[0] + 3, name);
	assert_int_equal(c->port, 2345);
	sshconfig_free(c);
	free(text);
	free(name);
}

/* StrictHostKeyChecking takes the values ssh takes, any case. */
static void
test_strict_values(void **state)
{
	static const struct {
		const char	*text;
		int		 want;
	} cases[] = {
		{ "yes", SSHCONFIG_STRICT_YES },
		{ "true", SSHCONFIG_STRICT_YES },
		{ "no", SSHCONFIG_STRICT_NO },
		{ "off", SSHCONFIG_STRICT_NO },
		{ "False", SSHCONFIG_STRICT_NO },
		{ "ask", SSHCONFIG_STRICT_ASK },
		{ "accept-new", SSHCONFIG_STRICT_ACCEPT_NEW },
		{ "Accept-New", SSHCONFIG_STRICT_ACCEPT_NEW },
	};
	struct fixture		*fx = *state;
	struct sshconfig	*c;
	char			 text[128];
	size_t			 i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(text, sizeof text, "StrictHostKeyChecking %s\n",
		    cases[i].text);
		write_file(fx->dir, "config", text);
		c = resolve_ok(fx->dir, "host", NULL, 0);
		assert_int_equal(c->strict, cases[i].want);
		sshconfig_free(c);
	}
}

/* Include: globs in sorted order, relative to ~/.ssh, absolute paths. */
static void
test_include_glob(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;
	char			 text[1024];

	make_dir(fx->dir, ".ssh/conf.d");
	write_file(fx->dir, ".ssh/conf.d/10-a.conf",
	    "Host a\n\tPort 1001\nHost *\n\tUser fromconf\n");
	write_file(fx->dir, ".ssh/conf.d/20-b.conf",
	    "Host b\n\tPort 1002\n");
	write_file(fx->dir, ".ssh/conf.d/other.txt", "Port 9999\n");
	write_file(fx->dir, "abs.conf", "IdentityFile ~/.ssh/abs\n");
	snprintf(text, sizeof text,
	    "Include conf.d/*.conf\n"
	    "HashKnownHosts yes\n"
	    "Include %s/abs.conf nothing/*.conf\n"
	    "Host *\n\tPort 2000\n", fx->dir);
	write_file(fx->dir, "config", text);
	c = resolve_ok(fx->dir, "a", NULL, 0);
	assert_int_equal(c->port, 1001);
	assert_string_equal(c->user, "fromconf");
	assert_int_equal(c->hash_known_hosts, 1);
	assert_int_equal(c->n_identity_files, 1);
	assert_string_equal(c->identity_files[0], in_dir(fx->dir,
	    ".ssh/abs"));
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "b", NULL, 0);
	assert_int_equal(c->port, 1002);
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "z", NULL, 0);
	assert_int_equal(c->port, 2000);
	sshconfig_free(c);
}

/* Include inside a Host block is read only when the block matches. */
static void
test_include_in_host(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c = NULL;
	char			*cause = NULL, *want;

	write_file(fx->dir, "bad.conf", "\n\nPort abc\n");
	write_file(fx->dir, "config",
	    "Host special\n\tInclude ~/bad.conf\nHost *\n\tPort 2000\n");
	c = resolve_ok(fx->dir, "plain", NULL, 0);
	assert_int_equal(c->port, 2000);
	sshconfig_free(c);
	c = NULL;
	assert_int_equal(resolve(fx->dir, "special", NULL, 0, &c, &cause),
	    CLAW_ERR_PARSE);
	assert_null(c);
	want = NULL;
	assert_true(asprintf(&want, "%s/bad.conf line 3: ", fx->dir) > 0);
	assert_non_null(cause);
	assert_memory_equal(cause, want, strlen(want));
	free(want);
	free(cause);
}

/* A file that includes itself stops at the nesting limit. */
static void
test_include_depth(void **state)
{
	struct fixture	*fx = *state;
	char		 text[256];

	snprintf(text, sizeof text, "Port 2000\nInclude %s/config\n",
	    fx->dir);
	expect_error(fx->dir, text, CLAW_ERR_PARSE, 2, "Include");
}

/* Write a chain config -> inc1 -> ... -> incN, the last setting Port. */
static void
write_chain(const char *dir, int n)
{
	char	name[64], text[PATH_MAX + 32];
	int	i;

	for (i = 0; i <= n; i++) {
		if (i == n)
			snprintf(text, sizeof text, "Port 2345\n");
		else
			snprintf(text, sizeof text, "Include inc%d\n", i + 1);
		if (i == 0)
			snprintf(name, sizeof name, "config");
		else
			snprintf(name, sizeof name, ".ssh/inc%d", i);
		write_file(dir, name, text);
	}
}

/* Includes nest 16 levels deep and no deeper. */
static void
test_include_limit(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c = NULL;
	char			*cause = NULL;

	write_chain(fx->dir, 16);
	c = resolve_ok(fx->dir, "h", NULL, 0);
	assert_int_equal(c->port, 2345);
	sshconfig_free(c);
	c = NULL;
	write_chain(fx->dir, 17);
	assert_int_equal(resolve(fx->dir, "h", NULL, 0, &c, &cause),
	    CLAW_ERR_PARSE);
	assert_null(c);
	assert_non_null(cause);
	assert_non_null(strstr(cause, "/.ssh/inc16 line 1: "));
	free(cause);
}

/* Match all, host (after HostName), originalhost, user, localuser. */
static void
test_match(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;

	write_file(fx->dir, "config",
	    "Match originalhost alias\n\tHostName real.example.com\n"
	    "Match host REAL.example.com\n\tPort 2001\n"
	    "Match host *.example.com user deploy,root\n"
	    "\tConnectTimeout 11\n"
	    "Match !user deploy localuser alice\n\tServerAliveInterval 12\n"
	    "Match exec \"true\"\n\tServerAliveCountMax 99\n"
	    "Match canonical\n\tHashKnownHosts yes\n"
	    "Match all\n\tIdentitiesOnly yes\n");
	c = resolve_ok(fx->dir, "alias", "deploy", 0);
	assert_string_equal(c->hostname, "real.example.com");
	assert_int_equal(c->port, 2001);
	assert_int_equal(c->connect_timeout, 11);
	assert_int_equal(c->server_alive_interval, SSHCONFIG_ALIVE_DEFAULT);
	assert_int_equal(c->server_alive_count_max, 3);
	assert_int_equal(c->hash_known_hosts, 0);
	assert_int_equal(c->identities_only, 1);
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "other", NULL, 0);
	assert_string_equal(c->hostname, "other");
	assert_int_equal(c->port, 22);
	assert_int_equal(c->connect_timeout, 0);
	assert_int_equal(c->server_alive_interval, 12);
	assert_int_equal(c->identities_only, 1);
	sshconfig_free(c);
}

/* Match user sees the User obtained so far when none was typed. */
static void
test_match_user_from_config(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;

	write_file(fx->dir, "config",
	    "Host h\n\tUser svc\nMatch user svc\n\tPort 2100\n");
	c = resolve_ok(fx->dir, "h", NULL, 0);
	assert_string_equal(c->user, "svc");
	assert_int_equal(c->port, 2100);
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "h", "typed", 0);
	assert_string_equal(c->user, "typed");
	assert_int_equal(c->port, 22);
	sshconfig_free(c);
}

/* Tokens use the final host name, port and user; HostName takes %h. */
static void
test_tokens(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;
	char			 lhost[256], want[PATH_MAX + 300];

	write_file(fx->dir, "config",
	    "Host alias\n"
	    "\tHostName %h.example.com\n\tUser bob\n\tPort 2022\n"
	    "\tIdentityFile %d/.ssh/%h_%p_%r\n"
	    "\tIdentityFile ~/.ssh/%n-%u-%%\n"
	    "\tIdentityFile ~/%l\n"
	    "\tIdentityFile ~/%L-%i\n"
	    "\tUserKnownHostsFile ~/.ssh/kh_%h %d/kh2\n"
	    "\tGlobalKnownHostsFile /etc/kh_%n\n");
	c = resolve_ok(fx->dir, "alias", NULL, 0);
	assert_string_equal(c->hostname, "alias.example.com");
	assert_int_equal(c->n_identity_files, 4);
	assert_string_equal(c->identity_files[0], in_dir(fx->dir,
	    ".ssh/alias.example.com_2022_bob"));
	assert_string_equal(c->identity_files[1], in_dir(fx->dir,
	    ".ssh/alias-alice-%"));
	assert_int_equal(gethostname(lhost, sizeof lhost), 0);
	lhost[sizeof lhost - 1] = '\0';
	snprintf(want, sizeof want, "%s/%s", fx->dir, lhost);
	assert_string_equal(c->identity_files[2], want);
	lhost[strcspn(lhost, ".")] = '\0';
	snprintf(want, sizeof want, "%s/%s-%lu", fx->dir, lhost,
	    (unsigned long)getuid());
	assert_string_equal(c->identity_files[3], want);
	assert_int_equal(c->n_known_hosts_files, 2);
	assert_string_equal(c->known_hosts_files[0], in_dir(fx->dir,
	    ".ssh/kh_alias.example.com"));
	assert_string_equal(c->known_hosts_files[1], in_dir(fx->dir,
	    "kh2"));
	assert_string_equal(c->global_known_hosts_files[0], "/etc/kh_alias");
	sshconfig_free(c);
	c = resolve_ok(fx->dir, "alias", "carol", 3000);
	assert_string_equal(c->identity_files[0], in_dir(fx->dir,
	    ".ssh/alias.example.com_3000_carol"));
	sshconfig_free(c);
}

/* An unknown %-token in a path is an error naming its line. */
static void
test_token_unknown(void **state)
{
	struct fixture	*fx = *state;

	expect_error(fx->dir, "Host *\n\tIdentityFile ~/.ssh/%z\n",
	    CLAW_ERR_PARSE, 2, "%z");
	expect_error(fx->dir, "UserKnownHostsFile /x/%\n", CLAW_ERR_PARSE,
	    1, "'%'");
}

/* HostName accepts only %h and %%. */
static void
test_token_hostname(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;

	write_file(fx->dir, "config", "HostName %h-100%%.lan\n");
	c = resolve_ok(fx->dir, "box", NULL, 0);
	assert_string_equal(c->hostname, "box-100%.lan");
	sshconfig_free(c);
	expect_error(fx->dir, "\nHostName %p.example.com\n", CLAW_ERR_PARSE,
	    2, "%p");
}

/* "none" empties the identity and known hosts lists. */
static void
test_none(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig	*c;

	write_file(fx->dir, "config",
	    "IdentityFile none\nUserKnownHostsFile none\n");
	c = resolve_ok(fx->dir, "host", NULL, 0);
	assert_int_equal(c->identity_files_set, 1);
	assert_int_equal(c->n_identity_files, 0);
	assert_int_equal(c->n_known_hosts_files, 0);
	assert_int_equal(c->n_global_known_hosts_files, 2);
	sshconfig_free(c);
}

/* An unterminated quote is an error naming the line. */
static void
test_err_quote(void **state)
{
	struct fixture	*fx = *state;

	expect_error(fx->dir, "Host *\n\tUser \"bob\n", CLAW_ERR_PARSE, 2,
	    "unterminated quote");
}

/* A supported keyword without its argument is an error. */
static void
test_err_missing_argument(void **state)
{
	struct fixture	*fx = *state;

	expect_error(fx->dir, "Port\n", CLAW_ERR_PARSE, 1,
	    "missing argument to Port");
	expect_error(fx->dir, "# x\nUser =\n", CLAW_ERR_PARSE, 2,
	    "missing argument to User");
	expect_error(fx->dir, "IdentityFile \"\"\n", CLAW_ERR_PARSE, 1,
	    "missing argument");
	expect_error(fx->dir, "Host\n", CLAW_ERR_PARSE, 1,
	    "missing argument to Host");
	expect_error(fx->dir, "Match\n", CLAW_ERR_PARSE, 1,
	    "missing argument to Match");
	expect_error(fx->dir, "Match host\n", CLAW_ERR_PARSE, 1,
	    "missing argument to Match host");
	expect_error(fx->dir, "Include\n", CLAW_ERR_PARSE, 1,
	    "missing argument to Include");
}

/* A single-valued keyword with two arguments is an error. */
static void
test_err_extra_argument(void **state)
{
	struct fixture	*fx = *state;

	expect_error(fx->dir, "Port 22 23\n", CLAW_ERR_PARSE, 1,
	    "takes one argument");
}

/* Ports must be numbers from 1 to 65535. */
static void
test_err_port(void **state)
{
	struct fixture	*fx = *state;

	expect_error(fx->dir, "Host *\n\n\tPort abc\n", CLAW_ERR_PARSE, 3,
	    "bad port number \"abc\"");
	expect_error(fx->dir, "Port 70000\n", CLAW_ERR_PARSE, 1,
	    "bad port number");
	expect_error(fx->dir, "Port 0\n", CLAW_ERR_PARSE, 1,
	    "bad port number");
	expect_error(fx->dir, "Port -22\n", CLAW_ERR_PARSE, 1,
	    "bad port number");
}

/* Times and counts must be non-negative numbers. */
static void
test_err_numbers(void **state)
{
	struct fixture	*fx = *state;

	expect_error(fx->dir, "ConnectTimeout -5\n", CLAW_ERR_PARSE, 1,
	    "bad time value");
	expect_error(fx->dir, "\nServerAliveInterval -1\n", CLAW_ERR_PARSE,
	    2, "bad time value");
	expect_error(fx->dir, "ConnectTimeout 5x\n", CLAW_ERR_PARSE, 1,
	    "bad time value");
	expect_error(fx->dir, "ServerAliveCountMax many\n", CLAW_ERR_PARSE,
	    1, "bad number");
	expect_error(fx->dir, "IdentitiesOnly maybe\n", CLAW_ERR_PARSE, 1,
	    "maybe");
}

/* StrictHostKeyChecking with a value ssh does not know is an error. */
static void
test_err_strict(void **state)
{
	struct fixture	*fx = *state;

	expect_error(fx->dir, "Host *\n  StrictHostKeyChecking sometimes\n",
	    CLAW_ERR_PARSE, 2, "StrictHostKeyChecking");
}

/* Bad values are errors even in a block that does not apply. */
static void
test_err_inactive_block(void **state)
{
	struct fixture	*fx = *state;

	expect_error(fx->dir, "Host elsewhere\n\tPort abc\n", CLAW_ERR_PARSE,
	    2, "bad port number");
}

/* Match all with other criteria is an error, as in ssh. */
static void
test_err_match_all(void **state)
{
	struct fixture	*fx = *state;

	expect_error(fx->dir, "Match all host x\n", CLAW_ERR_PARSE, 1,
	    "'all'");
}

/* A missing file is fine only when optional; NULL means no file. */
static void
test_missing_file(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig_query	 q = { .host = "host", .local_user = "alice",
	    .home = fx->dir };
	struct sshconfig	*c = NULL;
	char			*cause = NULL;
	const char		*path = in_dir(fx->dir, "nonexistent");

	assert_int_equal(sshconfig_resolve(path, SSHCONFIG_OPTIONAL, &q, &c,
	    &cause), 0);
	assert_non_null(c);
	assert_int_equal(c->port, 22);
	sshconfig_free(c);
	c = NULL;
	assert_int_equal(sshconfig_resolve(path, 0, &q, &c, &cause),
	    CLAW_ERR_NOTFOUND);
	assert_null(c);
	assert_non_null(cause);
	assert_non_null(strstr(cause, path));
	free(cause);
	cause = NULL;
	assert_int_equal(sshconfig_resolve(NULL, 0, &q, &c, &cause), 0);
	assert_non_null(c);
	sshconfig_free(c);
}

/* A path that cannot be read as a file is an error naming it. */
static void
test_unreadable_file(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig_query	 q = { .host = "host", .local_user = "alice",
	    .home = fx->dir };
	struct sshconfig	*c = NULL;
	char			*cause = NULL;
	int			 r;

	r = sshconfig_resolve(fx->dir, SSHCONFIG_OPTIONAL, &q, &c, &cause);
	assert_true(r < 0);
	assert_null(c);
	assert_non_null(cause);
	assert_non_null(strstr(cause, fx->dir));
	free(cause);
}

/*
 * What a config (or a provider's ssh-config answer) names can be hostile:
 * a device that never ends, a FIFO nobody writes, too many bytes or
 * files are errors, never a hang or memory without end; /dev/null is
 * still no config; SSHCONFIG_NO_INCLUDE refuses Include.
 */
static void
test_hostile_files(void **state)
{
	struct fixture		*fx = *state;
	struct sshconfig_query	 q = { .host = "h", .local_user = "alice",
	    .home = fx->dir };
	struct sshconfig	*c = NULL;
	char			*cause = NULL, path[PATH_MAX], *text;
	size_t			 i;
	static const char *const bad[] = { "/dev/zero", "/dev/urandom",
	    "fifo", "." };

	snprintf(path, sizeof path, "%s/fifo", fx->dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		text = malloc(PATH_MAX + 32);
		snprintf(text, PATH_MAX + 32, "Host h\n\tInclude %s%s%s\n",
		    bad[i][0] == '/' ? "" : fx->dir, bad[i][0] == '/' ? "" :
		    "/", bad[i]);
		write_file(fx->dir, "config", text);
		free(text);
		cause = NULL;
		assert_int_equal(resolve(fx->dir, "h", NULL, 0, &c, &cause),
		    CLAW_ERR_PARSE);
		assert_null(c);
		assert_non_null(strstr(cause, "not a regular file"));
		free(cause);
	}

	c = NULL;
	assert_int_equal(sshconfig_resolve("/dev/null", 0, &q, &c, &cause),
	    0);
	assert_string_equal(c->hostname, "h");
	sshconfig_free(c);

	/* Over the byte cap: a file, then the files of Includes together. */
	text = malloc(SSHCONFIG_FILE_MAX + 2);
	memset(text, '#', SSHCONFIG_FILE_MAX + 1);
	text[SSHCONFIG_FILE_MAX + 1] = '\0';
	write_file(fx->dir, "config", text);
	c = NULL;
	cause = NULL;
	assert_int_equal(resolve(fx->dir, "h", NULL, 0, &c, &cause),
	    CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "bytes of ssh config"));
	free(cause);
	memset(text, '#', SSHCONFIG_FILE_MAX / 2);
	text[SSHCONFIG_FILE_MAX / 2] = '\n';
	text[SSHCONFIG_FILE_MAX / 2 + 1] = '\0';
	write_file(fx->dir, ".ssh/half", text);
	free(text);
	write_file(fx->dir, "config", "Include half half half\n");
	cause = NULL;
	assert_int_equal(resolve(fx->dir, "h", NULL, 0, &c, &cause),
	    CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "bytes of ssh config"));
	free(cause);

	/* Over the files cap: one small file included 300 times. */
	write_file(fx->dir, ".ssh/small", "Port 2345\n");
	text = calloc(1, 300 * 7 + 16);
	strcpy(text, "Include");
	for (i = 0; i < 300; i++)
		strcat(text, " small");
	strcat(text, "\n");
	write_file(fx->dir, "config", text);
	free(text);
	cause = NULL;
	assert_int_equal(resolve(fx->dir, "h", NULL, 0, &c, &cause),
	    CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "ssh config files"));
	free(cause);

	/* No Include at all where the caller says so. */
	write_file(fx->dir, "config", "Host h\n\tInclude small\n");
	snprintf(path, sizeof path, "%s/config", fx->dir);
	cause = NULL;
	assert_int_equal(sshconfig_resolve(path, SSHCONFIG_NO_INCLUDE, &q,
	    &c, &cause), CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "line 2: Include is not allowed"));
	free(cause);
}

/* Freeing NULL does nothing. */
static void
test_free_null(void **state)
{
	(void)state;
	sshconfig_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_host_patterns),
		T(test_host_negation_only),
		T(test_host_matches_alias),
		T(test_global_lines),
		T(test_first_value_wins),
		T(test_identity_accumulates),
		T(test_known_hosts_first_line),
		T(test_defaults),
		T(test_syntax),
		T(test_long_line),
		T(test_strict_values),
		T(test_include_glob),
		T(test_include_in_host),
		T(test_include_depth),
		T(test_include_limit),
		T(test_match),
		T(test_match_user_from_config),
		T(test_tokens),
		T(test_token_unknown),
		T(test_token_hostname),
		T(test_none),
		T(test_err_quote),
		T(test_err_missing_argument),
		T(test_err_extra_argument),
		T(test_err_port),
		T(test_err_numbers),
		T(test_err_strict),
		T(test_err_inactive_block),
		T(test_err_match_all),
		T(test_missing_file),
		T(test_unreadable_file),
		T(test_hostile_files),
		cmocka_unit_test(test_free_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
