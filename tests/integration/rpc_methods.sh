#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The JSON-RPC request layer against the real CLI and a real sshd: every
# kind of method through tests/helpers/rpc_oneshot (which runs each
# call's worker as the daemon would), streamed exec output, env values by
# name, stdin, '-'-leading operands, errors from the worker and from
# param checks; then, where node and tests/mcp/node_modules exist, the
# MCP SDK client against the same sandbox.
. "$TESTLIB"
top_srcdir=${top_srcdir:?make check sets it}

R="$T/root"
W="$T/ws"
mkdir -p "$W"
S="$T/rpcstate"

# rpc JSON-LINES...: feed the lines to one rpc_oneshot, print its output.
rpc() {
	printf '%s\n' "$@" | "$RPC_ONESHOT" "$CLAWSSH" > "$T/out" ||
	    fail "rpc_oneshot failed"
	cat "$T/out"
}

# req ID METHOD PARAMS: one request line.
req() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"%s","params":%s}' \
	    "$1" "$2" "$3"
}

out=$(rpc "$(req 1 sandbox.provision "{\"host\":\"testhost\",
    \"ssh_config\":\"$T/ssh_config\",\"key\":\"rpc\",\"runtime\":\"none\",
    \"remote_root\":\"$R\",\"workspace\":\"$W\",\"state_dir\":\"$S\"}" |
    tr -d '\n')")
id=$(printf '%s' "$out" | jq -r '.result.id')
expect_match "$id" '^c[a-z2-7]\{12\}$' "provision id"
expect_eq "$(printf '%s' "$out" | jq -r '.result.new')" true "provision new"
B="\"sandbox\":\"$id\",\"state_dir\":\"$S\""

# exec: output streamed as notifications, the exit status a result.
out=$(rpc "$(req 2 exec "{$B,\"argv\":[\"sh\",\"-c\",
    \"echo out; sleep 0.2; echo err >&2; exit 3\"]}" | tr -d '\n')")
expect_eq "$(printf '%s\n' "$out" | jq -c 'select(.method) | .params')" \
    '{"id":2,"stream":"stdout","data":"out\n"}
{"id":2,"stream":"stderr","data":"err\n"}' "exec.output notifications"
expect_eq "$(printf '%s\n' "$out" | jq -c 'select(.id) | .result.exit_status')" \
    3 "exec exit status as a result"

# env by name, stdin, arguments that look like options.
out=$(rpc "$(req 3 exec "{$B,\"argv\":[\"printenv\",\"RPC_SECRET\"],\"env\":{\"RPC_SECRET\":\"s3cret \$(value)\"}}")" \
    "$(req 4 exec "{$B,\"argv\":[\"cat\"],\"stdin\":\"piped\\n\"}")" \
    "$(req 5 exec "{$B,\"argv\":[\"echo\",\"--\",\"-n\",\"--help\"]}")")
expect_eq "$(printf '%s\n' "$out" | jq -rj 'select(.method) | .params.data')" \
    's3cret $(value)
piped
-- -n --help' "exec env, stdin, dashes"
expect_eq "$(printf '%s\n' "$out" | jq -c 'select(.id) | .result.exit_status' |
    tr '\n' ' ')" "0 0 0 " "exec statuses"

# The file tools, on a name starting with '-'.
patch='--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+patched\n'
out=$(rpc "$(req 6 fs.write "{$B,\"path\":\"-dash.txt\",\"content\":\"a\\nb\\n\"}")" \
    "$(req 7 fs.edit "{$B,\"path\":\"-dash.txt\",\"old\":\"b\",\"new\":\"--c\"}")" \
    "$(req 8 fs.read "{$B,\"path\":\"-dash.txt\"}")" \
    "$(req 9 fs.applyPatch "{$B,\"patch\":\"$patch\"}")" \
    "$(req 10 fs.ls "{$B}")" \
    "$(req 11 fs.stat "{$B,\"path\":\"new.txt\"}")" \
    "$(req 12 fs.read "{$B,\"path\":\"missing.txt\"}")" \
    "$(req 13 fs.write "{$B,\"path\":\"bin\",\"content_base64\":\"AP8K\"}")" \
    "$(req 14 fs.read "{$B,\"path\":\"bin\"}")")
j() { printf '%s\n' "$out" | jq -c "select(.id == $1) | $2"; }
expect_eq "$(cat "$W/-dash.txt")" "a
--c" "fs.write + fs.edit on the local copy"
expect_eq "$(j 7 .result.text)" '"1 replacement\n"' "fs.edit result"
expect_eq "$(j 8 .result.content)" '"a\n--c\n"' "fs.read"
expect_eq "$(cat "$W/new.txt")" patched "fs.applyPatch"
expect_match "$(j 10 '.result.entries[].name')" '"-dash.txt"' "fs.ls"
expect_eq "$(j 11 .result.size)" 8 "fs.stat size"
expect_eq "$(j 12 .error.code)" -32002 "fs.read missing: worker error"
expect_match "$(j 12 .error.message)" 'missing.txt' "worker message"
expect_eq "$(j 14 .result.content_base64)" '"AP8K"' "binary round trip"

# A background process: start, write with EOF, poll until it exits.
out=$(rpc "$(req 20 process.start "{$B,\"argv\":[\"sh\",\"-c\",\"read x; echo got \$x\"],\"name\":\"rd\"}")")
h=$(printf '%s' "$out" | jq -r .result.handle)
expect_match "$h" '^p[0-9a-f]\{8\}$' "process.start handle"
rpc "$(req 21 process.write "{$B,\"handle\":\"$h\",\"data\":\"hi\\n\",\"eof\":true}")" \
    > /dev/null
i=0
while :; do
	out=$(rpc "$(req 22 process.log "{$B,\"handle\":\"$h\"}")")
	[ "$(printf '%s' "$out" | jq -r .result.state)" = exited ] && break
	i=$((i + 1))
	[ $i -lt 50 ] || fail "process did not exit"
	sleep 0.2
done
expect_eq "$(printf '%s' "$out" | jq -c '[.result.output,.result.exit_status]')" \
    '["got hi\n",0]' "process output and status"
out=$(rpc "$(req 23 process.list "{$B}")" \
    "$(req 24 process.kill "{$B,\"handle\":\"$h\",\"signal\":\"TERM\"}")")
expect_eq "$(j 23 '.result.processes[0].name')" '"rd"' "process.list"

# Sync, status, images, list; then param errors; then destroy.
out=$(rpc "$(req 30 sync.push "{$B}")" "$(req 31 sync.status "{$B}")" \
    "$(req 32 sandbox.status "{$B}")" "$(req 33 sandbox.list "{\"state_dir\":\"$S\"}")" \
    "$(req 34 image.list "{\"host\":\"testhost\",\"ssh_config\":\"$T/ssh_config\",\"remote_root\":\"$R\"}")" \
    "$(req 35 exec "{$B,\"argv\":[\"x\"],\"env\":{\"LD_PRELOAD\":\"/x\"}}")" \
    "$(req 36 fs.read "{$B,\"path\":\"a\",\"bogus\":1}")" \
    "$(req 37 no.such "{}")")
expect_eq "$(j 30 .result.direction)" '"pushed"' "sync.push"
expect_match "$(j 31 .result.text)" 'up (local changes)' "sync.status"
expect_eq "$(j 32 .result.id)" "\"$id\"" "sandbox.status"
expect_eq "$(j 33 '.result.sandboxes | length')" 1 "sandbox.list"
expect_eq "$(j 34 .result.images)" '[]' "image.list"
expect_eq "$(j 35 .error.code)" -32602 "env name refused"
expect_eq "$(j 36 .error.message)" '"params.bogus: unknown parameter"' \
    "unknown param"
expect_eq "$(j 37 .error.code)" -32601 "unknown method"

# MCP, through the official SDK, when it is installed.
if command -v node > /dev/null &&
    [ -d "$top_srcdir/tests/mcp/node_modules/@modelcontextprotocol/sdk" ]
then
	CLAWSSH_STATE_DIR="$S" node "$top_srcdir/tests/mcp/client.mjs" \
	    "$RPC_ONESHOT" --mcp "$id" "$CLAWSSH" > "$T/mcp.json" ||
	    { cat "$T/mcp.json"; fail "MCP client"; }
	expect_eq "$(jq -r .ok "$T/mcp.json")" true "MCP client summary"
else
	echo "rpc_methods: MCP client not run (cd tests/mcp && npm ci)"
fi

out=$(rpc "$(req 40 sandbox.destroy "{$B}")")
expect_match "$(j 40 .result.text)" "destroyed $id" "sandbox.destroy"
[ -e "$R/$id" ] && fail "sandbox left on the host"
exit 0
