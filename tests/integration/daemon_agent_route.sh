#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A contained exec through the daemon takes the host agent's channel
# (clawssh-agent serve, no shell on the host) once the sandbox's
# persistent environment runs, and falls back to the shell path, which
# starts it, when it does not.  What passes through must be what the
# shell path gives.
#
#   case  what
#   1     first exec: the shell path starts the environment; the next
#         ones go through the agent (-v says which); /tmp persists
#   2     stdout, stderr, stdin, a binary round trip, exit statuses 0, 1,
#         42, deaths by SIGTERM (143) and SIGKILL (137)
#   3     --env (and a variable with a newline), --cwd, the default cwd,
#         HOME and PATH as the shell path sets them
#   4     --timeout: status 124 and the command gone; a killed client
#         (SIGKILL) gets its remote command stopped
#   5     stop, or other settings: the next exec falls back and starts
#         the environment again; the host's files stay out of view; a
#         sandbox removed on the host gets the shell path's message
#   6     ten parallel execs, each with its own output
#   7     cases 1 to 4 as the non-root user clawssh-test (root only)
#   8     the host agent killed mid-exec: the exec fails saying so, its
#         command is gone, the next exec starts a new agent
# ROUTE_CASES="1 4" runs some (default: all).
# The case_N functions are called by name, by lib_run_cases.
# shellcheck disable=SC2317,SC2016
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

lib_need_bwrap
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
mkdir -m 700 "$R"
[ -n "${LIB_SSH_USER:-}" ] && chown "$LIB_SSH_USER:" "$R"
lib_start_daemon "$T/daemon.log" -vv

# prov KEY: print the id of a remote-mode bwrap sandbox of KEY.
prov() {
	mkdir -p "$T/ws-$1"
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$1" \
	    --remote-root "$R" --workspace "$T/ws-$1" --mode remote \
	    --runtime bwrap
}

# x ARGS...: clawssh exec -s "$id" ARGS, verbose, its stderr's notes
# kept in $T/notes.
x() {
	"$CLAWSSH" exec -v -s "$id" "$@" 2> "$T/notes"
	_s=$?
	grep -v "^clawssh: \(using the clawssh daemon\|ran through the host \
agent's channel\|the host agent's channel: \|sandbox environment \)" \
	    "$T/notes" >&2
	return "$_s"
}

# routed WHAT: the last x went through the agent's channel.
routed() {
	grep -q "ran through the host agent's channel" "$T/notes" ||
	    lib_case_fail "$1: not through the agent: $(cat "$T/notes")"
}

# not_routed WHAT: the last x took the shell path.
not_routed() {
	if grep -q "ran through the host agent's channel" "$T/notes"; then
		lib_case_fail "$1: went through the agent"
	fi
	return 0
}

# warm: a sandbox of its own with its environment started.
warm() {
	id=$(prov "$1") || lib_case_fail "provision $1"
	x -- true || lib_case_fail "first exec of $1"
}

case_1() {
	id=$(prov one) || lib_case_fail "provision"
	out=$(x -- sh -c 'echo $$ > /tmp/first; echo first')
	expect_eq "$out" first "first exec"
	not_routed "first exec (no environment yet)"
	out=$(x -- cat /tmp/first) || lib_case_fail "second exec failed"
	routed "second exec"
	[ -n "$out" ] || lib_case_fail "/tmp did not persist"
	out=$(x -- sh -c 'ps -e -o comm= | grep -c "^ps$"')
	routed "ps"
	expect_eq "$out" 1 "ps inside the sandbox's pid namespace"
}

case_2() {
	warm two
	out=$(x -- sh -c 'echo out; echo err >&2; exit 3' 2> "$T/err2")
	expect_status $? 3 "exit 3"
	routed "streams"
	expect_eq "$out" out "stdout"
	expect_eq "$(cat "$T/err2")" err "stderr"
	for s in 0 1 42; do
		x -- sh -c "exit $s"
		expect_status $? "$s" "exit $s"
	done
	x -- sh -c 'kill -TERM $$'
	expect_status $? 143 "death by SIGTERM"
	x -- sh -c 'kill -KILL $$'
	expect_status $? 137 "death by SIGKILL"
	out=$(printf 'abc' | x -- cat)
	expect_eq "$out" abc "stdin"
	routed "stdin"
	head -c 1048576 /dev/urandom > "$T/bin"
	sum=$(x -- cat < "$T/bin" | sha256sum)
	expect_eq "$sum" "$(sha256sum < "$T/bin")" "1 MiB binary round trip"
	out=$(x -- cat < /dev/null)
	expect_eq "$out" "" "empty stdin"
	# Output at once (serve once relayed it before STARTED, which the
	# daemon takes as a broken agent: "a reply out of protocol").
	for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do
		out=$(x -- echo "$i")
		expect_eq "$out" "$i" "quick output $i"
		routed "quick output $i"
	done
}

