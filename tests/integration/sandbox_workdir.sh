#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The same paths inside and out (issue 17): with --workdir local a bwrap
# sandbox sees its workspace at the local workspace's absolute path (and
# still at /workspace), and commands start there, so that a cmake build
# tree made in a mirror-mode sandbox works locally.  Two sandboxes may
# use the same path on one host; the setting is part of the config hash
# (stale until recreated).  Runs as the test's SSH user, then again as
# the non-root LIB_SSH_USER=clawssh-test when started as root.
. "$TESTLIB"

lib_need_bwrap
command -v cmake >/dev/null 2>&1 || { echo "SKIP: no cmake"; exit 77; }
command -v cc >/dev/null 2>&1 || { echo "SKIP: no cc"; exit 77; }

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
mkdir -p "$R"
# A non-root SSH user (LIB_SSH_USER) owns its remote root.
[ "$(id -u)" -ne 0 ] || chown "$TEST_USER:" "$R"
# The local workspace lives outside /tmp, which is the sandbox's own:
# under /var/tmp, a directory the host has (bound read-only inside, the
# workspace bound over it).  The sandbox's user must pass through.
L=$(mktemp -d /var/tmp/clawssh-wd.XXXXXX) || fail "mktemp /var/tmp"
chmod 711 "$L"
trap 'lib_cleanup; rm -rf "$L"' EXIT
W="$L/ws"
mkdir -p "$W"

# provision KEY [FLAGS...]: print the id of a bwrap sandbox of $W.
provision() {
	_k=$1
	shift
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$_k" \
	    --remote-root "$R" --workspace "$W" "$@"
}

# 1. A workspace under /tmp cannot be seen at its path inside: refused
# at provision, with the reason, and nothing made.
case $T in
/tmp/*)
	mkdir -p "$T/ws"
	out=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
	    --key tmp --remote-root "$R" --workspace "$T/ws" \
	    --workdir local 2>&1)
	expect_status $? 255 "provision --workdir local under /tmp"
	expect_match "$out" "at or under /tmp" "the refusal says why"
	[ -z "$(ls "$R")" ] || fail "a refused provision made a sandbox"
	;;
esac
out=$(provision bad --workdir elsewhere 2>&1)
expect_status $? 255 "provision --workdir elsewhere"
expect_match "$out" "bad --workdir 'elsewhere'" "a bad --workdir value"

# 2. Mirror mode: commands start at the local path; /workspace is the
# same directory; --cwd is relative to the local path.
id=$(provision m1 --workdir local) || fail "provision --workdir local"
expect_match "$(cat "$R/$id/meta.json")" '"workdir":[[:space:]]*"local"' \
    "the host's metadata keeps the setting"
expect_match "$("$CLAWSSH" status "$id")" "^workdir: *$W\$" \
    "status names the path inside"
expect_eq "$("$CLAWSSH" exec -s "$id" -- pwd)" "$W" "pwd is the local path"
echo local-file > "$W/note"
expect_eq "$("$CLAWSSH" exec -s "$id" -- cat /workspace/note)" "local-file" \
    "/workspace still works"
expect_eq "$("$CLAWSSH" exec -s "$id" -- sh -c 'cat "$PWD/note"')" \
    "local-file" "the local path holds the workspace"
mkdir -p "$W/sub"
expect_eq "$("$CLAWSSH" exec -s "$id" --cwd sub -- pwd)" "$W/sub" \
    "--cwd under the local path"
"$CLAWSSH" exec -s "$id" -- sh -c 'echo made > "$PWD/sub/made"' ||
    fail "write through the local path"
expect_eq "$(cat "$W/sub/made" 2>&1)" "made" "pulled back from the local path"

# 3. A real cmake project configured and built in the sandbox builds
# locally: the cache names the local path.
cat > "$W/CMakeLists.txt" <<'EOF'
cmake_minimum_required(VERSION 3.10)
project(hello C)
add_executable(hello hello.c)
EOF
printf '#include <stdio.h>\nint main(void) { puts("hello"); return 0; }\n' \
    > "$W/hello.c"
"$CLAWSSH" exec -s "$id" -- sh -c \
    'cmake -S . -B build >/dev/null && cmake --build build' \
    > "$T/remote-build" 2>&1 || fail "cmake in the sandbox: $(cat "$T/remote-build")"
[ -f "$W/build/CMakeCache.txt" ] || fail "the build tree was not pulled"
expect_match "$(grep CMAKE_CACHEFILE_DIR "$W/build/CMakeCache.txt")" \
    "=$W/build\$" "the cache names the local path"
echo "/* changed */" >> "$W/hello.c"
(cd "$W" && cmake --build build) > "$T/local-build" 2>&1 ||
    fail "the build tree does not build locally: $(cat "$T/local-build")"
