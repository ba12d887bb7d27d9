#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# An sshd that gives fewer channels per session than the daemon asks for
# (MaxSessions 2 against the daemon's maxSessions 8): the daemon learns
# the session's real room from the refused channel open, queues the
# command again instead of failing it, and every one of six concurrent
# execs runs once, with its own output and status.
# shellcheck disable=SC2034 # read by lib.sh
SSHD_MAX_SESSIONS=2
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

D="$T/run/clawssh/control.sock"
mkdir -p "$XDG_CONFIG_HOME/clawssh"
printf '{ "daemon": { "maxSessions": 8, "maxConnections": 1 } }\n' \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
"$CLAWSSH" serve -vv --socket "$D" --log "$T/daemon.log" &
DPID=$!
i=0
while [ ! -S "$D" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
[ -S "$D" ] || fail "daemon did not start: $(cat "$T/daemon.log")"
"$CLAWSSH" exec -F "$T/ssh_config" testhost -- true ||
    fail "first exec through the daemon"

pids=""
for n in 1 2 3 4 5 6; do
	"$CLAWSSH" exec -F "$T/ssh_config" testhost -- \
	    sh -c "sleep 0.5; echo run-$n; exit $n" > "$T/out.$n" 2>&1 &
	pids="$pids $!:$n"
done
for p in $pids; do
	wait "${p%%:*}"
	expect_status $? "${p#*:}" "exec ${p#*:}'s status with sshd full"
	expect_eq "$(cat "$T/out.${p#*:}")" "run-${p#*:}" \
	    "exec ${p#*:}'s output with sshd full"
done
grep -q "session full at" "$T/daemon.log" ||
    fail "the daemon never met sshd's MaxSessions: $(tail -n 5 "$T/daemon.log")"
logins=$(grep -c "Accepted publickey" "$T/sshd.log")
expect_eq "$logins" 1 "SSH logins (one session, channels queued on it)"

kill "$DPID"
wait "$DPID" 2>/dev/null
exit 0
