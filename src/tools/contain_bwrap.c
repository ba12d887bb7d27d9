/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bubblewrap runtime as sh text.  See contain_bwrap.h and
 * docs/security.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "contain_bwrap.h"
#include "error.h"
#include "shquote.h"
#include "xmalloc.h"

/* Top-level host directories never shown inside (or replaced there). */
#define BW_SKIP	"proc|dev|tmp|sys|run|home|root|workspace|lost+found|'*'"

/* Root-only files and directories of the host's /etc covered inside. */
#define BW_SECRET_FILES	"/etc/shadow /etc/shadow- /etc/gshadow " \
	"/etc/gshadow- /etc/sudoers /etc/security/opasswd"
#define BW_STEP_TOOLS	"/usr /bin /sbin /lib /lib32 /lib64 /libx32"
#define BW_SECRET_DIRS	"/etc/ssh /etc/sudoers.d /etc/ssl/private"

/*
 * Check for bwrap and clear the environment down to the kept names (the
 * GPU device directory, which the host may set for its sessions, is
 * remembered first).
 */
static void
bw_env(struct buf *b, const struct contain_spec *spec)
{
	size_t	i;

	buf_append_str(b, "__claw_dd=${CLAWSSH_GPU_DEV_DIR:-/dev}\n"
	    "command -v bwrap >/dev/null 2>&1 || { echo "
	    "\"clawssh: runtime bwrap: bubblewrap is not installed on this "
	    "host\" >&2; exit 125; }\n__claw_keep=' PATH LANG TERM TZ ");
	for (i = 0; i < spec->nkeep; i++)
		buf_appendf(b, "%s ", spec->keep[i]);
	buf_append_str(b, "'\nfor __claw_v in $(env | sed -n "
	    "'s/^\\([A-Za-z_][A-Za-z0-9_]*\\)=.*/\\1/p'); do\n"
	    "\tcase $__claw_keep in *\" $__claw_v \"*) continue ;; esac\n"
	    "\tcase $__claw_v in LC_*) continue ;; esac\n"
	    "\tunset \"$__claw_v\" 2>/dev/null\ndone\n"
	    "HOME=/tmp; export HOME; [ -n \"${PATH:-}\" ] || PATH="
	    "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin; "
	    "export PATH; unset __claw_v __claw_keep\n");
}

/*
 * Cover the host's root-only secrets in its /etc: password hashes and
 * sudo rules read as empty files, SSH host keys and private TLS keys as
 * empty directories.
 */
static void
bw_secrets(struct buf *b)
{
	buf_append_str(b, "for __claw_p in " BW_SECRET_FILES "; do\n"
	    "\t[ -f \"$__claw_p\" ] && [ ! -L \"$__claw_p\" ] && set -- "
	    "\"$@\" --ro-bind /dev/null \"$__claw_p\"\ndone\n"
	    "for __claw_p in " BW_SECRET_DIRS "; do\n"
	    "\t[ -d \"$__claw_p\" ] && [ ! -L \"$__claw_p\" ] && set -- "
	    "\"$@\" --tmpfs \"$__claw_p\"\ndone\n");
}

/*
 * The root: the host's top-level directories read-only, its secrets
 * covered, /sys left out (bound read-only only for GPU sandboxes, whose
 * drivers look there), or the image.
 */
static void
bw_root(struct buf *b, const struct contain_spec *spec, const char *qroot)
{
	if (strcmp(spec->settings->image, "host") != 0) {
		buf_appendf(b, "__claw_img=%s/images/", qroot);
		shquote_append(b, spec->settings->image);
		buf_append_str(b, "/rootfs\n[ -d \"$__claw_img/workspace\" ] "
		    "|| { echo \"clawssh: image $__claw_img has no /workspace"
		    "\" >&2; exit 125; }\n"
		    "set -- \"$@\" --ro-bind \"$__claw_img\" /\n");
		return;
	}
	buf_append_str(b, "for __claw_p in /*; do\n"
	    "\tcase ${__claw_p#/} in " BW_SKIP ") continue ;; esac\n"
	    "\tif [ -L \"$__claw_p\" ]; then set -- \"$@\" --symlink "
	    "\"$(readlink \"$__claw_p\")\" \"$__claw_p\"\n"
	    "\telif [ -d \"$__claw_p\" ]; then set -- \"$@\" --ro-bind "
	    "\"$__claw_p\" \"$__claw_p\"; fi\ndone\n"
	    "set -- \"$@\" --tmpfs /run --tmpfs /home --tmpfs /root\n");
	bw_secrets(b);
	if (spec->settings->gpus != 0)
		buf_append_str(b, "set -- \"$@\" --ro-bind /sys /sys\n");
	buf_appendf(b, "set -- \"$@\" --tmpfs %s\n", qroot);
}

