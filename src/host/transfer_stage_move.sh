#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A push's staged unpacking, once the tar into $s/t succeeded (its -v
# names in $s/members): rename each staged entry into place (parents
# first, as find lists them): a directory the workspace has already is
# entered, anything else replaces what is there (a directory in the way
# of a file is removed), a new directory moves whole.  Then the
# directories the stream held (its members, as tar -v listed them: not
# the parents it made on the way) that are left in the stage give their
# modes and times to the workspace's (a tar of directories alone), and
# the stage goes.
# shellcheck disable=SC2154 # s: set before it
(cd "$s/t" && find . -mindepth 1) > "$s/list" || fail
while IFS= read -r p; do
	p=${p#./}; f="$s/t/$p"
	[ -e "$f" ] || [ -L "$f" ] || continue
	if [ -d "$f" ] && [ ! -L "$f" ]; then
		[ -d "./$p" ] && [ ! -L "./$p" ] && continue
		rm -f -- "./$p" || fail
	elif [ -d "./$p" ] && [ ! -L "./$p" ]; then
		rm -rf -- "./$p" || fail
	fi
	mv -f -- "$f" "./$p" || fail
done < "$s/list"
while IFS= read -r p; do
	p=${p%/}; p=${p#./}
	[ -n "$p" ] && [ "$p" != . ] && [ -d "$s/t/$p" ] &&
	    [ ! -L "$s/t/$p" ] && printf './%s\n' "$p"
done < "$s/members" > "$s/dirs"
[ ! -s "$s/dirs" ] || (cd "$s/t" &&
    tar --no-recursion -cf - -T ../dirs) | tar -xpf - || fail
rm -rf -- "$s" "$s.lock"
