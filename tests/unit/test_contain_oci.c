/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for containment policies: runtime and network names, sizes,
 * and the docker and podman command lines, split back by a real /bin/sh.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

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

#include "buf.h"
#include "contain.h"
#include "contain_oci.h"
#include "error.h"
#include "shquote.h"
#include "xmalloc.h"

/* Words every container gets, between "run" and the limits. */
#define FIXED_WORDS	"[run][--rm][-i][--init]"
/* podman runs the command as the first process: no --init (issue 16). */
#define PODMAN_WORDS	"[run][--rm][-i][--stop-timeout][0]"
#define FIXED_CONFINE	"[--read-only]"
#define FIXED_SECURITY	"[--cap-drop][ALL][--security-opt]" \
			"[no-new-privileges][--tmpfs]" \
			"[/tmp:rw,nosuid,nodev,size=64m]"

/* Fill p with a minimal valid docker policy. */
static void
policy_init(struct contain_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->runtime = CONTAIN_DOCKER;
	p->access = CONTAIN_WS_RW;
	p->network = CONTAIN_NET_NONE;
	p->image = "alpine:3";
	p->workspace = "/srv/ws";
}

/*
 * Run line through /bin/sh with docker and podman defined as functions
 * that print each word they get as [WORD]; return what they printed.
 */
static char *
sh_split(const char *line)
{
	struct buf	 cmd = BUF_INIT, out = BUF_INIT;
	char		 chunk[256];
	FILE		*f;
	size_t		 n;

	buf_append_str(&cmd, "docker() { printf '[docker]'; "
	    "for a do printf '[%s]' \"$a\"; done; }; "
	    "podman() { printf '[podman]'; "
	    "for a do printf '[%s]' \"$a\"; done; }; ");
	buf_append_str(&cmd, line);
	f = popen(cmd.data, "r");
	assert_non_null(f);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&out, chunk, n);
	assert_int_equal(pclose(f), 0);
	buf_free(&cmd);
	return buf_detach(&out);
}

/* Build p's command line for argv and check sh splits it into want. */
static void
check_words(const struct contain_policy *p, int argc, char *const argv[],
    const char *want)
{
	struct buf	 b = BUF_INIT;
	char		*cause = NULL, *got;

	assert_int_equal(contain_oci_run(p, "c1", argc, argv, &b, &cause), 0);
	assert_null(cause);
	got = sh_split(b.data);
	assert_string_equal(got, want);
	free(got);
	buf_free(&b);
}

/* The minimal docker line is exactly this text, appended to b. */
static void
test_docker_exact(void **state)
{
	struct contain_policy	 p;
	struct buf		 b = BUF_INIT;
	char			 a0[] = "true";
	char *const		 argv[] = { a0 };
	char			*cause = NULL;

	(void)state;
	policy_init(&p);
	buf_append_str(&b, "exec ");
	assert_int_equal(contain_oci_run(&p, "c1", 1, argv, &b, &cause), 0);
	assert_string_equal(b.data, "exec 'docker' 'run' '--rm' '-i' "
	    "'--init' '--name' 'c1' '--read-only' '--network' 'none' "
	    "'--cap-drop' 'ALL' '--security-opt' 'no-new-privileges' "
	    "'--tmpfs' '/tmp:rw,nosuid,nodev,size=64m' '--mount' "
	    "'type=bind,source=/srv/ws,target=/workspace' '--workdir' "
	    "'/workspace' 'alpine:3' 'true'");
	buf_free(&b);
}

