#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# JSON-RPC exec.resize: an exec started with pty: true on the daemon's
# socket gets a new terminal size while it runs, and the command sees it
# (SIGWINCH, stty size), for runtime none (the SSH pty) and bwrap (the
# persistent environment's own pty behind box-exec).  An unknown
# requestId and bad sizes are refused.
. "$TESTLIB"

command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
mkdir -p "$T/ws"
mkdir -m 700 "$T/run"
D="$T/run/d.sock"
"$CLAWSSH" serve --socket "$D" --idle-timeout 0 2>"$T/daemon.err" &
DPID=$!
i=0
while [ ! -S "$D" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -S "$D" ] || fail "daemon did not start: $(cat "$T/daemon.err")"

# resize ID: exec with a pty (80x24), resize it to 100x40 after a second,
# print every answer as one JSON line.
resize() {
	python3 - "$D" "$1" <<'PY'
import json, socket, sys, time
sock = socket.socket(socket.AF_UNIX)
sock.connect(sys.argv[1])
script = ('stty size; trap "stty size; exit 0" WINCH; i=0; '
          'while [ $i -lt 150 ]; do sleep 0.1; i=$((i+1)); done; '
          'echo no-winch')
def send(obj):
    sock.sendall((json.dumps(obj) + "\n").encode())
send({"jsonrpc": "2.0", "id": 7, "method": "exec", "params": {
    "sandbox": sys.argv[2], "argv": ["sh", "-c", script], "pty": True,
    "cols": 80, "rows": 24}})
time.sleep(2)
send({"jsonrpc": "2.0", "id": 8, "method": "exec.resize",
      "params": {"requestId": 7, "cols": 100, "rows": 40}})
send({"jsonrpc": "2.0", "id": 9, "method": "exec.resize",
      "params": {"requestId": 99, "cols": 100, "rows": 40}})
send({"jsonrpc": "2.0", "id": 10, "method": "exec.resize",
      "params": {"requestId": 7, "cols": 0, "rows": 40}})
buf, seen, out = b"", set(), ""
sock.settimeout(30)
while seen != {7, 8, 9, 10}:
    chunk = sock.recv(65536)
    if not chunk:
        break
    buf += chunk
    while b"\n" in buf:
        line, buf = buf.split(b"\n", 1)
        msg = json.loads(line)
        if msg.get("method") == "exec.output":  # the terminal's stream
            out += msg["params"]["data"]
        if "id" in msg:
            seen.add(msg["id"])
            if msg["id"] == 7 and "result" in msg:
                msg["result"]["stdout"] = out.replace("\r", "")
            print(json.dumps(msg, sort_keys=True))
PY
}

for rt in none bwrap; do
	if [ "$rt" = bwrap ] && ! command -v bwrap >/dev/null 2>&1; then
		echo "no bwrap: runtime none only"
		continue
	fi
	id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
	    --key "$rt" --runtime "$rt" --remote-root "$R" \
	    --workspace "$T/ws") || fail "provision $rt"
	out=$(resize "$id") || fail "$rt: the client failed"
	r7=$(printf '%s\n' "$out" | jq -c 'select(.id == 7)')
	expect_eq "$(printf '%s' "$r7" | jq -r '.result.stdout')" "24 80
40 100" "$rt: the size before and after"
	expect_eq "$(printf '%s' "$r7" | jq -r '.result.exit_status')" 0 \
	    "$rt: the command saw SIGWINCH"
	expect_eq "$(printf '%s\n' "$out" | jq -c 'select(.id == 8) | .result')" \
	    "{}" "$rt: resize answered"
	expect_eq "$(printf '%s\n' "$out" | jq -r 'select(.id == 9) | .error.code')" \
	    -32602 "$rt: unknown requestId"
	expect_eq "$(printf '%s\n' "$out" | jq -r 'select(.id == 10) | .error.code')" \
	    -32602 "$rt: bad size"
done
ls "$T"/run/size-* 2>/dev/null && fail "a size file was left behind"
kill "$DPID"
wait "$DPID" 2>/dev/null
exit 0
