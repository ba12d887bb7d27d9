#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Damaged sync state files lose nothing (issue 22, items 2 and 11).
# First the issue's reproduction: a whole manifest with X, X deleted
# through the daemon (a block in the log), the log's tail lost (cut,
# zeroed as by a full disk, a flipped bit), X made again with the same
# content; the next exec, through the daemon and without it, sends X up
# and keeps the local X.  Then a seeded, bounded run of damages to the
# manifest and the log (cut at random offsets, random bits flipped,
# garbage, empty, another version), each followed by a mirrored exec:
# no file of either side is lost, no manual step is needed, the message
# says the state was rebuilt, and the next exec leaves both sides equal.
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

LC_ALL=C
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR LC_ALL
R="$T/root"
W="$T/ws"
ROUNDS=30
mkdir -p "$W/d"
if [ -n "${LIB_SSH_USER:-}" ]; then	# the remoteRoot is the user's own
	mkdir -m 700 "$R" && chown "$LIB_SSH_USER:" "$R"
fi
echo keep > "$W/d/keep"
echo top > "$W/top"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key fs \
    --remote-root "$R" --workspace "$W")
RW="$R/$id/workspace"
MAN="$T/state/manifests/$id.manifest"
LOGF="$MAN.log"
x() {
	"$CLAWSSH" exec -vv -s "$id" "$@" 2>"$T/err"
}
xd() {
	"$CLAWSSH" exec -v --no-daemon -s "$id" "$@" 2>"$T/err"
}

# host SH: run SH as the SSH user (a change made in the sandbox).
host() {
	if [ -n "${LIB_SSH_USER:-}" ]; then
		runuser -u "$LIB_SSH_USER" -- sh -c "$1"
	else
		sh -c "$1"
	fi
}

# A seeded generator: rnd N sets v to 0..N-1.
r=20261203
rnd() {
	r=$(( (r * 1103515245 + 12345) % 2147483648 ))
	v=$(( (r / 65536) % $1 ))
}

# flip FILE OFFSET BIT: flip one bit of FILE in place.
flip() {
	_b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
	_b=$(( _b ^ (1 << $3) ))
	# shellcheck disable=SC2059 # the format is the byte, made here
	printf "$(printf '\\%03o' "$_b")" |
	    dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# cut FILE LEN: keep the first LEN bytes of FILE.
cut_to() {
	head -c "$2" "$1" > "$T/cut.tmp" && cat "$T/cut.tmp" > "$1"
}

# damage_tail HOW FILE: lose the end of FILE's last record.
damage_tail() {
	_n=$(wc -c < "$2")
	case $1 in
	cut) cut_to "$2" $((_n - 4)) ;;
	zero) cut_to "$2" $((_n - 6)) &&
	    head -c 64 /dev/zero >> "$2" ;;
	flip) flip "$2" $((_n - 14)) 2 ;;
	esac
}

# Both sides the same (file contents, links, directories)?
same_sides() {
	diff -r --no-dereference "$W" "$RW" > "$T/diff" 2>&1
}

