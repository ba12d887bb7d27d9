#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host-directory backend's get-or-create (hostdir_get_or_create in
# backends/host/hostdir.c; after hostdir_prelude.sh and
# hostdir_ensure_root.sh): $2 the sandbox id, $3 its image, $4 its
# runtime (none, bwrap, docker or podman).  The metadata of a new
# sandbox comes on stdin.  For docker and podman the engine must be
# installed and working and have the image; for every runtime but none,
# bwrap must be installed (the step jail); for the others, an image
# other than host must be in the store.  Under the sandbox's lock: an
# existing sandbox prints clawssh-found, else a new one (workspace/ and
# private/, the empty workspace of access none, meta.json, last-used) is
# made beside the root and renamed into place, printing clawssh-created;
# then its entry (see entry in hostdir_prelude.sh).
# shellcheck disable=SC2154 # $root: hostdir_prelude.sh
id=$2; image=$3; runtime=$4; d="$root/$id"
if [ "$runtime" != none ] && ! command -v bwrap >/dev/null 2>&1; then
	clawfail "bubblewrap (bwrap) is not installed on this host (runtime $runtime needs it, for the sandbox's host-side steps at least): install it (Debian: apt-get install bubblewrap) or choose --runtime none (uncontained)"
fi
case $runtime in
docker|podman)
	command -v $runtime >/dev/null 2>&1 ||
	    clawfail "$runtime is not installed on this host: install it (Debian: apt-get install $runtime) or choose --runtime bwrap or none"
	$runtime info >/dev/null 2>&1 ||
	    clawfail "$runtime does not work on this host ('$runtime info' fails): start its daemon or fix its setup, or choose --runtime bwrap or none"
	$runtime image inspect -- "$image" >/dev/null 2>&1 ||
	    clawfail "image $image not found by $runtime on this host: pull or load it there ($runtime pull, $runtime load -i FILE or $runtime import TARBALL)"
	;;
*)
	if [ "$image" != host ] && [ ! -d "$root/images/$image" ]; then
		clawfail "image $image not found in $root/images (import it with: clawssh image import)"
	fi
	;;
esac
clawlock "$root/.lock-$id"
if [ -d "$d" ] && [ ! -L "$d" ]; then
	[ -f "$d/meta.json" ] && [ ! -L "$d/meta.json" ] ||
	    clawfail "$d exists but has no metadata"
	echo clawssh-found
	entry "$id"
	exit 0
fi
if [ -e "$d" ] || [ -L "$d" ]; then
	clawfail "$d exists and is not a sandbox directory"
fi
s="$root/.stage-$id-$$"
rm -rf -- "$s"
if mkdir -- "$s" "$s/workspace" "$s/private" &&
    cat > "$s/meta.json" && : > "$s/last-used" && mv -- "$s" "$d"; then
	:
else
	rm -rf -- "$s"
	clawfail "cannot create $d"
fi
echo clawssh-created
entry "$id"
