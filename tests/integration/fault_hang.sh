#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A black-holed connection never hangs: with the default keepalives (no
# ServerAlive* in ssh_config: 10 s x 3) an exec whose link stops carrying
# anything (a ProxyCommand relay SIGSTOPped) exits 255 naming the host
# within 40 s, directly and through the daemon (both at once, to keep the
# test short), and the daemon's next call to that host does not wait on
# the dead session.  With ServerAliveInterval 1 and CountMax 2 from the
# user it takes seconds.  Prints the figures.
. "$TESTLIB"

BOUND=40	# seconds: 10 s x 3 without an answer, plus slack
D="$T/run/clawssh/control.sock"
PROXY="ProxyCommand=nc 127.0.0.1 %p"
# A relay the daemon cannot stop when it drops the session (setsid -f: not
# its child), as a link that went dark somewhere on the way would be.
PROXY_FAR="ProxyCommand=setsid -f nc 127.0.0.1 %p"
N=$$		# in the remote commands' argv, so that only ours are seen

# started TAG: wait (up to 10 s) until TAG's remote sleep runs.
started() {
	_i=0
	until pgrep -f "^sleep 30$1\\.$N" > /dev/null || [ $_i -ge 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	pgrep -f "^sleep 30$1\\.$N" > /dev/null ||
	    fail "$1: remote sleep not seen: $(cat "$T"/*.err)"
}

# relays: the pids of the ProxyCommand relays now running.
relays() {
	pgrep -f "^nc 127.0.0.1 $PORT\$" | tr '\n' ' '
}

# finish PID WHAT T0: wait for PID; it must exit 255 within BOUND; the
# seconds it took in $took.
finish() {
	while kill -0 "$1" 2>/dev/null &&
	    [ $(( $(date +%s) - $3 )) -le "$BOUND" ]; do
		sleep 0.2
	done
	if kill -0 "$1" 2>/dev/null; then
		kill -KILL "$1"
		fail "$2: still waiting after $BOUND s (a hang)"
	fi
	wait "$1"
	_st=$?
	_s=$(( $(date +%s) - $3 ))
	expect_status "$_st" 255 "$2: exec over a black-holed link"
	[ "$_s" -le "$BOUND" ] || fail "$2: took $_s s (bound $BOUND s)"
	took=$_s
}

# Stopped relays go even when a check fails (their remote sleeps with
# them, by the watchdog).
# shellcheck disable=SC2046
trap 'kill -KILL $(relays) 2>/dev/null; lib_cleanup' EXIT

lib_start_daemon "$T/daemon.log" -vv

# Direct and through the daemon, default keepalives, one black hole each.
"$CLAWSSH" exec --no-daemon -F "$T/ssh_config" -o "$PROXY" testhost -- \
    sleep 3011.$N < /dev/null 2>"$T/direct.err" &
P1=$!
started 11
r1=$(relays)
CLAWSSH_DAEMON_SOCKET=$D "$CLAWSSH" exec -F "$T/ssh_config" \
    -o "$PROXY_FAR" testhost -- sleep 3012.$N < /dev/null 2>"$T/daemon.err" &
P2=$!
started 12
r2=$(relays)
# shellcheck disable=SC2086
kill -STOP $r2
t0=$(date +%s)
finish "$P1" direct "$t0"
s1=$took
finish "$P2" daemon "$t0"
s2=$took
expect_match "$(cat "$T/direct.err")" "no response from server" \
    "direct: the reason"
expect_match "$(cat "$T/daemon.err")" "127.0.0.1" "daemon: the host named"
echo "fault_hang: black hole, default keepalives: direct exit 255 in" \
    "${s1} s, through the daemon in ${s2} s (bound $BOUND s)"
[ -n "$r1" ] || fail "no relay seen"

# The daemon's next call to that host gets a new session at once.
t0=$(date +%s)
out=$(CLAWSSH_DAEMON_SOCKET=$D "$CLAWSSH" exec -F "$T/ssh_config" \
    -o "$PROXY_FAR" testhost -- echo fresh < /dev/null 2>"$T/next.err")
expect_eq "$out" fresh "next daemon call after the black hole"
echo "fault_hang: next daemon call: $(( $(date +%s) - t0 )) s"

# That new session killed what the dead one left running (its sshd, behind
# the stopped relay, still thinks the link is up, so the watchdog cannot).
_i=0
while pgrep -f "^sleep 3012\\.$N" > /dev/null && [ $_i -lt 100 ]; do
	sleep 0.1
	_i=$((_i + 1))
done
pgrep -f "^sleep 3012\\.$N" > /dev/null &&
    fail "the daemon's next session left the dead one's command running"
echo "fault_hang: the reconnect stopped the dead session's command in" \
    "$((_i * 100)) ms or less"

# The user's own ServerAlive values are honoured, directly and through
# the daemon.
for run in --no-daemon:13 daemon:14; do
	via=${run%:*}
	tag=${run#*:}
	opt=
	[ "$via" = --no-daemon ] && opt=--no-daemon
	# shellcheck disable=SC2086
	CLAWSSH_DAEMON_SOCKET=$D "$CLAWSSH" exec $opt -F "$T/ssh_config" \
	    -o "$PROXY" -o ServerAliveInterval=1 -o ServerAliveCountMax=2 \
	    testhost -- sleep "30$tag.$N" < /dev/null 2>"$T/own$tag.err" &
	P3=$!
	started "$tag"
	before=$(relays)
	# shellcheck disable=SC2086
	kill -STOP $before
	t0=$(date +%s)
	finish "$P3" "$via, ServerAliveInterval 1" "$t0"
	s3=$took
	[ "$s3" -le 10 ] || fail "$via: ServerAliveInterval 1 x 2 took $s3 s"
	echo "fault_hang: ServerAliveInterval 1, CountMax 2 ($via): exit 255" \
	    "in $s3 s"
	# shellcheck disable=SC2086
	kill -KILL $before 2>/dev/null
done

# The relays held stopped go; their remote sleeps end with them.
# shellcheck disable=SC2046
kill -KILL $(relays) 2>/dev/null
_i=0
while pgrep -f "^sleep 301[1234]\\.$N" > /dev/null && [ $_i -lt 100 ]; do
	sleep 0.1
	_i=$((_i + 1))
done
pgrep -f "^sleep 301[1234]\\.$N" > /dev/null && fail "remote sleeps left behind"
exit 0