/* Every setting at once, with a hostile command, through a real sh. */
static void
test_docker_full(void **state)
{
	struct contain_policy	 p;
	const char *const	 env[] = { "HOME", "_X1" };
	const int		 gpus[] = { 0, 1 };
	char			 a0[] = "sh", a1[] = "-c";
	char			 a2[] = "echo \"$HOME\" 'x'; rm -rf / `id`";
	char *const		 argv[] = { a0, a1, a2 };

	(void)state;
	policy_init(&p);
	p.access = CONTAIN_WS_RO;
	p.network = CONTAIN_NET_HOST;
	p.image = "ghcr.io/acme/build-env:1.2@sha256:ab12";
	p.cwd = "src/lib";
	p.limits.memory = 536870912;
	p.limits.nproc = 256;
	p.limits.cpu = 600;
	p.limits.fsize = 1073741824;
	p.limits.nofile = 1024;
	p.user = "1000:1000";
	p.env = env;
	p.nenv = 2;
	p.gpus = gpus;
	p.ngpus = 2;
	check_words(&p, 3, argv, "[docker]" FIXED_WORDS "[--name][c1]"
	    FIXED_CONFINE "[--network][host]" FIXED_SECURITY
	    "[--pids-limit][256][--memory][536870912]"
	    "[--memory-swap][536870912][--ulimit][cpu=600:600]"
	    "[--ulimit][fsize=1073741824:1073741824]"
	    "[--ulimit][nofile=1024:1024]"
	    "[--mount][type=bind,source=/srv/ws,target=/workspace,readonly]"
	    "[--workdir][/workspace/src/lib][--user][1000:1000]"
	    "[-e][HOME][-e][_X1][--gpus][\"device=0,1\"]"
	    "[ghcr.io/acme/build-env:1.2@sha256:ab12]"
	    "[sh][-c][echo \"$HOME\" 'x'; rm -rf / `id`]");
}

/* docker gets one GPU as a quoted CSV field too. */
static void
test_docker_one_gpu(void **state)
{
	struct contain_policy	 p;
	const int		 gpus[] = { 3 };
	char			 a0[] = "nvidia-smi";
	char *const		 argv[] = { a0 };

	(void)state;
	policy_init(&p);
	p.gpus = gpus;
	p.ngpus = 1;
	p.cwd = "";
	check_words(&p, 1, argv, "[docker]" FIXED_WORDS "[--name][c1]"
	    FIXED_CONFINE "[--network][none]" FIXED_SECURITY
	    "[--mount][type=bind,source=/srv/ws,target=/workspace]"
	    "[--workdir][/workspace][--gpus][\"device=3\"]"
	    "[alpine:3][nvidia-smi]");
}

/* podman: CDI devices per GPU; access none binds the scratch directory. */
static void
test_podman_scratch(void **state)
{
	struct contain_policy	 p;
	const int		 gpus[] = { 2, 5 };
	char			 a0[] = "ls", a1[] = "-la", a2[] = "";
	char *const		 argv[] = { a0, a1, a2 };

	(void)state;
	policy_init(&p);
	p.runtime = CONTAIN_PODMAN;
	p.access = CONTAIN_WS_NONE;
	p.workspace = "relative/is/ignored";
	p.scratch = "/var/lib/claw/c1/scratch";
	p.cwd = "./a..b";
	p.limits.memory = 1;
	p.gpus = gpus;
	p.ngpus = 2;
	check_words(&p, 3, argv, "[podman]" PODMAN_WORDS "[--name][c1]"
	    FIXED_CONFINE "[--network][none]" FIXED_SECURITY
	    "[--memory][1][--memory-swap][1]"
	    "[--mount][type=bind,source=/var/lib/claw/c1/scratch,"
	    "target=/workspace][--workdir][/workspace/./a..b]"
	    "[--device][nvidia.com/gpu=2][--device][nvidia.com/gpu=5]"
	    "[alpine:3][ls][-la][]");
}

/* What a refusal case changes in a valid policy. */
struct refusal {
	const char	*what;
	int		 field;
	const char	*s;
	int64_t		 v;
};

enum {
	F_RUNTIME, F_ACCESS, F_NETWORK, F_IMAGE, F_NAME, F_ENV, F_CWD,
	F_WORKSPACE, F_SCRATCH, F_USER, F_MEMORY, F_NPROC, F_CPU, F_FSIZE,
	F_NOFILE, F_GPU, F_ARGC
};

