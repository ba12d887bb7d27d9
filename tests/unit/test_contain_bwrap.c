/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * contain_bwrap_wrap's user switch, run through a real sh with id,
 * chown, chmod, setpriv and bwrap as stubs: the positional parameters it
 * leaves (the command line exec runs) and what it changes on the host.
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

#include "compat.h"
#include "buf.h"
#include "contain_bwrap.h"
#include "sandbox.h"
#include "shquote.h"
#include "xmalloc.h"

#define ROOT	"/srv/claw"
#define ID	"cabcdefghijkl"

/*
 * Stubs: id answers as uid UID_NOW (0: root; the wrap clears the
 * environment, so the number is written into the stub) and knows
 * "nobody" as 65534:65534; chown, chmod, mkdir and setpriv report on
 * stderr as {...}; stat says the workspace belongs to uid OWNER.
 */
#define STUBS \
	"id() { case $1 in -u) [ $# -eq 1 ] && echo %d && return;" \
	" [ \"$3\" = nobody ] && echo 65534 || return 1 ;;" \
	" -g) [ \"$3\" = nobody ] && echo 65534 || return 1 ;;" \
	" -un) echo alice ;; esac; }\n" \
	"chown() { echo \"{chown $*}\" >&2; }\n" \
	"chmod() { echo \"{chmod $*}\" >&2; }\n" \
	"setpriv() { echo \"{setpriv $*}\" >&2; }\n" \
	"stat() { echo %d; }\n" \
	"mkdir() { echo \"{mkdir $*}\" >&2; }\n" \
	"bwrap() { :; }\n"

/* Read all of f into an allocated string. */
static char *
slurp(FILE *f)
{
	struct buf	b = BUF_INIT;
	char		chunk[512];
	size_t		n;

	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(&b, chunk, n);
	buf_append(&b, "", 1);
	return buf_detach(&b);
}

static int	owner;		/* of the workspace, for the stat stub */
static int	step;		/* run contain_bwrap_step instead */
static const char *workdir;	/* the spec's workdir */
static const char *cwd;		/* the spec's cwd */

/*
 * Run the wrap (or the step jail) for settings s as uid uid_now, then
 * print the positional parameters as [WORD]s; return them, set *err to
 * stderr and *status.
 */
static char *
run_wrap(const struct sandbox_settings *s, int uid_now, int note,
    char **err, int *status)
{
	struct contain_spec	 spec;
	struct buf		 in = BUF_INIT, cmd = BUF_INIT;
	char			 tmpl[] = "/tmp/test_bwrapXXXXXX";
	char			*wrap, *out;
	FILE			*f;
	int			 fd, st;

	memset(&spec, 0, sizeof spec);
	spec.settings = s;
	spec.root = ROOT;
	spec.id = ID;
	spec.note_user = note;
	spec.workdir = workdir;
	spec.cwd = cwd;
	wrap = step ? contain_bwrap_step(&spec, "workspace") :
	    contain_bwrap_wrap(&spec);
	assert_true((fd = mkstemp(tmpl)) >= 0);
	close(fd);
	buf_appendf(&in, STUBS, uid_now, owner);
	buf_append_str(&in, wrap);
	buf_append_str(&in, "\nfor a do printf '[%s]' \"$a\"; done\n");
	buf_append_str(&cmd, "/bin/sh -c ");
	shquote_append(&cmd, in.data);
	buf_appendf(&cmd, " 2>%s", tmpl);
	assert_non_null(f = popen(cmd.data, "r"));
	out = slurp(f);
	st = pclose(f);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	assert_non_null(f = fopen(tmpl, "r"));
	*err = slurp(f);
	fclose(f);
	unlink(tmpl);
	buf_free(&in);
	buf_free(&cmd);
	free(wrap);
	return out;
}

