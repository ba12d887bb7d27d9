#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# `serve --mcp` to the letter of MCP 2025-06-18, checked with the official
# TypeScript SDK client (tests/mcp/spec.mjs): policy denials are isError
# tool results and denied tools are not listed; every tool has an
# outputSchema, structuredContent and annotations; binary files travel as
# base64; an unknown sandbox fails at start; big exec output is cut at
# mcp.maxResult with the rest readable by read_output; progress
# notifications during a long exec; a cancelled exec stops the remote
# command.
. "$TESTLIB"
: "${top_srcdir:?set by make check}"

if [ ! -d "$top_srcdir/tests/mcp/node_modules/@modelcontextprotocol/sdk" ]
then
	fail "MCP SDK missing: run (cd tests/mcp && npm ci), as scripts/test.sh does"
fi
W="$T/ws"
mkdir -p "$W" "$XDG_CONFIG_HOME/clawssh"
config() {
	printf '{ "sandbox": { "remoteRoot": "%s" }, "audit": { "file": "" }%s }\n' \
	    "$T/root" "${1:-}" > "$XDG_CONFIG_HOME/clawssh/config.json"
}
config
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key spec \
    --workspace "$W" --runtime none)
expect_status $? 0 "provision"

# spec CHECK [SERVE-OPTION...]: one check of tests/mcp/spec.mjs.
spec() {
	c=$1
	shift
	(cd "$W" && node "$top_srcdir/tests/mcp/spec.mjs" "$c" "$CLAWSSH" \
	    serve --mcp -s "$id" "$@") > "$T/spec-$c.json" ||
		{ cat "$T/spec-$c.json"; fail "MCP check $c"; }
	expect_eq "$(jq -r .ok "$T/spec-$c.json")" true "MCP check $c"
}

# 4. An unknown sandbox is refused at start, not at every call.
"$CLAWSSH" serve --mcp -s czzzzzzzzzzzz < /dev/null > "$T/out" 2> "$T/err"
st=$?
[ "$st" -ne 0 ] || fail "serve --mcp with an unknown sandbox exited 0"
expect_match "$(cat "$T/err")" "czzzzzzzzzzzz" "unknown sandbox named"
expect_match "$(cat "$T/err")" "no such sandbox" "unknown sandbox said"
[ -s "$T/out" ] && fail "serve --mcp answered on stdout: $(cat "$T/out")"

# 1. Policy denials.
config ', "policy": { "deny": ["fs.write"] }'
spec denied
config

# 2. Output schemas, structured content, annotations.
spec schemas

# 3. Binary files.
spec binary

# 5. 20 MiB of output, cut at the default 1 MiB, the rest retrievable.
spec big
# ... and the cap is an option and a config key.
"$CLAWSSH" serve --mcp -s "$id" --max-result 10 < /dev/null 2> "$T/err" &&
	fail "--max-result 10 accepted"
expect_match "$(cat "$T/err")" "max-result" "bad --max-result named"
config ', "mcp": { "maxResult": 100 }'
"$CLAWSSH" serve --mcp -s "$id" < /dev/null 2> "$T/err" &&
	fail "mcp.maxResult 100 accepted"
expect_match "$(cat "$T/err")" "maxResult" "bad mcp.maxResult named"
config

# 6. Progress notifications while a long exec writes output.
spec progress

# ... and notifications/cancelled stops the remote command.
marker="352.$$"
(cd "$W" && SPEC_MARKER=$marker node "$top_srcdir/tests/mcp/spec.mjs" \
    cancel "$CLAWSSH" serve --mcp -s "$id") > "$T/spec-cancel.json" &
CPID=$!
i=0
until pgrep -f "^sleep $marker\$" > /dev/null || [ $i -gt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
pgrep -f "^sleep $marker\$" > /dev/null || fail "remote sleep did not start"
# The client aborts 3 s after its call and stays connected 16 s more, so
# only the cancellation can end the command within this loop (<= 8 s).
i=0
while pgrep -f "^sleep $marker\$" > /dev/null && [ $i -lt 80 ]; do
	sleep 0.1; i=$((i + 1))
done
pgrep -f "^sleep $marker\$" > /dev/null &&
	fail "the remote command of a cancelled call still runs"
echo "cancelled command gone after $i tenths of a second of looking"
wait "$CPID" || { cat "$T/spec-cancel.json"; fail "MCP check cancel"; }
expect_eq "$(jq -r .ok "$T/spec-cancel.json")" true "MCP check cancel"
exit 0
