#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The "openshell" provider driver against tests/providers/openshell-standin:
# a contract test (OpenShell cannot run here).  Get (not found), create
# with --from/--gpu/--policy, the wait through Provisioning to Ready,
# ssh-config read as an OpenSSH config with its ProxyCommand (sshd -i to
# the test's sshd), exec over it, destroy through "sandbox delete".
. "$TESTLIB"

CLAWSSH_STATE_DIR="$T/state"
OPENSHELL_STANDIN_DIR="$T/os"
OPENSHELL_STANDIN_SSHD_CONFIG="$T/sshd_config"
export CLAWSSH_STATE_DIR OPENSHELL_STANDIN_DIR OPENSHELL_STANDIN_SSHD_CONFIG
R="$T/root"
mkdir -p "$XDG_CONFIG_HOME/clawssh" "$T/ws" "$T/os"
# OpenShell's ssh-config turns host key checking off; clawssh does not,
# so this config records the sandbox's key on first use (accept-new).
cat > "$XDG_CONFIG_HOME/clawssh/config.json" <<CONF
{
  "ssh": { "identityFile": "$T/id_ed25519",
           "knownHostsFile": "$T/os_known_hosts",
           "strictHostKeyChecking": "accept-new" },
  "sandbox": { "remoteRoot": "$R", "runtime": "none" },
  "providers": {
    "os": { "driver": "openshell",
            "command": "$top_srcdir/tests/providers/openshell-standin",
            "args": ["--gateway", "lab"],
            "timeout": 10, "readyTimeout": 20 }
  }
}
CONF

id=$("$CLAWSSH" provision --provider os --workspace "$T/ws" --key k \
    --from ubuntu --gpu 1 --policy strict 2>"$T/err")
expect_status $? 0 "provision through openshell"
name="claw-$id"
[ ${#name} -le 19 ] || fail "name $name is over 19 characters"
expect_eq "$(cat "$T/os/$name")" "from=ubuntu gpu=1 policy=strict" \
    "create arguments"
grep -q "^--gateway lab sandbox get $name\$" "$T/os/calls" ||
	fail "get not called with the configured args"
grep -q "sandbox ssh-config $name" "$T/os/calls" || fail "no ssh-config"
[ "$(grep -c "sandbox get $name" "$T/os/calls")" -ge 3 ] ||
	fail "did not wait through Provisioning"
grep -q '"proxyCommand":.*sshd -i -f' "$T/state/sandboxes/$id.json" ||
	fail "ProxyCommand not recorded"
grep -q "openshell-$name" "$T/os_known_hosts" ||
	fail "the sandbox's host key was not recorded"

# Commands go over the recorded ProxyCommand.
echo data > "$T/ws/f"
out=$("$CLAWSSH" exec -s "$id" -- cat f)
expect_eq "$out" "data" "exec over the openshell endpoint"

out=$("$CLAWSSH" list --provider os)
expect_match "$out" "^$name  *ready  *$id  *Ready" "list --provider os"

# ssh-config gives OpenSSH's ssh the same way in, ProxyCommand included.
"$CLAWSSH" ssh-config "$id" > "$T/client_config"
expect_status $? 0 "ssh-config"
grep -q "ProxyCommand .*sshd -i -f $T/sshd_config" "$T/client_config" ||
	fail "ssh-config has no ProxyCommand"
out=$(ssh -F "$T/client_config" "clawssh-$id-host" cat "$R/$id/workspace/f")
expect_eq "$out" "data" "OpenSSH over the generated ProxyCommand"

# Found again without a second create.
"$CLAWSSH" provision --provider os --workspace "$T/ws" --key k \
    --from ubuntu --gpu 1 --policy strict >/dev/null
expect_eq "$(grep -c "sandbox create" "$T/os/calls")" 1 "created once"

# A sandbox stuck in Provisioning: readyTimeout, the last phase named.
sed -i 's/"readyTimeout": 20/"readyTimeout": 2/' \
    "$XDG_CONFIG_HOME/clawssh/config.json"
mkdir -p "$T/ws2"
"$CLAWSSH" provision --provider os --workspace "$T/ws2" --key stuck \
    >/dev/null 2>"$T/err" &
pid=$!
while ! ls "$T/os"/claw-*.seen 2>/dev/null | grep -qv "$name"; do
	sleep 0.1
done
for f in "$T/os"/claw-*; do
	case $f in *.seen|*.phase) continue ;; esac
	[ "$(basename "$f")" = "$name" ] || echo Provisioning > "$f.phase"
done
wait $pid
expect_status $? 255 "stuck sandbox"
expect_match "$(cat "$T/err")" "provider os (openshell): sandbox claw-.* not ready after 2 s" \
    "stuck sandbox message"
expect_match "$(cat "$T/err")" "last state: pending (Provisioning)" \
    "stuck sandbox last state"
[ "$(ls "$T/state/sandboxes" | wc -l)" -eq 1 ] || fail "stuck one recorded"
[ "$(ls "$T/os" | grep -c '^claw-[a-z0-9]*$')" -eq 1 ] ||
	fail "stuck sandbox not deleted again"

# An Error phase is a failure naming it.
echo Error > "$T/os/$name.phase"
"$CLAWSSH" provision --provider os --workspace "$T/ws" --key k 2>"$T/err"
expect_status $? 255 "sandbox in Error"
expect_match "$(cat "$T/err")" "will not become ready: failed (Error)" \
    "Error phase message"
rm -f "$T/os/$name.phase"

# destroy: "sandbox delete", and the record is gone.
"$CLAWSSH" destroy "$id" > "$T/out"
expect_status $? 0 "destroy"
[ -e "$T/os/$name" ] && fail "sandbox not deleted"
grep -q "sandbox delete $name" "$T/os/calls" || fail "no sandbox delete"
exit 0