/* The directory bound at /workspace: workspace/, or private/ (none). */
static const char *
bw_sub(const struct contain_spec *spec)
{
	return spec->settings->access == SANDBOX_ACCESS_NONE ? "private" :
	    "workspace";
}

/*
 * Resolve the sandbox's identity, when the host user is root, to
 * $__claw_uid and $__claw_gid: the user set, or by default the
 * sandbox's own uid (sandbox_default_uid); "root" keeps root.
 */
static void
bw_ids(struct buf *b, const struct contain_spec *spec)
{
	const char	*u = spec->settings->user;
	const char	*colon = strchr(u, ':');
	unsigned int	 uid;

	if (*u == '\0') {
		uid = sandbox_default_uid(spec->id);
		buf_appendf(b, "\t__claw_uid=%u; __claw_gid=%u\n", uid, uid);
	} else if (colon != NULL)
		buf_appendf(b, "\t__claw_uid=%.*s; __claw_gid=%s\n",
		    (int)(colon - u), u, colon + 1);
	else
		buf_appendf(b, "\t__claw_uid=$(id -u -- %s 2>/dev/null) && "
		    "__claw_gid=$(id -g -- %s 2>/dev/null) || { echo "
		    "\"clawssh: user %s does not exist on this host\" >&2; "
		    "exit 125; }\n", u, u, u);
	buf_appendf(b, "\t[ \"$__claw_uid\" != 0 ] || { echo \"clawssh: "
	    "user %s is root; refusing to run as root (--user root runs "
	    "as root)\" >&2; exit 125; }\n", *u != '\0' ? u : "(default)");
}

/*
 * When the host user is root (and the user is not "root"), resolve the
 * identity (bw_ids) and, once (while the bound directory's top is not
 * the user's yet: each exec pays one stat, none when a step of the same
 * script looked already, $__claw_given), give it the bound directory
 * (owner, mode 0700) and search-only access (0711) to the directories
 * above it and to the image store, which bwrap, running as that user,
 * must traverse, and check that it can.
 * $__claw_su is non-empty when the switch happens.
 */
static void
bw_user(struct buf *b, const struct contain_spec *spec, const char *qroot,
    const char *qdir, const char *sub)
{
	const char	*u = spec->settings->user;

	buf_append_str(b, "__claw_su=\n");
	if (strcmp(u, "root") == 0)
		return;
	if (*u != '\0' && sandbox_user_check(u, NULL) != 0) {
		buf_append_str(b, "echo \"clawssh: bad user in the sandbox's "
		    "settings\" >&2; exit 125\n");
		return;
	}
	buf_append_str(b, "if [ \"${__claw_idu:=$(id -u)}\" = 0 ]; then\n");
	bw_ids(b, spec);
	buf_appendf(b, "\t__claw_bd=%s/%s\n"
	    "\tif [ \"${__claw_given:-}\" != \"$__claw_bd:$__claw_uid\" ] && "
	    "[ \"$(stat -c %%u -- \"$__claw_bd\")\" != \"$__claw_uid\" ]; then\n"
	    "\tchown -R -h -P \"$__claw_uid:$__claw_gid\" \"$__claw_bd\" && "
	    "chmod 700 \"$__claw_bd\" && chmod 711 %s %s || { echo \"clawssh: "
	    "cannot give the workspace to user %s\" >&2; exit 125; }\n",
	    qdir, sub, qroot, qdir, *u != '\0' ? u : "$__claw_uid");
	if (strcmp(spec->settings->image, "host") != 0) {
		buf_appendf(b, "\tchmod 711 %s/images %s/images/", qroot,
		    qroot);
		shquote_append(b, spec->settings->image);
		buf_append_str(b, " 2>/dev/null\n");
	}
	buf_appendf(b, "\tsetpriv --reuid=\"$__claw_uid\" "
	    "--regid=\"$__claw_gid\" --clear-groups -- test -x "
	    "\"$__claw_bd\" || { echo \"clawssh: user $__claw_uid cannot "
	    "reach %s/%s: make the directories above remoteRoot searchable "
	    "(chmod o+x)\" >&2; exit 125; }\n\tfi\n"
	    "\t__claw_given=$__claw_bd:$__claw_uid\n\t__claw_su=1\n",
	    spec->root, spec->id);
	if (spec->note_user && *u != '\0')
		buf_appendf(b, "else\n\techo \"clawssh: note: user %s "
		    "applies when connecting as root; commands run as "
		    "$(id -un)\" >&2\n", u);
	buf_append_str(b, "fi\n");
}

