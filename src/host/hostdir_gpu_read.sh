#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# GPU state for an assignment (backends/host/hostdir_gpu.c; after
# hostdir_prelude.sh and hostdir_ensure_root.sh).  Prints
# "clawssh-devices", the nvidiaN names in the device directory
# ($CLAWSSH_GPU_DEV_DIR, else /dev), "clawssh-live", the ids of the
# sandboxes present, then "clawssh-table" and the allocation file
# root/gpus (INDEX ID lines; nothing when there is none).
# shellcheck disable=SC2154 # $root: hostdir_prelude.sh
dd=${CLAWSSH_GPU_DEV_DIR:-/dev}
echo clawssh-devices
# shellcheck disable=SC2010 # names only, matched whole
ls -1 -- "$dd" 2>/dev/null | grep '^nvidia[0-9][0-9]*$'
echo clawssh-live
for d in "$root"/c*; do [ -f "$d/meta.json" ] && echo "${d##*/}"; done
echo clawssh-table
cat -- "$root/gpus" 2>/dev/null
exit 0
