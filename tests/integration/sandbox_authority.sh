#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The local side is the authority on a sandbox's local workspace: a host
# (or, under runtime none, a command in the sandbox) that rewrites
# meta.json to name another local directory never gets it pushed or
# pulled into, whether the local record is kept, lost and made again with
# another --workspace, or made again from the current directory.
. "$TESTLIB"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
A="$T/a"
B="$T/b"
C="$T/c"
D="$T/d"
mkdir "$A" "$B" "$C" "$D"
echo from-a > "$A/a.txt"
echo sentinel > "$C/sentinel"
prov() {
	"$CLAWSSH" provision -F "$T/ssh_config" --remote-root "$R" \
	    --host testhost "$@"
}
x() {
	"$CLAWSSH" exec -s "$@"
}
# snap: everything about C that a pull could change.
snap() {
	(cd "$C" && find . -exec stat -c '%n %F %s %Y %a' {} + | sort;
	    cat sentinel)
}
# tamper ID DIR: make ID's metadata on the host name DIR.
tamper() {
	sed "s|\"workspace\":[[:space:]]*\"[^\"]*\"|\"workspace\": \"$2\"|" \
	    "$R/$1/meta.json" > "$T/meta.new" &&
	    cat "$T/meta.new" > "$R/$1/meta.json"
	grep -q "\"workspace\": \"$2\"" "$R/$1/meta.json" ||
		fail "could not tamper with $1's metadata"
}
# refused WHAT EXPECTED-PATH...: the last provision failed, naming them.
refused() {
	_st=$1
	_what=$2
	shift 2
	expect_status "$_st" 255 "$_what"
	[ -s "$T/out" ] && fail "$_what printed an id"
	for _p in "$@"; do
		expect_match "$(cat "$T/err")" "'$_p'" "$_what names $_p"
	done
	expect_match "$(cat "$T/err")" "clawssh destroy" "$_what: way out"
}

id=$(prov --key k --workspace "$A")
expect_status $? 0 "provision with A"
out=$(x "$id" -- cat a.txt)
expect_eq "$out" "from-a" "first exec mirrors A"
snap > "$T/c.before"

# The host names C; the local record (A) still decides every exec.
tamper "$id" "$C"
x "$id" -- sh -c 'echo made > out.txt' || fail "exec after tampering"
expect_eq "$(cat "$A/out.txt")" "made" "exec pulled into A"
prov --key k --workspace "$A" > "$T/out" 2>"$T/err"
refused $? "provision A against a host naming C" "$C" "$A"
x "$id" -- sh -c 'echo again > out2.txt' || fail "record kept after refusal"
expect_eq "$(cat "$A/out2.txt")" "again" "record still names A"

# The local record is lost: neither another --workspace nor the current
# directory takes the host's path.
rm -rf "$CLAWSSH_STATE_DIR"
prov --key k --workspace "$B" > "$T/out" 2>"$T/err"
refused $? "provision B against a host naming C" "$C" "$B"
(cd "$D" && prov --key k) > "$T/out" 2>"$T/err"
refused $? "provision from the current directory" "$C" "$D"
[ -e "$CLAWSSH_STATE_DIR/sandboxes/$id.json" ] && fail "refusal recorded"
x "$id" -- sh -c 'echo bad > pulled.txt' 2>/dev/null &&
	fail "exec without a record ran"
snap > "$T/c.after"
cmp -s "$T/c.before" "$T/c.after" || fail "C changed"
[ -e "$B/pulled.txt" ] || [ -e "$D/pulled.txt" ] && fail "pulled into B/D"

# Metadata that agrees with the local side is accepted again.
tamper "$id" "$A"
prov --key k --workspace "$B" > "$T/out" 2>"$T/err"
refused $? "provision B against a host naming A" "$A" "$B"
id2=$(cd "$A" && prov --key k -v 2>"$T/err")
expect_eq "$id2" "$id" "provision from A, the current directory"
expect_match "$(cat "$T/err")" "found" "found, not created"
expect_eq "$(x "$id" -- cat out2.txt)" "again" "the sandbox's files kept"

# Under runtime none the command itself can rewrite its metadata; that
# changes nothing either.
nid=$(prov --key n --runtime none --workspace "$A")
expect_status $? 0 "provision runtime none"
x "$nid" -- sh -c "sed 's|\"workspace\":[^,}]*|\"workspace\": \"$C\"|' \
    ../meta.json > ../meta.new && cat ../meta.new > ../meta.json &&
    rm ../meta.new" || fail "runtime none could not write its metadata"
grep -q "\"workspace\": \"$C\"" "$R/$nid/meta.json" ||
	fail "the command's rewrite did not land"
x "$nid" -- sh -c 'echo none > none.txt' || fail "exec runtime none"
expect_eq "$(cat "$A/none.txt")" "none" "runtime none pulled into A"
rm -rf "$CLAWSSH_STATE_DIR"
prov --key n --runtime none --workspace "$B" > "$T/out" 2>"$T/err"
refused $? "provision B after the command's rewrite" "$C" "$B"

snap > "$T/c.after"
cmp -s "$T/c.before" "$T/c.after" || fail "C changed"
exit 0
