#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The start of clawssh stop's script (cmd_boxenv.c; after proc_ours.sh):
# $1 the sandbox directory.  Ends the sandbox's background processes,
# the process groups named by its procs/p*/pid files that still name
# their process (clawours; one without an identity only while it has no
# rc): TERM, up to 2 s for them to go, then KILL to the groups and
# sessions left.  Sets $d
# (the directory) and $id (its last component, the sandbox id) for what
# follows; prints nothing.  A directory that is gone (or a link): exit 3
# with "clawssh-error: sandbox ID no longer exists on this host".
d=$1; id=${d##*/}
[ -d "$d" ] && [ ! -L "$d" ] || { echo "clawssh-error: sandbox $id no longer exists on this host" >&2; exit 3; }
pids=
# shellcheck disable=SC2154 # $_p: clawours (proc_ours.sh)
for f in "$d"/procs/p*/pid; do
	clawours "$f" || continue
	[ -s "$f.ident" ] || [ ! -e "${f%/pid}/rc" ] || continue
	p=$_p
	kill -s 0 -- "-$p" 2>/dev/null || continue
	pids="$pids $p"; kill -s TERM -- "-$p" 2>/dev/null
done
n=0
while [ -n "$pids" ] && [ $n -lt 20 ]; do
	left=
	for p in $pids; do
		kill -s 0 -- "-$p" 2>/dev/null && left="$left $p"
	done
	pids=$left
	[ -z "$pids" ] || sleep 0.1 2>/dev/null || sleep 1
	n=$((n + 1))
done
for p in $pids; do
	kill -s KILL -- "-$p" 2>/dev/null; pkill -KILL -s "$p" 2>/dev/null
done
