#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The process tool: clawstate [WAIT] prints "clawssh-proc HANDLE NAME
# STATE RC START CMD"; with WAIT set, an exited process gets up to 5 s to
# finish its output (the log's split and its filters run after the
# command ends).  Values are passed on raw (bounded): the client judges
# them.
# shellcheck disable=SC2154 # $d and $h: set by the script this is in
clawstate() {
	st=running
	rc=-
	if [ -e "$d/rc" ]; then
		n=0
		while [ -n "$1" ] && [ ! -e "$d/done" ] && [ $n -lt 50 ]; do
			clawnap
			n=$((n + 1))
		done
		rc=$(head -c 24 -- "$d/rc" | tr -d '\n')
		st=exited
		[ -e "$d/killed" ] && st=killed
	else
		clawours "$d/sup" || st=lost
	fi
	nm=$(head -c 100 -- "$d/name" 2>/dev/null | tr -d '\n')
	t0=$(head -c 24 -- "$d/start" 2>/dev/null | tr -d '\n')
	cm=$(head -c 4096 -- "$d/cmd" 2>/dev/null | tr -d '\n')
	printf 'clawssh-proc %s %s %s %s %s %s\n' "$h" "${nm:--}" "$st" \
	    "${rc:--}" "${t0:-0}" "$cm"
}
