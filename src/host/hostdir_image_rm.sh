#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host's image store: removal (hostdir_image_rm in
# backends/host/hostdir_image.c; after hostdir_prelude.sh): $2 the image
# name (checked), $3 1 to force.  Refused while a sandbox's metadata
# names the image, unless forced.  It removes the stored root file
# system only: no container is made from the store (docker and podman
# run images of their own), so none is touched; the sandboxes that used
# it stay, and their next exec fails naming it.  Prints clawssh-removed.
# shellcheck disable=SC2154 # $root: hostdir_prelude.sh
name=$2; force=$3; i="$root/images"
[ -d "$i/$name" ] && [ ! -L "$i/$name" ] ||
    clawfail "no image $name on this host"
clawlock "$i/.lock-$name"
users=$(grep -l "\"image\":[[:space:]]*\"$name\"" "$root"/c*/meta.json \
    2>/dev/null | sed 's|.*/\(c[a-z2-7]*\)/meta.json|\1|' | tr '\n' ' ')
[ -z "$users" ] || [ "$force" = 1 ] ||
    clawfail "image $name is used by sandboxes $users(destroy them, or --force)"
t="$i/.trash-$name-$$"
mv -- "$i/$name" "$t" || clawfail "cannot remove $name"
chmod -R u+rwx -- "$t" 2>/dev/null
rm -rf -- "$t"
echo clawssh-removed
