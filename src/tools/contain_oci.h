/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * docker and podman command lines that express a containment policy.
 * Pure: builds sh text, runs nothing.
 */
#ifndef CLAW_CONTAIN_OCI_H
#define CLAW_CONTAIN_OCI_H

#include "contain.h"

struct buf;

/* Where the workspace appears inside the container. */
#define CONTAIN_OCI_WORKSPACE	"/workspace"

/* The label naming a container's sandbox (for destroy and prune). */
#define CONTAIN_OCI_LABEL	"clawssh.sandbox"

/* The label holding a digest of the arguments a container was made with. */
#define CONTAIN_OCI_SPEC_LABEL	"clawssh.spec"

/* A sandbox's container is named this prefix and the sandbox id. */
#define CONTAIN_OCI_PREFIX	"clawssh-"

/* The private /tmp of a sandbox's container (a tmpfs, shared by its execs). */
#define CONTAIN_OCI_TMPFS	"/tmp:rw,nosuid,nodev,size=64m,mode=1777"

/*
 * The container's main process, run by /bin/sh under the engine's init
 * (--init: docker's tini, podman's catatonit, which reap orphans): it
 * blocks until stopped.  The image needs /bin/sh and sleep.
 */
#define CONTAIN_OCI_HOLDER \
	"trap 'exit 0' TERM; while :; do sleep 3600 & wait $!; done"

/*
 * What each exec runs in the container (/bin/sh -c TEXT sh TOKEN CMD...):
 * it records its pid, the process group of the exec (docker and podman
 * make every exec a session leader), in /tmp/.clawssh-exec-TOKEN, runs
 * CMD in a subshell through exec (sh's 127 and 126 with its message; no
 * builtins), empties the file and exits with CMD's status.
 */
#define CONTAIN_OCI_EXEC_SH \
	"f=/tmp/.clawssh-exec-$1; shift; { echo $$ > \"$f\"; } 2>/dev/null; " \
	"(exec \"$@\"); s=$?; { : > \"$f\"; } 2>/dev/null; exit $s"

/*
 * What the watcher runs in the container (/bin/sh -c TEXT sh TOKEN) once
 * an exec's client is gone: it kills the process group recorded by
 * CONTAIN_OCI_EXEC_SH, if the file still names one (not 0 or 1).
 */
#define CONTAIN_OCI_KILL_SH \
	"f=/tmp/.clawssh-exec-$1; read -r p < \"$f\" || exit 0; " \
	"case $p in ''|*[!0-9]*|0|1) ;; *) kill -KILL -\"$p\" ;; esac; " \
	"{ : > \"$f\"; } 2>/dev/null"

/* What contain_oci_wrap needs besides the policy. */
struct contain_oci_opts {
	/* the sandbox's directory on the host (the start lock, warnings) */
	const char	*dir;
	/* the host's GPU allocation file, or NULL */
	const char	*gpu_file;
	/* the uid to run as without a user, when the host user is root */
	unsigned int	 default_uid;
	/* say on stderr when the container had to be (re)started */
	int		 verbose;
};

/*
 * Append to b the sh command line (every word sh-quoted) that creates and
 * starts the sandbox's long-lived container under policy p with engine
 * "docker" or "podman":
 *
 *	ENGINE run -d --init --name clawssh-SANDBOX --restart no
 *	    --stop-timeout 1 --label clawssh.sandbox=SANDBOX --read-only
 *	    --network none|host --cap-drop ALL --security-opt
 *	    no-new-privileges --tmpfs CONTAIN_OCI_TMPFS [limits] --mount
 *	    WORKSPACE-BIND [--user U] [GPUs] --entrypoint /bin/sh IMAGE -c
 *	    CONTAIN_OCI_HOLDER
 *
 * Limits: memory with equal memory-swap, pids, and ulimits cpu, fsize in
 * bytes, nofile (0 means no limit).  The workspace (or, for access none,
 * the scratch directory) is bound at /workspace and, with p->workdir,
 * a second time at p->workdir (the same directory); GPUs are docker --gpus,
 * podman CDI devices nvidia.com/gpu=N.  No environment: values would stay
 * in the engine's record of the container; each exec passes its own.
 * p->cwd and p->env are not used.
 *
 * Refuses with CLAW_ERR_INVAL and a cause: a runtime other than docker or
 * podman, an unknown access or network, an image outside
 * [A-Za-z0-9._/:@-] or starting with '-', no sandbox or one outside
 * [a-z0-9][a-z0-9_.-]*, an environment name outside [A-Za-z_][A-Za-z0-9_]*,
 * a cwd that is absolute or has a ".." component, a workdir that is "/",
 * has a "." or ".." component or fails the host path rule, a host path that is not
 * absolute or holds ',', '"' or control characters (--mount is CSV), a user
 * other than "uid[:gid]", a negative limit, a GPU index outside 0..1023.
 * On failure b is unchanged.
 */
