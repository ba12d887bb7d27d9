#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The process tool: the checks every reader starts with (after
# process_lib.sh): $sd the sandbox directory, $h the handle (checked by
# the caller), $d its directory; cap and chunk read back and checked,
# since the host's files are not trusted blindly.
umask 077
sd=$1; h=$2; d="$sd/procs/$h"
[ -d "$sd/workspace" ] && [ ! -L "$sd" ] ||
    clawfail "sandbox $sd no longer exists on this host"
[ ! -L "$sd/procs" ] && [ ! -L "$d" ] && [ -d "$d" ] ||
    clawfail "no process $h in this sandbox"
touch -c -- "$sd/last-used" 2>/dev/null
num() {
	v=$(head -c 18 -- "$d/$1" 2>/dev/null | tr -d '\n')
	case $v in ''|*[!0-9]*) clawfail "garbled state file $d/$1" ;; esac
	echo "$v"
}
cap=$(num max) || exit 3; chunk=$(num chunk) || exit 3
[ "$chunk" -gt 0 ] && [ "$chunk" -le 1073741824 ] &&
    [ "$cap" -le 17179869184 ] ||
    clawfail "garbled state files $d/max, $d/chunk"