static const struct refusal refusals[] = {
	{ "runtime none", F_RUNTIME, NULL, CONTAIN_NONE },
	{ "runtime bwrap", F_RUNTIME, NULL, CONTAIN_BWRAP },
	{ "runtime out of range", F_RUNTIME, NULL, 9 },
	{ "access out of range", F_ACCESS, NULL, 7 },
	{ "network out of range", F_NETWORK, NULL, 7 },
	{ "image empty", F_IMAGE, "", 0 },
	{ "image null", F_IMAGE, NULL, 0 },
	{ "image option", F_IMAGE, "-v", 0 },
	{ "image space", F_IMAGE, "alpine 3", 0 },
	{ "image subst", F_IMAGE, "a$(id)", 0 },
	{ "image semicolon", F_IMAGE, "a;b", 0 },
	{ "image quote", F_IMAGE, "a'b", 0 },
	{ "image newline", F_IMAGE, "a\nb", 0 },
	{ "name upper", F_NAME, "Box", 0 },
	{ "name option", F_NAME, "-x", 0 },
	{ "name underscore first", F_NAME, "_x", 0 },
	{ "name dot first", F_NAME, ".x", 0 },
	{ "name slash", F_NAME, "a/b", 0 },
	{ "name empty", F_NAME, "", 0 },
	{ "name null", F_NAME, NULL, 0 },
	{ "env digit first", F_ENV, "1A", 0 },
	{ "env dash", F_ENV, "A-B", 0 },
	{ "env equals", F_ENV, "A=1", 0 },
	{ "env space", F_ENV, "A B", 0 },
	{ "env empty", F_ENV, "", 0 },
	{ "env null", F_ENV, NULL, 0 },
	{ "cwd absolute", F_CWD, "/etc", 0 },
	{ "cwd dotdot", F_CWD, "..", 0 },
	{ "cwd leading dotdot", F_CWD, "../a", 0 },
	{ "cwd middle dotdot", F_CWD, "a/../b", 0 },
	{ "cwd trailing dotdot", F_CWD, "a/..", 0 },
	{ "cwd slash dotdot slash", F_CWD, "a//../", 0 },
	{ "workspace relative", F_WORKSPACE, "srv/ws", 0 },
	{ "workspace null", F_WORKSPACE, NULL, 0 },
	{ "workspace empty", F_WORKSPACE, "", 0 },
	{ "workspace comma", F_WORKSPACE, "/a,readonly=false", 0 },
	{ "workspace dquote", F_WORKSPACE, "/a\"b", 0 },
	{ "workspace newline", F_WORKSPACE, "/a\nb", 0 },
	{ "scratch null", F_SCRATCH, NULL, 0 },
	{ "scratch relative", F_SCRATCH, "scratch", 0 },
	{ "user name", F_USER, "root", 0 },
	{ "user empty", F_USER, "", 0 },
	{ "user no gid", F_USER, "1000:", 0 },
	{ "user no uid", F_USER, ":1000", 0 },
	{ "user three", F_USER, "1:2:3", 0 },
	{ "user negative", F_USER, "-1", 0 },
	{ "user too long", F_USER, "12345678901", 0 },
	{ "memory negative", F_MEMORY, NULL, -1 },
	{ "nproc negative", F_NPROC, NULL, -1 },
	{ "cpu negative", F_CPU, NULL, -5 },
	{ "fsize negative", F_FSIZE, NULL, INT64_MIN },
	{ "nofile negative", F_NOFILE, NULL, -1 },
	{ "gpu negative", F_GPU, NULL, -1 },
	{ "gpu too high", F_GPU, NULL, 1024 },
	{ "no command", F_ARGC, NULL, 0 },
};

/* Apply refusal r to policy p (and *name, *argc, the env and gpu slots). */
static void
refusal_apply(const struct refusal *r, struct contain_policy *p,
    const char **name, int *argc, const char **env, int *gpu)
{
	switch (r->field) {
	case F_RUNTIME:
		p->runtime = (enum contain_runtime)r->v;
		break;
	case F_ACCESS:
		p->access = (enum contain_access)r->v;
		break;
	case F_NETWORK:
		p->network = (enum contain_network)r->v;
		break;
	case F_IMAGE:
		p->image = r->s;
		break;
	case F_NAME:
		*name = r->s;
		break;
	case F_ENV:
		env[1] = r->s;
		break;
	case F_CWD:
		p->cwd = r->s;
		break;
	case F_WORKSPACE:
		p->workspace = r->s;
		break;
	case F_SCRATCH:
		p->access = CONTAIN_WS_NONE;
		p->scratch = r->s;
		break;
	case F_USER:
		p->user = r->s;
		break;
	case F_MEMORY:
		p->limits.memory = r->v;
		break;
	case F_NPROC:
		p->limits.nproc = r->v;
		break;
	case F_CPU:
		p->limits.cpu = r->v;
		break;
	case F_FSIZE:
		p->limits.fsize = r->v;
		break;
	case F_NOFILE:
		p->limits.nofile = r->v;
		break;
	case F_GPU:
		gpu[1] = (int)r->v;
		break;
	case F_ARGC:
		*argc = (int)r->v;
		break;
	}
}

