#!/bin/sh
# Quick-start command 2: install dependencies, build with strict warnings,
# and run the whole test suite (cmocka unit tests and integration tests
# against a real sshd each test starts on 127.0.0.1).
set -eu
cd "$(dirname "$0")/.."
sh scripts/install-deps.sh
sh scripts/build.sh
status=0
make -j"$(nproc)" check || status=$?
if [ $status -ne 0 ]; then
	for f in tests/unit/*.log tests/integration/*.log; do
		[ -f "$f" ] || continue
		grep -q '^FAIL\|^ERROR' "${f%.log}.trs" 2>/dev/null &&
		    { echo "=== $f"; tail -n 40 "$f"; }
	done
	# Print the summary last so the runner's own lines close the output.
	make check 2>&1 | tail -n 12
fi
exit $status
