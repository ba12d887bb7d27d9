/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the "sandbox" section of the clawssh config file: every
 * field read back, and every bad value refused with the key path named.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compat.h"
#include "clawconfig.h"
#include "error.h"
#include "sandbox.h"
#include "xmalloc.h"

/* Per-test state: a private directory holding one config file. */
struct fixture {
	char	dir[64];
	char	path[96];
};

/* Make the test's directory; the config file is written per load. */
static int
setup(void **state)
{
	struct fixture	*f;

	f = xcalloc(1, sizeof(*f));
	strlcpy(f->dir, "/tmp/test_config_sandbox.XXXXXX", sizeof(f->dir));
	if (mkdtemp(f->dir) == NULL) {
		free(f);
		return -1;
	}
	snprintf(f->path, sizeof(f->path), "%s/config.json", f->dir);
	*state = f;
	return 0;
}

/* Remove the config file and the directory. */
static int
teardown(void **state)
{
	struct fixture	*f = *state;
	int		 r = 0;

	if (unlink(f->path) == -1 && errno != ENOENT)
		r = -1;
	if (rmdir(f->dir) == -1)
		r = -1;
	free(f);
	return r;
}

/* Write text as the config file and load it with a home that is unused. */
static int
load_text(const struct fixture *f, const char *text,
    struct claw_config **cfg, char **cause)
{
	FILE	*fp;

