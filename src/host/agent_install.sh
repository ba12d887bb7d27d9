#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Deploying the host agent: the upload.  After agent_dirs.sh, with n,
# want, size and sum (SHA-256, hex) set and the agent on stdin.  Answers
# as agent_check.sh, never "need".  Concurrent clients each write their
# own temporary and rename the same content: no lock.
# shellcheck disable=SC2154 # n, want, size, sum: set before it
umask 077; t=
fail() {
	[ -z "$t" ] || rm -f -- "$t"
	cat >/dev/null
	echo "clawssh-agent-no $*"
	exit 0
}
d=
IFS='
'
for c in $(clawdirs); do clawmine "$c" && { d=$c; break; }; done
IFS=' 	
'
[ -n "$d" ] ||
    fail "no directory of its own to keep the agent in (home, temporary directory)"
t=$d/.tmp-$$; rm -f -- "$t"
head -c "$size" > "$t" || fail "cannot write in $d"
[ "$(wc -c < "$t")" -eq "$size" ] || fail "the upload to $d was cut short"
if command -v sha256sum >/dev/null 2>&1; then
	# shellcheck disable=SC2046 # the sum is the first word
	set -- $(sha256sum < "$t")
	[ "$1" = "$sum" ] || fail "the upload to $d does not match its checksum"
fi
chmod 755 "$t" || fail "cannot chmod in $d"
[ "$("$t" version 2>/dev/null)" = "$want" ] ||
    fail "the agent cannot run from $d (a noexec mount?)"
mv -f -- "$t" "$d/$n" || fail "cannot rename in $d"
echo "clawssh-agent-ok $d/$n"
