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
prov() {
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$1" \
	    --remote-root "$R" --workspace "$T/ws" --gpu 1
}
a=$(prov one) || fail "first sandbox"
b=$(prov two) || fail "second sandbox"
ga=$("$CLAWSSH" exec -s "$a" -- sh -c 'echo "$CUDA_VISIBLE_DEVICES"')
gb=$("$CLAWSSH" exec -s "$b" -- sh -c 'echo "$NVIDIA_VISIBLE_DEVICES"')
[ "$ga" != "$gb" ] || fail "both sandboxes got GPU $ga"
expect_match "$ga$gb" "^[01][01]$" "GPU indexes"
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
expect_eq "$("$CLAWSSH" exec -s "$a" -- sh -c 'echo $CUDA_VISIBLE_DEVICES')" \
    "$ga" "GPU kept"

# Destroying one frees its GPU for the next.
"$CLAWSSH" destroy "$b" >/dev/null || fail "destroy"
c=$(prov three) || fail "third after destroy"
gc=$("$CLAWSSH" exec -s "$c" -- sh -c 'echo $CUDA_VISIBLE_DEVICES')
expect_eq "$gc" "$gb" "freed GPU reused"

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
exit 0
