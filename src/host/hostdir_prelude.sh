#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host-directory backend's scripts (backends/host/hostdir.c,
# hostdir_image.c, hostdir_gpu.c; joined in hostdir_scripts.h) all start
# with this.  Each takes its values as positional parameters, set by
# the caller's "set -- ROOT ..." line (hostdir_script): $1 is the remote
# root, kept here in $root; the others are said in each script.  They
# need POSIX sh plus mkdir, mv, rm, cat, wc, ls, awk, id, date, and stat
# or date -r for file times; errors are a line "clawssh-error: MESSAGE"
# on stderr and exit status 3.
#
# Here: clawfail, mt (a file's mtime in epoch seconds, 0 if unknown), a
# check that the root is absolute and that no component of it is a
# symbolic link, the lock helper clawlock DIR (a mkdir lock, broken
# after a minute of staleness, released on exit), and entry ID (the
# sandbox's "clawssh-entry ID CREATED USED SIZE" line, then SIZE bytes
# of its meta.json).
umask 077
root=$1
clawfail() { echo "clawssh-error: $*" >&2; exit 3; }
mt() {
	stat -c %Y -- "$1" 2>/dev/null || date -r "$1" +%s 2>/dev/null ||
	    echo 0
}
case $root in /*) ;; *) clawfail "remoteRoot $root is not absolute" ;; esac
p=; oldifs=$IFS; IFS=/; set -f
for c in $root; do
	[ -n "$c" ] || continue
	p="$p/$c"
	[ -L "$p" ] && clawfail "remoteRoot component $p is a symbolic link"
done
IFS=$oldifs; set +f
clawlock() {
	lockdir=$1
	n=0
	until mkdir -- "$1" 2>/dev/null; do
		if [ -n "$(find "$1" -prune -mmin +1 2>/dev/null)" ]; then
			rmdir -- "$1" 2>/dev/null
			continue
		fi
		n=$((n + 1))
		[ $n -le 600 ] || clawfail "$1 is held too long"
		sleep 0.1 2>/dev/null || sleep 1
	done
	trap 'rmdir -- "$lockdir" 2>/dev/null' EXIT
	trap 'exit 143' TERM INT HUP
}
entry() {
	echo "clawssh-entry $1 $(mt "$root/$1/meta.json")" \
	    "$(mt "$root/$1/last-used") $(wc -c < "$root/$1/meta.json")"
	cat -- "$root/$1/meta.json"
}
