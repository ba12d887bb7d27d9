#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The remote file tools: commit (after fstore_prelude.sh, with tag set:
# hex, random, made by clawssh for this call).  stdin holds lines
# "W MODE LEN CREATE /PATH/" (MODE -1: keep the old one) and
# "D - - - /PATH/", then a line ".", then the LEN bytes of each W in
# order.  All content goes to temporary files first; the renames and
# removals follow only when every one was written.
#
# A temporary file is DIR/.clawssh-tmp-TAG-N, created exclusively (set -C:
# an existing name or a link there is refused, never followed) with
# umask 077 and held open on fd 4; its mode is set through that
# descriptor (/proc/self/fd/4), so a name swapped after the creation
# takes no chmod.  Every temporary made is removed on any failure or
# signal.
# shellcheck disable=SC2154 # tag, r: set before it
exec 3<&0
case $(head --version 2>/dev/null) in *coreutils*) gh=1 ;; *) gh= ;; esac
rd() {
	if [ -n "$gh" ]; then
		head -c "$1" <&3
	else
		dd bs=1 count="$1" <&3 2>/dev/null
	fi
}
plan='' tmps='' i=0 op=''
clean() {
	while IFS= read -r t; do [ -z "$t" ] || rm -f -- "$t"; done <<EOF
$tmps
EOF
}
trap clean EXIT
trap 'exit 3' HUP INT TERM
while IFS=' ' read -r op mode len cr p <&3; do
	[ "$op" = . ] && break
	p=${p#/}; p=${p%/}; real "$p"
	[ -d "$r" ] && clawfail "$p: is a directory"
	if [ -e "$r" ] || [ -L "$r" ]; then e=1; else e=; fi
	[ "$op" = W ] && [ -n "$e" ] && [ ! -f "$r" ] &&
	    clawfail "$p: not a regular file (a FIFO, socket or device)"
	[ "$cr" = 1 ] && [ -n "$e" ] && clawfail "$p: already exists"
	[ "$op" = D ] && [ -z "$e" ] && clawfail "$p: no such file"
	plan="$plan$op $mode $len $r/
"
done
[ "$op" = . ] || clawfail 'truncated request'
while IFS=' ' read -r op mode len r; do
	[ "$op" = W ] || continue; r=${r%/}; d=${r%/*}
	mkdir -p -- "$d" || clawfail "cannot create $d"
	inside "$(readlink -f -- "$d")" ||
	    clawfail "$d: leads outside the workspace"
	i=$((i + 1)); t=$d/.clawssh-tmp-$tag-$i
	umask 077; set -C
	command exec 4>"$t" || clawfail "cannot create $t"
	set +C; umask 022; tmps="$tmps$t
"
	rd "$len" >&4 || clawfail "cannot write $t"
	[ "$(wc -c < "$t")" -eq "$len" ] || clawfail 'truncated request'
	[ "$mode" != -1 ] || mode=$(stat -c %a -- "$r" 2>/dev/null) || mode=644
	if [ -e /proc/self/fd/4 ]; then
		chmod -- "$mode" /proc/self/fd/4
	else
		[ -f "$t" ] && [ ! -L "$t" ] && chmod -- "$mode" "$t"
	fi || clawfail "cannot chmod $t"
	exec 4>&-
done <<EOF
$plan
EOF
i=0
while IFS=' ' read -r op mode len r; do
	[ -n "$op" ] || continue; r=${r%/}
	if [ "$op" = D ]; then
		rm -f -- "$r" || clawfail "cannot remove $r"
		continue
	fi
	i=$((i + 1))
	mv -f -- "${r%/*}/.clawssh-tmp-$tag-$i" "$r" ||
	    clawfail "cannot replace $r"
done <<EOF
$plan
EOF
tmps=
