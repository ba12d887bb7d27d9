#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The sync state kept as a manifest plus a log (sync/syncstate.c): a
# seeded run of random changes on both sides, each exec through the
# daemon looking only at the changed paths, and after each one the two
# workspaces agree and `clawssh sync status` (a whole scan and listing
# against the saved state) finds nothing to move.  Then a log cut short
# and a daemon restart: whole syncs, still right; so are execs run two
# at a time.
. "$TESTLIB"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
ROUNDS=40
mkdir -p "$W/d0/d1" "$W/d2"
echo seed > "$W/d0/d1/f0"
echo seed > "$W/top"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key st \
    --remote-root "$R" --workspace "$W")
RW="$R/$id/workspace"
LOGF="$T/state/manifests/$id.manifest.log"
x() {
	"$CLAWSSH" exec -v -s "$id" "$@" 2>"$T/err"
}

# A seeded generator: r holds the state, rnd N sets v to 0..N-1.
r=20261203
rnd() {
	r=$(( (r * 1103515245 + 12345) % 2147483648 ))
	v=$(( (r / 65536) % $1 ))
}

# A random path under prefix $1: 0 to 2 directories deep.
rpath() {
	rnd 3
	case $v in
	0) rnd 4; p="$1$v" ;;
	1) rnd 3; p="$1d$v"; rnd 4; p="$p/f$v" ;;
	*) rnd 3; p="$1d$v"; rnd 2; p="$p/s$v"; rnd 4; p="$p/f$v" ;;
	esac
}

# Print N random shell operations on names starting with $2.
ops() {
	_n=$1
	while [ "$_n" -gt 0 ]; do
		_n=$((_n - 1))
		rpath "$2"
		rnd 8
		case $v in
		0|1) echo "mkdir -p \"\$(dirname '$p')\" && rm -rf '$p' &&
			echo $r > '$p'" ;;
		2) echo "rm -rf '$p'" ;;
		3) echo "rm -rf \"\$(dirname '$p')\"" ;;
		4) echo "[ -f '$p' ] && chmod 600 '$p'" ;;
		5) echo "[ -e '$p' ] && mv '$p' '$p.moved'" ;;
		6) echo "mkdir -p \"\$(dirname '$p')\" && rm -rf '$p' &&
			mkdir '$p' && echo in > '$p/x y'" ;;
		*) echo "mkdir -p \"\$(dirname '$p')\" && rm -rf '$p' &&
			ln -s 't a r g e t' '$p'" ;;
		esac
	done
	echo true
}

# What a tree holds: type, mode, size, path, link target (no times).
tree() {
	(cd "$1" && find . -mindepth 1 -printf '%y %m %s %p %l\n' | sort)
}

# Both workspaces agree, and the saved state says nothing is to move.
check() {
	tree "$W" > "$T/local.txt"
	tree "$RW" > "$T/remote.txt"
	diff "$T/local.txt" "$T/remote.txt" > "$T/diff.txt" ||
	    fail "$1: workspaces differ: $(head -20 "$T/diff.txt")"
	"$CLAWSSH" sync status "$id" > "$T/status.txt" 2>&1 ||
	    fail "$1: sync status: $(cat "$T/status.txt")"
	expect_eq "$(cat "$T/status.txt")" "up (local changes):
down (sandbox changes):" "$1: the saved state matches both trees"
}

lib_start_daemon "$T/daemon.log"
x -- true || fail "first exec: $(cat "$T/err")"
x -- true || fail "second exec: $(cat "$T/err")"
check "start"

i=0
partial=0
while [ $i -lt $ROUNDS ]; do
	i=$((i + 1))
	# Odd rounds change both sides on names of their own (no
	# conflicts); even rounds change names the other side made.
	rnd 4
	if [ $((i % 2)) -eq 1 ]; then
		(cd "$W" && ops $((v + 1)) l > "$T/local.sh" &&
		    sh "$T/local.sh" 2>/dev/null)
		rnd 4
		ops $((v + 1)) r > "$T/remote.sh"
	else
		(cd "$W" && ops $((v + 1)) r > "$T/local.sh" &&
		    sh "$T/local.sh" 2>/dev/null)
		ops 0 r > "$T/remote.sh"
		rnd 4
		ops $((v + 1)) l > "$T/remote.sh"
	fi
	x -- sh -c "$(cat "$T/remote.sh") 2>/dev/null; true" ||
	    fail "round $i: $(cat "$T/err")"
	grep -q "conflict:" "$T/err" && fail "round $i: conflict: $(cat "$T/err")"
	if grep -q "change journal: [0-9]* changed paths, no scan" "$T/err" &&
	    ! grep -q "syncing the whole\|scanning the workspace\|listing the sandbox\|listing it whole\|saving the whole" \
	    "$T/err"; then
		partial=$((partial + 1))
	fi
	check "round $i"
done
# Most rounds read and wrote only the changed paths.
[ $partial -ge $((ROUNDS * 3 / 4)) ] ||
    fail "only $partial of $ROUNDS rounds synced the changed paths alone"
[ -s "$LOGF" ] || fail "no sync state log"

# Two execs on the sandbox at once, five times: each takes its own
# changes; where one rewrote the state under the other, the next sync
# scans everything.  After one more exec all agrees again.
j=0
while [ $j -lt 5 ]; do
	j=$((j + 1))
	echo "p$j" > "$W/d0/par$j"
	"$CLAWSSH" exec -s "$id" -- sh -c "echo a$j > ra$j; sleep 0.2" \
	    2>"$T/pa.err" &
	pa=$!
	"$CLAWSSH" exec -s "$id" -- sh -c "echo b$j > rb$j; rm -f ra$((j - 1))" \
	    2>"$T/pb.err" || fail "parallel exec b$j: $(cat "$T/pb.err")"
	wait $pa || fail "parallel exec a$j: $(cat "$T/pa.err")"
done
x -- true || fail "exec after the parallel ones: $(cat "$T/err")"
x -- true || fail "second exec after the parallel ones: $(cat "$T/err")"
check "after parallel execs"

# A log cut short: the state is usable whole only; a full sync, right.
echo before-cut > "$W/d0/cut0.txt"
x -- true || fail "exec before the cut: $(cat "$T/err")"
[ -s "$LOGF" ] || fail "no sync state log before the cut"
head -c $(( $(wc -c < "$LOGF") - 3 )) "$LOGF" > "$T/cut" &&
    cat "$T/cut" > "$LOGF"
echo after-cut > "$W/d0/cut.txt"
x -- sh -c 'echo remote > rcut.txt' || fail "exec after cut: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "line [0-9]*: cut short: scanning" \
    "cut log: scanned"
expect_eq "$(cat "$W/rcut.txt")" remote "cut log: the command's file came down"
[ -e "$LOGF" ] && fail "cut log: not replaced by a whole manifest"
check "after the cut log"

# A new daemon (a fresh journal): a full sync first, then partial again.
kill "$DPID"
wait "$DPID" 2>/dev/null
lib_start_daemon "$T/daemon2.log"
echo again > "$W/top"
x -- true || fail "exec, new daemon: $(cat "$T/err")"
check "new daemon"
echo more > "$W/top"
x -- true || fail "exec 2, new daemon: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "change journal: 1 changed paths, no scan" \
    "new daemon: partial again"
check "new daemon, partial"
exit 0
