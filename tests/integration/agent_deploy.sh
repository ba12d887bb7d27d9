#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Putting clawssh-agent on a host (src/tools/agent_deploy.c): uploaded on
# first use into the SSH user's cache directory, content-addressed,
# checked; concurrent first uses make one file; a damaged copy is
# replaced; where the agent cannot run (a noexec mount) commands still
# run, each in a sandbox of its own, and -v says why.
# The host keeps the agent where the sshd session says: a directory of
# this test's (made before lib.sh, which starts the sshd).
H=$(mktemp -d "${TMPDIR:-/tmp}/clawssh-agentdeploy.XXXXXX") || exit 99
chmod 755 "$H"
mkdir -m 777 "$H/hc" "$H/ht" || exit 99
# shellcheck disable=SC2034 # lib.sh reads it
SSHD_EXTRA="SetEnv XDG_CACHE_HOME=$H/hc TMPDIR=$H/ht"
. "$TESTLIB"
trap 'umount "$H/hc" "$H/ht" 2>/dev/null; rm -rf "$H"; lib_cleanup' EXIT

lib_need_bwrap
mkdir -p "$T/ws" "$T/root"
[ "$(id -u)" -ne 0 ] || chown "$TEST_USER:" "$T/root"
AGENT_BUILT=${top_srcdir:-.}/clawssh-agent
[ -f "$AGENT_BUILT" ] || AGENT_BUILT=./clawssh-agent

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key d1 \
    --remote-root "$T/root" --workspace "$T/ws" --mode remote) ||
    fail "provision"

# 1. The first exec uploads it: one file, named for version and content,
# 0755, no temporary left; the answer is kept locally.
out=$("$CLAWSSH" -vv exec -s "$id" -- echo ran 2>&1) || fail "exec: $out"
expect_match "$out" "^ran$" "the first exec ran"
set -- "$H"/hc/clawssh/agent/clawssh-agent-*
[ $# -eq 1 ] && [ -f "$1" ] || fail "no agent in the cache: $(ls -R "$H/hc")"
agent=$1
case ${agent##*/} in
clawssh-agent-[0-9]*.[0-9]*-[0-9a-f][0-9a-f][0-9a-f][0-9a-f]*) ;;
*) fail "agent name ${agent##*/}" ;;
esac
expect_eq "$(stat -c %a "$agent")" "755" "agent mode"
for f in "$H"/hc/clawssh/agent/.tmp*; do
	[ -e "$f" ] && fail "a temporary was left: $f"
done
cmp -s "$agent" "$AGENT_BUILT" || fail "the upload differs"
[ -f "$CLAWSSH_STATE_DIR/agents/$TEST_USER@127.0.0.1:$PORT" ] ||
    fail "the answer was not kept: $(ls "$CLAWSSH_STATE_DIR/agents")"
# A second exec does not ask the host again (the kept answer).
out=$("$CLAWSSH" -vv exec -s "$id" -- echo again 2>&1)
expect_match "$out" "^again$" "the second exec ran"

# 2. A damaged copy (and no kept answer) is replaced.
"$CLAWSSH" stop "$id" >/dev/null || fail "stop"
printf 'garbage' > "$agent"
rm -rf "$CLAWSSH_STATE_DIR/agents"
out=$("$CLAWSSH" exec -s "$id" -- echo fixed 2>&1) || fail "exec: $out"
expect_match "$out" "^fixed$" "ran after the damaged copy"
cmp -s "$agent" "$AGENT_BUILT" || fail "the damaged copy stayed"

# 3. Concurrent first uses against an empty cache: all run, one agent.
"$CLAWSSH" stop "$id" >/dev/null || fail "stop"
rm -rf "$H/hc/clawssh" "$CLAWSSH_STATE_DIR/agents"
i=0
pids=
while [ $i -lt 6 ]; do
	"$CLAWSSH" exec -s "$id" -- echo "c$i" > "$T/c$i.out" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
for p in $pids; do
	wait "$p"
done
i=0
while [ $i -lt 6 ]; do
	expect_match "$(cat "$T/c$i.out")" "^c$i$" "concurrent exec $i"
	i=$((i + 1))
done
expect_eq "$(ls "$H/hc/clawssh/agent" | wc -l)" "1" "one agent, no temporary"

# 4. A noexec cache and temporary directory: the sh path, said at -v.
if [ "$(id -u)" -eq 0 ] && mount -t tmpfs -o noexec,mode=777 tmpfs "$H/hc" &&
    mount -t tmpfs -o noexec,mode=777 tmpfs "$H/ht"; then
	"$CLAWSSH" stop "$id" >/dev/null || fail "stop"
	rm -rf "$CLAWSSH_STATE_DIR/agents"
	out=$("$CLAWSSH" -v exec -s "$id" -- sh -c 'echo noexec-ran' 2>&1)
	umount "$H/hc" "$H/ht"
	expect_match "$out" "^noexec-ran$" "the command ran without the agent"
	expect_match "$out" "no host agent.*noexec" "-v says why"
else
	echo "note: no noexec mount here (not root): case 4 skipped"
fi
"$CLAWSSH" destroy "$id" >/dev/null || fail "destroy"
exit 0