/* Each bad input is refused with a cause and leaves b untouched. */
static void
test_refusals(void **state)
{
	struct contain_policy	 p;
	struct buf		 b = BUF_INIT;
	const char		*env[2], *name;
	int			 gpu[2], argc;
	char			 a0[] = "true";
	char *const		 argv[] = { a0 };
	char			*cause;
	size_t			 i;

	(void)state;
	buf_append_str(&b, "keep");
	for (i = 0; i < sizeof refusals / sizeof refusals[0]; i++) {
		policy_init(&p);
		env[0] = env[1] = "OK_NAME";
		gpu[0] = gpu[1] = 0;
		p.env = env;
		p.nenv = 2;
		p.gpus = gpu;
		p.ngpus = 2;
		name = "c1";
		argc = 1;
		cause = NULL;
		assert_int_equal(contain_oci_run(&p, name, argc, argv, &b,
		    &cause), 0);
		free(cause);
		buf_reset(&b);
		buf_append_str(&b, "keep");
		refusal_apply(&refusals[i], &p, &name, &argc, env, gpu);
		if (contain_oci_run(&p, name, argc, argv, &b, &cause) !=
		    CLAW_ERR_INVAL)
			fail_msg("not refused: %s", refusals[i].what);
		assert_non_null(cause);
		assert_string_equal(b.data, "keep");
		free(cause);
	}
	buf_free(&b);
}

/* Edge inputs that are fine: dots in names, odd but safe cwd, uid. */
static void
test_accepts(void **state)
{
	struct contain_policy	 p;
	struct buf		 b = BUF_INIT;
	char			 a0[] = "true";
	char *const		 argv[] = { a0 };
	char			*cause = NULL;

	(void)state;
	policy_init(&p);
	p.cwd = "..a/b../.";
	p.user = "4294967294";
	p.image = "localhost:5000/x_y/z.w@sha256:0";
	assert_int_equal(contain_oci_run(&p, "0box.a_b-c", 1, argv, &b,
	    &cause), 0);
	assert_non_null(strstr(b.data, "'/workspace/..a/b../.'"));
	buf_free(&b);
	assert_null(cause);
}

/* A refusal's cause says what was wrong. */
static void
test_refusal_causes(void **state)
{
	struct contain_policy	 p;
	struct buf		 b = BUF_INIT;
	char			 a0[] = "true";
	char *const		 argv[] = { a0 };
	char			*cause = NULL;

	(void)state;
	policy_init(&p);
	p.runtime = CONTAIN_BWRAP;
	assert_int_equal(contain_oci_run(&p, "c1", 1, argv, &b, &cause),
	    CLAW_ERR_INVAL);
	assert_string_equal(cause, "runtime bwrap is not docker or podman");
	free(cause);
	policy_init(&p);
	p.cwd = "a/../../etc";
	assert_int_equal(contain_oci_run(&p, "c1", 1, argv, &b, &cause),
	    CLAW_ERR_INVAL);
	assert_string_equal(cause,
	    "working directory may not contain \"..\"");
	free(cause);
	assert_null(b.data);
}

/* Runtime and network names parse and print both ways. */
static void
test_names(void **state)
{
	enum contain_runtime	r = CONTAIN_DOCKER;
	enum contain_network	n = CONTAIN_NET_HOST;
	const char *const	rt[] = { "none", "bwrap", "docker", "podman" };
	size_t			i;

	(void)state;
	for (i = 0; i < 4; i++) {
		assert_int_equal(contain_runtime_parse(rt[i], &r), 0);
		assert_int_equal(r, (enum contain_runtime)i);
		assert_string_equal(contain_runtime_name(r), rt[i]);
	}
	assert_int_equal(contain_runtime_parse("Docker", &r), CLAW_ERR_INVAL);
	assert_int_equal(contain_runtime_parse("", &r), CLAW_ERR_INVAL);
	assert_int_equal(contain_runtime_parse(NULL, &r), CLAW_ERR_INVAL);
	assert_int_equal(r, CONTAIN_PODMAN);
	assert_string_equal(contain_runtime_name((enum contain_runtime)4),
	    "unknown");
	assert_int_equal(contain_network_parse("none", &n), 0);
	assert_int_equal(n, CONTAIN_NET_NONE);
	assert_int_equal(contain_network_parse("host", &n), 0);
	assert_int_equal(n, CONTAIN_NET_HOST);
	assert_int_equal(contain_network_parse("bridge", &n), CLAW_ERR_INVAL);
	assert_int_equal(n, CONTAIN_NET_HOST);
	assert_string_equal(contain_network_name(CONTAIN_NET_NONE), "none");
	assert_string_equal(contain_network_name((enum contain_network)-1),
	    "unknown");
}

