/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the host-directory backend's shared container clean-up
 * (clawctrs, src/host/hostdir_containers_rm.sh as
 * HOSTDIR_SCRIPT_CONTAINERS_RM), run by dash, busybox sh and sh against a
 * fake podman that records its arguments and filters labels as podman
 * does (an empty value matches every labelled container).
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

#include <cmocka.h>

#include "hostdir_scripts.h"

static char	dir[64];

/* The fake podman: "ps" lists containers by label, "rm" records. */
static const char fake[] =
    "#!/bin/sh\n"
    "d=${0%/*}\n"
    "echo \"$*\" >> \"$d/calls\"\n"
    "case $1 in ps) v=\n"
    "  for a; do case $a in label=clawssh.sandbox=*)"
    " v=${a#label=clawssh.sandbox=} ;; esac; done\n"
    "  while read -r c s; do [ -z \"$v\" ] || [ \"$v\" = \"$s\" ] &&"
    " echo \"$c\"; done < \"$d/containers\" ;;\n"
    "esac\n"
    "exit 0\n";

/* Write text to dir/name. */
static void
put(const char *name, const char *text)
{
	char	 path[128];
	FILE	*f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* Read dir/name (static storage; "" if missing). */
static const char *
get(const char *name)
{
	static char	 text[4096];
	char		 path[128];
	size_t		 n = 0;
	FILE		*f;

	snprintf(path, sizeof path, "%s/%s", dir, name);
	text[0] = '\0';
	if ((f = fopen(path, "r")) != NULL) {
		n = fread(text, 1, sizeof text - 1, f);
		fclose(f);
	}
	text[n] = '\0';
	return text;
}

/* Run "clawctrs ARG" under shell; its exit status. */
static int
run(const char *shell, const char *arg)
{
	char	*cmd;
	int	 st;

	put("calls", "");
	put("run.sh", HOSTDIR_SCRIPT_CONTAINERS_RM "clawctrs \"$1\"\n");
	assert_true(asprintf(&cmd, "PATH='%s':/usr/bin:/bin %s '%s/run.sh'"
	    " '%s' 2>/dev/null", dir, shell, dir, arg) > 0);
	st = system(cmd);
	free(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
setup(void **state)
{
	char	path[128];

	(void)state;
	strcpy(dir, "/tmp/clawssh-ut.XXXXXX");
	if (mkdtemp(dir) == NULL)
		return -1;
	put("podman", fake);
	snprintf(path, sizeof path, "%s/podman", dir);
	return chmod(path, 0755);
}

static int
teardown(void **state)
{
	char	*cmd;

	(void)state;
	if (asprintf(&cmd, "rm -rf '%s'", dir) > 0) {
		(void)system(cmd);
		free(cmd);
	}
	return 0;
}

/* Each shell that is installed. */
static const char *const shells[] = {
	"sh", "dash", "busybox sh", NULL
};

/* Whether shell can be run here. */
static int
have(const char *shell)
{
	char	*cmd;
	int	 st;

	assert_true(asprintf(&cmd, "%s -c : 2>/dev/null", shell) > 0);
	st = system(cmd);
	free(cmd);
	return st == 0;
}

/* An empty id, or anything not a sandbox id, asks no engine anything. */
static void
test_refuses_non_ids(void **state)
{
	static const char *const bad[] = {
		"", "c", "c*", "cabcdefghijk", "cabcdefghijklm",
		"Cabcdefghijkl", "cabcdefghij1", "cabcdefgh ijk", "-c", NULL
	};
	size_t	i, k;

	(void)state;
	for (k = 0; shells[k] != NULL; k++) {
		if (!have(shells[k]))
			continue;
		for (i = 0; bad[i] != NULL; i++) {
			put("containers", "aaaa1111 cabcdefghijkl\n"
			    "bbbb2222 czzzzzzzzzzzz\n");
			assert_int_equal(run(shells[k], bad[i]), 3);
			assert_string_equal(get("calls"), "");
		}
	}
}

/* A sandbox id removes its own containers only. */
static void
test_removes_its_own(void **state)
{
	size_t	k;

	(void)state;
	for (k = 0; shells[k] != NULL; k++) {
		if (!have(shells[k]))
			continue;
		put("containers", "aaaa1111 cabcdefghijkl\n"
		    "bbbb2222 cz2345672zzzz\n");
		assert_int_equal(run(shells[k], "cabcdefghijkl"), 0);
		assert_string_equal(get("calls"),
		    "ps -aq --filter label=clawssh.sandbox=cabcdefghijkl\n"
		    "rm -f aaaa1111\n");
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refuses_non_ids),
		cmocka_unit_test(test_removes_its_own),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
