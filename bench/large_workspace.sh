#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A large mirror workspace on loopback (issue 18's 100,000-file floors),
# all figures from one run:
#   listing    the host agent's full listing (clawssh-agent fs-list, what a
#              mirror pull runs when it must list everything) vs the GNU
#              find it replaces, on the same tree on the host
#   no change  clawssh exec -s (mirror, through the daemon) vs --no-sync:
#              medians and p99, the overhead in ms
#   first pull the first full listing of a fresh watcher, through the
#              daemon (clawssh exec right after the watcher was killed) vs
#              the same exec once the watcher runs
# Run after building; needs hyperfine.
#   bench/large_workspace.sh [FILES [RUNS]]    (default 100000 100)
set -eu
cd "$(dirname "$0")/.."
FILES=${1:-100000}
RUNS=${2:-100}
CLAWSSH=${CLAWSSH:-$PWD/clawssh}
AGENT=$PWD/clawssh-agent
SSHD=${SSHD:-$(command -v sshd || echo /usr/sbin/sshd)}
TESTLIB=$PWD/tests/integration/lib.sh
export CLAWSSH SSHD
command -v hyperfine >/dev/null ||
    { echo "hyperfine missing: apt-get install hyperfine" >&2; exit 1; }
. "$TESTLIB"
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
W="$T/ws"
R="$T/root"
C="$CLAWSSH"

# FILES small files, 500 a directory, two levels deep.
python3 - "$W" "$FILES" <<'EOF'
import os, sys
top, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    d = os.path.join(top, "d%04d" % (i // 500), "s%d" % (i // 500 % 7))
    if i % 500 == 0:
        os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "f%04d.txt" % (i % 500)), "w") as f:
        f.write("x" * (i % 50))
EOF

# p50 and p99 in ms of the runs of variant $2 in hyperfine's JSON $1.
pct() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
for r in json.load(open(sys.argv[1]))["results"]:
    if r["command"] == sys.argv[2]:
        t = sorted(r["times"])
        print("%.2f %.2f" % (t[len(t) // 2] * 1e3,
                             t[max(0, int(len(t) * 0.99) - 1)] * 1e3))
EOF
}

id=$("$C" provision -F "$T/ssh_config" --host testhost --remote-root "$R" \
    --workspace "$W" --key large)
lib_start_daemon "$T/daemon.log"
cd "$W"
"$C" exec -s "$id" -- true			# seeds, starts the watcher
sleep 1
"$C" exec -s "$id" -- true			# the trusted listing
RW="$R/$id/workspace"

listing_cmd="cd $RW && $AGENT fs-list > /dev/null"
find_cmd="cd $RW && find . -mindepth 1 \\( -type f -o -type d -o -type l \\) -printf '%y %m %s %T@ %P\\0%l\\0' > /dev/null"
hyperfine --style basic -w 2 -r 10 --export-json "$T/list.json" \
    -n fs-list "$listing_cmd" -n find "$find_cmd" > "$T/hf.log" 2>&1 ||
    { cat "$T/hf.log" >&2; exit 1; }

hyperfine --style basic -N -w 5 -r "$RUNS" --export-json "$T/nc.json" \
    -n mirror "$C exec -s $id -- true" \
    -n no-sync "$C exec -s $id --no-sync -- true" > "$T/hf.log" 2>&1 ||
    { cat "$T/hf.log" >&2; exit 1; }

# The first pull after the watcher starts lists everything: kill it before
# each run (it runs as "/proc/self/fd/7 watch" in the sandbox's jail; the
# pattern's brackets keep pkill from matching hyperfine's own shell).
hyperfine --style basic -w 1 -r 10 --export-json "$T/first.json" \
    -p "pkill -f '[f]d/7 watch' || :; sleep 0.3; $C exec -s $id -- true; sleep 0.3" \
    -n first-listing "$C exec -s $id -- true" > "$T/hf.log" 2>&1 ||
    { cat "$T/hf.log" >&2; exit 1; }

# shellcheck disable=SC2046 # two numbers each
set -- $(pct "$T/list.json" fs-list) $(pct "$T/list.json" find)
printf 'workspace: %s files in %s directories\n' "$FILES" \
    "$(find "$W" -type d | wc -l)"
printf 'listing:   fs-list %.1f ms  find %.1f ms  ratio %.2f (target <= 1.00)\n' \
    "$1" "$3" "$(echo "$1 $3" | awk '{ print $1 / $2 }')"
# shellcheck disable=SC2046
set -- $(pct "$T/nc.json" mirror) $(pct "$T/nc.json" no-sync)
printf 'no change: mirror p50 %.2f p99 %.2f  --no-sync p50 %.2f p99 %.2f ms\n' \
    "$1" "$2" "$3" "$4"
printf '           overhead %.2f ms (target <= 10), ratio %.2f\n' \
    "$(echo "$1 $3" | awk '{ print $1 - $2 }')" \
    "$(echo "$1 $3" | awk '{ print $1 / $2 }')"
# shellcheck disable=SC2046
set -- $(pct "$T/first.json" first-listing)
printf 'first pull after the watcher started (full listing): p50 %.1f ms\n' "$1"
