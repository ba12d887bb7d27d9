#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The reference section of docs/protocol.md is what ops-doc prints from
# the operations table (src/ops/ops_table.c): fails, with the diff, when
# one changed without the other.  `make update-ops-doc` rewrites it.
set -u
top=${top_srcdir:-$(dirname "$0")/..}
doc=$top/docs/protocol.md
gen=${OPS_DOC:-./ops-doc}
begin='<!-- ops-reference: begin'
end='<!-- ops-reference: end -->'
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clawssh-opsdoc.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
[ -x "$gen" ] || { echo "ops_doc.sh: no $gen (build first)" >&2; exit 99; }
"$gen" > "$tmp/want" || exit 99
awk -v b="$begin" -v e="$end" '
	index($0, e) == 1 { on = 0 }
	on { print }
	index($0, b) == 1 { on = 1; seen = 1 }
	END { exit seen ? 0 : 1 }' "$doc" > "$tmp/have" || {
	echo "ops_doc.sh: $doc has no '$begin' marker" >&2
	exit 1
}
if ! diff -u "$tmp/have" "$tmp/want"; then
	echo "ops_doc.sh: docs/protocol.md's reference differs from the" \
	    "operations table: run 'make update-ops-doc'" >&2
	exit 1
fi
echo "ops_doc.sh: the reference matches the table ($(wc -l < "$tmp/want") lines)"