/* As root with uid:gid: setpriv before bwrap, the workspace given. */
static void
test_root_numeric(void **state)
{
	struct sandbox_settings	 s;
	const char		*want;
	char			*out, *err;
	int			 st;

	(void)state;
	sandbox_settings_default(&s);
	strlcpy(s.user, "12345:12346", sizeof s.user);
	out = run_wrap(&s, 0, 1, &err, &st);
	assert_int_equal(st, 0);
	want = "[setpriv][--reuid=12345][--regid=12346][--clear-groups]"
	    "[--no-new-privs][--][bwrap][--unshare-all]";
	assert_true(strncmp(out, want, strlen(want)) == 0);
	assert_non_null(strstr(out, "[--bind][" ROOT "/" ID "/workspace]"
	    "[/workspace]"));
	assert_non_null(strstr(err, "{chown -R -h -P 12345:12346 " ROOT "/"
	    ID "/workspace}\n{chmod 700 " ROOT "/" ID "/workspace}\n"
	    "{chmod 711 " ROOT " " ROOT "/" ID "}\n"));
	assert_non_null(strstr(err, "{setpriv --reuid=12345 --regid=12346 "
	    "--clear-groups -- test -x " ROOT "/" ID "/workspace}"));
	assert_null(strstr(err, "note"));
	free(out);
	free(err);
}

/*
 * A name is resolved on the host; access none gives private/.  (With an
 * image the store is made searchable too; that chmod's errors are
 * silenced, so it is not seen here.)
 */
static void
test_root_name_private(void **state)
{
	struct sandbox_settings	 s;
	char			*out, *err;
	int			 st;

	(void)state;
	sandbox_settings_default(&s);
	s.access = SANDBOX_ACCESS_NONE;
	strlcpy(s.user, "nobody", sizeof s.user);
	out = run_wrap(&s, 0, 0, &err, &st);
	assert_int_equal(st, 0);
	assert_true(strncmp(out, "[setpriv][--reuid=65534][--regid=65534]",
	    39) == 0);
	assert_non_null(strstr(out, "[--bind][" ROOT "/" ID "/private]"
	    "[/workspace]"));
	assert_non_null(strstr(err, "{chown -R -h -P 65534:65534 " ROOT "/"
	    ID "/private}"));
	free(out);
	free(err);
}

/* Not root: no switch, nothing changes hands; a note only if asked. */
static void
test_not_root(void **state)
{
	struct sandbox_settings	 s;
	char			*out, *err;
	int			 st;

	(void)state;
	sandbox_settings_default(&s);
	strlcpy(s.user, "nobody", sizeof s.user);
	out = run_wrap(&s, 1000, 1, &err, &st);
	assert_int_equal(st, 0);
	assert_true(strncmp(out, "[bwrap][--unshare-all]", 22) == 0);
	assert_string_equal(err, "clawssh: note: user nobody applies when "
	    "connecting as root; commands run as alice\n");
	free(out);
	free(err);
	out = run_wrap(&s, 1000, 0, &err, &st);
	assert_int_equal(st, 0);
	assert_string_equal(err, "");
	free(out);
	free(err);
	/* No user, not root: no switch, no note. */
	s.user[0] = '\0';
	out = run_wrap(&s, 1000, 1, &err, &st);
	assert_true(strncmp(out, "[bwrap][--unshare-all]", 22) == 0);
	assert_string_equal(err, "");
	free(out);
	free(err);
}

/*
 * No user as root: the sandbox's own uid, the workspace given to it
 * only while its top is someone else's; "root" keeps root.
 */
static void
test_root_default(void **state)
{
	struct sandbox_settings	 s;
	char			*out, *err, *want;
	unsigned int		 uid = sandbox_default_uid(ID);
	int			 st;

	(void)state;
	assert_true(uid >= SANDBOX_UID_BASE &&
	    uid < SANDBOX_UID_BASE + SANDBOX_UID_SPAN);
	assert_int_not_equal(uid, sandbox_default_uid("cabcdefghijkm"));
	sandbox_settings_default(&s);
	owner = 0;
	out = run_wrap(&s, 0, 1, &err, &st);
	assert_int_equal(st, 0);
	want = xasprintf("[setpriv][--reuid=%u][--regid=%u]", uid, uid);
	assert_true(strncmp(out, want, strlen(want)) == 0);
	free(want);
	want = xasprintf("{chown -R -h -P %u:%u " ROOT "/" ID "/workspace}",
	    uid, uid);
	assert_non_null(strstr(err, want));
	assert_null(strstr(err, "note"));
	free(out);
	free(err);
	owner = (int)uid;	/* given already: no chown -R again */
	out = run_wrap(&s, 0, 1, &err, &st);
	assert_int_equal(st, 0);
	assert_null(strstr(err, "{chown"));
	free(out);
	free(err);
	free(want);
	owner = 0;
	strlcpy(s.user, "root", sizeof s.user);
	out = run_wrap(&s, 0, 1, &err, &st);
	assert_int_equal(st, 0);
	assert_true(strncmp(out, "[bwrap][--unshare-all]", 22) == 0);
	assert_string_equal(err, "");
	free(out);
	free(err);
}

