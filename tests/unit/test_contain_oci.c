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

/* Words every sandbox container gets, between "run" and the limits. */
#define FIXED_WORDS	"[run][-d][--init][--name][clawssh-cabcdefghijkl]" \
			"[--restart][no][--stop-timeout][1]" \
			"[--label][clawssh.sandbox=cabcdefghijkl]"
#define FIXED_CONFINE	"[--read-only]"
#define FIXED_SECURITY	"[--cap-drop][ALL][--security-opt]" \
			"[no-new-privileges][--tmpfs]" \
			"[/tmp:rw,nosuid,nodev,size=64m,mode=1777]"
/* The holder: the image's /bin/sh blocking until stopped. */
#define HOLDER(img)	"[--entrypoint][/bin/sh][" img "][-c]" \
			"[trap 'exit 0' TERM; while :; do sleep 3600 & " \
			"wait $!; done]"
/* The in-container wrapper of every exec, up to its token. */
#define EXEC_SH		"[clawssh-cabcdefghijkl][/bin/sh][-c]" \
			"[f=/tmp/.clawssh-exec-$1; shift; { echo $$ > " \
			"\"$f\"; } 2>/dev/null; (exec \"$@\"); s=$?; " \
			"{ : > \"$f\"; } 2>/dev/null; exit $s][sh]"

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
	p->sandbox = "cabcdefghijkl";
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

/* Return (allocated) the contents of path ("" when it cannot be read). */
static char *
file_read(const char *path)
{
	struct buf	 b = BUF_INIT;
	char		 chunk[256];
	FILE		*f;
	size_t		 n;

	if ((f = fopen(path, "r")) != NULL) {
		while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
			buf_append(&b, chunk, n);
		fclose(f);
	}
	buf_append(&b, "", 1);
	return buf_detach(&b);
}

/* Remove the wrap tests' directory and what they left there. */
static void
unlink_dir(const char *dir)
{
	const char	*names[] = { "oci.lock", "oci-warned", "run.log",
	    "watch.log", "watch.tmp" };
	char		*path;
	size_t		 i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		path = xasprintf("%s/%s", dir, names[i]);
		unlink(path);
		free(path);
	}
	rmdir(dir);
}

/* Build p's creation line and check sh splits it into want. */
static void
check_words(const struct contain_policy *p, const char *want)
{
	struct buf	 b = BUF_INIT;
	char		*cause = NULL, *got;

	assert_int_equal(contain_oci_create(p, &b, &cause), 0);
	assert_null(cause);
	got = sh_split(b.data);
	assert_string_equal(got, want);
	free(got);
	buf_free(&b);
}

/* Build p's exec line for argv and check sh splits it into want. */
static void
check_exec(const struct contain_policy *p, int argc, char *const argv[],
    const char *want)
{
	struct buf	 b = BUF_INIT;
	char		*cause = NULL, *got;

	assert_int_equal(contain_oci_exec(p, "42", argc, argv, &b, &cause), 0);
	assert_null(cause);
	got = sh_split(b.data);
	assert_string_equal(got, want);
	free(got);
	buf_free(&b);
}

