#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The start of the docker/podman wrap (contain_oci_wrap), after
# oci_engine.sh: the values it is given, from the positional parameters
#   $1 the engine, $2 the container (clawssh-ID), $3 the sandbox id,
#   $4 the sandbox directory (its start lock, its warnings), $5 the bound
#   directory (the workspace, or private/ for access none), $6 a user
#   name to resolve on this host, $7 a numeric user (uid[:gid]), $8 the
#   default uid:gid, at most one of $6 $7 $8 not empty, $9 the host's GPU
#   allocation file ('' for none), ${10} 1 to say when the container is
#   started, ${11} the label holding the digest (clawssh.spec), ${12} the
#   kill script run in the container (CONTAIN_OCI_KILL_SH),
# kept as $__claw_e, $__claw_c, $__claw_id, $__claw_d, $__claw_gf,
# $__claw_vb, $__claw_sl and $__claw_k for the wrap's other parts.
# Then the identity, in $__claw_u (empty: the engine's default): the
# name's "uid:gid" on this host (exit 125 with "clawssh: user NAME does
# not exist on this host" when it has none), the numeric user, or, only
# when the host user is root, the default.  When the host user is root,
# the bound directory is given to it first (chown -R, mode 0700; exit
# 125 when that fails).
__claw_e=$1; __claw_c=$2; __claw_id=$3; __claw_d=$4; __claw_gf=$9
__claw_vb=${10}; __claw_sl=${11}; __claw_k=${12}
__claw_u=
if [ -n "$6" ]; then
	__claw_ug=$(id -u -- "$6" 2>/dev/null):$(id -g -- "$6" 2>/dev/null)
	case $__claw_ug in [0-9]*:[0-9]*) ;; *) echo "clawssh: user $6 does not exist on this host" >&2; exit 125 ;; esac
	__claw_u=$__claw_ug
elif [ -n "$7" ]; then
	__claw_u=$7
elif [ -n "$8" ] && [ "$(id -u)" = 0 ]; then
	__claw_u=$8
fi
if [ -n "$__claw_u" ] && [ "$(id -u)" = 0 ]; then
	chown -R -h -P "$__claw_u" "$5" && chmod 700 "$5" || { echo "clawssh: cannot give the workspace to the sandbox's user" >&2; exit 125; }
fi
