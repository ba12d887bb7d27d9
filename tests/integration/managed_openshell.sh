#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The "openshell" provider driver against tests/providers/openshell-standin
# playing OpenShell 0.0.111 (where the command given to create is the
# sandbox's main process): a contract test (OpenShell cannot run here).
# Get (not found), create --help read for --detach and --gpu's form,
# create with --from/--gpu COUNT/--policy and "--detach -- sleep
# infinity", the wait through Provisioning to Ready, ssh-config read as
# an OpenSSH config with its ProxyCommand (the sandbox's own sshd -i),
# its host key pinned in the state directory at first contact (not in the
# user's known_hosts, whatever ssh-config says), exec over it, a sandbox
# stuck in Provisioning or in Error, an ssh-config that Includes
# /dev/zero, destroy through "sandbox delete".
: "${top_srcdir:?top_srcdir must name the source tree (make check sets it)}"
. "$TESTLIB"
# shellcheck disable=SC1091 # shared by the openshell tests, linted alone
. "$top_srcdir/tests/integration/openshell_lib.sh"

os_config ", \"knownHostsFile\": \"$T/os_known_hosts\""

id=$("$CLAWSSH" provision --provider os --workspace "$T/ws" --key k \
    --from ubuntu --gpu 1 --policy strict 2>"$T/err")
expect_status $? 0 "provision through openshell"
name="claw-$id"
[ ${#name} -le 19 ] || fail "name $name is over 19 characters"
grep -q "^--gateway lab sandbox create --help\$" "$T/os/calls" ||
	fail "create --help not asked"
expect_eq "$(cat "$T/os/$name")" \
    "from=ubuntu gpu=1 policy=strict detach=yes main=sleep infinity" \
    "create arguments"
grep -q "^--gateway lab sandbox get $name\$" "$T/os/calls" ||
	fail "get not called with the configured args"
grep -q "sandbox ssh-config $name" "$T/os/calls" || fail "no ssh-config"
[ "$(grep -c "sandbox get $name" "$T/os/calls")" -ge 3 ] ||
	fail "did not wait through Provisioning"
grep -q '"proxyCommand":.*sshd -i -f' "$T/state/sandboxes/$id.json" ||
	fail "ProxyCommand not recorded"

# ssh-config says StrictHostKeyChecking no: clawssh pins the key anyway,
# in its own file for this sandbox, not in the user's known_hosts.
pin="$T/state/known_hosts.d/$id"
grep -q "^openshell-$name ssh-ed25519 $(os_key "$name")" "$pin" ||
	fail "the sandbox's host key was not pinned in $pin"
[ -s "$T/os_known_hosts" ] && fail "the user's known_hosts was written"
[ -e "$HOME/.ssh/known_hosts" ] && fail "\$HOME/.ssh/known_hosts was written"

# Commands go over the recorded ProxyCommand.
echo data > "$T/ws/f"
out=$("$CLAWSSH" exec -s "$id" -- cat f)
expect_eq "$out" "data" "exec over the openshell endpoint"

out=$("$CLAWSSH" list --provider os)
expect_match "$out" "^$name  *ready  *$id  *Ready" "list --provider os"

# ssh-config gives OpenSSH's ssh the same way in, ProxyCommand and pin
# included.
"$CLAWSSH" ssh-config "$id" > "$T/client_config"
expect_status $? 0 "ssh-config"
grep -q "ProxyCommand .*sshd -i -f $T/os/$name.sshd_config" \
    "$T/client_config" || fail "ssh-config has no ProxyCommand"
out=$(ssh -F "$T/client_config" "clawssh-$id-host" cat "$R/$id/workspace/f")
expect_eq "$out" "data" "OpenSSH over the generated ProxyCommand"

# Found again without a second create.
"$CLAWSSH" provision --provider os --workspace "$T/ws" --key k \
    --from ubuntu --gpu 1 --policy strict >/dev/null
expect_eq "$(grep -c "sandbox create --name" "$T/os/calls")" 1 \
    "created once"

# A sandbox stuck in Provisioning: readyTimeout, the last phase named,
# not created again.
os_config ", \"knownHostsFile\": \"$T/os_known_hosts\"" 2
mkdir -p "$T/ws2"
"$CLAWSSH" provision --provider os --workspace "$T/ws2" --key stuck \
    >/dev/null 2>"$T/err" &
pid=$!
other=
while [ -z "$other" ]; do
	for f in "$T/os"/claw-*.seen; do
		[ -f "$f" ] && [ "$f" != "$T/os/$name.seen" ] && other=${f%.seen}
	done
	sleep 0.1
done
echo Provisioning > "$other.phase"
wait $pid
expect_status $? 255 "stuck sandbox"
expect_match "$(cat "$T/err")" "provider os (openshell): sandbox claw-.* not ready after 2 s" \
    "stuck sandbox message"
expect_match "$(cat "$T/err")" "last state: pending (Provisioning)" \
    "stuck sandbox last state"
expect_eq "$(os_ids)" "$id" "only the first sandbox recorded"
expect_eq "$(os_names)" "$name" "stuck sandbox not deleted again"
expect_eq "$(grep -c "sandbox create --name" "$T/os/calls")" 2 \
    "a stuck sandbox is not created again"

# An Error phase is a failure naming it.
echo Error > "$T/os/$name.phase"
"$CLAWSSH" provision --provider os --workspace "$T/ws" --key k 2>"$T/err"
expect_status $? 255 "sandbox in Error"
expect_match "$(cat "$T/err")" "will not become ready: failed (Error)" \
    "Error phase message"
rm -f "$T/os/$name.phase"
[ -s "$pin" ] || fail "a failed provision of a sandbox there dropped its pin"

# A hostile gateway's ssh-config naming a file without end: a clear
# error at once (it grew clawssh without end before), no record.
printf '    Include /dev/zero\n' > "$T/os/ssh-config.extra"
mkdir -p "$T/ws3"
timeout 60 "$CLAWSSH" provision --provider os --workspace "$T/ws3" \
    --key hostile >/dev/null 2>"$T/err"
expect_status $? 255 "ssh-config with Include"
expect_match "$(cat "$T/err")" "ssh-config: .*Include is not allowed" \
    "Include refused, said"
expect_eq "$(os_ids)" "$id" "no record for the hostile ssh-config"
rm -f "$T/os/ssh-config.extra"

# destroy: "sandbox delete", and the record and the pin are gone.
"$CLAWSSH" destroy "$id" > "$T/out"
expect_status $? 0 "destroy"
[ -e "$T/os/$name" ] && fail "sandbox not deleted"
grep -q "sandbox delete $name" "$T/os/calls" || fail "no sandbox delete"
[ -e "$pin" ] && fail "pin not removed"
exit 0
