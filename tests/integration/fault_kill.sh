#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# shellcheck disable=SC2317 # (the fault_* functions are called by name)
# Faults lose nothing: a long remote command (it appends a line to a
# marker every 100 ms) whose caller goes away is stopped, within a bound,
# with nothing of it left behind, and the next exec works.  The faults, in
# an order and after delays drawn from a fixed seed (FAULT_SEED, default
# 22; FAULT_ROUNDS rounds, default 1): the direct client SIGKILLed, the
# daemon SIGKILLed under a client, sshd killed and restarted, the
# connection cut (a ProxyCommand relay killed).  Then a tool call whose
# client left, with the daemon ending right after: no worker remains.
# Prints one figure line per fault.  Run it also with
# LIB_SSH_USER=clawssh-test.
. "$TESTLIB"

SEED=${FAULT_SEED:-22}
ROUNDS=${FAULT_ROUNDS:-1}
FAULTS=${FAULT_LIST-client daemon sshd cut}	# a subset, to look at one
BOUND_DS=100		# the remote command must be gone within 10 s
M="$T/marks"
mkdir -p "$M"
chmod 777 "$M"
LOOP="$T/loop.sh"
cat > "$LOOP" <<'EOF'
while :; do echo x >> "$1"; sleep 0.1; done
EOF
chmod 644 "$LOOP"
D="$T/run/clawssh/control.sock"

# running TAG: whether a process of the remote command (or its wrapper)
# for TAG still runs.
running() {
	pgrep -f "$LOOP $M/$1" > /dev/null
}

# marks TAG: how many lines TAG's command has written.
marks() {
	if [ -f "$M/$1" ]; then wc -l < "$M/$1"; else echo 0; fi
}

# wait_marks TAG: wait (up to 10 s) until TAG's command has written marks.
wait_marks() {
	_i=0
	while [ "$(marks "$1")" -lt 3 ] &&
	    [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ $_i -lt 100 ] || fail "$1: the remote command did not start"
}

# gone_within TAG: poll until nothing of TAG runs; print the time taken in
# ms, or fail past the bound.
gone_within() {
	_t0=$(date +%s%3N)
	_i=0
	while running "$1" && [ $_i -lt $BOUND_DS ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	running "$1" && fail "$1: remote command still running after" \
	    "$((BOUND_DS / 10)) s: $(pgrep -af "$LOOP $M/$1")"
	echo $(( $(date +%s%3N) - _t0 ))
}

# settled TAG: the marker no longer grows once the command is gone.
settled() {
	_n=$(wc -l < "$M/$1")
	sleep 0.3
	expect_eq "$(wc -l < "$M/$1")" "$_n" "$1: marker still growing"
}

# next_works: a following exec works (directly and through a daemon).
next_works() {
	expect_eq "$(cexec testhost -- echo ok 2>/dev/null < /dev/null)" ok \
	    "$1: next exec"
}

fault_client() {
	"$CLAWSSH" exec --no-daemon -F "$T/ssh_config" testhost -- \
	    sh "$LOOP" "$M/$1" &
	_p=$!
	wait_marks "$1"
	sleep "$2"
	kill -KILL "$_p"
	wait "$_p" 2>/dev/null
	return 0
}

fault_daemon() {
	lib_start_daemon "$T/daemon-$1.log"
	CLAWSSH_DAEMON_SOCKET=$D "$CLAWSSH" exec -F "$T/ssh_config" \
	    testhost -- sh "$LOOP" "$M/$1" 2>"$T/err-$1" &
	_p=$!
	wait_marks "$1"
	sleep "$2"
	kill -KILL "$DPID"
	wait "$DPID" 2>/dev/null
	wait "$_p"
	expect_status $? 255 "$1: client of a killed daemon"
	rm -f "$D"
}

# Every sshd process of this test: the listener and each connection's.
sshd_tree() {
	_pids=$SSHD_PID
	_new=$SSHD_PID
	while [ -n "$_new" ]; do
		_next=
		for _q in $_new; do
			for _c in $(pgrep -P "$_q"); do
				case $(cat "/proc/$_c/comm" 2>/dev/null) in
				sshd*) _next="$_next $_c" ;;
				esac
			done
		done
		_pids="$_pids $_next"
		_new=$_next
	done
	echo "$_pids"
}

