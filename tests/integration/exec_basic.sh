#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# clawssh exec against a real sshd: exit codes, signals, argument quoting,
# --cwd, --env, and that environment values never reach an argv.
. "$TESTLIB"

cexec testhost -- true
expect_status $? 0 "true"
cexec testhost -- false
expect_status $? 1 "false"
cexec testhost -- sh -c 'exit 42'
expect_status $? 42 "exit 42"
cexec testhost -- sh -c 'kill -TERM $$'
expect_status $? 143 "killed by SIGTERM"
cexec testhost -- sh -c 'kill -KILL $$'
expect_status $? 137 "killed by SIGKILL"
cexec testhost -- no-such-command-here 2>/dev/null
expect_status $? 127 "command not found"

out=$(cexec testhost -- echo hello)
expect_eq "$out" "hello" "stdout"

# Hostile arguments arrive byte for byte: compare NUL-separated dumps.
nl='
'
set -- "a b" "it's" '"dq"' '$HOME' '`id`' "x${nl}y" "-n" "--" "" "*" \
    '\' ';' '&&' "tab	t" "é"
printf '%s\0' "$@" > "$T/want"
cexec testhost -- printf '%s\0' "$@" > "$T/got"
expect_status $? 0 "printf hostile args"
cmp -s "$T/want" "$T/got" || fail "hostile arguments changed in transit"

# --cwd changes directory; a missing one fails.
mkdir "$T/work dir"
out=$(cexec testhost --cwd "$T/work dir" -- pwd)
expect_eq "$out" "$T/work dir" "--cwd"
cexec testhost --cwd "$T/nonexistent" -- true 2>/dev/null
expect_status $? 1 "--cwd to a missing directory"

# --env sets variables, values with newlines and quotes intact...
val="sec'ret \$x${nl}line2"
out=$(cexec testhost --env "CLAW_V=$val" --env CLAW_W=2 -- \
    sh -c 'printf "%s|%s" "$CLAW_V" "$CLAW_W"')
expect_eq "$out" "$val|2" "--env values"

# ...and never appear in any process's argv on the remote side (the
# value comes from the config file so no local argv holds it either; the
# remote command checks that it did get it).
marker="clawsecret$$"
printf '{ "exec": { "env": { "CLAW_SECRET": "%s" } } }\n' "$marker" \
    > "$T/secret.json"
cexec testhost --config "$T/secret.json" -v -v -v -- sh -c \
    'echo "got=$CLAW_SECRET"; cat /proc/[0-9]*/cmdline | tr "\0" " "; ps -eo args' \
    > "$T/cmdlines" 2>"$T/log"
expect_match "$(head -n 1 "$T/cmdlines")" "got=$marker" "secret delivered"
[ "$(grep -c "$marker" "$T/cmdlines")" -eq 1 ] ||
	fail "env value visible in an argv"
grep -q "$marker" "$T/log" && fail "env value in clawssh's -vvv log"
grep -q "$marker" "$T/sshd.log" && fail "env value in the sshd log"

cexec testhost --env 'BAD-NAME=1' -- true 2>"$T/err"
expect_status $? 255 "bad env name"
expect_match "$(cat "$T/err")" "invalid variable name" "bad env message"

# Usage errors are clawssh's own failures: 255 and a message.
cexec testhost 2>"$T/err"
expect_status $? 255 "no command"
expect_match "$(cat "$T/err")" "no command" "no command message"
"$CLAWSSH" --version | grep -q '^clawssh [0-9]' || fail "--version"
"$CLAWSSH" exec --help | grep -q 'usage: clawssh exec' || fail "--help"
exit 0
