#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Bad providers: one that hangs (timeout), prints garbage, hands back an
# endpoint whose host key does not match, reports Ready for a sandbox that
# is not there (nothing listening; a ProxyCommand that exits), a malformed
# endpoint, a sandbox that fails.  Each is a clear error naming the
# provider, and leaves no record behind and nothing created at the
# provider.
. "$TESTLIB"
top_srcdir=${top_srcdir:?make check sets it}

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
# A failed create is tried 3 times; waits of 50 and 100 ms keep it short.
CLAWSSH_PROVIDER_RETRY_MS=50
export CLAWSSH_PROVIDER_RETRY_MS
mkdir -p "$XDG_CONFIG_HOME/clawssh" "$T/ws" "$T/p"
BAD="$top_srcdir/tests/providers/bad-provider"
entry() {
	printf '"%s": { "driver": "command", "command": "%s", "args": ["%s", "%s", "%s", "%s"], "timeout": 2, "readyTimeout": 3 }' \
	    "$1" "$BAD" "$1" "$T/p" "$PORT" "$T/id_ed25519"
}
{
	printf '{ "ssh": { "connectTimeout": 3 },\n'
	printf '  "sandbox": { "remoteRoot": "%s", "runtime": "none" },\n' "$T/root"
	printf '  "providers": {\n'
	sep=
	for m in hang garbage wrongkey phantom proxyfail badhost failed; do
		printf '%s    %s' "$sep" "$(entry $m)"
		sep=',
'
	done
	printf '\n  }\n}\n'
} > "$XDG_CONFIG_HOME/clawssh/config.json"

# Provision with provider $1; expect failure with message $2.
bad() {
	: > "$T/p/log"
	start=$(date +%s)
	"$CLAWSSH" provision --provider "$1" --workspace "$T/ws" --key k \
	    >"$T/out" 2>"$T/err"
	expect_status $? 255 "$1"
	[ $(( $(date +%s) - start )) -lt 15 ] || fail "$1: took too long"
	[ -s "$T/out" ] && fail "$1: printed an id"
	expect_match "$(cat "$T/err")" "provider $1 (command): " "$1 names it"
	expect_match "$(cat "$T/err")" "$2" "$1 message"
	[ -n "$(ls "$T/state/sandboxes" 2>/dev/null)" ] &&
		fail "$1: a record was left behind"
	[ -n "$(find "$T/p" -mindepth 1 -maxdepth 1 ! -name log)" ] &&
		fail "$1: the provider's sandbox was left behind"
	if grep -q '^create' "$T/p/log"; then
		grep -q '^delete' "$T/p/log" || fail "$1: created, not deleted"
	fi
	[ -n "$(find "$T/root" -mindepth 1 -maxdepth 1 -name 'c*' 2>/dev/null)" ] &&
		fail "$1: a sandbox directory was left behind"
	return 0
}

bad hang "did not answer within 2 s (timeout); killed"
sleep 0.2
pgrep -f "sleep 281\." >/dev/null && fail "hung provider left running"
bad garbage "get: the answer is not a JSON object"
bad wrongkey "reported ready, but its endpoint failed: .*host key"
bad phantom "reported ready, but its endpoint failed: connect to host 127.0.0.1 port 1"
bad proxyfail "ProxyCommand 'sh -c 'echo tunnel refused >&2; exit 4'' exited with status 4"
bad badhost "the endpoint's host is missing or malformed"
bad failed "will not become ready: failed (quota exceeded)"
exit 0
