#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Which paths mirror mode moves (docs/sync.md, "Which paths move"): a
# .gitignore no longer keeps the command's outputs from coming down, and
# keeps only untracked files from going up; a user's exclusion
# (.clawsshignore, sync.exclude) keeps a path out both ways, tracked or
# not; ignore files the sandbox plants change nothing here; sync status
# -v prints the rules.
#
#   case  what                                           before   after
#   1     outputs .gitignore matches come back, stay      FAIL     pass
#         mirrored (a local deletion goes up)
#   2     a force-added tracked file under an ignored     FAIL     pass
#         dir goes up; an untracked one beside it not
#   3     a user's exclusion keeps a path out both ways   FAIL     pass
#         (a tracked file too)
#   4     planted .gitignore/.clawsshignore in the        FAIL     pass
#         sandbox change nothing here
#   5     sync status -v prints the rules and sources     FAIL     pass
# ("before": the code before 2026-12-03.)  RULES_CASES="1 3" runs some.
# Set LIB_SSH_USER=clawssh-test to run the host's side as that user.
# The case_N functions are called by name, by lib_run_cases.
# shellcheck disable=SC2317
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

command -v git >/dev/null 2>&1 || { echo "SKIP: no git"; exit 77; }
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
mkdir -m 700 "$R"
[ -n "${LIB_SSH_USER:-}" ] && chown "$LIB_SSH_USER:" "$R"
echo "the host side runs as ${LIB_SSH_USER:-$(id -un)}" \
    "(remote root owned by $(stat -c %U "$R"))" >&2

# g ARGS...: git in the case's workspace, as a user's checkout is.
g() {
	git -C "$W" -c user.name=t -c user.email=t@example.invalid \
	    -c init.defaultBranch=main "$@" > /dev/null
}

# ws N: a workspace, a git checkout with build/ and *.tmp ignored,
# and a mirror-mode sandbox for it ($id, its host workspace $RW).
ws() {
	W="$T/ws$1"
	mkdir -p "$W/src"
	echo 'int main(void) { return 0; }' > "$W/src/main.c"
	printf 'build/\n*.tmp\n' > "$W/.gitignore"
	g init -q
	g add -A
	g commit -q -m init
	id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
	    --key "rules$1" --remote-root "$R" --workspace "$W") ||
	    { lib_case_fail "provision"; exit 1; }
	RW="$R/$id/workspace"
}

# x ARGS...: clawssh exec -v -s "$id" ARGS, stderr in $T/err.
x() {
	"$CLAWSSH" exec -v -s "$id" "$@" 2>"$T/err"
}

case_1() {
	ws 1
	x -- sh -c 'mkdir -p build/obj; echo o > build/obj/main.o;
		echo b > build/main; echo t > x.tmp' ||
	    lib_case_fail "exec: $(cat "$T/err")"
	[ "$(cat "$W/build/obj/main.o" 2>&1)" = o ] ||
	    lib_case_fail "build/obj/main.o did not come back"
	[ "$(cat "$W/build/main" 2>&1)" = b ] ||
	    lib_case_fail "build/main did not come back"
	[ "$(cat "$W/x.tmp" 2>&1)" = t ] ||
	    lib_case_fail "x.tmp did not come back"
	# Nothing changed: nothing moves, nothing is deleted on the host.
	x -- true || lib_case_fail "second exec: $(cat "$T/err")"
	grep -q "sync up: 0 to send, 0 to delete" "$T/err" ||
	    lib_case_fail "outputs that came down went back up or were" \
	    "taken for deleted: $(grep 'sync up' "$T/err")"
	[ -e "$RW/build/main" ] || lib_case_fail "host lost build/main"
	# They stay mirrored: a local deletion goes up, a new output comes.
	rm "$W/build/main"
	x -- sh -c 'test -e build/main && echo still; echo n > build/new' \
	    > "$T/out" || lib_case_fail "third exec: $(cat "$T/err")"
	[ -s "$T/out" ] && lib_case_fail "local deletion did not go up"
	[ "$(cat "$W/build/new" 2>&1)" = n ] ||
	    lib_case_fail "later output did not come back"
	# An output made here that the sandbox never had stays here.
	echo local > "$W/build/mine"
	x -- sh -c 'test ! -e build/mine || echo sent' > "$T/out" ||
	    lib_case_fail "fourth exec: $(cat "$T/err")"
	[ -s "$T/out" ] && lib_case_fail "untracked ignored local file sent"
	[ "$(cat "$W/build/mine")" = local ] ||
	    lib_case_fail "local untracked file changed"
	return 0
}

