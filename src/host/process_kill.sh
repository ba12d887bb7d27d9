#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The process tool's kill (after process_lib and _open): $3 the signal
# name, $4 1 to follow with KILL after $5 tenths of a second.  Signals
# the process group and the session of the recorded pid, then waits (up
# to the grace again) for the exit to be recorded.  Prints clawssh-exited
# if it had already exited, else clawssh-killed.
# shellcheck disable=SC2154 # $d: process_open.sh
sig=$3; esc=$4; grace=$5; pid=$(num pid) || exit 3
[ "$pid" -gt 1 ] || clawfail "garbled state file $d/pid"
# gone without its rc (its supervisor killed, a reboot): its pid may be
# another process's by now
{ [ -e "$d/rc" ] || ! clawours "$d/pid"; } && { echo clawssh-exited; exit 0; }
echo "$sig" > "$d/killed"
alive() { kill -0 -- "-$pid" 2>/dev/null || pgrep -s "$pid" >/dev/null 2>&1; }
kill -s "$sig" -- "-$pid" 2>/dev/null; pkill "-$sig" -s "$pid" 2>/dev/null
i=0
if [ "$esc" = 1 ]; then
	while alive && [ $i -lt "$grace" ]; do clawnap; i=$((i + 1)); done
	kill -s KILL -- "-$pid" 2>/dev/null
	pkill -KILL -s "$pid" 2>/dev/null
fi
i=0
while [ ! -e "$d/rc" ] && [ $i -lt "$grace" ]; do clawnap; i=$((i + 1)); done
echo clawssh-killed
