#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# clawboxkill FILE (hostdir_destroy.sh, and clawssh stop: cmd_boxenv.c):
# end the persistent environment whose holder FILE (run/box.pid: "PID
# STARTTIME") names, if that process is still the one that wrote it
# (STARTTIME is /proc/PID/stat's 22nd field): SIGKILL to its children
# (bwrap's init of the sandbox's pid namespace, whose end kills every
# process of the sandbox), then to it.  Always returns 0.  No '%' here:
# cmd_boxenv.c puts it in a format string.
clawboxkill() {
	read -r p st < "$1" 2>/dev/null || return 0
	case $p:$st in *[!0-9:]*|:*|*:) return 0 ;; esac
	[ "$p" -gt 1 ] || return 0
	# shellcheck disable=SC2046 # the fields of stat, split on purpose
	set -- $(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null)
	[ "${20:-}" = "$st" ] || return 0
	pkill -KILL -P "$p" 2>/dev/null
	kill -KILL "$p" 2>/dev/null
	return 0
}
