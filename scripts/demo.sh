#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Quick-start command 1: install dependencies, build, start a throwaway
# sshd on 127.0.0.1 with generated host and user keys, and run real remote
# commands through clawssh.  Nothing outside a temporary directory is
# touched (not ~/.ssh); everything is removed on exit.
set -eu
cd "$(dirname "$0")/.."
# CLAWSSH_DEMO_BINARY=PATH (tests/demo.sh, in make check) runs the demo
# with that binary and skips the installing and building.
if [ -n "${CLAWSSH_DEMO_BINARY:-}" ]; then
	CLAWSSH=$CLAWSSH_DEMO_BINARY
else
	sh scripts/install-deps.sh
	sh scripts/build.sh
	CLAWSSH="$PWD/clawssh"
fi

D=$(mktemp -d /tmp/clawssh-demo.XXXXXX)
# Sandboxes run as their own uid (connected as root): it must be able to
# pass through $D to reach them.
chmod 711 "$D"
# The first part shows direct connections (a login per command); the
# daemon, which a command would otherwise start by itself, comes later.
CLAWSSH_AUTOSTART=0
export CLAWSSH_AUTOSTART
SSHD_PID=
cleanup() {
	# (set -e holds here too: a step that finds nothing must not stop it)
	pkill -f "clawssh serve --socket $D/" 2>/dev/null || :
	[ -z "$SSHD_PID" ] || kill "$SSHD_PID" 2>/dev/null || :
	rm -rf "$D"
}
trap cleanup EXIT
ssh-keygen -q -t ed25519 -N '' -f "$D/hostkey"
ssh-keygen -q -t ed25519 -N '' -f "$D/id_ed25519"
cp "$D/id_ed25519.pub" "$D/authorized_keys"
[ "$(id -u)" -eq 0 ] && mkdir -p /run/sshd
PORT=$(( ($$ % 20000) + 30000 ))
cat > "$D/sshd_config" <<CONF
Port $PORT
ListenAddress 127.0.0.1
HostKey $D/hostkey
AuthorizedKeysFile $D/authorized_keys
PidFile $D/sshd.pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin yes
# bash reads ~/.bashrc for sshd sessions only below SHLVL 2: skip a heavy
# rc file of this machine's user, so the timings below are clawssh's.
SetEnv SHLVL=1
CONF
"$(command -v sshd || echo /usr/sbin/sshd)" -D -e -f "$D/sshd_config" \
    2>"$D/sshd.log" &
SSHD_PID=$!
i=0
until grep -q "Server listening" "$D/sshd.log"; do
	i=$((i + 1))
	[ $i -lt 100 ] || { cat "$D/sshd.log"; exit 1; }
	sleep 0.1
done
cat > "$D/ssh_config" <<CONF
Host demo
    HostName 127.0.0.1
    Port $PORT
    User $(id -un)
    IdentityFile $D/id_ed25519
    UserKnownHostsFile $D/known_hosts
    StrictHostKeyChecking accept-new
CONF

run() {
	echo "\$ clawssh exec -F ssh_config $*"
	"$CLAWSSH" exec -F "$D/ssh_config" "$@"
}
echo "== clawssh demo against a throwaway sshd on 127.0.0.1:$PORT"
run demo -- uname -a
run demo --env GREETING='hello from clawssh' -- sh -c 'echo "$GREETING"'
echo "some local input" | run demo -- tr a-z A-Z
run demo -- sh -c 'echo to-stderr >&2; exit 3' || echo "(exit status $?)"
run demo --timeout 1 -- sleep 30 || echo "(exit status $?)"
echo "== known_hosts now holds the host key (accept-new recorded it):"
cut -c1-60 "$D/known_hosts"

c() {
	echo "\$ clawssh $*"
	"$CLAWSSH" "$@"
}
CLAWSSH_STATE_DIR="$D/state"
export CLAWSSH_STATE_DIR
echo "== sandboxes: get-or-create one per session key, then use it"
mkdir -p "$D/ws1"
echo 'local file' > "$D/ws1/readme.txt"
c provision -F "$D/ssh_config" --host demo --key session-42 \
    --remote-root "$D/sandboxes" --workspace "$D/ws1"
id=$("$CLAWSSH" provision -F "$D/ssh_config" --host demo --key session-42 \
    --remote-root "$D/sandboxes" --workspace "$D/ws1")
echo "== every command runs contained (bubblewrap): /workspace, no caps, only lo"
c exec -s "$id" -- sh -c 'pwd; cat readme.txt; grep CapEff /proc/self/status;
    tail -n +3 /proc/net/dev | cut -d: -f1; echo hello > note.txt'
echo "mirror mode brought note.txt back: $(cat "$D/ws1/note.txt")"
echo "== agent file tools and a background process"
printf 'x = 1\n' | c write -s "$id" app.py
c edit -s "$id" app.py --old 'x = 1' --new 'x = 2'
c read -s "$id" app.py
h=$("$CLAWSSH" process start -s "$id" -- sh -c 'echo working; sleep 1; echo done')
echo "\$ clawssh process start -s $id -- ...   -> $h"
sleep 3
c process poll -s "$id" "$h"
c list
c status "$id"
c destroy "$id"

echo "== a remote-mode sandbox: seeded once from the workspace, then pulled"
mkdir -p "$D/ws/src"
echo 'print("hello")' > "$D/ws/src/main.py"
id=$("$CLAWSSH" provision -F "$D/ssh_config" --host demo --key seeded \
    --mode remote --remote-root "$D/sandboxes" --workspace "$D/ws")
c exec -s "$id" -- sh -c 'ls -R; echo "result: 42" > result.txt'
c sync pull "$id" result.txt
echo "local copy of result.txt: $(cat "$D/ws/result.txt")"
c destroy "$id"

echo "== warm connections: a daemon keeps the session, commands borrow it"
mkdir -m 700 "$D/run"
CLAWSSH_DAEMON_SOCKET="$D/run/control.sock"
export CLAWSSH_DAEMON_SOCKET
c serve --socket "$CLAWSSH_DAEMON_SOCKET" --detach
for n in 1 2 3; do
	t0=$(date +%s%N)
	"$CLAWSSH" exec -F "$D/ssh_config" demo -- true
	echo "exec $n through the daemon: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
done
t0=$(date +%s%N)
"$CLAWSSH" exec --no-daemon -F "$D/ssh_config" demo -- true
echo "the same with --no-daemon (a new SSH login): $(( ($(date +%s%N) - t0) / 1000000 )) ms"
echo "== the same tools over JSON-RPC (clawssh serve --stdio):"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"exec","params":{"host":"demo","ssh_config":"'"$D/ssh_config"'","argv":["echo","hi over JSON-RPC"]}}' |
    "$CLAWSSH" serve --stdio 2>/dev/null || true
echo "(refused: exec outside a sandbox needs \"policy\": {\"elevated\": true})"
echo "== demo finished"
