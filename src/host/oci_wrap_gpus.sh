#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The docker/podman wrap's identity and GPUs of the day (contain_oci_wrap),
# after oci_wrap_ids.sh and the creation words in "$@" (up to the GPUs
# given as indexes): adds --user $__claw_u when set and, with an
# allocation file ($__claw_gf), the GPUs assigned there to the sandbox
# ($__claw_id), in $__claw_g ("0,2": exit 125 with "clawssh: sandbox ID
# has no GPUs assigned on this host; provision it again" when none), as
# podman CDI devices nvidia.com/gpu=N or one docker --gpus "device=0,2".
# shellcheck disable=SC2154 # set by oci_wrap_ids.sh
[ -z "$__claw_u" ] || set -- "$@" --user "$__claw_u"
if [ -n "$__claw_gf" ]; then
	__claw_g=$(awk -v id="$__claw_id" '$2 == id { printf "%s%s", s, $1; s = "," }' "$__claw_gf" 2>/dev/null)
	[ -n "$__claw_g" ] || { echo "clawssh: sandbox $__claw_id has no GPUs assigned on this host; provision it again" >&2; exit 125; }
	if [ "$__claw_e" = podman ]; then
		for __claw_n in $(echo "$__claw_g" | tr , ' '); do set -- "$@" --device "nvidia.com/gpu=$__claw_n"; done
	else
		set -- "$@" --gpus "\"device=$__claw_g\""
	fi
fi
