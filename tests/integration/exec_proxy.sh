#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# ProxyCommand against a real sshd: the session runs over "sshd -i" (as
# OpenSSH's own regress tests do), tokens are expanded, and a proxy that
# fails, babbles or hangs gives an error naming it and leaves no process.
. "$TESTLIB"

SSHD_BIN=${SSHD:-/usr/sbin/sshd}
cat > "$T/proxy.sh" <<PROXY
#!/bin/sh
printf '%s\n' "\$*" > "$T/proxy.args"
exec "$SSHD_BIN" -i -f "$T/sshd_config" 2>>"$T/proxy.log"
PROXY
chmod +x "$T/proxy.sh"
cat > "$T/proxy_config" <<CONF
Host proxied
    HostName Proxied.Example
    Port 2022
    User $TEST_USER
    IdentityFile $T/id_ed25519
    IdentitiesOnly yes
    UserKnownHostsFile $T/known_hosts
    GlobalKnownHostsFile none
    StrictHostKeyChecking yes
    ConnectTimeout 3
    ProxyCommand $T/proxy.sh %h %p %r %n %%
CONF
printf '[proxied.example]:2022 %s\n' \
    "$(cut -d' ' -f1,2 "$T/hostkey.pub")" >> "$T/known_hosts"
px() {
	"$CLAWSSH" exec -F "$T/proxy_config" "$@"
}
# The proxies of this test that are still running.
leftovers() {
	pgrep -f "$T/sshd_config" | while read -r p; do
		[ "$p" = "$SSHD_PID" ] || echo "$p"
	done
}

out=$(px proxied -- sh -c 'echo via-proxy; echo "$SSH_CONNECTION"')
expect_status $? 0 "exec over ProxyCommand"
expect_match "$out" "^via-proxy$" "command output"
expect_eq "$(cat "$T/proxy.args")" "proxied.example 2022 $TEST_USER proxied %" \
    "%h %p %r %n %% expansion"
# The session ended: the proxy was reaped, none is left.
expect_eq "$(leftovers)" "" "proxy left running"

# -o ProxyCommand=none wins over the file: a direct (refused) connect.
px -o ProxyCommand=none -o HostName=127.0.0.1 -o Port=1 proxied -- true \
    2>"$T/err"
expect_status $? 255 "ProxyCommand none"
expect_match "$(cat "$T/err")" "connect to host 127.0.0.1 port 1" \
    "none means a direct connection"

# Host key checking still applies over a proxy.
printf 'proxied.example %s\n' "$(cut -d' ' -f1,2 "$T/id_ed25519.pub")" \
    > "$T/kh_wrong"
px -o "UserKnownHostsFile $T/kh_wrong" proxied -- true 2>"$T/err"
expect_status $? 255 "unknown host key over a proxy"
expect_match "$(cat "$T/err")" "not known" "host key refused over proxy"

# HostKeyAlias: the key is looked up (and recorded) under the alias.
px -o "HostKeyAlias sandbox-7" proxied -- true 2>"$T/err"
expect_status $? 255 "HostKeyAlias without an entry"
expect_match "$(cat "$T/err")" "sandbox-7" "HostKeyAlias named"
printf '[sandbox-7]:2022 %s\n' "$(cut -d' ' -f1,2 "$T/hostkey.pub")" \
    >> "$T/known_hosts"
px -o "HostKeyAlias sandbox-7" proxied -- true
expect_status $? 0 "HostKeyAlias with its entry"

# A proxy that exits at once: named, with its status.
px -o "ProxyCommand sh -c 'exit 3'" proxied -- true 2>"$T/err"
expect_status $? 255 "exiting proxy"
expect_match "$(cat "$T/err")" \
    "ProxyCommand 'sh -c 'exit 3'' exited with status 3" \
    "exiting proxy message"

# A proxy that prints garbage and leaves: named, not a crash.
px -o "ProxyCommand printf 'HTTP/1.0 400 Bad\\r\\n\\r\\n'" proxied -- true \
    2>"$T/err"
expect_status $? 255 "garbage proxy"
expect_match "$(cat "$T/err")" "ProxyCommand 'printf" "garbage proxy named"
expect_match "$(cat "$T/err")" "handshake" "garbage proxy: handshake failed"

# A proxy that hangs: ConnectTimeout applies, and the proxy is killed.
start=$(date +%s)
px -o ConnectTimeout=2 -o "ProxyCommand sleep 293.$$" proxied -- true \
    2>"$T/err"
expect_status $? 255 "hanging proxy"
[ $(( $(date +%s) - start )) -lt 8 ] || fail "hanging proxy: no timeout"
expect_match "$(cat "$T/err")" "timed out" "hanging proxy message"
expect_match "$(cat "$T/err")" "ProxyCommand 'sleep 293.$$'" \
    "hanging proxy named"
sleep 0.2
pgrep -f "sleep 293.$$" >/dev/null && fail "hanging proxy left running"

# A command that does not exist: sh says so, clawssh names it.
px -o "ProxyCommand $T/no-such-proxy" proxied -- true 2>"$T/err"
expect_status $? 255 "missing proxy"
expect_match "$(cat "$T/err")" "exited with status 127" "missing proxy"
exit 0