/*
 * Run bwrap as the user (real, effective and saved ids, no supplementary
 * groups, no new privileges), when bw_user switched.
 */
static void
bw_setpriv(struct buf *b)
{
	buf_append_str(b, "[ -z \"$__claw_su\" ] || set -- setpriv "
	    "--reuid=\"$__claw_uid\" --regid=\"$__claw_gid\" "
	    "--clear-groups --no-new-privs -- \"$@\"\n");
}

/* The workspace's path inside: spec's workdir, or /workspace. */
static const char *
bw_workdir(const struct contain_spec *spec)
{
	return spec->workdir != NULL ? spec->workdir : SANDBOX_WORKSPACE;
}

/* Return 1 if the workspace is bound at another path than /workspace. */
static int
bw_workdir_other(const struct contain_spec *spec)
{
	return strcmp(bw_workdir(spec), SANDBOX_WORKSPACE) != 0;
}

/*
 * The workspace per access (at /workspace, and at the workdir too), the
 * working directory, the end of options.
 */
static void
bw_workspace(struct buf *b, const struct contain_spec *spec,
    const char *qdir)
{
	const char	*how = "--bind";
	char		*src;

	if (spec->settings->access == SANDBOX_ACCESS_RO)
		how = "--ro-bind";
	src = xasprintf("%s/%s", qdir, bw_sub(spec));
	buf_appendf(b, "set -- \"$@\" --proc /proc --dev /dev --tmpfs /tmp "
	    "--dir /workspace %s %s /workspace", how, src);
	if (bw_workdir_other(spec)) {
		buf_appendf(b, " %s %s ", how, src);
		shquote_append(b, spec->workdir);
	}
	buf_append_str(b, " --chdir ");
	if (spec->cwd != NULL && spec->cwd[0] == '/')
		shquote_append(b, spec->cwd);
	else {
		shquote_append(b, bw_workdir(spec));
		if (spec->cwd != NULL) {
			buf_append_str(b, "/");
			shquote_append(b, spec->cwd);
		}
	}
	buf_append_str(b, "\n");
	free(src);
}

/*
 * Name the GPUs the host's allocation file gives this sandbox: their
 * host indexes in $__claw_g and NVIDIA_VISIBLE_DEVICES, their CUDA
 * ordinals inside (0..n-1) in CUDA_VISIBLE_DEVICES.  No assignment is an
 * error, not a silent GPU-less run.
 */
static void
bw_gpu_env(struct buf *b, const struct contain_spec *spec, const char *qroot)
{
	buf_appendf(b, "__claw_g=$(awk -v id=%s '$2 == id { printf \"%%s%%s\", s, $1; "
	    "s = \",\" }' %s/gpus 2>/dev/null)\n"
	    "[ -n \"$__claw_g\" ] || { echo \"clawssh: sandbox %s has no "
	    "GPUs assigned on this host; provision it again\" >&2; "
	    "exit 125; }\n", spec->id, qroot, spec->id);
	buf_append_str(b, CONTAIN_SH_GPU_ORDINALS
	    "CUDA_VISIBLE_DEVICES=$__claw_cv; NVIDIA_VISIBLE_DEVICES=$__claw_g\n"
	    "export CUDA_VISIBLE_DEVICES NVIDIA_VISIBLE_DEVICES\n");
}

/*
 * Bind the GPUs the host's allocation file gives this sandbox, with the
 * driver's control nodes, and name them (bw_gpu_env).
 */
static void
bw_gpus(struct buf *b, const struct contain_spec *spec, const char *qroot)
{
	if (spec->settings->gpus == 0)
		return;
	bw_gpu_env(b, spec, qroot);
	buf_append_str(b, "for __claw_n in $(echo \"$__claw_g\" | tr , ' '); do\n"
	    "\tset -- \"$@\" --dev-bind \"$__claw_dd/nvidia$__claw_n\" "
	    "\"/dev/nvidia$__claw_n\"\ndone\n"
	    "for __claw_x in nvidiactl nvidia-uvm nvidia-uvm-tools "
	    "nvidia-modeset; do\n"
	    "\t[ -e \"$__claw_dd/$__claw_x\" ] && set -- \"$@\" --dev-bind "
	    "\"$__claw_dd/$__claw_x\" \"/dev/$__claw_x\"\ndone\n");
}

