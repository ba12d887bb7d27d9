#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The process tool's list (after process_lib and _state): one state
# line per process directory with a valid handle.
umask 077
sd=$1; d=
[ -d "$sd/workspace" ] && [ ! -L "$sd" ] ||
    clawfail "sandbox $sd no longer exists on this host"
touch -c -- "$sd/last-used" 2>/dev/null
[ -d "$sd/procs" ] && [ ! -L "$sd/procs" ] || exit 0
for d in "$sd"/procs/p*; do
	h=${d##*/}
	case $h in
	p[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]) ;;
	*) continue ;;
	esac
	[ -d "$d" ] && [ ! -L "$d" ] || continue
	# shellcheck disable=SC2034 # $h is clawstate's
	clawstate
done
