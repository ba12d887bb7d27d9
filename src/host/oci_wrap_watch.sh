#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The docker/podman wrap's watcher (contain_oci_wrap), after
# oci_wrap_box.sh: in a session of its own, it waits for this shell (the
# engine client it execs into) to go, however it ends, then runs the
# kill script $__claw_k in the container $__claw_c (as $__claw_u when
# set) with this shell's pid, the exec's token: the command whose client
# ended early is killed there, and the container stays.
# shellcheck disable=SC2016,SC2154 # the inner script; oci_wrap_ids.sh
(setsid sh -c 'while kill -0 "$1" 2>/dev/null; do sleep 1; done; shift; exec "$@"' sh $$ "$__claw_e" exec ${__claw_u:+--user "$__claw_u"} "$__claw_c" /bin/sh -c "$__claw_k" sh $$ </dev/null >/dev/null 2>&1 &)