/* Put the sandbox in its pids cgroup, where one is writable. */
static void
bw_cgroup(struct buf *b, const struct contain_spec *spec)
{
	buf_appendf(b, "__claw_cg=\nfor __claw_b in /sys/fs/cgroup/pids "
	    "/sys/fs/cgroup; do\n\t[ -w \"$__claw_b\" ] && [ -f "
	    "\"$__claw_b/cgroup.procs\" ] || continue\n"
	    "\t__claw_cg=$__claw_b/clawssh-%s\n"
	    "\tmkdir -p \"$__claw_cg\" 2>/dev/null && echo %" PRId64
	    " > \"$__claw_cg/pids.max\" 2>/dev/null && echo $$ > "
	    "\"$__claw_cg/cgroup.procs\" 2>/dev/null && break\n"
	    "\t__claw_cg=\ndone\n__claw_np=; [ -n \"$__claw_cg\" ] || "
	    "__claw_np=--nproc=%" PRId64 "\n", spec->id, spec->limits->nproc,
	    spec->limits->nproc);
}

/*
 * Put the holder of a persistent environment in a memory cgroup of its
 * own with the memory limit, where one is writable (cgroup v2 with the
 * memory controller, or v1's memory hierarchy): the sandbox's processes
 * then share the limit and the kernel's OOM killer picks the biggest of
 * them, not a process of the host.  $__claw_mc is set when it worked;
 * RLIMIT_AS is the fallback.
 */
static void
bw_memcg(struct buf *b, const struct contain_spec *spec)
{
	buf_appendf(b, "__claw_mc=\nfor __claw_b in /sys/fs/cgroup/memory "
	    "/sys/fs/cgroup; do\n\t[ -w \"$__claw_b\" ] && [ -f "
	    "\"$__claw_b/cgroup.procs\" ] || continue\n"
	    "\t__claw_c=$__claw_b/clawssh-%s; mkdir -p \"$__claw_c\" "
	    "2>/dev/null || continue\n"
	    "\tif [ -f \"$__claw_c/memory.max\" ]; then echo %" PRId64
	    " > \"$__claw_c/memory.max\" && { echo 0 > "
	    "\"$__claw_c/memory.swap.max\"; :; } 2>/dev/null\n"
	    "\telif [ -f \"$__claw_c/memory.limit_in_bytes\" ]; then echo %"
	    PRId64 " > \"$__claw_c/memory.limit_in_bytes\" && { echo %" PRId64
	    " > \"$__claw_c/memory.memsw.limit_in_bytes\"; :; } 2>/dev/null\n"
	    "\telse rmdir \"$__claw_c\" 2>/dev/null; false; fi 2>/dev/null && "
	    "echo $$ > \"$__claw_c/cgroup.procs\" 2>/dev/null && "
	    "{ __claw_mc=$__claw_c; break; }\ndone\n",
	    spec->id, spec->limits->memory, spec->limits->memory,
	    spec->limits->memory);
}

/*
 * Put the sandbox in a cpu cgroup of its own with the CPU limit (a
 * bandwidth: QUOTA microseconds of CPU every 100 ms, shared by all its
 * processes), where one is writable (cgroup v2's cpu.max, v1's CFS
 * quota), else warn that it is not enforced.  The kernel's smallest
 * quota is 1 ms: 0.01 CPU.
 */
static void
bw_cpucg(struct buf *b, const struct contain_spec *spec)
{
	int64_t	quota = spec->limits->cpus * 100;

	if (quota < 1000)
		quota = 1000;
	buf_appendf(b, "__claw_cc=\nfor __claw_b in /sys/fs/cgroup/cpu "
	    "/sys/fs/cgroup; do\n\t[ -w \"$__claw_b\" ] && [ -f "
	    "\"$__claw_b/cgroup.procs\" ] || continue\n"
	    "\t__claw_c=$__claw_b/clawssh-%s; mkdir -p \"$__claw_c\" "
	    "2>/dev/null || continue\n"
	    "\tif [ -f \"$__claw_c/cpu.max\" ]; then echo \"%" PRId64
	    " 100000\" > \"$__claw_c/cpu.max\"\n"
	    "\telif [ -f \"$__claw_c/cpu.cfs_quota_us\" ]; then echo 100000 > "
	    "\"$__claw_c/cpu.cfs_period_us\" && echo %" PRId64 " > "
	    "\"$__claw_c/cpu.cfs_quota_us\"\n"
	    "\telse false; fi 2>/dev/null && "
	    "echo $$ > \"$__claw_c/cgroup.procs\" 2>/dev/null && "
	    "{ __claw_cc=$__claw_c; break; }\ndone\n"
	    "[ -n \"$__claw_cc\" ] || echo \"clawssh: warning: the CPU limit "
	    "is not enforced on this host (no writable cpu cgroup)\" >&2\n",
	    spec->id, quota, quota);
}

