#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# process list/poll/log name the user's command (argv as given, shell-
# quoted), not the wrapper a contained sandbox runs it in; process wait
# blocks until the process ends and exits with its status (124 when
# --timeout passes first; --json says it all and exits 0); bad input is
# refused; the gateway's process.wait answers the same.  Run with a
# bwrap sandbox (the wrapped case) and an uncontained one.
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
mkdir -p "$W"
# With LIB_SSH_USER=NAME (a non-root SSH user) the root is that user's.
if [ -n "${LIB_SSH_USER:-}" ]; then
	mkdir -m 700 "$R"
	chown "$TEST_USER:" "$R"
fi
P() {
	"$CLAWSSH" process "$@"
}
prov() {
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$1" \
	    --runtime "$1" --remote-root "$R" --workspace "$W"
}
ids=$(prov none) || fail "provision none"
if command -v bwrap >/dev/null 2>&1 &&
    bwrap --ro-bind / / --unshare-all true 2>/dev/null; then
	ids="$ids $(prov bwrap)" || fail "provision bwrap"
fi
trap 'for i in $ids; do "$CLAWSSH" destroy "$i" >/dev/null 2>&1; done;
    lib_cleanup' EXIT

for id in $ids; do
	# The command as given: its words, quoted where needed.
	h=$(P start -s "$id" -- sh -c 'echo "a b"; exit 7' 'x y') ||
	    fail "$id: start"
	want="sh -c 'echo \"a b\"; exit 7' 'x y'"
	P wait -s "$id" "$h" 2>"$T/err"
	expect_status $? 7 "$id: wait exits with the process's status"
	expect_eq "$(cat "$T/err")" "[clawssh: process $h exited 7]" \
	    "$id: wait says so"
	out=$(P list -s "$id") || fail "$id: list"
	line=$(printf '%s\n' "$out" | grep "^$h ")
	expect_eq "$(printf '%s\n' "$line" |
	    sed 's/^.* [0-9:]\{8\}  //')" "$want" "$id: list COMMAND"
	json=$(P list -s "$id" --json) || fail "$id: list --json"
	expect_eq "$(printf '%s' "$json" | jq -r \
	    ".[] | select(.handle == \"$h\") | .command")" "$want" \
	    "$id: list --json command"
	expect_eq "$(P poll -s "$id" --json "$h" | jq -r .command)" \
	    "$want" "$id: poll --json command"
	expect_eq "$(P poll -s "$id" "$h" 2>/dev/null)" "" "$id: output kept"
	expect_eq "$(P log -s "$id" "$h")" "a b" "$id: wait left the output"

	# --timeout: still running -> 124; killed -> 128+15.
	h=$(P start -s "$id" -- sleep 30) || fail "$id: start sleep"
	P wait -s "$id" --timeout 1 "$h" 2>"$T/err"
	expect_status $? 124 "$id: wait --timeout on a running process"
	expect_match "$(cat "$T/err")" "process $h running" "$id: running"
	out=$(P wait -s "$id" --timeout 1 --json "$h")
	expect_status $? 0 "$id: wait --json"
	expect_eq "$(printf '%s' "$out" | jq -r .state)" running \
	    "$id: --json state"
	expect_eq "$(printf '%s' "$out" | jq -r .command)" "sleep 30" \
	    "$id: --json command"
	P kill -s "$id" "$h" || fail "$id: kill"
	P wait -s "$id" --timeout 0 "$h" 2>/dev/null
	expect_status $? 143 "$id: wait after kill"

	# Bad input.
	out=$(P wait -s "$id" --timeout x "$h" 2>&1)
	expect_status $? 255 "$id: bad --timeout"
	expect_match "$out" "bad --timeout 'x'" "$id: bad --timeout said"
	out=$(P wait -s "$id" --timeout -1 "$h" 2>&1)
	expect_status $? 255 "$id: negative --timeout"
	out=$(P wait -s "$id" pzzzz "$h" 2>&1)
	expect_status $? 255 "$id: two handles"
	out=$(P wait -s "$id" 'p0000000;' 2>&1)
	expect_status $? 255 "$id: bad handle"
	expect_match "$out" "not a process handle" "$id: bad handle said"
	out=$(P wait -s "$id" p00000000 2>&1)
	expect_status $? 255 "$id: unknown handle"
	expect_match "$out" "no process p00000000" "$id: unknown said"
	out=$(P poll -s "$id" --timeout 1 "$h" 2>&1)
	expect_status $? 255 "$id: --timeout on poll"
	expect_match "$out" "for 'process wait' only" "$id: owned option"
done

# The gateway: process.wait, over rpc_oneshot (a worker per call).
id=${ids%% *}
h=$(P start -s "$id" -- sh -c 'exit 3') || fail "start"
out=$(printf '{"jsonrpc":"2.0","id":1,"method":"process.wait","params":{"sandbox":"%s","state_dir":"%s","handle":"%s","timeout":20}}\n' \
    "$id" "$CLAWSSH_STATE_DIR" "$h" | "$RPC_ONESHOT" "$CLAWSSH") ||
    fail "rpc_oneshot: $out"
expect_eq "$(printf '%s' "$out" | jq -r .result.state)" exited \
    "process.wait state"
expect_eq "$(printf '%s' "$out" | jq -r .result.exit_status)" 3 \
    "process.wait exit_status"
expect_eq "$(printf '%s' "$out" | jq -r .result.command)" "sh -c 'exit 3'" \
    "process.wait command"
exit 0
