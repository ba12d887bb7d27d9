#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The bwrap part of clawssh stop's script (cmd_boxenv.c), after
# boxenv_procs.sh and clawboxkill (HOSTDIR_SCRIPT_BOXKILL), before the
# removal of the sandbox's cgroups: $2 the sandbox's run directory, $3
# the host agent ('' when none).  Ends the persistent environment's
# holder: with the agent, by its box-stop (which prints the answer; exit
# 3 when it fails); without, by the holder's session from box.pid.
# Prints "stopped" or "not running".
r=$2; a=$3
if [ -n "$a" ] && [ -f "$a" ]; then
	"$a" box-stop --dir "$r" || exit 3
elif [ -f "$r/box.pid" ]; then
	clawboxkill "$r/box.pid"; rm -f -- "$r/box.sock" "$r/box.pid"
	echo stopped
else
	echo 'not running'
fi
