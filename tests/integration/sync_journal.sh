#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Mirror syncs through the daemon use its inotify change journal: after
# the first sync only the changed paths are looked at (-v says so), every
# kind of local change still goes up, the command's changes come down and
# do not bounce back up, ignored paths stay local, an edited .gitignore
# makes the next sync scan, a client killed during its push gives its
# paths back (the next exec sends them), and without a daemon a scan is
# said to run.
. "$TESTLIB"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
mkdir -p "$W/src/deep" "$W/old"
echo one > "$W/src/a.txt"
echo two > "$W/src/deep/b.txt"
echo three > "$W/old/c.txt"
printf 'build/\n' > "$W/.gitignore"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key j \
    --remote-root "$R" --workspace "$W")
RW="$R/$id/workspace"
x() {
	"$CLAWSSH" exec -v -s "$id" "$@" 2>"$T/err"
}

# Without a daemon: a scan, and -v says why.
x -- true || fail "exec without daemon: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "change journal: no daemon running" "no daemon said"

lib_start_daemon "$T/daemon.log"

# The first sync through the daemon scans; the next ones do not.
x -- true || fail "first exec: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "first sync of this sandbox" "first: scan"
x -- true || fail "second exec: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "change journal: 0 changed paths, no scan" \
    "nothing changed: no scan"

# Every kind of change goes up from the journal alone.
echo ONE > "$W/src/a.txt"
chmod 600 "$W/src/deep/b.txt"
mv "$W/old" "$W/new"
mkdir -p "$W/made/sub"
echo four > "$W/made/sub/d.txt"
ln -s ../src/a.txt "$W/made/link"
rm "$W/src/deep/b.txt"
mkdir -p "$W/build"
echo obj > "$W/build/o"
out=$(x -- sh -c 'cat src/a.txt; cat new/c.txt; cat made/sub/d.txt;
	readlink made/link; ls old src/deep/b.txt build 2>&1 | wc -l') ||
    fail "exec after changes: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "changed paths, no scan" "journal used"
expect_eq "$out" "ONE
three
four
../src/a.txt
3" "changes went up from the journal"
[ -e "$RW/build" ] && fail "ignored build/ went up"

# The command's changes come down and do not go back up.
x -- sh -c 'echo remote > src/r.txt; rm src/a.txt' ||
    fail "remote change: $(cat "$T/err")"
expect_eq "$(cat "$W/src/r.txt")" "remote" "remote file came down"
[ -e "$W/src/a.txt" ] && fail "remote deletion not applied"
x -- true || fail "exec after pull: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "sync up: 0 to send, 0 to delete" \
    "pulled files are not sent back"

# A changed .gitignore: the next sync scans (the rules changed).
printf 'build/\n*.log\n' > "$W/.gitignore"
echo l > "$W/x.log"
x -- sh -c 'ls x.log 2>&1' > /dev/null || true
expect_match "$(cat "$T/err")" "ignore file changed" "ignore edit: scan"
[ -e "$RW/x.log" ] && fail "newly ignored file went up"

# A client killed while pushing: its paths go back to the journal, so
# the next exec sends them.  Losing them would leave the host stale.
head -c 60000000 /dev/urandom > "$W/big.bin"
echo v2 > "$W/src/r.txt"
"$CLAWSSH" exec -s "$id" -- true 2>/dev/null &
pid=$!
sleep 0.1
kill -9 "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
cmp -s "$W/big.bin" "$RW/big.bin" &&
    echo "note: the push ended before the kill; the test proves less" >&2
sleep 0.5	# the daemon notices the client is gone
x -- cat src/r.txt > "$T/out" || fail "exec after kill: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "changed paths, no scan" "journal after kill"
expect_eq "$(cat "$T/out")" "v2" "change taken by a killed client went up"
cmp -s "$W/big.bin" "$RW/big.bin" || fail "big file not complete on host"

# Where the steps run in jails of their own (CLAWSSH_NO_STEP_JOIN=1),
# small pushes go with the command; if the host cannot unpack them the
# command does not run, nothing is saved, and the next exec sends them.
CLAWSSH_NO_STEP_JOIN=1
export CLAWSSH_NO_STEP_JOIN
echo v3 > "$W/src/r.txt"
chattr +i "$RW/src" 2>/dev/null && immutable=1 || immutable=0
if [ "$immutable" = 1 ]; then
	x -- sh -c 'echo RAN > ran.txt'
	st=$?
	chattr -i "$RW/src"
	[ "$st" -ne 0 ] || fail "exec with an unpack failure succeeded"
	expect_match "$(cat "$T/err")" "could not be unpacked on the host" \
	    "unpack failure reported"
	[ -e "$RW/ran.txt" ] && fail "command ran although the push failed"
	expect_eq "$(cat "$W/src/r.txt")" "v3" "local file kept"
else
	echo "note: chattr +i not possible here; unpack failure not tested" >&2
fi
x -- cat src/r.txt > "$T/out" || fail "exec after unpack failure"
expect_eq "$(cat "$T/out")" "v3" "change sent again by the next exec"
expect_match "$(cat "$T/err")" "sent along with the command" "push inline"
# Deletions go along too, each name quoted for the host's sh.
echo x > "$W/src/two words.txt"
echo y > "$W/src/it's.txt"
x -- true || fail "exec with two new files: $(cat "$T/err")"
[ -e "$RW/src/two words.txt" ] || fail "new file with a space not sent"
rm "$W/src/two words.txt" "$W/src/it's.txt"
x -- true || fail "exec after two deletions: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "sent along with the command" "deletion inline"
[ -e "$RW/src/two words.txt" ] && fail "inline deletion not applied"
[ -e "$RW/src/it's.txt" ] && fail "inline deletion of a quoted name"
unset CLAWSSH_NO_STEP_JOIN

# Where the steps join the sandbox's environment (docs/agent.md), the
# push is a step of its own there, before the command: the same failure
# stops the exec before its command, and the next exec sends it.
echo v4 > "$W/src/r.txt"
if [ "$immutable" = 1 ]; then
	chattr +i "$RW/src"
	x -- sh -c 'echo RAN > ran.txt'
	st=$?
	chattr -i "$RW/src"
	[ "$st" -ne 0 ] || fail "joined: exec with an unpack failure succeeded"
	expect_match "$(cat "$T/err")" "sync up: .*remote tar failed" \
	    "joined: unpack failure reported"
	[ -e "$RW/ran.txt" ] && fail "joined: command ran, the push failed"
	expect_eq "$(cat "$W/src/r.txt")" "v4" "joined: local file kept"
fi
x -- cat src/r.txt > "$T/out" || fail "joined: exec after unpack failure"
expect_eq "$(cat "$T/out")" "v4" "joined: change sent again"
expect_match "$(cat "$T/err")" "ran through the host agent's channel" \
    "joined: the command took the agent's channel"

# Garbage journal and watcher requests on the socket: an answer saying
# why, and the daemon lives on.
printf 'CLAWMUX1\n\000\000\000\006\016\000\000\000\000x\000\000\000\006\021\000\000\000\000y' |
    timeout 2 nc -U "$D" > "$T/garbage.out" 2>/dev/null
grep -q "malformed journal request" "$T/garbage.out" ||
    fail "no answer to a malformed JTAKE: $(od -c "$T/garbage.out" | head)"
grep -q "no host yet" "$T/garbage.out" ||
    fail "no answer to an RTAKE before HELLO"
x -- true || fail "daemon gone after garbage: $(cat "$T/err")"
exit 0
