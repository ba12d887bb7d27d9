#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Cut connections: rounds of a seeded loop (FAULT_SEED, printed; FAULT_ROUNDS)
# cut the SSH connection (tests/helpers/cut_relay as the ProxyCommand) at a
# random offset of a push, an exec or a pull, in remote mode (sync push /
# sync pull) and mirror mode (exec), directly and through the daemon.
# After each cut: no local file is torn or lost, the host's file is its old
# or its new version (never a partial one), a pull after a cut push does
# not bring a partial file down, and one clean sync converges.
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

: "${CUT_RELAY:?CUT_RELAY must name tests/helpers/cut_relay}"
SEED=${FAULT_SEED:-20261203}
ROUNDS=${FAULT_ROUNDS:-36}
echo "fault_cut: seed $SEED, $ROUNDS rounds"

CLAWSSH_STATE_DIR="$T/state"
CUT_FILE="$T/cut.order"
CUT_LOG="$T/cut.log"
export CLAWSSH_STATE_DIR CUT_FILE CUT_LOG
: > "$CUT_LOG"
cat >> "$T/ssh_config" <<CONF
Host cuthost
    HostName 127.0.0.1
    Port $PORT
    User $TEST_USER
    IdentityFile $T/id_ed25519
    IdentitiesOnly yes
    UserKnownHostsFile $T/known_hosts
    GlobalKnownHostsFile none
    StrictHostKeyChecking yes
    ProxyCommand $CUT_RELAY 127.0.0.1 %p
CONF

R="$T/root"
WR="$T/ws-remote"
WM="$T/ws-mirror"
for w in "$WR" "$WM"; do
	mkdir -p "$w/src/sub"
	echo small > "$w/src/a.txt"
	echo deeper > "$w/src/sub/b.txt"
	head -c 1048576 /dev/urandom > "$w/big"
done
c() {
	timeout 60 "$CLAWSSH" "$@"
}
daemon=0
# csync push|pull ARGS..., cexe ARGS...: directly, or through the daemon
# once it runs.
csync() {
	_d=$1
	shift
	if [ "$daemon" -eq 0 ]; then
		c sync "$_d" --no-daemon "$@"
	else
		c sync "$_d" "$@"
	fi
}
cexe() {
	if [ "$daemon" -eq 0 ]; then
		c exec --no-daemon "$@"
	else
		c exec "$@"
	fi
}
idr=$(c provision -F "$T/ssh_config" --host cuthost --key r --mode remote \
    --remote-root "$R" --workspace "$WR") || fail "provision remote"
idm=$(c provision -F "$T/ssh_config" --host cuthost --key m \
    --remote-root "$R" --workspace "$WM") || fail "provision mirror"
c exec -s "$idm" -- true 2>/dev/null || fail "first mirror exec"

# A seeded generator: r holds the state, rnd N sets v to 0..N-1.
r=$SEED
rnd() {
	r=$(( (r * 1103515245 + 12345) % 2147483648 ))
	v=$(( (r / 65536) % $1 ))
}
# rndbig N: v to 0..N-1 for N up to 2^30 (two draws).
rndbig() {
	rnd 32768
	_hi=$v
	rnd 32768
	v=$(( (_hi * 32768 + v) % $1 ))
}

# sums DIR: every file's checksum, clawssh's temporaries left out.
sums() {
	(cd "$1" && find . -type f ! -path '*/.clawssh-tmp-*' \
	    -exec sha256sum {} + | sort)
}

# one_of FILE WHAT SUM...: FILE's checksum is one of SUM...
one_of() {
	_f=$1
	_what=$2
	shift 2
	_s=$(sha256sum < "$_f" 2>/dev/null | cut -d' ' -f1)
	for _ok in "$@"; do
		[ "$_s" = "$_ok" ] && return 0
	done
	lib_case_fail "round $round: $_what: $_f is torn ($(wc -c < "$_f") bytes)"
	losses=$((losses + 1))
}

