#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# clawssh provision against a real sshd: get-or-create, the id alone on
# stdout, the concurrent race, the remote layout, a lost local record, and
# bad input that must change nothing.
. "$TESTLIB"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
prov() {
	"$CLAWSSH" provision -F "$T/ssh_config" --remote-root "$R" \
	    --host testhost --workspace "$T" "$@"
}
idshape='^c[a-z2-7]\{12\}$'

id=$(prov --key s1)
expect_status $? 0 "provision"
expect_match "$id" "$idshape" "id shape"
[ -d "$R/$id/workspace" ] && [ -f "$R/$id/meta.json" ] ||
	fail "remote layout missing under $R/$id"
[ "$(stat -c %a "$R")" = 700 ] || fail "remoteRoot not 0700"
inode=$(stat -c %i "$R/$id/meta.json")

# Idempotent: same id, nothing created again.
id2=$(prov --key s1 -v 2>"$T/err")
expect_eq "$id2" "$id" "second provision"
expect_match "$(cat "$T/err")" "found" "second provision found it"
expect_eq "$(stat -c %i "$R/$id/meta.json")" "$inode" "metadata untouched"

# Eight concurrent calls for a new key: one sandbox, eight equal ids.
i=0
pids=
while [ $i -lt 8 ]; do
	prov --key race > "$T/race.$i" 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done
# shellcheck disable=SC2086
wait $pids
sort -u "$T"/race.* > "$T/race.ids"
[ "$(wc -l < "$T/race.ids")" -eq 1 ] || {
	cat "$T"/race.*; fail "concurrent provisions gave different output"; }
expect_match "$(cat "$T/race.ids")" "$idshape" "race id"
[ "$(ls -d "$R"/c* | wc -l)" -eq 2 ] || fail "race made extra sandboxes"
[ -n "$(find "$R" -mindepth 1 -maxdepth 1 \( -name '.stage-*' -o \
    -name '.lock-*' \))" ] && fail "staging left behind"

# Other keys and scopes get other ids; shared needs no key.
a=$(prov --scope agent --key s1)
s=$(prov --scope shared)
s2=$(prov --scope shared --key default)
expect_eq "$s2" "$s" "shared default key"
[ "$a" != "$id" ] && [ "$s" != "$id" ] && [ "$a" != "$s" ] ||
	fail "scopes share ids"

# --json prints the full record.
prov --key s1 --json > "$T/json"
grep -q "\"id\":[[:space:]]*\"$id\"" "$T/json" || fail "--json id"
grep -q '"scope":[[:space:]]*"session"' "$T/json" || fail "--json scope"
grep -q '"new":[[:space:]]*false' "$T/json" || fail "--json new"
grep -q "\"remoteRoot\":[[:space:]]*\"$R\"" "$T/json" || fail "--json root"

# Lost local record: the same key finds the remote sandbox again.
rm -rf "$CLAWSSH_STATE_DIR"
id3=$(prov --key s1 -v 2>"$T/err")
expect_eq "$id3" "$id" "provision after losing the registry"
expect_match "$(cat "$T/err")" "found" "found, not created"
expect_eq "$(stat -c %i "$R/$id/meta.json")" "$inode" "not recreated"

# Without --remote-root or config, sandboxes live in the documented default.
did=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
    --workspace "$T" --key "default-root-$$")
[ -d "/tmp/clawssh-sandboxes/$did/workspace" ] ||
	fail "default remoteRoot not used"
"$CLAWSSH" destroy "$did" > /dev/null || fail "destroy in default root"

# Bad input: a clear error and no change on the host.
ls -a "$R" > "$T/before"
for bad in "--scope nope --key x" "--key=" "--key a/b" \
    "--key $(printf 'a\001b')" "--mode sideways --key x" \
    "--access all --key x" "--from ../etc --key x" "--scope session"; do
	# shellcheck disable=SC2086
	prov $bad > "$T/out" 2>"$T/err"
	expect_status $? 255 "bad input: $bad"
	[ -s "$T/out" ] && fail "bad input printed an id: $bad"
	[ -s "$T/err" ] || fail "bad input without a message: $bad"
done
"$CLAWSSH" provision -F "$T/ssh_config" --remote-root relative/root \
    --host testhost --key x 2>"$T/err"
expect_status $? 255 "relative remoteRoot"
expect_match "$(cat "$T/err")" "absolute" "relative remoteRoot message"
ls -a "$R" > "$T/after"
cmp -s "$T/before" "$T/after" || fail "bad input changed the host"

# A remoteRoot with a symlinked component is refused.
mkdir "$T/real"
ln -s "$T/real" "$T/link"
"$CLAWSSH" provision -F "$T/ssh_config" --remote-root "$T/link/root" \
    --host testhost --key x 2>"$T/err"
expect_status $? 255 "symlinked remoteRoot"
expect_match "$(cat "$T/err")" "symbolic link" "symlink message"
[ -e "$T/real/root" ] && fail "created through a symlink"

# A remoteRoot owned by someone else is refused (needs root to set up).
if [ "$(id -u)" -eq 0 ] && id nobody >/dev/null 2>&1; then
	mkdir -m 700 "$T/other"
	chown nobody "$T/other"
	"$CLAWSSH" provision -F "$T/ssh_config" --remote-root "$T/other" \
	    --host testhost --key x 2>"$T/err"
	expect_status $? 255 "foreign remoteRoot"
	expect_match "$(cat "$T/err")" "owned by" "foreign owner message"
fi

# Hostile metadata on the host: refused clearly, nothing changed.
hid=$(prov --key hostile)
printf '{"version":1,"id":"%s","scope":"session","key":"../../x",' "$hid" \
    > "$R/$hid/meta.json"
printf '"mode":"mirror","access":"rw","image":"host",' >> "$R/$hid/meta.json"
printf '"configHash":"%064d","created":1,"workspace":"/w"}\n' 0 \
    >> "$R/$hid/meta.json"
cp "$R/$hid/meta.json" "$T/hostile.json"
prov --key hostile > "$T/out" 2>"$T/err"
expect_status $? 255 "hostile metadata"
expect_match "$(cat "$T/err")" "corrupt metadata" "hostile message"
cmp -s "$R/$hid/meta.json" "$T/hostile.json" || fail "hostile meta touched"
head -c 70000 /dev/zero | tr '\0' 'a' > "$R/$hid/meta.json"
prov --key hostile > "$T/out" 2>"$T/err"
expect_status $? 255 "huge metadata"
exit 0
