#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A push's or a pull's shell step: remove the stages other pushes left
# in the workspace, $__claw_pre (TRANSFER_STAGE_PREFIX) and 16 hex
# digits.  A stage's lock is the file beside it (DIR.lock), taken before
# the stage is made, so a stage whose lock nobody holds (flock) is dead;
# without flock, one untouched for an hour.  A lock file without its
# stage is dead once nobody holds it and it is over 3 s old (a push
# makes and takes it within milliseconds; a cut in between leaves it
# alone); without flock, over a minute old.  A stage without its lock
# file is dead once over a minute old.  __claw_old F S: F was last
# changed over S seconds ago (stat -c %Y, else find's minutes).
# shellcheck disable=SC2154 # __claw_pre: set before it
__claw_old() {
	__claw_t=$(stat -c %Y -- "$1" 2>/dev/null) &&
	    __claw_n=$(date +%s) ||
	    { [ -n "$(find "$1" -maxdepth 0 -mmin +1)" ]; return; }
	[ $((__claw_n - __claw_t)) -gt "$2" ]
}
for d in "$__claw_pre"*; do
	case $d in
	*.lock)
		[ -e "${d%.lock}" ] && continue
		[ -f "$d" ] || continue
		if command -v flock >/dev/null 2>&1; then
			__claw_old "$d" 3 && flock -n "$d" true 2>/dev/null &&
			    rm -f -- "$d"
		else
			__claw_old "$d" 60 && rm -f -- "$d"
		fi
		continue ;;
	esac
	[ -d "$d" ] && [ ! -L "$d" ] || continue
	if [ ! -e "$d.lock" ]; then
		__claw_old "$d" 60 || continue
	elif command -v flock >/dev/null 2>&1; then
		flock -n "$d.lock" true 2>/dev/null || continue
	elif [ -z "$(find "$d" -maxdepth 0 -mmin +60)" ]; then
		continue
	fi
	rm -rf -- "$d" "$d.lock"
done
