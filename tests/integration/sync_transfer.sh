#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Explicit transfers against a real sshd: seeding a remote-mode sandbox,
# sync push and pull (whole and partial), and hostile remote content that
# must not write outside the local workspace.
. "$TESTLIB"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
mkdir -p "$W/src/sub" "$W/.git" "$T/outside"
echo hello > "$W/src/a.txt"
echo deep > "$W/src/sub/b.txt"
ln -s a.txt "$W/src/link"
echo secret > "$W/.git/config"
chmod 640 "$W/src/a.txt"
c() {
	"$CLAWSSH" "$@"
}

# Seed: a remote-mode sandbox gets the workspace once, .git left out.
id=$(c provision -F "$T/ssh_config" --host testhost --key s --mode remote \
    --remote-root "$R" --workspace "$W")
expect_status $? 0 "provision --mode remote"
RW="$R/$id/workspace"
expect_eq "$(cat "$RW/src/a.txt")" "hello" "seeded file"
expect_eq "$(cat "$RW/src/sub/b.txt")" "deep" "seeded nested file"
expect_eq "$(readlink "$RW/src/link")" "a.txt" "seeded symlink"
expect_eq "$(stat -c %a "$RW/src/a.txt")" "640" "seeded mode"
[ -e "$RW/.git" ] && fail ".git was seeded"
[ -n "$(find "$R/$id" -mindepth 1 -maxdepth 1 \( -name '*stage*' -o \
    -name '*old*' \))" ] && fail "seed staging left behind"

# Remote mode: nothing syncs by itself, provisioning again does not reseed.
echo local-change > "$W/src/a.txt"
c provision -F "$T/ssh_config" --host testhost --key s --mode remote \
    --remote-root "$R" --workspace "$W" > /dev/null
expect_eq "$(cat "$RW/src/a.txt")" "hello" "no reseed"

# recreate reseeds a remote-mode sandbox from the local workspace.
c exec -s "$id" -- sh -c 'echo junk > junk.txt'
c recreate "$id" > /dev/null
expect_status $? 0 "recreate"
[ -e "$RW/junk.txt" ] && fail "recreate kept the old remote content"
expect_eq "$(cat "$RW/src/a.txt")" "local-change" "recreate reseeded"
c exec -s "$id" -- sh -c 'echo hello > src/a.txt'

# push: one path, then everything.
echo new > "$W/src/sub/c.txt"
c sync push "$id" ./src/sub/ 2>/dev/null
expect_status $? 0 "sync push ./src/sub/"
expect_eq "$(cat "$RW/src/sub/c.txt")" "new" "pushed file"
expect_eq "$(cat "$RW/src/a.txt")" "hello" "push of src/sub only"
out=$(c sync push --json "$id")
expect_match "$out" '"direction": "pushed"' "push --json"
expect_eq "$(cat "$RW/src/a.txt")" "local-change" "push everything"
c sync push "$id" ../etc 2>/dev/null
expect_status $? 255 "push of a path outside the workspace"

# A progress line on a terminal (shown at once with CLAWSSH_PROGRESS_MS=0),
# and none when stderr is not a terminal.
if command -v script >/dev/null; then
	out=$(CLAWSSH_PROGRESS_MS=0 script -qec \
	    "'$CLAWSSH' sync push '$id' src" /dev/null </dev/null | tr '\r' '\n')
	expect_match "$out" "clawssh: sent [0-9]* files, .* MiB/s" \
	    "progress on a terminal"
fi
out=$(CLAWSSH_PROGRESS_MS=0 c sync push "$id" src 2>&1)
echo "$out" | grep -q "MiB/s" && fail "progress line without a terminal"

# pull: what commands changed remotely comes down.
c exec -s "$id" -- sh -c 'echo remote > src/r.txt; mkdir -p x/y; echo z > x/y/z'
c sync pull "$id" x 2>/dev/null
expect_status $? 0 "sync pull x"
expect_eq "$(cat "$W/x/y/z")" "z" "pulled nested file"
[ -e "$W/src/r.txt" ] && fail "partial pull brought other paths"
c sync pull "$id" 2>/dev/null
expect_status $? 0 "sync pull (everything)"
expect_eq "$(cat "$W/src/r.txt")" "remote" "pull everything"

