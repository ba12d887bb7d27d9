#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The remote file tools: read (after fstore_prelude.sh, with p the path,
# off the offset, lim the limit (0: to the end) and cap set).  A first
# line "clawssh-mode MODE LEN" gives the mode and the byte count that
# follows.  Only a regular file is read; GNU dd opens it non-blocking, so
# a FIFO swapped in after the check reads short (refused by the caller)
# instead of hanging.  Elsewhere the call's timeout is the bound.
# shellcheck disable=SC2154 # p, off, lim, cap, r: set before it
real "$p"
[ -e "$r" ] || clawfail "$p: no such file"
[ -d "$r" ] && clawfail "$p: is a directory"
[ -f "$r" ] || clawfail "$p: not a regular file (a FIFO, socket or device)"
st=$(stat -L -c '%s %a %F' -- "$r") || clawfail "$p: cannot read"
size=${st%% *} st=${st#* }; mode=${st%% *}
case ${st#* } in
regular*) ;;
*) clawfail "$p: not a regular file (a FIFO, socket or device)" ;;
esac
left=$((size - off)); [ $left -ge 0 ] || left=0
[ "$lim" -ne 0 ] && [ "$lim" -lt $left ] && left=$lim
[ $left -le "$cap" ] ||
    clawfail "$p: over $((cap / 1048576)) MiB; read it in parts with --offset and --limit"
printf 'clawssh-mode %s %s\n' "$mode" "$left"
[ $left -eq 0 ] && exit 0
case $(dd --version 2>/dev/null) in
*coreutils*)
	exec dd if="$r" iflag=nonblock,skip_bytes,count_bytes skip="$off" \
	    count=$left bs=65536 status=none ;;
esac
tail -c +$((off + 1)) -- "$r" | head -c $left