/*
 * Set $__claw_as to prlimit's --as for the memory limit, or to nothing
 * where a memory cgroup holds it (hold: $__claw_mc) or the sandbox has
 * GPUs, with a warning when nothing does.
 */
static void
bw_memas(struct buf *b, const struct contain_spec *spec, int hold)
{
	const char	*mc = hold ? "[ -n \"$__claw_mc\" ] || " : "";

	if (spec->settings->gpus == 0) {
		buf_appendf(b, "__claw_as=\n%s__claw_as=--as=%" PRId64 "\n",
		    mc, spec->limits->memory);
		return;
	}
	buf_appendf(b, "__claw_as=\n%secho \"clawssh: warning: the memory "
	    "limit of this GPU sandbox is not enforced: no writable memory "
	    "cgroup on this host, and CUDA cannot run under RLIMIT_AS\" >&2\n",
	    mc);
}

/*
 * Wrap "$@" in prlimit for the limits in force; for the holder of a
 * persistent environment (hold), the memory limit is a memory cgroup's
 * where the host allows one.  A GPU sandbox never gets RLIMIT_AS: CUDA
 * maps far more address space than it uses (an H200 under a 16 GiB
 * RLIMIT_AS fails its first allocation), so without a memory cgroup its
 * memory limit is not enforced, and the start says so.
 */
static void
bw_limits(struct buf *b, const struct contain_spec *spec, int hold)
{
	const struct contain_limits	*l = spec->limits;

	if (l != NULL && l->cpus != 0)
		bw_cpucg(b, spec);
	if (l == NULL || (l->memory == 0 && l->nproc == 0 && l->cpu == 0 &&
	    l->fsize == 0 && l->nofile == 0))
		return;
	if (l->nproc != 0)
		bw_cgroup(b, spec);
	if (hold && l->memory != 0)
		bw_memcg(b, spec);
	if (l->memory != 0)
		bw_memas(b, spec, hold);
	buf_append_str(b, "set -- prlimit");
	if (l->memory != 0)
		buf_append_str(b, " $__claw_as");
	if (l->cpu != 0)	/* SIGXCPU at the limit, SIGKILL 2 s on */
		buf_appendf(b, " --cpu=%" PRId64 ":%" PRId64, l->cpu,
		    l->cpu + 2);
	if (l->fsize != 0)
		buf_appendf(b, " --fsize=%" PRId64, l->fsize);
	if (l->nofile != 0)
		buf_appendf(b, " --nofile=%" PRId64, l->nofile);
	if (l->nproc != 0)
		buf_append_str(b, " $__claw_np");
	buf_append_str(b, " -- \"$@\"\n");
	if (l->nproc != 0)
		buf_append_str(b, "[ -n \"$__claw_cg\" ] || [ \"$__claw_idu\" "
		    "!= 0 ] || [ -n \"$__claw_su\" ] || echo \"clawssh: "
		    "warning: the process limit is "
		    "not enforced on this host (no writable pids cgroup, and "
		    "root ignores RLIMIT_NPROC)\" >&2\n");
}

/*
 * Start the command through the view's sh, when it has one: `exec "$@"`
 * there gives a missing command status 127 and one that cannot be run
 * 126, with sh's own message, as ssh and sh do (bwrap's own execvp
 * failure is status 1).  The arguments pass through "$@" untouched.
 */
static void
bw_exec_sh(struct buf *b, const struct contain_spec *spec)
{
	buf_appendf(b, "[ -x %s/bin/sh ] && set -- \"$@\" /bin/sh -c "
	    "'exec \"$@\"' sh\n", strcmp(spec->settings->image, "host") != 0 ?
	    "\"$__claw_img\"" : "");
}

/*
 * Refuse (exit 125) a workdir bwrap cannot make a mount point for: one
 * under a top-level directory of the host bound read-only (not one of
 * BW_SKIP, which live on bwrap's own tmpfs root) that the host lacks,
 * or, for an image, one the read-only image lacks.
 */
