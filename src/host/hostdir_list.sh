#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host-directory backend's listing (hostdir_list in
# backends/host/hostdir.c; after hostdir_prelude.sh): $2 the ids to
# list, as a pattern matched in the root (one checked id, or
# c????????????).  Prints "clawssh-now EPOCH", then the entry of each
# sandbox found (see entry in hostdir_prelude.sh): a directory named as a
# sandbox id, not a link, holding a meta.json that is not one.  No root:
# the first line only.
# shellcheck disable=SC2154 # $root: hostdir_prelude.sh
echo "clawssh-now $(date +%s)"
[ -d "$root" ] || exit 0
cd -- "$root" || clawfail "cannot enter $root"
# shellcheck disable=SC2086 # $2 is a pattern, expanded on purpose
for d in $2; do
	case $d in c[a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7]) ;;
	*) continue ;;
	esac
	[ -d "$d" ] && [ ! -L "$d" ] && [ -f "$d/meta.json" ] &&
	    [ ! -L "$d/meta.json" ] || continue
	entry "$d"
done
