/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host-side shell scripts that stay sh (where the host agent cannot
 * run), kept as real files in src/host/ so that shellcheck reads them
 * (tests/integration/lint_shell.sh) and tests run them under dash and
 * busybox sh without sshd (tests/integration/host_sh.sh); turned into
 * these strings at build time by scripts/sh2c.sh (comment lines left
 * out).  Each runs with sh -c from the sandbox workspace.
 */
#ifndef CLAW_HOST_SH_H
#define CLAW_HOST_SH_H

/* list_all.sh: a mirror pull's listing of the whole workspace. */
extern const char host_sh_list_all[];
/* list_part.sh: the listing of the paths on stdin, all below each. */
extern const char host_sh_list_part[];
/* watch.sh: the daemon's change watcher around inotifywait. */
extern const char host_sh_watch[];

#endif /* CLAW_HOST_SH_H */