int	contain_oci_create(const struct contain_policy *p, struct buf *b,
	    char **cause);

/*
 * Append to b the sh command line that runs argv[0..argc) in the
 * sandbox's container, the exec being known as token (digits):
 *
 *	ENGINE exec -i --workdir WORKDIR[/CWD] [--user U] -e NAME...
 *	    clawssh-SANDBOX /bin/sh -c CONTAIN_OCI_EXEC_SH sh TOKEN ARGV...
 *
 * WORKDIR is p->workdir, or /workspace without one.
 * Environment values are never in argv: `-e NAME' takes the value from
 * the engine client's environment.  Refuses what contain_oci_create
 * refuses, a token that is not 1..20 digits, and argc < 1.
 */
int	contain_oci_exec(const struct contain_policy *p, const char *token,
	    int argc, char *const argv[], struct buf *b, char **cause);

/*
 * Return (allocated) sh code for remote_cmd's wrap slot that runs the
 * command in the sandbox's long-lived container, so that 'exec "$@" ARGV'
 * runs ARGV there (p->sandbox is required).  The code (the scripts
 * src/host/oci_engine.sh and oci_wrap_*.sh, given its values as
 * positional parameters, around the argument lists built here):
 * - checks that the engine is installed (else exits 125 naming it);
 * - chooses the identity (below) and builds the contain_oci_create line,
 *   with the label CONTAIN_OCI_SPEC_LABEL=DIGEST (cksum of its words);
 * - asks the engine whether clawssh-SANDBOX runs; if not, under a lock
 *   (flock on o->dir/oci.lock, where flock exists) asks again, removes a
 *   stopped one and starts it (exit 125 with the engine's last line when
 *   that fails), saying so on stderr with o->verbose; if it runs with
 *   another digest, warns once per digest on stderr (o->dir/oci-warned)
 *   that it runs with older settings until 'clawssh stop SANDBOX';
 * - starts a watcher in its own session that, once the shell that execs
 *   the engine client is gone (ended, timed out, killed), runs
 *   CONTAIN_OCI_KILL_SH in the container: a command whose client ended
 *   early is killed there, and the container stays;
 * - leaves the contain_oci_exec words in "$@" (token: the shell's pid),
 *   with -t when stdin and stdout are terminals, and LANG, TERM, TZ and
 *   every LC_* variable besides p->env (names only).
 * p->user may also be a user name ([a-z_][a-z0-9_-]*), resolved on the
 * host to its uid:gid at run time (exit 125 if it does not exist); with
 * a user, when the host user is root, the bound directory is given to it
 * (chown -R, mode 0700) so that it can write there.  Without a user
 * (p->user NULL) and with o->default_uid not 0, the container runs, when
 * the host user is root (checked at run time), as default_uid:default_uid,
 * given the bound directory first in the same way; when the host user is
 * not root, or with default_uid 0, it gets the engine's default user (no
 * --user).  With o->gpu_file (the host's GPU allocation file; needs no
 * p->gpus), the GPUs assigned to p->sandbox there are added at run time,
 * as --gpus or CDI devices, with CUDA_VISIBLE_DEVICES and
 * NVIDIA_VISIBLE_DEVICES on each exec.  Returns NULL with a cause for
 * what contain_oci_create refuses and a missing o->dir.
 */
char	*contain_oci_wrap(const struct contain_policy *p,
	    const struct contain_oci_opts *o, char **cause);

/*
 * Return (allocated) sh code (src/host/oci_stop.sh, after a "set --" of
 * the engine and the container) that stops the sandbox's container: removes
 * clawssh-SANDBOX (ENGINE rm -f; its processes are killed, its /tmp is
 * gone; the next exec starts a new one with the settings of the day).
 * stdout: one line, "stopped" or "not running" (there was none).  Exit
 * status 0 when no container of that name is left, 1 (with the engine's
 * message on stderr) when removing it failed, 125 when the engine is not
 * installed.  NULL with a cause for a runtime other than docker or podman
 * or a bad sandbox id.
 */
char	*contain_oci_stop(enum contain_runtime runtime, const char *sandbox,
	    char **cause);

/*
 * Return (allocated) sh code (src/host/oci_status.sh, after a "set --"
 * of the engine and the container) printing the state of the sandbox's
 * container on stdout, as lines:
 *
 *	state: running|stopped|absent
 *	memory: USAGE / LIMIT		(running only; "unknown" if the
 *					engine has no figures)
 *	processes:			(running only)
 *	  PID USER ELAPSED COMMAND	(the engine's top, each line
 *	  ...				indented by two spaces)
 *
 * "stopped": the container exists but does not run.  Exit status 0 when
 * the engine answered, 125 when it is not installed.  NULL with a cause
 * as contain_oci_stop.
 */
char	*contain_oci_status(enum contain_runtime runtime, const char *sandbox,
	    char **cause);

#endif /* CLAW_CONTAIN_OCI_H */
