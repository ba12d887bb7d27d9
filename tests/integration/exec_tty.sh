#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# exec -t/-tt/-T and shell: a pseudo-terminal for the remote command,
# driven from a pty of our own (tests/helpers/pty_run.py): tty and stty
# size inside, a resize seen by a running command, ^C interrupting it
# (status 130), the local modes restored, ssh's note when stdin is not
# a terminal, environment values never echoed; directly and through the
# daemon (and an older daemon refused with a message); shell lands in a
# runtime-none sandbox's workspace; JSON-RPC exec with pty: true.
# LIB_SSH_USER=clawssh-test runs it as a non-root SSH user.
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
PTY_RUN="${top_srcdir:-$(dirname "$0")/../..}/tests/helpers/pty_run.py"
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR

# ptyrun NAME [pty_run args...] -- CMD...: pty_run with its transcript
# in $T/NAME.out and the modes before and after in $T/NAME.modes.
ptyrun() {
	_n=$1
	shift
	python3 "$PTY_RUN" --out "$T/$_n.out" --modes "$T/$_n.modes" "$@"
}

# modes_kept NAME: the local terminal's modes are what they were.
modes_kept() {
	[ "$(sed -n 1p "$T/$1.modes")" = "$(sed -n 2p "$T/$1.modes")" ] ||
	    lib_case_fail "$1: terminal modes not restored: $(cat "$T/$1.modes")"
}

# The same cases directly (VIA empty) and through the daemon (VIA set).
tty_cases() {
	ptyrun tty --size 100x30 -- "$CLAWSSH" exec -F "$T/ssh_config" -t \
	    testhost -- sh -c 'tty; stty size; exit 7'
	st=$?
	[ "$st" -eq 7 ] || lib_case_fail "tty: status $st, expected 7"
	grep -q '^/dev/pts/[0-9]*$' "$T/tty.out" ||
	    lib_case_fail "tty: no /dev/pts path: $(cat "$T/tty.out")"
	grep -q '^30 100$' "$T/tty.out" ||
	    lib_case_fail "stty size: $(cat "$T/tty.out")"
	modes_kept tty
	[ -z "$VIA" ] || grep -q "using the clawssh daemon" "$T/tty.out" ||
	    "$CLAWSSH" exec -F "$T/ssh_config" -v testhost -- true 2>&1 |
	    grep -q "using the clawssh daemon" ||
	    lib_case_fail "the daemon was not used"

	# A resize reaches a command that runs (SIGWINCH, then the size).
	ptyrun winch --size 100x30 --expect '^30 100$' --resize 120x40 \
	    --sleep 0.5 --send '\n' --expect '^40 120$' -- \
	    "$CLAWSSH" exec -F "$T/ssh_config" -t testhost -- \
	    sh -c 'stty size; read x; stty size'
	st=$?
	[ "$st" -eq 0 ] || lib_case_fail "winch: status $st: $(cat "$T/winch.out")"
	modes_kept winch

	# ^C is a byte for the remote terminal: it interrupts the command.
	# (Not the instant "ready" shows: a SIGINT that meets dash between
	# its echo and the exec is lost, as on any terminal.)
	t0=$(date +%s)
	ptyrun intr --expect '^ready' --sleep 1 --send '\x03' -- \
	    "$CLAWSSH" exec -F "$T/ssh_config" -t testhost -- \
	    sh -c 'echo ready; exec sleep 100'
	st=$?
	[ "$st" -eq 130 ] || lib_case_fail "^C: status $st, expected 130"
	[ $(( $(date +%s) - t0 )) -lt 20 ] || lib_case_fail "^C: too slow"
	modes_kept intr

	# -T wins; -tt with no terminal here still gets one, at --size.
	ptyrun notty -- "$CLAWSSH" exec -F "$T/ssh_config" -t -T testhost \
	    -- tty
	grep -q '^not a tty' "$T/notty.out" ||
	    lib_case_fail "-T: $(cat "$T/notty.out")"
	out=$(cexec -tt --size 90x20 testhost -- sh -c 'tty; stty size' \
	    </dev/null | tr -d '\r')
	expect_match "$out" '^/dev/pts/' "-tt without a terminal"
	expect_match "$out" '^20 90$' "-tt --size"

	# -t without a terminal: ssh's note, and no pseudo-terminal.
	out=$(cexec -t testhost -- tty </dev/null 2>"$T/note")
	expect_eq "$out" "not a tty" "-t without a terminal"
	grep -qx 'Pseudo-terminal will not be allocated because stdin is not a terminal.' \
	    "$T/note" || lib_case_fail "no note: $(cat "$T/note")"

	# The environment preamble is never echoed, and arrives intact.
	ptyrun env --env "CLAW_SEC=s3cr3t'x" -- "$CLAWSSH" exec \
	    -F "$T/ssh_config" -t --env CLAW_SEC testhost -- \
	    sh -c 'test "$CLAW_SEC" = "s3cr3t'"'"'x" && echo same'
	grep -q '^same$' "$T/env.out" ||
	    lib_case_fail "env: $(cat "$T/env.out")"
	grep -q 's3cr3t' "$T/env.out" &&
	    lib_case_fail "env value echoed: $(cat "$T/env.out")"
	return 0
}

