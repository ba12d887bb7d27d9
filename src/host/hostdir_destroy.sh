#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host-directory backend's destroy (hostdir_destroy in
# backends/host/hostdir.c; after hostdir_prelude.sh and the functions of
# hostdir_containers_rm.sh, hostdir_boxkill.sh and
# hostdir_cgroups_rm.sh): $2 the sandbox id (checked).  Prints
# clawssh-missing when there is no such sandbox (or no root), else
# moves it aside under its lock, prints clawssh-destroyed and cleans
# up: the holder of its persistent environment and its background
# processes are killed (the groups and sessions of the pid files that
# still name their process, clawours of proc_ours.sh: a pid of a process
# long gone is another's by now; killing the holder's bwrap session ends
# its pid namespace, and with it every process of the sandbox), its
# docker and podman
# containers removed (clawctrs: label clawssh.sandbox=ID), its
# directory, and its empty cgroups.  prune removes each sandbox with
# this script.  A sandbox directory that is a link is refused.
# shellcheck disable=SC2154 # $root: hostdir_prelude.sh; $_p: clawours
id=$2; d="$root/$id"
[ -d "$root" ] || { echo clawssh-missing; exit 0; }
[ -L "$d" ] && clawfail "$d is a symbolic link; not removing it"
[ -d "$d" ] || { echo clawssh-missing; exit 0; }
clawlock "$root/.lock-$id"
t="$root/.trash-$id-$$"
mv -- "$d" "$t" || clawfail "cannot remove $d"
echo clawssh-destroyed
clawboxkill "$t/run/box.pid"
for f in "$t"/procs/p*/pid "$t"/procs/p*/sup; do
	clawours "$f" || continue
	[ -s "$f.ident" ] || [ ! -e "${f%/*}/done" ] || continue
	kill -s KILL -- "-$_p" 2>/dev/null
	pkill -KILL -s "$_p" 2>/dev/null
done
clawctrs "$id"
chmod -R u+rwx -- "$t" 2>/dev/null
rm -rf -- "$t"
clawcgroups "$id"
exit 0
