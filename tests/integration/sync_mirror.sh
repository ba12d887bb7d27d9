#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Mirror mode against a real sshd: local changes go up before each exec,
# the command's changes come down after it; --no-sync; conflicts kept as
# NAME.clawssh-remote; the mass-deletion guard; git-ignored outputs come down.
. "$TESTLIB"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
mkdir -p "$W/src" "$T/outside"
echo hello > "$W/src/a.txt"
echo keep > "$W/b.txt"
printf 'build/\n' > "$W/.gitignore"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key m \
    --remote-root "$R" --workspace "$W")
RW="$R/$id/workspace"
x() {
	"$CLAWSSH" exec -s "$id" "$@"
}

# First exec sends everything; the command's output comes back.
out=$(x -- sh -c 'cat src/a.txt; echo made > out.txt')
expect_eq "$out" "hello" "first exec sees the workspace"
expect_eq "$(cat "$W/out.txt")" "made" "command output came down"

# Local edits, deletions, renames, mode changes and links go up.
echo changed > "$W/src/a.txt"
rm "$W/b.txt"
mv "$W/out.txt" "$W/renamed.txt"
chmod 600 "$W/src/a.txt"
ln -s src/a.txt "$W/alink"
out=$(x -- sh -c 'cat src/a.txt; ls; stat -c %a src/a.txt; readlink alink')
expect_match "$out" "changed" "edit went up"
echo "$out" | grep -qx "b.txt" && fail "deletion did not go up"
echo "$out" | grep -qx "out.txt" && fail "rename left the old name"
expect_match "$out" "renamed.txt" "rename went up"
expect_match "$out" "^600$" "mode change went up"
expect_match "$out" "^src/a.txt$" "symlink went up"

# The command's deletions, new directories and edits come down.
x -- sh -c 'rm renamed.txt; mkdir -p gen/sub; echo g > gen/sub/x;
	echo edited > src/a.txt'
[ -e "$W/renamed.txt" ] && fail "remote deletion not applied"
expect_eq "$(cat "$W/gen/sub/x")" "g" "new remote directory"
expect_eq "$(cat "$W/src/a.txt")" "edited" "remote edit"

# Outputs a .gitignore matches come down all the same (it keeps only
# untracked files from going up; see sync_rules.sh).
x -- sh -c 'mkdir -p build; echo obj > build/o'
expect_eq "$(cat "$W/build/o")" "obj" "git-ignored build/o came down"

# sync.exclude from the config applies both ways.
mkdir -p "$XDG_CONFIG_HOME/clawssh"
echo '{ "sync": { "exclude": ["*.log"] } }' \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
echo local > "$W/local.log"
x -- sh -c 'test ! -e local.log && echo remote > remote.log'
expect_status $? 0 "excluded file not pushed"
[ -e "$W/remote.log" ] && fail "excluded file pulled"
rm -f "$XDG_CONFIG_HOME/clawssh/config.json" "$W/local.log"

# --no-sync: nothing moves either way.
echo local-only > "$W/nosync.txt"
x --no-sync -- sh -c 'test ! -e nosync.txt && echo r > remote-only.txt'
expect_status $? 0 "--no-sync did not push"
[ -e "$W/remote-only.txt" ] && fail "--no-sync pulled"
out=$("$CLAWSSH" sync status "$id")
expect_match "$out" "^A nosync.txt$" "sync status: local change"
expect_match "$out" "^A remote-only.txt$" "sync status: sandbox change"
x -- true
expect_eq "$(cat "$W/remote-only.txt")" "r" "next sync pulls it"
expect_eq "$(cat "$RW/nosync.txt")" "local-only" "next sync pushes it"

# Conflict: both sides change a file during a long command.
x -- sh -c 'touch started; sleep 2; echo remote-version > src/a.txt' \
    2>"$T/err" &
cpid=$!
i=0
while [ ! -e "$RW/started" ] && [ $i -lt 300 ]; do
	sleep 0.1
	i=$((i + 1))
done
echo local-version > "$W/src/a.txt"
wait $cpid
expect_eq "$(cat "$W/src/a.txt")" "local-version" "local side kept"
expect_eq "$(cat "$W/src/a.txt.clawssh-remote")" "remote-version" \
    "remote side saved beside it"
expect_match "$(cat "$T/err")" "conflict: src/a.txt" "conflict reported"

# A local name the host's shell or tar could misread stays local.
nl='
'
echo x > "$W/bad${nl}name"
x -- true 2>"$T/err"
expect_status $? 0 "exec with an unsyncable local name"
expect_match "$(cat "$T/err")" "not syncing" "warning for the name"
[ -n "$(find "$RW" -mindepth 1 -maxdepth 1 -name 'bad*')" ] &&
    fail "unsyncable name reached the host"
