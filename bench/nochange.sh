#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A no-change mirrored exec against the same exec with --no-sync (issue
# 18's floor: <= 1.1x), through a warm daemon, on the 10,000-file
# workspace of bench/gen_workspace.sh, RUNS of each taken in turns
# (bench/turns.c: the machine's drift weighs on both alike).  Prints the
# medians, p90 and p99 in ms, and the ratio of the medians.
#   bench/nochange.sh [RUNS]    (default 300; run after building clawssh)
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-300}
# shellcheck disable=SC2034 # read by bench/lib.sh
BENCH_TOOLS="cc"
# shellcheck source=bench/lib.sh
. bench/lib.sh
CLAWSSH_STATE_DIR=$T/state
export CLAWSSH_STATE_DIR
W=$T/ws
sh bench/gen_workspace.sh "$W" > /dev/null
cc -O2 -o "$T/turns" bench/turns.c
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
    --remote-root "$T/root" --workspace "$W" --key nochange)
lib_start_daemon "$T/daemon.log" --idle-timeout 0
i=0
while [ $i -lt 5 ]; do		# the watcher, the journal, the agent: warm
	"$CLAWSSH" exec -s "$id" -- true
	i=$((i + 1))
done
"$T/turns" "$RUNS" "mirror=$CLAWSSH exec -s $id -- true" \
    "no-sync=$CLAWSSH exec -s $id --no-sync -- true" | tee "$T/turns.out"
awk '{ m[$1] = $3 } END {
	printf "no-change mirror exec / --no-sync: %.2f / %.2f ms = %.2fx (floor <= 1.10)\n",
	    m["mirror"], m["no-sync"], m["mirror"] / m["no-sync"] }' "$T/turns.out"
