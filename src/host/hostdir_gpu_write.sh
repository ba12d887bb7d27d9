#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Write a new GPU allocation file root/gpus if the old one is still what
# was read (backends/host/hostdir_gpu.c; after hostdir_prelude.sh).
# stdin: "OLDLEN NEWLEN", then the old and the new text.  Under the
# lock: prints clawssh-written, or clawssh-retry if it changed
# meanwhile (the file then untouched).
# shellcheck disable=SC2154 # $root: hostdir_prelude.sh
clawlock "$root/.lock-gpus"
read -r ol nl || clawfail 'truncated request'
t="$root/.gpus-$$"
head -c "$ol" > "$t.old"
head -c "$nl" > "$t"
[ -f "$root/gpus" ] || : > "$root/gpus"
if ! cmp -s "$t.old" "$root/gpus"; then
	rm -f -- "$t" "$t.old"
	echo clawssh-retry
	exit 0
fi
mv -- "$t" "$root/gpus" || clawfail 'cannot write gpus'
rm -f -- "$t.old"
echo clawssh-written
