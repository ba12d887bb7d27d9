#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# `serve --mcp --listen`: MCP over Streamable HTTP (2025-06-18), checked
# with the official TypeScript SDK client (tests/mcp/http.mjs): tools
# over HTTP, two sessions at once, DELETE, a bad token, progress on the
# request's event stream, cancellation stopping the remote command; and
# by hand (curl, raw bytes): 401, Origin and Host rejection, 405, 404,
# 400 for bad JSON and batches, 415, 406, 413, 411, 501, 505, 431, 408,
# 202 for notifications, and a server that lives through all of it; a
# Unix socket with a token made for the run.
. "$TESTLIB"
: "${top_srcdir:?set by make check}"

MCP="$top_srcdir/tests/mcp"
if [ ! -d "$MCP/node_modules/@modelcontextprotocol/sdk" ]; then
	fail "MCP SDK missing: run (cd tests/mcp && npm ci), as scripts/test.sh does"
fi
W="$T/ws"
mkdir -p "$W" "$XDG_CONFIG_HOME/clawssh"
printf '{ "sandbox": { "remoteRoot": "%s" }, "audit": { "file": "" } }\n' \
    "$T/root" > "$XDG_CONFIG_HOME/clawssh/config.json"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key http \
    --workspace "$W" --runtime none)
expect_status $? 0 "provision"

# Options that do not go together, and addresses off loopback.
"$CLAWSSH" serve --listen 127.0.0.1:0 2> "$T/err" &&
	fail "--listen without --mcp accepted"
expect_match "$(cat "$T/err")" "--listen goes with --mcp" "--listen alone"
for bad in 0.0.0.0:0 192.168.1.1:80 '[::]:0' 127.0.0.1 127.0.0.1:99999 \
    unix:rel/sock; do
	"$CLAWSSH" serve --mcp -s "$id" --listen "$bad" < /dev/null \
	    2> "$T/err" && fail "--listen $bad accepted"
	expect_match "$(cat "$T/err")" "listen" "--listen $bad refused"
done

# serve_start READY-FILE LOG [SERVE-ARGS...]: start the HTTP server and
# wait for its ready line; SPID is its pid.
serve_start() {
	_ready=$1 _log=$2
	shift 2
	(cd "$W" && exec "$CLAWSSH" serve --mcp -s "$id" "$@") \
	    > "$_ready" 2> "$_log" &
	SPID=$!
	_i=0
	until [ -s "$_ready" ] || [ $_i -gt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -s "$_ready" ] || fail "HTTP server did not start: $(cat "$_log")"
}

serve_start "$T/ready" "$T/serve.log" --listen 127.0.0.1:0 \
    --token-file "$T/token" -v
URL=$(jq -r .url "$T/ready")
expect_eq "$(jq -r .tokenFile "$T/ready")" "$T/token" "token file said"
expect_eq "$(stat -c %a "$T/token")" 600 "token file mode"
TOKEN=$(cat "$T/token")
[ "${#TOKEN}" -ge 32 ] || fail "short token '$TOKEN'"
PORT=${URL##*:}
PORT=${PORT%/mcp}
echo "serving $URL"

# spec CHECK: one check of tests/mcp/http.mjs.
spec() {
	node "$MCP/http.mjs" "$1" "$URL" "$T/token" > "$T/spec-$1.json" ||
		{ cat "$T/spec-$1.json"; tail -n 30 "$T/serve.log"
		fail "MCP HTTP check $1"; }
	expect_eq "$(jq -r .ok "$T/spec-$1.json")" true "MCP HTTP check $1"
}

# A client that starts a head and never ends it: 408 after 10 s (looked
# at the end, so that the wait overlaps the other checks).
printf 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n' |
	(cat; sleep 14) | node "$MCP/raw.mjs" "$PORT" > "$T/slow.out" &
SLOW=$!

spec tools
spec badtoken
spec progress

# hreq NAME [CURL-ARGS...]: a request by curl to $URL; $T/NAME.body and
# $T/NAME.hdr hold what came back; prints the status.
hreq() {
	_n=$1
	shift
	curl -sS -o "$T/$_n.body" -D "$T/$_n.hdr" -w '%{http_code}' \
	    --max-time 30 "$@"
}
AUTH="Authorization: Bearer $TOKEN"
CT="Content-Type: application/json"
ACC="Accept: application/json, text/event-stream"
INIT='{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"1"}}}'

# 401: no token, a wrong one, another scheme.
expect_eq "$(hreq a1 -H "$CT" -H "$ACC" -d "$INIT" "$URL")" 401 "no token"
grep -qi '^WWW-Authenticate: Bearer' "$T/a1.hdr" ||
	fail "401 without WWW-Authenticate"
expect_eq "$(hreq a2 -H "Authorization: Bearer ${TOKEN}x" -H "$CT" \
    -H "$ACC" -d "$INIT" "$URL")" 401 "wrong token"
expect_eq "$(hreq a3 -H "Authorization: Basic $TOKEN" -H "$CT" \
    -H "$ACC" -d "$INIT" "$URL")" 401 "Basic scheme"
# 403: Origin and Host not local (before the token is even looked at).
expect_eq "$(hreq o1 -H "$AUTH" -H "Origin: http://evil.example" -H "$CT" \
    -H "$ACC" -d "$INIT" "$URL")" 403 "foreign Origin"
