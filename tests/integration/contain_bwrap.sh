#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The bwrap runtime against a real sshd: what a command inside a sandbox
# can and cannot do (issue 5's proof list), and that secrets do not leak.
# A variable the host's sshd puts into every session: never forwarded.
# shellcheck disable=SC2034 # lib.sh reads it
SSHD_EXTRA="SetEnv HOST_API_TOKEN=hostleak42"
. "$TESTLIB"

lib_need_bwrap

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
mkdir -p "$W"
echo data > "$W/f.txt"

# provision KEY [FLAGS...]: print the id of a bwrap sandbox.
provision() {
	k=$1
	shift
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$k" \
	    --remote-root "$R" --workspace "$W" --mode remote "$@"
}
id=$(provision c1) || fail "provision"
expect_match "$("$CLAWSSH" status "$id" --json)" '"runtime":.*"bwrap"' \
    "bwrap is the default runtime"
x() {
	"$CLAWSSH" exec -s "$id" "$@"
}

# Read-only root, writable /workspace, private /tmp.
out=$(x -- sh -c 'touch /etc/clawssh-x 2>&1; touch /usr/x 2>&1; \
    touch /clawssh-x 2>&1; echo ok > /workspace/w && echo ws-ok; \
    echo t > /tmp/t && echo tmp-ok; pwd')
expect_match "$out" "/etc/clawssh-x.*Read-only file system" "/etc is ro"
expect_match "$out" "/usr/x.*Read-only file system" "/usr is ro"
expect_match "$out" "ws-ok" "/workspace is writable under rw"
expect_match "$out" "tmp-ok" "/tmp is writable"
expect_match "$out" "^/workspace$" "commands start in /workspace"
[ -e /etc/clawssh-x ] && fail "wrote to the host's /etc"
expect_eq "$(cat "$R/$id/workspace/w")" "ok" "workspace write reached host"

# The host's home directories and other sandboxes are hidden.
out=$(x -- sh -c 'ls -A /root /home; ls '"$R"' 2>&1 | wc -l')
expect_eq "$(echo "$out" | grep -v ':$' | grep -cv '^$')" "1" \
    "nothing visible under /root, /home"

# No network but lo, no route out; no capabilities; no new privileges;
# PID 1 is not the host's init.
out=$(x -- sh -c 'tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " "; \
    tail -n +2 /proc/net/route | wc -l; \
    grep -E "^(CapEff|CapPrm|NoNewPrivs)" /proc/self/status; \
    cat /proc/1/comm')
expect_eq "$(echo "$out" | sed -n 1p)" "lo" "only lo"
expect_eq "$(echo "$out" | sed -n 2p)" "0" "no routes"
expect_match "$out" "^CapEff:.0000000000000000$" "CapEff 0"
expect_match "$out" "^CapPrm:.0000000000000000$" "CapPrm 0"
expect_match "$out" "^NoNewPrivs:.1$" "NoNewPrivs 1"
[ "$(echo "$out" | tail -n 1)" = "$(cat /proc/1/comm)" ] &&
    [ "$(cat /proc/1/comm)" != bwrap ] && fail "PID 1 is the host's"

# The environment is cleared: the host session's token is gone, --env
# values arrive, and they never show in a process listing on the host.
canary=clawcanary$$x
API_TOKEN=$canary x --env API_TOKEN -- sh -c 'sleep 2; env' > "$T/env.out" &
epid=$!
sleep 1
ps -eww -o args > "$T/ps.out"
wait $epid
grep -q "$canary" "$T/ps.out" && fail "canary in the host's process list"
grep -q "^API_TOKEN=$canary$" "$T/env.out" || fail "--env not delivered"
grep -q hostleak42 "$T/env.out" && fail "host session variable leaked"
grep -q "^HOME=/tmp$" "$T/env.out" || fail "HOME is not /tmp"
grep -rqs "$canary" "$R" "$T/sshd.log" && fail "canary written on the host"

# A timeout kills the whole tree inside the sandbox.
# (a duration no other test's process has, to find the sleepers)
secs="293.$$"
out=$(x --timeout 2 -- sh -c "sleep $secs & sleep $secs & echo started; wait")
expect_status $? 124 "timeout status"
i=0
while pgrep -f "sleep $secs" >/dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
pgrep -f "sleep $secs" >/dev/null && fail "sleepers survived the timeout"