/* Sizes that parse, and their values in bytes. */
static void
test_size_ok(void **state)
{
	static const struct {
		const char	*s;
		int64_t		 v;
	} ok[] = {
		{ "0", 0 }, { "0K", 0 }, { "1048576", 1048576 },
		{ "64k", 65536 }, { "64K", 65536 }, { "64kb", 65536 },
		{ "512M", 536870912 }, { "512mB", 536870912 },
		{ "2G", 2147483648LL }, { "2gb", 2147483648LL },
		{ "1T", 1099511627776LL }, { "10B", 10 }, { "007", 7 },
		{ "9223372036854775807", INT64_MAX },
		{ "8388607T", 8388607LL << 40 },
		{ "8589934591G", 8589934591LL << 30 },
	};
	int64_t	 v;
	char	*cause = NULL;
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		v = -1;
		if (contain_size_parse(ok[i].s, &v, &cause) != 0)
			fail_msg("%s: %s", ok[i].s, cause);
		assert_true(v == ok[i].v);
	}
}

/* Sizes refused: overflow, fractions, signs, junk; *out untouched. */
static void
test_size_bad(void **state)
{
	static const char *const bad[] = {
		"99999999999T", "8388608T", "8589934592G",
		"9223372036854775808", "99999999999999999999999", "1.5G", "-1", "+1", "", " 1", "1 ",
		"1KK", "1P", "K", "B", "1e3", "0x10", "1KiB", "1BB", "1\n",
		"1b2",
	};
	int64_t	 v = 42;
	char	*cause;
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		if (contain_size_parse(bad[i], &v, &cause) != CLAW_ERR_INVAL)
			fail_msg("accepted: \"%s\"", bad[i]);
		assert_non_null(cause);
		free(cause);
	}
	cause = NULL;
	assert_int_equal(contain_size_parse(NULL, &v, &cause),
	    CLAW_ERR_INVAL);
	free(cause);
	assert_int_equal(contain_size_parse("99999999999T", &v, &cause),
	    CLAW_ERR_INVAL);
	assert_string_equal(cause, "size '99999999999T': too large");
	free(cause);
	assert_true(v == 42);
}

/*
 * Run prelude (sh text, after the stubs: it may replace them) and wrap,
 * and then print the positional parameters and ARGV "x y" as
 * [WORD]s, in a clean environment with LC_TEST set and setsid, chown
 * and chmod stubs (no watcher runs, nothing changes hands); stderr goes
 * to *err when err is not NULL;
 * return stdout and set *status to the exit status.
 */
static char *
wrap_run(const char *wrap, const char *prelude, int *status, char **err)
{
	struct buf	 cmd = BUF_INIT, out = BUF_INIT;
	char		 chunk[256], tmpl[] = "/tmp/test_oci_wrapXXXXXX";
	FILE		*f;
	size_t		 n;
	int		 fd, st;

	assert_true((fd = mkstemp(tmpl)) >= 0);
	close(fd);
	buf_append_str(&cmd, "env -i PATH=/usr/bin:/bin LC_TEST=1 TERM=x "
	    "SECRET_TOKEN=s /bin/sh -c ");
	{
		struct buf	in = BUF_INIT;

		buf_append_str(&in, "docker() { :; }; podman() { :; }; "
		    "setsid() { :; }; chown() { :; }; chmod() { :; }\n");
		buf_append_str(&in, prelude);
		buf_append_str(&in, wrap);
		buf_append_str(&in, "\nset -- \"$@\" x 'y z'\n"
		    "for a do printf '[%s]' \"$a\"; done\n");
		shquote_append(&cmd, in.data);
		buf_free(&in);
	}
	buf_appendf(&cmd, " 2>%s", tmpl);
	f = popen(cmd.data, "r");
	assert_non_null(f);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&out, chunk, n);
	st = pclose(f);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (err != NULL) {
		struct buf	e = BUF_INIT;

		assert_non_null(f = fopen(tmpl, "r"));
		while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
			buf_append(&e, chunk, n);
		fclose(f);
		buf_append(&e, "", 1);
		*err = buf_detach(&e);
	}
	unlink(tmpl);
	buf_free(&cmd);
	buf_append(&out, "", 1);
	return buf_detach(&out);
}