expect_match "$(cat "$T/o1.body")" "Origin not allowed" "Origin said"
expect_eq "$(hreq o2 -H "$AUTH" -H "Origin: null" -H "$CT" \
    -H "$ACC" -d "$INIT" "$URL")" 403 "Origin null"
expect_eq "$(hreq o3 -H "$AUTH" -H "Host: evil.example:$PORT" -H "$CT" \
    -H "$ACC" -d "$INIT" "$URL")" 403 "foreign Host"
expect_eq "$(hreq o4 -H "$AUTH" -H "Origin: http://localhost:3000" \
    -H "$CT" -H "$ACC" -d "$INIT" "$URL")" 200 "local Origin"
# initialize by hand: JSON answer and a session id.
SID=$(tr -d '\r' < "$T/o4.hdr" | sed -n 's/^[Mm]cp-[Ss]ession-[Ii]d: //p')
[ "${#SID}" -eq 32 ] || fail "initialize gave no session id: $(cat "$T/o4.hdr")"
expect_eq "$(jq -r .result.protocolVersion "$T/o4.body")" 2025-06-18 \
    "protocol version"
expect_eq "$(jq -r .id "$T/o4.body")" 1 "initialize id given back"
S="Mcp-Session-Id: $SID"
V="MCP-Protocol-Version: 2025-06-18"
# 202: a notification and a response.
expect_eq "$(hreq n1 -H "$AUTH" -H "$CT" -H "$ACC" -H "$S" -H "$V" \
    -d '{"jsonrpc":"2.0","method":"notifications/initialized"}' "$URL")" \
    202 "notification"
expect_eq "$(hreq n2 -H "$AUTH" -H "$CT" -H "$ACC" -H "$S" -H "$V" \
    -d '{"jsonrpc":"2.0","id":"x","result":{}}' "$URL")" 202 "response"
# A string id comes back as it was.
expect_eq "$(hreq p1 -H "$AUTH" -H "$CT" -H "$ACC" -H "$S" -H "$V" \
    -d '{"jsonrpc":"2.0","id":"abc","method":"ping"}' "$URL")" 200 "ping"
expect_eq "$(cat "$T/p1.body")" '{"jsonrpc":"2.0","id":"abc","result":{}}' \
    "ping answer"
# Sessions: none, unknown, a bad protocol version.
PING='{"jsonrpc":"2.0","id":2,"method":"tools/list"}'
expect_eq "$(hreq s1 -H "$AUTH" -H "$CT" -H "$ACC" -d "$PING" "$URL")" \
    400 "no session"
expect_match "$(cat "$T/s1.body")" "Mcp-Session-Id" "no session said"
expect_eq "$(hreq s2 -H "$AUTH" -H "$CT" -H "$ACC" \
    -H "Mcp-Session-Id: 0123456789abcdef0123456789abcdef" -d "$PING" \
    "$URL")" 404 "unknown session"
expect_eq "$(hreq s3 -H "$AUTH" -H "$CT" -H "$ACC" -H "$S" \
    -H "MCP-Protocol-Version: 1999-01-01" -d "$PING" "$URL")" 400 \
    "bad protocol version"
# Malformed bodies and requests.
expect_eq "$(hreq m1 -H "$AUTH" -H "$CT" -H "$ACC" -H "$S" -d '{"jsonrpc":' \
    "$URL")" 400 "bad JSON"
