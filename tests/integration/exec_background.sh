#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# exec --background and --yield-ms against a real sshd: a handle at once,
# a quick command's output and status within the yield, a slow one's
# handle to poll later, --json, and the mirror pull when it finished.
. "$TESTLIB"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
W="$T/ws"
mkdir -p "$W"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key bg \
    --remote-root "$T/root" --workspace "$W") || fail "provision"
x() {
	"$CLAWSSH" exec -s "$id" "$@"
}

# --background: the handle, at once; the output comes with a poll.
h=$(x --background -- sh -c 'echo from-bg')
expect_match "$h" "^p[0-9a-f]\{8\}$" "--background prints a handle"
sleep 2
out=$("$CLAWSSH" process poll -s "$id" "$h" 2>/dev/null)
expect_match "$out" "^from-bg$" "background output polled"

# --yield-ms: a quick command behaves like exec (output, status).
out=$(x --yield-ms 20000 -- sh -c 'echo quick; exit 3')
expect_status $? 3 "status within the yield"
expect_eq "$out" "quick" "output within the yield"

# A slow one: early output now, the handle on stderr, the rest later.
out=$(x --yield-ms 1500 -- sh -c 'echo early; sleep 4; echo late' \
    2>"$T/err")
expect_status $? 0 "still running is not a failure"
expect_eq "$out" "early" "output so far"
h=$(sed -n 's/.*still running as process \(p[0-9a-f]*\) .*/\1/p' "$T/err")
[ -n "$h" ] || fail "no handle in: $(cat "$T/err")"
sleep 5
out=$("$CLAWSSH" process poll -s "$id" "$h" 2>"$T/err2")
expect_eq "$out" "late" "the rest by poll"
expect_match "$(cat "$T/err2")" "exited 0" "poll sees the exit"

# --json: one object either way.
out=$(x --yield-ms 20000 --json -- sh -c 'echo j; exit 2')
expect_status $? 2 "json status"
expect_match "$out" '"state":"exited","exit_status":2,"output":"j\\n"' \
    "json finished"
out=$(x --yield-ms 100 --json -- sleep 3)
expect_match "$out" '"state":"running","exit_status":null' "json running"

# Mirror mode: a command that finished within the yield is pulled down.
x --yield-ms 20000 -- sh -c 'echo made > made.txt' >/dev/null ||
    fail "mirror yield"
expect_eq "$(cat "$W/made.txt")" "made" "pulled after the yield"

# Bad combinations are refused.
x --background --yield-ms 5 -- true 2>/dev/null &&
    fail "--background with --yield-ms"
"$CLAWSSH" exec -F "$T/ssh_config" testhost --background -- true \
    2>/dev/null && fail "--background without -s"
x --json -- true 2>/dev/null && fail "--json alone"

# Through the daemon, a background command's push (and a yield's pull)
# are steps in the sandbox's running environment, as a foreground
# exec's are (issue 17): -vv says so, and the content arrives.
lib_start_daemon "$T/daemon.log"
x -- true || fail "exec through the daemon"
# joined WHAT TEXT START...: START -- cat FILE (a background start at
# -vv, printing its handle) reads a file made locally with TEXT: its push
# joined the environment and a poll shows TEXT.
joined() {
	_what=$1
	echo "$2" > "$W/joined.txt"
	shift
	_text=$1
	shift
	h=$("$@" -- cat joined.txt 2>"$T/err")
	expect_match "$h" "^p[0-9a-f]\{8\}$" "$_what: a handle"
	expect_match "$(cat "$T/err")" "step in the sandbox's running env" \
	    "$_what: the push joined the environment"
	sleep 2
	out=$("$CLAWSSH" process poll -s "$id" "$h" 2>/dev/null)
	expect_eq "$out" "$_text" "$_what: the pushed file, read"
}
joined "exec --background" pushed-bg x -vv --background
joined "process start" ps-in "$CLAWSSH" process start -vv -s "$id"
echo yield-in > "$W/y-in.txt"
x -vv --yield-ms 20000 -- sh -c 'cat y-in.txt > y-out.txt' \
    2>"$T/err" >/dev/null || fail "yield through the daemon"
expect_eq "$(cat "$W/y-out.txt")" "yield-in" "pushed and pulled, yield"
expect_match "$(cat "$T/err")" "step in the sandbox's running env" \
    "the yield's steps joined the environment"
exit 0