# The issue's reproduction, one damage, through the daemon ($2 = d)
# or without it ($2 = n).  A failure is counted in $T/repro.bad and
# the next one is tried.
repro() {
	echo "x content" > "$W/X"
	xd -- true || fail "$1/$2: setup: $(cat "$T/err")"
	[ -e "$LOGF" ] && fail "$1/$2: no whole manifest written"
	[ -f "$RW/X" ] || fail "$1/$2: X not up"
	x -- true || fail "$1/$2: warm: $(cat "$T/err")"
	# until the host's watcher answers (an exec can outrun its start)
	_w=0
	until x -- true && grep -q "changed paths, no listing" "$T/err"; do
		_w=$((_w + 1))
		[ "$_w" -lt 50 ] || fail "$1/$2: the watcher never answered:" \
		    "$(cat "$T/err")"
		sleep 0.1
	done
	rm "$W/X"
	x -- true || fail "$1/$2: delete: $(cat "$T/err")"
	[ -e "$RW/X" ] && fail "$1/$2: deletion not sent"
	grep -q "^S X$" "$LOGF" 2>/dev/null ||
	    fail "$1/$2: the deletion is not a block in the log"
	damage_tail "$1" "$LOGF"
	echo "x content" > "$W/X"
	if [ "$2" = d ]; then
		out=$(x -- sh -c 'cat X 2>/dev/null; true')
	else
		out=$(xd -- sh -c 'cat X 2>/dev/null; true')
	fi || { rbad "$1/$2: exec failed: $(cat "$T/err")"; return; }
	[ -f "$W/X" ] || { rbad "$1/$2: the local X was deleted"; return; }
	[ -f "$RW/X" ] || { rbad "$1/$2: X did not go up"; return; }
	expect_eq "$(cat "$W/X")" "x content" "$1/$2: local X"
	expect_eq "$out" "x content" "$1/$2: the command saw X"
	expect_match "$(cat "$T/err")" "sync state damaged" "$1/$2: said"
	x -- true || fail "$1/$2: exec after: $(cat "$T/err")"
	same_sides || fail "$1/$2: sides differ: $(cat "$T/diff")"
}
rbad() {
	echo "FAIL: $*" >&2
	echo "$*" >> "$T/repro.bad"
	rm -f "$W/X" "$MAN" "$LOGF"	# start over (the old way)
	host "rm -f '$RW/X'"
}

lib_start_daemon "$T/daemon.log" -vv	# -vv: a hang shows (tests/timed.sh)
for how in cut zero flip; do
	repro "$how" d
	repro "$how" n
done
[ -s "$T/repro.bad" ] && fail "reproduction: $(wc -l < "$T/repro.bad") of 6 lost X"

# Damaged, with a file that differs on the two sides, one touched only
# here, one only in the sandbox and a directory there where a file is
# here: the exec is refused, nothing changed, until one is renamed;
# then the local file is kept and sent, the sandbox's saved beside it;
# the touched one is no conflict; the sandbox's file comes down.
echo same > "$W/touched"
echo base > "$W/both"
echo file > "$W/kind"
x -- true || fail "conflict: setup: $(cat "$T/err")"
touch -d '2020-01-01' "$W/touched"
echo local > "$W/both"
host "cd '$RW' && echo sandbox > both && echo only-there > there &&
    rm kind && mkdir kind && echo in > kind/f" || fail "conflict: host"
: > "$MAN"
x -- true && fail "conflict: a directory there and a file here: taken"
expect_match "$(cat "$T/err")" "kind is a directory in the sandbox but not here: rename" \
    "conflict: the kinds said"
[ -e "$W/both.clawssh-remote" ] && fail "conflict: refused, but moved"
expect_eq "$(cat "$W/kind")" file "conflict: refused, the local file"
mv "$W/kind" "$W/kind.mine"
x -- true || fail "conflict: exec: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "sync state damaged" "conflict: said"
expect_eq "$(cat "$W/both")" local "conflict: the local file kept"
expect_eq "$(cat "$RW/both")" local "conflict: the local file sent"
expect_eq "$(cat "$W/both.clawssh-remote")" sandbox \
    "conflict: the sandbox's copy saved"
[ -e "$W/touched.clawssh-remote" ] && fail "conflict: a touch made a copy"
expect_eq "$(cat "$W/there")" only-there "conflict: the sandbox's file"
expect_eq "$(cat "$W/kind/f")" in "conflict: the sandbox's directory"
expect_eq "$(cat "$RW/kind.mine")" file "conflict: the renamed file"
x -- true || fail "conflict: next exec: $(cat "$T/err")"
expect_eq "$(cat "$RW/both.clawssh-remote")" sandbox "conflict: copy up"
rm "$W/both.clawssh-remote"
x -- true || fail "conflict: resolved: $(cat "$T/err")"
same_sides || fail "conflict: sides differ: $(cat "$T/diff")"