/*
 * The host-root view: /etc's secrets covered (only those that exist on
 * this machine are named, so only /etc/shadow is asserted), /sys not
 * bound unless GPUs are asked for.
 */
static void
test_root_view(void **state)
{
	struct sandbox_settings	 s;
	char			*out, *err;
	int			 st;

	(void)state;
	sandbox_settings_default(&s);
	out = run_wrap(&s, 1000, 0, &err, &st);
	assert_int_equal(st, 0);
	if (access("/etc/shadow", F_OK) == 0)
		assert_non_null(strstr(out, "[--ro-bind][/dev/null]"
		    "[/etc/shadow]"));
	if (access("/etc/ssh", F_OK) == 0)
		assert_non_null(strstr(out, "[--tmpfs][/etc/ssh]"));
	assert_non_null(strstr(out, "[--tmpfs][/root]"));
	assert_null(strstr(out, "[/sys]"));
	free(out);
	free(err);
}

/*
 * The step jail: the host's programs read-only, the workspace read-write
 * at /workspace and nothing else of the host (no "/" bound, no /etc
 * but the loader's cache, no remoteRoot, no /home), as the sandbox's
 * uid when root.
 */
static void
test_step_jail(void **state)
{
	struct sandbox_settings	 s;
	char			*out, *err, *want;
	unsigned int		 uid = sandbox_default_uid(ID);
	int			 st;

	(void)state;
	sandbox_settings_default(&s);
	step = 1;
	owner = (int)uid;
	out = run_wrap(&s, 0, 0, &err, &st);
	step = 0;
	assert_int_equal(st, 0);
	want = xasprintf("[setpriv][--reuid=%u][--regid=%u][--clear-groups]"
	    "[--no-new-privs][--][bwrap][--unshare-user][--unshare-ipc]"
	    "[--unshare-pid][--unshare-uts][--unshare-cgroup-try]"
	    "[--die-with-parent][--new-session][--cap-drop][ALL]", uid, uid);
	assert_true(strncmp(out, want, strlen(want)) == 0);
	free(want);
	assert_non_null(strstr(out, "[/usr][/usr]"));
	assert_non_null(strstr(out, "[--bind][" ROOT "/" ID "/workspace]"
	    "[/workspace][--chdir][/workspace][--remount-ro][/][--]"));
	assert_null(strstr(out, "[/][/]"));
	assert_null(strstr(out, "[/home]"));
	assert_null(strstr(out, "[/root]"));
	assert_null(strstr(out, "[/etc]"));
	assert_null(strstr(out, "[/tmp][/tmp]"));
	assert_null(strstr(out, "[" ROOT "]"));
	free(out);
	free(err);
}

/*
 * A workdir: the workspace bound at /workspace and at the workdir (the
 * same directory per access), the command starting there (or under it,
 * for a relative cwd); the steps keep /workspace.
 */
static void
test_workdir_binds(void **state)
{
	struct sandbox_settings	 s;
	char			*out, *err;
	int			 st;

	(void)state;
	sandbox_settings_default(&s);
	workdir = "/home/alice/my proj";
	out = run_wrap(&s, 1000, 0, &err, &st);
	assert_int_equal(st, 0);
	assert_string_equal(err, "");
	assert_non_null(strstr(out, "[--dir][/workspace][--bind][" ROOT "/"
	    ID "/workspace][/workspace][--bind][" ROOT "/" ID "/workspace]"
	    "[/home/alice/my proj][--chdir][/home/alice/my proj]"));
	free(out);
	free(err);
	cwd = "build";
	s.access = SANDBOX_ACCESS_RO;
	out = run_wrap(&s, 1000, 0, &err, &st);
	assert_non_null(strstr(out, "[--ro-bind][" ROOT "/" ID "/workspace]"
	    "[/home/alice/my proj][--chdir][/home/alice/my proj/build]"));
	free(out);
	free(err);
	cwd = "/opt";
	s.access = SANDBOX_ACCESS_NONE;
	out = run_wrap(&s, 1000, 0, &err, &st);
	assert_non_null(strstr(out, "[--bind][" ROOT "/" ID "/private]"
	    "[/home/alice/my proj][--chdir][/opt]"));
	free(out);
	free(err);
	cwd = NULL;
	step = 1;
	out = run_wrap(&s, 1000, 0, &err, &st);
	step = 0;
	assert_null(strstr(out, "alice"));
	free(out);
	free(err);
	workdir = NULL;
}

