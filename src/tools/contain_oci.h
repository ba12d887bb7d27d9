/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * docker and podman command lines that express a containment policy.
 * Pure: builds sh text, runs nothing.
 */
#ifndef CLAW_CONTAIN_OCI_H
#define CLAW_CONTAIN_OCI_H

struct buf;
struct contain_policy;

/* Where the workspace appears inside the container. */
#define CONTAIN_OCI_WORKSPACE	"/workspace"

/* The label naming a container's sandbox (for destroy and prune). */
#define CONTAIN_OCI_LABEL	"clawssh.sandbox"

/* The private /tmp every container gets (a tmpfs). */
#define CONTAIN_OCI_TMPFS	"/tmp:rw,nosuid,nodev,size=64m"

/*
 * Append to b the sh command line (every word sh-quoted) that runs
 * argv[0..argc) under policy p with engine "docker" or "podman" as a fresh
 * container named name (--rm, -i; docker --init, podman --stop-timeout 0:
 * the command is its first process), removed when the command ends,
 * labelled CONTAIN_OCI_LABEL=p->sandbox when p->sandbox is not NULL.
 *
 * The container has a read-only root, a private tmpfs /tmp, no
 * capabilities, no-new-privileges, the policy's network, limits (memory
 * with equal memory-swap, pids, and ulimits cpu, fsize in bytes, nofile;
 * 0 means no limit), the workspace (or, for access none, the scratch
 * directory) bound at /workspace, the working directory /workspace[/cwd],
 * the user, the environment variable names (values are inherited from the
 * engine's own environment: `-e NAME'), and the GPUs (docker --gpus,
 * podman CDI devices nvidia.com/gpu=N).
 *
 * Refuses with CLAW_ERR_INVAL and a cause: a runtime other than docker or
 * podman, an unknown access or network, an image outside
 * [A-Za-z0-9._/:@-] or starting with '-', a name (or sandbox) outside
 * [a-z0-9][a-z0-9_.-]*, an environment name outside [A-Za-z_][A-Za-z0-9_]*,
 * a cwd that is absolute or has a ".." component, a host path that is not
 * absolute or holds ',', '"' or control characters (--mount is CSV), a user
 * other than "uid[:gid]", a negative limit, a GPU index outside 0..1023,
 * argc < 1.  On failure b is unchanged.
 */
int	contain_oci_run(const struct contain_policy *p, const char *name,
	    int argc, char *const argv[], struct buf *b, char **cause);

/*
 * Return (allocated) sh code for remote_cmd's wrap slot that runs the
 * command in a fresh container of engine p->runtime named name, with the
 * confinement contain_oci_run describes, so that 'exec "$@" ARGV' runs
 * ARGV there.  The code checks that the engine is installed (else exits
 * 125 naming the runtime) and starts a watcher in its own session that
 * removes the container ("ENGINE rm -f NAME") once the shell that execs
 * the engine client is gone, so that a timeout or kill of the client's
 * process group also ends the container's processes.  The container gets
 * LANG, TERM, TZ and every LC_* variable from the client's environment
 * besides p->env (names only: values never appear in argv).  p->user may
 * also be a user name ([a-z_][a-z0-9_-]*), resolved on the host to its
 * uid:gid at run time (exit 125 if it does not exist); with a user, when
 * the host user is root, the bound directory is given to it (chown -R,
 * mode 0700) so that it can write there.  Without a user (p->user NULL)
 * and with default_uid not 0, the container runs, when the host user is
 * root (checked at run time), as default_uid:default_uid, given the
 * bound directory first in the same way; when the host user is not root,
 * or with default_uid 0, it gets the engine's default user (no --user).
 * With gpu_file
 * (the host's GPU allocation file; needs p->sandbox and no p->gpus), the
 * GPUs assigned to p->sandbox there are added at run time, as --gpus or
 * CDI devices, with CUDA_VISIBLE_DEVICES and NVIDIA_VISIBLE_DEVICES.
 * Returns NULL with a cause for what contain_oci_run refuses.
 */
char	*contain_oci_wrap(const struct contain_policy *p, const char *name,
	    const char *gpu_file, unsigned int default_uid, char **cause);

#endif /* CLAW_CONTAIN_OCI_H */
