#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Where a JSON-RPC call's time goes, per method, in one run on loopback:
# sequential calls on the daemon's socket (no CLI process of the
# caller's) of methods the daemon answers itself (exec, fs.stat,
# process.poll, process.list and process.start: the host agent's
# proc-* commands on the daemon's session; starts last, as each leaves
# a process directory that list reads) and of methods it still hands to a CLI worker
# process (sandbox.sshConfig, purely local; sandbox.status, which runs
# a script on the host), beside the same work done by the CLI run
# directly against the same daemon, and `clawssh --version` (a process
# start).  For a worker method the gap between JSON-RPC and its CLI
# command is what the worker adds in the daemon (fork, exec, pipes);
# the CLI's own figure less --version is the command's work.  Medians
# and p99 over RUNS calls.
# Usage: bench/rpc_ops.sh [RUNS]   (run after building clawssh)
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-100}
# shellcheck disable=SC2034 # read by bench/lib.sh
BENCH_TOOLS="hyperfine jq bwrap python3"
# shellcheck source=bench/lib.sh
. bench/lib.sh

CLAWSSH_STATE_DIR=$T/state
export CLAWSSH_STATE_DIR
mkdir -p "$T/ws" "$XDG_CONFIG_HOME/clawssh"
echo data > "$T/ws/f.txt"
printf '{ "audit": { "file": "" } }\n' > "$XDG_CONFIG_HOME/clawssh/config.json"
box=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
    --remote-root "$T/root" --workspace "$T/ws" --mode remote --key ops)
lib_start_daemon "$T/daemon.log" --idle-timeout 0
"$CLAWSSH" exec -s "$box" --no-sync -- true	# warm: agent, environment
h=$("$CLAWSSH" process start -s "$box" -- sleep 600)
python3 bench/rpc_ops.py "$D" "$box" "$h" "$RUNS" > "$T/rpc"
CLAWSSH_DAEMON_SOCKET=$D hyperfine -N --warmup 3 --runs "$RUNS" \
    --export-json "$T/cli.json" \
    -n sandbox.sshConfig "$CLAWSSH ssh-config $box" \
    -n process.poll "$CLAWSSH process poll -s $box --json $h" \
    -n process.list "$CLAWSSH process list -s $box --json" \
    -n sandbox.status "$CLAWSSH status $box --json" \
    -n process.start "$CLAWSSH process start -s $box --json -- /bin/true" \
    -n version "$CLAWSSH --version" >/dev/null
"$CLAWSSH" process kill -s "$box" "$h" >/dev/null 2>&1 || true
"$CLAWSSH" stop "$box" >/dev/null 2>&1 || true
jq -r '.results[] | "\(.command) \(.times | sort | .[length / 2 | floor] * 1000)"' \
    "$T/cli.json" > "$T/cli"
echo "JSON-RPC on the daemon's socket vs the CLI run directly (ms, $RUNS runs):"
awk '
BEGIN { split("exec fs.stat process.poll process.list process.start", w); for (i in w) own[w[i]] = 1 }
FNR == NR { cli[$1] = $2; next }
FNR == 1 {
	printf "  %-18s %9s %9s %11s %11s\n", "method", "rpc p50", "rpc p99",
	    "CLI p50", "rpc - CLI"
}
{
	if (($1 in cli) && ($1 in own))
		printf "  %-18s %9.2f %9.2f %11.2f %11s  (in the daemon)\n",
		    $1, $2, $3, cli[$1], "-"
	else if ($1 in cli)
		printf "  %-18s %9.2f %9.2f %11.2f %11.2f\n", $1, $2, $3,
		    cli[$1], $2 - cli[$1]
	else
		printf "  %-18s %9.2f %9.2f %11s %11s  (in the daemon)\n",
		    $1, $2, $3, "-", "-"
}
END { printf "  clawssh --version (a process start): %.2f\n", cli["version"] }
' "$T/cli" "$T/rpc"