expect_eq "$(jq -r .error.code "$T/m1.body")" -32700 "parse error code"
expect_eq "$(hreq m2 -H "$AUTH" -H "$CT" -H "$ACC" -H "$S" -d "[$PING]" \
    "$URL")" 400 "batch"
expect_match "$(cat "$T/m2.body")" "batches are not supported" "batch said"
expect_eq "$(hreq m3 -H "$AUTH" -H "$CT" -H "$ACC" -H "$S" \
    -d '{"jsonrpc":"2.0","id":3}' "$URL")" 400 "no method"
expect_eq "$(hreq m4 -H "$AUTH" -H "Content-Type: text/plain" -H "$ACC" \
    -H "$S" -d "$PING" "$URL")" 415 "text/plain body"
expect_eq "$(hreq m5 -H "$AUTH" -H "$CT" -H "Accept: text/html" -H "$S" \
    -d "$PING" "$URL")" 406 "Accept text/html"
expect_eq "$(hreq m6 -H "$AUTH" -H "$CT" -H "$ACC" -H "$S" \
    -H "Content-Length: 999999999" "$URL" -X POST)" 413 "body too large"
expect_eq "$(hreq m7 -H "$AUTH" -H "$CT" -H "$ACC" -H "$S" \
    -H "Transfer-Encoding: chunked" -d "$PING" "$URL")" 501 "chunked"
expect_eq "$(hreq m8 -H "$AUTH" "$URL")" 405 "GET"
grep -qi '^Allow: POST, DELETE' "$T/m8.hdr" || fail "405 without Allow"
expect_eq "$(hreq m9 -H "$AUTH" -X PUT -d x "$URL")" 405 "PUT"
expect_eq "$(hreq m10 -H "$AUTH" -H "$CT" -d "$PING" "${URL%/mcp}/other")" \
    404 "other path"
expect_eq "$(hreq m11 -H "$AUTH" -X DELETE "$URL")" 400 "DELETE, no session"
# An unknown tool is a JSON-RPC error in a 200.
expect_eq "$(hreq m12 -H "$AUTH" -H "$CT" -H "$ACC" -H "$S" -H "$V" \
    -d '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"nope","arguments":{}}}' \
    "$URL")" 200 "unknown tool"
expect_eq "$(jq -r .error.code "$T/m12.body")" -32602 "unknown tool code"

# Progress by hand: an event stream with progress, then the answer.
expect_eq "$(hreq e1 -H "$AUTH" -H "$CT" -H "$ACC" -H "$S" -H "$V" \
    -d '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"exec","arguments":{"command":"sleep 3; echo streamed"},"_meta":{"progressToken":"tok-1"}}}' \
    "$URL")" 200 "exec with progress"
grep -qi '^Content-Type: text/event-stream' "$T/e1.hdr" ||
	fail "no event stream: $(cat "$T/e1.hdr")"
grep '^data: ' "$T/e1.body" | sed 's/^data: //' > "$T/e1.json"
expect_eq "$(jq -r 'select(.method == "notifications/progress") |
    .params.progressToken' "$T/e1.json" | sort -u)" tok-1 "token given back"
expect_eq "$(jq -r 'select(.id == 5) | .result.structuredContent.stdout' \
    "$T/e1.json")" streamed "answer last on the stream"
expect_eq "$(tail -n 1 "$T/e1.json" | jq -r .id)" 5 "answer ends the stream"

# Raw bytes curl will not send.
raw() {
	printf '%b' "$1" | node "$MCP/raw.mjs" "$PORT" | head -n 1 | tr -d '\r'
}
expect_match "$(raw 'GARBAGE\r\n\r\n')" "^HTTP/1.1 400" "garbage"
expect_match "$(raw 'POST /mcp HTTP/2.0\r\nHost: x\r\n\r\n')" \
    "^HTTP/1.1 505" "HTTP/2.0"
expect_match "$(raw 'POST /mcp HTTP/1.1\r\nHost 127.0.0.1\r\n\r\n')" \
    "^HTTP/1.1 400" "header without colon"
expect_match "$(raw 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n folded\r\n\r\n')" \
    "^HTTP/1.1 400" "folded header"
expect_match "$(raw "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer $TOKEN\r\n\r\n")" \
    "^HTTP/1.1 411" "POST without length"
expect_match "$(raw "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")" \
    "^HTTP/1.1 400" "two lengths"
expect_match "$(raw 'POST /mcp HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n')" \
    "^HTTP/1.1 40" "two Hosts"
