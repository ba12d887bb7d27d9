#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Authentication and connection failures: 255 with a clear message.
. "$TESTLIB"

# Like testhost, but with no IdentityFile or IdentitiesOnly of its own.
grep -v "IdentityFile\|IdentitiesOnly" "$T/ssh_config" > "$T/auth_config"
cexec() {
	"$CLAWSSH" exec -F "$T/auth_config" "$@"
}

# A key the server does not know.
ssh-keygen -q -t ed25519 -N '' -f "$T/wrongkey"
cexec -o IdentityFile="$T/wrongkey" testhost -- true 2>"$T/err"
expect_status $? 255 "wrong user key"
expect_match "$(cat "$T/err")" "permission denied" "wrong key message"
expect_match "$(cat "$T/err")" "wrongkey" "wrong key names the file"

# An encrypted key without a passphrase source says so.
ssh-keygen -q -t ed25519 -N 'pass phrase' -f "$T/enckey"
cat "$T/enckey.pub" >> "$T/authorized_keys"
cexec -o IdentityFile="$T/enckey" testhost -- true 2>"$T/err"
expect_status $? 255 "encrypted key without passphrase"
expect_match "$(cat "$T/err")" "encrypted" "encrypted key message"

# ...and works with one.
printf 'pass phrase\n' > "$T/pass"
chmod 600 "$T/pass"
cexec -o IdentityFile="$T/enckey" --passphrase-file "$T/pass" testhost -- \
    echo ok > "$T/out"
expect_status $? 0 "encrypted key with passphrase file"
expect_eq "$(cat "$T/out")" "ok" "encrypted key output"

# A wrong passphrase is an error, not a crash.
printf 'wrong\n' > "$T/badpass"
cexec -o IdentityFile="$T/enckey" --passphrase-file "$T/badpass" \
    testhost -- true 2>"$T/err"
expect_status $? 255 "wrong passphrase"

# ssh-agent identities are tried first...
eval "$(ssh-agent -s -a "$T/agent.sock")" >/dev/null
trap 'ssh-agent -k >/dev/null 2>&1; lib_cleanup' EXIT
ssh-add -q "$T/id_ed25519" 2>/dev/null || fail "ssh-add"
out=$(cexec testhost -- echo via-agent 2>"$T/err")
expect_eq "$out" "via-agent" "agent authentication"
# ...but with IdentitiesOnly only those matching an IdentityFile.
cexec -o IdentitiesOnly=yes -o IdentityFile="$T/wrongkey" testhost -- \
    true 2>"$T/err"
expect_status $? 255 "IdentitiesOnly skips other agent keys"
cexec -o IdentitiesOnly=yes -o IdentityFile="$T/id_ed25519" testhost -- \
    true
expect_status $? 0 "IdentitiesOnly uses the matching agent key"
ssh-agent -k >/dev/null 2>&1
unset SSH_AUTH_SOCK SSH_AGENT_PID
trap lib_cleanup EXIT

# A server that stops answering mid-command: ServerAliveInterval and
# ServerAliveCountMax bound the wait.
"$CLAWSSH" exec -F "$T/auth_config" -o IdentityFile="$T/id_ed25519" \
    -o ServerAliveInterval=1 -o ServerAliveCountMax=2 testhost -- \
    sh -c "echo started; sleep 60" > "$T/out" 2>"$T/err" &
cpid=$!
i=0
while ! grep -q started "$T/out" && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
# Freeze every sshd process serving connections (not the listener).
descendants() {
	for c in $(ps -o pid= --ppid "$1"); do
		echo "$c"
		descendants "$c"
	done
}
frozen=$(descendants "$SSHD_PID")
kill -STOP $frozen
start=$(date +%s)
wait $cpid
status=$?
elapsed=$(( $(date +%s) - start ))
kill -CONT $frozen
expect_status $status 255 "silent server"
[ $elapsed -le 8 ] || fail "ServerAlive 1x2 took ${elapsed}s"
expect_match "$(cat "$T/err")" "no response" "silent server message"

# A closed port: refused at once.
kill "$SSHD_PID"
wait "$SSHD_PID" 2>/dev/null
SSHD_PID=
cexec testhost -- true 2>"$T/err"
expect_status $? 255 "closed port"
expect_match "$(cat "$T/err")" "refused" "closed port message"

# A port that accepts but never speaks: ConnectTimeout bounds the wait.
"$SILENT_LISTENER" 30 > "$T/lport" &
lpid=$!
i=0
while [ ! -s "$T/lport" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
lport=$(cat "$T/lport")
start=$(date +%s)
cexec -o Port="$lport" -o ConnectTimeout=2 testhost -- true 2>"$T/err"
status=$?
elapsed=$(( $(date +%s) - start ))
kill $lpid 2>/dev/null
expect_status $status 255 "silent port"
[ $elapsed -le 5 ] || fail "ConnectTimeout 2 took ${elapsed}s"
expect_match "$(cat "$T/err")" "timed out" "silent port message"

# An unresolvable host name.
cexec no-such-host.invalid -- true 2>"$T/err"
expect_status $? 255 "unresolvable host"
expect_match "$(cat "$T/err")" "resolve" "unresolvable message"
exit 0
