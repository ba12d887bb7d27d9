#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# clawssh(1) renders cleanly: mandoc -T lint finds nothing at warning
# level or above, man -l (groff) renders it without a warning, and each
# option's paragraph is its own (the --provider one once held the
# daemon settings).  Without mandoc (Debian: mandoc, see
# scripts/install-deps.sh) the test is skipped (77).
set -u
top=${top_srcdir:-$(dirname "$0")/..}
page=$top/docs/clawssh.1
fails=0
command -v mandoc > /dev/null || { echo "SKIP: no mandoc" >&2; exit 77; }
command -v man > /dev/null || { echo "SKIP: no man" >&2; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clawssh-man.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

if ! mandoc -T lint -W warning "$page" > "$tmp/lint" 2>&1; then
	echo "FAIL: mandoc -T lint:" >&2
	cat "$tmp/lint" >&2
	fails=$((fails + 1))
fi
MANWIDTH=80 LC_ALL=C.UTF-8 man --warnings=all -l "$page" \
    > "$tmp/page" 2> "$tmp/warn"
if [ -s "$tmp/warn" ] || [ ! -s "$tmp/page" ]; then
	echo "FAIL: man -l warns (or renders nothing):" >&2
	cat "$tmp/warn" >&2
	fails=$((fails + 1))
fi
# The --provider paragraph, up to --policy, speaks of providers only.
sed -n '/^ *--provider name$/,/^ *--policy policy$/p' "$tmp/page" \
    > "$tmp/provider"
if [ ! -s "$tmp/provider" ] || grep -q 'daemon' "$tmp/provider"; then
	echo "FAIL: the --provider paragraph is garbled:" >&2
	cat "$tmp/provider" >&2
	fails=$((fails + 1))
fi
# The daemon settings are still there, in FILES.
grep -q 'maxWorkers' "$tmp/page" ||
    { echo "FAIL: the daemon settings are gone" >&2; fails=$((fails + 1)); }
[ "$fails" -eq 0 ]
