#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Exit statuses as ssh and sh give them (issue 16): a command that does
# not exist exits 127, one that cannot be run 126, with sh's message, in
# the runtimes bwrap and none, direct, through the daemon and as a
# background process;
# a pull that fails after the command ran does not hide its status.
#
#   case  what                                              main     after
#   1     bwrap: 127 and 126 with sh's messages; argv kept  FAIL     pass
#   2     runtime none: the same                            pass     pass
#   3     bwrap through the daemon, and process start       FAIL     pass
#   4     a pull failing after the command: its status,     FAIL     pass
#         both on stderr and in --sync-json
#   5     cases 1 and 4 as the non-root user clawssh-test   FAIL     pass
# (podman: tests/integration/exec_status_oci.sh; docker keeps --init,
# whose tini reports 127/126 itself: see clawssh(1), EXIT STATUS.)
# EXEC_STATUS_CASES="1 4" runs some (default: all).
# The case_N functions are called by name, by lib_run_cases.
# shellcheck disable=SC2317
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

command -v bwrap >/dev/null 2>&1 || { echo "SKIP: no bwrap"; exit 77; }
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
mkdir -m 700 "$R"
[ -n "${LIB_SSH_USER:-}" ] && chown "$LIB_SSH_USER:" "$R"

# prov KEY [FLAGS...]: the id of the key's sandbox on workspace $W.
prov() {
	_k=$1
	shift
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$_k" \
	    --remote-root "$R" --workspace "$W" "$@"
}

# ws N: a fresh workspace $W with a file that is not executable.
ws() {
	W="$T/ws$1"
	mkdir -p "$W"
	echo 'echo ran' > "$W/noexec.sh"
	chmod 644 "$W/noexec.sh"
}