fault_sshd() {
	"$CLAWSSH" exec --no-daemon -F "$T/ssh_config" testhost -- \
	    sh "$LOOP" "$M/$1" 2>"$T/err-$1" &
	_p=$!
	wait_marks "$1"
	sleep "$2"
	# shellcheck disable=SC2046
	kill -TERM $(sshd_tree) 2>/dev/null
	wait "$SSHD_PID" 2>/dev/null
	wait "$_p"
	expect_status $? 255 "$1: client of a killed sshd"
	start_sshd
}

fault_cut() {
	"$CLAWSSH" exec --no-daemon -F "$T/ssh_config" \
	    -o "ProxyCommand=nc 127.0.0.1 %p" testhost -- \
	    sh "$LOOP" "$M/$1" 2>"$T/err-$1" &
	_p=$!
	wait_marks "$1"
	sleep "$2"
	pkill -KILL -f "^nc 127.0.0.1 $PORT\$"
	wait "$_p"
	expect_status $? 255 "$1: client of a cut connection"
}

# The faults in the seed's order, each with a delay of 0 to 0.9 s.
plan=$(awk -v seed="$SEED" -v rounds="$ROUNDS" -v faults="$FAULTS" '
BEGIN { srand(seed)
	n = split(faults, f, " ")
	for (r = 0; r < rounds; r++) {
		for (i = n; i > 1; i--) {
			j = int(rand() * i) + 1; t = f[i]; f[i] = f[j]; f[j] = t
		}
		for (i = 1; i <= n; i++)
			printf "%s 0.%d\n", f[i], int(rand() * 10)
	}
}')
k=0
echo "fault_kill: seed $SEED, $ROUNDS round(s), bound $((BOUND_DS / 10)) s"
while read -r fault delay <&3; do
	[ -n "$fault" ] || continue
	k=$((k + 1))
	tag="$fault-$k"
	"fault_$fault" "$tag" "$delay" || exit 1
	ms=$(gone_within "$tag") || exit 1
	settled "$tag"
	next_works "$tag"
	echo "fault_kill: $fault (after $delay s): remote command gone in" \
	    "$ms ms, $(wc -l < "$M/$tag") marks"
done 3<<EOF
$plan
EOF

# A tool call whose client leaves, the daemon ending right after: its
# worker does not stay behind (spinning), nor does its remote command.
lib_start_daemon "$T/daemon-rpc.log"
mkdir -p "$T/ws" "$T/root" "$XDG_CONFIG_HOME/clawssh"
[ -n "${LIB_SSH_USER:-}" ] && chown "$LIB_SSH_USER" "$T/root"
printf '{ "sandbox": { "remoteRoot": "%s" } }\n' "$T/root" \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key fk \
    --workspace "$T/ws" --runtime none 2>"$T/prov.err") ||
    fail "provision: $(cat "$T/prov.err")"
mkfifo "$T/rpc.in"
nc -U "$D" < "$T/rpc.in" > /dev/null &
NCPID=$!
exec 4> "$T/rpc.in"
printf '{"jsonrpc":"2.0","id":1,"method":"exec","params":{"sandbox":"%s","argv":["sh","%s","%s"]}}\n' \
    "$id" "$LOOP" "$M/rpc" >&4
wait_marks rpc
pgrep -f "clawssh exec.*$M/rpc" > /dev/null || fail "no worker seen"
kill -KILL "$NCPID"
wait "$NCPID" 2>/dev/null
exec 4>&-
kill -KILL "$DPID"
wait "$DPID" 2>/dev/null
ms=$(gone_within rpc) || exit 1
_i=0
while pgrep -f "clawssh exec.*$M/rpc" > /dev/null && [ $_i -lt 100 ]; do
	sleep 0.1
	_i=$((_i + 1))
done
pgrep -f "clawssh exec.*$M/rpc" > /dev/null &&
    fail "a worker stayed behind its daemon: $(pgrep -af "clawssh exec")"
echo "fault_kill: daemon ended after its client left a call: worker gone" \
    "in $((_i * 100)) ms or less, remote command in $ms ms"
exit 0
