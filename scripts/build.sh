#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Configure and build clawssh in the source tree.  Extra arguments go to
# configure (e.g. --enable-debug, --enable-asan).
set -eu
cd "$(dirname "$0")/.."
if [ ! -x configure ] || [ configure.ac -nt configure ] ||
    [ Makefile.am -nt Makefile.in ]; then
	autoreconf -fi
fi
if [ ! -f Makefile ] || [ "$#" -gt 0 ]; then
	./configure --enable-debug "$@"
fi
make -j"$(nproc)"