# Hostile content: each bad entry refused and named; nothing outside.
c exec -s "$id" -- sh -c '
	ln -s /etc/passwd abs-link
	ln -s ../../../outside escape-link
	mkfifo fifo
	echo data > hard1; ln hard1 hard2
	echo s > suid; chmod 4755 suid
	printf x > "$(printf "ctl\001name")"'
c sync pull "$id" > "$T/out" 2>"$T/err"
expect_status $? 1 "pull with refused entries"
err=$(cat "$T/err")
expect_match "$err" "refused abs-link" "absolute link refused"
expect_match "$err" "refused escape-link" "escaping link refused"
expect_match "$err" "refused fifo" "fifo refused"
expect_match "$err" "refused hard[12]: hard links" "hard link refused"
expect_match "$err" 'ctl\\x01name: control character' \
    "control character shown escaped"
[ -e "$W/abs-link" ] || [ -e "$W/escape-link" ] || [ -e "$W/fifo" ] &&
    fail "a refused entry was written"
[ -e "$W/hard1" ] && [ -e "$W/hard2" ] && fail "hard link written"
expect_eq "$(stat -c %a "$W/suid")" "755" "setuid stripped"
[ -z "$(ls -A "$T/outside")" ] || fail "something written outside"

# A symlink planted by one exec is not followed by the next download.
c exec -s "$id" -- sh -c 'mkdir -p target; ln -s target plant'
c sync pull "$id" 2>/dev/null
expect_eq "$(readlink "$W/plant")" "target" "inside link pulled"
c exec -s "$id" -- sh -c 'rm plant; mkdir plant; echo x > plant/f'
c sync pull "$id" 2>/dev/null
[ -d "$W/plant" ] && [ ! -L "$W/plant" ] || fail "type change not applied"
[ -e "$W/target/f" ] && fail "download followed a planted symlink"
expect_eq "$(cat "$W/plant/f")" "x" "file under the new directory"

# libarchive is loaded on first use (sync/archive_lazy.c): where it
# cannot be loaded, a transfer fails with a clear error, nothing moved.
so=$(sed -n 's/^#define ARCHIVE_SONAME "\(.*\)"$/\1/p' \
    "$(dirname "$CLAWSSH")/config.h")
[ -n "$so" ] || fail "no ARCHIVE_SONAME in config.h"
mkdir -p "$T/badlib"
echo "not a library" > "$T/badlib/$so"
echo lazy > "$W/src/lazy.txt"
out=$(LD_LIBRARY_PATH="$T/badlib" c sync push "$id" src 2>&1)
expect_status $? 255 "push without a loadable libarchive"
expect_match "$out" "cannot load $so" "the library named"
[ -e "$RW/src/lazy.txt" ] && fail "pushed without libarchive"
c sync push "$id" src 2>/dev/null || fail "push with libarchive"
expect_eq "$(cat "$RW/src/lazy.txt")" lazy "pushed"

# Through the daemon, with the sandbox's environment running, push and
# pull run their host-side steps there (docs/agent.md), the same hostile
# entries refused.
if command -v bwrap >/dev/null 2>&1; then
	lib_start_daemon "$T/daemon.log"
	c exec -s "$id" -- true || fail "daemon: start the sandbox"
	echo joined > "$W/src/j.txt"
	c -vv sync push "$id" src 2>"$T/err" || fail "daemon: push: $(cat "$T/err")"
	expect_match "$(cat "$T/err")" "step in the sandbox's running env" \
	    "daemon: the push joined the environment"
	expect_eq "$(cat "$RW/src/j.txt")" joined "daemon: pushed"
	c exec -s "$id" -- sh -c 'echo back > src/k.txt; ln -s /etc/passwd abs2'
	c -vv sync pull "$id" 2>"$T/err"
	expect_status $? 1 "daemon: pull with a refused entry"
	expect_match "$(cat "$T/err")" "step in the sandbox's running env" \
	    "daemon: the pull joined the environment"
	expect_match "$(cat "$T/err")" "refused abs2" "daemon: link refused"
	[ -e "$W/abs2" ] && fail "daemon: a refused entry was written"
	expect_eq "$(cat "$W/src/k.txt")" back "daemon: pulled"
	[ -z "$(ls -A "$T/outside")" ] || fail "daemon: written outside"
fi
exit 0