/*
 * A workdir bwrap could not make a mount point for stops the command
 * (125): under a top-level directory of the host bound read-only that
 * lacks it, or missing from an image; under bwrap's own tmpfs (/home) or
 * a top-level name the host lacks, or existing on the host, it runs.
 */
static void
test_workdir_guard(void **state)
{
	struct sandbox_settings	 s;
	char			*out, *err;
	int			 st;

	(void)state;
	sandbox_settings_default(&s);
	workdir = "/usr/no-such-dir-clawssh/p";
	out = run_wrap(&s, 1000, 0, &err, &st);
	assert_int_equal(st, 125);
	assert_string_equal(out, "");
	assert_string_equal(err, "clawssh: workdir local: "
	    "/usr/no-such-dir-clawssh/p cannot hold the workspace: /usr is "
	    "the host's, bound read-only inside, and the host has no such "
	    "directory to bind at: make it on the host, or use --workdir "
	    "/workspace\n");
	free(out);
	free(err);
	workdir = "/usr";		/* there: bound over */
	out = run_wrap(&s, 1000, 0, &err, &st);
	assert_int_equal(st, 0);
	free(out);
	free(err);
	workdir = "/home/nobody-clawssh/p";	/* bwrap's tmpfs */
	out = run_wrap(&s, 1000, 0, &err, &st);
	assert_int_equal(st, 0);
	free(out);
	free(err);
	workdir = "/no-such-top-clawssh/p";	/* on bwrap's tmpfs root */
	out = run_wrap(&s, 1000, 0, &err, &st);
	assert_int_equal(st, 0);
	free(out);
	free(err);
	strlcpy(s.image, "noimg", sizeof s.image);	/* not in the store */
	workdir = "/usr/no-such-dir-clawssh/p";
	out = run_wrap(&s, 1000, 0, &err, &st);
	assert_int_equal(st, 125);
	assert_non_null(strstr(err, "has no /workspace"));
	free(out);
	free(err);
	workdir = NULL;
}

/* The image check: a workdir the image lacks is refused (125). */
static void
test_workdir_guard_image(void **state)
{
	struct sandbox_settings	 s;
	struct contain_spec	 spec;
	struct buf		 in = BUF_INIT;
	char			 tmpl[] = "/tmp/test_bwrap_imgXXXXXX";
	char			*guard, *rootfs, *dir;
	int			 st;

	(void)state;
	assert_non_null(mkdtemp(tmpl));
	rootfs = xasprintf("%s/images/img1/rootfs", tmpl);
	dir = xasprintf("mkdir -p '%s/home/a'", rootfs);
	assert_int_equal(system(dir), 0);
	sandbox_settings_default(&s);
	strlcpy(s.image, "img1", sizeof s.image);
	memset(&spec, 0, sizeof spec);
	spec.settings = &s;
	spec.root = tmpl;
	spec.id = ID;
	spec.workdir = "/home/a";
	guard = contain_bwrap_workdir(&spec);
	buf_append_str(&in, guard);
	free(guard);
	buf_append(&in, "", 1);
	st = system(in.data);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	spec.workdir = "/home/b";
	guard = contain_bwrap_workdir(&spec);
	buf_reset(&in);
	buf_appendf(&in, "(%s) 2>/dev/null", guard);
	free(guard);
	st = system(in.data);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 125);
	spec.workdir = NULL;		/* nothing to check */
	guard = contain_bwrap_workdir(&spec);
	assert_string_equal(guard, ":\n");
	free(guard);
	free(dir);
	dir = xasprintf("rm -rf '%s'", tmpl);
	assert_int_equal(system(dir), 0);
	free(dir);
	free(rootfs);
	buf_free(&in);
}

