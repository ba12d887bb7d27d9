#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What containment costs per exec, in one run on loopback, all through a
# running clawssh daemon, RUNS runs each (hyperfine), medians and p99:
#   contained   exec -s BWRAP --no-sync -- /bin/true   (the persistent
#               environment, reached through the daemon's host agent
#               channel: clawssh-agent serve, no shell on the host)
#   contained-sh the same with CLAWSSH_NO_AGENT_ROUTE=1 (a shell and the
#               agent's box-exec per command)
#   per-command the same with CLAWSSH_NO_AGENT=1 (a bwrap per command,
#               the path before the persistent environment)
#   bare        exec -s NONE --no-sync -- /bin/true    (runtime none:
#               the same host, the same wrapper, no containment)
#   ssh-mux     ssh through a ControlMaster running /bin/true
# Floors: contained / bare <= 1.3 and contained / ssh-mux <= 1.5 (issue
# 17); contained / ssh-mux <= 0.5 (issue 18).
# Usage: bench/contained_exec.sh [RUNS]   (run after building clawssh)
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-100}
# shellcheck disable=SC2034 # read by bench/lib.sh
BENCH_TOOLS="hyperfine jq bwrap"
# shellcheck source=bench/lib.sh
. bench/lib.sh

CLAWSSH_STATE_DIR=$T/state
export CLAWSSH_STATE_DIR
mkdir -p "$T/ws"
P="provision -F $T/ssh_config --host testhost --remote-root $T/root"
P="$P --workspace $T/ws --mode remote"
# shellcheck disable=SC2086
box=$("$CLAWSSH" $P --key bench-bwrap)
# shellcheck disable=SC2086
bare=$("$CLAWSSH" $P --key bench-none --runtime none)
SSH="ssh -F $T/ssh_config -o BatchMode=yes"
MUX="$SSH -o ControlMaster=auto -o ControlPath=$T/cm -o ControlPersist=300"
$MUX testhost true
"$CLAWSSH" serve --idle-timeout 0 &
DAEMON=$!
sleep 0.5
"$CLAWSSH" exec -s "$box" --no-sync -- true	# warm: agent, environment
"$CLAWSSH" exec -s "$bare" --no-sync -- true

hyperfine -N --warmup 5 --runs "$RUNS" --export-json "$T/r.json" \
    -n contained "$CLAWSSH exec -s $box --no-sync -- /bin/true" \
    -n contained-sh "env CLAWSSH_NO_AGENT_ROUTE=1 $CLAWSSH exec -s $box --no-sync -- /bin/true" \
    -n per-command "env CLAWSSH_NO_AGENT=1 $CLAWSSH exec -s $box --no-sync -- /bin/true" \
    -n bare "$CLAWSSH exec -s $bare --no-sync -- /bin/true" \
    -n ssh-mux "$MUX testhost /bin/true" >/dev/null

$MUX -O exit testhost 2>/dev/null || true
kill "$DAEMON"
wait "$DAEMON" 2>/dev/null || true
"$CLAWSSH" stop "$box" >/dev/null 2>&1 || true
# median and p99 (nearest rank) of each, in ms
jq -r '.results[] | .command as $n | (.times | sort) as $t |
    ($t | length) as $c |
    "\($n) \($t[($c / 2 | floor)] * 1000) \($t[(($c * 99 / 100) | ceil) - 1] * 1000)"' \
    "$T/r.json" | awk -v runs="$RUNS" '
{ med[$1] = $2; p99[$1] = $3 }
END {
	printf "contained exec, %d runs each, through the daemon (ms):\n", runs
	printf "  %-13s %8s %8s\n", "", "median", "p99"
	n = split("contained contained-sh per-command bare ssh-mux", k, " ")
	for (i = 1; i <= n; i++)
		printf "  %-13s %8.2f %8.2f\n", k[i], med[k[i]], p99[k[i]]
	printf "contained / bare         %.2f  (floor: <= 1.30)\n",
	    med["contained"] / med["bare"]
	printf "contained / ssh-mux      %.2f  (floors: <= 1.50, issue 18 <= 0.50)\n",
	    med["contained"] / med["ssh-mux"]
	printf "contained-sh / ssh-mux   %.2f  (the shell path)\n",
	    med["contained-sh"] / med["ssh-mux"]
	printf "per-command / bare       %.2f  (the path before)\n",
	    med["per-command"] / med["bare"]
}'
