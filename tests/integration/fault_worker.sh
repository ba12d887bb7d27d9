#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A tool call's worker ends when its daemon goes away, and never spins on
# a dead control socket.  A seeded (FAULT_SEED, default 22), bounded loop
# over call kinds x daemon exit ways: a JSON-RPC client starts an exec
# call (a quiet loop; a flood of output read at once; a flood its client
# does not read, so the worker's control socket fills up), leaves it, and
# within a second the daemon ends (SIGKILL, SIGTERM, or its idle exit).
# Then no worker may remain (polled, 10 s at most), and no worker may
# have used more than WORKER_CPU_MAX (50) clock ticks of CPU time after
# the daemon was told to end.  Run it also with LIB_SSH_USER=clawssh-test.
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

SEED=${FAULT_SEED:-22}
KINDS=${FAULT_KINDS-loop flood slow}
WAYS=${FAULT_WAYS-kill term idle}
CPU_MAX=${WORKER_CPU_MAX:-50}
M="$T/marks"
mkdir -p "$M" "$T/ws" "$T/root" "$XDG_CONFIG_HOME/clawssh"
chmod 777 "$M"
[ -n "${LIB_SSH_USER:-}" ] && chown "$LIB_SSH_USER" "$T/root"
LOOP="$T/loop.sh"
FLOOD="$T/flood.sh"
cat > "$LOOP" <<'SH'
while :; do echo x >> "$1"; sleep 0.1; done
SH
cat > "$FLOOD" <<'SH'
echo x >> "$1"; echo x >> "$1"; echo x >> "$1"
while :; do echo x >> "$1"; head -c 1048576 /dev/zero | tr '\0' y; done
SH
chmod 644 "$LOOP" "$FLOOD"
printf '{ "sandbox": { "remoteRoot": "%s" }, "daemon": { "idleTimeout": 1 } }\n' \
    "$T/root" > "$XDG_CONFIG_HOME/clawssh/config.json"

# workers TAG: the pids of TAG's workers (clawssh exec ... TAG).
workers() {
	pgrep -f "clawssh exec.*$M/$1\$" || :
}

# cpu PID: its user + system clock ticks, or nothing once it is gone.
cpu() {
	sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null |
	    awk '{ print $12 + $13 }'
}

# marks TAG: how many lines TAG's command has written.
marks() {
	if [ -f "$M/$1" ]; then wc -l < "$M/$1"; else echo 0; fi
}

# start_call TAG KIND: a client on the daemon starts an exec call of
# KIND; NCPID is the client, WPID its worker.
start_call() {
	_script=$LOOP
	[ "$2" = loop ] || _script=$FLOOD
	rm -f "$T/rpc.in" "$T/rpc.out"
	mkfifo "$T/rpc.in" "$T/rpc.out"
	if [ "$2" = slow ]; then
		# nobody reads the client's output: it stops reading the daemon
		exec 5<> "$T/rpc.out"
		nc -U "$D" < "$T/rpc.in" > "$T/rpc.out" &
	else
		nc -U "$D" < "$T/rpc.in" > /dev/null &
	fi
	NCPID=$!
	exec 4> "$T/rpc.in"
	printf '{"jsonrpc":"2.0","id":1,"method":"exec","params":{"sandbox":"%s","argv":["sh","%s","%s"]}}\n' \
	    "$SBX" "$_script" "$M/$1" >&4
	_i=0
	while [ "$(marks "$1")" -lt 3 ] && [ $_i -lt 150 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	WPID=$(workers "$1" | head -n 1)
	[ -n "$WPID" ] || fail "$1: no worker seen: $(cat "$T/daemon.log")"
}

# end_daemon TAG WAY DELAY: the client leaves; DELAY s later the daemon
# ends WAY (and is waited for, 15 s at most).
end_daemon() {
	kill -KILL "$NCPID"
	wait "$NCPID" 2>/dev/null
	exec 4>&- 5>&-
	sleep "$3"
	T0=$(cpu "$WPID")
	T0=${T0:-0}
	LAST=$T0
	# shellcheck disable=SC2153 # DPID: set by lib_start_daemon
	case $2 in
	kill)	kill -KILL "$DPID" ;;
	term)	kill -TERM "$DPID" ;;
	idle)	: ;;
	esac
	_i=0
	while kill -0 "$DPID" 2>/dev/null && [ $_i -lt 150 ]; do
		track
		sleep 0.1
		_i=$((_i + 1))
	done
	kill -0 "$DPID" 2>/dev/null && fail "$1: the daemon did not end ($2)"
	wait "$DPID" 2>/dev/null
}

# track: LAST is the worker's CPU ticks as last seen.
track() {
	_now=$(cpu "$WPID")
	[ -n "$_now" ] && LAST=$_now
	:
}

# check TAG: within 10 s no worker of TAG remains, and it used no more
# than CPU_MAX ticks since its daemon was told to end.
check() {
	_i=0
	track
	while [ -n "$(workers "$1")" ] && [ $_i -lt 100 ]; do
		track
		sleep 0.1
		_i=$((_i + 1))
	done
	_left=$(workers "$1")
	if [ -n "$_left" ]; then
		# shellcheck disable=SC2086 # a list of pids
		_ps=$(ps -o pid,stat,pcpu,time,cmd -p "$(echo $_left |
		    tr ' ' ,)")
		# shellcheck disable=SC2086
		kill -KILL $_left 2>/dev/null
		fail "$1: a worker stayed behind its daemon for 10 s: $_ps"
	fi
	[ $((LAST - T0)) -le "$CPU_MAX" ] ||
	    fail "$1: the worker spun: $((LAST - T0)) ticks of CPU after" \
	    "its daemon was told to end"
	echo "fault_worker: $1: worker gone $((_i * 100)) ms after the" \
	    "daemon or less, $((LAST - T0)) ticks of CPU since"
}

lib_start_daemon "$T/daemon.log"
SBX=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key fk \
    --workspace "$T/ws" --runtime none 2>"$T/prov.err") ||
    fail "provision: $(cat "$T/prov.err")"
kill -TERM "$DPID"
wait "$DPID" 2>/dev/null

plan=$(awk -v seed="$SEED" -v kinds="$KINDS" -v ways="$WAYS" '
BEGIN { srand(seed)
	nk = split(kinds, k, " "); nw = split(ways, w, " ")
	for (i = 1; i <= nk; i++)
		for (j = 1; j <= nw; j++)
			p[++n] = k[i] " " w[j]
	for (i = n; i > 1; i--) {
		j = int(rand() * i) + 1; t = p[i]; p[i] = p[j]; p[j] = t
	}
	for (i = 1; i <= n; i++)
		printf "%s 0.%d\n", p[i], int(rand() * 10)
}')
echo "fault_worker: seed $SEED"
k=0
while read -r kind way delay <&3; do
	[ -n "$kind" ] || continue
	k=$((k + 1))
	tag="$kind-$way-$k"
	rm -f "$D"	# a SIGKILLed daemon leaves its socket behind
	lib_start_daemon "$T/daemon.log"
	start_call "$tag" "$kind"
	end_daemon "$tag" "$way" "$delay"
	check "$tag"
	pkill -f "$M/$tag" 2>/dev/null || :
done 3<<PLAN
$plan
PLAN
exit 0