case_3() {
	warm three
	x -- mkdir -p sub/dir || lib_case_fail "mkdir"
	out=$(x --env A=b --env C='x
y' -- sh -c 'printf "%s|%s" "$A" "$C"')
	routed "env"
	expect_eq "$out" "b|x
y" "--env"
	out=$(B=from-here x --env B -- sh -c 'echo "$B"')
	expect_eq "$out" from-here "--env NAME"
	out=$(x --cwd sub/dir -- pwd)
	expect_eq "$out" /workspace/sub/dir "--cwd"
	out=$(x -- pwd)
	expect_eq "$out" /workspace "default cwd"
	out=$(x -- sh -c 'echo "$HOME"; command -v sh')
	expect_eq "$out" "/tmp
/usr/bin/sh" "HOME and PATH"
	if x --cwd nowhere -- true; then
		lib_case_fail "a missing --cwd ran"
	fi
}

case_4() {
	warm four
	x --timeout 1 -- sleep 31.25
	expect_status $? 124 "--timeout"
	routed "--timeout"
	lib_gone_cmd "sleep 31.25"
	"$CLAWSSH" exec -s "$id" -- sleep 32.75 2> /dev/null &
	cp=$!
	_i=0
	while ! pgrep -f "sleep 32.75" > /dev/null && [ "$_i" -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	pgrep -f "sleep 32.75" > /dev/null ||
	    lib_case_fail "the command did not start"
	kill -KILL "$cp"
	wait "$cp" 2> /dev/null
	lib_gone_cmd "sleep 32.75"
	x -- true || lib_case_fail "an exec after the kill"
	routed "an exec after the kill"
}

case_5() {
	warm five
	"$CLAWSSH" stop "$id" > /dev/null 2>&1 || lib_case_fail "stop"
	out=$(x -- echo again)
	expect_eq "$out" again "exec after stop"
	not_routed "exec after stop"
	x -- true
	routed "the exec after that"
	# Other settings (a limit): the agent refuses the environment
	# started with the old ones; the shell path says so and runs the
	# command there (a setting does not end running processes); after
	# stop, the new environment has the new limit.
	mkdir -p "$XDG_CONFIG_HOME/clawssh"
	printf '{ "sandbox": { "limits": { "openFiles": 200 } } }\n' \
	    > "$XDG_CONFIG_HOME/clawssh/config.json"
	x -- true
	not_routed "the exec under new settings"
	grep -q "runs with older settings" "$T/notes" ||
	    lib_case_fail "no warning of older settings: $(cat "$T/notes")"
	"$CLAWSSH" stop "$id" > /dev/null 2>&1 || lib_case_fail "stop (2)"
	out=$(x -- sh -c 'ulimit -n')
	expect_eq "$out" 200 "the new limit"
	out=$(x -- sh -c 'ulimit -n')
	expect_eq "$out" 200 "the new limit, again"
	routed "the exec after that"
	rm "$XDG_CONFIG_HOME/clawssh/config.json"
	if x -- test -e "$R"; then
		lib_case_fail "the host's remote root is visible"
	fi
	lib_end_holders
	rm -rf "${R:?}/$id"
	if x -- true; then
		lib_case_fail "exec in a removed sandbox ran"
	fi
	grep -q "clawssh: .*\(gone\|destroy\|no longer\|missing\)" \
	    "$T/notes" || lib_case_fail "no message: $(cat "$T/notes")"
}

case_6() {
	warm six
	for i in 1 2 3 4 5 6 7 8 9 10; do
		"$CLAWSSH" exec -v -s "$id" -- sh -c "sleep 0.2; echo $i" \
		    > "$T/par.$i" 2> "$T/par.$i.err" &
	done
	wait
	for i in 1 2 3 4 5 6 7 8 9 10; do
		expect_eq "$(cat "$T/par.$i")" "$i" "parallel exec $i"
		grep -q "host agent's channel" "$T/par.$i.err" ||
		    lib_case_fail "parallel exec $i not through the agent"
	done
}

# our_serve: the pids of clawssh-agent serve under this test's sshd.
our_serve() {
	for _p in $(pgrep -f "clawssh-agent[^ ]* serve"); do
		_q=$_p
		while [ "$_q" -gt 1 ] && [ "$_q" != "$SSHD_PID" ]; do
			_q=$(awk '{ print $4 }' "/proc/$_q/stat" 2> /dev/null) ||
			    break
			[ -n "$_q" ] || break
		done
		[ "$_q" = "$SSHD_PID" ] && echo "$_p"
	done
	return 0
}

case_8() {
	warm eight
	x -- true
	routed "before the kill"
	"$CLAWSSH" exec -s "$id" -- sleep 33.5 > /dev/null 2> "$T/k.err" &
	cp=$!
	_i=0
	while ! pgrep -f "sleep 33.5" > /dev/null && [ "$_i" -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	pids=$(our_serve)
	[ -n "$pids" ] || lib_case_fail "no serve under our sshd"
	# shellcheck disable=SC2086
	kill -KILL $pids
	wait "$cp"
	s=$?
	[ "$s" -ne 0 ] || lib_case_fail "the exec whose agent died exited 0"
	cat "$T/k.err" >&2
	grep -q "host agent" "$T/k.err" ||
	    lib_case_fail "no clear error: $(cat "$T/k.err")"
	lib_gone_cmd "sleep 33.5"
	out=$(x -- echo back)
	expect_eq "$out" back "the exec after the agent died"
	routed "the exec after the agent died"
}

case_7() {
	lib_cases_as_nonroot ROUTE_CASES "1 2 3 4"
}

lib_run_cases "${ROUTE_CASES:-1 2 3 4 5 6 8 7}"
