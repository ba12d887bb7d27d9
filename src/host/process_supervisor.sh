#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The process tool's supervisor, run as "setsid sh -c SCRIPT sh DIR CAP
# CHUNK UMASK LIB ARGV...": it keeps the stdin FIFO open read-write in a
# holder until "process write --eof" (or the end), marks the sandbox used every
# minute while the process runs (so prune does not take it), runs the
# command as its own session leader with stdin from the FIFO and output
# through split into chunks, and records the exit status.
d=$1; cap=$2; chunk=$3; um=$4; lib=$5; shift 5
eval "$lib"
_i=$(clawident $$) && echo "$_i" > "$d/sup.ident"
echo $$ > "$d/sup"
( exec 3<>"$d/in"; read -r _ 0<>"$d/ctl" ) </dev/null >/dev/null 2>&1 &
( n=0
  while [ -d "$d" ] && [ ! -e "$d/rc" ]; do
	[ $((n % 60)) -eq 0 ] && touch -c -- "$d/../../last-used" 2>/dev/null
	n=$((n + 1))
	sleep 1
  done ) </dev/null >/dev/null 2>&1 &
filt="$lib
d=.; clawlock 20 && { clawprune $((cap - chunk)); clawunlock; }
exec cat > \"\$FILE\""
# shellcheck disable=SC2016 # the inner script expands its own $$ and $1
{ setsid -w sh -c 'eval "$3"; _i=$(clawident $$) && echo "$_i" > "$1/pid.ident"; echo $$ > "$1/pid.t" && mv -f "$1/pid.t" "$1/pid" || exit 126; umask "$2"; shift 3; exec "$@"' sh "$d" "$um" "$lib" "$@" < "$d/in"
  echo $? > "$d/rc.t"; mv -f "$d/rc.t" "$d/rc"
  echo x 1<>"$d/ctl"
} 2>&1 | ( cd "$d" && SHELL=/bin/sh exec split -b "$chunk" -a 6 -d \
    --filter="$filt" - log. )
clawlock 100 && { clawprune "$cap"; clawunlock; }
: > "$d/done"