# The seeded run.  Kinds: m* damage the manifest, l* the log.
KINDS="mcut mflip mgarbage mempty mversion lcut lflip lgarbage lempty lversion"
snap() {
	(cd "$1" && find . -type f ! -name '*.clawssh-remote' \
	    -exec sha256sum {} + | sort) > "$2"
}
losses=0
detected=0
undetected=0
i=0
while [ $i -lt $ROUNDS ]; do
	i=$((i + 1))
	kind=$(echo "$KINDS" | cut -d' ' -f$(( (i - 1) % 10 + 1 )))
	eval "n_$kind=\$((\${n_$kind:-0} + 1))"
	# a log to damage: a change sent through the daemon
	echo "round $i" > "$W/d/f$i"
	x -- true || fail "round $i: before: $(cat "$T/err")"
	case $kind in
	l*)	[ -s "$LOGF" ] || { x -- true; echo "$i" > "$W/d/g$i";
		    x -- true; } || fail "round $i: log: $(cat "$T/err")"
		[ -s "$LOGF" ] || fail "round $i: no log to damage"
		F=$LOGF ;;
	*)	F=$MAN ;;
	esac
	snap "$W" "$T/local.before"
	snap "$RW" "$T/remote.before"
	n=$(wc -c < "$F")
	case $kind in
	?cut) rnd "$n"; cut_to "$F" "$v" ;;
	?flip) rnd "$n"; o=$v; rnd 8; flip "$F" "$o" "$v" ;;
	?garbage) rnd "$n"; head -c $((v + 1)) /dev/urandom > "$F" ;;
	?empty) : > "$F" ;;
	mversion) sed -i '1s/.*/clawssh-manifest 9/' "$F" ;;
	lversion) sed -i '1s/log [0-9]/log 9/' "$F" ;;
	esac
	echo "new $i" > "$W/n$i"
	rnd 2
	if [ "$v" = 0 ]; then
		x -- sh -c "echo rr > rr$i"
	else
		xd -- sh -c "echo rr > rr$i"
	fi || fail "round $i ($kind): exec: $(cat "$T/err")"
	if grep -q "sync state damaged" "$T/err"; then
		detected=$((detected + 1))
	else
		# only a flip or cut that leaves a valid state can pass
		case $kind in
		mflip|lcut) undetected=$((undetected + 1)) ;;
		*) fail "round $i ($kind): not said: $(cat "$T/err")" ;;
		esac
	fi
	snap "$W" "$T/local.after"
	snap "$RW" "$T/remote.after"
	lost=$(comm -23 "$T/local.before" "$T/local.after" | wc -l)
	cut -c67- "$T/remote.before" | sort > "$T/rb.names"
	cut -c67- "$T/remote.after" | sort > "$T/ra.names"
	lost=$((lost + $(comm -23 "$T/rb.names" "$T/ra.names" | wc -l)))
	if [ "$lost" -ne 0 ]; then
		losses=$((losses + lost))
		echo "round $i ($kind): $lost lost" >&2
		comm -23 "$T/local.before" "$T/local.after" >&2
	fi
	[ -f "$W/rr$i" ] || fail "round $i ($kind): the command's file"
	[ -f "$RW/n$i" ] || fail "round $i ($kind): the new file did not go up"
	x -- true || fail "round $i ($kind): next exec: $(cat "$T/err")"
	same_sides || fail "round $i ($kind): sides differ: $(cat "$T/diff")"
done
echo "fault_state: seed 20261203, $ROUNDS rounds;" \
    "$(for k in $KINDS; do eval "printf '%s=%s ' $k \${n_$k:-0}"; done)"
echo "fault_state: $detected said rebuilt, $undetected left a valid" \
    "state (a cut between blocks, a flip the manifest parses), losses=$losses"
[ "$losses" -eq 0 ] || fail "$losses files lost"
exit 0