/* The minimal docker creation line is exactly this text, appended. */
static void
test_docker_exact(void **state)
{
	struct contain_policy	 p;
	struct buf		 b = BUF_INIT;
	char			*cause = NULL;

	(void)state;
	policy_init(&p);
	buf_append_str(&b, "exec ");
	assert_int_equal(contain_oci_create(&p, &b, &cause), 0);
	assert_string_equal(b.data, "exec 'docker' 'run' '-d' '--init' "
	    "'--name' 'clawssh-cabcdefghijkl' '--restart' 'no' "
	    "'--stop-timeout' '1' '--label' 'clawssh.sandbox=cabcdefghijkl' "
	    "'--read-only' '--network' 'none' "
	    "'--cap-drop' 'ALL' '--security-opt' 'no-new-privileges' "
	    "'--tmpfs' '/tmp:rw,nosuid,nodev,size=64m,mode=1777' '--mount' "
	    "'type=bind,source=/srv/ws,target=/workspace' '--entrypoint' "
	    "'/bin/sh' 'alpine:3' '-c' "
	    "'trap '\\''exit 0'\\'' TERM; while :; do sleep 3600 & wait $!; "
	    "done'");
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
	p.limits.cpus = 1500;
	p.user = "1000:1000";
	p.env = env;
	p.nenv = 2;
	p.gpus = gpus;
	p.ngpus = 2;
	check_words(&p, "[docker]" FIXED_WORDS
	    FIXED_CONFINE "[--network][host]" FIXED_SECURITY
	    "[--pids-limit][256][--memory][536870912]"
	    "[--memory-swap][536870912][--ulimit][cpu=600:600]"
	    "[--ulimit][fsize=1073741824:1073741824]"
	    "[--ulimit][nofile=1024:1024][--cpus][1.500]"
	    "[--mount][type=bind,source=/srv/ws,target=/workspace,readonly]"
	    "[--user][1000:1000][--gpus][\"device=0,1\"]"
	    HOLDER("ghcr.io/acme/build-env:1.2@sha256:ab12"));
	check_exec(&p, 3, argv, "[docker][exec][-i]"
	    "[--workdir][/workspace/src/lib][--user][1000:1000]"
	    "[-e][HOME][-e][_X1]" EXEC_SH "[42]"
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
	check_words(&p, "[docker]" FIXED_WORDS
	    FIXED_CONFINE "[--network][none]" FIXED_SECURITY
	    "[--mount][type=bind,source=/srv/ws,target=/workspace]"
	    "[--gpus][\"device=3\"]" HOLDER("alpine:3"));
	check_exec(&p, 1, argv, "[docker][exec][-i][--workdir][/workspace]"
	    EXEC_SH "[42][nvidia-smi]");
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
	check_words(&p, "[podman]" FIXED_WORDS
	    FIXED_CONFINE "[--network][none]" FIXED_SECURITY
	    "[--memory][1][--memory-swap][1]"
	    "[--mount][type=bind,source=/var/lib/claw/c1/scratch,"
	    "target=/workspace]"
	    "[--device][nvidia.com/gpu=2][--device][nvidia.com/gpu=5]"
	    HOLDER("alpine:3"));
	check_exec(&p, 3, argv, "[podman][exec][-i][--workdir]"
	    "[/workspace/./a..b]" EXEC_SH "[42][ls][-la][]");
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
	F_NOFILE, F_GPU, F_ARGC, F_TOKEN
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
	{ "sandbox upper", F_NAME, "Box", 0 },
	{ "sandbox option", F_NAME, "-x", 0 },
	{ "sandbox underscore first", F_NAME, "_x", 0 },
	{ "sandbox dot first", F_NAME, ".x", 0 },
	{ "sandbox slash", F_NAME, "a/b", 0 },
	{ "sandbox empty", F_NAME, "", 0 },
	{ "sandbox null", F_NAME, NULL, 0 },
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
	{ "token empty", F_TOKEN, "", 0 },
	{ "token null", F_TOKEN, NULL, 0 },
	{ "token letters", F_TOKEN, "1a", 0 },
	{ "token negative", F_TOKEN, "-1", 0 },
	{ "token quote", F_TOKEN, "1'", 0 },
	{ "token too long", F_TOKEN, "123456789012345678901", 0 },
};

/* Apply refusal r to policy p (and *token, *argc, the env and gpu slots). */
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
		p->sandbox = r->s;
		break;
	case F_TOKEN:
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

/*
 * A workdir: the workspace bound at /workspace and at the workdir (the
 * same directory, read-only for ro, the scratch one for none), execs
 * starting there or under it.
 */
static void
test_workdir(void **state)
{
	struct contain_policy	 p;
	char			 a0[] = "pwd";
	char *const		 argv[] = { a0 };

	(void)state;
	policy_init(&p);
	p.workdir = "/home/alice/my proj";
	check_words(&p, "[docker]" FIXED_WORDS
	    FIXED_CONFINE "[--network][none]" FIXED_SECURITY
	    "[--mount][type=bind,source=/srv/ws,target=/workspace]"
	    "[--mount][type=bind,source=/srv/ws,target=/home/alice/my proj]"
	    HOLDER("alpine:3"));
	check_exec(&p, 1, argv, "[docker][exec][-i][--workdir]"
	    "[/home/alice/my proj]" EXEC_SH "[42][pwd]");
	p.cwd = "build";
	check_exec(&p, 1, argv, "[docker][exec][-i][--workdir]"
	    "[/home/alice/my proj/build]" EXEC_SH "[42][pwd]");
	p.access = CONTAIN_WS_RO;
	check_words(&p, "[docker]" FIXED_WORDS
	    FIXED_CONFINE "[--network][none]" FIXED_SECURITY
	    "[--mount][type=bind,source=/srv/ws,target=/workspace,readonly]"
	    "[--mount][type=bind,source=/srv/ws,target=/home/alice/my proj,"
	    "readonly]" HOLDER("alpine:3"));
	p.runtime = CONTAIN_PODMAN;
	p.access = CONTAIN_WS_NONE;
	p.scratch = "/srv/c1/private";
	check_words(&p, "[podman]" FIXED_WORDS
	    FIXED_CONFINE "[--network][none]" FIXED_SECURITY
	    "[--mount][type=bind,source=/srv/c1/private,target=/workspace]"
	    "[--mount][type=bind,source=/srv/c1/private,"
	    "target=/home/alice/my proj]" HOLDER("alpine:3"));
	/* /workspace itself is bound once. */
	policy_init(&p);
	p.workdir = "/workspace";
	check_words(&p, "[docker]" FIXED_WORDS
	    FIXED_CONFINE "[--network][none]" FIXED_SECURITY
	    "[--mount][type=bind,source=/srv/ws,target=/workspace]"
	    HOLDER("alpine:3"));
}

/* A workdir --mount could not take, or "/", "." or "..", is refused. */
static void
test_workdir_refusals(void **state)
{
	static const char *const bad[] = { "relative", "", "/",
	    "/home/a,b", "/home/a\"b", "/home/a\nb", "/home/../etc",
	    "/home/./a", "/home/a/.." };
	struct contain_policy	 p;
	struct buf		 b = BUF_INIT;
	char			 a0[] = "true";
	char *const		 argv[] = { a0 };
	char			*cause = NULL;
	size_t			 i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		policy_init(&p);
		p.workdir = bad[i];
		if (contain_oci_create(&p, &b, &cause) != CLAW_ERR_INVAL)
			fail_msg("create: not refused: '%s'", bad[i]);
		assert_non_null(strstr(cause, "workdir"));
		free(cause);
		cause = NULL;
		if (contain_oci_exec(&p, "1", 1, argv, &b, &cause) !=
		    CLAW_ERR_INVAL)
			fail_msg("exec: not refused: '%s'", bad[i]);
		free(cause);
		cause = NULL;
		assert_null(b.data);
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
		name = "7";
		argc = 1;
		cause = NULL;
		assert_int_equal(contain_oci_exec(&p, name, argc, argv, &b,
		    &cause), 0);
		assert_int_equal(contain_oci_create(&p, &b, &cause), 0);
		buf_reset(&b);
		buf_append_str(&b, "keep");
		refusal_apply(&refusals[i], &p, &name, &argc, env, gpu);
		if (contain_oci_exec(&p, name, argc, argv, &b, &cause) !=
		    CLAW_ERR_INVAL)
			fail_msg("exec: not refused: %s", refusals[i].what);
		assert_non_null(cause);
		free(cause);
		cause = NULL;
		if (refusals[i].field != F_ARGC &&
		    refusals[i].field != F_TOKEN &&
		    contain_oci_create(&p, &b, &cause) != CLAW_ERR_INVAL)
			fail_msg("create: not refused: %s", refusals[i].what);
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
	p.sandbox = "0box.a_b-c";
	assert_int_equal(contain_oci_exec(&p, "12345678901234567890", 1,
	    argv, &b, &cause), 0);
	assert_non_null(strstr(b.data, "'clawssh-0box.a_b-c'"));
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
	assert_int_equal(contain_oci_exec(&p, "1", 1, argv, &b, &cause),
	    CLAW_ERR_INVAL);
	assert_string_equal(cause, "runtime bwrap is not docker or podman");
	free(cause);
	policy_init(&p);
	p.cwd = "a/../../etc";
	assert_int_equal(contain_oci_create(&p, &b, &cause),
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

/* Numbers of CPUs: decimals and "m" read, refusals, and back as text. */
static void
test_cpus(void **state)
{
	static const struct { const char *s; int64_t v; const char *f; } ok[] = {
		{ "0", 0, "0" }, { "2", 2000, "2" }, { "1.5", 1500, "1.5" },
		{ "0.25", 250, "0.25" }, { "0.001", 1, "0.001" },
		{ "500m", 500, "0.5" }, { "4096", 4096000, "4096" },
		{ "007.010", 7010, "7.01" },
	};
	static const char *const bad[] = {
		"", "-1", "+1", "1.", ".5", "1.2345", "1.5m", "m", "1e3",
		"4097", "4096.001", "99999999999999999999", "1 ", " 1", "0x1",
		"1,5", "2c",
	};
	char	 text[32], *cause;
	int64_t	 v;
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		cause = NULL;
		if (contain_cpus_parse(ok[i].s, &v, &cause) != 0)
			fail_msg("%s: %s", ok[i].s, cause);
		assert_true(v == ok[i].v);
		contain_cpus_format(v, text, sizeof text);
		assert_string_equal(text, ok[i].f);
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		v = 42;
		if (contain_cpus_parse(bad[i], &v, &cause) != CLAW_ERR_INVAL)
			fail_msg("accepted: \"%s\"", bad[i]);
		assert_non_null(cause);
		assert_true(v == 42);
		free(cause);
	}
}

/* The sandbox directory of the wrap tests (lock, run log, warnings). */
static char	wrap_dir[] = "/tmp/test_oci_dirXXXXXX";

/*
 * Engine stubs for wrap_run: "container inspect" answers as
 * $STUB_RUNNING says (unset: no container; same: running with this
 * wrap's digest; old: running with another), "run" logs its words as
 * [WORD]s to WRAP_DIR/run.log and fails with $STUB_FAIL when set.
 */
#define ENGINE_STUBS \
	"docker() { __stub docker \"$@\"; }; " \
	"podman() { __stub podman \"$@\"; }\n" \
	"__stub() { e=$1; shift; case $1 in\n" \
	"container) case ${STUB_RUNNING:-} in same) echo \"true " \
	"$__claw_spec\" ;; old) echo 'true 0-0' ;; *) return 1 ;; esac ;;\n" \
	"run) printf '[%s]' \"$e\" \"$@\" >> \"$WRAP_DIR/run.log\"; " \
	"[ -z \"${STUB_FAIL:-}\" ] || { echo \"$STUB_FAIL\"; return 125; } " \
	";;\nesac; }\n"

/*
 * Run prelude (sh text, after the stubs: it may replace them) and wrap,
 * and then print the positional parameters and ARGV "x y" as [WORD]s
 * (the shell's pid, the exec's token, as [PID]), in a clean environment
 * with LC_TEST set, the engine stubs and setsid, chown and chmod stubs
 * (no watcher runs, nothing changes hands); stderr goes to *err when err
 * is not NULL; return stdout and set *status to the exit status.
 */
static char *
wrap_run(const char *wrap, const char *prelude, int *status, char **err)
{
	struct buf	 cmd = BUF_INIT, out = BUF_INIT, in = BUF_INIT;
	char		 chunk[256], tmpl[] = "/tmp/test_oci_wrapXXXXXX";
	FILE		*f;
	size_t		 n;
	int		 fd, st;

	assert_true((fd = mkstemp(tmpl)) >= 0);
	close(fd);
	buf_appendf(&cmd, "env -i PATH=/usr/bin:/bin LC_TEST=1 TERM=x "
	    "SECRET_TOKEN=s WRAP_DIR=%s /bin/sh -c ", wrap_dir);
	buf_append_str(&in, "setsid() { :; }; chown() { :; }; "
	    "chmod() { :; }\n" ENGINE_STUBS);
	buf_append_str(&in, prelude);
	buf_append_str(&in, wrap);
	buf_append_str(&in, "\nset -- \"$@\" x 'y z'\n"
	    "for a do [ \"$a\" = $$ ] && a=PID; printf '[%s]' \"$a\"; done\n");
	shquote_append(&cmd, in.data);
	buf_free(&in);
	buf_appendf(&cmd, " 2>%s", tmpl);
	f = popen(cmd.data, "r");
	assert_non_null(f);
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&out, chunk, n);
	st = pclose(f);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (err != NULL)
		*err = file_read(tmpl);
	unlink(tmpl);
	buf_free(&cmd);
	buf_append(&out, "", 1);
	return buf_detach(&out);
}

/* Return (allocated) the run log of the wrap tests, and empty it. */
static char *
run_log(void)
{
	char	*path, *s;

	path = xasprintf("%s/run.log", wrap_dir);
	s = file_read(path);
	unlink(path);
	free(path);
	return s;
}

/* Run wrap with the usual stubs; see wrap_run. */
static char *
wrap_split(const char *wrap, int *status, char **err)
{
	return wrap_run(wrap, "", status, err);
}

/* Fill o for the wrap tests. */
static void
opts_init(struct contain_oci_opts *o)
{
	memset(o, 0, sizeof *o);
	o->dir = wrap_dir;
}

/* Check that run (a run log) is before, a spec label, then after. */
static void
check_run(const char *run, const char *before, const char *after)
{
	const char	*s;
	size_t		 n;

	n = strlen(before);
	if (strncmp(run, before, n) != 0)
		fail_msg("run words: %s\nwant first: %s", run, before);
	s = run + n;
	assert_true(strncmp(s, "[--label][clawssh.spec=", 23) == 0);
	s += 23;
	n = strspn(s, "0123456789-");
	assert_true(n >= 3 && s[n] == ']');
	assert_string_equal(s + n + 1, after);
}

/*
 * A setsid stub for wrap_run that logs the watcher's words as [WORD]s to
 * WRAP_DIR/watch.log (the wrap's pid as [PID]), for watch_log.
 */
#define WATCH_STUB \
	"setsid() { for a do [ \"$a\" = $$ ] && a=PID; printf '[%s]' " \
	"\"$a\"; done > \"$WRAP_DIR/watch.tmp\"; " \
	"mv \"$WRAP_DIR/watch.tmp\" \"$WRAP_DIR/watch.log\"; }\n"

/* Return (allocated) the watcher's words, waiting up to 5 s for them. */
static char *
watch_log(void)
{
	char	*path, *s;
	int	 i;

	path = xasprintf("%s/watch.log", wrap_dir);
	for (i = 0; i < 100 && access(path, F_OK) != 0; i++)
		usleep(50000);
	s = file_read(path);
	unlink(path);
	free(path);
	return s;
}

/*
 * The wrap: the container is started when none runs (its words with the
 * identity and the digest), then the exec words: workdir, user, names
 * (--env, base, LC_*), the container and the in-container wrapper with
 * the shell's pid as token, then ARGV.  Its values come as positional
 * parameters; the watcher runs the kill script in the container as the
 * exec's user.
 */
static void
test_wrap_docker(void **state)
{
	struct contain_policy	 p;
	struct contain_oci_opts	 o;
	const char		*env[] = { "API_TOKEN" };
	char			*wrap, *got, *err, *run, *watch, *params;
	char			*cause = NULL;
	int			 st;

	(void)state;
	policy_init(&p);
	opts_init(&o);
	p.env = env;
	p.nenv = 1;
	p.user = "1000:1000";
	p.cwd = "src";
	wrap = contain_oci_wrap(&p, &o, &cause);
	assert_non_null(wrap);
	assert_null(strstr(wrap, "SECRET"));
	params = xasprintf("set -- 'docker' 'clawssh-cabcdefghijkl' "
	    "'cabcdefghijkl' '%s' '/srv/ws' '' '1000:1000' '' '' '0' "
	    "'clawssh.spec' 'f=/tmp/.clawssh-exec-$1; ", wrap_dir);
	assert_true(strncmp(wrap, params, strlen(params)) == 0);
	free(params);
	got = wrap_run(wrap, WATCH_STUB, &st, &err);
	assert_int_equal(st, 0);
	assert_string_equal(got, "[docker][exec][-i][--workdir]"
	    "[/workspace/src][--user][1000:1000][-e][API_TOKEN]"
	    "[-e][LANG][-e][TERM][-e][TZ][-e][LC_TEST]" EXEC_SH
	    "[PID][x][y z]");
	assert_string_equal(err, "");
	run = run_log();
	check_run(run, "[docker]" FIXED_WORDS FIXED_CONFINE "[--network][none]"
	    FIXED_SECURITY "[--mount][type=bind,source=/srv/ws,"
	    "target=/workspace][--user][1000:1000]", HOLDER("alpine:3"));
	/* The watcher: its own session, killing the exec's group inside. */
	watch = watch_log();
	assert_string_equal(watch, "[sh][-c][while kill -0 \"$1\" "
	    "2>/dev/null; do sleep 1; done; shift; exec \"$@\"][sh][PID]"
	    "[docker][exec][--user][1000:1000][clawssh-cabcdefghijkl]"
	    "[/bin/sh][-c][" CONTAIN_OCI_KILL_SH "][sh][PID]");
	free(watch);
	free(run);
	free(err);
	free(got);
	free(wrap);
}

/*
 * A running container with the same digest is used as it is; one with
 * another digest too, with a warning once per digest; a failed start
 * stops the exec with the engine's last line; -v notes a start.
 */
static void
test_wrap_box(void **state)
{
	struct contain_policy	 p;
	struct contain_oci_opts	 o;
	char			*wrap, *got, *err, *run, *cause = NULL;
	const char		*warn = "clawssh: warning: the sandbox "
	    "environment runs with older settings; 'clawssh stop "
	    "cabcdefghijkl' then the next command applies the new ones\n";
	int			 st, i;

	(void)state;
	policy_init(&p);
	p.runtime = CONTAIN_PODMAN;
	opts_init(&o);
	o.verbose = 1;
	wrap = contain_oci_wrap(&p, &o, &cause);
	got = wrap_split(wrap, &st, &err);
	assert_int_equal(st, 0);
	assert_string_equal(err, "clawssh: started the sandbox's container "
	    "clawssh-cabcdefghijkl (podman)\n");
	free(run_log());
	free(err);
	free(got);
	got = wrap_run(wrap, "STUB_RUNNING=same\n", &st, &err);
	assert_int_equal(st, 0);
	assert_string_equal(err, "");
	run = run_log();
	assert_string_equal(run, "");
	free(run);
	free(err);
	free(got);
	for (i = 0; i < 2; i++) {
		got = wrap_run(wrap, "STUB_RUNNING=old\n", &st, &err);
		assert_int_equal(st, 0);
		assert_string_equal(err, i == 0 ? warn : "");
		assert_non_null(strstr(got, "[podman][exec][-i]"));
		run = run_log();
		assert_string_equal(run, "");
		free(run);
		free(err);
		free(got);
	}
	got = wrap_run(wrap, "STUB_FAIL='Error: boom'\n", &st, &err);
	assert_int_equal(st, 125);
	assert_string_equal(got, "");
	assert_string_equal(err, "clawssh: cannot start the sandbox's "
	    "container clawssh-cabcdefghijkl (the image needs /bin/sh and "
	    "sleep): Error: boom\n");
	free(run_log());
	free(err);
	free(got);
	free(wrap);
}

/* A user name is resolved on the host; a missing one stops the run. */
static void
test_wrap_user_name(void **state)
{
	struct contain_policy	 p;
	struct contain_oci_opts	 o;
	char			*wrap, *got, *err, *run, *cause = NULL;
	int			 st;

	(void)state;
	policy_init(&p);
	opts_init(&o);
	p.runtime = CONTAIN_PODMAN;
	p.user = "root";
	wrap = contain_oci_wrap(&p, &o, &cause);
	assert_non_null(wrap);
	got = wrap_split(wrap, &st, NULL);
	assert_int_equal(st, 0);
	assert_string_equal(got, "[podman][exec][-i][--workdir][/workspace]"
	    "[--user][0:0][-e][LANG][-e][TERM][-e][TZ][-e][LC_TEST]"
	    EXEC_SH "[PID][x][y z]");
	run = run_log();
	check_run(run, "[podman]" FIXED_WORDS FIXED_CONFINE
	    "[--network][none]" FIXED_SECURITY
	    "[--mount][type=bind,source=/srv/ws,target=/workspace]"
	    "[--user][0:0]", HOLDER("alpine:3"));
	free(run);
	free(got);
	free(wrap);
	p.user = "no_such_user_cl4w";
	wrap = contain_oci_wrap(&p, &o, &cause);
	assert_non_null(wrap);
	got = wrap_split(wrap, &st, &err);
	assert_int_equal(st, 125);
	assert_string_equal(got, "");
	assert_non_null(strstr(err, "clawssh: user no_such_user_cl4w does "
	    "not exist on this host"));
	run = run_log();
	assert_string_equal(run, "");
	free(run);
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
 * Run wrap as host uid uid, after more (sh text); check the status, that
 * stderr is err, and the --user words (NULL: none).
 */
static void
check_ids(const char *wrap, const char *uid, const char *more, int want_st,
    const char *err, const char *user)
{
	char	*pre, *got, *e, *run;
	int	 st;

	pre = xasprintf(AS_UID("%s") "%s\n", uid, more);
	got = wrap_run(wrap, pre, &st, &e);
	run = run_log();
	assert_int_equal(st, want_st);
	assert_string_equal(e, err);
	if (user == NULL) {
		assert_null(strstr(got, "--user"));
		assert_null(strstr(run, "--user"));
	} else if (want_st == 0) {
		assert_non_null(strstr(got, user));
		assert_non_null(strstr(run, user));
	}
	free(run);
	free(e);
	free(got);
	free(pre);
}

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
	struct contain_oci_opts	 o;
	char			*wrap, *cause = NULL;

	(void)state;
	policy_init(&p);
	opts_init(&o);
	o.default_uid = DEF_UID;
	wrap = contain_oci_wrap(&p, &o, &cause);
	assert_non_null(wrap);
	check_ids(wrap, "0", "", 0, "chown -R -h -P " DEF_UG " /srv/ws\n"
	    "chmod 700 /srv/ws\n", "[--user][" DEF_UG "]");
	check_ids(wrap, "1000", "", 0, "", NULL);
	free(wrap);

	/* Access none: the scratch directory is the one given. */
	p.access = CONTAIN_WS_NONE;
	p.scratch = "/srv/private";
	wrap = contain_oci_wrap(&p, &o, &cause);
	check_ids(wrap, "0", "", 0, "chown -R -h -P " DEF_UG " /srv/private\n"
	    "chmod 700 /srv/private\n", "[--user][" DEF_UG "]");
	free(wrap);

	/* The directory cannot be given: nothing runs. */
	wrap = contain_oci_wrap(&p, &o, &cause);
	check_ids(wrap, "0", "chown() { return 1; }", 125,
	    "clawssh: cannot give the workspace to the sandbox's user\n",
	    "");
	free(wrap);

	/* default_uid 0 (user "root" in the settings): no --user. */
	p.access = CONTAIN_WS_RW;
	o.default_uid = 0;
	wrap = contain_oci_wrap(&p, &o, &cause);
	check_ids(wrap, "0", "", 0, "", NULL);
	free(wrap);

	/* A user set wins. */
	p.user = "1000:1000";
	o.default_uid = DEF_UID;
	wrap = contain_oci_wrap(&p, &o, &cause);
	check_ids(wrap, "0", "", 0, "chown -R -h -P 1000:1000 /srv/ws\n"
	    "chmod 700 /srv/ws\n", "[--user][1000:1000]");
	free(wrap);
}

/*
 * GPUs come from the allocation file at run time, per engine; inside,
 * CUDA numbers them from 0 (host GPUs 0 and 2 are CUDA 0 and 1).
 */
static void
test_wrap_gpus(void **state)
{
	struct contain_policy	 p;
	struct contain_oci_opts	 o;
	const char		*gpus = "0 cabcdefghijkl\n1 cother000000\n"
	    "2 cabcdefghijkl\n";
	char			 path[] = "/tmp/test_oci_gpusXXXXXX";
	char			*wrap, *got, *err, *run, *cause = NULL;
	int			 fd, st;

	(void)state;
	assert_true((fd = mkstemp(path)) >= 0);
	assert_true(write(fd, gpus, strlen(gpus)) == (ssize_t)strlen(gpus));
	close(fd);
	policy_init(&p);
	opts_init(&o);
	o.gpu_file = path;
	wrap = contain_oci_wrap(&p, &o, &cause);
	assert_non_null(wrap);
	got = wrap_split(wrap, &st, NULL);
	assert_int_equal(st, 0);
	assert_non_null(strstr(got, "[-e][LC_TEST][-e]"
	    "[CUDA_VISIBLE_DEVICES=0,1][-e][NVIDIA_VISIBLE_DEVICES=0,2]"
	    "[clawssh-cabcdefghijkl]"));
	run = run_log();
	assert_non_null(strstr(run, "[--gpus][\"device=0,2\"][--label]"));
	free(run);
	free(got);
	free(wrap);
	p.runtime = CONTAIN_PODMAN;
	wrap = contain_oci_wrap(&p, &o, &cause);
	got = wrap_split(wrap, &st, NULL);
	run = run_log();
	assert_non_null(strstr(run, "[--device][nvidia.com/gpu=0]"
	    "[--device][nvidia.com/gpu=2][--label]"));
	assert_non_null(strstr(got, "[-e][CUDA_VISIBLE_DEVICES=0,1]"));
	free(run);
	free(got);
	free(wrap);
	p.sandbox = "cnone0000000";
	wrap = contain_oci_wrap(&p, &o, &cause);
	got = wrap_split(wrap, &st, &err);
	assert_int_equal(st, 125);
	assert_non_null(strstr(err, "sandbox cnone0000000 has no GPUs "
	    "assigned on this host"));
	free(run_log());
	free(err);
	free(got);
	free(wrap);
	unlink(path);
}

/* The wrap refuses what contain_oci_create refuses, and more. */
static void
test_wrap_refusals(void **state)
{
	struct contain_policy	 p;
	struct contain_oci_opts	 o;
	char			*cause = NULL;

	(void)state;
	policy_init(&p);
	opts_init(&o);
	p.image = "x;reboot";
	assert_null(contain_oci_wrap(&p, &o, &cause));
	assert_non_null(strstr(cause, "bad container image"));
	free(cause);
	cause = NULL;
	policy_init(&p);
	p.user = "Root";
	assert_null(contain_oci_wrap(&p, &o, &cause));
	assert_string_equal(cause, "bad user (want a numeric uid[:gid])");
	free(cause);
	cause = NULL;
	policy_init(&p);
	p.sandbox = "../x";
	assert_null(contain_oci_wrap(&p, &o, &cause));
	assert_string_equal(cause, "bad sandbox id (allowed: "
	    "[a-z0-9][a-z0-9_.-]*)");
	free(cause);
	cause = NULL;
	policy_init(&p);
	p.sandbox = NULL;
	assert_null(contain_oci_wrap(&p, &o, &cause));
	free(cause);
	cause = NULL;
	policy_init(&p);
	o.dir = NULL;
	assert_null(contain_oci_wrap(&p, &o, &cause));
	free(cause);
	cause = NULL;
	opts_init(&o);
	policy_init(&p);
	p.runtime = CONTAIN_BWRAP;
	assert_null(contain_oci_wrap(&p, &o, &cause));
	assert_string_equal(cause, "runtime bwrap is not docker or podman");
	free(cause);
	assert_int_equal(contain_image_ref_check("ghcr.io/a/b:1@sha256:ab",
	    NULL), 0);
	assert_int_equal(contain_image_ref_check("a b", NULL),
	    CLAW_ERR_INVAL);
	assert_int_equal(contain_image_ref_check("$(id)", NULL),
	    CLAW_ERR_INVAL);
}

/*
 * Run script (sh text) with /bin/sh; return its exit status.
 */
static int
sh_script(const char *script)
{
	struct buf	cmd = BUF_INIT;
	int		st;

	buf_append_str(&cmd, "/bin/sh -c ");
	shquote_append(&cmd, script);
	st = system(cmd.data);
	buf_free(&cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Return the exit status of shell sh running CONTAIN_OCI_EXEC_SH. */
static int
exec_sh_status(const char *sh, const char *tok, const char *cmd)
{
	struct buf	s = BUF_INIT;
	int		st;

	buf_appendf(&s, "%s -c ", sh);
	shquote_append(&s, CONTAIN_OCI_EXEC_SH);
	buf_appendf(&s, " sh %s %s 2>/dev/null", tok, cmd);
	st = sh_script(s.data);
	buf_free(&s);
	return st;
}

/*
 * The in-container scripts under dash and busybox sh: the exec wrapper
 * keeps the command's status (127 and 126 from sh, builtins not run) and
 * empties its record after; the kill script ends a recorded group (run
 * in its own session, as the engines run an exec), background children
 * included.
 */
static void
test_exec_scripts(void **state)
{
	const char	*shells[] = { "/bin/sh", "busybox sh" };
	struct buf	 s = BUF_INIT;
	char		*tok, *path, *got;
	size_t		 i;

	(void)state;
	tok = xasprintf("9%ld", (long)getpid());
	path = xasprintf("/tmp/.clawssh-exec-%s", tok);
	for (i = 0; i < sizeof shells / sizeof shells[0]; i++) {
		if (i == 1 && system("busybox sh -c : 2>/dev/null") != 0)
			continue;
		assert_int_equal(exec_sh_status(shells[i], tok,
		    "sh -c 'exit 3'"), 3);
		got = file_read(path);
		assert_string_equal(got, "");
		free(got);
		assert_int_equal(exec_sh_status(shells[i], tok,
		    "no-such-cmd-cl4w"), 127);
		assert_int_equal(exec_sh_status(shells[i], tok, "exit 5"), 127);
		assert_int_equal(exec_sh_status(shells[i], tok, "/etc/passwd"),
		    126);
		buf_reset(&s);
		buf_appendf(&s, "setsid %s -c ", shells[i]);
		shquote_append(&s, CONTAIN_OCI_EXEC_SH);
		buf_appendf(&s, " sh %s sh -c 'sleep 30 & sleep 31; wait' & "
		    "i=0; while ! [ -s %s ] && [ $i -lt 50 ]; do sleep 0.1; "
		    "i=$((i + 1)); done; g=$(cat %s); sleep 0.2; "
		    "[ \"$(pgrep -g \"$g\" | wc -l)\" -ge 3 ] || exit 10; "
		    "%s -c ", tok, path, path, shells[i]);
		shquote_append(&s, CONTAIN_OCI_KILL_SH);
		buf_appendf(&s, " sh %s; i=0; while pgrep -g \"$g\" >/dev/null "
		    "&& [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done; "
		    "pgrep -g \"$g\" >/dev/null && exit 11; [ -s %s ] && "
		    "exit 12; exit 0", tok, path);
		assert_int_equal(sh_script(s.data), 0);
	}
	buf_free(&s);
	unlink(path);
	free(path);
	free(tok);
}

/*
 * Run code (sh text) after stubs (sh text) in a clean environment;
 * return stdout, set *status.
 */
static char *
stub_run(const char *stubs, const char *code, int *status)
{
	struct buf	 cmd = BUF_INIT, in = BUF_INIT, out = BUF_INIT;
	char		 chunk[256];
	FILE		*f;
	size_t		 n;
	int		 st;

	buf_append_str(&cmd, "env -i PATH=/usr/bin:/bin /bin/sh -c ");
	buf_appendf(&in, "%s\n%s", stubs, code);
	shquote_append(&cmd, in.data);
	buf_append_str(&cmd, " 2>/dev/null");
	assert_non_null(f = popen(cmd.data, "r"));
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&out, chunk, n);
	st = pclose(f);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	buf_free(&in);
	buf_free(&cmd);
	buf_append(&out, "", 1);
	return buf_detach(&out);
}

/* A podman stub: inspect says $1 ("" none), rm exits $2; stats; top echoes. */
#define POD_STUB(state, rm) \
	"podman() { case $1 in\n" \
	"container) [ -n '" state "' ] || return 125; echo '" state "' ;;\n" \
	"rm) echo \"rm $2 $3\" >&2; return " rm " ;;\n" \
	"stats) echo '1.5MB / 512MB' ;;\n" \
	"top) echo 'PID USER ELAPSED COMMAND'; echo \"1 0 1m $*\" ;;\n" \
	"esac; }"

/* stop and status: their output for each state, and their refusals. */
static void
test_stop_status(void **state)
{
	char	*stop, *status, *got, *cause = NULL;
	int	 st;

	(void)state;
	stop = contain_oci_stop(CONTAIN_PODMAN, "cabcdefghijkl", &cause);
	status = contain_oci_status(CONTAIN_PODMAN, "cabcdefghijkl", &cause);
	assert_non_null(stop);
	assert_non_null(status);
	got = stub_run(POD_STUB("", "0"), stop, &st);
	assert_int_equal(st, 0);
	assert_string_equal(got, "not running\n");
	free(got);
	got = stub_run(POD_STUB("{}", "0"), stop, &st);
	assert_int_equal(st, 0);
	assert_string_equal(got, "stopped\n");
	free(got);
	got = stub_run(POD_STUB("{}", "2"), stop, &st);
	assert_int_equal(st, 1);
	free(got);
	got = stub_run("PATH=/nonexistent", stop, &st);
	assert_int_equal(st, 125);
	free(got);
	got = stub_run(POD_STUB("", "0"), status, &st);
	assert_int_equal(st, 0);
	assert_string_equal(got, "state: absent\n");
	free(got);
	got = stub_run(POD_STUB("false", "0"), status, &st);
	assert_string_equal(got, "state: stopped\n");
	free(got);
	got = stub_run(POD_STUB("true", "0"), status, &st);
	assert_int_equal(st, 0);
	assert_string_equal(got, "state: running\nmemory: 1.5MB / 512MB\n"
	    "processes:\n  PID USER ELAPSED COMMAND\n"
	    "  1 0 1m top clawssh-cabcdefghijkl pid user etime args\n");
	free(got);
	free(status);
	free(stop);
	status = contain_oci_status(CONTAIN_DOCKER, "cabcdefghijkl", &cause);
	got = stub_run("docker() { case $1 in container) echo true ;; "
	    "top) echo \"$*\" ;; esac; }", status, &st);
	assert_int_equal(st, 0);
	assert_string_equal(got, "state: running\nmemory: unknown\n"
	    "processes:\n  top clawssh-cabcdefghijkl -o pid,user,etime,args\n");
	free(got);
	free(status);
	assert_null(contain_oci_stop(CONTAIN_BWRAP, "cabcdefghijkl", &cause));
	assert_string_equal(cause, "runtime bwrap is not docker or podman");
	free(cause);
	cause = NULL;
	assert_null(contain_oci_status(CONTAIN_PODMAN, "a;b", &cause));
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	assert_null(contain_oci_stop(CONTAIN_DOCKER, NULL, &cause));
	free(cause);
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
		cmocka_unit_test(test_workdir),
		cmocka_unit_test(test_workdir_refusals),
		cmocka_unit_test(test_accepts),
		cmocka_unit_test(test_refusal_causes),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_size_ok),
		cmocka_unit_test(test_size_bad),
		cmocka_unit_test(test_cpus),
		cmocka_unit_test(test_wrap_docker),
		cmocka_unit_test(test_wrap_box),
		cmocka_unit_test(test_wrap_user_name),
		cmocka_unit_test(test_wrap_default_uid),
		cmocka_unit_test(test_wrap_gpus),
		cmocka_unit_test(test_wrap_refusals),
		cmocka_unit_test(test_exec_scripts),
		cmocka_unit_test(test_stop_status),
	};
	int	rc;

	if (mkdtemp(wrap_dir) == NULL)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	unlink_dir(wrap_dir);
	return rc;
}
