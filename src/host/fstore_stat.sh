#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The remote file tools: stat (after fstore_prelude.sh, with p the path
# set).  One record, named x, as a listing's.
# shellcheck disable=SC2154 # p, r: set before it
real "$p"
[ -e "$r" ] || [ -L "$r" ] ||
    clawfail "${p:-.}: no such file or directory"
find . -maxdepth 0 -printf '' 2>/dev/null ||
    clawfail 'stat needs GNU find on the host'
exec find "$r" -maxdepth 0 -printf '%y %m %s %T@ x\0%l\0'
