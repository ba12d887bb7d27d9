#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The README's first quick-start command, scripts/demo.sh, runs to its end
# with the binary just built (its install and build steps skipped), and
# leaves no daemon or sshd behind.  It once broke unnoticed: the sandbox's own uid
# could not pass through its private temporary directory.
set -u
top=${top_srcdir:-$(dirname "$0")/..}
: "${CLAWSSH:?CLAWSSH must name the clawssh binary}"
[ "$(id -u)" -eq 0 ] || { echo "SKIP: the demo runs as root" >&2; exit 77; }
log=$(mktemp "${TMPDIR:-/tmp}/clawssh-demo-log.XXXXXX") || exit 99
trap 'rm -f "$log"' EXIT
CLAWSSH_DEMO_BINARY=$CLAWSSH timeout 300 sh "$top/scripts/demo.sh" \
    > "$log" 2>&1 < /dev/null
rc=$?
if pgrep -f "sshd.*clawssh-demo\." > /dev/null; then
	echo "FAIL: the demo left its sshd running (exit status $rc)" >&2
	exit 1
fi
if [ $rc -ne 0 ] || ! grep -q '^== demo finished$' "$log"; then
	echo "FAIL: scripts/demo.sh: exit status $rc; its output ends:" >&2
	tail -n 30 "$log" >&2
	exit 1
fi
grep -q '^exec 3 through the daemon: [0-9]* ms$' "$log" ||
    { echo "FAIL: the daemon part did not run" >&2; tail -n 30 "$log" >&2;
    exit 1; }
if pgrep -f "clawssh serve.*clawssh-demo\." > /dev/null; then
	echo "FAIL: the demo left a daemon running" >&2
	exit 1
fi
echo "demo ran to its end"
