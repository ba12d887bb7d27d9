#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A sandbox's life and its sync state (issue 16): no state outlives its
# sandbox, explicit transfers keep the mirror's state, and recreate keeps
# the settings in force.
#
#   case  what                                              main     after
#   1     destroy, then provision the same key: the next    FAIL     pass
#         exec is seeded; the state files are gone
#   2     recreate: the next exec is seeded                 FAIL     pass
#   3     a daemon running across destroy+provision and     FAIL     pass
#         recreate
#   4     sync push, sync pull (whole and PATH), then exec: FAIL     pass
#         nothing undone
#   5     recreate keeps --network and other settings;      FAIL     pass
#         the stale hint names the flags and does it
#   6     cases 1, 2 and 4 as the non-root user             FAIL     pass
#         clawssh-test (skipped without root)
# LIFECYCLE_CASES="1 4" runs some (default: all).
# The case_N functions are called by name, by lib_run_cases.
# shellcheck disable=SC2317
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

command -v bwrap >/dev/null 2>&1 || { echo "SKIP: no bwrap"; exit 77; }
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
MF="$T/state/manifests"
R="$T/root"
mkdir -m 700 "$R"
[ -n "${LIB_SSH_USER:-}" ] && chown "$LIB_SSH_USER:" "$R"

# prov KEY WORKSPACE [FLAGS...]: print the id of the key's sandbox.
prov() {
	_k=$1
	_w=$2
	shift 2
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$_k" \
	    --remote-root "$R" --workspace "$_w" "$@"
}

# x ARGS...: clawssh exec -s "$id" ARGS (the case's sandbox).
x() {
	"$CLAWSSH" exec -s "$id" "$@"
}

# files WS: a workspace of six files in two directories.
files() {
	mkdir -p "$1/src" "$1/doc"
	for _f in a b c; do
		echo "$_f" > "$1/src/$_f.txt"
		echo "$_f" > "$1/doc/$_f.md"
	done
}

