#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The layer check: a source file may include headers of its own layer
# and of the layers below it, never of one above.  Bottom to top:
#   src/agent, compat, src/host, src/lib, src/ssh, src/state, sync,
#   src/tools,
#   backends/host, backends/providers, src/ops, src/gateway, src/daemon,
#   src/cli
# (src/agent is clawssh-agent, built static with libc only: it includes
# nothing but its own headers.)
# (docs/architecture.md says what lives where).  Prints every upward
# include and fails if there is one; sync/ also includes no mux_*.h.
set -u
top=${top_srcdir:-$(dirname "$0")/..}
cd "$top" || exit 99
LAYERS="src/agent compat src/host src/lib src/ssh src/state sync src/tools backends/host \
backends/providers src/ops src/gateway src/daemon src/cli"

# rank DIR: the position of DIR in LAYERS (0: not a layer).
rank() {
	_i=1
	for _l in $LAYERS; do
		[ "$_l" = "$1" ] && { echo "$_i"; return; }
		_i=$((_i + 1))
	done
	echo 0
}

# Where each header lives, as "NAME RANK" lines.
map=$(for l in $LAYERS; do
	r=$(rank "$l")
	for h in "$l"/*.h; do
		[ -f "$h" ] && echo "${h##*/} $r"
	done
done)
bad=0
tmp=$(mktemp "${TMPDIR:-/tmp}/clawssh-layers.XXXXXX") || exit 99
for l in $LAYERS; do
	r=$(rank "$l")
	for f in "$l"/*.c "$l"/*.h; do
		[ -f "$f" ] || continue
		sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" > "$tmp"
		while IFS= read -r h; do
			hr=$(printf '%s\n' "$map" | awk -v h="$h" \
			    '$1 == h { print $2; exit }')
			[ -n "$hr" ] || continue	# config.h, generated
			if [ "$hr" -gt "$r" ]; then
				echo "upward include: $f includes $h" >&2
				bad=1
			fi
		done < "$tmp"
	done
done
rm -f "$tmp"
# sync/ gets what the daemon knows through its caller (struct
# mirror_hints), never by speaking the control protocol itself.
for f in sync/*.c sync/*.h; do
	if grep -q '^#include "mux_' "$f"; then
		echo "sync speaks the daemon's protocol: $f includes mux_*.h" >&2
		bad=1
	fi
done
[ $bad -eq 0 ] && echo "layers: no upward include"
exit $bad
