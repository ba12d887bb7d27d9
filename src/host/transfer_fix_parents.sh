#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A push's shell step (sync/transfer.c, sync/mirror.c), before the tar
# stream when the push is an exact list: in the workspace, in the step
# jail, reading transfer_parents' lines (the directories above the
# pushed paths, parents first, then a line ".") and removing each that
# is a link or not a directory, so that the tar after it makes a
# directory there instead of failing on (or, outside a jail, writing
# through) what the sandbox put in its place.  Only builtins for the
# directories that are fine: nothing about them changes, so the host
# watcher sees nothing.
while IFS= read -r p && [ "$p" != . ]; do
	if [ -L "./$p" ] || { [ -e "./$p" ] && [ ! -d "./$p" ]; }; then
		rm -f -- "./$p" || exit 1
	fi
done
