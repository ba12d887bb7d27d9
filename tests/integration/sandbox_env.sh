#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A sandbox is one machine (issue 17): with the host agent, every exec
# and background process of a bwrap sandbox joins one persistent
# contained environment -- /tmp, HOME, loopback and processes shared --
# that survives the client, restarts when its holder is gone, stops with
# `clawssh stop`, and leaves nothing behind on destroy.  Sandboxes do not
# share with each other.  Runs as the test's SSH user (root, or
# LIB_SSH_USER=clawssh-test for a non-root one).
. "$TESTLIB"

lib_need_bwrap

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
mkdir -p "$W" "$R"
# A non-root SSH user (LIB_SSH_USER) owns its remote root.
[ "$(id -u)" -ne 0 ] || chown "$TEST_USER:" "$R"

# provision KEY [FLAGS...]: print the id of a bwrap sandbox.
provision() {
	_k=$1
	shift
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$_k" \
	    --remote-root "$R" --workspace "$W" --mode remote "$@"
}
id=$(provision e1) || fail "provision"
other=$(provision e2) || fail "provision a second sandbox"
x() {
	"$CLAWSSH" exec -s "$id" "$@"
}

# 1. /tmp and HOME persist from one exec to the next; not to another
# sandbox.
x -- sh -c 'echo persisted > /tmp/note; echo home > "$HOME/h"' ||
    fail "write /tmp"
expect_eq "$(x -- cat /tmp/note)" "persisted" "/tmp kept between execs"
expect_eq "$(x -- sh -c 'cat "$HOME/h"')" "home" "HOME kept between execs"
out=$("$CLAWSSH" exec -s "$other" -- sh -c 'cat /tmp/note 2>&1' 2>&1)
expect_match "$out" "No such file" "another sandbox has its own /tmp"

# 2. A server started with `process start` on 127.0.0.1 answers a later
# exec, with the network off (loopback shared by the sandbox's commands).
command -v nc >/dev/null 2>&1 || fail "nc (netcat-openbsd) missing"
"$CLAWSSH" process start -s "$id" -- sh -c \
    'while :; do echo pong-$$ | nc -l -N 127.0.0.1 7077 || exit 1; done' >/dev/null ||
    fail "process start"
i=0
while ! out=$(x -- sh -c 'nc -N 127.0.0.1 7077 </dev/null' 2>&1) ||
    [ -z "$out" ]; do
	i=$((i + 1))
	[ $i -lt 50 ] || fail "the server did not answer a later exec: $out"
	sleep 0.1
done
expect_match "$out" "^pong-" "a later exec reached the background server"
out=$("$CLAWSSH" exec -s "$other" -- sh -c \
    'nc -N -w 1 127.0.0.1 7077 </dev/null 2>&1; echo rc=$?' 2>&1)
expect_match "$out" "rc=1" "another sandbox cannot reach that server"

# 3. ps in one exec sees the background process of the sandbox.
out=$(x -- ps -eo pid,args)
expect_match "$out" "nc -l -N 127.0.0.1 7077" "ps sees the background server"
out=$("$CLAWSSH" exec -s "$other" -- ps -eo args)
echo "$out" | grep -q "nc -l" && fail "another sandbox sees the server"

# 4. status shows the environment and its processes.
out=$("$CLAWSSH" status "$id")
expect_match "$out" "^environment: running" "status: running"
expect_match "$out" "nc -l -N" "status lists the sandbox's processes"
out=$("$CLAWSSH" status --json "$id")
expect_match "$out" '"running":[[:space:]]*true' "status --json"

# 4b. A terminal: exec -t runs the command on a terminal of the
# sandbox's own (its devpts), of the size of ours; a resize reaches it;
# ^C interrupts it; `shell` lands in the workspace.
PTY_RUN="${top_srcdir:-$(dirname "$0")/../..}/tests/helpers/pty_run.py"
python3 "$PTY_RUN" --out "$T/tty.out" --size 100x30 --expect 'ready' \
    --resize 90x20 --sleep 0.5 --send 'go\n' -- "$CLAWSSH" exec -s "$id" \
    -t -- sh -c 'tty; stty size; echo ready; read x; stty size; exit 7'
st=$?
expect_status $st 7 "exec -t: the command's status"
expect_match "$(cat "$T/tty.out")" '^/dev/pts/[0-9]*$' "exec -t: a tty"
expect_match "$(cat "$T/tty.out")" '^30 100$' "exec -t: the window size"
expect_match "$(cat "$T/tty.out")" '^20 90$' "exec -t: a resize reached it"
python3 "$PTY_RUN" --out "$T/int.out" --expect 'ready' --sleep 1 \
    --send '\x03' -- "$CLAWSSH" exec -s "$id" -t -- sh -c \
    'echo ready; exec sleep 100'
