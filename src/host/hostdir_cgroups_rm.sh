#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# clawcgroups ID (hostdir_destroy.sh, and clawssh stop: cmd_boxenv.c):
# remove the cgroups of sandbox ID (pids, memory, cpu; v1 or v2), waiting up
# to 3 s each for the processes just killed to leave them.  No '%' here:
# cmd_boxenv.c puts it in a format string.
clawcgroups() {
	for c in /sys/fs/cgroup/pids/clawssh-$1 \
	    /sys/fs/cgroup/memory/clawssh-$1 /sys/fs/cgroup/cpu/clawssh-$1 \
	    /sys/fs/cgroup/clawssh-$1; do
		n=0
		while [ -d "$c" ] && ! rmdir "$c" 2>/dev/null &&
		    [ $n -lt 30 ]; do
			sleep 0.1 2>/dev/null || sleep 1
			n=$((n + 1))
		done
	done
}
