#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# process start --pty: a background process of a bwrap sandbox runs on a
# terminal of the sandbox's own (the host agent's box-exec --pty relays
# the process's stdin FIFO to it and it to the log), so a program that
# wants a terminal (a prompt, a REPL, isatty checks) can be driven with
# process write and read with process log.  Without the agent, or with
# a runtime that cannot make one, --pty is refused, not ignored.
# LIB_SSH_USER=clawssh-test runs it as a non-root SSH user (once more at
# the end, when run as root).
. "$TESTLIB"

lib_need_bwrap
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
mkdir -p "$T/ws"
if [ -n "${LIB_SSH_USER:-}" ]; then
	mkdir -m 700 "$R"
	chown "$TEST_USER:" "$R"
fi
prov() {
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$1" \
	    --remote-root "$R" --workspace "$T/ws" --runtime "$2"
}
id=$(prov a bwrap) || fail "provision"
# shellcheck disable=SC2016 # expanded in the sandbox
h=$("$CLAWSSH" process start -s "$id" --pty -- sh -c \
    '[ -t 0 ] && [ -t 1 ] && echo on-a-terminal; tty;
     printf "name? "; read -r n; echo "hello, $n"; exit 7') ||
    fail "process start --pty"
printf 'claw\n' | "$CLAWSSH" process write -s "$id" "$h" ||
    fail "process write"
"$CLAWSSH" process wait -s "$id" --timeout 20 "$h"
expect_status $? 7 "the process's exit status"
log=$("$CLAWSSH" process log -s "$id" "$h" | tr -d '\r') || fail "log"
expect_match "$log" "on-a-terminal" "stdin and stdout are a terminal"
expect_match "$log" "^/dev/pts/[0-9]" "tty names a pty"
expect_match "$log" "hello, claw" "the input reached the prompt"

# The same through JSON-RPC: process.start with "pty": true.
# shellcheck disable=SC2016 # expanded in the sandbox
out=$(printf '{"jsonrpc":"2.0","id":1,"method":"process.start","params":%s}\n' \
    "{\"sandbox\":\"$id\",\"pty\":true,\"argv\":[\"sh\",\"-c\",\"tty\"]}" |
    "$RPC_ONESHOT" "$CLAWSSH") || fail "JSON-RPC process.start"
h3=$(printf '%s\n' "$out" | jq -r '.result.handle') || fail "no handle: $out"
"$CLAWSSH" process wait -s "$id" --timeout 20 "$h3" >/dev/null ||
    fail "JSON-RPC pty process"
expect_match "$("$CLAWSSH" process log -s "$id" "$h3")" "^/dev/pts/[0-9]" \
    "JSON-RPC pty: a terminal"

# Killing it ends the command on the terminal, not only the relay.
h2=$("$CLAWSSH" process start -s "$id" --pty -- sleep 4343) ||
    fail "second start"
"$CLAWSSH" process kill -s "$id" "$h2" || fail "kill"
"$CLAWSSH" process wait -s "$id" --timeout 20 "$h2" >/dev/null
i=0
while pgrep -x -f 'sleep 4343' >/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
pgrep -x -f 'sleep 4343' >/dev/null && fail "the killed command still runs"

# Refused where no terminal can be made.
out=$(CLAWSSH_NO_AGENT=1 "$CLAWSSH" process start -s "$id" --pty -- true \
    2>&1)
expect_status $? 255 "--pty without the agent"
expect_match "$out" "needs the host agent" "why"
n=$(prov b none) || fail "provision none"
out=$("$CLAWSSH" process start -s "$n" --pty -- true 2>&1)
expect_status $? 255 "--pty with runtime none"
expect_match "$out" "runtime none gives a background process no terminal" \
    "why (none)"
out=$("$CLAWSSH" process list -s "$id" --pty 2>&1)
expect_status $? 255 "--pty on list"
"$CLAWSSH" destroy "$id" >/dev/null || fail "destroy"

if [ "$(id -u)" -eq 0 ] && [ -z "${LIB_SSH_USER:-}" ]; then
	LIB_SSH_USER=clawssh-test sh "$0" >&2
	_s=$?
	[ "$_s" -eq 0 ] || [ "$_s" -eq 77 ] ||
	    fail "as user clawssh-test: status $_s"
fi
exit 0
