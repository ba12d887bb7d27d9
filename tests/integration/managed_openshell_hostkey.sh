#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Host keys of OpenShell sandboxes.  OpenShell's ssh-config turns host
# key checking off (StrictHostKeyChecking no, known_hosts at /dev/null)
# and its supervisor makes a new key whenever it starts.  Even with
# StrictHostKeyChecking yes in config.json (and no knownHostsFile) the
# first contact pins the key it sees in STATE/known_hosts.d/ID; after the
# stand-in's stop and start (a new key) exec and a second provision are
# refused and the pin is kept; its line removed (ssh-keygen -R), the next
# provision pins the new key; recreate (a new sandbox) pins its key;
# destroy drops the pin; a new sandbox under the same name is pinned
# anew.  ~/.ssh/known_hosts is never written.
: "${top_srcdir:?top_srcdir must name the source tree (make check sets it)}"
. "$TESTLIB"
# shellcheck disable=SC1091 # shared by the openshell tests, linted alone
. "$top_srcdir/tests/integration/openshell_lib.sh"

os_config ', "strictHostKeyChecking": "yes"'
echo data > "$T/ws/f"

id=$("$CLAWSSH" provision --provider os --workspace "$T/ws" --key k \
    2>"$T/err")
expect_status $? 0 "provision with default host key settings"
name="claw-$id"
pin="$T/state/known_hosts.d/$id"
key1=$(os_key "$name")
expect_eq "$(cut -d' ' -f1,3 "$pin")" "openshell-$name $key1" \
    "the first key seen is pinned"
expect_eq "$(wc -l < "$pin")" 1 "one key pinned"
out=$("$CLAWSSH" exec -s "$id" -- cat f)
expect_eq "$out" data "exec over the pinned key"

# The sandbox's supervisor starts again: a new host key.
"$STANDIN" sandbox stop "$name" >/dev/null
"$STANDIN" sandbox start "$name" >/dev/null
[ "$(os_key "$name")" != "$key1" ] || fail "the stand-in kept its key"
"$CLAWSSH" exec -s "$id" -- cat f >/dev/null 2>"$T/err"
expect_status $? 255 "exec after the key changed"
expect_match "$(cat "$T/err")" "REMOTE HOST IDENTIFICATION HAS CHANGED" \
    "exec after the key changed"
"$CLAWSSH" provision --provider os --workspace "$T/ws" --key k \
    >/dev/null 2>"$T/err"
expect_status $? 255 "provision after the key changed"
expect_match "$(cat "$T/err")" "REMOTE HOST IDENTIFICATION HAS CHANGED" \
    "provision after the key changed"
expect_eq "$(cut -d' ' -f1,3 "$pin")" "openshell-$name $key1" \
    "a refused key leaves the pin as it was"
expect_eq "$(os_names)" "$name" "a refused provision deletes nothing"
expect_eq "$(os_ids)" "$id" "a refused provision keeps the record"

# Told that the new key is right (its line removed), provision pins it.
ssh-keygen -q -R "openshell-$name" -f "$pin" >/dev/null 2>&1 ||
	fail "ssh-keygen -R"
"$CLAWSSH" provision --provider os --workspace "$T/ws" --key k \
    >/dev/null 2>"$T/err" || fail "provision after -R: $(cat "$T/err")"
expect_eq "$(cut -d' ' -f1,3 "$pin")" "openshell-$name $(os_key "$name")" \
    "the new key pinned after ssh-keygen -R"
out=$("$CLAWSSH" exec -s "$id" -- cat f)
expect_eq "$out" data "exec over the new pin"

# recreate makes a new sandbox: its key is pinned instead.
"$CLAWSSH" recreate "$id" >/dev/null 2>"$T/err" ||
	fail "recreate: $(cat "$T/err")"
key2=$(os_key "$name")
expect_eq "$(cut -d' ' -f1,3 "$pin")" "openshell-$name $key2" \
    "recreate pins the new sandbox's key"
out=$("$CLAWSSH" exec -s "$id" -- cat f)
expect_eq "$out" data "exec after recreate"

# destroy drops the pin; the same key (scope) later gets a new sandbox,
# whose key is pinned anew.
"$CLAWSSH" destroy "$id" >/dev/null || fail "destroy"
[ -e "$pin" ] && fail "destroy left the pin"
id2=$("$CLAWSSH" provision --provider os --workspace "$T/ws" --key k \
    2>"$T/err") || fail "provision again: $(cat "$T/err")"
expect_eq "$id2" "$id" "the same scope, the same id"
expect_eq "$(cut -d' ' -f1,3 "$pin")" "openshell-$name $(os_key "$name")" \
    "a new sandbox under the old name is pinned anew"
[ -e "$HOME/.ssh/known_hosts" ] && fail "\$HOME/.ssh/known_hosts written"
exit 0
