#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The process tool against a real sshd: start, then poll from a later
# invocation; output since the last poll; exit statuses (0, non-zero,
# signal); list; log --tail; stdin through write and --eof; kill of a
# whole process tree; survival of the connection; the log cap; bad
# handles and garbled state on the host.  Through the host agent's
# proc-* commands, or with CLAWSSH_NO_AGENT=1 (process_tool_sh.sh) the
# host's sh scripts; -vv says which.  The main sandbox is uncontained
# (runtime none) so that the host side can see the process's pids; a
# bwrap sandbox at the end shows that processes are contained like exec.
. "$TESTLIB"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
mkdir -p "$W"
mkdir -m 700 "$R"
[ -n "${LIB_SSH_USER:-}" ] && chown "$LIB_SSH_USER:" "$R"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key p \
    --runtime none --remote-root "$R" --workspace "$W") || fail "provision"
P="$R/$id/procs"

# Whatever a failed run leaves running is killed before $T goes: the
# session of a process not done whose working directory is still ours
# (an ended one's pid may be another test's process by now).
proc_cleanup() {
	for f in "$P"/p*/pid; do
		[ -f "$f" ] && [ ! -e "${f%/pid}/done" ] || continue
		pid=$(cat "$f")
		case $pid in ''|*[!0-9]*) continue ;; esac
		case $(readlink "/proc/$pid/cwd" 2>/dev/null) in
		"$T"/*) [ "$pid" -gt 1 ] && pkill -KILL -s "$pid" 2>/dev/null ;;
		esac
	done
	i=0
	while [ $i -lt 30 ]; do
		left=0
		for d in "$P"/p*; do
			[ -d "$d" ] && [ ! -e "$d/done" ] && left=1
		done
		[ $left -eq 0 ] && break
		sleep 0.1
		i=$((i + 1))
	done
}
trap 'proc_cleanup; lib_cleanup' EXIT
pr() {
	sub=$1
	shift
	"$CLAWSSH" process "$sub" -s "$id" "$@"
}

# wait_state HANDLE PATTERN: poll --json (bounded) until it matches.
wait_state() {
	i=0
	while [ $i -lt 100 ]; do
		js=$(pr log --json "$1") || fail "log $1 failed"
		printf '%s\n' "$js" | grep -q -- "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	fail "process $1 never reached '$2': $js"
}

# The host agent answers, or (CLAWSSH_NO_AGENT=1) the sh scripts.
want="the host agent's proc-\* command"
[ "${CLAWSSH_NO_AGENT:-}" = 1 ] && want="the host's sh script"
out=$("$CLAWSSH" -vv process list -s "$id" 2>&1) || fail "list: $out"
expect_match "$out" "process list: $want" "which way a process call goes"

# Start prints one handle; a later invocation polls it; output since the
# last poll only.  The workspace is the working directory, and an --env
# value reaches the process without touching the host's disk.
h=$(pr start --name ticker --env SECRET=s3cr3t-value -- sh -c \
    'pwd; echo "secret=${SECRET%-value}"; echo one; read x; echo two')
expect_status $? 0 "start"
expect_match "$h" '^p[0-9a-f]\{8\}$' "start prints a handle"
expect_eq "$(stat -c %U "$P/$h")" "${LIB_SSH_USER:-root}" \
    "the process's state is the SSH user's"
expect_eq "$(printf '%s\n' "$h" | wc -l | tr -d ' ')" 1 "one line on stdout"
i=0
while [ $i -lt 50 ] && ! grep -q one "$P/$h"/log.* 2>/dev/null; do
	sleep 0.1
	i=$((i + 1))
done
out=$(pr poll "$h" 2>"$T/err")
expect_status $? 0 "first poll"
expect_match "$out" "^$R/$id/workspace\$" "runs in the workspace"
expect_match "$out" "^secret=s3cr3t\$" "environment delivered"
expect_match "$out" "^one\$" "first output"
expect_match "$(cat "$T/err")" "process $h running" "state on stderr"
grep -r s3cr3t-value "$R" >/dev/null && fail "env value on the host's disk"
out=$(pr poll "$h" 2>/dev/null)
expect_eq "$out" "" "nothing new since the last poll"

# write delivers stdin; the process keeps its stdin until --eof.
echo go | pr write "$h" || fail "write"
wait_state "$h" '"state":"exited"'
js=$(pr poll --json "$h")
expect_match "$js" '"handle":"'"$h"'"' "poll json handle"
expect_match "$js" '"state":"exited"' "poll json state"
expect_match "$js" '"exit_status":0' "poll json exit status"
expect_match "$js" '"output":"two\\n"' "only the new output"
echo more | pr write "$h" 2>"$T/err" && fail "write to an exited process"
expect_match "$(cat "$T/err")" "has exited" "write after exit refused"

# A while-read loop sees each line, and --eof ends it.
h2=$(pr start --name echo -- sh -c \
    'while read l; do echo "got:$l"; done; echo "eof"; exit 3')
printf 'a\nb\n' | pr write "$h2" || fail "write a b"
printf 'c\n' | pr write "$h2" || fail "write c"
wait_state "$h2" 'got:c'
js=$(pr poll --json "$h2")
expect_match "$js" '"state":"running"' "still running before --eof"
expect_match "$js" '"exit_status":null' "no status while running"
pr write --eof "$h2" < /dev/null || fail "write --eof"
wait_state "$h2" '"state":"exited"'
js=$(pr poll --json "$h2")
expect_match "$js" '"exit_status":3' "non-zero exit status kept"
expect_match "$js" 'eof' "process saw EOF"
out=$(pr log "$h2")
expect_eq "$out" "$(printf 'got:a\ngot:b\ngot:c\neof')" "whole log"

# The host lost its agent while this client still keeps its path: the
# call goes through the sh script instead (-v says so) and the client
# forgets the path, so that the next call asks the host again.
if [ "${CLAWSSH_NO_AGENT:-}" != 1 ]; then
	kept=$(grep -l " clawssh-agent-ok /" "$CLAWSSH_STATE_DIR"/agents/*) ||
	    fail "no kept answer about the host agent"
	sed -i "s| clawssh-agent-ok /.*| clawssh-agent-ok $T/gone/agent|" \
	    "$kept"
	out=$("$CLAWSSH" -v process log -s "$id" "$h2" 2>&1) ||
	    fail "log with the agent gone: $out"
	expect_match "$out" "is not there any more: the sh script instead" \
	    "agent gone: the sh script answers"
	expect_match "$out" "^got:c$" "agent gone: the log"
	grep -q "$T/gone" "$kept" 2>/dev/null &&
	    fail "the lost agent's path is still kept"
	out=$("$CLAWSSH" -vv process list -s "$id" 2>&1) ||
	    fail "list after: $out"
	expect_match "$out" "process list: the host agent's proc-\* command" \
	    "the agent again after"
fi

# Killed by a signal: 128+N.
h3=$(pr start -- sh -c 'kill -9 $$')
wait_state "$h3" '"state":"exited"'
js=$(pr poll --json "$h3")
expect_match "$js" '"exit_status":137' "signal recorded as 128+N"

# log --tail.
h4=$(pr start -- sh -c 'i=1; while [ $i -le 50 ]; do echo "line $i";
	i=$((i + 1)); done')
wait_state "$h4" '"state":"exited"'
expect_eq "$(pr log --tail 3 "$h4")" "$(printf 'line 48\nline 49\nline 50')" \
    "log --tail 3"
expect_eq "$(pr log "$h4" | wc -l | tr -d ' ')" 50 "log shows everything"

# kill of a process tree: the children go too.
h5=$(pr start --name tree -- sh -c \
    'sleep 300 & echo $! > kid1; (sleep 300 & echo $! > kid2; wait) &
	echo started; wait')
wait_state "$h5" 'started'
i=0
while [ $i -lt 50 ] && ! [ -s "$R/$id/workspace/kid2" ]; do
	sleep 0.1
	i=$((i + 1))
done
k1=$(cat "$R/$id/workspace/kid1")
k2=$(cat "$R/$id/workspace/kid2")
leader=$(cat "$P/$h5/pid")
kill -0 "$k1" && kill -0 "$k2" || fail "children not running"
expect_eq "$(ps -o sid= -p "$leader" | tr -d ' ')" "$leader" \
    "process is a session leader"
pr kill "$h5" || fail "kill"
sleep 0.2
kill -0 "$k1" 2>/dev/null && fail "child 1 survived the kill"
kill -0 "$k2" 2>/dev/null && fail "grandchild survived the kill"
kill -0 "$leader" 2>/dev/null && fail "leader survived the kill"
wait_state "$h5" '"state":"killed"'
js=$(pr poll --json "$h5")
expect_match "$js" '"exit_status":143' "killed by TERM: 143"
pr kill "$h5" 2>"$T/err" || fail "kill of an exited process"
expect_match "$(cat "$T/err")" "already exited" "second kill says so"

# A record whose process went without its rc (its supervisor killed, a
# reboot) and whose pid is another process's by now: kill must not
# signal that process (a session leader, as a reused pid often is), and
# the process is lost.
hs=$(pr start -- sleep "285.$$") || fail "start stale"
wait_state "$hs" '"state":"running"'
kill -KILL "$(cat "$P/$hs/sup")"
kill -KILL -- "-$(cat "$P/$hs/pid")"
setsid sleep "283.$$" < /dev/null > /dev/null 2>&1 &
other=$!
sleep 0.2
echo "$other" > "$P/$hs/pid"
echo "$other" > "$P/$hs/sup"
pr kill --signal KILL "$hs" 2>"$T/err" || fail "kill of a stale record"
expect_match "$(cat "$T/err")" "already exited" "a stale record: exited"
kill -0 "$other" 2>/dev/null ||
    fail "kill signalled the process that has a stale record's pid"
wait_state "$hs" '"state":"lost"'
kill -KILL "$other"

# --signal sends just that signal.
h6=$(pr start -- sh -c 'trap "echo usr1; exit 7" USR1; echo ready;
	while :; do sleep 0.1; done')
wait_state "$h6" 'ready'
pr kill --signal USR1 "$h6" || fail "kill --signal"
wait_state "$h6" '"state":"killed"'
expect_match "$(pr poll --json "$h6")" '"exit_status":7' "handled signal"
pr kill --signal NOPE "$h6" 2>"$T/err" && fail "unknown signal accepted"
expect_match "$(cat "$T/err")" "bad --signal 'NOPE': expected a signal name" \
    "unknown signal"

# The process outlives clawssh and its SSH connection (gone when start
# returned): its supervisor lives on, in a session of its own, and
# later output still arrives.
h7=$(pr start --name survivor -- sh -c 'echo early; sleep 1; echo late;
	sleep 300')
sup=$(cat "$P/$h7/sup")
expect_eq "$(ps -o sid= -p "$sup" | tr -d ' ')" "$sup" \
    "supervisor in a session of its own"
sleep 1.5
out=$(pr poll "$h7" 2>"$T/err")
expect_match "$out" "late" "output after the connection dropped"
expect_match "$(cat "$T/err")" "running" "still running"
kill -0 "$sup" || fail "supervisor died with the connection"

# list shows them all, with names, states and commands.
out=$(pr list)
expect_match "$out" "^HANDLE" "list header"
expect_match "$out" "^$h  *ticker  *exited 0 " "list exited"
expect_match "$out" "^$h5  *tree  *killed " "list killed"
expect_match "$out" "^$h7  *survivor  *running .*sleep 300" "list running"
expect_match "$out" "^$hs  *-  *lost " "list lost"
expect_eq "$(printf '%s\n' "$out" | wc -l | tr -d ' ')" 9 "list rows"
js=$(pr list --json)
expect_match "$js" '"handle":"'"$h3"'","name":null,"state":"exited",'\
'"exit_status":137' "list --json"
pr kill --signal 9 "$h7" || fail "kill survivor by number"
expect_match "$(pr wait --json --timeout 10 "$h7")" '"exit_status":137' \
    "a signal by number"

# The log cap: old output is dropped, a marker says so, the host keeps
# at most the cap.
h8=$(pr start --log-max 4096 -- sh -c 'i=0; while [ $i -lt 2000 ]; do
	printf "%07d\n" $i; i=$((i + 1)); done')
wait_state "$h8" '"state":"exited"'
out=$(pr log "$h8")
expect_match "$out" '^\[clawssh: [0-9]* bytes of earlier output dropped\]$' \
    "dropped marker in log"
expect_match "$out" '^0001999$' "last line kept"
printf '%s\n' "$out" | grep -q '^0000000$' && fail "oldest output kept"
size=$(cat "$P/$h8"/log.* | wc -c)
[ "$size" -le 4096 ] || fail "log on disk is $size bytes, over the cap"
[ "$size" -ge 3000 ] || fail "log on disk is only $size bytes"
dropped=$(printf '%s\n' "$out" | sed -n 's/^\[clawssh: \([0-9]*\) .*/\1/p')
expect_eq "$((dropped + size))" 16000 "dropped plus kept is everything"
out=$(pr poll "$h8" 2>/dev/null)
expect_match "$out" 'bytes of earlier output dropped' "dropped marker in poll"
expect_eq "$(pr poll "$h8" 2>/dev/null)" "" "second poll empty, no marker"
expect_match "$(pr log --tail 1 "$h8")" '^0001999$' "tail: no marker"
pr start --log-max 10 -- true 2>"$T/err" && fail "tiny --log-max accepted"
expect_match "$(cat "$T/err")" "bad --log-max" "--log-max range"