/* Run wrap with the usual stubs; see wrap_run. */
static char *
wrap_split(const char *wrap, int *status, char **err)
{
	return wrap_run(wrap, "", status, err);
}

/* The wrap: the run words, base and LC_* names, image, then ARGV. */
static void
test_wrap_docker(void **state)
{
	struct contain_policy	 p;
	const char		*env[] = { "API_TOKEN" };
	char			*wrap, *got, *err, *cause = NULL;
	int			 st;

	(void)state;
	policy_init(&p);
	p.sandbox = "cabcdefghijkl";
	p.env = env;
	p.nenv = 1;
	p.user = "1000:1000";
	p.cwd = "src";
	wrap = contain_oci_wrap(&p, "clawssh-x-01", NULL, 0, &cause);
	assert_non_null(wrap);
	assert_null(strstr(wrap, "SECRET"));
	got = wrap_split(wrap, &st, &err);
	assert_int_equal(st, 0);
	assert_string_equal(got, "[docker]" FIXED_WORDS
	    "[--name][clawssh-x-01][--label][clawssh.sandbox=cabcdefghijkl]"
	    FIXED_CONFINE "[--network][none]" FIXED_SECURITY
	    "[--mount][type=bind,source=/srv/ws,target=/workspace]"
	    "[--workdir][/workspace/src][--user][1000:1000][-e][API_TOKEN]"
	    "[-e][LANG][-e][TERM][-e][TZ][-e][LC_TEST][alpine:3][x][y z]");
	assert_string_equal(err, "");
	/* The workspace is given to the user when the host user is root. */
	assert_non_null(strstr(wrap, "if [ \"$(id -u)\" = 0 ]; then chown -R "
	    "-h -P '1000:1000' '/srv/ws' && chmod 700 '/srv/ws' || "));
	/* The watcher: its own session, removing the container by name. */
	assert_non_null(strstr(wrap, "(setsid sh -c 'while kill -0 \"$1\" "
	    "2>/dev/null; do sleep 1; done; docker rm -f \"$2\" >/dev/null "
	    "2>&1' sh $$ clawssh-x-01 </dev/null >/dev/null 2>&1 &)\n"));
	free(err);
	free(got);
	free(wrap);
}

/* A user name is resolved on the host; a missing one stops the run. */
static void
test_wrap_user_name(void **state)
{
	struct contain_policy	 p;
	char			*wrap, *got, *err, *cause = NULL, *want;
	int			 st;

	(void)state;
	policy_init(&p);
	p.runtime = CONTAIN_PODMAN;
	p.user = "root";
	wrap = contain_oci_wrap(&p, "n1", NULL, 0, &cause);
	assert_non_null(wrap);
	got = wrap_split(wrap, &st, NULL);
	assert_int_equal(st, 0);
	want = xasprintf("[podman]" PODMAN_WORDS "[--name][n1]" FIXED_CONFINE
	    "[--network][none]" FIXED_SECURITY
	    "[--mount][type=bind,source=/srv/ws,target=/workspace]"
	    "[--workdir][/workspace][-e][LANG][-e][TERM][-e][TZ]"
	    "[--user][0:0][-e][LC_TEST][alpine:3][x][y z]");
	assert_string_equal(got, want);
	free(want);
	free(got);
	free(wrap);
	p.user = "no_such_user_cl4w";
	wrap = contain_oci_wrap(&p, "n1", NULL, 0, &cause);
	assert_non_null(wrap);
	got = wrap_split(wrap, &st, &err);
	assert_int_equal(st, 125);
	assert_string_equal(got, "");
	assert_non_null(strstr(err, "clawssh: user no_such_user_cl4w does "
	    "not exist on this host"));
	free(err);
	free(got);
	free(wrap);
}

