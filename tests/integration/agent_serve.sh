#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# clawssh-agent serve (the host agent's channel, docs/agent.md), driven
# locally through its stdin and stdout with no sshd: a real bwrap holder,
# then tests/helpers/agent_serve_client.py sends HELLO and EXECs and
# checks every DATA, EOF, STARTED, EXIT and ERROR that comes back (40
# commands at once, 5 MB out, 3 MiB in, 12 MiB to a late reader, signals, no holder, other
# settings, the client's EOF, garbage).  Afterwards no command of it is
# left running.
set -u

AGENT=${CLAWSSH_AGENT:-$(pwd)/clawssh-agent}
HELPER=${top_srcdir:-.}/tests/helpers/agent_serve_client.py
[ -x "$AGENT" ] || { echo "FAIL: no clawssh-agent at $AGENT" >&2; exit 1; }
command -v python3 > /dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }
command -v bwrap > /dev/null 2>&1 || { echo "SKIP: no bwrap"; exit 77; }
bwrap --ro-bind / / --unshare-all true 2> /dev/null ||
    { echo "SKIP: bwrap cannot create namespaces here"; exit 77; }

T=$(mktemp -d "${TMPDIR:-/tmp}/clawssh-serve.XXXXXX") || exit 99
R=$T/box/run
cleanup() {
	"$AGENT" box-stop --dir "$R" > /dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() {
	echo "FAIL: $*" >&2
	[ -f "$R/box.log" ] && sed 's/^/box.log: /' "$R/box.log" >&2
	exit 1
}

# A holder on the host's tree, read-only, with a private /tmp (the text
# of a start script, which box-exec runs with sh).
mkdir -p "$T/box"
# shellcheck disable=SC2089,SC2090
__claw_box_start="exec '$AGENT' box-hold --dir '$R' --spec S1 -- bwrap \
--unshare-all --new-session --ro-bind / / --proc /proc --dev /dev \
--tmpfs /tmp --"
# shellcheck disable=SC2090
export __claw_box_start
"$AGENT" box-exec --dir "$R" --spec S1 --cwd / -- true ||
    fail "the holder did not start"
unset __claw_box_start

python3 "$HELPER" "$AGENT" "$R" S1 "$T/none/run" ||
    fail "agent_serve_client.py"
"$AGENT" box-status --dir "$R" | grep -q '"running":true' ||
    fail "the holder did not survive: $("$AGENT" box-status --dir "$R")"

# What serve ran is gone: the SIGNALled sleep, the one its client's EOF
# ended (its holder connection closed), and nothing else of it.
i=0
while pgrep -f '^sleep 4[13]4[13]$' > /dev/null && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
pgrep -f '^sleep 4[13]4[13]$' > /dev/null &&
    fail "a command of serve still runs after its end"
pkill -f '^sleep 4242$'		# a background child: the sandbox's, as on a
exit 0				# machine (box-stop ends it too)
