/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host-side shell scripts that stay sh (where the host agent cannot
 * run, or for what it does not do yet), kept as real files in src/host/
 * so that shellcheck reads them (tests/integration/lint_shell.sh) and
 * tests run them without sshd (tests/integration/host_sh.sh, and for
 * hostdir_*.sh and oci_*.sh/boxenv_*.sh host_sh_hostdir.sh and
 * host_sh_oci.sh, under dash and busybox sh; the process tool's over the
 * local transport in tests/unit/test_process_local.c); turned into the
 * string macros HOST_SH_NAME of host_sh_gen.h at build time by
 * scripts/sh2c.sh (comment lines left out).  Each runs with sh -c; what
 * each expects and prints is said at the top of its file:
 *
 *	HOST_SH_AGENT_*		agent_*.sh: deploying the host agent, joined
 *				in src/tools/agent_deploy.c
 *	HOST_SH_BOXENV_*	boxenv_*.sh: a sandbox environment's stop and
 *				status, in src/cli/cmd_boxenv.c
 *	HOST_SH_FSTORE_*	fstore_*.sh: the remote file tools' steps,
 *				in src/tools/fstore_scripts.h
 *	HOST_SH_HOSTDIR_*	hostdir_*.sh: the host-directory backend's
 *				scripts (sandboxes, images, GPUs, the check
 *				before each command), joined in
 *				backends/host/hostdir_scripts.h
 *	HOST_SH_LIST_ALL	list_all.sh: a pull's listing of the workspace
 *	HOST_SH_LIST_PART	list_part.sh: of the paths on stdin
 *	HOST_SH_OCI_*		oci_*.sh: the docker/podman wrapper (its
 *				sh around the engine's argument lists, which
 *				stay C), stop and status, joined in
 *				src/tools/contain_oci.c
 *	HOST_SH_TRANSFER_*	transfer_*.sh: a push's shell steps, in
 *				sync/transfer_stage.c and sync/transfer.h
 *	HOST_SH_WATCH		watch.sh: the change watcher (inotifywait)
 *	HOST_SH_PROCESS_*	process_*.sh: the process tool's pieces, joined
 *				in src/tools/process_scripts.h
 */
#ifndef CLAW_HOST_SH_H
#define CLAW_HOST_SH_H

#include "host_sh_gen.h"

#endif /* CLAW_HOST_SH_H */