# seeded WHAT: the next exec sees the whole local workspace and the
# sync brings its output down.
seeded() {
	out=$(x -- sh -c 'cat src/a.txt doc/c.md; echo made > out.txt' \
	    2>"$T/seeded.err") || lib_case_fail "$1: exec failed: $(cat \
	    "$T/seeded.err")"
	[ "$out" = "a
c" ] || lib_case_fail "$1: the workspace was not seeded: '$out'"
	[ "$(cat "$W/out.txt" 2>/dev/null)" = made ] ||
	    lib_case_fail "$1: the command's output did not come down"
	rm -f "$W/out.txt"
	x -- true || lib_case_fail "$1: the exec after it failed"
}

# no_state WHAT: no sync state file of $id is left.
no_state() {
	for _f in "$MF/$id.manifest" "$MF/$id.manifest.log"; do
		[ -e "$_f" ] && lib_case_fail "$1: $_f was left behind"
	done
	return 0
}

# Case 1: destroy, then provision the same key.  Old code: the state
# files stayed, the next exec pushed nothing and halted on the "empty"
# workspace (FAIL).
case_1() {
	W="$T/ws1"
	files "$W"
	id=$(prov k1 "$W") || { lib_case_fail "provision"; return; }
	seeded "first use"
	echo local > "$MF/$id.manifest.log"	# a log of a state: goes too
	"$CLAWSSH" destroy "$id" > /dev/null || lib_case_fail "destroy"
	no_state "after destroy"
	[ -e "$R/$id" ] && lib_case_fail "destroy left $R/$id"
	id2=$(prov k1 "$W") || { lib_case_fail "provision again"; return; }
	[ "$id2" = "$id" ] || lib_case_fail "another id: $id2"
	seeded "destroy then provision"
	# A state the record does not vouch for (its sandbox made again
	# behind this machine's back) is dropped by provision too.
	cp "$MF/$id.manifest" "$T/old.manifest"
	rm -rf "${R:?}/$id"
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key k1 \
	    --remote-root "$R" --workspace "$W" > /dev/null ||
	    lib_case_fail "provision after the host lost it"
	seeded "provision after the host lost the sandbox"
	"$CLAWSSH" destroy "$id" > /dev/null
	cp "$T/old.manifest" "$MF/$id.manifest"	# a stray old state
	prov k1 "$W" > /dev/null || lib_case_fail "provision over a stray state"
	seeded "a stray state of a destroyed sandbox"
}

# Case 2: recreate.  Old code: the state stayed (FAIL).
case_2() {
	W="$T/ws2"
	files "$W"
	id=$(prov k2 "$W") || { lib_case_fail "provision"; return; }
	seeded "first use"
	x -- sh -c 'echo host-only > host.txt'
	[ -e "$W/host.txt" ] || lib_case_fail "host.txt did not come down"
	[ "$("$CLAWSSH" recreate "$id")" = "$id" ] ||
	    lib_case_fail "recreate did not print the id"
	no_state "after recreate"
	[ -z "$(ls -A "$R/$id/workspace")" ] ||
	    lib_case_fail "recreate kept the old workspace"
	seeded "recreate"
	[ "$(x -- cat host.txt)" = host-only ] ||
	    lib_case_fail "the local copy of host.txt was not sent up"
}

# Case 3: a daemon running across destroy+provision and recreate.
# Old code: the states stayed (FAIL).
case_3() {
	W="$T/ws3"
	files "$W"
	lib_start_daemon "$T/daemon3.log"
	id=$(prov k3 "$W") || { lib_case_fail "provision"; return; }
	seeded "first use"
	x -- true
	echo more > "$W/src/d.txt"
	[ "$(x -- cat src/d.txt)" = more ] ||
	    lib_case_fail "a change through the daemon did not go up"
	"$CLAWSSH" destroy "$id" > /dev/null || lib_case_fail "destroy"
	no_state "after destroy"
	prov k3 "$W" > /dev/null || lib_case_fail "provision again"
	seeded "destroy then provision, daemon running"
	echo again > "$W/src/e.txt"
	[ "$(x -- cat src/e.txt)" = again ] ||
	    lib_case_fail "after destroy+provision a change did not go up"
	x -- sh -c 'echo w > watched.txt'
	[ "$(cat "$W/watched.txt" 2>/dev/null)" = w ] ||
	    lib_case_fail "after destroy+provision a change did not come down"
	"$CLAWSSH" recreate "$id" > /dev/null || lib_case_fail "recreate"
	seeded "recreate, daemon running"
	[ "$(x -- cat src/e.txt watched.txt)" = "again
w" ] || lib_case_fail "after recreate the local copy was not sent up"
	kill "$DPID"
	wait "$DPID" 2>/dev/null
}

# Case 4: sync push and sync pull on a mirror sandbox update its state.
# Old code: a file pushed, then deleted here, came back on the next
# exec; one pulled, then deleted here, too (FAIL).
case_4() {
	W="$T/ws4"
	files "$W"
	id=$(prov k4 "$W") || { lib_case_fail "provision"; return; }
	RW="$R/$id/workspace"
	seeded "first use"
	echo p > "$W/pushed.txt"
	"$CLAWSSH" sync push "$id" 2>/dev/null || lib_case_fail "sync push"
	rm "$W/pushed.txt"
	x -- true || lib_case_fail "exec after sync push"
	[ -e "$W/pushed.txt" ] && lib_case_fail "a pushed file deleted here came back"
	[ -e "$RW/pushed.txt" ] && lib_case_fail "the local deletion did not go up"
	# sync push PATH: only that path's state changes.
	echo q > "$W/src/q.txt"
	echo r > "$W/r.txt"
	"$CLAWSSH" sync push "$id" src 2>/dev/null ||
	    lib_case_fail "sync push PATH"
	rm "$W/src/q.txt"
	out=$(x -- sh -c 'ls src; cat r.txt') || lib_case_fail "exec after push PATH"
	case $out in *q.txt*) lib_case_fail "q.txt deleted here stayed there" ;; esac
	[ -e "$W/src/q.txt" ] && lib_case_fail "q.txt came back"
	expect_match "$out" "^r$" "r.txt (outside the PATH) went up with the exec"
	# sync pull: what the host made, then deleted here, stays deleted.
	x --no-sync -- sh -c 'echo h > h.txt; echo i > doc/i.md'
	"$CLAWSSH" sync pull "$id" 2>/dev/null || lib_case_fail "sync pull"
	[ "$(cat "$W/h.txt" 2>/dev/null)" = h ] || lib_case_fail "pull"
	rm "$W/h.txt"
	x -- true || lib_case_fail "exec after sync pull"
	[ -e "$W/h.txt" ] && lib_case_fail "a pulled file deleted here came back"
	[ -e "$RW/h.txt" ] && lib_case_fail "the local deletion did not go up"
	x --no-sync -- sh -c 'echo j > doc/j.md'
	"$CLAWSSH" sync pull "$id" doc 2>/dev/null || lib_case_fail "sync pull PATH"
	rm "$W/doc/j.md"
	x -- true
	[ -e "$W/doc/j.md" ] && lib_case_fail "j.md (pulled PATH) came back"
	# A change here not yet sent stays to be sent: a local deletion the
	# whole push did not carry still goes up with the next exec.
	rm "$W/doc/a.md"
	"$CLAWSSH" sync push "$id" 2>/dev/null
	x -- true
	[ -e "$RW/doc/a.md" ] && lib_case_fail "a local deletion before the push was lost"
	[ -e "$W/doc/a.md" ] && lib_case_fail "doc/a.md came back"
	st=$("$CLAWSSH" sync status "$id" 2>&1)
	[ "$st" = "up (local changes):
down (sandbox changes):" ] || lib_case_fail "sync status not clean: $st"
}

# rec_net WHAT EXPECTED: the sandbox's network, as status and the
# host's metadata say.
rec_net() {
	expect_match "$("$CLAWSSH" status "$id")" "network: *$2" "$1 (status)"
	grep -q "\"network\":[[:space:]]*\"$2\"" "$R/$id/meta.json" ||
	    lib_case_fail "$1: meta.json says another network"
}

# Case 5: recreate keeps the settings in force.  Old code: recreate
# took no flags, the hint said only "clawssh recreate ID", and recreate
# made the sandbox with network none again (FAIL).
case_5() {
	W="$T/ws5"
	mkdir -p "$W"
	id=$(prov k5 "$W" --network host --memory 512M) ||
	    { lib_case_fail "provision"; return; }
	rec_net "provisioned" host
	"$CLAWSSH" recreate "$id" > /dev/null || lib_case_fail "recreate"
	rec_net "recreate kept it" host
	expect_match "$("$CLAWSSH" status "$id")" "memory 536870912" \
	    "recreate kept --memory"
	prov k5 "$W" > /dev/null 2>"$T/err5"
	grep -q "other settings" "$T/err5" &&
	    lib_case_fail "provision without flags calls it stale: $(cat "$T/err5")"
	# New flags on provision: the hint names them, and does it.
	prov k5 "$W" --network none > /dev/null 2>"$T/err5"
	grep -q "run: clawssh recreate --network 'none' $id" "$T/err5" ||
	    lib_case_fail "the hint does not name the flag: $(cat "$T/err5")"
	"$CLAWSSH" recreate --network none "$id" > /dev/null ||
	    lib_case_fail "recreate --network none"
	rec_net "recreate --network none" none
	prov k5 "$W" > /dev/null 2>"$T/err5"
	grep -q "other settings" "$T/err5" && lib_case_fail "stale after the hint"
	"$CLAWSSH" recreate --network host --access ro "$id" > /dev/null ||
	    lib_case_fail "recreate with two flags"
	rec_net "recreate --network host" host
	grep -q '"access":[[:space:]]*"ro"' "$R/$id/meta.json" ||
	    lib_case_fail "recreate --access ro not applied"
	# The config's sandbox section counts, then the flags over it.
	mkdir -p "$XDG_CONFIG_HOME/clawssh"
	echo '{ "sandbox": { "network": "none" } }' \
	    > "$XDG_CONFIG_HOME/clawssh/config.json"
	"$CLAWSSH" recreate "$id" > /dev/null || lib_case_fail "recreate (config)"
	rec_net "the config's network" none
	grep -q '"access":[[:space:]]*"ro"' "$R/$id/meta.json" ||
	    lib_case_fail "recreate dropped access ro"
	rm "$XDG_CONFIG_HOME/clawssh/config.json"
	# What names another sandbox is refused, and nothing is lost.
	"$CLAWSSH" recreate --key other "$id" > /dev/null 2>"$T/err5"
	expect_status $? 255 "recreate --key"
	grep -q "give only settings flags" "$T/err5" ||
	    lib_case_fail "recreate --key: $(cat "$T/err5")"
	"$CLAWSSH" recreate --network bogus "$id" > /dev/null 2>"$T/err5"
	expect_status $? 255 "recreate --network bogus"
	[ -d "$R/$id" ] || lib_case_fail "a refused recreate destroyed the sandbox"
	return 0
}

# Case 6: cases 1, 2 and 4 again, connected as a non-root user.
case_6() {
	lib_cases_as_nonroot LIFECYCLE_CASES "1 2 4"
}

lib_run_cases "${LIFECYCLE_CASES:-1 2 3 4 5 6}"
