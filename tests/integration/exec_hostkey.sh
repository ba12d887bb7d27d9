#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Host key policy against a real sshd: unknown refused, accept-new records,
# changed always refused with file and line, hashed entries understood.
. "$TESTLIB"

kh="$T/known_hosts"
good=$(cat "$kh")

# Unknown key: refused with StrictHostKeyChecking yes (and the default).
: > "$kh"
cexec testhost -- true 2>"$T/err"
expect_status $? 255 "unknown host key"
expect_match "$(cat "$T/err")" "not known" "unknown key message"
expect_match "$(cat "$T/err")" "SHA256:" "unknown key fingerprint"
cexec -o StrictHostKeyChecking=ask testhost -- true 2>/dev/null
expect_status $? 255 "unknown host key, ask"
[ -s "$kh" ] && fail "refused key was recorded"

# accept-new records it, then plain "yes" connects.
cexec -o StrictHostKeyChecking=accept-new testhost -- true 2>"$T/err"
expect_status $? 0 "accept-new"
expect_match "$(cat "$T/err")" "Permanently added" "accept-new message"
grep -q "^\[127.0.0.1\]:$PORT ssh-ed25519 " "$kh" ||
	fail "accept-new did not record [127.0.0.1]:$PORT"
ssh-keygen -F "[127.0.0.1]:$PORT" -f "$kh" >/dev/null ||
	fail "ssh-keygen cannot find the recorded key"
cexec testhost -- true
expect_status $? 0 "recorded key accepted"

# Changed key: refused, naming file and line, even with "no".
ssh-keygen -q -t ed25519 -N '' -f "$T/otherkey"
{
	echo "# a comment line"
	echo "otherhost $(cut -d' ' -f1,2 "$T/otherkey.pub")"
	echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$T/otherkey.pub")"
} > "$kh"
for mode in yes accept-new no; do
	cexec -o StrictHostKeyChecking=$mode testhost -- true 2>"$T/err"
	expect_status $? 255 "changed key ($mode)"
	expect_match "$(cat "$T/err")" "CHANGED" "changed key message"
	expect_match "$(cat "$T/err")" "$kh:3" "changed key file:line"
done

# A key of another type for the host is not "changed": just unknown.
ssh-keygen -q -t ecdsa -N '' -f "$T/ecdsakey"
echo "[127.0.0.1]:$PORT $(cut -d' ' -f1,2 "$T/ecdsakey.pub")" > "$kh"
cexec testhost -- true 2>"$T/err"
expect_status $? 255 "other key type"
expect_match "$(cat "$T/err")" "not known" "other key type message"

# Hashed entries (made by OpenSSH itself) are understood.
echo "$good" > "$kh"
ssh-keygen -q -H -f "$kh" 2>/dev/null
rm -f "$kh.old"
grep -q '^|1|' "$kh" || fail "ssh-keygen -H did not hash"
cexec testhost -- true
expect_status $? 0 "hashed known_hosts entry"

# Wildcard pattern entries too.
echo "[127.0.0.*]:$PORT $(cut -d' ' -f1,2 "$T/hostkey.pub")" > "$kh"
cexec testhost -- true
expect_status $? 0 "wildcard known_hosts entry"

# The default port form: no brackets for 22 only, so this one is unknown.
echo "127.0.0.1 $(cut -d' ' -f1,2 "$T/hostkey.pub")" > "$kh"
cexec testhost -- true 2>/dev/null
expect_status $? 255 "port-22 entry must not match another port"
exit 0