static void
bw_workdir_guard(struct buf *b, const struct contain_spec *spec,
    const char *qroot)
{
	const char	*img = spec->settings->image;

	buf_append_str(b, "__claw_w=");
	shquote_append(b, spec->workdir);
	buf_append_str(b, "\n");
	if (strcmp(img, "host") != 0) {
		buf_appendf(b, "__claw_i=%s/images/", qroot);
		shquote_append(b, img);
		buf_append_str(b, "/rootfs\n[ ! -d \"$__claw_i\" ] || "
		    "[ -d \"$__claw_i$__claw_w\" ] || { printf 'clawssh: "
		    "workdir local: image %s has no directory %s to bind the "
		    "workspace at (bwrap cannot make one in the read-only "
		    "image): make it in the image, or use --workdir "
		    "/workspace\\n' ");
		shquote_append(b, img);
		buf_append_str(b, " \"$__claw_w\" >&2; exit 125; }\n");
		return;
	}
	buf_append_str(b, "__claw_t=${__claw_w#/}; __claw_t=${__claw_t%%/*}\n"
	    "case $__claw_t in " BW_SKIP ") ;; *) [ ! -d \"/$__claw_t\" ] || "
	    "[ -d \"$__claw_w\" ] || { printf 'clawssh: workdir local: "
	    "%s cannot hold the workspace: /%s is the host'\\''s, bound "
	    "read-only inside, and the host has no such directory to bind "
	    "at: make it on the host, or use --workdir /workspace\\n' "
	    "\"$__claw_w\" \"$__claw_t\" >&2; exit 125; } ;;\nesac\n");
}

/* The guard of a workdir; see contain_bwrap.h. */
char *
contain_bwrap_workdir(const struct contain_spec *spec)
{
	struct buf	 b = BUF_INIT;
	char		*qroot;

	if (!bw_workdir_other(spec))
		return xstrdup(":\n");
	qroot = shquote(spec->root);
	bw_workdir_guard(&b, spec, qroot);
	free(qroot);
	return buf_detach(&b);
}

/*
 * Set "$@" to the sandbox's bwrap command line, ending in "--": for one
 * command (dying with its parent), or for the holder of a persistent
 * environment (hold: it outlives the shell that starts it).
 */
static void
bw_bwrap(struct buf *b, const struct contain_spec *spec, const char *qroot,
    const char *qdir, int hold)
{
	buf_appendf(b, "set -- bwrap --unshare-all%s%s "
	    "--new-session --cap-drop ALL\n",
	    spec->settings->network == CONTAIN_NET_HOST ? " --share-net" : "",
	    hold ? "" : " --die-with-parent");
	if (bw_workdir_other(spec))
		bw_workdir_guard(b, spec, qroot);
	bw_root(b, spec, qroot);
	bw_workspace(b, spec, qdir);
	bw_gpus(b, spec, qroot);
	buf_append_str(b, "set -- \"$@\" --remount-ro / --\n");
}

/* Build the wrap code; see contain_bwrap.h. */
char *
contain_bwrap_wrap(const struct contain_spec *spec)
{
	struct buf	 b = BUF_INIT;
	char		*qroot = shquote(spec->root), *dir, *qdir;

	dir = xasprintf("%s/%s", spec->root, spec->id);
	qdir = shquote(dir);
	bw_env(&b, spec);
	bw_user(&b, spec, qroot, qdir, bw_sub(spec));
	bw_bwrap(&b, spec, qroot, qdir, 0);
	bw_exec_sh(&b, spec);
	bw_setpriv(&b);
	bw_limits(&b, spec, 0);
	free(qdir);
	free(dir);
	free(qroot);
	return buf_detach(&b);
}

/*
 * The host's programs for a step: its system directories read-only (a
 * merged-/usr host's /bin -> usr/bin is bound as the directory it names:
 * no readlink process per link), the loader's cache and the
 * alternatives links; nothing else of the host.
 */
static void
bw_tools(struct buf *b)
{
	buf_append_str(b, "for __claw_p in " BW_STEP_TOOLS "; do\n"
	    "\t[ -d \"$__claw_p\" ] && set -- \"$@\" --ro-bind "
	    "\"$__claw_p\" \"$__claw_p\"\ndone\n"
	    "for __claw_p in /etc/ld.so.cache /etc/alternatives; do\n"
	    "\t[ -e \"$__claw_p\" ] && set -- \"$@\" --ro-bind "
	    "\"$__claw_p\" \"$__claw_p\"\ndone\n");
}