/* A persistent environment's spec of default settings s, with an agent. */
static void
box_spec(struct sandbox_settings *s, struct contain_spec *spec)
{
	sandbox_settings_default(s);
	memset(spec, 0, sizeof *spec);
	spec->settings = s;
	spec->root = ROOT;
	spec->id = ID;
	spec->agent = "/opt/agent";
}

/*
 * The persistent environment: box-exec starts commands at the workdir
 * (or under it), and the start script binds it.
 */
static void
test_workdir_box(void **state)
{
	struct sandbox_settings	 s;
	struct contain_spec	 spec;
	char			*text, *plain;

	(void)state;
	box_spec(&s, &spec);
	plain = contain_bwrap_box(&spec);
	assert_null(strstr(plain, "--cwd"));
	spec.workdir = "/home/alice/proj";
	text = contain_bwrap_box(&spec);
	assert_non_null(strstr(text, " --cwd '/home/alice/proj' --"));
	/* the start script (quoted in the text) binds it and starts there */
	assert_non_null(strstr(text, "/home/alice/proj'\\'' --chdir "));
	assert_string_not_equal(text, plain);
	free(text);
	spec.cwd = "src";
	text = contain_bwrap_box(&spec);
	assert_non_null(strstr(text, " --cwd '/home/alice/proj/src' --"));
	free(text);
	free(plain);
}

/*
 * A CPU limit puts the environment's holder (and a command of its own)
 * in a cpu cgroup with the quota: 0.25 CPU is 25 ms every 100 ms, and
 * 0.001 the kernel's smallest, 1 ms; the limit is part of the spec.
 */
static void
test_cpus_cgroup(void **state)
{
	struct sandbox_settings	 s;
	struct contain_spec	 spec;
	char			*text, *plain;

	(void)state;
	box_spec(&s, &spec);
	spec.limits = &s.limits;
	plain = contain_bwrap_box(&spec);
	assert_null(strstr(plain, "cpu.cfs_quota_us"));
	s.limits.cpus = 250;
	text = contain_bwrap_box(&spec);
	assert_non_null(strstr(text, "25000 100000"));
	assert_non_null(strstr(text, "echo 25000 > "));
	assert_non_null(strstr(text, "/sys/fs/cgroup/cpu "));
	assert_non_null(strstr(text, "the CPU limit is not enforced"));
	assert_string_not_equal(strstr(text, "--spec "), strstr(plain,
	    "--spec "));
	free(text);
	s.limits.cpus = 1;
	text = contain_bwrap_wrap(&spec);
	assert_non_null(strstr(text, "echo 1000 > "));
	free(text);
	free(plain);
}

/* A missing user, uid 0 or a bad setting stop the command (125). */
static void
test_refusals(void **state)
{
	struct sandbox_settings	 s;
	char			*out, *err;
	int			 st;

	(void)state;
	sandbox_settings_default(&s);
	strlcpy(s.user, "nosuchuser", sizeof s.user);
	out = run_wrap(&s, 0, 0, &err, &st);
	assert_int_equal(st, 125);
	assert_string_equal(out, "");
	assert_string_equal(err, "clawssh: user nosuchuser does not exist on "
	    "this host\n");
	free(out);
	free(err);
	strlcpy(s.user, "0:0", sizeof s.user);
	out = run_wrap(&s, 0, 0, &err, &st);
	assert_int_equal(st, 125);
	assert_string_equal(err, "clawssh: user 0:0 is root; refusing to run "
	    "as root (--user root runs as root)\n");
	free(out);
	free(err);
	strlcpy(s.user, "x;id", sizeof s.user);
	out = run_wrap(&s, 0, 0, &err, &st);
	assert_int_equal(st, 125);
	assert_string_equal(err, "clawssh: bad user in the sandbox's "
	    "settings\n");
	free(out);
	free(err);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_numeric),
		cmocka_unit_test(test_root_name_private),
		cmocka_unit_test(test_not_root),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_root_default),
		cmocka_unit_test(test_root_view),
		cmocka_unit_test(test_step_jail),
		cmocka_unit_test(test_workdir_binds),
		cmocka_unit_test(test_workdir_guard),
		cmocka_unit_test(test_workdir_guard_image),
		cmocka_unit_test(test_workdir_box),
		cmocka_unit_test(test_cpus_cgroup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