sum1() {
	sha256sum < "$1" | cut -d' ' -f1
}

# order N DIR: cut the next connection to move bytes, N bytes on.
order() {
	printf '%s %s close\n' "$1" "$2" > "$CUT_FILE"
}

# settle: no order left for the clean sync, the host's stages gone.
settle() {
	rm -f "$CUT_FILE"
	_i=0
	while [ $_i -lt 50 ] && ls -d "$R"/*/workspace/.clawssh-tmp-push.* \
	    >/dev/null 2>&1; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# retry CMD...: a clean sync, tried three times (an order a pooled
# session took late may still cut one).
retry() {
	_i=0
	while [ $_i -lt 3 ]; do
		"$@" >/dev/null 2>>"$T/retry.err" && return 0
		_i=$((_i + 1))
	done
	lib_case_fail "round $round: clean sync failed: $*"
	return 1
}

# A new random file of 256 KiB to 2 MiB.
newbig() {
	rnd 8
	head -c $(( (v + 1) * 262144 )) /dev/urandom > "$1"
}

# The remote-mode push: cut it, check both sides, pull (must bring back
# nothing partial), converge.
round_push() {
	RW="$R/$idr/workspace"
	hold=$(sum1 "$RW/big")
	newbig "$WR/big"
	lnew=$(sum1 "$WR/big")
	rndbig "$(wc -c < "$WR/big")"
	order "$v" up
	csync push "$idr" >/dev/null 2>&1
	one_of "$RW/big" "host after a cut push" "$hold" "$lnew"
	rm -f "$CUT_FILE"
	retry csync pull "$idr"
	# the host's whole file (old or new) or the local one, never a part
	one_of "$WR/big" "local after the pull" "$hold" "$lnew"
	settle
	retry csync push "$idr"
	[ "$(sums "$WR")" = "$(sums "$RW")" ] ||
	    lib_case_fail "round $round: push did not converge"
}

# The remote-mode pull: the host's file changes, the pull is cut.
round_pull() {
	RW="$R/$idr/workspace"
	lold=$(sum1 "$WR/big")
	newbig "$T/new"
	cexe -s "$idr" -- sh -c 'cat > big.new && mv big.new big' \
	    < "$T/new" 2>/dev/null || fail "round $round: host change"
	hnew=$(sum1 "$T/new")
	rndbig "$(wc -c < "$T/new")"
	order "$v" down
	csync pull "$idr" >/dev/null 2>&1
	one_of "$WR/big" "local after a cut pull" "$lold" "$hnew"
	settle
	retry csync pull "$idr"
	[ "$(sums "$WR")" = "$(sums "$R/$idr/workspace")" ] ||
	    lib_case_fail "round $round: pull did not converge"
}

# Mirror mode: a local change goes up (cut), or the command's change
# comes down (cut); either way one clean exec converges.
round_exec() {
	RW="$R/$idm/workspace"
	lold=$(sum1 "$WM/big")
	hold=$(sum1 "$RW/big")
	rnd 2
	if [ "$v" -eq 0 ]; then
		newbig "$WM/big"
		lnew=$(sum1 "$WM/big")
		rndbig "$(wc -c < "$WM/big")"
		order "$v" up
		cexe -s "$idm" -- true >/dev/null 2>&1
		one_of "$RW/big" "host after a cut mirror push" "$hold" "$lnew"
		one_of "$WM/big" "local after a cut mirror push" "$lnew"
	else
		newbig "$T/new"
		cp "$T/new" "$RW/incoming"
		hnew=$(sum1 "$T/new")
		rndbig "$(wc -c < "$T/new")"
		order "$v" down
		cexe -s "$idm" -- sh -c 'mv incoming big' >/dev/null 2>&1
		one_of "$WM/big" "local after a cut mirror pull" "$lold" "$hnew"
	fi
	settle
	retry cexe -s "$idm" -- true
	[ "$(sums "$WM")" = "$(sums "$RW")" ] ||
	    lib_case_fail "round $round: mirror did not converge"
}

case_cuts() {
	losses=0
	np=0 nx=0 nl=0 dd=0 rp=0 rl=0 rx=0
	round=0
	while [ $round -lt "$ROUNDS" ]; do
		round=$((round + 1))
		if [ $daemon -eq 0 ] && [ $round -gt $((ROUNDS / 2)) ]; then
			lib_start_daemon "$T/daemon.log"
			daemon=1
		fi
		[ $daemon -eq 1 ] && dd=$((dd + 1))
		cuts=$(grep -c '^cut' "$CUT_LOG")
		case $((round % 3)) in
		0) round_push; what=push; rp=$((rp + 1)) ;;
		1) round_pull; what=pull; rl=$((rl + 1)) ;;
		*) round_exec; what="exec"; rx=$((rx + 1)) ;;
		esac
		if [ "$(grep -c '^cut' "$CUT_LOG")" -gt "$cuts" ]; then
			case $what in
			push) np=$((np + 1)) ;;
			pull) nl=$((nl + 1)) ;;
			*) nx=$((nx + 1)) ;;
			esac
		fi
	done
	echo "fault_cut: seed $SEED: $round rounds ($dd through the daemon);" \
	    "cut/rounds: push $np/$rp, pull $nl/$rl, exec $nx/$rx; losses $losses"
	[ $((np + nl + nx)) -gt $((ROUNDS / 3)) ] ||
	    lib_case_fail "too few rounds were cut: $((np + nl + nx))"
	[ "$losses" -eq 0 ] || lib_case_fail "$losses losses"
	[ -z "$(find "$WR" "$WM" -name '.clawssh-tmp-*')" ] ||
	    lib_case_fail "temporaries left in the local workspaces"
	# a cut ends a jailed push's shell outright: its stage stays until
	# the next push or pull (one still ending holds its lock: again)
	_k=0
	while [ $_k -lt 10 ]; do
		retry csync pull "$idr"
		retry csync pull "$idm"
		left=$(find "$R/$idr/workspace" "$R/$idm/workspace" \
		    -maxdepth 1 -name '.clawssh-tmp-push.*')
		[ -z "$left" ] && break
		sleep 1
		_k=$((_k + 1))
	done
	[ -z "$left" ] || lib_case_fail "stages left on the host after" \
	    "pulls: $(ls -la "$R"/*/workspace/.clawssh-tmp-push.* 2>&1)"
}