	fp = fopen(f->path, "w");
	assert_non_null(fp);
	assert_true(fputs(text, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
	return config_load(f->path, "/nonexistent", cfg, cause);
}

/* Load {"sandbox": {MEMBERS}}, expecting success. */
static struct claw_config *
load_sandbox(const struct fixture *f, const char *members)
{
	struct claw_config	*cfg = NULL;
	char			*text, *cause = NULL;
	int			 r;

	text = xasprintf("{\"sandbox\": {%s}}", members);
	if ((r = load_text(f, text, &cfg, &cause)) != 0)
		print_error("unexpected error: %s\n", cause);
	assert_int_equal(r, 0);
	assert_null(cause);
	assert_non_null(cfg);
	free(text);
	return cfg;
}

/* Load text, expecting CLAW_ERR_PARSE with "PATH: " + msg. */
static void
expect_text_error(const struct fixture *f, const char *text,
    const char *msg)
{
	struct claw_config	*cfg = (struct claw_config *)(uintptr_t)0x1;
	char			*cause = NULL, *expect;

	assert_int_equal(load_text(f, text, &cfg, &cause), CLAW_ERR_PARSE);
	assert_ptr_equal(cfg, (struct claw_config *)(uintptr_t)0x1);
	assert_non_null(cause);
	expect = xasprintf("%s: %s", f->path, msg);
	assert_string_equal(cause, expect);
	free(expect);
	free(cause);
}

/* Load {"sandbox": {MEMBERS}}, expecting the error "PATH: " + msg. */
static void
expect_sandbox_error(const struct fixture *f, const char *members,
    const char *msg)
{
	char	*text;

	text = xasprintf("{\"sandbox\": {%s}}", members);
	expect_text_error(f, text, msg);
	free(text);
}

/* The documented example section reads back field by field. */
static void
test_sandbox_full(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;

	cfg = load_sandbox(f,
	    "\"remoteRoot\": \"/tmp/clawssh-sandboxes\", // remote path\n"
	    "\"scope\": \"session\", \"mode\": \"mirror\", \"access\": \"rw\","
	    "\"image\": \"host\", \"strictConfig\": false,"
	    "\"prune\": { \"idleHours\": 24, \"maxAgeDays\": 7 }");
	assert_string_equal(cfg->remote_root, "/tmp/clawssh-sandboxes");
	assert_int_equal(cfg->sandbox_scope, SANDBOX_SCOPE_SESSION);
	assert_int_equal(cfg->sandbox_mode, SANDBOX_MODE_MIRROR);
	assert_int_equal(cfg->sandbox_access, SANDBOX_ACCESS_RW);
	assert_string_equal(cfg->sandbox_image, "host");
	assert_int_equal(cfg->strict_config, 0);
	assert_int_equal(cfg->prune_idle_hours, 24);
	assert_int_equal(cfg->prune_max_age_days, 7);
	config_free(cfg);

	cfg = load_sandbox(f, "\"scope\": \"shared\", \"mode\": \"remote\","
	    "\"access\": \"none\", \"image\": \"ubuntu-22.04\","
	    "\"strictConfig\": true, \"remoteRoot\": \"/srv/a+b@c/x_y.z\"");
	assert_string_equal(cfg->remote_root, "/srv/a+b@c/x_y.z");
	assert_int_equal(cfg->sandbox_scope, SANDBOX_SCOPE_SHARED);
	assert_int_equal(cfg->sandbox_mode, SANDBOX_MODE_REMOTE);
	assert_int_equal(cfg->sandbox_access, SANDBOX_ACCESS_NONE);
	assert_string_equal(cfg->sandbox_image, "ubuntu-22.04");
	assert_int_equal(cfg->strict_config, 1);
	assert_int_equal(cfg->prune_idle_hours, -1);
	assert_int_equal(cfg->prune_max_age_days, -1);
	config_free(cfg);
}

/* Assert that cfg sets none of the sandbox fields. */
static void
assert_sandbox_unset(const struct claw_config *cfg)
{
	assert_null(cfg->remote_root);
	assert_int_equal(cfg->sandbox_scope, -1);
	assert_int_equal(cfg->sandbox_mode, -1);
	assert_int_equal(cfg->sandbox_access, -1);
	assert_null(cfg->sandbox_image);
	assert_int_equal(cfg->strict_config, 0);
	assert_int_equal(cfg->prune_idle_hours, -1);
	assert_int_equal(cfg->prune_max_age_days, -1);
}

/* No file, no section, an empty section or empty prune: all unset. */
static void
test_sandbox_unset(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg = NULL;
	char			*cause = NULL;

	unsetenv("XDG_CONFIG_HOME");
	assert_int_equal(config_load(NULL, NULL, &cfg, &cause), 0);
	assert_null(cfg->path);
	assert_sandbox_unset(cfg);
	config_free(cfg);
	cfg = NULL;
	assert_int_equal(load_text(f, "{\"log\": {}}", &cfg, &cause), 0);
	assert_sandbox_unset(cfg);
	config_free(cfg);
	cfg = load_sandbox(f, "");
	assert_sandbox_unset(cfg);
	config_free(cfg);
	cfg = load_sandbox(f, "\"prune\": {}");
	assert_sandbox_unset(cfg);
	config_free(cfg);
}

/* remoteRoot is a remote path: never expanded, checked strictly. */
static void
test_sandbox_remote_root(void **state)
{
	struct fixture	*f = *state;

	expect_sandbox_error(f, "\"remoteRoot\": \"~/sandboxes\"",
	    "sandbox.remoteRoot: invalid remote root '~/sandboxes': not an "
	    "absolute path");
	expect_sandbox_error(f, "\"remoteRoot\": \"rel\"",
	    "sandbox.remoteRoot: invalid remote root 'rel': not an absolute "
	    "path");
	expect_sandbox_error(f, "\"remoteRoot\": \"\"",
	    "sandbox.remoteRoot: invalid remote root '': not an absolute "
	    "path");
	expect_sandbox_error(f, "\"remoteRoot\": \"/\"",
	    "sandbox.remoteRoot: invalid remote root '/': '/' itself is not "
	    "allowed");
	expect_sandbox_error(f, "\"remoteRoot\": \"/a/../b\"",
	    "sandbox.remoteRoot: invalid remote root '/a/../b': '.' and '..' "
	    "components are not allowed");
	expect_sandbox_error(f, "\"remoteRoot\": \"/a/b/\"",
	    "sandbox.remoteRoot: invalid remote root '/a/b/': empty component "
	    "('//' or a trailing '/')");
	expect_sandbox_error(f, "\"remoteRoot\": \"/a b\"",
	    "sandbox.remoteRoot: invalid remote root '/a b': only A-Z, a-z, "
	    "0-9 and '._/+-@' are allowed");
	expect_sandbox_error(f, "\"remoteRoot\": 5",
	    "sandbox.remoteRoot: expected a string");
	expect_sandbox_error(f, "\"remoteRoot\": null",
	    "sandbox.remoteRoot: expected a string");
}

/* remoteRoot may be 1024 bytes long but not 1025. */
static void
test_sandbox_remote_root_length(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;
	char			 root[SANDBOX_ROOT_MAX + 2];
	char			*members, *msg;

	memset(root, 'r', sizeof(root));
	root[0] = '/';
	root[SANDBOX_ROOT_MAX] = '\0';
	members = xasprintf("\"remoteRoot\": \"%s\"", root);
	cfg = load_sandbox(f, members);
	assert_string_equal(cfg->remote_root, root);
	config_free(cfg);
	free(members);

	root[SANDBOX_ROOT_MAX] = 'r';
	root[SANDBOX_ROOT_MAX + 1] = '\0';
	members = xasprintf("\"remoteRoot\": \"%s\"", root);
	root[64] = '\0';
	msg = xasprintf("sandbox.remoteRoot: invalid remote root '%s...': "
	    "longer than 1024 bytes", root);
	expect_sandbox_error(f, members, msg);
	free(msg);
	free(members);
}

/* Every scope, mode and access name maps to its enum value. */
static void
test_sandbox_enum_values(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;

	cfg = load_sandbox(f, "\"scope\": \"agent\", \"mode\": \"mirror\","
	    "\"access\": \"ro\"");
	assert_int_equal(cfg->sandbox_scope, SANDBOX_SCOPE_AGENT);
	assert_int_equal(cfg->sandbox_mode, SANDBOX_MODE_MIRROR);
	assert_int_equal(cfg->sandbox_access, SANDBOX_ACCESS_RO);
	config_free(cfg);
	cfg = load_sandbox(f, "\"scope\": \"session\", \"access\": \"rw\"");
	assert_int_equal(cfg->sandbox_scope, SANDBOX_SCOPE_SESSION);
	assert_int_equal(cfg->sandbox_mode, -1);
	assert_int_equal(cfg->sandbox_access, SANDBOX_ACCESS_RW);
	config_free(cfg);
}

/* Other names, and values that are not strings, are refused. */
static void
test_sandbox_enum_bad(void **state)
{
	const char	*scope = "sandbox.scope: expected \"session\", "
	    "\"agent\" or \"shared\"";
	const char	*mode = "sandbox.mode: expected \"mirror\" or "
	    "\"remote\"";
	const char	*access = "sandbox.access: expected \"rw\", \"ro\" or "
	    "\"none\"";
	struct fixture	*f = *state;

	expect_sandbox_error(f, "\"scope\": \"Session\"", scope);
	expect_sandbox_error(f, "\"scope\": \"\"", scope);
	expect_sandbox_error(f, "\"scope\": 0", scope);
	expect_sandbox_error(f, "\"scope\": null", scope);
	expect_sandbox_error(f, "\"scope\": \"mirror\"", scope);
	expect_sandbox_error(f, "\"scope\": \"rw\"", scope);
	expect_sandbox_error(f, "\"mode\": \"rw\"", mode);
	expect_sandbox_error(f, "\"access\": \"remote\"", access);
	expect_sandbox_error(f, "\"mode\": \"sync\"", mode);
	expect_sandbox_error(f, "\"mode\": [\"mirror\"]", mode);
	expect_sandbox_error(f, "\"access\": \"RW\"", access);
	expect_sandbox_error(f, "\"access\": \"unknown\"", access);
	expect_sandbox_error(f, "\"access\": true", access);
}

/*
 * image takes a store name or an OCI reference (provision checks it
 * against the runtime); anything else gets the store name's message.
 */
static void
test_sandbox_image(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;
	char			 json[400];

	cfg = load_sandbox(f, "\"image\": \"cuda_12.4-devel\"");
	assert_string_equal(cfg->sandbox_image, "cuda_12.4-devel");
	config_free(cfg);
	cfg = load_sandbox(f, "\"image\": \"docker.io/library/Debian:12\"");
	assert_string_equal(cfg->sandbox_image, "docker.io/library/Debian:12");
	config_free(cfg);
	expect_sandbox_error(f, "\"image\": \"a b\"",
	    "sandbox.image: invalid image 'a b': only a-z, 0-9, '.', '_' and "
	    "'-' are allowed");
	expect_sandbox_error(f, "\"image\": \"x;reboot\"",
	    "sandbox.image: invalid image 'x;reboot': only a-z, 0-9, '.', '_' "
	    "and '-' are allowed");
	expect_sandbox_error(f, "\"image\": \"-x\"",
	    "sandbox.image: invalid image '-x': must start with a lower-case "
	    "letter or digit");
	expect_sandbox_error(f, "\"image\": \"\"",
	    "sandbox.image: invalid image '': empty");
	memset(json, 0, sizeof json);
	strlcpy(json, "\"image\": \"", sizeof json);
	memset(json + strlen(json), 'a', SANDBOX_REF_MAX + 1);
	strlcat(json, "\"", sizeof json);
	expect_sandbox_error(f, json,
	    "sandbox.image: invalid image 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...': longer than 64 bytes");
	expect_sandbox_error(f, "\"image\": 5",
	    "sandbox.image: expected a string");
}

/* user takes "uid:gid" or a user name. */
static void
test_sandbox_user(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;

	cfg = load_sandbox(f, "\"user\": \"nobody\"");
	assert_string_equal(cfg->sandbox_user, "nobody");
	config_free(cfg);
	cfg = load_sandbox(f, "\"user\": \"1000:100\"");
	assert_string_equal(cfg->sandbox_user, "1000:100");
	config_free(cfg);
	cfg = load_sandbox(f, "\"mode\": \"remote\"");
	assert_null(cfg->sandbox_user);
	config_free(cfg);
	expect_sandbox_error(f, "\"user\": \"1000\"",
	    "sandbox.user: invalid user '1000': want \"uid:gid\" or a user "
	    "name ([a-z_][a-z0-9_-]*, at most 32 bytes)");
	expect_sandbox_error(f, "\"user\": \"Bob\"",
	    "sandbox.user: invalid user 'Bob': want \"uid:gid\" or a user "
	    "name ([a-z_][a-z0-9_-]*, at most 32 bytes)");
	expect_sandbox_error(f, "\"user\": 0",
	    "sandbox.user: expected a string");
}

/* workdir takes "/workspace" or "local"; unset is -1. */
static void
test_sandbox_workdir(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;

	cfg = load_sandbox(f, "\"workdir\": \"local\"");
	assert_int_equal(cfg->sandbox_workdir, SANDBOX_WORKDIR_LOCAL);
	config_free(cfg);
	cfg = load_sandbox(f, "\"workdir\": \"/workspace\"");
	assert_int_equal(cfg->sandbox_workdir, SANDBOX_WORKDIR_WORKSPACE);
	config_free(cfg);
	cfg = load_sandbox(f, "\"mode\": \"remote\"");
	assert_int_equal(cfg->sandbox_workdir, -1);
	config_free(cfg);
	expect_sandbox_error(f, "\"workdir\": \"/home/me\"",
	    "sandbox.workdir: expected \"/workspace\" or \"local\"");
	expect_sandbox_error(f, "\"workdir\": true",
	    "sandbox.workdir: expected \"/workspace\" or \"local\"");
}

/* strictConfig is a JSON boolean and nothing else. */
static void
test_sandbox_strict_config(void **state)
{
	const char		*msg = "sandbox.strictConfig: expected true or "
	    "false";
	struct fixture		*f = *state;
	struct claw_config	*cfg;

	cfg = load_sandbox(f, "\"strictConfig\": true");
	assert_int_equal(cfg->strict_config, 1);
	config_free(cfg);
	cfg = load_sandbox(f, "\"strictConfig\": false");
	assert_int_equal(cfg->strict_config, 0);
	config_free(cfg);
	expect_sandbox_error(f, "\"strictConfig\": 1", msg);
	expect_sandbox_error(f, "\"strictConfig\": 0", msg);
	expect_sandbox_error(f, "\"strictConfig\": \"true\"", msg);
	expect_sandbox_error(f, "\"strictConfig\": \"yes\"", msg);
	expect_sandbox_error(f, "\"strictConfig\": null", msg);
	expect_sandbox_error(f, "\"strictConfig\": {}", msg);
}

/* prune limits take whole numbers in range, 0 included, bounds included. */
static void
test_sandbox_prune(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;

	cfg = load_sandbox(f, "\"prune\": {\"idleHours\": 0, "
	    "\"maxAgeDays\": 0}");
	assert_int_equal(cfg->prune_idle_hours, 0);
	assert_int_equal(cfg->prune_max_age_days, 0);
	config_free(cfg);
	cfg = load_sandbox(f, "\"prune\": {\"idleHours\": 87600, "
	    "\"maxAgeDays\": 36500}");
	assert_int_equal(cfg->prune_idle_hours, 87600);
	assert_int_equal(cfg->prune_max_age_days, 36500);
	config_free(cfg);
	cfg = load_sandbox(f, "\"prune\": {\"maxAgeDays\": 30}");
	assert_int_equal(cfg->prune_idle_hours, -1);
	assert_int_equal(cfg->prune_max_age_days, 30);
	config_free(cfg);
}

/* prune limits out of range, fractional or not numbers are refused. */
static void
test_sandbox_prune_bad(void **state)
{
	const char	*idle = "sandbox.prune.idleHours: expected an integer "
	    "from 0 to 87600";
	const char	*age = "sandbox.prune.maxAgeDays: expected an integer "
	    "from 0 to 36500";
	struct fixture	*f = *state;

	expect_sandbox_error(f, "\"prune\": {\"idleHours\": 87601}", idle);
	expect_sandbox_error(f, "\"prune\": {\"idleHours\": -1}", idle);
	expect_sandbox_error(f, "\"prune\": {\"idleHours\": 1.5}", idle);
	expect_sandbox_error(f, "\"prune\": {\"idleHours\": \"24\"}", idle);
	expect_sandbox_error(f, "\"prune\": {\"idleHours\": true}", idle);
	expect_sandbox_error(f, "\"prune\": {\"idleHours\": 1e999}", idle);
	expect_sandbox_error(f, "\"prune\": {\"maxAgeDays\": 36501}", age);
	expect_sandbox_error(f, "\"prune\": {\"maxAgeDays\": -7}", age);
	expect_sandbox_error(f, "\"prune\": {\"maxAgeDays\": null}", age);
	expect_sandbox_error(f, "\"prune\": 24",
	    "sandbox.prune: expected an object");
	expect_sandbox_error(f, "\"prune\": [24, 7]",
	    "sandbox.prune: expected an object");
}

/* runtime, network and limits read back; bad values are named. */
static void
test_sandbox_runtime_limits(void **state)
{
	struct fixture		*f = *state;
	struct claw_config	*cfg;

	cfg = load_sandbox(f, "\"runtime\": \"none\", \"network\": "
	    "\"host\", \"limits\": {\"memory\": \"512M\", \"processes\": "
	    "64, \"cpuSeconds\": 10, \"fileSize\": 1048576, "
	    "\"openFiles\": \"1k\", \"cpus\": 1.5}");
	assert_int_equal(cfg->sandbox_runtime, CONTAIN_NONE);
	assert_int_equal(cfg->sandbox_network, CONTAIN_NET_HOST);
	assert_int_equal(cfg->limits.memory, 512 * 1024 * 1024);
	assert_int_equal(cfg->limits.nproc, 64);
	assert_int_equal(cfg->limits.cpu, 10);
	assert_int_equal(cfg->limits.fsize, 1048576);
	assert_int_equal(cfg->limits.nofile, 1024);
	assert_int_equal(cfg->limits.cpus, 1500);
	config_free(cfg);
	cfg = load_sandbox(f, "\"limits\": {\"cpus\": \"250m\"}");
	assert_int_equal(cfg->limits.cpus, 250);
	assert_int_equal(cfg->limits.memory, -1);
	config_free(cfg);
	expect_sandbox_error(f, "\"limits\": {\"cpus\": 0.0001}",
	    "sandbox.limits.cpus: expected a number of CPUs from 0 to 4096, "
	    "at most three decimals (1.5), or a string such as \"500m\"");
	expect_sandbox_error(f, "\"limits\": {\"cpus\": \"lots\"}",
	    "sandbox.limits.cpus: CPUs 'lots': expected a number such as 2, "
	    "1.5 (at most three decimals) or 500m");
	cfg = load_sandbox(f, "\"limits\": {\"cpuSeconds\": 0}");
	assert_int_equal(cfg->limits.cpu, 0);
	assert_int_equal(cfg->limits.memory, -1);
	assert_int_equal(cfg->sandbox_runtime, -1);
	config_free(cfg);
	cfg = load_sandbox(f, "\"runtime\": \"podman\"");
	assert_int_equal(cfg->sandbox_runtime, CONTAIN_PODMAN);
	config_free(cfg);
	cfg = load_sandbox(f, "\"runtime\": \"docker\"");
	assert_int_equal(cfg->sandbox_runtime, CONTAIN_DOCKER);
	config_free(cfg);
	expect_sandbox_error(f, "\"runtime\": \"lxc\"",
	    "sandbox.runtime: expected \"none\", \"bwrap\", \"docker\" "
	    "or \"podman\"");
	expect_sandbox_error(f, "\"network\": \"bridge\"",
	    "sandbox.network: expected \"none\" or \"host\"");
	expect_sandbox_error(f, "\"limits\": {\"memory\": -1}",
	    "sandbox.limits.memory: expected a whole number or a size such "
	    "as \"512M\"");
	expect_sandbox_error(f, "\"limits\": {\"swap\": 1}",
	    "unknown key 'sandbox.limits.swap'");
}

/* Unknown and duplicate keys are errors at every level of the section. */
static void
test_sandbox_strict_schema(void **state)
{
	struct fixture	*f = *state;

	expect_sandbox_error(f, "\"remoteroot\": \"/x\"",
	    "unknown key 'sandbox.remoteroot'");
	expect_sandbox_error(f, "\"prune\": {\"idleHours\": 1, \"idle\": 2}",
	    "unknown key 'sandbox.prune.idle'");
	expect_sandbox_error(f, "\"prune\": {\"prune\": {}}",
	    "unknown key 'sandbox.prune.prune'");
	expect_sandbox_error(f, "\"idleHours\": 1",
	    "unknown key 'sandbox.idleHours'");
	expect_sandbox_error(f, "\"scope\": \"agent\", \"scope\": \"shared\"",
	    "duplicate key 'sandbox.scope'");
	expect_sandbox_error(f, "\"prune\": {\"maxAgeDays\": 1, "
	    "\"maxAgeDays\": 1}", "duplicate key 'sandbox.prune.maxAgeDays'");
	expect_sandbox_error(f, "\"prune\": {}, \"prune\": {}",
	    "duplicate key 'sandbox.prune'");
	expect_text_error(f, "{\"sandbox\": {}, \"sandbox\": {}}",
	    "duplicate key 'sandbox'");
	expect_text_error(f, "{\"sandbox\": [\"scope\"]}",
	    "sandbox: expected an object");
	expect_text_error(f, "{\"sandbox\": \"session\"}",
	    "sandbox: expected an object");
}

/* A bad value after good ones frees what was stored (checked by ASan). */
static void
test_sandbox_error_after_strings(void **state)
{
	struct fixture	*f = *state;

	expect_sandbox_error(f, "\"remoteRoot\": \"/x\", \"image\": \"img\", "
	    "\"scope\": \"all\"", "sandbox.scope: expected \"session\", "
	    "\"agent\" or \"shared\"");
	expect_text_error(f, "{\"sandbox\": {\"image\": \"img\"}, "
	    "\"log\": {\"verbose\": 9}}",
	    "log.verbose: expected an integer from 0 to 3");
}

/* "providers": each entry read back with defaults filled in. */
static void
test_providers(void **state)
{
	struct fixture			*f = *state;
	struct claw_config		*cfg = NULL;
	const struct claw_provider	*p;
	char				*cause = NULL;

	assert_int_equal(load_text(f, "{\"providers\": {"
	    "\"lab\": {\"driver\": \"openshell\", \"command\": \"~/bin/os\","
	    " \"timeout\": 5, \"readyTimeout\": 0, \"args\": [\"-g\", \"x\"]},"
	    "\"k8s.prod-1\": {\"driver\": \"command\"}}}", &cfg, &cause), 0);
	assert_int_equal(cfg->nproviders, 2);
	assert_non_null(p = config_provider(cfg, "lab"));
	assert_string_equal(p->driver, "openshell");
	assert_string_equal(p->command, "/nonexistent/bin/os");
	assert_int_equal(p->timeout, 5);
	assert_int_equal(p->ready_timeout, 0);
	assert_int_equal(p->nargs, 2);
	assert_string_equal(p->args[1], "x");
	assert_non_null(p = config_provider(cfg, "k8s.prod-1"));
	assert_null(p->command);
	assert_int_equal(p->timeout, 60);
	assert_int_equal(p->ready_timeout, 300);
	assert_null(config_provider(cfg, "nope"));
	config_free(cfg);
}

/* Bad provider entries are refused with the key path named. */
static void
test_providers_bad(void **state)
{
	struct fixture	*f = *state;

	expect_text_error(f, "{\"providers\": []}",
	    "providers: expected an object");
	expect_text_error(f, "{\"providers\": {\"a b\": {}}}",
	    "providers.a b: a provider name is 1 to 64 of A-Z a-z 0-9 _ . - "
	    "(at most 64 providers)");
	expect_text_error(f, "{\"providers\": {\"a\": {}}}",
	    "providers.a: missing \"driver\"");
	expect_text_error(f, "{\"providers\": {\"a\": {\"driver\": \"k8s\"}}}",
	    "providers.a.driver: expected \"openshell\", \"slurm\", "
	    "\"command\" or \"kubernetes\"");
	expect_text_error(f, "{\"providers\": {\"a\": {\"driver\": "
	    "\"command\", \"timeout\": 0}}}",
	    "providers.a.timeout: expected an integer from 1 to 86400");
	expect_text_error(f, "{\"providers\": {\"a\": {\"driver\": "
	    "\"command\", \"readyTimeout\": -1}}}",
	    "providers.a.readyTimeout: expected an integer from 0 to 604800");
	expect_text_error(f, "{\"providers\": {\"a\": {\"driver\": "
	    "\"command\", \"args\": [1]}}}",
	    "providers.a.args: expected at most 64 strings");
	expect_text_error(f, "{\"providers\": {\"a\": {\"driver\": "
	    "\"command\", \"gpu\": 1}}}", "unknown key 'providers.a.gpu'");
	expect_text_error(f, "{\"providers\": {\"a\": {\"driver\": "
	    "\"command\", \"driver\": \"command\"}}}",
	    "duplicate key 'providers.a.driver'");
}

#define T(fn)	cmocka_unit_test_setup_teardown(fn, setup, teardown)

/* Run every test, each in its own directory. */
int
main(void)
{
	const struct CMUnitTest	tests[] = {
		T(test_sandbox_full),
		T(test_sandbox_unset),
		T(test_sandbox_remote_root),
		T(test_sandbox_remote_root_length),
		T(test_sandbox_enum_values),
		T(test_sandbox_enum_bad),
		T(test_sandbox_image),
		T(test_sandbox_strict_config),
		T(test_sandbox_prune),
		T(test_sandbox_prune_bad),
		T(test_sandbox_runtime_limits),
		T(test_sandbox_user),
		T(test_sandbox_workdir),
		T(test_sandbox_strict_schema),
		T(test_sandbox_error_after_strings),
		T(test_providers),
		T(test_providers_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