rm "$W/bad${nl}name"
x -- true 2>/dev/null
expect_status $? 0 "exec after removing the unsyncable name"

# Hostile output from the command is refused, nothing outside.
x -- sh -c 'ln -s ../../../outside esc' 2>"$T/err"
expect_match "$(cat "$T/err")" "refused esc" "escaping link refused"
[ -z "$(ls -A "$T/outside")" ] || fail "written outside"

# Local changes made while a command runs were not pushed with it: they
# go up with the next exec (not recorded as synced by the pull).
echo before > "$W/gone-late.txt"
x -- true
x -- sleep 2.$$ &
p=$!
sleep 1
echo late > "$W/late.txt"
echo edited-late > "$W/src/a.txt"
rm "$W/gone-late.txt"
wait $p
expect_status $? 0 "exec while the local copy changed"
out=$(x -- sh -c 'cat late.txt src/a.txt; ls gone-late.txt 2>&1 || true')
expect_match "$out" "^late" "a file written during an exec went up next"
expect_match "$out" "edited-late" "an edit made during an exec went up next"
expect_match "$out" "No such file" "a delete made during an exec went up next"
[ -e "$RW/late.txt" ] || fail "late.txt not on the host"

# Ignore files come from the local side: the sandbox rewriting the
# .gitignore (to un-ignore a local secret) is not brought back, so the
# next push does not send the secret up.
mkdir -p "$W/build"
echo s3cret > "$W/build/secret.txt"
x -- true || fail "exec before the .gitignore rewrite"
x -- sh -c ': > .gitignore; echo "!*" > .clawsshignore' 2>"$T/err" ||
    fail "rewrite of .gitignore: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "not brought back: .gitignore" \
    "warning about the ignore file"
expect_eq "$(cat "$W/.gitignore")" "build/" "local .gitignore unchanged"
[ -e "$W/.clawsshignore" ] && fail "the sandbox's .clawsshignore came down"
x -- sh -c 'cat build/secret.txt 2>/dev/null; true' > "$T/out" 2>&1
expect_eq "$(grep -c s3cret "$T/out")" "0" "the ignored secret stayed local"
rm -rf "$W/build"

# Mass-deletion guard: an emptied workspace halts instead of deleting.
count=$(find "$W" | wc -l)
x -- sh -c 'rm -rf ./* ./.[!.]*' 2>"$T/err"
expect_status $? 255 "emptied remote workspace"
expect_match "$(cat "$T/err")" "halted" "halt message"
[ "$(find "$W" | wc -l)" -eq "$count" ] || fail "local files were deleted"

# ...and so does a vanished one.  (Under bwrap the rm of the bound
# directory itself fails: exit 0, so the status is the sync's, 255; a
# failing command's own status would win, see exec_status.sh.)
x -- sh -c 'cd .. && rm -rf workspace; exit 0' 2>"$T/err"
expect_status $? 255 "vanished remote workspace"
[ "$(find "$W" | wc -l)" -eq "$count" ] || fail "local files were deleted"
# ...and so does most of it gone (rm -rf ./*; touch keep), not only all:
# more than half of the files synced, at least 5, in a fresh sandbox.
W="$T/ws-most"
mkdir -p "$W/d"
for i in 1 2 3 4 5 6 7 8 9 10; do echo "$i" > "$W/d/f$i"; done
echo top > "$W/top.txt"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key most \
    --remote-root "$R" --workspace "$W") || fail "provision (most)"
x -- true || fail "first exec (most)"
count=$(find "$W" | wc -l)
x -- sh -c 'rm -rf ./*; touch keep' 2>"$T/err"
expect_status $? 255 "most of the workspace gone"
expect_match "$(cat "$T/err")" "11 files last synced are gone" \
    "guard message names the counts"
[ "$(find "$W" | wc -l)" -eq "$count" ] || fail "local files were deleted"
# The way back: push the local copy again; then a few deletions pass,
# and the user may take a mass deletion on purpose.
"$CLAWSSH" sync push "$id" 2>"$T/err" || fail "restore: $(cat "$T/err")"
[ -e "$R/$id/workspace/d/f7" ] || fail "the push did not restore d/f7"
x -- sh -c 'rm -f d/f1 d/f2' 2>"$T/err" || fail "small delete: $(cat "$T/err")"
[ -e "$W/d/f1" ] && fail "a small deletion did not come down"
x --allow-mass-delete -- rm -rf d 2>"$T/err" ||
    fail "allowed mass delete: $(cat "$T/err")"
[ -e "$W/d" ] && fail "the allowed deletion did not come down"
[ -e "$W/top.txt" ] || fail "top.txt deleted"
exit 0
