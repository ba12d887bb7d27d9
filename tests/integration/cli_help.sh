#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The CLI's help against the man page: every command of 'clawssh --help'
# (so a new one cannot be missed) answers --help with status 0, its usage
# names the options clawssh(1)'s SYNOPSIS names for it, every option its
# help lists is documented in clawssh(1), and the global options (-F ...)
# work before the command, as with ssh.
# shellcheck source=tests/integration/lib.sh
. "${TESTLIB:-$(dirname "$0")/lib.sh}"
MAN=${top_srcdir:-$(dirname "$0")/../..}/docs/clawssh.1

# commands: the names 'clawssh --help' lists under "commands:".
commands() {
	"$CLAWSSH" --help | awk '/^commands:/ { on = 1; next }
	    on && /^  [a-z]/ { print $1; next } on && !/^  / { on = 0 }'
}

# flags: the options named in stdin ("-s", "--json"), one a line, sorted;
# a word counts when it starts a line or follows ' ', '[' or '|'.
flags() {
	sed 's/^/ /' | grep -oE -- '[][ |(]--?[A-Za-z][A-Za-z0-9-]*' |
	    cut -c2- | grep -vxE -- '-h|--help' | sort -u
}

# man_synopsis CMD: the options of clawssh(1)'s SYNOPSIS entries for CMD.
man_synopsis() {
	awk -v cmd="$1" '
	    /^\.Sh SYNOPSIS/ { on = 1; next } /^\.Sh/ { on = 0 }
	    !on { next }
	    /^\.Nm/ { mine = 0; next }
	    /^\.Cm / { for (i = 2; i <= NF; i++)
		if ($i == cmd && (i == 2 || $(i - 1) == "|")) mine = 1 }
	    mine { for (i = 1; i < NF; i++)
		if ($i ~ /^\.?Fl$/ && $(i + 1) != "-") print "-" $(i + 1) }
	    ' "$MAN" |
	    grep -vxE -- '-h|--help' | sort -u
}

# man_all: every option clawssh(1) documents anywhere.
man_all() {
	awk '{ for (i = 1; i < NF; i++)
	    if ($i ~ /^\.?Fl$/ && $(i + 1) != "-") print "-" $(i + 1) }' \
	    "$MAN" | sort -u
}

# usage_block CMD...: the usage lines of 'clawssh CMD... --help' (up to
# the first empty line).
usage_block() {
	"$CLAWSSH" "$@" --help | awk '/^$/ { exit } { print }'
}

# Every command answers --help, -h and 'help CMD' with its usage.
case_1() {
	list=$(commands)
	[ "$(echo "$list" | wc -l)" -ge 15 ] ||
	    lib_case_fail "clawssh --help lists too few commands: $list"
	for c in $list; do
		for form in "$c --help" "$c -h" "help $c"; do
			# shellcheck disable=SC2086
			out=$("$CLAWSSH" $form 2>"$T/err") ||
			    lib_case_fail "clawssh $form: status $?"
			case $out in
			"usage: clawssh $c"*) ;;
			*) lib_case_fail "clawssh $form: no usage: $out" ;;
			esac
			[ -s "$T/err" ] &&
			    lib_case_fail "clawssh $form wrote to stderr: $(cat "$T/err")"
		done
	done
	# Every subcommand its usage names ("clawssh sync push|pull ...").
	for c in $list; do
		for s in $(usage_block "$c" | awk -v c="$c" '{
		    for (i = 1; i < NF; i++) if ($i == "clawssh" &&
		    $(i + 1) == c && $(i + 2) ~ /^[a-z]/) print $(i + 2) }' |
		    tr '|' '\n' | sort -u); do
			for h in --help -h; do
				"$CLAWSSH" "$c" "$s" "$h" > "$T/out" 2>&1 ||
				    lib_case_fail "clawssh $c $s $h: status $?"
			done
			echo "$c $s" >> "$T/subs"
		done
	done
	[ "$(wc -l < "$T/subs")" -ge 12 ] ||
	    lib_case_fail "too few subcommands found: $(cat "$T/subs")"
	"$CLAWSSH" nosuch --help > /dev/null 2>&1
	[ $? -eq 255 ] || lib_case_fail "an unknown command's --help succeeded"
	return 0
}

# Each command's usage names exactly the options of its SYNOPSIS entries.
case_2() {
	for c in $(commands); do
		usage_block "$c" | flags > "$T/usage.$c"
		man_synopsis "$c" > "$T/man.$c"
		if ! cmp -s "$T/usage.$c" "$T/man.$c"; then
			lib_case_fail "$c: usage and clawssh(1) SYNOPSIS differ" \
			    "(< --help, > man): $(diff "$T/usage.$c" "$T/man.$c" |
			    grep '^[<>]' | tr '\n' ' ')"
		fi
	done
}

# Every option a command's help lists is documented in clawssh(1), and
# every command of the SYNOPSIS is in the command table.
case_3() {
	man_all > "$T/man.all"
	for c in $(commands); do
		"$CLAWSSH" "$c" --help | grep -E '^ +-' | flags |
		    while read -r f; do
			grep -qxF -- "$f" "$T/man.all" ||
			    lib_case_fail "$c: $f is not in clawssh(1)"
		done
	done
	commands > "$T/table"
	awk '/^\.Sh SYNOPSIS/ { on = 1; next } /^\.Sh/ { on = 0 }
	    on && /^\.Cm / { print $2 }' "$MAN" | sort -u |
	    while read -r c; do
		grep -qxF "$c" "$T/table" ||
		    lib_case_fail "clawssh(1) has '$c', clawssh --help not"
	done
}

# -F and the other connection options go before the command too.
case_4() {
	out=$("$CLAWSSH" -F "$T/ssh_config" exec testhost -- echo hi) ||
	    lib_case_fail "-F before exec: status $?"
	expect_eq "$out" "hi" "-F before exec"
	out=$("$CLAWSSH" -v -F "$T/ssh_config" -o ConnectTimeout=9 \
	    --no-daemon exec testhost -- echo two 2>/dev/null) ||
	    lib_case_fail "several globals before exec: status $?"
	expect_eq "$out" "two" "several globals before exec"
	out=$("$CLAWSSH" -F"$T/ssh_config" --config="$T/none.json" exec \
	    testhost -- echo three 2>&1)
	expect_match "$out" "none.json" "--config= before exec is used"
	# Without -F the alias is unknown: the -F above was what found it.
	"$CLAWSSH" exec testhost -- echo hi > /dev/null 2>&1 &&
	    lib_case_fail "testhost resolved without -F"
	# A global before a subcommand's command goes after the subcommand.
	"$CLAWSSH" -F "$T/ssh_config" sync push --help > /dev/null ||
	    lib_case_fail "-F before sync push: status $?"
	# Bad globals: a clear error, status 255.
	err=$("$CLAWSSH" -F 2>&1)
	[ $? -eq 255 ] || lib_case_fail "-F alone: not 255"
	expect_match "$err" "wants an argument" "-F alone"
	err=$("$CLAWSSH" -F "$T/ssh_config" --bogus exec testhost -- true 2>&1)
	[ $? -eq 255 ] || lib_case_fail "--bogus global: not 255"
	expect_match "$err" "not a global option" "--bogus global"
	return 0
}

lib_run_cases "1 2 3 4"
