#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The process tool's start: "sh -c SCRIPT sh SANDBOX HANDLE CAP CHUNK
# NAME CMD SUP LIB ARGV...", in the workspace with the environment
# already exported.  Prints "clawssh-started HANDLE" once the process
# has its pid file.  The process keeps the caller's umask; its state
# gets 077.  clawssh-agent proc-start (src/agent/proc_start.c) does the
# same without sh where the host runs the agent.
um=$(umask)
umask 077
sd=$1; h=$2; cap=$3; chunk=$4; nm=$5; cm=$6; sup=$7; lib=$8; shift 8
d="$sd/procs/$h"
eval "$lib"
[ -L "$sd/procs" ] && clawfail "$sd/procs is a symbolic link"
mkdir -p -- "$sd/procs" && mkdir -- "$d" || clawfail "cannot create $d"
mkfifo -- "$d/in" "$d/ctl" || clawfail "cannot create FIFOs in $d"
echo "$cap" > "$d/max" && echo "$chunk" > "$d/chunk" &&
    printf '%s\n' "$nm" > "$d/name" && printf '%s\n' "$cm" > "$d/cmd" &&
    date +%s > "$d/start" || clawfail "cannot write $d"
command -v setsid >/dev/null 2>&1 ||
    clawfail "setsid not found on this host"
setsid sh -c "$sup" sh "$d" "$cap" "$chunk" "$um" "$lib" "$@" \
    </dev/null >/dev/null 2>&1 &
n=0
while [ ! -e "$d/pid" ] && [ ! -e "$d/rc" ] && [ $n -lt 100 ]; do
	clawnap
	n=$((n + 1))
done
[ -e "$d/pid" ] || clawfail "process $h did not start"
echo "clawssh-started $h"
