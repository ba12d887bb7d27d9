#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The process tool's shared functions (src/tools/process_scripts.h): every
# script of it starts with them, and the supervisor hands them to split's
# filter.  $d is the process directory.  clawlock N takes the lock (a
# mkdir, broken when older than a minute) within N naps; clawprune LIMIT
# deletes the oldest log chunks until the rest fit in LIMIT bytes (never
# the newest, which split may be writing); chunk k starts at byte
# k * chunk of the output, so nothing else needs counting.
# shellcheck disable=SC2154 # $d: set by the script these start
clawfail() { echo "clawssh-error: $*" >&2; exit 3; }
clawnap() { sleep 0.1 2>/dev/null || sleep 1; }
clawlock() {
	n=0
	until mkdir "$d/lock" 2>/dev/null; do
		if [ -n "$(find "$d/lock" -prune -mmin +1 2>/dev/null)" ] &&
		    rmdir "$d/lock" 2>/dev/null; then
			continue	# a stale one, broken (not a link)
		fi
		n=$((n + 1))
		[ $n -le "$1" ] || return 1
		clawnap
	done
}
clawunlock() { rmdir "$d/lock" 2>/dev/null; }
clawprune() {
	set -- "$1" "$d"/log.[0-9]*
	lim=$1
	shift
	[ -e "$1" ] || return 0
	tot=0
	for f; do tot=$((tot + $(wc -c < "$f"))); done
	for f; do
		[ "$tot" -gt "$lim" ] && [ $# -gt 1 ] || break
		tot=$((tot - $(wc -c < "$f")))
		rm -f -- "$f"
		shift
	done
}
