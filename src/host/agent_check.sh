#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Deploying the host agent: is it there?  After agent_dirs.sh, with n
# (the file name), want (the version line it must print) and x (the
# architecture it is built for) set.  Prints "clawssh-agent-ok PATH",
# "clawssh-agent-no WHY" or "clawssh-agent-need".
# shellcheck disable=SC2154 # n, want, x: set before it
m=$(uname -m 2>/dev/null)
[ "$m" = "$x" ] || {
	echo "clawssh-agent-no the host is $m; this clawssh carries an agent for $x"
	exit 0
}
IFS='
'
for d in $(clawdirs); do
	f=$d/$n
	# shellcheck disable=SC3062 # -O: dash, bash and busybox have it
	if [ -f "$f" ] && [ ! -L "$f" ] && [ -O "$f" ] &&
	    [ "$("$f" version 2>/dev/null)" = "$want" ]; then
		echo "clawssh-agent-ok $f"
		exit 0
	fi
done
echo clawssh-agent-need
