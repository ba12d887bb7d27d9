#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The clawssh daemon against a real sshd: commands reuse its warm session
# (one SSH login for many execs), streams and exit codes pass through
# unchanged, concurrent execs share a small pool, --no-daemon bypasses it,
# a client killed mid-exec gets its remote command stopped, a session that
# dies fails the exec promptly and the next one reconnects, garbage on the
# socket harms nobody, autostart and the idle exit work.
. "$TESTLIB"

D="$T/run/clawssh/control.sock"
mkdir -p "$XDG_CONFIG_HOME/clawssh"
printf '{ "daemon": { "maxSessions": 3, "maxConnections": 2 } }\n' \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
c() {
	"$CLAWSSH" exec -F "$T/ssh_config" testhost "$@"
}
# (Commands run in the background call clawssh directly, not through c:
# $! must be clawssh's own pid for the kill tests.)
logins() {
	grep -c "Accepted publickey" "$T/sshd.log"
}
start_daemon() {
	"$CLAWSSH" serve -vv --socket "$D" --log "$T/daemon.log" &
	DPID=$!
	i=0
	while [ ! -S "$D" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
	[ -S "$D" ] || fail "daemon did not start: $(cat "$T/daemon.log")"
}

start_daemon
[ "$(stat -c %a "$D")" = 600 ] || fail "socket mode $(stat -c %a "$D")"
[ "$(stat -c %a "$(dirname "$D")")" = 700 ] || fail "socket dir not 0700"
"$CLAWSSH" serve --socket "$D" 2>"$T/err"
expect_status $? 255 "second daemon on the same socket"
expect_match "$(cat "$T/err")" "already running" "second daemon message"

# Streams, status, stdin, and binary integrity through the daemon.
out=$(c -- sh -c 'echo out; echo err >&2; exit 3' 2>"$T/err")
expect_status $? 3 "exit status through the daemon"
expect_eq "$out" "out" "stdout through the daemon"
expect_eq "$(cat "$T/err")" "err" "stderr through the daemon"
out=$(printf 'abc\n' | c -- cat)
expect_eq "$out" "abc" "stdin through the daemon"
head -c 3000000 /dev/urandom > "$T/big"
c -- cat < "$T/big" > "$T/big.out"
cmp -s "$T/big" "$T/big.out" || fail "3 MB round trip differs"
c -- sh -c 'kill -TERM $$'
expect_status $? 143 "death by signal through the daemon"

# A host the daemon cannot log in to: the command fails with its reason.
c -o UserKnownHostsFile=/dev/null -o StrictHostKeyChecking=yes -- true \
    2>"$T/err"
expect_status $? 255 "exec through the daemon, unknown host key"
expect_match "$(cat "$T/err")" "host key" "daemon's connect error passed on"

# One login served all of that; --no-daemon logs in again.
expect_eq "$(logins)" 1 "SSH logins with the daemon"
c --no-daemon -- true
expect_eq "$(logins)" 2 "SSH logins after --no-daemon"

# 12 concurrent execs on a pool of 2 sessions x 3 channels.
i=0
pids=
while [ $i -lt 12 ]; do
	c -- sh -c "sleep 0.3; echo job$i" > "$T/par.$i" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
for p in $pids; do
	wait "$p"
done
i=0
while [ $i -lt 12 ]; do
	expect_eq "$(cat "$T/par.$i")" "job$i" "concurrent exec $i"
	i=$((i + 1))
done
[ "$(logins)" -le 4 ] || fail "pool grew past maxConnections: $(logins)"

# A client killed mid-exec: the daemon stops its remote command.
"$CLAWSSH" exec -F "$T/ssh_config" testhost -- sleep 347.$$ &
CPID=$!
i=0
until pgrep -f "^sleep 347.$$" >/dev/null || [ $i -gt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
pgrep -f "^sleep 347.$$" >/dev/null || fail "remote sleep did not start"
sleep 0.3	# let the pid marker reach the daemon
kill -9 $CPID
i=0
while pgrep -f "^sleep 347.$$" >/dev/null && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
pgrep -f "^sleep 347.$$" >/dev/null &&
	fail "remote command of a killed client still runs"

# Killed before its command even started (the pid marker had not come):
# the daemon waits for the marker, then stops the command.
"$CLAWSSH" exec -F "$T/ssh_config" testhost -- sleep 349.$$ &
CPID=$!
sleep 0.2
kill -9 $CPID
sleep 2
i=0
while pgrep -f "^sleep 349.$$" >/dev/null && [ $i -lt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
pgrep -f "^sleep 349.$$" >/dev/null &&
	fail "remote command of a client killed early still runs"

# The session dies mid-exec: the exec fails at once, the next reconnects.
"$CLAWSSH" exec -F "$T/ssh_config" testhost -- sleep 348.$$ 2>"$T/err" &
CPID=$!
i=0
until pgrep -f "^sleep 348.$$" >/dev/null || [ $i -gt 100 ]; do
	sleep 0.1; i=$((i + 1))
done
pkill -KILL -P "$SSHD_PID" -f 'sshd: .*@notty'
pkill -KILL -f "^sleep 348.$$"
start=$(date +%s)
wait $CPID
expect_status $? 255 "exec whose session died"
[ $(( $(date +%s) - start )) -le 5 ] || fail "dead session noticed late"
expect_match "$(cat "$T/err")" "127.0.0.1" "dead session message names host"
out=$(c -- echo again)
expect_eq "$out" "again" "exec after the session died"

# Garbage on the socket: that client is dropped, the daemon lives on.
printf 'GET / HTTP/1.0\r\n\r\n' | timeout 5 nc -U "$D" >/dev/null 2>&1
printf 'CLAWMUX1\n\377\377\377\377xxxxx' | timeout 5 nc -U "$D" \
    >/dev/null 2>&1
out=$(c -- echo alive)
expect_eq "$out" "alive" "exec after garbage on the socket"
kill "$DPID"
wait "$DPID"
expect_status $? 0 "daemon exit on SIGTERM"
[ -e "$D" ] && fail "socket left behind"

# Autostart from config, then reuse; idle exit.
printf '{ "daemon": { "autostart": true, "idleTimeout": 2 } }\n' \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
before=$(logins)
out=$(c -- echo auto)
expect_eq "$out" "auto" "exec with autostart"
[ -S "$D" ] || fail "autostart left no daemon"
c -- true
expect_eq "$(logins)" $((before + 1)) "autostarted daemon reused"
i=0
while [ -S "$D" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$D" ] && fail "daemon did not exit when idle"
exit 0
