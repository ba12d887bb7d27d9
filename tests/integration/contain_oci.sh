#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The podman runtime, live, where rootful podman works on this machine
# (skipped, with the reason, where it does not): provisioning checks,
# the confinement inside, env by name only, the sandbox's own uid by
# default, --user and mirror mode; one long-lived container per sandbox
# (issue 17): /tmp, processes and loopback shared by its commands and
# background processes, a timeout or a SIGKILLed engine client ending the
# command but not the container, a container removed by hand started
# again by the next command, destroy leaving none.  The image is built
# here from busybox with 'podman import' (no registry is reached).
#
# Podman may need this machine's quirks (hybrid cgroups, low rlimits):
# CLAWSSH_TEST_CONTAINERS_CONF names a containers.conf for it, handed to
# the sessions of the test's sshd; by default one selecting runc and
# cgroupfs without default ulimits is written when plain podman fails.
CONF="${TMPDIR:-/tmp}/clawssh-oci-$$.conf"
# shellcheck disable=SC2034 # read by lib.sh
SSHD_EXTRA="SetEnv CONTAINERS_CONF=$CONF API_TOKEN=hostleak43"
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

IMG="localhost/clawssh-test-$$:1"
# shellcheck disable=SC2317 # called by the EXIT trap
oci_cleanup() {
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

# A root tree of busybox, imported as an image.
mkdir -p "$T/img/bin" "$T/img/etc" "$T/img/workspace" "$T/img/tmp"
cp "$BB" "$T/img/bin/busybox"
for a in sh id ls cat echo touch sleep mkdir grep env tail cut tr wc \
    true pwd ps httpd wget; do
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

# One container per sandbox, named for it, kept between commands: a file
# written to /tmp by one exec is read by the next.
ctr() {	# the sandbox's running container's id, or nothing
	podman ps -q --filter "name=^clawssh-$id\$" --filter status=running
}
c0=$(ctr)
[ -n "$c0" ] || fail "no running container clawssh-$id"
expect_eq "$(podman ps -aq --filter "label=clawssh.sandbox=$id" | wc -l)" 1 \
    "one container for the sandbox"
x -- sh -c 'echo kept > /tmp/shared' || fail "write /tmp"
expect_eq "$(x -- cat /tmp/shared)" "kept" "/tmp shared between execs"
expect_eq "$(ctr)" "$c0" "the same container throughout"

# A background process runs in the same container: ps from a later exec
# sees it, and its server on 127.0.0.1 (network none) answers.
secs="296.$$"
"$CLAWSSH" process start -s "$id" -- sh -c "mkdir -p /tmp/www; \
    echo bg-up > /tmp/www/i; httpd -f -p 127.0.0.1:8123 -h /tmp/www & \
    sleep $secs" >/dev/null || fail "process start"
i=0
while ! x -- sh -c 'ps | grep -q "[s]leep '"$secs"'"' 2>/dev/null &&
    [ $i -lt 50 ]; do
	sleep 0.2
	i=$((i + 1))
done
x -- ps > "$T/ps.in" || fail "ps inside"
grep -q "sleep $secs" "$T/ps.in" ||
    fail "background process not seen from a later exec: $(cat "$T/ps.in")"
i=0
until out=$(x -- wget -q -O - http://127.0.0.1:8123/i 2>&1) ||
    [ $i -ge 30 ]; do
	sleep 0.2
	i=$((i + 1))
done
expect_eq "$out" "bg-up" "loopback server of a background process"

# A timeout kills the command (its background children too), not the
# container.
secs="295.$$"
x --timeout 2 -- sh -c "sleep $secs & sleep $secs; wait" >/dev/null 2>&1
expect_status $? 124 "timeout status"
i=0
while pgrep -f "sleep $secs" >/dev/null && [ $i -lt 50 ]; do
	sleep 0.2
	i=$((i + 1))
done
pgrep -f "sleep $secs" >/dev/null && fail "sleepers survived the timeout"
expect_eq "$(ctr)" "$c0" "container survived the timeout"
expect_eq "$(x -- cat /tmp/shared)" "kept" "/tmp survived the timeout"

# The engine client killed hard (SIGKILL: nothing reaches the container
# through it): the watcher still kills the command inside; the container
# and the background process stay.
secs="297.$$"
x -- sh -c "sleep $secs" >/dev/null 2>&1 &
kpid=$!
i=0
while ! pgrep -f "podman exec .*clawssh-$id .*sleep $secs" >/dev/null &&
    [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
i=0
while ! pgrep -x -f "sleep $secs" >/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
pkill -KILL -f "podman exec .*clawssh-$id .*sleep $secs" ||
    fail "no engine client"
i=0
while pgrep -x -f "sleep $secs" >/dev/null && [ $i -lt 50 ]; do
	sleep 0.2
	i=$((i + 1))
done
pgrep -x -f "sleep $secs" >/dev/null && fail "command outlived its client"
wait $kpid
expect_eq "$(ctr)" "$c0" "container survived the client's SIGKILL"
pgrep -f "sleep 296.$$" >/dev/null || fail "background process was killed"

# Removed by hand: the next command starts it again (and says so at -v).
podman rm -f "clawssh-$id" >/dev/null 2>&1 || fail "podman rm -f"
out=$("$CLAWSSH" -v exec -s "$id" -- cat /tmp/shared 2>&1)
expect_match "$out" "started the sandbox's container clawssh-$id" \
    "restart noted at -v"
[ -n "$(ctr)" ] || fail "container not started again"
[ "$(ctr)" = "$c0" ] && fail "still the old container"
x -- cat /tmp/shared >/dev/null 2>&1 && fail "/tmp kept across a restart"

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

# --cpus is the engine's --cpus on the sandbox's container (all of its
# commands together).
id4=$(provision p4 --mode remote --from "$IMG" --cpus 0.5) ||
    fail "provision --cpus"
"$CLAWSSH" exec -s "$id4" -- true || fail "exec with --cpus"
expect_eq "$(podman inspect --format '{{.HostConfig.NanoCpus}}' \
    "clawssh-$id4")" 500000000 "the container's CPU limit"
"$CLAWSSH" destroy "$id4" >/dev/null 2>&1

# destroy removes the container, and with it every process in it.
secs="298.$$"
x --background -- sh -c "echo bg-up; sleep $secs" >/dev/null ||
    fail "background start"
i=0
while ! pgrep -x -f "sleep $secs" >/dev/null && [ $i -lt 100 ]; do
	sleep 0.1
	i=$((i + 1))
done
"$CLAWSSH" destroy "$id" >/dev/null 2>&1 || fail "destroy"
i=0
while { pgrep -f "sleep 29[68].$$" >/dev/null ||
    [ -n "$(podman ps -aq --filter "label=clawssh.sandbox=$id")" ]; } &&
    [ $i -lt 100 ]; do
	sleep 0.2
	i=$((i + 1))
done
pgrep -f "sleep 29[68].$$" >/dev/null && fail "background survived destroy"
[ -n "$(podman ps -aq --filter "label=clawssh.sandbox=$id")" ] &&
    fail "container survived destroy"
"$CLAWSSH" destroy "$id2" >/dev/null 2>&1
exit 0
