#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The daemon without knowing it: with no config at all, the first command
# starts a daemon (detached, logging beside its socket) and the next one
# reuses its session; serve --status reports it (text and --json), serve
# --stop ends it and waits; "autostart": false keeps the direct path; a
# daemon that cannot start falls back to the direct path (-v says so);
# the idle timeout ends it.
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

unset CLAWSSH_AUTOSTART		# the user's default, not the suite's
D="$T/run/clawssh/control.sock"
c() {
	"$CLAWSSH" exec -F "$T/ssh_config" testhost "$@"
}
logins() {
	grep -c "Accepted publickey" "$T/sshd.log"
}
st() {
	"$CLAWSSH" serve "$@"
}

# No daemon: --status says so (exit 1), --stop too.
out=$(st --status)
expect_status $? 1 "status without a daemon"
expect_match "$out" "^not running (socket $D)" "status text"
expect_eq "$(st --status --json)" "{\"running\":false,\"socket\":\"$D\"}" \
    "status --json without a daemon"
out=$(st --stop 2>&1)
expect_status $? 1 "stop without a daemon"
expect_match "$out" "no daemon running on $D" "stop text"

# First use starts it; the second call reuses its session.
before=$(logins)
expect_eq "$(c -- echo one)" "one" "first exec"
[ -S "$D" ] || fail "no daemon was started"
[ -f "$T/run/clawssh/daemon.log" ] || fail "no daemon.log beside the socket"
expect_eq "$(c -- echo two)" "two" "second exec"
expect_eq "$(logins)" $((before + 1)) "one login for two execs"
out=$(st --status) || fail "status: exit $?"
expect_match "$out" "^running: pid [0-9][0-9]*, socket $D, up [0-9]* s$" \
    "status: running"
expect_match "$out" "^idle timeout: 600 s$" "status: default idle timeout"
expect_match "$out" "commands run: [2-9]" "status: commands counted"
expect_match "$out" "^host .*127.0.0.1.*: 1 session(s)" "status: the host"
json=$(st --status --json) || fail "status --json"
pid=$(printf '%s' "$json" | sed -n 's/.*"pid":\([0-9]*\).*/\1/p')
{ [ -n "$pid" ] && kill -0 "$pid"; } || fail "status --json pid: $json"
expect_match "$json" '"running":true' "status --json running"
expect_match "$json" '"hosts":\[{"host":' "status --json hosts"
ps -o args= -p "$pid" | grep -q -- "serve --detach --socket $D" ||
    fail "pid $pid is not the daemon"

# --stop ends it and waits: socket and process gone when it returns.
st --stop || fail "stop: exit $?"
[ -e "$D" ] && fail "socket left after --stop"
kill -0 "$pid" 2>/dev/null && fail "daemon $pid still running after --stop"
out=$(st --status)
expect_status $? 1 "status after stop"

# A daemon starting (its PATH.lock held) is not raced: a second start is
# refused and leaves the first's socket alone; the lock goes with it.
flock "$D.lock" sleep 3 &
fl=$!
i=0		# until flock(1) holds it
while flock -n "$D.lock" true 2>/dev/null && [ $i -lt 50 ]; do
	sleep 0.05
	i=$((i + 1))
done
out=$("$CLAWSSH" serve --socket "$D" --idle-timeout 1 2>&1)
expect_status $? 255 "a start while the lock is held"
expect_match "$out" "already running (or starting) on $D" "lock refusal"
[ -e "$D" ] && fail "the refused start left a socket"
wait "$fl"
# Commands that start at once share one daemon: all run, one remains.
pids=
for n in 1 2 3 4; do
	c -- echo "par$n" > "$T/par$n" 2>"$T/par$n.err" &
	pids="$pids $!"
done
for p in $pids; do
	wait "$p" || fail "a concurrent first use failed"
done
for n in 1 2 3 4; do
	expect_eq "$(cat "$T/par$n")" "par$n" "concurrent first use $n"
	[ -s "$T/par$n.err" ] && fail "concurrent use $n said: $(cat \
	    "$T/par$n.err")"
done
expect_eq "$(pgrep -c -f -- "serve --detach --socket $D")" 1 \
    "one daemon after concurrent first use"
st --stop || fail "stop after concurrent use"
[ -e "$D.lock" ] && fail "lock file left after --stop"

# "autostart": false: the direct path, a login each time, no daemon.
mkdir -p "$XDG_CONFIG_HOME/clawssh"
printf '{ "daemon": { "autostart": false } }\n' \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
before=$(logins)
{ c -- true && c -- true; } || fail "execs without autostart"
expect_eq "$(logins)" $((before + 2)) "autostart false: direct"
[ -e "$D" ] && fail "autostart false started a daemon"
# The suite's own switch gives way to the config, either way.
CLAWSSH_AUTOSTART=1 c -- true || fail "exec"
[ -e "$D" ] && fail "CLAWSSH_AUTOSTART=1 overrode autostart false"
rm -f "$XDG_CONFIG_HOME/clawssh/config.json"
CLAWSSH_AUTOSTART=0 c -- true || fail "exec"
[ -e "$D" ] && fail "CLAWSSH_AUTOSTART=0 started a daemon"

# A daemon that cannot start (its directory is not private): the command
# still runs, directly, and -v says why.
rm -f "$T/run/clawssh/daemon.log"
chmod 755 "$T/run/clawssh"
out=$(c -v -- echo direct 2>"$T/err")
expect_status $? 0 "exec when the daemon cannot start"
expect_eq "$out" "direct" "output on the fallback"
grep -q "could not start the clawssh daemon.*connecting directly" \
    "$T/err" || fail "-v note missing: $(cat "$T/err")"
[ -S "$D" ] && fail "a daemon started in a public directory"
[ -e "$T/run/clawssh/daemon.log" ] &&
    fail "a log was opened in a public directory"
chmod 700 "$T/run/clawssh"

# The idle timeout from the config ends a started daemon.
printf '{ "daemon": { "idleTimeout": 1 } }\n' \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
c -- true || fail "exec"
[ -S "$D" ] || fail "no daemon started"
expect_match "$(st --status)" "^idle timeout: 1 s$" "idle timeout set"
i=0
while [ -S "$D" ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
[ -S "$D" ] && fail "started daemon did not exit when idle"
exit 0
