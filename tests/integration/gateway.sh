#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The gateway against a real sshd: `serve --stdio` runs JSON-RPC calls
# (streamed exec, file tools) over its own warm session; bad input gets
# proper JSON-RPC errors; policy refuses with the rule's name, elevated
# exec only when enabled; one audit line per call, without contents; the
# daemon's socket speaks JSON-RPC too, and a client that disconnects
# mid-exec gets its remote command stopped; `serve --mcp` answers the
# official MCP TypeScript SDK client.
. "$TESTLIB"
top_srcdir=${top_srcdir:?make check sets it}

W="$T/ws"
mkdir -p "$W" "$XDG_CONFIG_HOME/clawssh"
AUDIT="$T/audit.log"
config() {
	printf '{ "sandbox": { "remoteRoot": "%s" }, "audit": { "file": "%s" }%s }\n' \
	    "$T/root" "$AUDIT" "${1:-}" > "$XDG_CONFIG_HOME/clawssh/config.json"
}
config
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key gw \
    --workspace "$W" --runtime none)
expect_status $? 0 "provision"
req() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"%s","params":%s}\n' \
	    "$1" "$2" "$3"
}
# serve LINES...: one `serve --stdio` session; its output in $T/out.
serve() {
	printf '%s\n' "$@" | "$CLAWSSH" serve --stdio > "$T/out" 2>"$T/err"
	expect_status $? 0 "serve --stdio"
}
answer() {
	jq -c "select(.id == $1)" "$T/out"
}

# exec streams its output, then the result; the file tools work.
logins=$(grep -c "Accepted publickey" "$T/sshd.log")
# (Calls of one session run at once; a local write during a mirror exec
# goes up with the next exec: sync_mirror.sh tests that.)
serve "$(req 1 exec "{\"sandbox\":\"$id\",\"argv\":[\"sh\",\"-c\",\"echo one; echo two >&2; exit 4\"]}")"
expect_eq "$(answer 1 | jq -r .result.exit_status)" 4 "exec result"
expect_eq "$(jq -r 'select(.method == "exec.output" and .params.stream == "stdout") | .params.data' "$T/out")" "one" "streamed stdout"
expect_eq "$(jq -r 'select(.method == "exec.output" and .params.stream == "stderr") | .params.data' "$T/out")" "two" "streamed stderr"
serve "$(req 2 fs.write "{\"sandbox\":\"$id\",\"path\":\"canary.txt\",\"content\":\"SECRETCONTENT42\\n\"}")"
[ "$(answer 2 | jq -r .result)" != null ] || fail "fs.write: $(cat "$T/out")"
serve "$(req 3 fs.read "{\"sandbox\":\"$id\",\"path\":\"canary.txt\"}")"
expect_match "$(answer 3)" SECRETCONTENT42 "fs.read"
[ $(( $(grep -c "Accepted publickey" "$T/sshd.log") - logins )) -le 3 ] ||
	fail "serve --stdio logged in more than once per session"

# Bad input: each gets its JSON-RPC error, the rest still runs.
serve 'this is not json' '{"jsonrpc":"2.0","id":7}' \
    '{"jsonrpc":"2.0","id":8,"method":"no.such"}' \
    "$(req 9 exec '{"sandbox":5,"argv":"ls"}')" \
    "$(req 10 exec "{\"sandbox\":\"$id\",\"argv\":[\"echo\",\"still here\"]}")"
expect_eq "$(jq -c 'select(has("id") and .id == null) | .error.code' "$T/out")" -32700 "parse error"
expect_eq "$(answer 7 | jq .error.code)" -32600 "invalid request"
expect_eq "$(answer 8 | jq .error.code)" -32601 "unknown method"
expect_eq "$(answer 9 | jq .error.code)" -32602 "wrong param types"
expect_eq "$(answer 10 | jq .result.exit_status)" 0 "exec after bad input"
config ', "daemon": { "maxRequestBytes": 1024 }'
big=$(head -c 3000 /dev/zero | tr '\0' x)
serve "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"$big\"}" \
    "$(req 12 fs.stat "{\"sandbox\":\"$id\",\"path\":\"canary.txt\"}")"
