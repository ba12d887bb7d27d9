#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The transfer progress line: on a terminal (a pty from script(1)) a
# mirror exec's upload and download and a sync push show percentage, rate
# and time left,
# then a 100% line; on a pipe, or with stderr a file, nothing; the
# command's own output is unchanged either way.  CLAWSSH_PROGRESS_MS=0
# shows the line at once, so no timing is assumed.
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

command -v script >/dev/null 2>&1 || { echo "SKIP: no script(1)"; exit 77; }
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
mkdir -p "$W"
# With LIB_SSH_USER=NAME (a non-root SSH user) the root is that user's.
if [ -n "${LIB_SSH_USER:-}" ]; then
	mkdir -m 700 "$R"
	chown "$TEST_USER:" "$R"
fi
echo seed > "$W/seed"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key t \
    --remote-root "$R" --workspace "$W") || fail "provision"
"$CLAWSSH" exec -s "$id" -- true || fail "first exec"

# tty CMD: run CMD (sh text) with stdin, stdout and stderr on a pty; the
# pty's text, carriage returns as newlines.
tty() {
	CLAWSSH_PROGRESS_MS=0 script -qec "$1" /dev/null </dev/null |
	    tr '\r' '\n'
}

# Up: 3 MiB changed here goes with the next exec.
head -c 3145728 /dev/urandom > "$W/big"
out=$(tty "'$CLAWSSH' exec -s '$id' -- echo ran")
expect_match "$out" "^ran" "the command's output on a terminal"
expect_match "$out" \
    "^clawssh: sent [0-9]* files, [0-9.]* of [0-9.]* MiB, [0-9]*%, [0-9.]* MiB/s, [0-9:]* left" \
    "upload: percentage, rate, time left"
expect_match "$out" \
    "^clawssh: sent 1 files, 3.0 MiB, 100%, [0-9.]* MiB/s, [0-9]*:[0-9][0-9] *$" \
    "upload: the 100% line"
cmp -s "$W/big" "$R/$id/workspace/big" || fail "big did not go up"

# Down: what the command wrote comes back, with a line of its own.
out=$(tty "'$CLAWSSH' exec -s '$id' -- sh -c 'head -c 2097152 /dev/urandom > made; echo ran'")
expect_match "$out" \
    "^clawssh: received [0-9]* files, [0-9.]* of [0-9.]* MiB, [0-9]*%, [0-9.]* MiB/s, [0-9:]* left" \
    "download: percentage, rate, time left"
expect_match "$out" "^clawssh: received 1 files, 2.0 MiB, 100%" \
    "download: the 100% line"
cmp -s "$W/made" "$R/$id/workspace/made" || fail "made did not come down"

# A push that walks the tree (sync push, the seed) knows its total from
# the scan: a percentage too.
head -c 2097152 /dev/urandom > "$W/walked"
out=$(tty "'$CLAWSSH' sync push '$id'")
expect_match "$out" \
    "^clawssh: sent [0-9]* files, [0-9.]* of [0-9.]* MiB, [0-9]*%, [0-9.]* MiB/s, [0-9:]* left" \
    "sync push: percentage, rate, time left"
cmp -s "$W/walked" "$R/$id/workspace/walked" || fail "walked did not go up"

# Not a terminal: no line at all, on a pipe or into a file.
head -c 1048576 /dev/urandom > "$W/big"
out=$(CLAWSSH_PROGRESS_MS=0 "$CLAWSSH" exec -s "$id" -- sh -c \
    'head -c 1048576 /dev/urandom > made; echo ran' 2>&1)
# (sshd may add its own lines: a non-root user without a home.)
expect_match "$out" "^ran$" "the command's output on a pipe"
printf '%s\n' "$out" | grep -q "clawssh:" &&
    fail "a pipe got a progress line: $out"
head -c 1048576 /dev/urandom > "$W/big"
CLAWSSH_PROGRESS_MS=0 "$CLAWSSH" exec -s "$id" -- true 2>"$T/err" ||
    fail "exec"
grep -q "clawssh:" "$T/err" && fail "stderr into a file got: $(cat "$T/err")"
cmp -s "$W/big" "$R/$id/workspace/big" || fail "big did not go up"
exit 0
