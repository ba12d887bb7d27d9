#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A login slow to start (a heavy .bashrc, a slow ForceCommand wrapper) must
# not let --timeout or a signal leave the command running: the kill waits
# for the command's pid.  sshd's ForceCommand sleeps before running the
# requested command in the same shell, as a slow rc file would.
# shellcheck disable=SC2034 # lib.sh reads it
SSHD_EXTRA='ForceCommand sleep 3; eval "$SSH_ORIGINAL_COMMAND"'
. "$TESTLIB"

# A sleep with a duration no other process has, to find it afterwards.
secs="299.$$"
cexec testhost --timeout 1 -- sleep "$secs" 2>"$T/err"
expect_status $? 124 "timeout during a slow login"
expect_match "$(cat "$T/err")" "remote process stopped" "timeout message"
grep -q "pid never arrived" "$T/err" && fail "the kill never happened"
sleep 4
pgrep -f "sleep $secs" >/dev/null && fail "command outlived the timeout"

# The same for SIGTERM sent to clawssh while the login is still slow.
secs="298.$$"
"$CLAWSSH" exec -F "$T/ssh_config" testhost -- sleep "$secs" 2>"$T/err" &
cpid=$!
sleep 1
kill -TERM $cpid
wait $cpid
expect_status $? 143 "SIGTERM during a slow login"
grep -q "pid never arrived" "$T/err" && fail "the kill never happened"
sleep 4
pgrep -f "sleep $secs" >/dev/null && fail "command outlived SIGTERM"

# And an ordinary command still works through the slow login.
out=$(cexec testhost -- echo through)
expect_eq "$out" "through" "command after a slow login"
exit 0
