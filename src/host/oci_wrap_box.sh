#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The docker/podman wrap's start of the sandbox's container
# (contain_oci_wrap), after oci_wrap_gpus.sh and the digest: the whole
# creation words in "$@", their digest in $__claw_spec.
# __claw_old warns once per digest (remembered in the sandbox directory's
# oci-warned) that the container runs with older settings.
# __claw_box makes sure the container $__claw_c runs, given the creation
# words: a running one is kept (with __claw_old when its digest label
# $__claw_sl differs); otherwise, under the lock oci.lock in the sandbox
# directory (flock, where there is one), asked again, a stopped one is
# removed and a new one started ("clawssh: cannot start the sandbox's
# container ..." with the engine's last line, status 125, when that
# fails; a note on stderr when $__claw_vb is 1).  The lock's descriptor
# is closed for the engine, whose monitor outlives us.  The wrap exits
# 125 when __claw_box fails.
# shellcheck disable=SC2154 # set by oci_wrap_ids.sh and the digest line
__claw_old() {
	[ "$(cat "$__claw_d/oci-warned" 2>/dev/null)" = "$__claw_spec" ] && return 0
	echo "clawssh: warning: the sandbox environment runs with older settings; 'clawssh stop $__claw_id' then the next command applies the new ones" >&2
	{ echo "$__claw_spec" > "$__claw_d/oci-warned"; } 2>/dev/null
}
__claw_box() {
	__claw_s=$("$__claw_e" container inspect -f "{{.State.Running}} {{index .Config.Labels \"$__claw_sl\"}}" "$__claw_c" 2>/dev/null)
	case $__claw_s in "true $__claw_spec") return 0 ;; "true "*) __claw_old; return 0 ;; esac
	{
		if command -v flock >/dev/null 2>&1; then flock -w 120 9 || { echo "clawssh: the start lock of $__claw_c is held too long" >&2; return 125; }; fi
		__claw_s=$("$__claw_e" container inspect -f '{{.State.Running}}' "$__claw_c" 2>/dev/null)
		[ "$__claw_s" = true ] && return 0
		"$__claw_e" rm -f "$__claw_c" >/dev/null 2>&1
		__claw_s=$("$@" </dev/null 2>&1 9>&-) || { echo "clawssh: cannot start the sandbox's container $__claw_c (the image needs /bin/sh and sleep): $(printf '%s\n' "$__claw_s" | tail -n 1)" >&2; return 125; }
		[ "$__claw_vb" != 1 ] || echo "clawssh: started the sandbox's container $__claw_c ($__claw_e)" >&2
	} 9>>"$__claw_d/oci.lock"
}
__claw_box "$@" || exit 125
