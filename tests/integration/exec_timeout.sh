#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --timeout and signals to clawssh stop the remote process group, leaving
# no orphan on the remote host.
. "$TESTLIB"

# gone PIDFILE: the process named in PIDFILE no longer exists.
gone() {
	p=$(cat "$1" 2>/dev/null) || return 1
	[ -n "$p" ] || return 1
	i=0
	while kill -0 "$p" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 50 ] && return 1
		sleep 0.1
	done
	return 0
}

# The command and a background child both go when the timeout hits.
start=$(date +%s)
cexec testhost --timeout 2 -- sh -c \
    "sleep 300 & echo \$! > '$T/child'; echo \$\$ > '$T/pid'; wait" \
    2>"$T/err"
status=$?
elapsed=$(( $(date +%s) - start ))
expect_status $status 124 "timeout status"
[ $elapsed -lt 15 ] || fail "timeout took ${elapsed}s"
expect_match "$(cat "$T/err")" "timed out" "timeout message"
gone "$T/pid" || fail "remote command still running after timeout"
gone "$T/child" || fail "remote child still running after timeout"

# A command that finishes in time is not disturbed.
cexec testhost --timeout 30 -- sh -c 'exit 3'
expect_status $? 3 "fast command under a timeout"

# SIGTERM to clawssh stops the remote side too.
for sig in TERM INT HUP; do
	rm -f "$T/pid" "$T/child"
	"$CLAWSSH" exec -F "$T/ssh_config" testhost -- sh -c \
	    "sleep 300 & echo \$! > '$T/child'; echo \$\$ > '$T/pid'; wait" &
	cpid=$!
	i=0
	while [ ! -s "$T/child" ] && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -$sig $cpid
	wait $cpid
	status=$?
	case $sig in
	TERM) want=143 ;;
	INT) want=130 ;;
	HUP) want=129 ;;
	esac
	expect_status $status $want "clawssh killed by SIG$sig"
	gone "$T/pid" || fail "remote command survived SIG$sig"
	gone "$T/child" || fail "remote child survived SIG$sig"
done
exit 0
