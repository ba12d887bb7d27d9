#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The process tool's write (after process_lib and _open): "sh -c SCRIPT
# sh SANDBOX HANDLE EOF"; stdin goes to the FIFO (opened read-write, so
# the open never blocks), then with EOF set the holder is told to let go
# of it.
# shellcheck disable=SC2154 # $d, $h: process_open.sh
[ -p "$d/in" ] && [ -p "$d/ctl" ] || clawfail "process $h has no stdin FIFO"
[ -e "$d/rc" ] && clawfail "process $h has exited"
cat 1<>"$d/in" || clawfail "cannot write to process $h"
[ "$3" = 1 ] && echo x 1<>"$d/ctl"
echo clawssh-written