/* Stubs for wrap_run: the host user's uid, chown and chmod logged. */
#define AS_UID(u)	"id() { if [ \"$*\" = -u ]; then echo " u "; " \
			"else command id \"$@\"; fi; }; " \
			"chown() { echo \"chown $*\" >&2; }; " \
			"chmod() { echo \"chmod $*\" >&2; }\n"
#define DEF_UID		1879048200u
#define DEF_UG		"1879048200:1879048200"

/*
 * Without a user, connected as root, the container runs as the
 * sandbox's own uid (default_uid), given the bound directory first; not
 * root, or default_uid 0: the engine's default user, nothing given.  A
 * user set wins over the default.
 */
static void
test_wrap_default_uid(void **state)
{
	struct contain_policy	 p;
	char			*wrap, *got, *err, *cause = NULL;
	int			 st;

	(void)state;
	policy_init(&p);
	wrap = contain_oci_wrap(&p, "n1", NULL, DEF_UID, &cause);
	assert_non_null(wrap);
	got = wrap_run(wrap, AS_UID("0"), &st, &err);
	assert_int_equal(st, 0);
	assert_string_equal(got, "[docker]" FIXED_WORDS "[--name][n1]"
	    FIXED_CONFINE "[--network][none]" FIXED_SECURITY
	    "[--mount][type=bind,source=/srv/ws,target=/workspace]"
	    "[--workdir][/workspace][-e][LANG][-e][TERM][-e][TZ]"
	    "[--user][" DEF_UG "][-e][LC_TEST][alpine:3][x][y z]");
	assert_string_equal(err, "chown -R -h -P " DEF_UG " /srv/ws\n"
	    "chmod 700 /srv/ws\n");
	free(err);
	free(got);
	got = wrap_run(wrap, AS_UID("1000"), &st, &err);
	assert_int_equal(st, 0);
	assert_null(strstr(got, "--user"));
	assert_string_equal(err, "");
	free(err);
	free(got);
	free(wrap);

	/* Access none: the scratch directory is the one given. */
	p.access = CONTAIN_WS_NONE;
	p.scratch = "/srv/private";
	wrap = contain_oci_wrap(&p, "n1", NULL, DEF_UID, &cause);
	got = wrap_run(wrap, AS_UID("0"), &st, &err);
	assert_int_equal(st, 0);
	assert_non_null(strstr(got, "[--user][" DEF_UG "]"));
	assert_string_equal(err, "chown -R -h -P " DEF_UG " /srv/private\n"
	    "chmod 700 /srv/private\n");
	free(err);
	free(got);
	free(wrap);

	/* The directory cannot be given: nothing runs. */
	wrap = contain_oci_wrap(&p, "n1", NULL, DEF_UID, &cause);
	got = wrap_run(wrap, AS_UID("0") "chown() { return 1; }\n", &st,
	    &err);
	assert_int_equal(st, 125);
	assert_string_equal(got, "");
	assert_non_null(strstr(err, "cannot give the workspace"));
	free(err);
	free(got);
	free(wrap);

	/* default_uid 0 (user "root" in the settings): no --user. */
	p.access = CONTAIN_WS_RW;
	wrap = contain_oci_wrap(&p, "n1", NULL, 0, &cause);
	got = wrap_run(wrap, AS_UID("0"), &st, &err);
	assert_int_equal(st, 0);
	assert_null(strstr(got, "--user"));
	assert_string_equal(err, "");
	free(err);
	free(got);
	free(wrap);

	/* A user set wins. */
	p.user = "1000:1000";
	wrap = contain_oci_wrap(&p, "n1", NULL, DEF_UID, &cause);
	got = wrap_run(wrap, AS_UID("0"), &st, &err);
	assert_int_equal(st, 0);
	assert_non_null(strstr(got, "[--user][1000:1000]"));
	assert_null(strstr(got, DEF_UG));
	assert_string_equal(err, "chown -R -h -P 1000:1000 /srv/ws\n"
	    "chmod 700 /srv/ws\n");
	free(err);
	free(got);
	free(wrap);
}