/* Build the step jail; see contain_bwrap.h. */
char *
contain_bwrap_step(const struct contain_spec *spec, const char *sub)
{
	struct buf	 b = BUF_INIT;
	char		*qroot = shquote(spec->root), *dir, *qdir;

	dir = xasprintf("%s/%s", spec->root, spec->id);
	qdir = shquote(dir);
	buf_append_str(&b, "command -v bwrap >/dev/null 2>&1 || { echo "
	    "\"clawssh: the sandbox's host-side steps need bubblewrap on "
	    "this host (Debian: apt-get install bubblewrap)\" >&2; "
	    "exit 125; }\n");
	buf_appendf(&b, "[ -d %s/%s ] && [ ! -L %s/%s ] || "
	    "mkdir -m 700 -- %s/%s || { echo \"clawssh: no %s directory "
	    "in %s\" >&2; exit 125; }\n", qdir, sub, qdir, sub, qdir, sub,
	    sub, dir);
	bw_user(&b, spec, qroot, qdir, sub);
	/* the network is shared: only clawssh's own steps run in there */
	buf_append_str(&b, "set -- bwrap --unshare-user --unshare-ipc "
	    "--unshare-pid --unshare-uts --unshare-cgroup-try "
	    "--die-with-parent --new-session --cap-drop ALL\n");
	bw_tools(&b);
	buf_appendf(&b, "set -- \"$@\" --proc /proc --dev /dev --tmpfs /tmp "
	    "--bind %s/%s /workspace --chdir /workspace "
	    "--remount-ro / --\n", qdir, sub);
	bw_setpriv(&b);
	free(qdir);
	free(dir);
	free(qroot);
	return buf_detach(&b);
}

/* The holder's run directory; see contain_bwrap.h. */
char *
contain_bwrap_rundir(const char *root, const char *id)
{
	return xasprintf("%s/%s/run", root, id);
}

/* FNV-1a over s, as 16 hex digits in out: which start script it was. */
static void
bw_token(const char *s, char out[17])
{
	uint64_t	h = 0xcbf29ce484222325ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	snprintf(out, 17, "%016" PRIx64, h);
}

/*
 * The start script box-exec runs (as the host user) when the sandbox has
 * no holder: the environment cleared, the identity resolved and given
 * the workspace and the run directory, the bwrap command line, the
 * agent opened as fd 7 (the sandbox's uid may not reach its directory;
 * exec through /proc/self/fd needs only the file's x bit), then
 * prlimit [+ setpriv] + box-hold + bwrap.  token gets the script's
 * identity, which box-exec compares with the running holder's.
 */
static char *
bw_start(const struct contain_spec *spec, const char *qagent,
    const char *qrun, char token[17])
{
	struct contain_spec	 s = *spec;
	struct buf		 b = BUF_INIT, tail = BUF_INIT;
	char			*qroot = shquote(spec->root), *dir, *qdir;
	char			*all;

	s.cwd = NULL;
	s.keep = NULL;
	s.nkeep = 0;
	s.note_user = 0;	/* the token must not depend on -v */
	dir = xasprintf("%s/%s", spec->root, spec->id);
	qdir = shquote(dir);
	bw_env(&b, &s);
	bw_user(&b, &s, qroot, qdir, bw_sub(&s));
	buf_appendf(&b, "[ -z \"$__claw_su\" ] || chown \"$__claw_uid:"
	    "$__claw_gid\" %s || exit 125\n", qrun);
	bw_bwrap(&b, &s, qroot, qdir, 1);
	bw_setpriv(&tail);
	bw_limits(&tail, &s, 1);	/* other limits: another holder */
	buf_append(&tail, "", 1);
	all = xasprintf("%s%s", b.data, tail.data);
	bw_token(all, token);
	free(all);
	buf_appendf(&b, "exec 7<%s || exit 125\nset -- /proc/self/fd/7 "
	    "box-hold --dir %s --spec %s -- \"$@\"\n", qagent, qrun, token);
	buf_append_str(&b, tail.data);
	buf_free(&tail);
	buf_append_str(&b, "exec \"$@\"\n");
	free(qdir);
	free(dir);
	free(qroot);
	return buf_detach(&b);
}

/* The names box-exec passes on: the --env names, and the GPUs'. */
static void
bw_keep(struct buf *b, const struct contain_spec *spec)
{
	struct buf	names = BUF_INIT;
	size_t		i;

	for (i = 0; i < spec->nkeep; i++)
		buf_appendf(&names, "%s%s", i > 0 ? " " : "", spec->keep[i]);
	if (spec->settings->gpus != 0)
		buf_appendf(&names, "%sCUDA_VISIBLE_DEVICES "
		    "NVIDIA_VISIBLE_DEVICES", names.len > 0 ? " " : "");
	if (names.len == 0) {
		buf_free(&names);
		return;
	}
	buf_append_str(b, " --keep ");
	buf_append(&names, "", 1);
	shquote_append(b, names.data);
	buf_free(&names);
}

