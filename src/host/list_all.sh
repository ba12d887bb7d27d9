#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A mirror pull's listing of the whole sandbox workspace, run from it on
# the host where the agent's fs-list cannot run (manifest_remote_script,
# sync/manifest_io.c; parsed by manifest_parse_find0).  On stdout, for
# every file, directory and link below ".": "TYPE MODE SIZE SEC.FRAC
# PATH", NUL, the link's target or nothing, NUL.  GNU find prints the
# records itself; elsewhere each batch of paths find hands over is
# stat'ed by one stat(1), whose lines come in argument order, so the
# paths themselves (which may hold newlines) never pass through a line.
LC_ALL=C; export LC_ALL
if find . -maxdepth 0 -printf '' >/dev/null 2>&1; then
	exec find . -mindepth 1 \( -type f -o -type d -o -type l \) \
	    -printf '%y %m %s %T@ %P\0%l\0'
fi
# shellcheck disable=SC2016 # the inner script expands its own "$@"
exec find . ! -path . -exec sh -c '
out=$(stat -c "%f %a %s %Y" "$@") || exit 1
for p do
	IFS=" " read -r f a s y || exit 1
	l=
	case $((0x$f / 4096)) in
	8) t=f ;;
	4) t=d ;;
	10) t=l; l=$(readlink "$p" && echo .) || exit 1; l=${l%??} ;;
	*) continue ;;
	esac
	printf "%s %s %s %s.0 %s\000%s\000" "$t" "$a" "$s" "$y" \
	    "${p#./}" "$l"
done <<EOF
$out
EOF
' sh {} +