grep -q "is different than" "$T/local-build" &&
    fail "cmake saw another tree: $(cat "$T/local-build")"
expect_eq "$("$W/build/hello")" "hello" "the local build runs"

# 4. Two sandboxes of the same local path on one host both work, each
# with its own workspace there (remote mode: no syncing between them),
# their persistent environments running at once.
a=$(provision twin-a --mode remote --workdir local) || fail "provision twin-a"
b=$(provision twin-b --mode remote --workdir local) || fail "provision twin-b"
"$CLAWSSH" exec -s "$a" -- sh -c 'echo a > "$PWD/twin"' || fail "write in a"
"$CLAWSSH" exec -s "$b" -- sh -c 'echo b > "$PWD/twin"' || fail "write in b"
expect_eq "$("$CLAWSSH" exec -s "$a" -- cat "$W/twin")" "a" "a's own"
expect_eq "$("$CLAWSSH" exec -s "$b" -- cat "$W/twin")" "b" "b's own"
[ -e "$W/twin" ] && fail "remote mode wrote into the local workspace"
expect_eq "$("$CLAWSSH" exec -s "$a" -- cat /workspace/twin)" "a" \
    "a's /workspace"

# 5. The setting is part of the config hash: a sandbox made without it
# is stale when provision asks for it, the hint names the flag, recreate
# applies it and keeps it; a config saying /workspace makes it stale.
s=$(provision st1 --mode remote) || fail "provision st1"
expect_eq "$("$CLAWSSH" exec -s "$s" -- pwd)" "/workspace" "default: /workspace"
provision st1 --mode remote --workdir local > /dev/null 2>"$T/err" ||
    fail "provision st1 --workdir local"
expect_match "$(cat "$T/err")" "run: clawssh recreate.* --workdir 'local' $s" \
    "the stale hint names --workdir"
"$CLAWSSH" recreate --workdir local "$s" > /dev/null ||
    fail "recreate --workdir local"
expect_eq "$("$CLAWSSH" exec -s "$s" -- pwd)" "$W" "recreate applied it"
provision st1 --mode remote > /dev/null 2>"$T/err" || fail "provision st1"
grep -q "other settings" "$T/err" &&
    fail "provision without the flag calls it stale: $(cat "$T/err")"
"$CLAWSSH" recreate "$s" > /dev/null || fail "recreate without flags"
expect_match "$(cat "$R/$s/meta.json")" '"workdir":[[:space:]]*"local"' \
    "recreate without the flag keeps it"
mkdir -p "$XDG_CONFIG_HOME/clawssh"
echo '{ "sandbox": { "workdir": "/workspace" } }' \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
"$CLAWSSH" exec -s "$s" -- true 2>"$T/err" || fail "exec under the config"
expect_match "$(cat "$T/err")" "created with other settings" \
    "a config saying /workspace is stale-warned"
rm "$XDG_CONFIG_HOME/clawssh/config.json"

for x in "$id" "$a" "$b" "$s"; do
	"$CLAWSSH" destroy "$x" > /dev/null || fail "destroy $x"
done

# 6. The same as a non-root SSH user, once, when run as root.
if [ "$(id -u)" -eq 0 ] && [ -z "${LIB_SSH_USER:-}" ]; then
	LIB_SSH_USER=clawssh-test sh "$0"
	st=$?
	[ "$st" -eq 0 ] || [ "$st" -eq 77 ] ||
	    fail "as user clawssh-test: status $st"
fi
exit 0
