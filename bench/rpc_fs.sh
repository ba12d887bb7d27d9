#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# read and stat of a small file over JSON-RPC on the daemon's socket (no
# CLI process of the caller's), in one run on loopback, RUNS sequential
# calls each, medians, p99 and maxima (ms):
#   mirror-read   fs.read on a mirror sandbox: the daemon answers from
#   mirror-stat   the local copy itself (daemon_fs.c), no worker
#   remote-read   fs.read on a remote sandbox: the daemon sends the
#                 read's step into the sandbox's running environment on
#                 the host agent's channel itself (no worker): the
#                 agent's own fs-read, one process
#   remote-stat   fs.stat there: the agent's own fs-stat
#   remote-edit   fs.edit there (a word replaced by itself): fs-read,
#                 then the write's shell step, both from the daemon
#   remote-read-sh
#                 fs.read with CLAWSSH_NO_AGENT_SELF=1 in the daemon:
#                 the shell step of before (sh, stat, dd --version, dd)
#   remote-worker the same with CLAWSSH_NO_AGENT_ROUTE=1 in the daemon's
#                 environment: a worker per call, the path before
#   idle ticks    the daemon's CPU over 3 s idle after them, sessions up
#   ssh-cat       hyperfine of `ssh cat FILE` through a ControlMaster,
#                 the baseline the ratios are against
# Floor (issue 18): read/stat of a small file <= 0.3x ssh-cat.
# Usage: bench/rpc_fs.sh [RUNS]   (run after building clawssh)
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-100}
# shellcheck disable=SC2034 # read by bench/lib.sh
BENCH_TOOLS="hyperfine jq bwrap python3"
# shellcheck source=bench/lib.sh
. bench/lib.sh

CLAWSSH_STATE_DIR=$T/state
export CLAWSSH_STATE_DIR
mkdir -p "$T/wm" "$T/wr" "$XDG_CONFIG_HOME/clawssh"
printf '{ "audit": { "file": "" } }\n' > "$XDG_CONFIG_HOME/clawssh/config.json"
head -c 1000 /dev/urandom | base64 > "$T/wm/f.txt"
cp "$T/wm/f.txt" "$T/wr/f.txt"
P="provision -F $T/ssh_config --host testhost --remote-root $T/root"
# shellcheck disable=SC2086
mbox=$("$CLAWSSH" $P --workspace "$T/wm" --mode mirror --key fsm)
# shellcheck disable=SC2086
rbox=$("$CLAWSSH" $P --workspace "$T/wr" --mode remote --key fsr)
SSH="ssh -F $T/ssh_config -o BatchMode=yes"
MUX="$SSH -o ControlMaster=auto -o ControlPath=$T/cm -o ControlPersist=300"
$MUX testhost true
lib_start_daemon "$T/daemon.log" --idle-timeout 0
for b in "$mbox" "$rbox"; do	# warm: agent, environment, route
	"$CLAWSSH" exec -s "$b" --no-sync -- true
	python3 bench/rpc_fs.py "$D" "$b" fs.read f.txt 3 >/dev/null
	sleep 1
done
mr=$(python3 bench/rpc_fs.py "$D" "$mbox" fs.read f.txt "$RUNS")
ms=$(python3 bench/rpc_fs.py "$D" "$mbox" fs.stat f.txt "$RUNS")
rr=$(python3 bench/rpc_fs.py "$D" "$rbox" fs.read f.txt "$RUNS")
rs=$(python3 bench/rpc_fs.py "$D" "$rbox" fs.stat f.txt "$RUNS")
w=$(head -c 12 "$T/wr/f.txt")
re=$(python3 bench/rpc_fs.py "$D" "$rbox" fs.edit f.txt "$RUNS" \
    "{\"old\":\"$w\",\"new\":\"$w\",\"all\":true}")
# The daemon's CPU while idle with its sessions up, over 3 s: bytes read
# off a session make one more turn, nothing read makes none (a daemon
# that spins shows some 300 ticks here).
ticks() { awk '{ print $14 + $15 }' "/proc/$DPID/stat"; }
t0=$(ticks)
sleep 3
idle=$(($(ticks) - t0))
D3=$T/run/clawssh/sh.sock
CLAWSSH_NO_AGENT_SELF=1 "$CLAWSSH" serve --socket "$D3" --idle-timeout 0 \
    --log "$T/sh.log" &
W3=$!
sleep 0.5
"$CLAWSSH" exec -s "$rbox" --no-sync -- true
python3 bench/rpc_fs.py "$D3" "$rbox" fs.read f.txt 3 >/dev/null
sleep 1
rh=$(python3 bench/rpc_fs.py "$D3" "$rbox" fs.read f.txt "$RUNS")
kill "$W3"
D2=$T/run/clawssh/worker.sock
CLAWSSH_NO_AGENT_ROUTE=1 "$CLAWSSH" serve --socket "$D2" --idle-timeout 0 \
    --log "$T/worker.log" &
W2=$!
sleep 0.5
python3 bench/rpc_fs.py "$D2" "$rbox" fs.read f.txt 3 >/dev/null
rw=$(python3 bench/rpc_fs.py "$D2" "$rbox" fs.read f.txt "$RUNS")
kill "$W2"
hyperfine -N --warmup 5 --runs "$RUNS" --export-json "$T/r.json" \
    -n ssh-cat "$MUX testhost cat $T/wr/f.txt" >/dev/null
$MUX -O exit testhost 2>/dev/null || true
sc=$(jq -r '.results[0].times | sort | .[length / 2 | floor] * 1000' \
    "$T/r.json")
sp=$(jq -r '.results[0].times | sort |
    .[(length * 99 / 100 | ceil) - 1] * 1000' "$T/r.json")
sm=$(jq -r '.results[0].times | max * 1000' "$T/r.json")
echo "file tools over JSON-RPC, $RUNS sequential calls each (ms):"
printf '  %-12s %8s %8s %8s\n' "" median p99 max
# shellcheck disable=SC2086 # each holds "median p99 max"
printf '  %-14s %8.2f %8.2f %8.2f\n' mirror-read $mr mirror-stat $ms \
    remote-read $rr remote-stat $rs remote-edit $re remote-read-sh $rh \
    remote-worker $rw \
    ssh-cat "$sc" "$sp" "$sm"
echo "daemon idle with its sessions up: $idle clock ticks in 3 s" \
    "($(getconf CLK_TCK) a second)"
awk -v r="${mr%% *}" -v s="${ms%% *}" -v w="${rr%% *}" -v x="${rw%% *}" \
    -v t="${rs%% *}" -v h="${rh%% *}" -v e="${re%% *}" -v c="$sc" 'BEGIN {
	printf "mirror-read / ssh-cat    %.3f  (floor: <= 0.30)\n", r / c
	printf "mirror-stat / ssh-cat    %.3f  (floor: <= 0.30)\n", s / c
	printf "remote-read / ssh-cat    %.3f  (floor: <= 0.30; fs-read)\n", w / c
	printf "remote-stat / ssh-cat    %.3f  (floor: <= 0.30; fs-stat)\n", t / c
	printf "remote-edit / ssh-cat    %.3f  (a read and a write)\n", e / c
	printf "remote-read-sh / ssh-cat %.3f  (the shell step)\n", h / c
	printf "remote-worker / ssh-cat  %.3f  (a worker per call)\n", x / c
}'