big=$(head -c 20000 /dev/zero | tr '\0' a)
expect_match "$(raw "POST /mcp HTTP/1.1\r\nX-Big: $big\r\n\r\n")" \
    "^HTTP/1.1 431" "head too large"
# Keep-alive: two requests on one connection, both answered.
b1='{"jsonrpc":"2.0","id":11,"method":"ping"}'
b2='{"jsonrpc":"2.0","id":12,"method":"ping"}'
hd="POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer $TOKEN\r\nContent-Type: application/json\r\nMcp-Session-Id: $SID\r\n"
two=$(printf '%b%b' \
    "${hd}Content-Length: ${#b1}\r\n\r\n$b1" \
    "${hd}Connection: close\r\nContent-Length: ${#b2}\r\n\r\n$b2" |
    node "$MCP/raw.mjs" "$PORT")
expect_eq "$(printf '%s\n' "$two" | grep -o 'HTTP/1.1 200' | wc -l)" 2 \
    "two pipelined requests"
expect_match "$two" '"id":12' "the second answered"

# The slow client got 408.
wait "$SLOW"
expect_match "$(head -n 1 "$T/slow.out")" "^HTTP/1.1 408" "slow head"

# DELETE ends the session.
expect_eq "$(hreq d1 -H "$AUTH" -H "$S" -X DELETE "$URL")" 200 "DELETE"
expect_eq "$(hreq d2 -H "$AUTH" -H "$CT" -H "$ACC" -H "$S" -d "$PING" \
    "$URL")" 404 "deleted session"

# ... and notifications/cancelled stops the remote command.
marker="353.$$"
SPEC_MARKER=$marker node "$MCP/http.mjs" cancel "$URL" "$T/token" \
    > "$T/spec-cancel.json" &
CPID=$!
i=0
until pgrep -f "^sleep $marker\$" > /dev/null || [ $i -gt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
pgrep -f "^sleep $marker\$" > /dev/null || fail "remote sleep did not start"
i=0
while pgrep -f "^sleep $marker\$" > /dev/null && [ $i -lt 80 ]; do
	sleep 0.1; i=$((i + 1))
done
pgrep -f "^sleep $marker\$" > /dev/null &&
	fail "the remote command of a cancelled call still runs"
echo "cancelled command gone after $i tenths of a second of looking"
wait "$CPID" || { cat "$T/spec-cancel.json"; fail "MCP HTTP check cancel"; }
expect_eq "$(jq -r .ok "$T/spec-cancel.json")" true "MCP HTTP check cancel"

# The server lived through all of it, and stops on SIGTERM.
kill -0 "$SPID" || fail "the HTTP server died: $(tail -n 20 "$T/serve.log")"
kill -TERM "$SPID"
wait "$SPID"
expect_status $? 0 "server stopped by SIGTERM"

# A Unix socket, and a token made for the run (gone at the end).
serve_start "$T/ready2" "$T/serve2.log" --listen "unix:$T/mcp.sock"
tf=$(jq -r .tokenFile "$T/ready2")
expect_eq "$(jq -r .socket "$T/ready2")" "$T/mcp.sock" "socket said"
expect_eq "$(stat -c %a "$tf")" 600 "made token file mode"
expect_eq "$(stat -c %a "$T/mcp.sock")" 700 "socket mode (owner only)"
expect_eq "$(hreq u1 --unix-socket "$T/mcp.sock" \
    -H "Authorization: Bearer $(cat "$tf")" -H "$CT" -H "$ACC" -d "$INIT" \
    http://localhost/mcp)" 200 "initialize on a Unix socket"
expect_eq "$(hreq u2 --unix-socket "$T/mcp.sock" -H "$CT" -H "$ACC" \
    -d "$INIT" http://localhost/mcp)" 401 "no token on a Unix socket"
kill -TERM "$SPID"
wait "$SPID"
[ -e "$tf" ] && fail "the run's token file was left"
[ -e "$T/mcp.sock" ] && fail "the socket was left"
# A token file others can read is refused.
printf 'abcdefghijklmnopqrstuvwxyz\n' > "$T/open-token"
chmod 644 "$T/open-token"
"$CLAWSSH" serve --mcp -s "$id" --listen 127.0.0.1:0 \
    --token-file "$T/open-token" < /dev/null > /dev/null 2> "$T/err" &&
	fail "a token file others can read was accepted"
expect_match "$(cat "$T/err")" "chmod 600" "open token file said"
exit 0
