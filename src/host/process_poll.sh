#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The process tool's poll (after process_lib, _open and _state): the
# state, then the output since the last poll: the state line,
# "clawssh-out DROPPED LEN", then exactly LEN bytes.
# shellcheck disable=SC2154 # $d, $h, $cap, $chunk: process_open.sh
state=$(clawstate wait)
tmp="$d/.out.$$"
clawlock 100 || clawfail "process $h is busy"
trap 'clawunlock; rm -f -- "$tmp"' EXIT
trap 'exit 143' TERM INT HUP
clawprune "$cap"
from=$(head -c 18 -- "$d/polled" 2>/dev/null | tr -d '\n')
case $from in ''|*[!0-9]*) from=0 ;; esac
set -- "$d"/log.[0-9]*; first=0
[ -e "$1" ] && first=$(echo "${1##*/log.}" | sed 's/^0*//')
case $first in ''|*[!0-9]*) first=0 ;; esac
dropped=$((first * chunk)); lost=0
[ "$from" -lt "$dropped" ] && { lost=$((dropped - from)); from=$dropped; }
if [ -e "$1" ]; then
	cat -- "$@" | tail -c +$((from - dropped + 1)) > "$tmp"
else
	: > "$tmp"
fi || clawfail "cannot read the log"
got=$(wc -c < "$tmp")
echo $((from + got)) > "$d/polled.t" && mv -f "$d/polled.t" "$d/polled"
clawunlock; trap 'rm -f -- "$tmp"' EXIT
printf '%s\nclawssh-out %s %s\n' "$state" "$lost" "$got"
cat -- "$tmp"
