#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The process tool's wait (after process_lib, _open and _state): up to
# $3 tenths of a second for the process to exit (or its supervisor to
# vanish: lost), then its state line.  Output is not read.
# shellcheck disable=SC2154 # $d: process_open.sh
lim=$3; case $lim in ''|*[!0-9]*) lim=0 ;; esac; n=0
while [ ! -e "$d/rc" ] && [ $n -lt "$lim" ]; do
	clawours "$d/sup" || break
	clawnap; n=$((n + 1))
done
clawstate wait
