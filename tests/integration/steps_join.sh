#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Host-side steps made without the daemon (issue 17): a push, a pull and
# the file tools of a bwrap sandbox run in its running environment
# (`clawssh-agent box-exec --join` in the step's script), and in a jail
# of their own when it does not run (after `clawssh stop`), starting
# nothing.  Seen on the host's process table while a big push runs.
# Runs as the test's SSH user, and from a root run once more as the
# non-root clawssh-test.
. "$TESTLIB"

lib_need_bwrap
command -v pgrep >/dev/null 2>&1 || { echo "SKIP: no pgrep"; exit 77; }

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
mkdir -p "$W" "$R"
[ "$(id -u)" -ne 0 ] || chown "$TEST_USER:" "$R"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key j1 \
    --remote-root "$R" --workspace "$W") || fail "provision"
C() {
	"$CLAWSSH" --no-daemon -F "$T/ssh_config" "$@"
}

# push_watch NAME: push the big file NAME; print "join" if a box-exec
# --join of this sandbox ran meanwhile, "jail" if a step's bwrap did.
push_watch() {
	C sync push "$id" "$1" > "$T/push.out" 2>&1 &
	_p=$!
	_seen=
	while kill -0 "$_p" 2>/dev/null; do
		pgrep -f "box-exec --join --dir $R/$id" >/dev/null &&
		    _seen="$_seen join"
		# a step's jail dies with its parent; the holder's bwrap
		# (the environment) does not
		pgrep -af bwrap | grep -- --die-with-parent |
		    grep -q "$R/$id/workspace" && _seen="$_seen jail"
		sleep 0.02
	done
	wait "$_p" || { cat "$T/push.out" >&2; fail "push of $1"; }
	printf '%s\n' "$_seen" | tr ' ' '\n' | sort -u | tr '\n' ' '
}

# 1. The environment runs (an exec started it): the push's step joins it.
C exec -s "$id" -- sh -c 'echo env-up > /tmp/up' || fail "exec"
head -c 300000000 /dev/zero > "$W/big1"
seen=$(push_watch big1)
expect_match "$seen" "join" "a push joined the running environment"
case $seen in *jail*) fail "a push took a jail of its own: $seen" ;; esac
expect_eq "$(C exec -s "$id" -- sh -c 'wc -c < big1')" 300000000 \
    "the pushed file arrived"

# 2. A pull, and the file tools on a remote-mode sandbox's host copy,
# take the environment too (-vv says a step tries it).
C exec -s "$id" -- sh -c 'echo pulled > p.txt' || fail "exec p.txt"
C sync pull "$id" p.txt 2>/dev/null || fail "pull"
expect_eq "$(cat "$W/p.txt")" pulled "a pull through the environment"
mkdir -p "$T/ws2"
rid=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key j2 \
    --remote-root "$R" --workspace "$T/ws2" --mode remote) ||
    fail "provision remote"
C exec -s "$rid" -- true || fail "exec (remote)"
printf 'written\n' | C -vv write -s "$rid" w.txt 2> "$T/w.err" ||
    { cat "$T/w.err" >&2; fail "write"; }
grep -q "a step that joins the environment if the agent" "$T/w.err" ||
    fail "write's step did not try the environment: $(cat "$T/w.err")"
expect_eq "$(C exec -s "$rid" -- cat w.txt)" written "write's file"

# 3. Stopped: the steps take their jail and start nothing.
C stop "$id" > /dev/null || fail "stop"
head -c 300000000 /dev/zero > "$W/big2"
seen=$(push_watch big2)
expect_match "$seen" "jail" "a push with the environment stopped took a jail"
out=$(C status --json "$id" | tr -d ' \t\n')
expect_match "$out" '"running":false' "the push started no environment"
echo "steps_join: ok as $TEST_USER"

# Once more as the non-root SSH user clawssh-test, from a root run.
if [ "$(id -u)" -eq 0 ] && [ -z "${LIB_SSH_USER:-}" ]; then
	env LIB_SSH_USER=clawssh-test sh "$0" >&2
	_s=$?
	[ "$_s" -eq 0 ] || [ "$_s" -eq 77 ] || fail "as clawssh-test: $_s"
fi
