#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host's change watcher for a mirror sandbox where the agent's own
# (clawssh-agent watch) cannot run: run by the daemon (src/daemon/
# daemon_watch.c) in the workspace, $1 the sentinel directory's prefix
# (empty: beside the workspace).  inotifywait on "." and on a private
# sentinel directory; each hex token read on stdin is created there
# ("T TOKEN"; removed in batches), so its event marks a point in the
# stream.  "L TOKEN" and paths, one a line, up to an empty one: they are
# listed (and all below) with GNU find -files0-from on stderr, between
# "clawssh-list TOKEN" and "\0\0clawssh-end TOKEN STATUS", so a take
# needs no channel of its own.  Builtins only, but for inotifywait and
# find: each process costs about a millisecond on the path of every
# mirrored exec.  It ends when inotifywait does (so a dead watcher is
# noticed) or when its stdin ends (the daemon let go of the channel),
# and before a take when "." was removed (the sandbox was destroyed) or
# is no longer the directory at the workspace's path (made again there,
# or moved and a link left): a watcher must not answer for a workspace
# it no longer sees.  The check is cd -P . and $PWD, not $(pwd -P): a
# subshell is a fork per take.
LC_ALL=C; export LC_ALL
command -v inotifywait >/dev/null 2>&1 ||
    { echo 'clawssh-watch: no inotifywait'; exit 0; }
S=${1:-$(pwd -P).clawssh-watch}.$$
mkdir -- "$S" || exit 1
inotifywait -m -r --format '%e %w%f' -e create,delete,modify,attrib,close_write,move,delete_self,move_self,unmount . "$S" 2>&1 &
w=$!
P=$(pwd -P)
c=0
exec 3<&0
{ while IFS= read -r t <&3; do
	case $t in
	T\ *)
		# shellcheck disable=SC3013 # -ef: dash, bash and busybox have it
		cd -P . 2>/dev/null && [ "$PWD" = "$P" ] &&
		    [ . -ef "$P" ] || break
		t=${t#T }
		case $t in
		''|*[!0-9a-f]*) ;;
		*)	c=$((c + 1))
			[ $c -lt 64 ] || { rm -f -- "$S"/*; c=0; }
			: > "$S/$t" ;;
		esac ;;
	L\ *)
		t=${t#L }
		printf 'clawssh-list %s\n' "$t" >&2
		while IFS= read -r p <&3 && [ -n "$p" ]; do
			if [ -e "./$p" ] || [ -L "./$p" ]; then
				printf '%s\0' "$p"
			fi
		done | find -files0-from - \( -type f -o -type d -o -type l \) \
		    -printf '%y %m %s %T@ %p\0%l\0' >&2 2>/dev/null
		printf '\0\0clawssh-end %s %s\n' "$t" $? >&2 ;;
	esac
done; kill $w 2>/dev/null; } &
r=$!
trap 'kill $w $r 2>/dev/null; rm -rf -- "$S"' EXIT
trap 'exit 1' HUP TERM PIPE
wait $w 2>/dev/null