# Bad and unknown handles.
pr poll ../x 2>"$T/err"
expect_status $? 255 "bad handle"
expect_match "$(cat "$T/err")" "is not a process handle" "bad handle message"
pr poll p00000000 2>"$T/err"
expect_status $? 255 "unknown handle"
expect_match "$(cat "$T/err")" "no process p00000000" "unknown handle message"
pr poll --tail 3 "$h" 2>"$T/err" && fail "--tail accepted by poll"
pr start -- 2>"$T/err" && fail "start without a command"

# A process directory that is a symbolic link is not followed.
mkdir "$T/elsewhere"
ln -s "$T/elsewhere" "$P/pdeadbeef"
pr poll pdeadbeef 2>"$T/err"
expect_status $? 255 "symlinked process directory"
expect_match "$(cat "$T/err")" "no process pdeadbeef" "symlink refused"
rm "$P/pdeadbeef"

# Process commands mark the sandbox used, as exec does.
touch -d '2 days ago' "$R/$id/last-used"
pr list > /dev/null || fail "list"
[ -n "$(find "$R/$id/last-used" -mmin -5)" ] ||
    fail "list did not mark the sandbox used"

# Garbled state on the host: a clear error, no crash.
printf 'garbage here\n' > "$P/$h/rc"
pr poll "$h" 2>"$T/err"
expect_status $? 255 "garbled rc"
expect_match "$(cat "$T/err")" "garbled state for process $h" "garbled rc"
printf 'x\n' > "$P/$h2/chunk"
pr log "$h2" 2>"$T/err"
expect_status $? 255 "garbled chunk"
expect_match "$(cat "$T/err")" "garbled state file" "garbled chunk"
printf '1; touch %s/pwned\n' "$T" > "$P/$h4/pid"
rm -f "$P/$h4/rc"
pr kill "$h4" 2>"$T/err"
expect_status $? 255 "garbled pid"
expect_match "$(cat "$T/err")" "garbled state file" "garbled pid"
[ -e "$T/pwned" ] && fail "state file content was run"
printf 'we ird\n' > "$P/$h3/name"
pr list 2>"$T/err"
expect_status $? 255 "garbled name in list"
expect_match "$(cat "$T/err")" "garbled process listing" "garbled listing"
# Mirror mode: local changes go up before the process starts.
echo "local edit" > "$W/fresh.txt"
hm=$("$CLAWSSH" process start -s "$id" -- cat fresh.txt) ||
    fail "start after a local edit"