expect_match "$(jq -c 'select(has("id") and .id == null) | .error' "$T/out")" "1024 bytes" "over-long line"
[ "$(answer 12 | jq -r .result)" != null ] || fail "call after over-long line"

# Policy: deny wins and names the rule; elevated exec is off by default.
config ', "policy": { "deny": ["fs.write"] }'
serve "$(req 13 fs.write "{\"sandbox\":\"$id\",\"path\":\"x\",\"content\":\"y\"}")" \
    "$(req 14 exec "{\"host\":\"testhost\",\"ssh_config\":\"$T/ssh_config\",\"argv\":[\"true\"]}")"
expect_eq "$(answer 13 | jq .error.code)" -32001 "denied call"
expect_match "$(answer 13 | jq -r .error.message)" 'policy.deny\[0\]' "rule named"
expect_match "$(answer 14 | jq -r .error.message)" "elevated" "elevated refused"
[ -e "$W/x" ] && fail "denied write happened"
config ', "policy": { "elevated": true }'
serve "$(req 15 exec "{\"host\":\"testhost\",\"ssh_config\":\"$T/ssh_config\",\"argv\":[\"echo\",\"on host\"]}")"
expect_eq "$(answer 15 | jq .result.exit_status)" 0 "elevated exec when enabled"
expect_match "$(cat "$T/err")" "elevated exec" "elevated exec logged"

# Audit: one parseable line per call, the tool named, no contents.
jq -e . "$AUDIT" > /dev/null || fail "audit log is not JSON lines"
[ "$(wc -l < "$AUDIT")" -eq 8 ] || fail "audit: $(wc -l < "$AUDIT") lines"
expect_match "$(jq -r 'select(.elevated == true) | .tool' "$AUDIT")" exec "audit: elevated"
expect_match "$(jq -r 'select(.error != null) | .error' "$AUDIT")" "policy.deny" "audit: denial"
grep -q SECRETCONTENT42 "$AUDIT" && fail "file contents in the audit log"
[ "$(stat -c %a "$AUDIT")" = 600 ] || fail "audit log mode"

# The daemon's socket speaks JSON-RPC; a client gone mid-exec stops it.
config
D="$T/run/clawssh/control.sock"
"$CLAWSSH" serve --socket "$D" --log "$T/daemon.log" &
DPID=$!
i=0
while [ ! -S "$D" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
out=$(req 16 exec "{\"sandbox\":\"$id\",\"argv\":[\"echo\",\"via socket\"]}" |
    nc -U -q 30 "$D" | jq -r 'select(.id == 16) | .result.exit_status')
expect_eq "$out" 0 "JSON-RPC on the daemon socket"
(req 17 exec "{\"sandbox\":\"$id\",\"argv\":[\"sleep\",\"351.$$\"]}"; sleep 60) |
    nc -U "$D" > /dev/null &
NCPID=$!
: "$NCPID"
i=0
until pgrep -f "^sleep 351.$$" > /dev/null || [ $i -gt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
pgrep -f "^sleep 351.$$" > /dev/null || fail "remote sleep did not start"
sleep 0.5
pkill -f "nc -U $D"
i=0
while pgrep -f "^sleep 351.$$" > /dev/null && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
pgrep -f "^sleep 351.$$" > /dev/null &&
	fail "remote command of a vanished JSON-RPC client still runs"
kill "$DPID"
wait "$DPID"

# MCP with the official TypeScript SDK (tests/mcp, npm ci).
if [ ! -d "$top_srcdir/tests/mcp/node_modules/@modelcontextprotocol/sdk" ]
then
	fail "MCP SDK missing: run (cd tests/mcp && npm ci), as scripts/test.sh does"
fi
(cd "$W" && node "$top_srcdir/tests/mcp/client.mjs" "$CLAWSSH" serve --mcp \
    --host testhost --key gw -F "$T/ssh_config") > "$T/mcp.json" ||
	{ cat "$T/mcp.json"; fail "MCP SDK client"; }
expect_eq "$(jq -r .ok "$T/mcp.json")" true "MCP SDK client"
exit 0