# hung PID: wait (10 s at most) until the relay holds a connection hung.
hung() {
	_i=0
	while [ $_i -lt 100 ] && ! grep -q '^cut' "$CUT_LOG.hang" \
	    2>/dev/null; do
		sleep 0.1
		_i=$((_i + 1))
	done
	kill -0 "$1" 2>/dev/null || lib_case_fail "the pull ended before the hang"
}

# whole DIR: every file in DIR is the host's copy (or absent), and no
# temporary is left.
whole() {
	for _f in "$1"/f*; do
		[ -e "$_f" ] || continue
		cmp -s "$_f" "$R/$idr/workspace/${_f##*/}" ||
		    lib_case_fail "$2: ${_f##*/} is torn"
	done
	[ -z "$(find "$1" -name '.clawssh-tmp-*')" ] ||
	    lib_case_fail "$2: temporaries left: $(ls -a "$1")"
}

# A pull that hangs (the relay black-holes it) is stopped by SIGTERM or
# SIGINT: at once, exit 143 or 130, no blaming the host, local files
# whole, no temporary left; early (in the handshake) and in the data.
case_interrupt() {
	# shellcheck disable=SC2016 # the host's sh expands it
	c exec --no-daemon -s "$idr" -- sh -c 'for i in 1 2 3 4; do
	    head -c 8388608 /dev/urandom > f$i; done' || fail "host files"
	for how in "TERM 143 3000" "INT 130 3000" "TERM 143 12000000" \
	    "INT 130 20000000"; do
		# shellcheck disable=SC2086 # three words
		set -- $how
		rm -f "$WR"/f* "$CUT_LOG.hang"
		printf '%s down hang\n' "$3" > "$CUT_FILE"
		CUT_LOG="$CUT_LOG.hang" "$CLAWSSH" sync pull --no-daemon \
		    "$idr" 2>"$T/int.err" &
		p=$!
		hung "$p"
		kill -"$1" "$p"
		# a bound, not a measure: an interrupt that is ignored
		# would wait for the hung connection for ever
		_i=0
		while [ $_i -lt 300 ] && kill -0 "$p" 2>/dev/null; do
			sleep 0.1
			_i=$((_i + 1))
		done
		kill -KILL "$p" 2>/dev/null
		wait "$p"
		st=$?
		[ "$st" -eq "$2" ] ||
		    lib_case_fail "SIG$1 at $3: exit $st, not $2: $(cat "$T/int.err")"
		grep -q "remote tar failed" "$T/int.err" &&
		    lib_case_fail "SIG$1 at $3 blamed the host: $(cat "$T/int.err")"
		whole "$WR" "SIG$1 at $3"
	done
	rm -f "$CUT_FILE"
}