/*
 * The working directory inside: WORKDIR[/CWD], or CWD if absolute;
 * nothing for /workspace itself (box-exec's default).
 */
static void
bw_box_cwd(struct buf *b, const struct contain_spec *spec)
{
	char	*dir;

	if (spec->cwd == NULL && !bw_workdir_other(spec))
		return;
	if (spec->cwd == NULL)
		dir = xstrdup(spec->workdir);
	else
		dir = spec->cwd[0] == '/' ? xstrdup(spec->cwd) :
		    xasprintf("%s/%s", bw_workdir(spec), spec->cwd);
	buf_append_str(b, " --cwd ");
	shquote_append(b, dir);
	free(dir);
}

/* Fill the host agent's route to the environment; see contain_bwrap.h. */
int
contain_bwrap_route(const struct contain_spec *spec, struct contain_route *r)
{
	char	*qagent, *qrun, *start;

	memset(r, 0, sizeof(*r));
	if (spec->agent == NULL || spec->pty || spec->pty_agent_only ||
	    spec->settings->gpus != 0)
		return CLAW_ERR_UNSUPPORTED;
	r->dir = contain_bwrap_rundir(spec->root, spec->id);
	qagent = shquote(spec->agent);
	qrun = shquote(r->dir);
	start = bw_start(spec, qagent, qrun, r->token);
	free(start);
	free(qrun);
	free(qagent);
	r->workdir = xstrdup(bw_workdir(spec));
	if (spec->cwd == NULL)
		r->cwd = xstrdup(r->workdir);
	else
		r->cwd = spec->cwd[0] == '/' ? xstrdup(spec->cwd) :
		    xasprintf("%s/%s", r->workdir, spec->cwd);
	return 0;
}

/* Release a route; see contain_bwrap.h. */
void
contain_route_free(struct contain_route *r)
{
	free(r->agent);
	free(r->dir);
	free(r->cwd);
	free(r->workdir);
	memset(r, 0, sizeof(*r));
}

/* Build the persistent environment's wrap code; see contain_bwrap.h. */
char *
contain_bwrap_box(const struct contain_spec *spec)
{
	struct buf	 b = BUF_INIT;
	char		*qagent = shquote(spec->agent), *qroot;
	char		*run = contain_bwrap_rundir(spec->root, spec->id);
	char		*qrun = shquote(run), *start, *fallback, token[17];

	start = bw_start(spec, qagent, qrun, token);
	buf_appendf(&b, "__claw_a=%s\nif [ -f \"$__claw_a\" ]; then\n"
	    "__claw_box_start=", qagent);
	shquote_append(&b, start);
	buf_append_str(&b, "; export __claw_box_start\n");
	if (spec->settings->gpus != 0) {
		qroot = shquote(spec->root);
		bw_gpu_env(&b, spec, qroot);
		free(qroot);
	}
	if (spec->note_user && *spec->settings->user != '\0' &&
	    strcmp(spec->settings->user, "root") != 0 &&
	    sandbox_user_check(spec->settings->user, NULL) == 0) {
		buf_append_str(&b, "[ \"$(id -u)\" = 0 ] || echo \"clawssh: "
		    "note: user ");
		buf_append_str(&b, spec->settings->user);
		buf_append_str(&b, " applies when connecting as root; commands "
		    "run as $(id -un)\" >&2\n");
	}
	buf_appendf(&b, "set -- \"$__claw_a\" box-exec --dir %s --spec %s "
	    "--watch-parent", qrun, token);
	bw_keep(&b, spec);
	bw_box_cwd(&b, spec);
	buf_appendf(&b, "%s%s --\nelse\n", spec->pty ? " --pty" : "",
	    spec->note_user ? " -v" : "");
	if (spec->note_user)
		buf_append_str(&b, "echo \"clawssh: note: the host agent is "
		    "gone ($__claw_a); this command runs in a sandbox of its "
		    "own\" >&2\n");
	if (spec->pty_agent_only)
		fallback = xstrdup("echo \"clawssh: the host agent is gone "
		    "($__claw_a): no terminal for this command\" >&2; "
		    "exit 125\n");
	else
		fallback = contain_bwrap_wrap(spec);
	buf_appendf(&b, "%sfi\n", fallback);
	free(fallback);
	free(start);
	free(qrun);
	free(run);
	free(qagent);
	return buf_detach(&b);
}