expect_status $? 130 "exec -t: ^C interrupts the command"
python3 "$PTY_RUN" --out "$T/sh.out" --expect '[$#] $' --send 'pwd; exit 3\n' \
    -- "$CLAWSSH" shell "$id"
expect_status $? 3 "shell: the shell's status"
expect_match "$(cat "$T/sh.out")" '/workspace$' "shell: in the workspace"

# 4c. ssh-config: OpenSSH's ssh lands in the same environment (the
# /tmp of the earlier execs), in the workspace, on a terminal; the host
# stanza still reaches the host.
"$CLAWSSH" ssh-config "$id" > "$T/stanza" || fail "ssh-config"
python3 "$PTY_RUN" --out "$T/ssh.out" --expect '[$#] $' \
    --send 'cat /tmp/note; pwd; tty; exit 5\n' -- \
    ssh -F "$T/stanza" -o BatchMode=yes "clawssh-$id"
expect_status $? 5 "ssh clawssh-ID: the shell's status"
expect_match "$(cat "$T/ssh.out")" 'persisted$' "ssh: the sandbox's /tmp"
expect_match "$(cat "$T/ssh.out")" '/workspace$' "ssh: in the workspace"
expect_match "$(cat "$T/ssh.out")" '/dev/pts/[0-9]*$' "ssh: a terminal"
out=$(ssh -F "$T/stanza" -o BatchMode=yes "clawssh-$id-host" cat /tmp/note \
    2>&1)
expect_match "$out" "No such file" "clawssh-ID-host is the host"

# 5. Stop ends every process (the background server too) and keeps the
# workspace; the next command starts it again.
x -- sh -c 'echo kept > /workspace/kept'
sentinel="sleep 3131.$$"
x -- sh -c "setsid $sentinel >/dev/null 2>&1 < /dev/null &" ||
    fail "start a sentinel"
pgrep -f "^$sentinel" >/dev/null || fail "the sentinel is not running"
expect_eq "$("$CLAWSSH" stop "$id")" "stopped $id" "stop"
i=0
while { pgrep -f "^$sentinel" || pgrep -f "^nc -l -N 127.0.0.1 7077"; } \
    >/dev/null && [ $i -lt 30 ]; do
	sleep 0.1
	i=$((i + 1))
done
pgrep -f "^$sentinel" >/dev/null && fail "a process survived stop"
pgrep -f "^nc -l -N 127.0.0.1 7077" >/dev/null &&
    fail "the background server survived stop"
expect_eq "$("$CLAWSSH" stop "$id")" "not running $id" "stop again"
expect_eq "$(x -- cat /workspace/kept)" "kept" "the workspace stays"
out=$(x -- sh -c 'cat /tmp/note 2>&1')
expect_match "$out" "No such file" "a stop ends the environment's /tmp"
expect_eq "$("$CLAWSSH" start "$id")" "running $id" "start: already running"
"$CLAWSSH" stop "$id" >/dev/null || fail "stop before start"
expect_eq "$("$CLAWSSH" start "$id")" "started $id" "start"

# 6. The holder killed (a host restart, simulated): the next command
# starts a new environment, and says so with -v.
read -r hp _ < "$R/$id/run/box.pid" || fail "no box.pid"
pkill -KILL -P "$hp" || fail "kill the holder"	# bwrap's init: all of it
out=$("$CLAWSSH" -v exec -s "$id" -- echo back 2>&1)
expect_match "$out" "^back$" "the command ran after the holder died"
expect_match "$out" "environment was gone" "-v says it was restarted"

# 6b. The client killed outright, its connection gone: box-exec sees its
# sshd go (no watchdog process on this path) and ends the command, TERM
# then KILL 2 s later (this one ignores TERM, HUP and INT); the
# environment stays.
"$CLAWSSH" exec -s "$id" -- sh -c \
    "trap '' TERM HUP INT; echo started; exec sleep 3134.$$" > "$T/k.out" 2>&1 &
cp=$!
i=0
while ! pgrep -f "^sleep 3134.$$" >/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
pgrep -f "^sleep 3134.$$" >/dev/null || fail "the command did not start"
kill -KILL "$cp"
i=0
while pgrep -f "^sleep 3134.$$" >/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
pgrep -f "^sleep 3134.$$" >/dev/null &&
    fail "the command outlived its client's connection by 10 s"
expect_eq "$(x -- echo still)" "still" "the environment stays"

# 7. Without the agent, commands still run (each in a sandbox of its
# own), and -v says why.
out=$(CLAWSSH_NO_AGENT=1 "$CLAWSSH" -v exec -s "$id" -- sh -c \
    'cat /tmp/note 2>&1; echo ran' 2>&1)
expect_match "$out" "^ran$" "the sh path runs the command"
expect_match "$out" "host agent is off" "-v names the sh path"