/* GPUs come from the allocation file at run time, per engine. */
static void
test_wrap_gpus(void **state)
{
	struct contain_policy	 p;
	const char		*gpus = "0 cabcdefghijkl\n1 cother000000\n"
	    "2 cabcdefghijkl\n";
	char			 path[] = "/tmp/test_oci_gpusXXXXXX";
	char			*wrap, *got, *err, *cause = NULL;
	int			 fd, st;

	(void)state;
	assert_true((fd = mkstemp(path)) >= 0);
	assert_true(write(fd, gpus, strlen(gpus)) == (ssize_t)strlen(gpus));
	close(fd);
	policy_init(&p);
	p.sandbox = "cabcdefghijkl";
	wrap = contain_oci_wrap(&p, "g1", path, 0, &cause);
	assert_non_null(wrap);
	got = wrap_split(wrap, &st, NULL);
	assert_int_equal(st, 0);
	assert_non_null(strstr(got, "[--gpus][\"device=0,2\"][-e]"
	    "[CUDA_VISIBLE_DEVICES=0,2][-e][NVIDIA_VISIBLE_DEVICES=0,2]"
	    "[alpine:3][x][y z]"));
	free(got);
	free(wrap);
	p.runtime = CONTAIN_PODMAN;
	wrap = contain_oci_wrap(&p, "g1", path, 0, &cause);
	got = wrap_split(wrap, &st, NULL);
	assert_non_null(strstr(got, "[--device][nvidia.com/gpu=0]"
	    "[--device][nvidia.com/gpu=2][-e][CUDA_VISIBLE_DEVICES=0,2]"));
	free(got);
	free(wrap);
	p.sandbox = "cnone0000000";
	wrap = contain_oci_wrap(&p, "g1", path, 0, &cause);
	got = wrap_split(wrap, &st, &err);
	assert_int_equal(st, 125);
	assert_non_null(strstr(err, "sandbox cnone0000000 has no GPUs "
	    "assigned on this host"));
	free(err);
	free(got);
	free(wrap);
	unlink(path);
}

/* The wrap refuses what contain_oci_run refuses, and more. */
static void
test_wrap_refusals(void **state)
{
	struct contain_policy	 p;
	char			*cause = NULL;

	(void)state;
	policy_init(&p);
	p.image = "x;reboot";
	assert_null(contain_oci_wrap(&p, "n1", NULL, 0, &cause));
	assert_non_null(strstr(cause, "bad container image"));
	free(cause);
	cause = NULL;
	policy_init(&p);
	p.user = "Root";
	assert_null(contain_oci_wrap(&p, "n1", NULL, 0, &cause));
	assert_string_equal(cause, "bad user (want a numeric uid[:gid])");
	free(cause);
	cause = NULL;
	policy_init(&p);
	p.sandbox = "../x";
	assert_null(contain_oci_wrap(&p, "n1", NULL, 0, &cause));
	assert_string_equal(cause, "bad sandbox label");
	free(cause);
	cause = NULL;
	policy_init(&p);
	assert_null(contain_oci_wrap(&p, "n1", "/tmp/gpus", 0, &cause));
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	policy_init(&p);
	p.runtime = CONTAIN_BWRAP;
	assert_null(contain_oci_wrap(&p, "n1", NULL, 0, &cause));
	assert_string_equal(cause, "runtime bwrap is not docker or podman");
	free(cause);
	assert_int_equal(contain_image_ref_check("ghcr.io/a/b:1@sha256:ab",
	    NULL), 0);
	assert_int_equal(contain_image_ref_check("a b", NULL),
	    CLAW_ERR_INVAL);
	assert_int_equal(contain_image_ref_check("$(id)", NULL),
	    CLAW_ERR_INVAL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_docker_exact),
		cmocka_unit_test(test_docker_full),
		cmocka_unit_test(test_docker_one_gpu),
		cmocka_unit_test(test_podman_scratch),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_accepts),
		cmocka_unit_test(test_refusal_causes),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_size_ok),
		cmocka_unit_test(test_size_bad),
		cmocka_unit_test(test_wrap_docker),
		cmocka_unit_test(test_wrap_user_name),
		cmocka_unit_test(test_wrap_default_uid),
		cmocka_unit_test(test_wrap_gpus),
		cmocka_unit_test(test_wrap_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
