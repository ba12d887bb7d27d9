#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Every shell script of the tree passes shellcheck (errors and warnings;
# .shellcheckrc says what is off and why): the *.sh files and the
# extensionless scripts whose first line runs sh or bash (stand-ins,
# example providers, .ci/run).  The linter comes from
# scripts/install-deps.sh; without it the test is skipped.
. "$TESTLIB"
top_srcdir=${top_srcdir:?make check sets it}

command -v shellcheck >/dev/null 2>&1 ||
    { echo "SKIP: shellcheck is not installed"; exit 77; }
cd "$top_srcdir" || fail "cd $top_srcdir"
find . \( -name .git -o -name node_modules -o -name autom4te.cache \
    -o -name 'build*' -o -name 'clawssh-[0-9]*' -o -name .devchk \) \
    -prune -o -type f -print | sort > "$T/all"
while IFS= read -r f; do
	case $f in
	*.sh) echo "$f"; continue ;;
	*.*) continue ;;
	esac
	head -n 1 "$f" 2>/dev/null | grep -q '^#!.*[/ ]\(ba\)\{0,1\}sh\( \|$\)' &&
	    echo "$f"
done < "$T/all" > "$T/scripts"
n=$(wc -l < "$T/scripts")
[ "$n" -ge 50 ] || fail "only $n shell scripts found under $top_srcdir"
# shellcheck disable=SC2046 # one word per path, none with blanks
shellcheck -S warning -f gcc $(cat "$T/scripts") > "$T/out" 2>&1 ||
    fail "shellcheck of $n scripts:
$(cat "$T/out")"
echo "shellcheck: $n scripts clean"
exit 0
