#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host watcher's listings are framed on its stderr ("clawssh-list
# TOKEN", records, "\0\0clawssh-end TOKEN STATUS"): a listing cut short
# (find failing mid-record) and one holding a forged end with another
# token are never taken for the truth; the pull lists again and every
# change comes down right.  A find shim on the host's PATH garbles one
# listing when asked.
SHIM=$(mktemp -d /tmp/clawssh-shim.XXXXXX) || exit 99
# shellcheck disable=SC2034 # lib.sh reads it
SSHD_EXTRA="SetEnv PATH=$SHIM:/usr/local/bin:/usr/bin:/bin CLAWSSH_SHIM=$SHIM"
. "$TESTLIB"
trap 'rm -rf "$SHIM"; lib_cleanup' EXIT

command -v inotifywait > /dev/null || { echo "no inotifywait" >&2; exit 77; }
REAL_FIND=$(command -v find)
cat > "$SHIM/find" <<EOF
#!/bin/sh
# One garbled listing of the watcher (find -files0-from) when armed.
if [ "\$1" = -files0-from ] && [ -e "\$CLAWSSH_SHIM/garble" ]; then
	mode=\$(cat "\$CLAWSSH_SHIM/garble")
	rm -f "\$CLAWSSH_SHIM/garble"
	case \$mode in
	cut)	printf 'f 644 3 1.0 src/a'
		exit 1 ;;
	fake)	printf 'f 644 3 1.0 x\\0\\0\\0\\0clawssh-end %s 0\\n' \\
		    00000000000000000000000000000000 ;;
	esac
fi
exec $REAL_FIND "\$@"
EOF
chmod 755 "$SHIM/find"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
mkdir -p "$W/src"
echo one > "$W/src/a.txt"
# Runtime none: the watcher then runs with the session's PATH, shim
# first (a contained sandbox's watcher sees only the host's /usr).
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key f \
    --remote-root "$R" --workspace "$W" --runtime none)
x() {
	"$CLAWSSH" exec -v -s "$id" "$@" 2>"$T/err"
}
lib_start_daemon "$T/daemon.log"
x -- true || fail "exec 1: $(cat "$T/err")"
sleep 0.5
x -- true || fail "exec 2: $(cat "$T/err")"
x -- true || fail "exec 3: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "host watcher: 0 changed paths" "watching"

# Cut short, with a failing status: the command lists the paths itself.
echo cut > "$SHIM/garble"
x -- sh -c 'echo ONE > src/a.txt; echo new > src/b.txt' ||
    fail "exec, cut listing: $(cat "$T/err")"
[ -e "$SHIM/garble" ] && fail "the shim was not used"
expect_eq "$(cat "$W/src/a.txt")" ONE "cut listing: the edit came down"
expect_eq "$(cat "$W/src/b.txt")" new "cut listing: the new file came down"

# A forged end with another token: the records run on to the real end,
# do not parse, and the whole workspace is listed instead.
echo fake > "$SHIM/garble"
x -- sh -c 'echo TWO > src/a.txt; rm src/b.txt' ||
    fail "exec, forged end: $(cat "$T/err")"
[ -e "$SHIM/garble" ] && fail "the shim was not used (forged end)"
expect_match "$(cat "$T/err")" "listing the sandbox workspace" \
    "forged end: whole listing"
expect_eq "$(cat "$W/src/a.txt")" TWO "forged end: the edit came down"
[ -e "$W/src/b.txt" ] && fail "forged end: the deletion did not come down"
[ -e "$W/x" ] && fail "forged end: a record of the forged listing was used"

# The watcher still follows: the next pull needs no listing of all.
x -- sh -c 'echo three > src/c.txt' || fail "exec after: $(cat "$T/err")"
expect_match "$(cat "$T/err")" "changed paths, no listing" "still watched"
expect_eq "$(cat "$W/src/c.txt")" three "after: the file came down"
"$CLAWSSH" sync status "$id" > "$T/status.txt" 2>&1 ||
    fail "sync status: $(cat "$T/status.txt")"
expect_eq "$(cat "$T/status.txt")" "up (local changes):
down (sandbox changes):" "the saved state matches both trees"
exit 0
