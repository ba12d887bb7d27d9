#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Rewrite the reference section of docs/protocol.md (between its
# "ops-reference" markers) with what ops-doc prints from the operations
# table.  Usage: update-ops-doc.sh OPS-DOC PROTOCOL.MD
set -eu
gen=$1
doc=$2
tmp=$(mktemp "${doc}.XXXXXX")
trap 'rm -f "$tmp" "$tmp.gen"' EXIT
"$gen" > "$tmp.gen"
awk -v gen="$tmp.gen" '
	index($0, "<!-- ops-reference: end -->") == 1 { on = 0 }
	!on { print }
	index($0, "<!-- ops-reference: begin") == 1 {
		on = 1
		while ((getline line < gen) > 0)
			print line
	}' "$doc" > "$tmp"
grep -q '^<!-- ops-reference: begin' "$tmp" || {
	echo "update-ops-doc.sh: no marker in $doc" >&2
	exit 1
}
mv "$tmp" "$doc"
