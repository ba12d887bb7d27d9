#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Round trip of one remote `/bin/true` on loopback, in one run (the
# program, not bash's builtin `true`, so every variant runs the same
# remote process: clawssh's wrapper ends in `exec`):
#   clawssh exec HOST true        (fresh connection each time)
#   clawssh exec HOST true        (through a running clawssh daemon)
#   ssh HOST true                 (fresh connection each time)
#   ssh HOST true via ControlMaster (connection reused)
# Prints medians and the ratios clawssh/ssh, daemon/ssh-mux.
# Usage: bench/exec_roundtrip.sh [RUNS]   (run after building clawssh)
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-40}
CLAWSSH=${CLAWSSH:-$PWD/clawssh}
SSHD=${SSHD:-$(command -v sshd || echo /usr/sbin/sshd)}
TESTLIB=$PWD/tests/integration/lib.sh
export CLAWSSH SSHD
[ -x "$CLAWSSH" ] || { echo "build clawssh first" >&2; exit 1; }
command -v hyperfine >/dev/null ||
	{ echo "hyperfine missing: apt-get install hyperfine" >&2; exit 1; }
. "$TESTLIB"

SSH="ssh -F $T/ssh_config -o BatchMode=yes"
MUX="$SSH -o ControlMaster=auto -o ControlPath=$T/cm -o ControlPersist=120"
$MUX testhost true    # start the master
"$CLAWSSH" serve --idle-timeout 0 &
DAEMON=$!
"$CLAWSSH" exec -F "$T/ssh_config" testhost -- true    # warm it

hyperfine -N --warmup 3 --runs "$RUNS" --export-csv "$T/r.csv" \
    -n clawssh "$CLAWSSH exec --no-daemon -F $T/ssh_config testhost -- /bin/true" \
    -n daemon "$CLAWSSH exec -F $T/ssh_config testhost -- /bin/true" \
    -n ssh "$SSH testhost /bin/true" \
    -n ssh-mux "$MUX testhost /bin/true" >/dev/null

$MUX -O exit testhost 2>/dev/null || true
kill "$DAEMON"; wait "$DAEMON" 2>/dev/null || true
awk -F, 'NR > 1 { med[$1] = $4 * 1000 }
END {
	printf "median round trip over %d runs (ms):\n", '"$RUNS"'
	printf "  clawssh exec (fresh)   %8.2f\n", med["clawssh"]
	printf "  clawssh exec (daemon)  %8.2f\n", med["daemon"]
	printf "  ssh (fresh)            %8.2f\n", med["ssh"]
	printf "  ssh via ControlMaster  %8.2f\n", med["ssh-mux"]
	printf "ratio clawssh / ssh           %.2f  (floor: <= 1.00)\n",
	    med["clawssh"] / med["ssh"]
	printf "ratio clawssh / ssh-mux       %.2f\n",
	    med["clawssh"] / med["ssh-mux"]
	printf "ratio daemon / ssh-mux        %.2f  (floor: <= 1.00)\n",
	    med["daemon"] / med["ssh-mux"]
}' "$T/r.csv"
