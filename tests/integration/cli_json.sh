#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# --json against a real sshd: every command that prints data prints one
# JSON value on stdout with the shape clawssh(1) documents (destroy,
# prune, edit and apply-patch new; provision, list, status, ls, stat,
# sync push, pull and status checked), errors stay on stderr with nothing on
# stdout.
# shellcheck source=tests/integration/lib.sh
. "${TESTLIB:-$(dirname "$0")/lib.sh}"

command -v jq > /dev/null || { echo "SKIP: no jq" >&2; exit 77; }
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
mkdir -p "$XDG_CONFIG_HOME/clawssh" "$T/ws" "$R"
# With LIB_SSH_USER=NAME (a non-root SSH user) the sandbox root is NAME's.
if [ -n "${LIB_SSH_USER:-}" ]; then chown "$LIB_SSH_USER" "$R"; fi
printf '{ "sandbox": { "remoteRoot": "%s" } }\n' "$R" \
    > "$XDG_CONFIG_HOME/clawssh/config.json"

# prov KEY [ARGS...]: provision the sandbox of KEY, print its id.
prov() {
	_k=$1
	shift
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
	    --workspace "$T/ws" --mode remote --key "$_k" "$@"
}

# one_json FILE WHAT JQ-TEST: FILE holds exactly one JSON value and
# JQ-TEST holds for it.
one_json() {
	[ "$(jq -s length "$1" 2>/dev/null)" = 1 ] ||
	    { lib_case_fail "$2: not one JSON value: $(cat "$1")"; return; }
	jq -e "$3" "$1" > /dev/null ||
	    lib_case_fail "$2: '$3' does not hold: $(cat "$1")"
}

# destroy --json: {id, existed}; an unknown id: stderr only.
case_1() {
	id=$(prov d1) || fail "provision"
	"$CLAWSSH" destroy --json "$id" > "$T/out" ||
	    lib_case_fail "destroy --json: status $?"
	one_json "$T/out" "destroy --json" \
	    ".id == \"$id\" and .existed == true and (keys | length) == 2"
	[ -d "$R/$id" ] && lib_case_fail "destroy --json left the sandbox"
	"$CLAWSSH" destroy --json "$id" > "$T/out" 2> "$T/err"
	[ $? -eq 255 ] || lib_case_fail "destroy --json of a gone id: not 255"
	[ -s "$T/out" ] && lib_case_fail "an error printed to stdout"
	[ -s "$T/err" ] || lib_case_fail "an error said nothing"
	# Gone from its host first: existed is false, the record goes.
	id=$(prov d2) || fail "provision"
	rm -rf "${R:?}/$id"
	"$CLAWSSH" destroy --json "$id" > "$T/out" ||
	    lib_case_fail "destroy --json (gone from host): status $?"
	one_json "$T/out" "destroy --json (gone)" \
	    ".id == \"$id\" and .existed == false"
}

