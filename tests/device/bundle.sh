#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Pack what tests/device/gpu_check.sh needs on a bare GPU machine into
# .devchk/ (ignored by git, carried to the device): the built clawssh,
# Debian's sshd, ssh-keygen and bwrap, and every shared library they
# load apart from the C library's own, which the device machine's newer
# glibc provides.  Run from the top of a built tree.
set -eu

[ -x ./clawssh ] || { echo "bundle.sh: build clawssh first" >&2; exit 1; }
out=.devchk
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"
bins="./clawssh /usr/sbin/sshd /usr/bin/ssh-keygen $(command -v bwrap)"
for b in $bins; do
	cp "$b" "$out/bin/"
done
for b in $bins; do
	ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
done | sort -u | while read -r lib; do
	case ${lib##*/} in
	libc.so.*|libm.so.*|libresolv.so.*|ld-linux*) continue ;;
	esac
	cp -L "$lib" "$out/lib/"
done
tar -C "$out" -cJf "$out/lib.tar.xz" lib
rm -rf "${out:?}/lib"
grep -qx '/.devchk/' .git/info/exclude 2>/dev/null ||
    echo '/.devchk/' >> .git/info/exclude
du -sh "$out"
