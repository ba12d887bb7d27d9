#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What a host's tar writes after the end of its archive.  Zero padding
# that comes late (a slow host; GNU tar pads its last record to 10 KiB)
# is read and the pull succeeds: the local side used to stop reading at
# the end marker, so the host's tar died of SIGPIPE and a good pull
# failed with "remote tar failed (status 141)" (seen in CI).  Endless
# bytes after the end are refused with a clear message, not read
# forever.  A tar shim on the host's PATH adds the trailer when armed.
SHIM=$(mktemp -d /tmp/clawssh-shim.XXXXXX) || exit 99
# shellcheck disable=SC2034 # lib.sh reads it
SSHD_EXTRA="SetEnv PATH=$SHIM:/usr/local/bin:/usr/bin:/bin CLAWSSH_SHIM=$SHIM"
. "$TESTLIB"
trap 'rm -rf "$SHIM"; lib_cleanup' EXIT

REAL_TAR=$(command -v tar)
cat > "$SHIM/tar" <<EOF
#!/bin/sh
# When armed, a creating tar's archive is followed, a second later, by
# zeros (pad) or by 3 MiB of other bytes (junk).
mode=
for a in "\$@"; do
	[ "\$a" = -cf ] && [ -e "\$CLAWSSH_SHIM/arm" ] &&
	    mode=\$(cat "\$CLAWSSH_SHIM/arm")
done
[ -n "\$mode" ] || exec $REAL_TAR "\$@"
rm -f "\$CLAWSSH_SHIM/arm"
$REAL_TAR "\$@" || exit
sleep 1
case \$mode in
pad)	head -c 10240 /dev/zero ;;
junk)	head -c 3145728 /dev/zero | tr '\\0' x ;;
esac
echo "\$mode" > "\$CLAWSSH_SHIM/used"
EOF
chmod 755 "$SHIM/tar"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
W="$T/ws"
mkdir -p "$W"
echo one > "$W/a.txt"
# Runtime none: the host steps run with the session's PATH, shim first.
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key t \
    --mode remote --remote-root "$T/root" --workspace "$W" \
    --runtime none) || fail "provision"
"$CLAWSSH" exec -s "$id" -- sh -c 'echo two > a.txt; echo new > b.txt' ||
    fail "exec"

echo pad > "$SHIM/arm"
"$CLAWSSH" sync pull "$id" > "$T/out" 2>&1 ||
    fail "a pull with late padding failed: $(cat "$T/out")"
expect_eq "$(cat "$SHIM/used" 2>/dev/null)" pad "the shim padded"
expect_eq "$(cat "$W/a.txt")" two "pad: the edit came down"
expect_eq "$(cat "$W/b.txt")" new "pad: the new file came down"

rm -f "$SHIM/used"
"$CLAWSSH" exec -s "$id" -- sh -c 'echo three > a.txt' || fail "exec 2"
echo junk > "$SHIM/arm"
"$CLAWSSH" sync pull "$id" > "$T/out" 2>&1 &&
    fail "a pull with 3 MiB after the end succeeded"
expect_match "$(cat "$T/out")" "more than 1048576 bytes after the end" \
    "junk: the message"
"$CLAWSSH" sync pull "$id" > "$T/out" 2>&1 ||
    fail "the next pull failed: $(cat "$T/out")"
expect_eq "$(cat "$W/a.txt")" three "after junk: the edit came down"
echo ok