sleep 2
out=$("$CLAWSSH" process poll -s "$id" "$hm" 2>/dev/null)
expect_eq "$out" "local edit" "process sees the pushed local change"

# In a bwrap sandbox a background process is contained like exec: it
# starts in /workspace without capabilities, and kill stops its tree.
if command -v bwrap >/dev/null 2>&1 &&
    bwrap --ro-bind / / --unshare-all true 2>/dev/null; then
	bid=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
	    --key pb --remote-root "$R" --workspace "$W") ||
	    fail "provision bwrap"
	bh=$("$CLAWSSH" -vv process start -s "$bid" -- sh -c 'pwd;
	    grep CapEff /proc/self/status; sleep 297 & sleep 296' \
	    2>"$T/start.err") || fail "contained start: $(cat "$T/start.err")"
	want="the host agent's proc-start"
	[ "${CLAWSSH_NO_AGENT:-}" = 1 ] && want="the host's sh script"
	expect_match "$(cat "$T/start.err")" "process start: $want" \
	    "which way a start goes"
	sleep 2
	out=$("$CLAWSSH" process poll -s "$bid" "$bh" 2>/dev/null)
	expect_match "$out" "^/workspace$" "contained process in /workspace"
	expect_match "$out" "^CapEff:.0000000000000000$" "contained: no caps"
	"$CLAWSSH" process kill -s "$bid" "$bh" >/dev/null 2>&1 ||
	    fail "contained kill"
	i=0	# (a loaded machine, an ASan build: up to 5 s)
	while pgrep -f "sleep 29[67]" >/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	pgrep -f "sleep 29[67]" >/dev/null && fail "contained tree survived"
fi
# Destroying a sandbox stops its background processes.
did=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key pd \
    --runtime none --remote-root "$R" --workspace "$W") ||
    fail "provision for destroy"
dsecs="289.$$"
"$CLAWSSH" process start -s "$did" -- sleep "$dsecs" >/dev/null ||
    fail "start before destroy"
sleep 1
pgrep -f "sleep $dsecs" >/dev/null || fail "process not running"
"$CLAWSSH" destroy "$did" >/dev/null || fail "destroy"
sleep 1
pgrep -f "sleep $dsecs" >/dev/null && fail "process outlived destroy"
exit 0
