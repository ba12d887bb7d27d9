#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A real project end to end through mirror mode: googletest 1.12 as Debian
# ships it (package googletest, /usr/src/googletest; CMake), a git
# checkout with build/ in its .gitignore, configured, built and its
# sample tests run with "clawssh exec -s ID".  The build outputs come
# back identical to a local build at the same path, a rebuild after one
# edited source is incremental (one file up, a handful down), and a
# failing test's exit status comes through.
#
# Why googletest and not libxcrypt: Debian's libxcrypt-source lacks the
# build-aux/m4 macros its autogen.sh needs (aclocal fails), so it cannot
# be built from what the package ships.
#
# Why the outputs are comparable: the reference is built here, from the
# same commit, inside bwrap with the reference tree bound at the very
# path the sandbox's command sees its workspace at, with the same
# commands; so every absolute path CMake and the compiler write (the
# cache, the makefiles, __FILE__ in the objects) is the same, and the
# compiler, CMake and ar (deterministic) are the same binaries, run with
# a bare environment (a LIBRARY_PATH of ours would end up in CMake's
# compiler description).  Only
# CMake's logs of its own checks (CMakeFiles/CMakeOutput.log,
# CMakeError.log) are left out of the comparison: they hold timings; and
# CMakeFiles/Makefile2 is compared as sorted lines: CMake writes its
# target dependency lines in an order that varies from run to run.  Every
# file here is also compared byte for byte with the sandbox's own tree.
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

SRC=/usr/src/googletest
[ -f "$SRC/CMakeLists.txt" ] || { echo "SKIP: no $SRC (googletest)"; exit 77; }
for c in cmake git bwrap c++; do
	command -v "$c" >/dev/null 2>&1 || { echo "SKIP: no $c"; exit 77; }
done

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
REF="$T/ref"

CONF='cmake -S . -B build -Dgtest_build_samples=ON -DBUILD_GMOCK=OFF'
CONF="$CONF -DINSTALL_GTEST=OFF > build.log"
BUILD='cmake --build build -j2 >> build.log'
# shellcheck disable=SC2016
CHECK='for t in build/googletest/sample*_unittest; do
	"$t" > /dev/null || { echo "FAILED: $t"; exit 1; }; done; echo ALL-PASSED'

# g ARGS...: git in the workspace.
g() {
	git -C "$W" -c user.name=t -c user.email=t@example.invalid \
	    -c init.defaultBranch=main "$@" > /dev/null
}

# The user's checkout: the sources committed, build outputs ignored.
cp -R "$SRC" "$W"
printf 'build/\nbuild.log\n' > "$W/.gitignore"
g init -q
g add -A
g commit -q -m "googletest as Debian ships it"
cp -R "$W" "$REF"
rm -rf "$REF/.git"

id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key real \
    --remote-root "$R" --workspace "$W") || fail "provision"
x() {
	"$CLAWSSH" exec --sync-json -s "$id" -- sh -c "$1" 2>"$T/err"
}
P=$(x pwd) || fail "pwd: $(cat "$T/err")"
RW="$R/$id/workspace"		# the sandbox's tree, on this "host"
echo "the sandbox's command runs in $P" >&2

# Configure, build and test in the sandbox.
out=$(x "$CONF && $BUILD && $CHECK")
expect_status $? 0 "build and tests in the sandbox: $out $(tail -5 "$T/err")"
expect_match "$out" "ALL-PASSED" "the tests ran in the sandbox"
[ -x "$W/build/googletest/sample1_unittest" ] ||
    fail "the test binaries did not come back: $out $(tail -5 "$T/err")"
"$W/build/googletest/sample1_unittest" > /dev/null ||
    fail "a test binary that came back does not run here"

