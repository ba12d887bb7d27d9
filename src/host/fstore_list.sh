#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The remote file tools: ls (after fstore_prelude.sh, with p the path
# set).  One record an entry, as a listing's.
# shellcheck disable=SC2154 # p, r: set before it
real "$p"
[ -d "$r" ] || clawfail "${p:-.}: not a directory"
find . -maxdepth 0 -printf '' 2>/dev/null ||
    clawfail 'ls needs GNU find on the host'
cd -- "$r" || clawfail "$p: cannot enter"
exec find . -mindepth 1 -maxdepth 1 \( -type f -o -type d -o -type l \) \
    -printf '%y %m %s %T@ %P\0%l\0'
