#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The "openshell" driver against the CLIs of three OpenShell releases, as
# tests/providers/openshell-standin plays them (OPENSHELL_STANDIN_VERSION):
#   0.0.111: the command given to create is the sandbox's main process
#            and its end ends the sandbox; no command means "/bin/bash -l",
#            which an image without bash ends at once: the driver passes
#            "--detach -- sleep infinity"; --gpu takes a count, and "all"
#            is refused before anything is created;
#   0.0.110: no --detach (no command passed), --gpu COUNT;
#   0.0.68:  no --detach, a bare --gpu (one device): --gpu 1 is sent as
#            it, --gpu 2 refused before anything is created.
# Each release gets a sandbox that stays up and takes an exec.
: "${top_srcdir:?top_srcdir must name the source tree (make check sets it)}"
. "$TESTLIB"
# shellcheck disable=SC1091 # shared by the openshell tests, linted alone
. "$top_srcdir/tests/integration/openshell_lib.sh"

os_config ''
echo data > "$T/ws/f"

# The stand-in's own model first: a main process that ends puts the
# sandbox in Error for good, even with status 0 (0.0.111).
"$STANDIN" sandbox create --name self-true --detach -- true >/dev/null
expect_status $? 0 "stand-in create -- true"
"$STANDIN" sandbox get self-true >/dev/null
expect_match "$("$STANDIN" sandbox get self-true)" "Phase: Error" \
    "a main process that ended"
"$STANDIN" sandbox delete self-true >/dev/null

# provision_ok VERSION KEY IMAGE GPUS: provision and exec there; prints
# the sandbox's stand-in name.
provision_ok() {
	OPENSHELL_STANDIN_VERSION=$1
	export OPENSHELL_STANDIN_VERSION
	_id=$("$CLAWSSH" provision --provider os --workspace "$T/ws" \
	    --key "$2" --from "$3" --gpu "$4" 2>"$T/err") ||
		fail "provision with OpenShell $1: $(cat "$T/err")"
	_out=$("$CLAWSSH" exec -s "$_id" -- cat f 2>"$T/err") ||
		fail "exec with OpenShell $1: $(cat "$T/err")"
	expect_eq "$_out" data "exec with OpenShell $1"
	expect_match "$("$STANDIN" sandbox get "claw-$_id")" "Phase: Ready" \
	    "the sandbox of OpenShell $1 stays up"
	echo "claw-$_id"
}

# refused VERSION KEY GPUS MESSAGE: provision fails with MESSAGE before
# any create, and nothing is recorded or left.
refused() {
	OPENSHELL_STANDIN_VERSION=$1
	export OPENSHELL_STANDIN_VERSION
	_before=$(grep -c "sandbox create --name" "$T/os/calls")
	_ids=$(os_ids)
	_names=$(os_names)
	"$CLAWSSH" provision --provider os --workspace "$T/ws" --key "$2" \
	    --gpu "$3" >/dev/null 2>"$T/err"
	expect_status $? 255 "--gpu $3 with OpenShell $1"
	expect_match "$(cat "$T/err")" "$4" "--gpu $3 with OpenShell $1"
	expect_eq "$(grep -c "sandbox create --name" "$T/os/calls")" \
	    "$_before" "no create for --gpu $3 with OpenShell $1"
	expect_eq "$(os_ids)" "$_ids" "nothing recorded for --gpu $3"
	expect_eq "$(os_names)" "$_names" "nothing left for --gpu $3"
}

# 0.0.111 with an image that has no bash: only a main process of our
# own keeps it up.
name=$(provision_ok 0.0.111 new alpine 2) || exit 1
expect_eq "$(cat "$T/os/$name")" \
    "from=alpine gpu=2 policy= detach=yes main=sleep infinity" \
    "create arguments for OpenShell 0.0.111"
refused 0.0.111 new-all all "not for all of them: give --gpu N"

name=$(provision_ok 0.0.110 mid ubuntu 2) || exit 1
expect_eq "$(cat "$T/os/$name")" \
    "from=ubuntu gpu=2 policy= detach=no main=" \
    "create arguments for OpenShell 0.0.110"

name=$(provision_ok 0.0.68 old ubuntu 1) || exit 1
expect_eq "$(cat "$T/os/$name")" \
    "from=ubuntu gpu=yes policy= detach=no main=" \
    "create arguments for OpenShell 0.0.68"
refused 0.0.68 old-two 2 "takes a bare --gpu, one device (OpenShell before 0.0.69)"
exit 0
