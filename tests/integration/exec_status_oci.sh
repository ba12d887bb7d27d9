#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Exit statuses under the podman runtime (issue 16), live where rootful
# podman works (skipped, with the reason, where it does not): a command
# that does not exist exits 127, a file that is not executable 126, each
# with a message naming the command, and a command's own status (3)
# unchanged, through exec and process start.  Old code: 1 for both, from
# podman's --init (catatonit), which reports a failed exec as status 1
# (FAIL).  Since issue 17 each command is exec'd into the sandbox's
# long-lived container through the image's /bin/sh (busybox here), which
# reports 127 and 126 with its own message.
# Setup as in contain_oci.sh (CLAWSSH_TEST_CONTAINERS_CONF likewise).
CONF="${TMPDIR:-/tmp}/clawssh-ocist-$$.conf"
SSHD_EXTRA="SetEnv CONTAINERS_CONF=$CONF"
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

IMG="localhost/clawssh-test-st-$$:1"
# shellcheck disable=SC2317 # called by the EXIT trap
oci_cleanup() {
	[ -n "${DPID:-}" ] && kill "$DPID" 2>/dev/null
	# the sandboxes' long-lived containers outlive a failed run
	for d in "${R:-/nonexistent}"/c*; do
		[ -d "$d" ] && podman rm -f "clawssh-${d##*/}" >/dev/null 2>&1
	done
	podman rmi -f "$IMG" >/dev/null 2>&1
	rm -f "$CONF"
	lib_cleanup
}
trap oci_cleanup EXIT

[ "$(id -u)" -eq 0 ] || { echo "SKIP: rootful podman needs root"; exit 77; }
command -v podman >/dev/null 2>&1 || { echo "SKIP: no podman"; exit 77; }
BB=$(command -v busybox) || { echo "SKIP: no busybox"; exit 77; }
ldd "$BB" 2>&1 | grep -q "not a dynamic executable" ||
    { echo "SKIP: busybox is not static (install busybox-static)"; exit 77; }

mkdir -p "$T/img/bin" "$T/img/etc" "$T/img/workspace" "$T/img/tmp"
cp "$BB" "$T/img/bin/busybox"
for a in sh true cat; do
	ln -s busybox "$T/img/bin/$a"
done
chmod 1777 "$T/img/tmp"
echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' > "$T/img/etc/passwd"
echo 'nogroup:x:65534:' > "$T/img/etc/group"
tar -C "$T/img" -cf "$T/img.tar" . || exit 99
podman import "$T/img.tar" "$IMG" >/dev/null 2>&1 ||
    { echo "SKIP: podman import fails here"; exit 77; }

probe() {
	podman run --rm -i --read-only --network none --cap-drop ALL \
	    --security-opt no-new-privileges "$IMG" true >"$T/probe" 2>&1
}
if [ -n "${CLAWSSH_TEST_CONTAINERS_CONF:-}" ]; then
	cp "$CLAWSSH_TEST_CONTAINERS_CONF" "$CONF"
else
	: > "$CONF"
fi
if ! CONTAINERS_CONF=$CONF probe; then
	printf '[containers]\ndefault_ulimits = []\n[engine]\n%s\n%s\n' \
	    'runtime = "runc"' 'cgroup_manager = "cgroupfs"' > "$CONF"
	CONTAINERS_CONF=$CONF probe || { echo "SKIP: podman cannot run" \
	    "containers here: $(tail -n 1 "$T/probe")"; exit 77; }
fi

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
mkdir -p "$W"
echo 'echo ran' > "$W/noexec.sh"
chmod 644 "$W/noexec.sh"
id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key st1 \
    --remote-root "$R" --workspace "$W" --runtime podman --mode remote \
    --from "$IMG") || fail "provision"

# Through exec: the status and a message naming the command.
"$CLAWSSH" exec -s "$id" -- no-such-command-xyz >/dev/null 2>"$T/e1"
expect_status $? 127 "missing command: $(cat "$T/e1")"
grep -qi 'no-such-command-xyz.*not found' "$T/e1" ||
    fail "missing command: message: $(cat "$T/e1")"
"$CLAWSSH" exec -s "$id" -- ./noexec.sh >/dev/null 2>"$T/e2"
expect_status $? 126 "file that is not executable: $(cat "$T/e2")"
grep -qi 'noexec.sh.*permission denied' "$T/e2" ||
    fail "not executable: message: $(cat "$T/e2")"
"$CLAWSSH" exec -s "$id" -- sh -c 'echo out; exit 3' > "$T/o3" 2>&1
expect_status $? 3 "the command's own status"
expect_eq "$(cat "$T/o3")" "out" "the command's output"

# Through the daemon, as background processes.
lib_start_daemon "$T/daemon.log"
for c in no-such-command-xyz:127 ./noexec.sh:126 true:0; do
	h=$("$CLAWSSH" process start -s "$id" -- "${c%:*}") ||
	    fail "process start ${c%:*}"
	i=0
	while [ "$i" -lt 300 ]; do
		st=$("$CLAWSSH" process poll -s "$id" "$h" 2>&1)
		case $st in *exited*) break ;; esac
		sleep 0.1
		i=$((i + 1))
	done
	expect_match "$st" "exited ${c#*:}" "process start ${c%:*}"
	[ "${c#*:}" = 0 ] && continue
	"$CLAWSSH" process log -s "$id" "$h" > "$T/plog" 2>&1
	grep -qi "${c%:*}.*\(not found\|permission denied\)" "$T/plog" ||
	    fail "process ${c%:*}: log: $(cat "$T/plog")"
done
kill "$DPID"
wait "$DPID" 2>/dev/null
DPID=
"$CLAWSSH" destroy "$id" >/dev/null 2>&1
exit 0
