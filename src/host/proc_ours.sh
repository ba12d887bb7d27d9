#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# clawident PID: "BOOT_ID START" of a live process (/proc/PID/stat's start
# time in ticks since this boot), or nothing.  clawours FILE: whether the
# pid file FILE (a background process's pid or sup) still names its
# process: alive, with the identity its writer put in FILE.ident (a file
# without one, or an empty one -- from before identities were kept, or
# from a host without /proc -- is taken at its word);
# the pid in $_p.  Pids come round, and all of them after a reboot: the
# pid of a process long gone is another process by now, and its group
# and session are not ours to signal (stop, destroy and kill once sent
# them signals regardless).  The process tool's scripts, clawssh stop's
# and destroy's start with these (src/agent/proc_ops.c: proc_ours).
clawident() {
	_s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f20)
	_b=$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)
	[ -n "$_s" ] && [ -n "$_b" ] && echo "$_b $_s"
}
clawours() {
	_p=$(head -c 16 -- "$1" 2>/dev/null) || return 1
	case $_p in ''|*[!0-9]*) return 1 ;; esac
	[ "$_p" -gt 1 ] || return 1
	_i=$(clawident "$_p") || return 1
	[ -s "$1.ident" ] || return 0
	[ "$(head -c 80 -- "$1.ident" 2>/dev/null)" = "$_i" ]
}