case_1() {
	VIA=
	CLAW_SEC=s3cr3t\'x
	export CLAW_SEC
	tty_cases
}

case_2() {
	lib_start_daemon "$T/daemon.log"
	VIA=daemon
	CLAW_SEC=s3cr3t\'x
	export CLAW_SEC
	tty_cases
	"$CLAWSSH" serve --socket "$D" --stop >/dev/null 2>&1
}

# An older daemon (no "pty" in READY) is refused with a message, before
# any frame it would not know is sent.
case_3() {
	sock="$T/old.sock"
	python3 - "$sock" > "$T/old.log" 2>&1 <<'PY' &
import os, socket, struct, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1])
s.listen(1)
c, _ = s.accept()
data = b""
while b"CLAWMUX1\n" not in data:
    data += c.recv(4096)
body = b"old@daemon:22\0journal jwatch"
c.sendall(struct.pack(">IBI", len(body) + 5, 2, 0) + body)
while c.recv(4096):
    pass
PY
	old=$!
	i=0
	while [ ! -S "$sock" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	CLAWSSH_DAEMON_SOCKET=$sock "$CLAWSSH" exec -F "$T/ssh_config" -tt \
	    testhost -- true </dev/null 2>"$T/old.err"
	st=$?
	kill "$old" 2>/dev/null
	wait "$old" 2>/dev/null
	[ "$st" -eq 255 ] || lib_case_fail "older daemon: status $st"
	grep -q "the daemon does not support terminals; restart it (clawssh serve --stop)" \
	    "$T/old.err" || lib_case_fail "older daemon: $(cat "$T/old.err")"
}

# mkbox KEY: provision a runtime-none, remote-mode sandbox; print its id.
R="$T/root"
mkbox() {
	mkdir -p "$T/ws-$1"
	if [ -n "${LIB_SSH_USER:-}" ] && [ ! -d "$R" ]; then
		mkdir -m 700 "$R"
		chown "$TEST_USER:" "$R"
	fi
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$1" \
	    --remote-root "$R" --workspace "$T/ws-$1" --runtime none \
	    --mode remote
}

# shell ID: a login shell in a runtime-none sandbox's workspace.
case_4() {
	id=$(mkbox sh) || { lib_case_fail "provision"; return; }
	ptyrun shell --size 100x30 --sleep 1 --send 'pwd; stty size; exit 3\n' \
	    --expect '^30 100' -- "$CLAWSSH" shell "$id"
	st=$?
	[ "$st" -eq 3 ] || lib_case_fail "shell: status $st: $(cat "$T/shell.out")"
	grep -q "$R/$id/workspace\$" "$T/shell.out" ||
	    lib_case_fail "shell: not in the workspace: $(cat "$T/shell.out")"
	modes_kept shell
}

# JSON-RPC exec with pty: a terminal of the size asked for, one stream.
case_5() {
	id=$(mkbox rpc) || { lib_case_fail "provision"; return; }
	printf '{"jsonrpc":"2.0","id":1,"method":"exec","params":{"sandbox":"%s","argv":["sh","-c","tty; stty size; echo err >&2; exit 5"],"pty":true,"cols":90,"rows":20}}\n' \
	    "$id" | "$CLAWSSH" serve --stdio > "$T/rpc.out" 2>"$T/rpc.err" ||
	    lib_case_fail "serve --stdio: $(cat "$T/rpc.err")"
	out=$(jq -j 'select(.method == "exec.output" and
	    .params.stream == "stdout") | .params.data' "$T/rpc.out" |
	    tr -d '\r')
	expect_match "$out" '^/dev/pts/' "JSON-RPC pty: tty"
	expect_match "$out" '^20 90$' "JSON-RPC pty: size"
	expect_match "$out" '^err$' "JSON-RPC pty: stderr on the terminal"
	[ -z "$(jq -r 'select(.params.stream == "stderr")' "$T/rpc.out")" ] ||
	    lib_case_fail "JSON-RPC pty: a stderr stream: $(cat "$T/rpc.out")"
	expect_eq "$(jq -r 'select(.id == 1) | .result.exit_status' \
	    "$T/rpc.out")" 5 "JSON-RPC pty: exit status"
}

lib_run_cases "1 2 3 4 5"
