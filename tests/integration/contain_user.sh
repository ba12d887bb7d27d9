#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# sandbox.user / provision --user with bwrap, connecting as root: bwrap
# runs as the configured uid (setpriv), which owns what it writes in
# /workspace, gets mirror-mode files back to the local side, and cannot
# write where root owns the place.
. "$TESTLIB"

[ "$(id -u)" -eq 0 ] || { echo "SKIP: the test connects as root"; exit 77; }
command -v bwrap >/dev/null 2>&1 || { echo "SKIP: no bwrap"; exit 77; }
command -v setpriv >/dev/null 2>&1 || { echo "SKIP: no setpriv"; exit 77; }
setpriv --reuid=65534 --regid=65534 --clear-groups --no-new-privs \
    bwrap --ro-bind / / --unshare-all true 2>/dev/null ||
    { echo "SKIP: bwrap cannot make namespaces as an unprivileged user"; \
    exit 77; }

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
# bwrap, running as the user, must reach remoteRoot through $T.
chmod 711 "$T"
R="$T/root"
W="$T/ws"
mkdir -p "$W"
echo data > "$W/f.txt"

# provision KEY [FLAGS...]: print the id of a bwrap sandbox.
provision() {
	k=$1
	shift
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$k" \
	    --remote-root "$R" --workspace "$W" "$@"
}

# A numeric uid:gid needs no passwd entry; it is recorded and hashed.
id=$(provision u1 --mode remote --user 12345:12346) || fail "provision"
expect_match "$("$CLAWSSH" status "$id" --json)" '"runAs":.*"12345:12346"' \
    "the user is recorded"
expect_match "$("$CLAWSSH" status "$id")" "^user: *12345:12346$" \
    "status shows the user"
out=$("$CLAWSSH" exec -s "$id" -- sh -c 'id -u; id -g; id -G; \
    grep -E "^(Uid|CapEff|NoNewPrivs)" /proc/self/status; cat f.txt')
expect_eq "$(echo "$out" | sed -n 1p)" "12345" "id -u inside"
expect_eq "$(echo "$out" | sed -n 2p)" "12346" "id -g inside"
expect_eq "$(echo "$out" | sed -n 3p)" "12346" "no supplementary groups"
expect_match "$out" "^Uid:.12345.12345.12345.12345$" "all uids switched"
expect_match "$out" "^CapEff:.0000000000000000$" "CapEff 0"
expect_match "$out" "^NoNewPrivs:.1$" "NoNewPrivs 1"
expect_match "$out" "^data$" "seeded file readable"

# What it writes is its own on the host.
"$CLAWSSH" exec -s "$id" -- sh -c 'echo w > /workspace/w' ||
    fail "write in /workspace"
expect_eq "$(stat -c %u:%g "$R/$id/workspace/w")" "12345:12346" \
    "host owner of a file written inside"

# Root-owned places: a directory and a file the host's root makes in the
# workspace while the command runs, and the read-only root.
out=$("$CLAWSSH" exec -s "$id" -- sh -c ': > /workspace/started; i=0; \
    while [ ! -e /workspace/rootdir/ready ] && [ $i -lt 100 ]; do \
    sleep 0.1; i=$((i + 1)); done; \
    touch /workspace/rootdir/x 2>/dev/null && echo wrote-dir; \
    { echo x >> /workspace/rootfile; } 2>/dev/null && echo wrote-file; \
    touch /etc/clawssh-u 2>/dev/null && echo wrote-etc; \
    touch /workspace/mine && echo wrote-mine' 2>&1 &
    i=0; while [ ! -e "$R/$id/workspace/started" ] && [ $i -lt 100 ]; do \
    sleep 0.1; i=$((i + 1)); done; mkdir "$R/$id/workspace/rootdir"; \
    : > "$R/$id/workspace/rootdir/ready"; \
    echo root > "$R/$id/workspace/rootfile"; wait) ||
    fail "exec with root-owned places"
expect_eq "$out" "wrote-mine" "only its own places are writable"
[ -e "$R/$id/workspace/rootdir/x" ] && fail "wrote into a root directory"
expect_eq "$(cat "$R/$id/workspace/rootfile")" "root" "root file unchanged"
[ -e /etc/clawssh-u ] && fail "wrote to the host's /etc"

# A name resolves on the host; mirror mode brings the user's files back.
mkdir -p "$T/ws2"
echo seed > "$T/ws2/seed.txt"
W="$T/ws2"
id2=$(provision u2 --user nobody) || fail "provision mirror"
uid=$(id -u nobody)
out=$("$CLAWSSH" exec -s "$id2" -- sh -c 'id -u; cat seed.txt; \
    mkdir -p out && echo made > out/new.txt; echo more >> seed.txt') ||
    fail "mirror exec"
expect_eq "$(echo "$out" | sed -n 1p)" "$uid" "nobody's uid inside"
expect_eq "$(echo "$out" | sed -n 2p)" "seed" "pushed file readable"
expect_eq "$(cat "$T/ws2/out/new.txt")" "made" "new file came back"
expect_eq "$(sed -n 2p "$T/ws2/seed.txt")" "more" "changed file came back"
# A later push (as root on the host) is given to the user again.
echo again > "$T/ws2/later.txt"
out=$("$CLAWSSH" exec -s "$id2" -- sh -c 'echo ok >> later.txt && cat \
    later.txt') || fail "exec after a push"
expect_eq "$out" "again
ok" "pushed file writable by the user"

# A user that does not exist on the host stops the command, clearly.
id3=$(provision u3 --mode remote --user no_such_clawuser) ||
    fail "provision u3"
out=$("$CLAWSSH" exec -s "$id3" -- true 2>&1)
expect_status $? 125 "missing user status"
expect_match "$out" "user no_such_clawuser does not exist on this host" \
    "missing user message"

# Bad users are refused at provision.
out=$(provision u4 --user 'x;id' 2>&1) && fail "accepted a bad user"
expect_match "$out" "--user: invalid user" "bad user message"
out=$(provision u4 --user 1000 2>&1) && fail "accepted a uid alone"
expect_match "$out" "want \"uid:gid\"" "uid alone message"
out=$(provision u4 --user nobody --runtime none 2>&1) &&
    fail "accepted a user with runtime none"
expect_match "$out" "--user needs a contained runtime" "user with none"
exit 0
