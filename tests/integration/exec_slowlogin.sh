#!/bin/sh
# A login shell slow to start (a heavy .bashrc) must not let --timeout or
# a signal leave the command running: the kill waits for its pid.
# Needs bash as the login shell, whose BASH_ENV we point at a slow script.
shell=$(getent passwd "$(id -un)" | cut -d: -f7)
case $shell in
*/bash) ;;
*) echo "login shell is $shell, not bash: skipped"; exit 77 ;;
esac
SLOW=$(mktemp /tmp/clawssh-slow.XXXXXX)
echo 'sleep 3' > "$SLOW"
SSHD_EXTRA="SetEnv BASH_ENV=$SLOW"
. "$TESTLIB"
trap 'rm -f "$SLOW"; lib_cleanup' EXIT

# A sleep with a duration no other process has, to find it afterwards.
secs="299.$$"
cexec testhost --timeout 1 -- sleep "$secs" 2>"$T/err"
expect_status $? 124 "timeout during a slow login"
sleep 1
pgrep -f "sleep $secs" >/dev/null && fail "command outlived the timeout"

# The same for SIGTERM sent to clawssh while the login is still slow.
secs="298.$$"
"$CLAWSSH" exec -F "$T/ssh_config" testhost -- sleep "$secs" &
cpid=$!
sleep 1
kill -TERM $cpid
wait $cpid
expect_status $? 143 "SIGTERM during a slow login"
sleep 1
pgrep -f "sleep $secs" >/dev/null && fail "command outlived SIGTERM"
exit 0
