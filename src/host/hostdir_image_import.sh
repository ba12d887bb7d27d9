#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host's image store: import (hostdir_image_import in
# backends/host/hostdir_image.c; after hostdir_prelude.sh and
# hostdir_ensure_root.sh): $2 the image name (checked), $3 tar's
# decompression flag (checked: "", -z, -J, -j or --zstd).  The root
# file system tarball comes on stdin; it is unpacked beside the store
# (root/images) and renamed into place (device nodes skipped: bwrap
# makes /dev), with workspace/, tmp/, proc/ and dev/ made where the
# runtime mounts them, and the time of the import in its file imported.
# Prints "clawssh-image NAME TIME KIB".  A name already there is
# refused; a failed unpacking leaves nothing behind.
# shellcheck disable=SC2154 # $root: hostdir_prelude.sh
name=$2; z=$3; i="$root/images"
mkdir -p -- "$i" || clawfail "cannot create $i"
[ -L "$i" ] && clawfail "$i is a symbolic link"
clawlock "$i/.lock-$name"
[ -e "$i/$name" ] &&
    clawfail "image $name already exists on this host (remove it first: clawssh image rm)"
s="$i/.stage-$name-$$"
rm -rf -- "$s"
mkdir -p -- "$s/rootfs" || clawfail "cannot create $s"
# shellcheck disable=SC2086 # $z: no flag, or one word
if ! tar -x $z -f - -C "$s/rootfs" --exclude=./dev/* --exclude=dev/* \
    2>"$s/err"; then
	e=$(head -c 300 "$s/err" | tr '\n' ' ')
	rm -rf -- "$s"
	clawfail "unpacking the image failed: $e"
fi
for d in workspace tmp proc dev; do
	[ -L "$s/rootfs/$d" ] && rm -f -- "$s/rootfs/$d"
	[ -d "$s/rootfs/$d" ] || mkdir -p -- "$s/rootfs/$d" ||
	    { rm -rf -- "$s"; clawfail "cannot make /$d in the image"; }
done
rm -f -- "$s/err"
date +%s > "$s/imported"
mv -- "$s" "$i/$name" || { rm -rf -- "$s"; clawfail "cannot store the image"; }
echo "clawssh-image $name $(cat "$i/$name/imported") $(du -sk -- "$i/$name" | cut -f1)"