# A pull killed outright (SIGKILL, both processes) leaves a temporary
# file; the next pull removes it.
case_killed() {
	rm -f "$WR"/f* "$CUT_LOG.hang"
	printf '12000000 down hang\n' > "$CUT_FILE"
	CUT_LOG="$CUT_LOG.hang" "$CLAWSSH" sync pull --no-daemon "$idr" \
	    2>/dev/null &
	p=$!
	hung "$p"
	kids=$(pgrep -P "$p" | tr '\n' ' ')
	# shellcheck disable=SC2086 # the child pids
	kill -KILL "$p" $kids
	wait "$p"
	# Killed between two files (or its writer saw the end first and
	# dropped its file), a pull leaves nothing: plant what one leaves.
	if [ -z "$(find "$WR" -name '.clawssh-tmp-*')" ]; then
		echo "the kill left no temporary: planting one" >&2
		head -c 4096 /dev/urandom > "$WR/.clawssh-tmp-0123456789abcdef"
		touch -d '10 seconds ago' "$WR/.clawssh-tmp-0123456789abcdef"
	fi
	sleep 3		# the sweep leaves what was touched in the last 2 s
	rm -f "$CUT_FILE"
	c sync pull --no-daemon "$idr" 2> "$T/killed.err" ||
	    lib_case_fail "the pull after a killed one: $(cat "$T/killed.err")"
	whole "$WR" "after a killed pull"
}

# The staged push keeps the modes of directories the stream did not hold
# (the parents of what it sent) and sets those of the ones it held.
case_modes() {
	RW="$R/$idr/workspace"
	mkdir -p "$WR/d/e"
	chmod 750 "$WR/d"
	echo one > "$WR/d/e/f"
	c sync push --no-daemon "$idr" d 2>/dev/null || lib_case_fail "push d"
	[ "$(stat -c %a "$RW/d")" = 750 ] || lib_case_fail "d not 750 on the host"
	chmod 700 "$RW/d"
	echo two > "$WR/d/e/f"
	c sync push --no-daemon "$idr" d/e/f 2>/dev/null ||
	    lib_case_fail "push d/e/f"
	[ "$(cat "$RW/d/e/f")" = two ] || lib_case_fail "d/e/f not sent"
	[ "$(stat -c %a "$RW/d")" = 700 ] ||
	    lib_case_fail "a parent the push did not hold changed mode: $(stat -c %a "$RW/d")"
	c sync push --no-daemon "$idr" d 2>/dev/null || lib_case_fail "push d"
	[ "$(stat -c %a "$RW/d")" = 750 ] ||
	    lib_case_fail "a directory the push held kept its old mode"
}

lib_run_cases "${FAULT_CASES:-cuts interrupt killed modes}"
