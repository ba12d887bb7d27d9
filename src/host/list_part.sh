#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A mirror pull's listing of some paths of the sandbox workspace, each
# with everything below it, where the agent's fs-list cannot run
# (mirror_list_part, sync/mirror_remote.c): the paths on stdin, a line
# each; records as list_all.sh's, with the paths as given.  Paths that
# are gone are not listed.  GNU find 4.9 reads the start points from
# stdin; anything else fails the listing.
LC_ALL=C; export LC_ALL
while IFS= read -r p; do
	if [ -e "./$p" ] || [ -L "./$p" ]; then printf '%s\0' "$p"; fi
done | find -files0-from - \( -type f -o -type d -o -type l \) \
    -printf '%y %m %s %T@ %p\0%l\0'