# prune --json: an array of {id, reason, pruned}; [] when nothing goes.
case_2() {
	old=$(prov p1) || fail "provision"
	keep=$(prov p2) || fail "provision"
	touch -d '30 hours ago' "$R/$old/last-used"
	"$CLAWSSH" prune --json --dry-run > "$T/out" ||
	    lib_case_fail "prune --json --dry-run: status $?"
	one_json "$T/out" "prune --dry-run --json" "type == \"array\" and
	    length == 1 and .[0].id == \"$old\" and .[0].pruned == false and
	    (.[0].reason | startswith(\"idle \"))"
	[ -d "$R/$old" ] || lib_case_fail "--dry-run pruned"
	"$CLAWSSH" prune --json > "$T/out" ||
	    lib_case_fail "prune --json: status $?"
	one_json "$T/out" "prune --json" \
	    "length == 1 and .[0].id == \"$old\" and .[0].pruned == true"
	[ -d "$R/$old" ] && lib_case_fail "prune --json did not prune"
	[ -d "$R/$keep" ] || lib_case_fail "prune --json pruned a fresh one"
	"$CLAWSSH" prune --json > "$T/out" ||
	    lib_case_fail "prune --json (nothing): status $?"
	one_json "$T/out" "prune --json (nothing)" '. == []'
	"$CLAWSSH" prune --json --idle-hours x > "$T/out" 2> "$T/err"
	[ $? -eq 255 ] || lib_case_fail "prune --idle-hours x: not 255"
	[ -s "$T/out" ] && lib_case_fail "a usage error printed to stdout"
	return 0
}

# The commands that had --json: one value each, the documented shape.
case_3() {
	echo hello > "$T/ws/f.txt"
	prov j1 --json > "$T/out" || fail "provision --json"
	one_json "$T/out" "provision --json" '.new == true and
	    (.id | type) == "string" and .mode == "remote" and .scope and
	    .workspace and .remoteRoot and (.created | type) == "number"'
	id=$(jq -r .id "$T/out")
	"$CLAWSSH" list --json > "$T/out" || lib_case_fail "list --json"
	one_json "$T/out" "list --json" "type == \"array\" and
	    any(.[]; .id == \"$id\" and .state == \"ok\")"
	"$CLAWSSH" status --json "$id" > "$T/out" ||
	    lib_case_fail "status --json"
	one_json "$T/out" "status --json" ".id == \"$id\" and
	    .state == \"ok\" and (.idleSeconds | type) == \"number\""
	"$CLAWSSH" ls --json -s "$id" > "$T/out" || lib_case_fail "ls --json"
	one_json "$T/out" "ls --json" 'type == "array" and
	    any(.[]; .name == "f.txt" and .type == "file" and .size == 6 and
	    (.mode | test("^[0-7]{4}$")))'
	"$CLAWSSH" stat --json -s "$id" f.txt > "$T/out" ||
	    lib_case_fail "stat --json"
	one_json "$T/out" "stat --json" '.name == "f.txt" and .size == 6'
	for d in push pull; do
		"$CLAWSSH" sync "$d" --json "$id" > "$T/out" ||
		    lib_case_fail "sync $d --json: status $?"
		one_json "$T/out" "sync $d --json" ".direction ==
		    \"${d}ed\" and (.files | type) == \"number\" and
		    (.bytes | type) == \"number\" and .refused == 0"
	done
	"$CLAWSSH" edit --json -s "$id" f.txt --old hello --new bye \
	    > "$T/out" || lib_case_fail "edit --json: status $?"
	one_json "$T/out" "edit --json" \
	    '.path == "f.txt" and .replacements == 1'
	printf '%s\n' '*** Begin Patch' '*** Add File: q"x y.txt' '+new' \
	    '*** Update File: f.txt' '@@' '-bye' '+hi' '*** End Patch' \
	    > "$T/patch"
	"$CLAWSSH" apply-patch --json -s "$id" < "$T/patch" > "$T/out" ||
	    lib_case_fail "apply-patch --json: status $?"
	one_json "$T/out" "apply-patch --json" 'length == 2 and
	    .[0] == {"op": "A", "path": "q\"x y.txt"} and
	    .[1] == {"op": "M", "path": "f.txt"}'
	# A patch that does not apply: nothing on stdout, nothing changed.
	"$CLAWSSH" apply-patch --json -s "$id" < "$T/patch" > "$T/out" \
	    2> "$T/err" && lib_case_fail "a stale patch applied"
	[ -s "$T/out" ] && lib_case_fail "a failed patch printed to stdout"
	"$CLAWSSH" read -s "$id" f.txt > "$T/out"
	expect_eq "$(cat "$T/out")" hi "apply-patch --json content"
	"$CLAWSSH" -F "$T/ssh_config" destroy --json "$id" > "$T/out" ||
	    lib_case_fail "-F before destroy --json"
	one_json "$T/out" "-F before destroy --json" ".id == \"$id\""
}

# sync status --json on a mirror sandbox: {synced, up, down, rules},
# paths as they are (a quote in a name is JSON's escape, not ours too).
case_4() {
	mkdir -p "$T/wm"
	echo one > "$T/wm/a.txt"
	id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
	    --workspace "$T/wm" --key s1) || fail "provision (mirror)"
	"$CLAWSSH" sync status --json "$id" > "$T/out" ||
	    lib_case_fail "sync status --json before a sync: status $?"
	one_json "$T/out" "sync status --json, first" '.synced == false and
	    .up == [{"change": "added", "path": "a.txt"}] and .down == [] and
	    (.rules | any(test("protected: .git")))'
	"$CLAWSSH" exec -s "$id" -- sh -c 'echo made > "b \"c.txt"; rm a.txt' || lib_case_fail "exec"
	echo two > "$T/wm/d.txt"
	"$CLAWSSH" exec --no-sync -s "$id" -- sh -c 'echo x > e.txt' ||
	    lib_case_fail "exec --no-sync"
	"$CLAWSSH" sync status --json "$id" > "$T/out" ||
	    lib_case_fail "sync status --json: status $?"
	one_json "$T/out" "sync status --json" '.synced == true and
	    .up == [{"change": "added", "path": "d.txt"}] and
	    .down == [{"change": "added", "path": "e.txt"}]'
	"$CLAWSSH" sync status "$id" > "$T/out" ||
	    lib_case_fail "sync status: status $?"
	expect_eq "$(cat "$T/out")" "up (local changes):
A d.txt
down (sandbox changes):
A e.txt" "sync status text"
	"$CLAWSSH" sync status --json nosuch > "$T/out" 2>/dev/null &&
	    lib_case_fail "sync status --json of an unknown id succeeded"
	[ -s "$T/out" ] && lib_case_fail "an error printed to stdout"
	[ -f "$T/wm/b \"c.txt" ] || lib_case_fail "the odd name did not come down"
	"$CLAWSSH" exec --no-sync -s "$id" -- sh -c 'echo y > "f \"g.txt"' ||
	    lib_case_fail "exec --no-sync (odd name)"
	"$CLAWSSH" sync status --json "$id" > "$T/out" ||
	    lib_case_fail "sync status --json (odd name): status $?"
	one_json "$T/out" "sync status --json (odd name)" \
	    'any(.down[]; .path == "f \"g.txt")' 
}

lib_run_cases "1 2 3 4"
