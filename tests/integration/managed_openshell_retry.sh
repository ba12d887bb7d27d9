#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A failed create is tried again (managed backend, any driver), here
# against tests/providers/openshell-standin, whose failed create leaves
# the sandbox in Error as OpenShell's CLI does: each failed try is
# deleted before the next, after 50 ms then 100 ms (CLAWSSH_PROVIDER_
# RETRY_MS=50); three tries at most; the last error names the tries, the
# waits and the provider's last state; nothing is left behind, neither
# at the provider nor in clawssh's records.  A create call killed at the
# provider's timeout whose sandbox is coming up is waited for instead.
: "${top_srcdir:?top_srcdir must name the source tree (make check sets it)}"
. "$TESTLIB"
# shellcheck disable=SC1091 # shared by the openshell tests, linted alone
. "$top_srcdir/tests/integration/openshell_lib.sh"

os_config ''
echo data > "$T/ws/f"

# creates: how many creates the stand-in was asked for.
creates() {
	grep -c "sandbox create --name" "$T/os/calls"
}

# Two failures, then a sandbox.
OPENSHELL_STANDIN_FAIL_CREATES=2
export OPENSHELL_STANDIN_FAIL_CREATES
id=$("$CLAWSSH" provision --provider os --workspace "$T/ws" --key two \
    2>"$T/err") || fail "provision after two failed creates: $(cat "$T/err")"
name="claw-$id"
expect_eq "$(creates)" 3 "three creates"
expect_eq "$(grep -c "sandbox delete $name" "$T/os/calls")" 2 \
    "each failed try deleted"
# The first look (absent), then what each try did: create, a look (is
# it coming up all the same?  No: in Error), delete, a look until it is
# gone; the third try's create is followed by the wait for Ready.
verbs=$(grep " $name" "$T/os/calls" | awk '{ print $4 }' | head -n 10 |
    tr '\n' ' ')
expect_eq "$verbs" \
    "get create get delete get create get delete get create " \
    "each failed try looked at and deleted"
expect_match "$(cat "$T/err")" "creating $name failed (try 1 of 3).*entered error phase.*trying again in 50 ms" \
    "first retry logged"
expect_match "$(cat "$T/err")" "failed (try 2 of 3).*trying again in 100 ms" \
    "second retry logged"
out=$("$CLAWSSH" exec -s "$id" -- cat f)
expect_eq "$out" data "exec on the third try's sandbox"
expect_eq "$(os_names)" "$name" "one sandbox at the provider"
expect_eq "$(os_ids)" "$id" "one record"

# Three failures: an error that says so, and nothing left.
rm -f "$T/os/creates.n"
OPENSHELL_STANDIN_FAIL_CREATES=3
mkdir -p "$T/ws3"
"$CLAWSSH" provision --provider os --workspace "$T/ws3" --key three \
    >/dev/null 2>"$T/err"
expect_status $? 255 "three failed creates"
err=$(tail -n 1 "$T/err")
expect_match "$err" "^clawssh: provider os (openshell): sandbox claw-[a-z0-9]*: create failed 3 times (tried again after 50 ms, 100 ms); last state: failed (Error), since deleted; last error: sandbox create exited with status 1: Error: .* sandbox entered error phase while provisioning: ProvisioningFailed" \
    "the error after the last try"
expect_eq "$(creates)" 6 "three more creates, no fourth"
expect_eq "$(os_names)" "$name" "nothing left at the provider"
expect_eq "$(os_ids)" "$id" "nothing recorded"
out=$("$CLAWSSH" list 2>&1)
expect_eq "$(printf '%s\n' "$out" | tail -n +2 | awk '{ print $1 }')" "$id" \
    "clawssh list"

# One create in two fails (OpenShell's own rate is one in eight): the
# first sandbox takes one try (create 1), the second and the third two
# each (creates 2 and 3, 4 and 5).
rm -f "$T/os/creates.n"
unset OPENSHELL_STANDIN_FAIL_CREATES
OPENSHELL_STANDIN_FAIL_EVERY=2
export OPENSHELL_STANDIN_FAIL_EVERY
"$CLAWSSH" destroy "$id" >/dev/null || fail "destroy"
before=$(creates)
for k in a b c; do
	mkdir -p "$T/ws-$k"
	"$CLAWSSH" provision --provider os --workspace "$T/ws-$k" --key "$k" \
	    >/dev/null 2>"$T/err" || fail "provision $k: $(cat "$T/err")"
done
expect_eq "$(($(creates) - before))" 5 "five creates for three sandboxes"
expect_eq "$(os_names | wc -l)" 3 "three sandboxes at the provider"
expect_eq "$(os_ids | wc -l)" 3 "three records"

# A create call killed at the provider's timeout (the CLI still watching
# a slow provisioning) whose sandbox comes up: waited for, not undone.
unset OPENSHELL_STANDIN_FAIL_EVERY
OPENSHELL_STANDIN_CREATE_SLEEP=3
export OPENSHELL_STANDIN_CREATE_SLEEP
os_config "" 20 1
mkdir -p "$T/ws-slow"
before=$(creates)
id=$("$CLAWSSH" provision --provider os --workspace "$T/ws-slow" \
    --key slow 2>"$T/err") || fail "slow create: $(cat "$T/err")"
expect_eq "$(($(creates) - before))" 1 "a slow create is not repeated"
grep -q "sandbox delete claw-$id" "$T/os/calls" &&
	fail "a slow create was deleted"
expect_match "$(cat "$T/err")" "did not answer within 1 s.*claw-$id is pending all the same: waiting for it" \
    "a slow create waited for"
expect_eq "$(os_names | wc -l)" 4 "four sandboxes at the provider"
exit 0