# ref CMD: run CMD in the reference tree here, at the sandbox's path:
# a root of its own (tmpfs) with the system read-only and the tree at
# $P (nothing is made at $P on this machine), a bare environment.
ref() {
	bwrap --ro-bind /usr /usr --ro-bind /etc /etc --symlink usr/bin /bin \
	    --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
	    --symlink usr/sbin /sbin --dev /dev --proc /proc --tmpfs /tmp \
	    --bind "$REF" "$P" --chdir "$P" --unshare-all \
	    env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp sh -c "$1"
}

# same: every build output here is byte for byte the reference's.
same() {
	(cd "$REF/build" && find . -type f ! -name CMakeOutput.log \
	    ! -name CMakeError.log | sort) > "$T/ref.list"
	(cd "$W/build" && find . -type f ! -name CMakeOutput.log \
	    ! -name CMakeError.log | sort) > "$T/ws.list"
	cmp -s "$T/ref.list" "$T/ws.list" || fail "build outputs differ in" \
	    "names: $(diff "$T/ref.list" "$T/ws.list" | head -10)"
	n=0
	: > "$T/differ"
	while IFS= read -r f; do
		cmp -s "$RW/build/$f" "$W/build/$f" ||
		    fail "build/$f here is not the sandbox's"
		case $f in
		*/Makefile2)	# CMake writes its target lines in any order
			sort "$REF/build/$f" > "$T/a"
			sort "$W/build/$f" > "$T/b"
			cmp -s "$T/a" "$T/b" ;;
		*)	cmp -s "$REF/build/$f" "$W/build/$f" ;;
		esac || echo "$f" >> "$T/differ"
		n=$((n + 1))
	done < "$T/ws.list"
	if [ -s "$T/differ" ]; then
		f=$(head -1 "$T/differ")
		fail "differ from a local build: $(cat "$T/differ");" \
		    "$f: $(diff "$REF/build/$f" "$W/build/$f" | head -20)"
	fi
	echo "$n build outputs identical to the local build" >&2
}

[ -d "$P" ] && [ "$P" != /workspace ] && fail "$P exists here"
ref "$CONF && $BUILD && $CHECK" > "$T/refout" 2>&1 ||
    fail "reference build: $(tail -5 "$T/refout")"
same
[ "$n" -gt 100 ] || fail "only $n build outputs came back"

# One edited source: only it goes up, and only what the build rewrites
# comes down (as many files as the same step writes in the reference).
printf '\n// edited\n' >> "$W/googletest/samples/sample2.cc"
printf '\n// edited\n' >> "$REF/googletest/samples/sample2.cc"
touch "$T/mark"
sleep 1
out=$(x "$BUILD && $CHECK")
expect_status $? 0 "incremental build: $out $(tail -5 "$T/err")"
expect_match "$out" "ALL-PASSED" "tests after the rebuild"
ref "$BUILD" > "$T/refout" 2>&1 || fail "reference rebuild"
want=$(find "$REF" -newer "$T/mark" -type f | wc -l)
js=$(grep '^{"status"' "$T/err" | tail -1)
up=$(echo "$js" | jq -r .sync.up.files)
down=$(echo "$js" | jq -r .sync.down.files)
echo "incremental: up $up, down $down files; the build wrote $want" >&2
expect_eq "$up" 1 "one edited source sent"
expect_eq "$down" "$want" "files down after the rebuild: $js"
[ "$want" -lt $((n / 4)) ] || fail "not incremental: $want of $n written"
same

# A failing test: its exit status and output come through.
sed -i 's/return result;/return result + 1;/' "$W/googletest/samples/sample1.cc"
x "$BUILD && $CHECK" > "$T/out"
expect_status $? 1 "a failing test's status"
expect_match "$(cat "$T/out")" "FAILED: build/googletest/sample1_unittest" \
    "the failing test is named"
x "build/googletest/sample1_unittest --gtest_brief=1" > "$T/out"
expect_status $? 1 "the failing gtest binary's own status"
expect_match "$(cat "$T/out")" "FAILED" "gtest's report came through"
exit 0
