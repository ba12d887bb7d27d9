#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Configuration: ssh_config aliases and patterns, -o precedence, the
# clawssh JSON config (env, timeout, errors with line and column).
. "$TESTLIB"

# Host patterns: an alias matched by a wildcard block.
cat > "$T/ssh_config2" <<CONF
Host box-*
    HostName 127.0.0.1
    Port $PORT
Host *
    User $TEST_USER
    IdentityFile $T/id_ed25519
    UserKnownHostsFile $T/known_hosts
    StrictHostKeyChecking yes
CONF
out=$("$CLAWSSH" exec -F "$T/ssh_config2" box-gpu1 -- echo via-pattern)
expect_eq "$out" "via-pattern" "Host pattern alias"

# user@host:port targets, no alias.
out=$("$CLAWSSH" exec -F /dev/null -o UserKnownHostsFile="$T/known_hosts" \
    -o IdentityFile="$T/id_ed25519" "$TEST_USER@127.0.0.1:$PORT" -- echo direct)
expect_eq "$out" "direct" "user@host:port target"

# --host spelling.
out=$(cexec --host testhost -- echo flag)
expect_eq "$out" "flag" "--host TARGET"

# A malformed ssh_config names file and line.
printf 'Host x\n  Port notanumber\n' > "$T/bad_ssh_config"
"$CLAWSSH" exec -F "$T/bad_ssh_config" x -- true 2>"$T/err"
expect_status $? 255 "bad ssh_config"
expect_match "$(cat "$T/err")" "line 2" "bad ssh_config line"

# The JSON config: comments allowed, env and timeout applied.
mkdir -p "$XDG_CONFIG_HOME/clawssh"
cat > "$XDG_CONFIG_HOME/clawssh/config.json" <<'JSON'
{
  // environment for every exec
  "exec": { "env": { "CLAW_FROM_CONFIG": "yes" }, "timeout": 2 },
  /* quiet */ "log": { "verbose": 0 }
}
JSON
out=$(cexec testhost -- sh -c 'echo $CLAW_FROM_CONFIG')
expect_eq "$out" "yes" "exec.env from config"
out=$(cexec testhost --env CLAW_FROM_CONFIG=cli -- sh -c 'echo $CLAW_FROM_CONFIG')
expect_eq "$out" "cli" "--env overrides config"
cexec testhost -- sleep 30 2>/dev/null
expect_status $? 124 "exec.timeout from config"

# A malformed config: line and column, nothing run.
printf '{\n  "exec": {\n    "timeout": 5\n    "env": {}\n  }\n}\n' \
    > "$T/bad.json"
cexec testhost --config "$T/bad.json" -- touch "$T/ran" 2>"$T/err"
expect_status $? 255 "malformed config"
expect_match "$(cat "$T/err")" "bad.json:4:" "malformed config line"
[ -e "$T/ran" ] && fail "command ran despite a bad config"

# An unknown key is an error too.
printf '{ "exec": { "timeuot": 5 } }\n' > "$T/typo.json"
cexec testhost --config "$T/typo.json" -- true 2>"$T/err"
expect_status $? 255 "unknown config key"
expect_match "$(cat "$T/err")" "timeuot" "unknown key named"
exit 0