case_2() {
	ws 2
	mkdir -p "$W/build"
	echo '#define X 1' > "$W/build/config.h"
	echo junk > "$W/build/local.o"
	echo keep > "$W/notes.tmp"
	g add -f build/config.h notes.tmp
	g commit -q -m config
	out=$(x -- sh -c 'cat build/config.h notes.tmp;
		ls build/local.o 2>/dev/null; true') ||
	    lib_case_fail "exec: $(cat "$T/err")"
	[ "$out" = '#define X 1
keep' ] || lib_case_fail "tracked files under ignore rules: got '$out'"
	# An edit of the tracked file goes up too, by scan and by sync push.
	echo '#define X 2' > "$W/build/config.h"
	out=$(x -- cat build/config.h) || lib_case_fail "exec 2"
	[ "$out" = '#define X 2' ] || lib_case_fail "edit not sent: '$out'"
	rm -f "$RW/build/config.h"
	"$CLAWSSH" sync push "$id" 2>"$T/err" ||
	    lib_case_fail "sync push: $(cat "$T/err")"
	[ -e "$RW/build/config.h" ] || lib_case_fail "sync push left it out"
	[ -e "$RW/build/local.o" ] && lib_case_fail "sync push sent local.o"
	# A hostile repository config cannot make reading the index run a
	# command (core.fsmonitor names a program).
	printf '#!/bin/sh\ntouch %s/ran\n' "$T" > "$T/mon"
	chmod +x "$T/mon"
	git -C "$W" config core.fsmonitor "$T/mon"
	x -- true || lib_case_fail "exec with fsmonitor: $(cat "$T/err")"
	[ -e "$T/ran" ] && lib_case_fail "core.fsmonitor ran"
	git -C "$W" config --unset core.fsmonitor
	GIT_DIR=/nonexistent x -- cat build/config.h > /dev/null ||
	    lib_case_fail "a GIT_DIR of ours reached git: $(cat "$T/err")"
	return 0
}

case_3() {
	ws 3
	printf 'secret.txt\ngen/\nsrc/main.c\n' > "$W/.clawsshignore"
	echo s > "$W/secret.txt"
	x -- sh -c 'ls secret.txt src/main.c 2>/dev/null;
		mkdir -p gen build; echo g > gen/x; echo b > build/y;
		echo remote > secret.txt' > "$T/out" ||
	    lib_case_fail "exec: $(cat "$T/err")"
	[ -s "$T/out" ] && lib_case_fail "excluded paths went up: $(cat \
	    "$T/out")"
	[ -e "$W/gen" ] && lib_case_fail "excluded gen/ came down"
	[ "$(cat "$W/secret.txt")" = s ] ||
	    lib_case_fail "excluded secret.txt came down"
	[ "$(cat "$W/build/y" 2>&1)" = b ] ||
	    lib_case_fail "build/y (only git-ignored) did not come down"
	# The same through sync.exclude, for a tracked file.
	mkdir -p "$XDG_CONFIG_HOME/clawssh"
	echo '{ "sync": { "exclude": ["README"] } }' \
	    > "$XDG_CONFIG_HOME/clawssh/config.json"
	echo r > "$W/README"
	g add README
	g commit -q -m readme
	x -- sh -c 'test -e README && echo sent; echo h > README' \
	    > "$T/out" || lib_case_fail "exec 2: $(cat "$T/err")"
	rm -f "$XDG_CONFIG_HOME/clawssh/config.json"
	[ -s "$T/out" ] && lib_case_fail "sync.exclude'd tracked file sent"
	[ "$(cat "$W/README")" = r ] ||
	    lib_case_fail "sync.exclude'd file came down"
	return 0
}

case_4() {
	ws 4
	echo s > "$W/secret.key"
	printf 'secret.key\n' > "$W/.clawsshignore"
	mkdir -p "$W/sub"
	x -- sh -c 'printf "*\n" > .gitignore; printf "!*\n" > .clawsshignore;
		printf "*\n" > sub/.clawsshignore; echo d > sub/data;
		mkdir -p build; echo o > build/o' ||
	    lib_case_fail "exec: $(cat "$T/err")"
	grep -q "not brought back: .gitignore" "$T/err" ||
	    lib_case_fail "no warning for the planted .gitignore"
	[ "$(cat "$W/.gitignore")" = "build/
*.tmp" ] || lib_case_fail "local .gitignore changed"
	[ "$(cat "$W/.clawsshignore")" = secret.key ] ||
	    lib_case_fail "local .clawsshignore changed"
	[ -e "$W/sub/.clawsshignore" ] &&
	    lib_case_fail "planted sub/.clawsshignore came down"
	[ "$(cat "$W/sub/data" 2>&1)" = d ] ||
	    lib_case_fail "sub/data kept out by a planted rule"
	[ "$(cat "$W/build/o" 2>&1)" = o ] ||
	    lib_case_fail "build/o did not come down"
	# The planted "!*" does not send the local secret up.
	x -- sh -c 'test ! -e secret.key || echo sent' > "$T/out" ||
	    lib_case_fail "exec 2: $(cat "$T/err")"
	[ -s "$T/out" ] && lib_case_fail "planted rule sent secret.key up"
	return 0
}

case_5() {
	ws 5
	printf 'node_modules/\n' > "$W/.clawsshignore"
	mkdir -p "$XDG_CONFIG_HOME/clawssh"
	echo '{ "sync": { "exclude": ["*.log"] } }' \
	    > "$XDG_CONFIG_HOME/clawssh/config.json"
	x -- true || lib_case_fail "exec: $(cat "$T/err")"
	"$CLAWSSH" sync status -v "$id" > "$T/out" 2>"$T/err" ||
	    lib_case_fail "sync status -v: $(cat "$T/err")"
	rm -f "$XDG_CONFIG_HOME/clawssh/config.json"
	for want in \
	    '^  protected: \.git at any depth  (never pushed, never pulled)$' \
	    '^  default: \.clawssh-tmp-\*  (push and pull)$' \
	    '^  sync\.exclude: \*\.log  (push and pull)$' \
	    '^  \.clawsshignore: node_modules/  (push and pull)$' \
	    '^  \.gitignore: build/  (push only, untracked files only)$' \
	    '^git: 2 tracked files'; do
		grep -q "$want" "$T/out" ||
		    lib_case_fail "sync status -v: no line '$want' in:" \
		    "$(cat "$T/out")"
	done
	"$CLAWSSH" sync status "$id" > "$T/out" 2>"$T/err"
	grep -q "rules" "$T/out" && lib_case_fail "rules printed without -v"
	return 0
}

lib_run_cases "${RULES_CASES:-1 2 3 4 5}"
