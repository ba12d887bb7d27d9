#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A contained exec over JSON-RPC on the daemon's socket (no CLI process of
# the caller's; the daemon still runs a worker per call), in one run on
# loopback beside `ssh` through a ControlMaster:
#   rpc         RUNS sequential `exec /bin/true` calls: median, p99 (ms)
#   rate        TOTAL calls, 64 in flight: execs/s (every answer checked)
#   ssh-mux     hyperfine of ssh through a ControlMaster running /bin/true
#   bare        /bin/true run here, no ssh, no sandbox: hyperfine's median,
#               and TOTAL of them 64 at once (xargs -P 64): runs/s; what
#               a command costs on this machine at all, the baseline the
#               ratios are against
# Floors (issue 18): rpc p50 <= 2 ms, p99 <= 10 ms; >= 500 execs/s with 64
# in flight.
# Usage: bench/rpc_exec.sh [RUNS [TOTAL]]   (run after building clawssh)
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-100}
TOTAL=${2:-640}
# shellcheck disable=SC2034 # read by bench/lib.sh
BENCH_TOOLS="hyperfine jq bwrap python3"
# shellcheck source=bench/lib.sh
. bench/lib.sh

CLAWSSH_STATE_DIR=$T/state
export CLAWSSH_STATE_DIR
mkdir -p "$T/ws" "$XDG_CONFIG_HOME/clawssh"
printf '{ "audit": { "file": "" } }\n' > "$XDG_CONFIG_HOME/clawssh/config.json"
box=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
    --remote-root "$T/root" --workspace "$T/ws" --mode remote --key rpc)
SSH="ssh -F $T/ssh_config -o BatchMode=yes"
MUX="$SSH -o ControlMaster=auto -o ControlPath=$T/cm -o ControlPersist=300"
$MUX testhost true
lib_start_daemon "$T/daemon.log" --idle-timeout 0
"$CLAWSSH" exec -s "$box" --no-sync -- true	# warm: agent, environment
python3 bench/rpc_exec.py "$D" "$box" "$RUNS" 64 "$TOTAL" > "$T/rpc"
hyperfine -N --warmup 5 --runs "$RUNS" --export-json "$T/r.json" \
    -n ssh-mux "$MUX testhost /bin/true" >/dev/null
hyperfine -N --warmup 5 --runs "$RUNS" --export-json "$T/b.json" \
    -n bare /bin/true >/dev/null
t0=$(date +%s%N)
seq "$TOTAL" | xargs -P 64 -n 1 /bin/true
t1=$(date +%s%N)
$MUX -O exit testhost 2>/dev/null || true
"$CLAWSSH" stop "$box" >/dev/null 2>&1 || true
mux=$(jq -r '.results[0].times | sort | .[length / 2 | floor] * 1000' \
    "$T/r.json")
bare=$(jq -r '.results[0].times | sort | .[length / 2 | floor] * 1000' \
    "$T/b.json")
awk -v mux="$mux" -v runs="$RUNS" -v total="$TOTAL" -v bare="$bare" \
    -v brate="$(awk -v n="$TOTAL" -v ns=$((t1 - t0)) \
    'BEGIN { print n / (ns / 1e9) }')" '
$1 == "sequential" { med = $2; p99 = $3 }
$1 == "inflight" { rate = $3 }
END {
	printf "contained exec over JSON-RPC, %d sequential calls (ms):\n", runs
	printf "  median %.2f  p99 %.2f  (floors: <= 2, <= 10)\n", med, p99
	printf "  ssh-mux median %.2f; rpc / ssh-mux %.2f\n", mux, med / mux
	printf "  bare /bin/true here %.2f; rpc / bare %.2f\n", bare, med / bare
	printf "%d calls, 64 in flight: %.1f execs/s (floor: >= 500)\n",
	    total, rate
	printf "  bare /bin/true 64 at once: %.1f/s; rpc / bare %.2f\n",
	    brate, rate / brate
}' "$T/rpc"
