#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Shell completion: the generated part of completion/clawssh.bash and
# completion/_clawssh is what scripts/completion-data.sh makes from the
# command table now (so a new command or option cannot be missed);
# 'make install DESTDIR=...' puts both and the man page in place; the
# installed bash script completes 'clawssh ex<TAB>' to exec (complete -p,
# compgen), and the zsh one offers exec too (zsh, if there is one).
set -u
: "${CLAWSSH:?CLAWSSH must name the clawssh binary}"
top=${top_srcdir:-$(dirname "$0")/..}
build=$(dirname "$CLAWSSH")
fails=0
tmp=$(mktemp -d "${TMPDIR:-/tmp}/clawssh-compl.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# bad WHAT: count a failure.
bad() {
	echo "FAIL: $*" >&2
	fails=$((fails + 1))
}

# block FILE: the generated part of FILE.
block() {
	sed -n '/^# BEGIN generated/,/^# END generated/p' "$1"
}

sh "$top/scripts/completion-data.sh" "$CLAWSSH" > "$tmp/data" ||
    bad "scripts/completion-data.sh failed"
for f in completion/clawssh.bash completion/_clawssh; do
	block "$top/$f" > "$tmp/have"
	diff "$tmp/data" "$tmp/have" > "$tmp/diff" ||
	    bad "$f is not what scripts/completion-data.sh makes now" \
		"(run scripts/completion-data.sh --update ./clawssh):" "$(cat "$tmp/diff")"
done

${MAKE:-make} -s -C "$build" install-data install-exec \
    DESTDIR="$tmp/root" prefix=/usr > "$tmp/install" 2>&1 ||
    bad "make install failed: $(cat "$tmp/install")"
bc=$tmp/root/usr/share/bash-completion/completions/clawssh
zc=$tmp/root/usr/share/zsh/site-functions/_clawssh
for f in "$tmp/root/usr/share/man/man1/clawssh.1" "$bc" "$zc" \
    "$tmp/root/usr/bin/clawssh"; do
	[ -s "$f" ] || bad "make install did not install ${f#"$tmp/root"}"
done

# complete WORD...: what the installed bash script offers for the last
# word of "clawssh WORD...", one a line.
complete_bash() {
	HOME=$tmp bash --norc --noprofile -c '. "$1"; shift
	    complete -p clawssh > /dev/null || exit 1
	    COMP_WORDS=(clawssh "$@"); COMP_CWORD=$#
	    _clawssh; printf "%s\n" "${COMPREPLY[@]}"' sh "$bc" "$@"
}
[ -f "$bc" ] && {
	HOME=$tmp bash --norc -c '. "$1"; complete -p clawssh' sh "$bc" |
	    grep -qx 'complete -F _clawssh clawssh' ||
	    bad "bash: complete -p clawssh names no _clawssh"
	out=$(complete_bash ex)
	[ "$out" = exec ] || bad "bash: clawssh ex<TAB> gave '$out'"
	out=$(complete_bash -F cfg sync "" | tr '\n' ' ')
	[ "$out" = "pull push status " ] ||
	    bad "bash: clawssh -F cfg sync <TAB> gave '$out'"
	out=$(complete_bash exec --time)
	[ "$out" = --timeout ] || bad "bash: exec --time<TAB> gave '$out'"
	out=$(complete_bash list --j)
	[ "$out" = --json ] || bad "bash: list --j<TAB> gave '$out'"
	# No completion after --: that is the remote command's.
	out=$(complete_bash exec box -- ex)
	[ -z "$out" ] || bad "bash: completed after --: '$out'"
}
if command -v zsh > /dev/null && [ -f "$zc" ]; then
	out=$(zsh -fc 'compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }
	    words=(clawssh ex); CURRENT=2; PREFIX=ex; source "$1"' zsh "$zc")
	printf '%s\n' "$out" | grep -qx exec ||
	    bad "zsh: clawssh ex<TAB> does not offer exec: $out"
	out=$(zsh -fc 'compadd() { [[ $1 == -- ]] && shift; print -l -- "$@"; }
	    words=(clawssh list --j); CURRENT=3; PREFIX=--j; source "$1"' \
	    zsh "$zc")
	printf '%s\n' "$out" | grep -qx -- --json ||
	    bad "zsh: clawssh list --j<TAB> does not offer --json: $out"
else
	echo "note: no zsh; its completion was not run" >&2
fi
[ "$fails" -eq 0 ]
