#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Generate the sync benchmark workspace in DIR: 10,000 files of 8 KiB in
# 100 nested directories, plus two 20 MiB binaries (about 120 MiB).
#   bench/gen_workspace.sh DIR
set -eu
dir=${1:?usage: gen_workspace.sh DIR}
mkdir -p "$dir"
i=0
while [ $i -lt 100 ]; do
	d="$dir/pkg$((i / 10))/mod$i"
	mkdir -p "$d"
	head -c 819200 /dev/urandom | split -b 8192 -d -a 3 - "$d/f"
	i=$((i + 1))
done
mkdir -p "$dir/blobs"
head -c 20971520 /dev/urandom > "$dir/blobs/a.bin"
head -c 20971520 /dev/urandom > "$dir/blobs/b.bin"
