#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# clawssh-agent's persistent sandbox (issue 17), driven locally with a real
# bwrap and no sshd: commands of one sandbox share /tmp, loopback and the
# pid namespace; exit statuses and signals pass through; --pty gives a
# terminal that follows resizes; a killed holder is started again; stop
# leaves nothing; ten concurrent first commands start one holder; a
# command cannot reach the holder's fds.  Run as root, the cases run a
# second time as an unprivileged user (setpriv, uid 65534).
# shellcheck disable=SC2016,SC2013
set -u

AGENT=${CLAWSSH_AGENT:-$(pwd)/clawssh-agent}
[ -x "$AGENT" ] || { echo "FAIL: no clawssh-agent at $AGENT" >&2; exit 1; }
command -v bwrap > /dev/null 2>&1 || { echo "SKIP: no bwrap"; exit 77; }
bwrap --ro-bind / / --unshare-all true 2> /dev/null ||
    { echo "SKIP: bwrap cannot create namespaces here"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/clawssh-agent.XXXXXX") || exit 99
chmod 711 "$T"
RUNDIRS=

cleanup() {
	for _r in $RUNDIRS; do
		"$AGENT" box-stop --dir "$_r" > /dev/null 2>&1
	done
	[ -n "${NCPID:-}" ] && kill "$NCPID" 2> /dev/null
	if [ -z "${KEEP_TEST_DIR:-}" ]; then
		rm -rf "$T"
	else
		echo "kept $T" >&2
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	echo "FAIL${WHO:+ ($WHO)}: $*" >&2
	for _r in $RUNDIRS; do
		[ -f "$_r/box.log" ] && sed 's/^/box.log: /' "$_r/box.log" >&2
	done
	exit 1
}

# expect_eq ACTUAL EXPECTED WHAT
expect_eq() {
	[ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
}

# expect_match TEXT GREP-PATTERN WHAT
expect_match() {
	printf '%s\n' "$1" | grep -q -- "$2" ||
	    fail "$3: '$1' does not match '$2'"
}

# The start script a client writes: box-hold on a bwrap command line.
# start_script RUNDIR WORKSPACE SPEC
start_script() {
	printf 'exec "%s" box-hold --dir "%s" --spec "%s" -- bwrap ' \
	    "$AGENT" "$1" "$3"
	printf -- '--unshare-all --new-session --cap-drop ALL '
	printf -- '--ro-bind /usr /usr --symlink usr/bin /bin '
	printf -- '--symlink usr/lib /lib --symlink usr/lib64 /lib64 '
	printf -- '--symlink usr/sbin /sbin --ro-bind /etc /etc '
	printf -- '--proc /proc --dev /dev --tmpfs /tmp '
	printf -- '--bind "%s" /workspace --chdir /workspace ' "$2"
	printf -- '--remount-ro / --\n'
}

# use NAME: the sandbox NAME ($R, $WS) for the x function.
use() {
	R=$BASE/$1/run
	WS=$BASE/$1/ws
	mkdir -p "$WS"
	__claw_box_start=$(start_script "$R" "$WS" T1)
	export __claw_box_start
	RUNDIRS="$RUNDIRS $R"
}

# x [BOX-EXEC-OPTIONS] -- CMD...: box-exec in the current sandbox.
x() {
	timeout 60 "$AGENT" box-exec --dir "$R" "$@"
}

# holder_pid: the host pid of the current sandbox's box-init.
holder_pid() {
	_b=$(cut -d' ' -f1 "$R/box.pid")
	for _i in $(cat "/proc/$_b/task/$_b/children"); do
		for _h in $(cat "/proc/$_i/task/$_i/children"); do
			tr '\0' ' ' < "/proc/$_h/cmdline" |
			    grep -q ' box-init ' && echo "$_h"
		done
	done
}

# gone PID: true once PID is no process (or a zombie), within 5 s.
gone() {
	_i=0
	while [ $_i -lt 50 ]; do
		[ -e "/proc/$1" ] || return 0
		awk '{ sub(/.*\) /, ""); exit $0 ~ /^[ZX]/ ? 0 : 1 }' \
		    "/proc/$1/stat" 2> /dev/null && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	return 1
}

case_shared_tmp() {
	use shared
	x -- sh -c 'echo persisted > /tmp/note' || fail "write /tmp"
	expect_eq "$(x -- cat /tmp/note)" "persisted" "/tmp is shared"
	[ -e /tmp/note ] && [ "$(cat /tmp/note)" = persisted ] &&
	    fail "the sandbox's /tmp is the host's"
	expect_eq "$(x -- sh -c 'echo $HOME $PWD')" "/tmp /workspace" \
	    "HOME and the default cwd"
	expect_eq "$(x --cwd /tmp -- pwd)" "/tmp" "--cwd"
	out=$(x --cwd /nonexistent -- true 2>&1)
	expect_eq "$?" "1" "a missing cwd"
	expect_match "$out" "clawssh: cd: /nonexistent: No such file" \
	    "a missing cwd's message"
	out=$(FOO=1 BAR=2 LC_X=3 __claw_x=4 x --keep 'FOO' -- env)
	expect_match "$out" "^FOO=1$" "--keep passes FOO"
	expect_match "$out" "^LC_X=3$" "LC_* passes"
	printf '%s\n' "$out" | grep -q -e '^BAR=' -e '^__claw' &&
	    fail "unlisted variables reached the command: $out"
	echo ok: shared /tmp
}

# box-exec --join starts nothing: no holder (or another spec) is 75
# before anything runs; a running one is joined.
case_join() {
	use join
	out=$(x --join --check 2>&1)
	expect_eq "$?" 75 "--join --check with no holder"
	out=$(x --join -- sh -c 'echo ran > /tmp/j' 2>&1)
	expect_eq "$?" 75 "--join with no holder"
	[ -e "$R/box.sock" ] && fail "--join started a holder"
	x -- true || fail "start the holder"
	x --join --check --spec T1 || fail "--join --check, running"
	out=$(x --join --check --spec OTHER 2>&1)
	expect_eq "$?" 75 "--join --check with another spec"
	expect_eq "$(x --join --spec T1 -- sh -c 'echo joined > /tmp/j;
	    cat /tmp/j')" joined "--join runs in the holder"
	expect_eq "$(x -- cat /tmp/j)" joined "the same /tmp as the others"
	out=$("$AGENT" box-exec --check --dir "$R" 2>&1)
	expect_eq "$?" 125 "--check without --join"
	echo ok: join
}

case_loopback() {
	use net
	port=$((20000 + $$ % 20000))
	x -- sh -c "nc -l 127.0.0.1 $port > /tmp/got 2>&1 < /dev/null &" ||
	    fail "start a server"
	out=$(x -- sh -c "i=0; while [ \$i -lt 50 ]; do
	    printf hello | nc -N 127.0.0.1 $port 2>/dev/null && break
	    sleep 0.1; i=\$((i + 1)); done; sleep 0.2; cat /tmp/got")
	expect_eq "$out" "hello" "a later command reaches the loopback server"
	# The host's loopback is another: a host listener sees nothing.
	: > "$T/host-got"
	nc -l 127.0.0.1 $((port + 1)) > "$T/host-got" 2>&1 < /dev/null &
	NCPID=$!
	sleep 0.2
	x -- sh -c "printf leak | nc -N -w 1 127.0.0.1 $((port + 1))" \
	    2> /dev/null && fail "reached the host's loopback"
	expect_eq "$(x -- sh -c 'tail -n +3 /proc/net/dev | cut -d: -f1 |
	    tr -d " "')" "lo" "only lo inside"
	kill "$NCPID" 2> /dev/null
	wait "$NCPID" 2> /dev/null
	NCPID=
	expect_eq "$(cat "$T/host-got")" "" "the host listener got nothing"
	echo ok: loopback
}

case_ps() {
	use ps
	x -- sh -c 'sleep 4242 > /dev/null 2>&1 &' || fail "background sleep"
	i=0	# (until the sleep has finished its exec)
	while st=$("$AGENT" box-status --dir "$R") &&
	    ! printf '%s' "$st" | grep -q '"cmd":"sleep 4242"' &&
	    [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -n "$st" ] || fail "box-status"
	expect_match "$st" '^{"running":true,"started":[0-9]*,"spec":"T1",' \
	    "box-status's head"
	expect_match "$st" '"cmd":"sleep 4242"' "box-status lists the sleep"
	expect_match "$st" '"pid":1,"ppid":0,' "box-status lists pid 1"
	expect_match "$(x -- ps ax)" "sleep 4242" \
	    "a later command's ps sees the sleep"
	expect_eq "$(x --spec T1 -- true 2>&1)" "" "same spec: no warning"
	out=$(x --spec T2 -- true 2>&1)
	w="warning: the sandbox environment runs with older settings;"
	expect_match "$out" "$w 'clawssh stop ps' then the next" \
	    "another spec: a warning"
	echo ok: ps
}

case_status() {
	use status
	for c in 0 1 42; do
		x -- sh -c "exit $c"
		expect_eq "$?" "$c" "exit $c"
	done
	out=$(x -- no-such-command-x 2>&1)
	expect_eq "$?" "127" "a missing command"
	expect_eq "$out" "no-such-command-x: not found" "127's message"
	out=$(x -- /etc 2>&1)
	expect_eq "$?" "126" "a directory"
	printf '#!/bin/sh\necho script-ran\n' > "$WS/s.sh"
	chmod 644 "$WS/s.sh"
	x -- ./s.sh 2> /dev/null
	expect_eq "$?" "126" "a file without x"
	printf 'echo noexec-ran "$#" "$@"\n' > "$WS/n.sh"
	chmod 755 "$WS/n.sh"
	expect_eq "$(x -- ./n.sh)" "noexec-ran 0" "no #!: run by sh"
	expect_eq "$(x -- ./n.sh a 'b c')" "noexec-ran 2 a b c" \
	    "no #!: run by sh, with its arguments"
	x -- sh -c 'kill -9 $$'
	expect_eq "$?" "137" "killed by 9"
	x -- sh -c 'kill -TERM $$'
	expect_eq "$?" "143" "killed by 15"
	echo ok: exit statuses
}

case_signals() {
	use sig
	# (box-exec itself in the background, not a function's subshell)
	"$AGENT" box-exec --dir "$R" -- \
	    sh -c 'trap "echo got-term; exit 7" TERM; sleep 30 & wait' \
	    > "$T/sig.out" &
	p=$!
	sleep 1
	kill -TERM $p
	wait $p
	expect_eq "$?" "7" "the trap's status"
	expect_eq "$(cat "$T/sig.out")" "got-term" "SIGTERM reached the command"
	# SIGKILL to box-exec: the holder sees EOF and kills the group.
	"$AGENT" box-exec --dir "$R" -- \
	    sh -c 'echo $$ > /tmp/victim; sleep 4343 & sleep 4344' &
	p=$!
	i=0
	while ! x -- test -s /tmp/victim && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -KILL $p
	wait $p 2> /dev/null
	out=$(x -- sh -c 'i=0; while [ $i -lt 50 ]; do
	    ps ax | grep -q "[s]leep 434[34]" || { echo clean; exit; }
	    sleep 0.1; i=$((i + 1)); done; ps ax')
	expect_eq "$out" "clean" "the command's group died with box-exec"
	echo ok: signals
}

case_pty() {
	use pty
	command -v script > /dev/null 2>&1 ||
	    { echo "skip: no script"; return; }
	script -qc "stty rows 30 cols 100; $AGENT box-exec --dir $R --pty \
	    -- sh -c 'tty; stty size; test -t 0 && echo stdin-tty'" \
	    /dev/null < /dev/null > "$T/pty.out" 2>&1
	# (script, its stdin at EOF, writes an EOF the outer pty echoes: ^@)
	out=$(tr -d '\r' < "$T/pty.out" | sed 's/\^@//g')
	expect_match "$out" "^/dev/pts/[0-9]*$" "tty names a pty"
	expect_match "$out" "^30 100$" "the window size reached the pty"
	expect_match "$out" "^stdin-tty$" "stdin is the terminal"
	script -qc "stty rows 30 cols 100; $AGENT box-exec --dir $R --pty \
	    -- sh -c 'trap \"stty size; exit 0\" WINCH; stty size; i=0;
	    while [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done;
	    echo no-winch' < /dev/tty & p=\$!; sleep 1.5;
	    stty rows 40 cols 120; kill -WINCH \$p; wait \$p" \
	    /dev/null < /dev/null > "$T/pty2.out" 2>&1
	out=$(tr -d '\r' < "$T/pty2.out" | sed 's/\^@//g')
	expect_match "$out" "^40 120$" "a resize reached the command: $out"
	out=$(printf 'echo in-$((6*7))\nexit 3\n' |
	    x --pty -- sh -i 2>&1 | tr -d '\r')
	expect_match "$out" "in-42" "stdin reaches a pty command"
	x --pty -- sh -c 'exit 5' < /dev/null > /dev/null
	expect_eq "$?" "5" "a pty command's status"
	echo ok: pty
}

case_restart() {
	use restart
	out=$(x -v -- true 2>&1)
	expect_eq "$out" "clawssh: sandbox environment started" "-v first start"
	x -- sh -c 'echo before > /tmp/f'
	h=$(holder_pid)
	[ -n "$h" ] || fail "no holder found"
	kill -KILL "$h"
	gone "$h" || fail "the holder did not die"
	out=$(x -v -- sh -c 'cat /tmp/f 2>/dev/null || echo fresh' 2>&1)
	w="the sandbox environment was gone (its holder ended or the host"
	expect_match "$out" "$w restarted); started a new one" \
	    "-v says it started a new one"
	expect_match "$out" "^fresh$" "a new environment"
	echo ok: restart
}

case_stop() {
	use stop
	x -- sh -c 'sleep 4545 > /dev/null 2>&1 &'
	b=$(cut -d' ' -f1 "$R/box.pid")
	s=
	i=0
	while [ -z "$s" ] && [ $i -lt 50 ]; do
		for p in /proc/[0-9]*; do
			{ tr '\0' ' ' < "$p/cmdline"; } 2> /dev/null |
			    grep -q '^sleep 4545 $' && s=${p#/proc/}
		done
		[ -n "$s" ] || sleep 0.1
		i=$((i + 1))
	done
	[ -n "$s" ] || fail "no sentinel sleep on the host"
	expect_eq "$("$AGENT" box-stop --dir "$R")" "stopped" "box-stop"
	gone "$s" || fail "the sandbox's sleep outlived box-stop"
	gone "$b" || fail "the bwrap outlived box-stop"
	[ -e "$R/box.sock" ] && fail "box.sock left"
	[ -e "$R/box.pid" ] && fail "box.pid left"
	expect_eq "$("$AGENT" box-stop --dir "$R")" "not running" "again"
	expect_eq "$("$AGENT" box-status --dir "$R")" '{"running":false}' \
	    "box-status of a stopped sandbox"
	expect_eq "$("$AGENT" box-status --dir "$BASE/none/run")" \
	    '{"running":false}' "box-status of no sandbox"
	echo ok: stop
}

case_concurrent() {
	use conc
	__claw_box_start=$(start_script "$R" "$WS" "TC$$")
	i=0
	while [ $i -lt 10 ]; do
		x -- readlink /proc/self/ns/pid > "$T/conc.$i" 2>&1 &
		i=$((i + 1))
	done
	wait
	expect_eq "$(cat "$T"/conc.* | sort -u | wc -l)" "1" \
	    "one pid namespace: $(cat "$T"/conc.*)"
	n=0
	for p in /proc/[0-9]*; do
		{ tr '\0' ' ' < "$p/cmdline"; } 2> /dev/null |
		    grep -q "^/proc/self/fd/[0-9]* box-init .*--spec TC$$ \$" &&
		    n=$((n + 1))
	done
	expect_eq "$n" "1" "holders started"
	echo ok: concurrent
}

case_hostile() {
	use hostile
	out=$(x -- sh -c 'for p in /proc/[0-9]*; do
	    { tr "\0" " " < $p/cmdline; } 2>/dev/null |
	    grep -q "^/proc/self/fd/[0-9]* box-init " && echo ${p#/proc/}
	    done')
	expect_match "$out" "^[0-9][0-9]*$" "one holder inside"
	# (uid 0 may list the directory, owned by root for an undumpable
	# process, but not follow or open its entries)
	expect_match "$(x -- sh -c 'sleep 5 & readlink /proc/$!/fd/1')" \
	    "." "a control: a command reads its own processes' fds"
	x -- sh -c "readlink /proc/$out/fd/[0-9]*" 2> /dev/null | grep . &&
	    fail "a command read the holder's fds"
	x -- sh -c "cat /proc/$out/fd/0" > /dev/null 2>&1 &&
	    fail "a command opened the holder's fds"
	x -- cat "/proc/$out/environ" > /dev/null 2>&1 &&
	    fail "a command read the holder's environ"
	expect_eq "$(x -- sh -c 'ls /proc/self/fd | wc -l')" "4" \
	    "a command inherits only its stdio"
	x -- test -e "$R/box.sock" && fail "the socket is visible inside"
	echo ok: hostile
}

case_start_fails() {
	use bad
	out=$(__claw_box_start=''; x -- true 2>&1)
	expect_eq "$?" "125" "no start script"
	expect_eq "$out" "clawssh: no holder for $R and no start script" \
	    "no start script's message"
	out=$(__claw_box_start="exec '$AGENT' box-hold --dir '$R' -- \
	    bwrap --bogus-option --"; x -- true 2>&1)
	expect_eq "$?" "125" "a runtime that fails"
	w="^clawssh: the sandbox environment did not start: "
	expect_match "$out" "$w.*bogus-option" \
	    "the runtime's failure, from box.log"
	out=$(__claw_box_start="exit 3"; x -- true 2>&1)
	expect_eq "$?" "125" "a start script that fails"
	echo ok: start failures
}

cases() {
	case_start_fails
	case_shared_tmp
	case_join
	case_loopback
	case_ps
	case_status
	case_signals
	case_pty
	case_restart
	case_stop
	case_concurrent
	case_hostile
}

expect_match "$("$AGENT" version)" "^clawssh-agent [^ ]* 1$" "version"

BASE=$T/root
mkdir -p "$BASE"
WHO=$(id -un)
cases

# Again as an unprivileged user, with its own copy of the agent.
if [ "$(id -u)" -eq 0 ] && command -v setpriv > /dev/null 2>&1 &&
    [ -z "${AGENT_BOX_INNER:-}" ]; then
	mkdir -p "$T/nobody"
	cp "$AGENT" "$T/nobody/clawssh-agent"
	cp "$0" "$T/nobody/agent_box.sh"
	chmod 755 "$T/nobody" "$T/nobody/clawssh-agent"
	chmod 644 "$T/nobody/agent_box.sh"
	chown 65534:65534 "$T/nobody"
	setpriv --reuid=65534 --regid=65534 --clear-groups env \
	    AGENT_BOX_INNER=1 TMPDIR="$T/nobody" HOME="$T/nobody" \
	    CLAWSSH_AGENT="$T/nobody/clawssh-agent" \
	    sh "$T/nobody/agent_box.sh" || fail "as uid 65534"
fi
echo "agent_box: all cases passed ($WHO)"
