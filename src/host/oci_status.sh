#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A sandbox container's state (contain_oci_status, for clawssh status),
# after oci_engine.sh: $1 the engine, $2 the container (clawssh-ID).
# Prints "state: absent" (no such container), "state: stopped", or
# "state: running", "memory: USAGE / LIMIT" ("unknown" when the engine
# has no figures), "processes:" and the engine's top (PID USER ELAPSED
# COMMAND), each of its lines indented by two spaces.  Exit 0.
__claw_s=$("$1" container inspect -f '{{.State.Running}}' "$2" 2>/dev/null) || { echo 'state: absent'; exit 0; }
[ "$__claw_s" = true ] || { echo 'state: stopped'; exit 0; }
echo 'state: running'
__claw_s=$("$1" stats --no-stream --format '{{.MemUsage}}' "$2" 2>/dev/null | head -n 1)
echo "memory: ${__claw_s:-unknown}"
echo 'processes:'
if [ "$1" = podman ]; then
	"$1" top "$2" pid user etime args
else
	"$1" top "$2" -o pid,user,etime,args
fi 2>/dev/null | sed 's/^/  /'
exit 0