# statuses WHAT CMD...: CMD... (a clawssh exec up to its "--") run with
# a missing command gives 127 and with a file that is not executable
# 126, each with sh's message; a quoted argv arrives as given.
statuses() {
	_what=$1
	shift
	"$@" -- no-such-command-xyz a b 2>"$T/st.err" >/dev/null
	_s=$?
	[ "$_s" -eq 127 ] || lib_case_fail "$_what: a missing command exited" \
	    "$_s, not 127: $(cat "$T/st.err")"
	grep -q "no-such-command-xyz: .*not found" "$T/st.err" ||
	    lib_case_fail "$_what: not sh's message: $(cat "$T/st.err")"
	grep -q "bwrap: execvp" "$T/st.err" &&
	    lib_case_fail "$_what: bwrap's own message leaked through"
	"$@" -- ./noexec.sh 2>"$T/st.err" >/dev/null
	_s=$?
	[ "$_s" -eq 126 ] || lib_case_fail "$_what: a file that is not" \
	    "executable exited $_s, not 126: $(cat "$T/st.err")"
	grep -qi "noexec.sh: .*permission denied" "$T/st.err" ||
	    lib_case_fail "$_what: not sh's message: $(cat "$T/st.err")"
	# shellcheck disable=SC2016
	_out=$("$@" -- printf '[%s]\n' 'a b' '$HOME' '"q"' "it's" '*' '' \
	    2>"$T/st.err")
	[ "$_out" = "[a b]
[\$HOME]
[\"q\"]
[it's]
[*]
[]" ] || lib_case_fail "$_what: argv changed on the way: '$_out'"
	"$@" -- sh -c 'exit 7' 2>/dev/null
	_s=$?
	[ "$_s" -eq 7 ] || lib_case_fail "$_what: exit 7 came back as $_s"
	return 0
}

# Case 1: bwrap.  Old code: bwrap's execvp failure, status 1 (FAIL).
case_1() {
	ws 1
	id=$(prov s1) || { lib_case_fail "provision"; return; }
	statuses "bwrap, mirrored" "$CLAWSSH" exec -s "$id"
	statuses "bwrap, --no-sync" "$CLAWSSH" exec -s "$id" --no-sync
}

# Case 2: runtime none (sh runs the command itself).
case_2() {
	ws 2
	id=$(prov s2 --runtime none) || { lib_case_fail "provision"; return; }
	statuses "runtime none" "$CLAWSSH" exec -s "$id"
}

# Case 3: through the daemon, and as a background process.
case_3() {
	ws 3
	lib_start_daemon "$T/daemon3.log"
	id=$(prov s3) || { lib_case_fail "provision"; return; }
	statuses "bwrap through the daemon" "$CLAWSSH" exec -s "$id"
	for _c in no-such-command-xyz:127 ./noexec.sh:126; do
		h=$("$CLAWSSH" process start -s "$id" -- "${_c%:*}") ||
		    { lib_case_fail "process start ${_c%:*}"; continue; }
		_i=0
		while [ "$_i" -lt 100 ]; do
			st=$("$CLAWSSH" process poll -s "$id" "$h" 2>&1)
			case $st in *exited*) break ;; esac
			sleep 0.1
			_i=$((_i + 1))
		done
		expect_match "$st" "exited ${_c#*:}" "process start ${_c%:*}"
		"$CLAWSSH" process log -s "$id" "$h" > "$T/plog" 2>&1
		grep -qi "${_c%:*}: .*\(not found\|permission denied\)" \
		    "$T/plog" || lib_case_fail "process ${_c%:*}: log: $(cat \
		    "$T/plog")"
	done
	kill "$DPID"
	wait "$DPID" 2>/dev/null
}

# Case 4: the command empties the workspace, so the pull halts (the
# mass-deletion guard).  Old code: status 255 whatever the command's
# was, and --sync-json said nothing of either (FAIL).
case_4() {
	ws 5
	for _f in a b c d e f; do echo "$_f" > "$W/$_f.txt"; done
	id=$(prov s5) || { lib_case_fail "provision"; return; }
	"$CLAWSSH" exec -s "$id" -- true || lib_case_fail "first exec"
	"$CLAWSSH" exec -s "$id" --sync-json -- sh -c 'rm -f ./*; exit 3' \
	    2>"$T/e5"
	_s=$?
	[ "$_s" -eq 3 ] || lib_case_fail "the command's status 3 came back" \
	    "as $_s: $(cat "$T/e5")"
	grep -q "sync down: .*mirror halted" "$T/e5" ||
	    lib_case_fail "the sync failure was not said: $(cat "$T/e5")"
	grep -q "exited with status 3" "$T/e5" ||
	    lib_case_fail "the command's status was not said: $(cat "$T/e5")"
	# A gateway shows a worker's last "clawssh: " line: the cause is in it.
	grep '^clawssh: ' "$T/e5" | tail -n 1 | grep -q "status 3.*mirror halted" ||
	    lib_case_fail "the last line lacks the status or the cause:" \
	    "$(cat "$T/e5")"
	grep '^{' "$T/e5" > "$T/j5"
	grep -q '^{"status": 3, "error": "[^"]*mirror halted' "$T/j5" ||
	    lib_case_fail "--sync-json: $(cat "$T/j5")"
	grep -q '"down": {"done": false' "$T/j5" ||
	    lib_case_fail "--sync-json says the pull was done"
	[ -e "$W/a.txt" ] || lib_case_fail "the guard let a deletion through"
	# Status 0 and a failed pull: 255, the command's 0 in the JSON.
	"$CLAWSSH" exec -s "$id" --sync-json -- sh -c 'rm -f ./*' 2>"$T/e5"
	_s=$?
	[ "$_s" -eq 255 ] || lib_case_fail "status 0 and a failed pull: $_s"
	grep -q "exited with status 0" "$T/e5" ||
	    lib_case_fail "status 0 not said: $(cat "$T/e5")"
	grep -q '^{"status": 0, "error": ' "$T/e5" ||
	    lib_case_fail "--sync-json (status 0): $(grep '^{' "$T/e5")"
	# A pull that works: no error member, the command's status.
	"$CLAWSSH" sync push "$id" 2>/dev/null || lib_case_fail "sync push"
	"$CLAWSSH" exec -s "$id" --allow-mass-delete --sync-json -- \
	    sh -c 'exit 4' 2>"$T/e5"
	_s=$?
	[ "$_s" -eq 4 ] || lib_case_fail "a clean exit 4 came back as $_s"
	grep -q '^{"status": 4, "sync": ' "$T/e5" ||
	    lib_case_fail "--sync-json (clean): $(grep '^{' "$T/e5")"
}

# Case 5: cases 1 and 4 again, connected as a non-root user.
case_5() {
	lib_cases_as_nonroot EXEC_STATUS_CASES "1 4"
}

lib_run_cases "${EXEC_STATUS_CASES:-1 2 3 4 5}"
