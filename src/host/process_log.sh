#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The process tool's log (after process_lib, _open and _state): the
# whole kept log, or its last $3 lines when $3 is not empty.  Output as
# for poll; DROPPED is non-zero only when what is shown starts where
# dropped output ended.
# shellcheck disable=SC2154 # $d, $h, $cap, $chunk: process_open.sh
lines=$3; state=$(clawstate wait)
tmp="$d/.out.$$"
clawlock 100 || clawfail "process $h is busy"
trap 'clawunlock; rm -f -- "$tmp"' EXIT
trap 'exit 143' TERM INT HUP
clawprune "$cap"
set -- "$d"/log.[0-9]*; first=0
[ -e "$1" ] && first=$(echo "${1##*/log.}" | sed 's/^0*//')
case $first in ''|*[!0-9]*) first=0 ;; esac
if [ -e "$1" ]; then cat -- "$@" > "$tmp"; else : > "$tmp"; fi ||
    clawfail "cannot read the log"
clawunlock; trap 'rm -f -- "$tmp" "$tmp.t"' EXIT
kept=$(wc -c < "$tmp"); lost=$((first * chunk))
if [ -n "$lines" ]; then
	tail -n "$lines" -- "$tmp" > "$tmp.t" && mv -f -- "$tmp.t" "$tmp"
fi
got=$(wc -c < "$tmp"); [ "$got" -eq "$kept" ] || lost=0
printf '%s\nclawssh-out %s %s\n' "$state" "$lost" "$got"
cat -- "$tmp"
