#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The podman runtime, live, where rootful podman works on this machine
# (skipped, with the reason, where it does not): provisioning checks,
# the confinement inside, env by name only, a timeout and destroy ending
# the container's processes (also when the engine client is SIGKILLed),
# the sandbox's own uid by default, --user and mirror mode.  The image is built
# here from busybox with 'podman import' (no registry is reached).
#
# Podman may need this machine's quirks (hybrid cgroups, low rlimits):
# CLAWSSH_TEST_CONTAINERS_CONF names a containers.conf for it, handed to
# the sessions of the test's sshd; by default one selecting runc and
# cgroupfs without default ulimits is written when plain podman fails.
CONF="${TMPDIR:-/tmp}/clawssh-oci-$$.conf"
SSHD_EXTRA="SetEnv CONTAINERS_CONF=$CONF API_TOKEN=hostleak43"
. "$TESTLIB"

IMG="localhost/clawssh-test-$$:1"
oci_cleanup() {
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

# A root tree of busybox, imported as an image.
mkdir -p "$T/img/bin" "$T/img/etc" "$T/img/workspace" "$T/img/tmp"
cp "$BB" "$T/img/bin/busybox"
for a in sh id ls cat echo touch sleep mkdir grep env tail cut tr wc \
    true pwd; do
	ln -s busybox "$T/img/bin/$a"
done
chmod 1777 "$T/img/tmp"	# podman's tmpfs takes the image's mode
echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/sh' > "$T/img/etc/passwd"
echo 'nogroup:x:65534:' > "$T/img/etc/group"
tar -C "$T/img" -cf "$T/img.tar" . || exit 99
podman import "$T/img.tar" "$IMG" >/dev/null 2>&1 ||
    { echo "SKIP: podman import fails here"; exit 77; }

# Does podman run a container as clawssh asks for one?  Plain first, then
# with the containers.conf for this machine's quirks.
probe() {
	podman run --rm -i --init --read-only --network none --cap-drop ALL \
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
echo data > "$W/f.txt"

provision() {
	k=$1
	shift
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$k" \
	    --remote-root "$R" --workspace "$W" --runtime podman "$@"
}

# Provisioning: an image is required, must exist, and is checked.
out=$(provision p0 2>&1) && fail "podman without --from"
expect_match "$out" "runtime podman needs --from IMAGE" "no image message"
out=$(provision p0 --from 'x;id' 2>&1) && fail "accepted a bad reference"
expect_match "$out" "bad container image reference" "bad reference"
out=$(provision p0 --from localhost/clawssh-missing-$$:1 2>&1) &&
    fail "accepted a missing image"
expect_match "$out" "not found by podman on this host" "missing image"
if command -v docker >/dev/null 2>&1 && ! docker info >/dev/null 2>&1; then
	out=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
	    --key d0 --remote-root "$R" --workspace "$W" --runtime docker \
	    --from "$IMG" 2>&1) && fail "docker without a daemon"
	expect_match "$out" "docker does not work on this host" \
	    "docker without a daemon message"
fi

id=$(provision p1 --mode remote --from "$IMG") || fail "provision"
expect_match "$("$CLAWSSH" status "$id" --json)" '"runtime":.*"podman"' \
    "runtime recorded"
x() {
	"$CLAWSSH" exec -s "$id" "$@"
}

# Inside: the image's root read-only, /workspace and /tmp writable, no
# network but lo, no capabilities, no new privileges.
out=$(x -- sh -c 'touch /etc/x 2>/dev/null && echo wrote-etc; \
    echo ok > /workspace/w && echo ws-ok; echo t > /tmp/t && echo tmp-ok; \
    pwd; cat f.txt; ls /sys/class/net; \
    grep -E "^(CapEff|NoNewPrivs)" /proc/self/status') || fail "exec"
expect_eq "$out" "ws-ok
tmp-ok
/workspace
data
lo
CapEff:	0000000000000000
NoNewPrivs:	1" "confinement inside the container"
expect_eq "$(cat "$R/$id/workspace/w")" "ok" "workspace write reached host"

# Connected as root without a user: the sandbox's own uid
# (sandbox_default_uid), which is given the workspace on the host first.
u=$(x -- id -u) || fail "id -u"
if [ "$u" -lt 1879048192 ] || [ "$u" -ge 2013265920 ]; then
	fail "not the sandbox's own uid: $u"
fi
expect_eq "$(stat -c %u "$R/$id/workspace")" "$u" "workspace given to it"
expect_eq "$(stat -c %u "$R/$id/workspace/w")" "$u" "its files are its"
out=$(x -- sh -c 'exit 7')
expect_status $? 7 "exit status through the engine"

# Environment: names only on the engine's command line; the host
# session's token stays out.
canary=clawcanary$$y
API_TOKEN=$canary x --env API_TOKEN -- sh -c 'sleep 2; env' > "$T/env.out" &
epid=$!
sleep 1
ps -eww -o args > "$T/ps.out"
wait $epid
grep -q "$canary" "$T/ps.out" && fail "canary in the host's process list"
grep -q "^API_TOKEN=$canary$" "$T/env.out" || fail "--env not delivered"
grep -q hostleak43 "$T/env.out" && fail "host session variable leaked"

# A timeout ends the container's processes and the container.
secs="295.$$"
x --timeout 2 -- sh -c "sleep $secs & sleep $secs; wait" >/dev/null 2>&1
expect_status $? 124 "timeout status"
i=0
while { pgrep -f "sleep $secs" >/dev/null ||
    [ -n "$(podman ps -aq --filter label=clawssh.sandbox=$id)" ]; } &&
    [ $i -lt 100 ]; do
	sleep 0.2
	i=$((i + 1))
done
pgrep -f "sleep $secs" >/dev/null && fail "sleepers survived the timeout"
[ -n "$(podman ps -aq --filter label=clawssh.sandbox=$id)" ] &&
    fail "container survived the timeout"

# The engine client killed hard (SIGKILL: no signal reaches the
# container through it): the watcher still removes the container.
secs="297.$$"
x -- sh -c "sleep $secs" >/dev/null 2>&1 &
kpid=$!
i=0
while ! pgrep -f "podman run .*clawssh-$id-" >/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
i=0
while ! pgrep -f "sleep $secs" >/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
pkill -KILL -f "podman run .*clawssh-$id-" || fail "no engine client"
i=0
while { pgrep -f "sleep $secs" >/dev/null ||
    [ -n "$(podman ps -aq --filter label=clawssh.sandbox=$id)" ]; } &&
    [ $i -lt 100 ]; do
	sleep 0.2
	i=$((i + 1))
done
pgrep -f "sleep $secs" >/dev/null && fail "container outlived its client"
[ -n "$(podman ps -aq --filter label=clawssh.sandbox=$id)" ] &&
    fail "container left after its client was killed"
wait $kpid

# --user (numeric and by name, resolved on the host); mirror mode brings
# the user's files back.
id2=$(provision p2 --from "$IMG" --user nobody) || fail "provision mirror"
out=$("$CLAWSSH" exec -s "$id2" -- sh -c 'id -u; cat f.txt; \
    echo made > new.txt') || fail "exec as nobody"
expect_eq "$out" "$(id -u nobody)
data" "nobody inside"
expect_eq "$(cat "$W/new.txt")" "made" "file came back in mirror mode"

# --user root keeps the engine's default user: root, here.
id3=$(provision p3 --mode remote --from "$IMG" --user root) ||
    fail "provision --user root"
expect_eq "$("$CLAWSSH" exec -s "$id3" -- id -u)" 0 "--user root"
"$CLAWSSH" destroy "$id3" >/dev/null 2>&1

# A background process runs in a container; destroy removes it.
secs="296.$$"
h=$(x --background -- sh -c "echo bg-up; sleep $secs") ||
    fail "background start"
i=0
while [ -z "$(podman ps -q --filter label=clawssh.sandbox=$id)" ] &&
    [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
[ -n "$(podman ps -q --filter label=clawssh.sandbox=$id)" ] ||
    fail "no container for the background process"
"$CLAWSSH" destroy "$id" >/dev/null 2>&1 || fail "destroy"
i=0
while { pgrep -f "sleep $secs" >/dev/null ||
    [ -n "$(podman ps -aq --filter label=clawssh.sandbox=$id)" ]; } &&
    [ $i -lt 100 ]; do
	sleep 0.2
	i=$((i + 1))
done
pgrep -f "sleep $secs" >/dev/null && fail "background survived destroy"
[ -n "$(podman ps -aq --filter label=clawssh.sandbox=$id)" ] &&
    fail "container survived destroy"
"$CLAWSSH" destroy "$id2" >/dev/null 2>&1
exit 0
