#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host's image store: listing (hostdir_image_list in
# backends/host/hostdir_image.c; after hostdir_prelude.sh): one line
# "clawssh-image NAME TIME KIB" an image (a directory of root/images,
# not a link, holding rootfs/; TIME 0 when its import time is lost).
# No store: nothing.
# shellcheck disable=SC2154 # $root: hostdir_prelude.sh
[ -d "$root/images" ] || exit 0
cd -- "$root/images" || clawfail "cannot enter images"
for d in *; do
	case $d in .*|'*') continue ;; esac
	[ -d "$d/rootfs" ] && [ ! -L "$d" ] || continue
	echo "clawssh-image $d $(cat "$d/imported" 2>/dev/null || echo 0) $(du -sk -- "$d" | cut -f1)"
done