# 8. A memory limit: the kernel ends the sandbox's biggest process, not
# the host's, nor the sandbox's other processes (a memory cgroup where the
# host lets us make one; else RLIMIT_AS makes the allocation fail).
mem=$(provision e3 --memory 64M) || fail "provision with a memory limit"
"$CLAWSSH" exec -s "$mem" -- sh -c \
    "setsid sleep 3132.$$ >/dev/null 2>&1 </dev/null &" || fail "sleeper"
"$CLAWSSH" exec -s "$mem" -- tail /dev/zero >/dev/null 2>&1
st=$?
[ $st -ne 0 ] || fail "the memory hog was not stopped"
pgrep -f "^sleep 3132.$$" >/dev/null || fail "the sandbox's other process died"
if [ -d /sys/fs/cgroup/memory/clawssh-"$mem" ] ||
    [ -f /sys/fs/cgroup/clawssh-"$mem"/memory.max ]; then
	expect_status $st 137 "the OOM killer ended the hog"
fi
"$CLAWSSH" destroy "$mem" >/dev/null || fail "destroy the limited one"
pgrep -f "^sleep 3132.$$" >/dev/null && fail "destroy left the sleeper"
for c in /sys/fs/cgroup/memory/clawssh-"$mem" /sys/fs/cgroup/clawssh-"$mem"; do
	[ -d "$c" ] && fail "cgroup $c left"
done

# 8b. A CPU limit: the sandbox's processes together get at most that
# much CPU (a cpu cgroup where the host lets us make one; else a warning
# says it is not enforced).  A busy loop runs 2 s beside a sleep; its
# CPU ticks (100 a second) stay near 0.2 CPU's 40, far from a free
# loop's 200 (what the machine's other work leaves it only lowers it).
cpu=$(provision e4 --cpus 0.2) || fail "provision with a CPU limit"
# shellcheck disable=SC2016 # expanded in the sandbox
out=$("$CLAWSSH" exec -s "$cpu" -- sh -c 'sh -c "while :; do :; done" &
    p=$!; sleep 2; read -r s < /proc/$p/stat; kill $p; set -- $s;
    echo "ticks $((${14} + ${15}))"' 2>&1) || fail "busy loop: $out"
t=$(printf '%s\n' "$out" | sed -n 's/^ticks //p')
if [ -d /sys/fs/cgroup/cpu/clawssh-"$cpu" ] ||
    [ -f /sys/fs/cgroup/clawssh-"$cpu"/cpu.max ]; then
	[ "$t" -le 80 ] || fail "0.2 CPU: a busy loop got $t ticks in 2 s"
else
	expect_match "$out" "the CPU limit is not enforced" "said, not enforced"
fi
expect_match "$("$CLAWSSH" status "$cpu")" "CPUs 0.2 " "status shows it"
"$CLAWSSH" destroy "$cpu" >/dev/null || fail "destroy the CPU-limited one"
for c in /sys/fs/cgroup/cpu/clawssh-"$cpu" /sys/fs/cgroup/clawssh-"$cpu"; do
	[ -d "$c" ] && fail "cgroup $c left"
done

# 9. Destroy leaves no process, mount or cgroup of the sandbox.
x -- sh -c "setsid $sentinel >/dev/null 2>&1 < /dev/null &" ||
    fail "start a sentinel again"
hp=$(cut -d' ' -f1 "$R/$id/run/box.pid")
"$CLAWSSH" destroy "$id" >/dev/null || fail "destroy"
i=0
while { pgrep -f "^$sentinel" >/dev/null || kill -0 "$hp" 2>/dev/null; } &&
    [ $i -lt 30 ]; do
	sleep 0.1
	i=$((i + 1))
done
pgrep -f "^$sentinel" >/dev/null && fail "a process survived destroy"
kill -0 "$hp" 2>/dev/null && fail "the holder survived destroy"
grep -q "$R/$id" /proc/mounts && fail "a mount of the sandbox is left"
for c in /sys/fs/cgroup/pids/clawssh-"$id" /sys/fs/cgroup/clawssh-"$id" \
    /sys/fs/cgroup/memory/clawssh-"$id"; do
	[ -d "$c" ] && fail "cgroup $c left"
done
"$CLAWSSH" destroy "$other" >/dev/null || fail "destroy the other"

# 10. A sandbox removed behind clawssh's back (its remote root cleaned):
# its holder, unreachable from then on, ends itself within 10 s or so.
gone=$(provision e4) || fail "provision e4"
"$CLAWSSH" exec -s "$gone" -- sh -c \
    "setsid sleep 3133.$$ >/dev/null 2>&1 </dev/null &" || fail "sleeper"
read -r hp _ < "$R/$gone/run/box.pid" || fail "no box.pid"
rm -rf "${R:?}/$gone"
i=0
while { kill -0 "$hp" 2>/dev/null || pgrep -f "^sleep 3133.$$"; } \
    >/dev/null && [ $i -lt 200 ]; do
	sleep 0.1
	i=$((i + 1))
done
pgrep -f "^sleep 3133.$$" >/dev/null && fail "an orphaned environment stayed"
exit 0
