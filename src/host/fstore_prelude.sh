#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The remote file tools' shell steps (src/tools/fstore_wire.c): what
# every one starts with, run from the workspace (in the sandbox's step
# jail /workspace, as the sandbox's identity; with runtime none the
# workspace on the host).  They need POSIX sh, readlink -f, stat -c,
# head -c (else dd) and, for ls and stat, GNU find.  Errors are a line
# "clawssh-error: MESSAGE" on stderr and exit status 3.
#
# real P sets $r to the real path of workspace-relative P: each existing
# component that is a link is resolved with readlink -f and must stay
# inside the workspace (one that is not is already real: $r is, and P
# has no "." or ".." component, fstore_path sees to that); the first
# missing one ends the walk (kept as written).  In the jail this only
# keeps a path within the sandbox's own view, which is all that is left
# to protect there.
umask 022
clawfail() { echo "clawssh-error: $*" >&2; exit 3; }
cd -P . && ws=$PWD && [ -n "$ws" ] ||
    clawfail 'the sandbox workspace is missing'
inside() { case $1 in "$ws"|"$ws"/*) return 0 ;; esac; return 1; }
real() {
	r=$ws
	rest=$1
	while [ -n "$rest" ]; do
		c=${rest%%/*}
		case $rest in */*) rest=${rest#*/} ;; *) rest= ;; esac
		if [ -L "$r/$c" ]; then
			n=$(readlink -f -- "$r/$c") && [ -n "$n" ] ||
			    clawfail "$1: cannot resolve $c"
			inside "$n" || clawfail "$1: a symbolic link on the way leads outside the workspace"
			r=$n
		elif [ -e "$r/$c" ]; then
			r=$r/$c
		else
			r=$r/$c${rest:+/$rest}
			return 0
		fi
	done
}
