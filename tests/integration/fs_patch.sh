#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# apply-patch against a real sshd in both modes: real `git diff` output
# from a scratch repository (edit, new file, delete, rename with changes,
# mode change), the agent format, all-or-nothing on a bad hunk, and
# confinement of the paths a patch names.
. "$TESTLIB"

command -v git >/dev/null 2>&1 || { echo "SKIP: no git"; exit 77; }
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
G="$T/git"

# A scratch repository and a git diff of several kinds of change.
mkdir -p "$G/src" && cd "$G" || exit 99
git init -q . && git config user.email t@example.org &&
    git config user.name t
printf 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n' > src/a.txt
printf 'alpha\nbeta\ngamma\n' > old.txt
printf 'bye\n' > gone.txt
printf '#!/bin/sh\necho run\n' > run.sh
git add -A && git commit -qm base
cp -R "$G" "$T/base"
rm -rf "$T/base/.git"
sed -i 's/^two$/TWO/; s/^seven$/SEVEN/' src/a.txt
git mv old.txt new.txt
printf 'alpha\nBETA\ngamma\n' > new.txt
git rm -q gone.txt
printf 'fresh\nfile\n' > src/added.txt
chmod 755 run.sh
git add -A
git diff --cached -M > "$T/git.patch"
cd "$T" || exit 99

# check DIR: the tree equals the patched repository's.
check() {
	for f in src/a.txt new.txt src/added.txt run.sh; do
		cmp -s "$G/$f" "$1/$f" || fail "$1/$f differs from git's"
	done
	[ -e "$1/old.txt" ] && fail "rename left old.txt in $1"
	[ -e "$1/gone.txt" ] && fail "deleted file still in $1"
	expect_eq "$(stat -c %a "$1/run.sh")" "755" "mode change in $1"
}

# patch_tests ID DIR: every case on sandbox ID whose copy is DIR.
patch_tests() {
	id=$1 d=$2
	out=$("$CLAWSSH" apply-patch -s "$id" < "$T/git.patch") ||
	    fail "apply git diff: $out"
	expect_match "$out" "^R old.txt -> new.txt$" "rename reported"
	expect_match "$out" "^D gone.txt$" "delete reported"
	expect_match "$out" "^A src/added.txt$" "add reported"
	check "$d"

	# Agent format: update with context, add, delete.
	"$CLAWSSH" apply-patch -s "$id" <<-'PATCH' || fail "agent patch"
	*** Begin Patch
	*** Update File: src/a.txt
	@@ three
	-four
	+FOUR
	*** Add File: notes.md
	+# notes
	*** Delete File: src/added.txt
	*** End Patch
	PATCH
	expect_eq "$(sed -n 4p "$d/src/a.txt")" "FOUR" "agent update"
	expect_eq "$(cat "$d/notes.md")" "# notes" "agent add"
	[ -e "$d/src/added.txt" ] && fail "agent delete"

	# A bad second hunk: nothing at all is written, the error names it.
	cp "$d/src/a.txt" "$T/before.a"
	out=$("$CLAWSSH" apply-patch -s "$id" 2>&1 <<-'PATCH'
	*** Begin Patch
	*** Update File: src/a.txt
	@@
	-one
	+ONE
	*** Update File: new.txt
	@@
	-no such line
	+x
	*** End Patch
	PATCH
	)
	expect_status $? 255 "bad hunk fails"
	expect_match "$out" "new.txt: chunk 1 does not apply" "hunk named"
	expect_match "$out" "nothing was changed" "all or nothing said"
	cmp -s "$T/before.a" "$d/src/a.txt" || fail "partial patch applied"

	# Paths outside the workspace are refused before anything is read.
	for p in ../escape.txt /etc/passwd; do
		out=$(printf '*** Begin Patch\n*** Add File: %s\n+x\n*** End Patch\n' \
		    "$p" | "$CLAWSSH" apply-patch -s "$id" 2>&1) &&
		    fail "patch wrote $p"
	done
	[ -e "$T/escape.txt" ] && fail "escaped the workspace"
	ln -s "$T" "$d/link"
	out=$(printf '*** Begin Patch\n*** Add File: link/esc\n+x\n*** End Patch\n' |
	    "$CLAWSSH" apply-patch -s "$id" 2>&1) && fail "patch via a link"
	[ -e "$T/esc" ] && fail "wrote through a link"
	rm -f "$d/link"

	# Garbage and adding a file that exists are clear errors.
	out=$(echo "not a patch" | "$CLAWSSH" apply-patch -s "$id" 2>&1)
	expect_status $? 255 "garbage patch"
	out=$(printf '*** Begin Patch\n*** Add File: notes.md\n+x\n*** End Patch\n' |
	    "$CLAWSSH" apply-patch -s "$id" 2>&1)
	expect_status $? 255 "add over an existing file"
	expect_match "$out" "already exists" "existing file named"
}

cp -R "$T/base" "$T/wm"
mid=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key pm \
    --remote-root "$R" --workspace "$T/wm") || fail "provision mirror"
patch_tests "$mid" "$T/wm"

cp -R "$T/base" "$T/wr"
rid=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key pr \
    --mode remote --remote-root "$R" --workspace "$T/wr") ||
    fail "provision remote"
patch_tests "$rid" "$R/$rid/workspace"
cmp -s "$T/base/src/a.txt" "$T/wr/src/a.txt" ||
    fail "remote-mode patch touched the local copy"
exit 0
