#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# GPU assignment against a real sshd, with fake NVIDIA device nodes: the
# host's sshd points clawssh at a device directory holding nvidia0,
# nvidia1 and nvidiactl (character devices made with mknod, or plain
# files where mknod is not allowed).  Two sandboxes asking for one GPU
# each get different GPUs and see only their own; a third fails clearly;
# destroying one frees its GPU; the same sandbox keeps its GPU.
. "$TESTLIB"

lib_need_bwrap

DEV="$T/dev"
mkdir -p "$DEV"
for n in 0 1; do
	mknod "$DEV/nvidia$n" c 1 3 2>/dev/null || : > "$DEV/nvidia$n"
done
mknod "$DEV/nvidiactl" c 1 3 2>/dev/null || : > "$DEV/nvidiactl"
kill "$SSHD_PID" 2>/dev/null
wait "$SSHD_PID" 2>/dev/null
# shellcheck disable=SC2034 # lib.sh reads it
SSHD_EXTRA="SetEnv CLAWSSH_GPU_DEV_DIR=$DEV"
start_sshd

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
mkdir -p "$T/ws"
# With LIB_SSH_USER=NAME (a non-root SSH user) the root is that user's.
if [ -n "${LIB_SSH_USER:-}" ]; then
	mkdir -m 700 "$R"
	chown "$TEST_USER:" "$R"
fi
prov() {
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$1" \
	    --remote-root "$R" --workspace "$T/ws" --gpu 1
}
a=$(prov one) || fail "first sandbox"
b=$(prov two) || fail "second sandbox"
ga=$("$CLAWSSH" exec -s "$a" -- sh -c 'echo "$NVIDIA_VISIBLE_DEVICES"')
gb=$("$CLAWSSH" exec -s "$b" -- sh -c 'echo "$NVIDIA_VISIBLE_DEVICES"')
[ "$ga" != "$gb" ] || fail "both sandboxes got GPU $ga"
expect_match "$ga$gb" "^[01][01]$" "GPU indexes"
# CUDA numbers the GPUs a sandbox can open from 0: the host's index 1
# in CUDA_VISIBLE_DEVICES would hide that sandbox's only GPU.
for s in "$a" "$b"; do
	expect_eq "$("$CLAWSSH" exec -s "$s" -- sh -c 'echo $CUDA_VISIBLE_DEVICES')" \
	    0 "CUDA ordinal inside $s"
done
out=$("$CLAWSSH" exec -s "$a" -- sh -c 'ls /dev | grep nvidia | sort')
expect_eq "$out" "nvidia$ga
nvidiactl" "only the sandbox's own GPU is visible"

# A third finds no free GPU and is not left behind.
out=$(prov three 2>&1)
expect_status $? 255 "third sandbox"
expect_match "$out" "need 1 GPU.*0 free\|1 GPU.*held" "busy GPUs explained"
"$CLAWSSH" list 2>/dev/null | grep -q "session/three" &&
    fail "the failed sandbox is still listed"

# The same sandbox provisioned again keeps its GPU.
a2=$(prov one) || fail "provision again"
expect_eq "$a2" "$a" "same id"
expect_eq "$("$CLAWSSH" exec -s "$a" -- sh -c 'echo $NVIDIA_VISIBLE_DEVICES')" \
    "$ga" "GPU kept"

# Destroying one frees its GPU for the next.
"$CLAWSSH" destroy "$b" >/dev/null || fail "destroy"
c=$(prov three) || fail "third after destroy"
gc=$("$CLAWSSH" exec -s "$c" -- sh -c 'echo $NVIDIA_VISIBLE_DEVICES')
expect_eq "$gc" "$gb" "freed GPU reused"

# Two GPUs: both nodes, CUDA ordinals 0,1.  A memory limit is never
# RLIMIT_AS for a GPU sandbox (CUDA fails its first allocation under
# one): a memory cgroup holds it, or the start warns that nothing does.
for s in "$a" "$c"; do "$CLAWSSH" destroy "$s" >/dev/null || fail "destroy"; done
d=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key four \
    --remote-root "$R" --workspace "$T/ws" --gpu 2 --memory 1G) ||
    fail "two GPUs"
out=$("$CLAWSSH" exec -s "$d" -- sh -c \
    'echo $CUDA_VISIBLE_DEVICES $NVIDIA_VISIBLE_DEVICES; ulimit -v' \
    2>"$T/four.err") || fail "exec with two GPUs"
cat "$T/four.err" >&2
expect_eq "$out" "0,1 0,1
unlimited" "two GPUs' names, no RLIMIT_AS"
if [ -d "/sys/fs/cgroup/memory/clawssh-$d" ] ||
    [ -d "/sys/fs/cgroup/clawssh-$d" ]; then
	expect_eq "$(cat "$T/four.err")" "" "memory cgroup: no warning"
else
	expect_match "$(cat "$T/four.err")" \
	    "memory limit of this GPU sandbox is not enforced" "warned"
fi

# Bad input: --gpu without bwrap, bad counts, more than the host has.
out=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key x \
    --remote-root "$R" --workspace "$T/ws" --gpu 1 --runtime none 2>&1)
expect_status $? 255 "--gpu with runtime none"
for bad in 0 -1 two; do
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key y \
	    --remote-root "$R" --workspace "$T/ws" --gpu "$bad" \
	    2>/dev/null && fail "--gpu $bad accepted"
done
out=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key z \
    --remote-root "$R" --workspace "$T/ws" --gpu 3 2>&1)
expect_status $? 255 "more GPUs than the host has"

# Once more as a non-root SSH user, who gets no memory cgroup here.
if [ "$(id -u)" -eq 0 ] && [ -z "${LIB_SSH_USER:-}" ]; then
	LIB_SSH_USER=clawssh-test sh "$0" >&2
	_s=$?
	[ "$_s" -eq 0 ] || [ "$_s" -eq 77 ] ||
	    fail "as user clawssh-test: status $_s"
fi
exit 0
