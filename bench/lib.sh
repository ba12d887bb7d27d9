#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What the loopback benchmarks share: the clawssh and sshd they use
# (CLAWSSH, SSHD, from the environment or the tree), the commands they
# need (BENCH_TOOLS, checked), then tests/integration/lib.sh (a throwaway
# sshd on loopback, $T, the client files).  Sourced from the tree's top:
#   BENCH_TOOLS="hyperfine jq"; . bench/lib.sh
CLAWSSH=${CLAWSSH:-$PWD/clawssh}
SSHD=${SSHD:-$(command -v sshd || echo /usr/sbin/sshd)}
TESTLIB=$PWD/tests/integration/lib.sh
export CLAWSSH SSHD
[ -x "$CLAWSSH" ] || { echo "build clawssh first" >&2; exit 1; }
for p in ${BENCH_TOOLS:-}; do
	command -v "$p" >/dev/null ||
	    { echo "$p missing: apt-get install $p" >&2; exit 1; }
done
. "$TESTLIB"
