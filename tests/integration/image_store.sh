#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The image store against a real sshd: import a small real root file
# system (busybox-static), list it, run a bwrap sandbox from it, refuse
# what should be refused, remove it.
. "$TESTLIB"

lib_need_bwrap
BB=$(command -v busybox) || { echo "SKIP: no busybox"; exit 77; }
ldd "$BB" >/dev/null 2>&1 &&
    { echo "SKIP: busybox is not static"; exit 77; }

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
# A root file system of one static busybox and its applet links.
F="$T/rootfs"
mkdir -p "$F/bin" "$F/etc"
cp "$BB" "$F/bin/busybox"
for a in sh ls cat echo id pwd touch test; do
	ln -s busybox "$F/bin/$a"
done
echo "clawssh test image" > "$F/etc/issue"
tar -C "$F" -czf "$T/rootfs.tar.gz" .

out=$("$CLAWSSH" image import -F "$T/ssh_config" --host testhost \
    --remote-root "$R" tiny "$T/rootfs.tar.gz" 2>"$T/err") ||
    fail "import: $(cat "$T/err")"
expect_eq "$out" "tiny" "import prints the name"
[ -x "$R/images/tiny/rootfs/bin/busybox" ] || fail "image not unpacked"
[ -d "$R/images/tiny/rootfs/workspace" ] || fail "no /workspace made"
ls -d "$R"/images/.stage-* >/dev/null 2>&1 && fail "stage left behind"

l() {
	"$CLAWSSH" image list -F "$T/ssh_config" --host testhost \
	    --remote-root "$R" "$@"
}
expect_match "$(l)" "^tiny " "list shows it"
expect_match "$(l --json)" '"name":"tiny"' "list --json"

# A sandbox from the image sees the image's root, not the host's.
W="$T/ws"
mkdir -p "$W"
echo hi > "$W/f"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key im \
    --from tiny --remote-root "$R" --workspace "$W") || fail "provision"
out=$("$CLAWSSH" exec -s "$id" -- sh -c 'cat /etc/issue; cat f; pwd;
    test -e /etc/debian_version && echo host-root; touch /etc/x 2>&1')
expect_match "$out" "^clawssh test image$" "image root"
expect_match "$out" "^hi$" "workspace inside the image"
expect_match "$out" "^/workspace$" "starts in /workspace"
echo "$out" | grep -q host-root && fail "the host's root is visible"
expect_match "$out" "Read-only" "image root is read-only"

# Refusals: a missing image, a taken name, bad names, garbage.
out=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key x \
    --from nosuch --remote-root "$R" --workspace "$W" 2>&1)
expect_status $? 255 "provision from a missing image"
expect_match "$out" "clawssh image import" "missing image names the fix"
out=$("$CLAWSSH" image import -F "$T/ssh_config" --host testhost \
    --remote-root "$R" tiny "$T/rootfs.tar.gz" 2>&1)
expect_status $? 255 "import over an existing image"
expect_match "$out" "already exists" "existing image named"
for bad in host ../x 'a b' ''; do
	"$CLAWSSH" image import -F "$T/ssh_config" --host testhost \
	    --remote-root "$R" "$bad" "$T/rootfs.tar.gz" 2>/dev/null &&
	    fail "image name '$bad' accepted"
done
head -c 5000 /dev/urandom > "$T/junk.tar"
out=$("$CLAWSSH" image import -F "$T/ssh_config" --host testhost \
    --remote-root "$R" junk "$T/junk.tar" 2>&1)
expect_status $? 255 "garbage tarball"
expect_match "$out" "unpacking the image failed" "garbage explained"
[ -e "$R/images/junk" ] && fail "garbage image stored"
ls -d "$R"/images/.stage-* >/dev/null 2>&1 && fail "stage left behind"

# rm: refused while used, done once the sandbox is gone.
out=$("$CLAWSSH" image rm -F "$T/ssh_config" --host testhost \
    --remote-root "$R" tiny 2>&1)
expect_status $? 255 "rm of a used image"
expect_match "$out" "used by sandboxes $id" "users named"
"$CLAWSSH" destroy "$id" >/dev/null 2>&1 || fail "destroy"
"$CLAWSSH" image rm -F "$T/ssh_config" --host testhost --remote-root "$R" \
    tiny || fail "rm"
[ -e "$R/images/tiny" ] && fail "image still there"
expect_eq "$(l)" "" "list empty after rm"
exit 0