# ro access: /workspace read-only; none: a private empty workspace.
ro=$(provision c2 --access ro) || fail "provision ro"
out=$("$CLAWSSH" exec -s "$ro" -- sh -c 'cat f.txt; touch g 2>&1')
expect_match "$out" "^data$" "ro workspace readable"
expect_match "$out" "Read-only file system" "ro workspace not writable"
none=$(provision c3 --access none) || fail "provision none"
out=$("$CLAWSSH" exec -s "$none" -- sh -c 'ls -A | wc -l; echo p > p')
expect_eq "$(echo "$out" | head -n 1)" "0" "none: empty workspace"
[ -e "$R/$none/workspace/p" ] && fail "none: wrote the shared workspace"

# network host: the host's interfaces are there.
net=$(provision c4 --network host) || fail "provision network host"
n=$("$CLAWSSH" exec -s "$net" -- sh -c 'tail -n +3 /proc/net/dev | wc -l')
[ "$n" -ge 1 ] || fail "network host: no interfaces"

# runtime none is the remote user, uncontained.
un=$(provision c5 --runtime none) || fail "provision runtime none"
out=$("$CLAWSSH" exec -s "$un" -- pwd)
expect_eq "$out" "$R/$un/workspace" "runtime none runs on the host"
# Limits: processes over the limit are refused, CPU time and file size
# end the command with a message naming the limit, memory is capped.
lim=$(provision c6 --processes 20 --cpu-seconds 1 --file-size 1M \
    --memory 256M) || fail "provision with limits"
expect_match "$("$CLAWSSH" status "$lim" --json)" '"processes":.*20' \
    "limits recorded"
out=$("$CLAWSSH" exec -s "$lim" -- sh -c 'n=0; i=0; while [ $i -lt 40 ];
    do i=$((i + 1)); sleep 3 & n=$((n + 1)); done; wait;
    echo started' 2>&1)
if [ -d /sys/fs/cgroup/pids ] && [ -w /sys/fs/cgroup/pids ] ||
    [ "$(id -u)" != 0 ]; then
	expect_match "$out" "[Rr]esource temporarily unavailable\|fork" \
	    "process limit refused forks"
	echo "$out" | grep -q started && fail "all 40 processes started"
else
	expect_match "$out" "process limit is not enforced" \
	    "missing process limit is reported"
fi
out=$("$CLAWSSH" exec -s "$lim" -- sh -c 'while :; do :; done' 2>&1)
expect_status $? 152 "CPU limit: SIGXCPU"
expect_match "$out" "CPU time limit (1 s)" "CPU limit named"
out=$("$CLAWSSH" exec -s "$lim" -- sh -c 'head -c 2M /dev/zero > big' 2>&1)
expect_status $? 153 "file size limit: SIGXFSZ"
expect_match "$out" "file size limit (1048576 bytes)" "file size named"
out=$("$CLAWSSH" exec -s "$lim" -- awk 'BEGIN { s = "x";
    while (1) s = s s }' 2>&1)
[ $? -ne 0 ] || fail "memory limit did not stop awk"
out=$("$CLAWSSH" exec -s "$lim" -- sh -c 'ulimit -v; ulimit -n')
# The memory limit is the sandbox's memory cgroup where the host lets us
# make one (all its processes together), else RLIMIT_AS per process.
mcg=/sys/fs/cgroup/memory/clawssh-$lim
if [ -f "$mcg/memory.limit_in_bytes" ]; then
	expect_eq "$(cat "$mcg/memory.limit_in_bytes")" "268435456" \
	    "the memory cgroup's limit"
	expect_eq "$(echo "$out" | head -n 1)" "unlimited" "no RLIMIT_AS"
elif [ -f /sys/fs/cgroup/clawssh-"$lim"/memory.max ]; then
	expect_eq "$(cat /sys/fs/cgroup/clawssh-"$lim"/memory.max)" \
	    "268435456" "the memory cgroup's limit"
else
	expect_eq "$(echo "$out" | head -n 1)" "262144" "RLIMIT_AS in KiB"
fi
"$CLAWSSH" destroy "$lim" >/dev/null || fail "destroy the limited one"
for c in /sys/fs/cgroup/pids/clawssh-"$lim" "$mcg"; do
	[ -d "$c" ] && fail "destroy left cgroup $c"
done
exit 0
