#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Configure and build clawssh in the source tree.  Extra arguments go to
# configure (e.g. --enable-debug, --enable-asan).
set -eu
cd "$(dirname "$0")/.."
# Newer than: find prints the first file when it is (test -nt is not POSIX).
newer() {
	[ -n "$(find "$1" -newer "$2" 2>/dev/null)" ]
}
if [ ! -x configure ] || [ ! -f Makefile.in ] || newer configure.ac configure ||
    newer Makefile.am Makefile.in; then
	autoreconf -fi
fi
if [ ! -f Makefile ] || [ "$#" -gt 0 ]; then
	./configure --enable-debug "$@"
fi
make -j"$(nproc)"
