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

/* The private /tmp every container gets (a tmpfs). */
#define CONTAIN_OCI_TMPFS	"/tmp:rw,nosuid,nodev,size=64m"

/*
 * Append to b the sh command line (every word sh-quoted) that runs
 * argv[0..argc) under policy p with engine "docker" or "podman" as a fresh
 * container named name (--rm, -i, --init), removed when the command ends.
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
 * [A-Za-z0-9._/:@-] or starting with '-', a name outside
 * [a-z0-9][a-z0-9_.-]*, an environment name outside [A-Za-z_][A-Za-z0-9_]*,
 * a cwd that is absolute or has a ".." component, a host path that is not
 * absolute or holds ',', '"' or control characters (--mount is CSV), a user
 * other than "uid[:gid]", a negative limit, a GPU index outside 0..1023,
 * argc < 1.  On failure b is unchanged.
 */
int	contain_oci_run(const struct contain_policy *p, const char *name,
	    int argc, char *const argv[], struct buf *b, char **cause);

#endif /* CLAW_CONTAIN_OCI_H */
