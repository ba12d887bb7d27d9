#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# JSON-RPC execs the daemon runs itself (daemon_route.c): once a
# sandbox's route is learnt and its host agent is up, an exec on the
# daemon's socket goes down the agent's channel with no worker process,
# and gives what a worker gives.
#
#   case  what
#   1     the first exec goes to a worker and the route is learnt; the
#         next ones run in the daemon (no worker forked): streamed
#         stdout and stderr, exit statuses 0, 3, 137
#   2     stdin, env (the call's over config.json's exec.env, which
#         applies too), cwd relative and absolute, the default cwd
#   3     timeout: 124, the worker's warning, the command gone; a
#         cancelled call and a client gone mid-exec stop theirs
#   4     a changed config.json drops the route: the next exec sees the
#         new exec.env at once, and exec.timeout applies
#   5     stop: the agent refuses, the exec falls back to a worker and
#         still runs; later ones run in the daemon again
#   6     a mirror sandbox: without no_sync a worker (the sync runs),
#         with no_sync the daemon
#   7     64 execs in flight on one connection, each its own answer
#   8     MCP (serve --mcp -s ID): tools/call exec runs in that server
#         once it has learnt the route, with the same content
#   9     connection parameters (ssh_config, state_dir, as OpenClaw's
#         plugin sends them): a route of their own, then in the daemon
#   10    cases 1, 2, 3, 5, 9, 11, 12, 13, 14 and 15 as the non-root SSH user
#         clawssh-test (root only)
#   11    fs.read, fs.stat and fs.ls on a mirror sandbox answered by the
#         daemon from the local copy (no worker): the CLI's bytes, JSON
#         and errors (ranges, binary, a link inside, a link out, a FIFO,
#         a missing file, a path outside)
#   12    fs.write, fs.edit and fs.applyPatch on a mirror sandbox in the
#         daemon: new files and parents, binary, the mode kept, counts,
#         the CLI's lines and errors, a link out refused with the file
#         outside unchanged, a failing hunk changing nothing; push and a
#         read-only workspace go to a worker
#   13    fs.read, fs.stat, fs.ls and fs.write on a remote sandbox: one
#         step each in its running environment, sent by the daemon (no
#         worker; read, stat and ls the agent's own, compared with the
#         CLI's shell steps on hostile paths), fs.edit two steps,
#         fs.applyPatch a read a file and a commit; the CLI's bytes,
#         JSON and errors; stopped, a worker again
#   14    process.poll, write, wait, log, list and kill made by the
#         daemon on its own session (the host agent's proc-* commands,
#         no worker): the CLI's JSON and errors; a cancelled wait ends
#         on the host; with the route's agent gone, the sh script
#   15    process.start made by the daemon (proc-start, its command
#         joining the running environment: a later exec sees its /tmp
#         file and its process), env delivered and nowhere on disk or in
#         an argv; stopped, a worker; a terminal or a mirror sandbox, a
#         worker
# RPC_ROUTE_CASES="1 4" runs some (default: all).
# The case_N functions are called by name, by lib_run_cases.
# shellcheck disable=SC2317,SC2016
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"
top_srcdir=${top_srcdir:?make check sets it}

lib_need_bwrap
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
mkdir -m 700 "$R"
[ -n "${LIB_SSH_USER:-}" ] && chown "$LIB_SSH_USER:" "$R"
CONF="$XDG_CONFIG_HOME/clawssh/config.json"
mkdir -p "$XDG_CONFIG_HOME/clawssh"
printf '{ "exec": { "env": { "CFG": "one", "BOTH": "config" } } }\n' \
    > "$CONF"
lib_start_daemon "$T/daemon.log" -vv
SESSION="$top_srcdir/tests/helpers/rpc_session.py"

# prov KEY [MODE]: the id of a bwrap sandbox of KEY (remote mode).
prov() {
	mkdir -p "$T/ws-$1"
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$1" \
	    --remote-root "$R" --workspace "$T/ws-$1" --mode "${2:-remote}" \
	    --runtime bwrap
}

# rpc LINES...: one session (tests/helpers/rpc_session.py); all the
# daemon sent is in $T/out.
rpc() {
	printf '%s\n' "$@" | python3 "$SESSION" "$D" > "$T/out" ||
	    lib_case_fail "rpc session: $(tail -n 3 "$T/out")"
}

# ex ID PARAMS: an exec request line for $id with more PARAMS (",...").
ex() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"exec","params":{"sandbox":"%s"%s}}' \
	    "$1" "$id" "$2"
}

# status ID: the exit status in the answer to ID.
status() {
	jq -r "select(.id == $1) | .result.exit_status // .error.message" \
	    "$T/out"
}

# stream ID NAME: what came on NAME (stdout, stderr) for ID.
stream() {
	jq -rj "select(.method == \"exec.output\" and .params.id == $1 and
	    .params.stream == \"$2\") | .params.data" "$T/out"
}

# inproc: how many execs the daemon has run itself so far.
inproc() {
	grep -c "in the daemon, on the host agent's channel" "$T/daemon.log"
}

# workers [TOOL]: how many workers (for exec, or TOOL) the daemon has
# started so far.
workers() {
	grep -c "debug: worker [0-9]*: ${1:-exec}$" "$T/daemon.log"
}

# learnt: wait until $id's route is learnt (10 s at most).
learnt() {
	_i=0
	until grep -q "sandbox $id: route through" "$T/daemon.log" ||
	    [ "$_i" -ge 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	grep -q "sandbox $id: route through" "$T/daemon.log" ||
	    lib_case_fail "no route learnt: $(grep "$id" "$T/daemon.log" |
	    tail -n 3)"
}

# warm KEY [MODE]: a sandbox whose environment runs and route is learnt.
warm() {
	id=$(prov "$@") || lib_case_fail "provision $1"
	rpc "$(ex 1 ',"argv":["true"]')"
	expect_eq "$(status 1)" 0 "first exec of $1"
	learnt
}

case_1() {
	id=$(prov one) || lib_case_fail "provision"
	w0=$(workers)
	rpc "$(ex 1 ',"argv":["sh","-c","echo first > /tmp/first"]')"
	expect_eq "$(status 1)" 0 "first exec"
	[ "$(workers)" -gt "$w0" ] || lib_case_fail "the first exec had no worker"
	learnt
	w0=$(workers)
	n0=$(inproc)
	rpc "$(ex 2 ',"argv":["sh","-c","cat /tmp/first; echo err >&2; exit 3"]')" \
	    "$(ex 3 ',"argv":["true"]')" \
	    "$(ex 4 ',"argv":["sh","-c","kill -KILL $$"]')"
	expect_eq "$(status 2)" 3 "exit 3"
	expect_eq "$(stream 2 stdout)" first "stdout (and /tmp persists)"
	expect_eq "$(stream 2 stderr)" err "stderr"
	expect_eq "$(status 3)" 0 "exit 0"
	expect_eq "$(status 4)" 137 "death by SIGKILL"
	expect_eq "$(( $(inproc) - n0 ))" 3 "execs run in the daemon"
	expect_eq "$(workers)" "$w0" "workers started for them"
}

case_2() {
	warm two
	n0=$(inproc)
	mkdir -p "$T/ws-two/sub"
	rpc "$(ex 1 ',"argv":["cat"],"stdin":"piped\nlines\n"')" \
	    "$(ex 2 ',"argv":["sh","-c","echo $CFG $BOTH $MINE"],"env":{"BOTH":"call","MINE":"x y"}')" \
	    "$(ex 3 ',"argv":["mkdir","-p","sub/dir"]')" \
	    "$(ex 4 ',"argv":["pwd"],"cwd":"sub/dir"')" \
	    "$(ex 5 ',"argv":["pwd"],"cwd":"/tmp"')" \
	    "$(ex 6 ',"argv":["pwd"]')" \
	    "$(ex 7 ',"argv":["sh","-c","echo \"$HOME\"; wc -c"],"stdin_base64":"AAEC"')"
	expect_eq "$(stream 1 stdout)" "piped
lines" "stdin"
	expect_eq "$(stream 2 stdout)" "one call x y" "env: the call's over the config's"
	expect_eq "$(status 3)" 0 "mkdir"
	expect_eq "$(stream 4 stdout)" /workspace/sub/dir "relative cwd"
	expect_eq "$(stream 5 stdout)" /tmp "absolute cwd"
	expect_eq "$(stream 6 stdout)" /workspace "default cwd"
	expect_eq "$(stream 7 stdout)" "/tmp
3" "HOME, binary stdin"
	expect_eq "$(( $(inproc) - n0 ))" 7 "execs run in the daemon"
}

case_3() {
	warm three
	n0=$(inproc)
	rpc "$(ex 1 ',"argv":["sleep","41.25"],"timeout":1')"
	expect_eq "$(status 1)" 124 "timeout"
	expect_match "$(stream 1 stderr)" \
	    "^clawssh: warning: command timed out after 1 s; remote process stopped" \
	    "the timeout's warning"
	lib_gone_cmd "sleep 41.25"
	rpc "&$(ex 2 ',"argv":["sleep","42.5"]')" "sleep 1" \
	    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}' \
	    "$(ex 3 ',"argv":["true"]')"
	lib_gone_cmd "sleep 42.5"
	expect_eq "$(status 3)" 0 "an exec after the cancel"
	[ -z "$(status 2)" ] || lib_case_fail "a cancelled call was answered"
	# A client that goes away mid-exec.
	(ex 4 ',"argv":["sleep","43.75"]'; echo; sleep 5) |
	    timeout 2 nc -U "$D" > /dev/null
	lib_gone_cmd "sleep 43.75"
	expect_eq "$(( $(inproc) - n0 ))" 4 "execs run in the daemon"
}

case_4() {
	warm four
	printf '{ "exec": { "timeout": 1, "env": { "CFG": "two" } } }\n' \
	    > "$CONF"
	rpc "$(ex 1 ',"argv":["sh","-c","echo $CFG"]')"
	expect_eq "$(stream 1 stdout)" two "exec.env after the change"
	learnt_again=0
	for _i in 1 2 3 4 5 6 7 8 9 10; do
		n0=$(inproc)
		rpc "$(ex 2 ',"argv":["sh","-c","echo $CFG; sleep 30.5"]')"
		if [ "$(inproc)" -gt "$n0" ]; then
			learnt_again=1
			break
		fi
		sleep 0.5
	done
	[ "$learnt_again" = 1 ] || lib_case_fail "the route was not learnt again"
	expect_eq "$(stream 2 stdout)" two "exec.env, in the daemon"
	expect_eq "$(status 2)" 124 "exec.timeout, in the daemon"
	lib_gone_cmd "sleep 30.5"
	printf '{ "exec": { "env": { "CFG": "one", "BOTH": "config" } } }\n' \
	    > "$CONF"
}

case_5() {
	warm five
	"$CLAWSSH" stop "$id" > /dev/null 2>&1 || lib_case_fail "stop"
	w0=$(workers)
	rpc "$(ex 1 ',"argv":["echo","again"]')"
	expect_eq "$(stream 1 stdout)" again "exec after stop"
	[ "$(workers)" -gt "$w0" ] || lib_case_fail "no fallback to a worker"
	learnt
	_i=0
	n0=$(inproc)
	while [ "$(inproc)" -eq "$n0" ] && [ "$_i" -lt 20 ]; do
		rpc "$(ex 2 ',"argv":["echo","later"]')"
		sleep 0.2
		_i=$((_i + 1))
	done
	expect_eq "$(stream 2 stdout)" later "a later exec"
	[ "$(inproc)" -gt "$n0" ] || lib_case_fail "not in the daemon again"
}

case_6() {
	warm six mirror
	echo local > "$T/ws-six/here.txt"
	n0=$(inproc)
	rpc "$(ex 1 ',"argv":["cat","here.txt"]')" \
	    "$(ex 2 ',"argv":["true"],"no_sync":true')"
	expect_eq "$(stream 1 stdout)" local "mirror exec sees the local file"
	expect_eq "$(( $(inproc) - n0 ))" 1 "only the no_sync exec in the daemon"
}

case_7() {
	warm seven
	n0=$(inproc)
	i=1
	while [ "$i" -le 64 ]; do
		echo "&$(ex "$i" ",\"argv\":[\"sh\",\"-c\",\"echo $i; exit $((i % 7))\"]")"
		i=$((i + 1))
	done > "$T/many"
	python3 "$SESSION" "$D" < "$T/many" > "$T/out" ||
	    lib_case_fail "session of 64"
	i=1
	while [ "$i" -le 64 ]; do
		[ "$(stream "$i" stdout)" = "$i" ] ||
		    lib_case_fail "output of $i: $(stream "$i" stdout)"
		[ "$(status "$i")" = "$((i % 7))" ] ||
		    lib_case_fail "status of $i: $(status "$i")"
		i=$((i + 1))
	done
	[ "$(( $(inproc) - n0 ))" -ge 60 ] ||
	    lib_case_fail "only $(( $(inproc) - n0 )) of 64 in the daemon"
}

# mcall ID ARGS: a tools/call of exec with ARGS (a JSON object's body).
mcall() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"exec","arguments":{%s}}}\n' \
	    "$1" "$2"
}

case_8() {
	warm eight
	{
		echo '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}'
		echo '{"jsonrpc":"2.0","method":"notifications/initialized"}'
		mcall 1 '"command":"echo one; exit 2"'
		echo "sleep 3"	# the route is learnt meanwhile
		mcall 2 '"argv":["sh","-c","echo two $X >&2"],"env":{"X":"y"}'
		mcall 3 '"command":"cat","stdin":"three"'
	} > "$T/mcp.in"
	python3 "$SESSION" -- "$CLAWSSH" serve --mcp -s "$id" -vv \
	    --log "$T/mcp.log" < "$T/mcp.in" > "$T/out" ||
	    lib_case_fail "the MCP session: $(tail -n 3 "$T/out") $(tail -n 5 "$T/mcp.log")"
	expect_eq "$(jq -c 'select(.id == 1) | .result.structuredContent |
	    [.exitCode, .stdout]' "$T/out")" '[2,"one\n"]' "MCP exec 1"
	expect_eq "$(jq -c 'select(.id == 2) | .result.structuredContent |
	    [.exitCode, .stderr]' "$T/out")" '[0,"two y\n"]' "MCP exec 2"
	expect_eq "$(jq -c 'select(.id == 3) | .result.structuredContent |
	    [.exitCode, .stdout]' "$T/out")" '[0,"three"]' "MCP exec 3"
	expect_eq "$(grep -c "in the daemon, on the host agent's channel" \
	    "$T/mcp.log")" 2 "MCP execs run in the server itself"
}

case_9() {
	warm nine
	c=",\"ssh_config\":\"$T/ssh_config\",\"state_dir\":\"$T/state\""
	rpc "$(ex 1 "$c"',"argv":["echo","first"]')"
	expect_eq "$(stream 1 stdout)" first "the first call with them"
	_i=0
	n0=$(inproc)
	while [ "$(inproc)" -eq "$n0" ] && [ "$_i" -lt 20 ]; do
		rpc "$(ex 2 "$c"',"argv":["sh","-c","echo $0; pwd","x"],"cwd":"/tmp"')"
		sleep 0.2
		_i=$((_i + 1))
	done
	[ "$(inproc)" -gt "$n0" ] || lib_case_fail "never in the daemon"
	expect_eq "$(stream 2 stdout)" "x
/tmp" "in the daemon, with them"
	rpc "$(ex 3 ',"argv":["true"],"state_dir":"/nonexistent/state"')"
	expect_match "$(status 3)" "." "another state_dir is its own route"
	[ "$(status 3)" != 0 ] || lib_case_fail "a state_dir without the sandbox ran"
}

case_10() {
	lib_cases_as_nonroot RPC_ROUTE_CASES "1 2 3 5 9 11 12 13 14 15 16 17"
}

# fs ID METHOD PARAMS: a file tool request line for $id.
fs() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"fs.%s","params":{"sandbox":"%s"%s}}' \
	    "$1" "$2" "$id" "$3"
}

# answer ID: the result (or the error's message) for ID, compact.
answer() {
	jq -c "select(.id == $1) | .result // .error.message" "$T/out"
}

# local: how many file tools the daemon has answered itself so far.
local_fs() {
	grep -c "in the daemon, on the local copy" "$T/daemon.log"
}

# fs_tree DIR: the tree fs_reads reads: a.txt, bin, d/e, d/in (a link
# to ../a.txt), out (a link to /etc/passwd) and a FIFO.
fs_tree() {
	printf 'one\ntwo\nthree\n' > "$1/a.txt"
	head -c 2000 /dev/urandom > "$1/bin"
	mkdir -p "$1/d/e"
	ln -s ../a.txt "$1/d/in"
	ln -s /etc/passwd "$1/out"
	mkfifo "$1/fifo"
}

# fs_reads LAST: requests 1 to 11 on $id's fs_tree, LAST as 12, in one
# session.
fs_reads() {
	rpc "$(fs 1 read ',"path":"a.txt"')" \
	    "$(fs 2 read ',"path":"/workspace/a.txt","offset":4,"limit":3')" \
	    "$(fs 3 read ',"path":"a.txt","lines":true,"offset":1,"limit":1')" \
	    "$(fs 4 read ',"path":"bin"')" \
	    "$(fs 5 stat ',"path":"d"')" \
	    "$(fs 6 ls ',"path":"d"')" \
	    "$(fs 7 ls '')" \
	    "$(fs 8 read ',"path":"d/in"')" \
	    "$(fs 9 read ',"path":"out"')" \
	    "$(fs 10 read ',"path":"fifo"')" \
	    "$(fs 11 read ',"path":"nope"')" \
	    "$1"
}

# fs_check DIR: answers 1 to 11 of fs_reads are the CLI's (DIR: the
# copy the tools act on).
fs_check() {
	expect_eq "$(answer 1)" '{"content":"one\ntwo\nthree\n"}' "read"
	expect_eq "$(answer 2)" '{"content":"two"}' "byte range"
	expect_eq "$(answer 3)" '{"content":"two\n"}' "line range"
	jq -r 'select(.id == 4) | .result.content_base64' "$T/out" |
	    base64 -d > "$T/bin.got"
	cmp -s "$T/bin.got" "$1/bin" || lib_case_fail "binary read differs"
	expect_eq "$(answer 5)" "$("$CLAWSSH" stat -s "$id" --json d)" "stat"
	expect_eq "$(answer 6)" \
	    "{\"entries\":$("$CLAWSSH" ls -s "$id" --json d)}" "ls d"
	expect_eq "$(answer 7)" \
	    "{\"entries\":$("$CLAWSSH" ls -s "$id" --json)}" "ls"
	expect_eq "$(answer 8)" '{"content":"one\ntwo\nthree\n"}' \
	    "a link inside is followed"
	for n in 9 10 11; do
		case $n in 9) p=out ;; 10) p=fifo ;; 11) p=nope ;; esac
		want=$("$CLAWSSH" read -s "$id" "$p" 2>&1 >/dev/null)
		expect_eq "\"clawssh: $(answer "$n" | tr -d '"')\"" \
		    "\"$want\"" "error for $p"
	done
}

case_11() {
	warm eleven mirror
	W11="$T/ws-eleven"
	fs_tree "$W11"
	w0=$(workers read)
	n0=$(local_fs)
	fs_reads "$(fs 12 stat ',"path":"d/in"')"
	expect_eq "$(( $(local_fs) - n0 ))" 12 "answered in the daemon"
	expect_eq "$(workers read)$(workers stat)$(workers ls)" "${w0}00" \
	    "workers started for them"
	fs_check "$W11"
	expect_eq "$(answer 12)" "$("$CLAWSSH" stat -s "$id" --json d/in)" \
	    "stat through a link"
	# a path outside: the worker says it, as before
	w0=$(workers read)
	rpc "$(fs 1 read ',"path":"/etc/passwd"')"
	expect_match "$(answer 1)" "absolute path outside" "a path outside"
	[ "$(workers read)" -gt "$w0" ] ||
	    lib_case_fail "a path outside: no worker"
}

case_12() {
	warm twelve mirror
	W12="$T/ws-twelve"
	printf 'a b a\n' > "$W12/e.txt"
	chmod 640 "$W12/e.txt"
	echo sentinel > "$T/outside12"
	ln -s "$T/outside12" "$W12/out"
	n0=$(local_fs)
	w0=$(workers write)$(workers edit)
	rpc "$(fs 1 write ',"path":"n/e/w.txt","content":"new\n"')" \
	    "$(fs 2 write ',"path":"b.bin","content_base64":"AAEC/w=="')" \
	    "$(fs 3 edit ',"path":"e.txt","old":"a","new":"X","all":true')" \
	    "$(fs 4 edit ',"path":"e.txt","old":"b","new":"Y"')" \
	    "$(fs 5 edit ',"path":"e.txt","old":"zz","new":"Y"')" \
	    "$(fs 6 write ',"path":"out","content":"pwned\n"')" \
	    "$(fs 7 write ',"path":"e.txt","content":"whole\n"')"
	expect_eq "$(( $(local_fs) - n0 ))" 7 "answered in the daemon"
	expect_eq "$(workers write)$(workers edit)" "$w0" "workers for them"
	expect_eq "$(cat "$W12/n/e/w.txt")" new "written with parents"
	expect_eq "$(od -An -tx1 "$W12/b.bin" | tr -d ' ')" 000102ff "binary"
	expect_eq "$(answer 3)" '{"text":"2 replacements\n"}' "edit --all"
	expect_eq "$(answer 4)" '{"text":"1 replacement\n"}' "edit"
	printf 'X b X\n' > "$T/e.want"
	want=$("$CLAWSSH" edit -s "$id" e.txt --old zz --new Y 2>&1 >/dev/null)
	expect_eq "\"clawssh: $(answer 5 | tr -d '"')\"" "\"$want\"" \
	    "edit of absent text"
	want=$(echo x | "$CLAWSSH" write -s "$id" out 2>&1 >/dev/null)
	expect_eq "\"clawssh: $(answer 6 | tr -d '"')\"" "\"$want\"" \
	    "write through a link out"
	expect_eq "$(cat "$T/outside12")" sentinel "the file outside"
	expect_eq "$(cat "$W12/e.txt")" whole "replaced"
	expect_eq "$(stat -c %a "$W12/e.txt")" 640 "the mode kept"
	# apply-patch: every file or none, the CLI's lines and errors
	good='--- a/e.txt\n+++ b/e.txt\n@@ -1 +1 @@\n-whole\n+patched\n--- /dev/null\n+++ b/added.txt\n@@ -0,0 +1 @@\n+added\n'
	bad='--- a/e.txt\n+++ b/e.txt\n@@ -1 +1 @@\n-patched\n+again\n--- a/n/e/w.txt\n+++ b/n/e/w.txt\n@@ -1 +1 @@\n-nope\n+x\n'
	n0=$(local_fs)
	rpc "$(fs 8 applyPatch ",\"patch\":\"$good\"")" \
	    "$(fs 9 applyPatch ",\"patch\":\"$bad\"")" \
	    "$(fs 10 applyPatch ',"patch":"not a patch"')"
	expect_eq "$(( $(local_fs) - n0 ))" 3 "patches in the daemon"
	expect_eq "$(answer 8)" '{"text":"M e.txt\nA added.txt\n"}' "patch"
	expect_eq "$(cat "$W12/e.txt")$(cat "$W12/added.txt")" patchedadded \
	    "patched"
	expect_eq "$(stat -c %a "$W12/e.txt")" 640 "patch keeps the mode"
	want=$(printf '%b' "$bad" | "$CLAWSSH" apply-patch -s "$id" 2>&1 \
	    >/dev/null)
	expect_eq "\"clawssh: $(answer 9 | tr -d '"')\"" "\"$want\"" \
	    "a hunk that does not match"
	expect_eq "$(cat "$W12/e.txt")" patched "nothing changed"
	want=$(echo "not a patch" | "$CLAWSSH" apply-patch -s "$id" 2>&1 \
	    >/dev/null)
	expect_eq "\"clawssh: $(answer 10 | tr -d '"')\"" "\"$want\"" \
	    "not a patch"
	# push: the worker sends it up at once
	w0=$(workers write)
	rpc "$(fs 1 write ',"path":"p.txt","content":"up\n","push":true')"
	expect_eq "$(answer 1)" '{"text":""}' "write with push"
	[ "$(workers write)" -gt "$w0" ] || lib_case_fail "push: no worker"
	expect_eq "$(cat "$R/$id/workspace/p.txt")" up "pushed"
	# a read-only workspace: the worker refuses, as the CLI does
	mkdir -p "$T/ws-twelve-ro"
	id=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key \
	    twelve-ro --remote-root "$R" --workspace "$T/ws-twelve-ro" \
	    --mode mirror --runtime bwrap --access ro) ||
	    lib_case_fail "provision ro"
	rpc "$(ex 1 ',"argv":["true"]')"
	learnt
	echo keep > "$T/ws-twelve-ro/k.txt"
	rpc "$(fs 2 write ',"path":"k.txt","content":"no\n"')" \
	    "$(fs 3 read ',"path":"k.txt"')"
	expect_match "$(answer 2)" "read-only workspace" "ro: write refused"
	expect_eq "$(answer 3)" '{"content":"keep\n"}' "ro: read"
	expect_eq "$(cat "$T/ws-twelve-ro/k.txt")" keep "ro: unchanged"
}

# steps: how many file tool steps the daemon has sent itself so far.
steps() {
	grep -c "in the daemon, a step in the sandbox's environment" \
	    "$T/daemon.log"
}

# own_reads: how many of them were the agent's own fs-read.
own_reads() {
	grep -c "a step in the sandbox's environment (the agent's own" \
	    "$T/daemon.log" || :
}

# fs_batch TOOL FIRST PATH...: request lines FIRST, FIRST+1... of fs.TOOL
# for each PATH.
fs_batch() {
	_t=$1
	_n=$2
	shift 2
	for _p; do
		fs "$_n" "$_t" ",\"path\":\"$_p\""
		echo
		_n=$((_n + 1))
	done
}

# fs_agree TOOL FIRST PATH...: answers FIRST... are what `clawssh TOOL`
# says of each PATH (read: the content; stat, ls: --json, ls as
# entries), or its error.
fs_agree() {
	_t=$1
	_n=$2
	shift 2
	for _p; do
		_j=--json
		[ "$_t" = read ] && _j=
		# shellcheck disable=SC2086 # _j: one word or none
		if want=$("$CLAWSSH" "$_t" -s "$id" $_j "$_p" 2>"$T/err13")
		then
			case $_t in
			read) got=$(jq -r "select(.id == $_n) | .result.content" \
			    "$T/out") ;;
			ls) got=$(answer "$_n") want="{\"entries\":$want}" ;;
			*) got=$(answer "$_n") ;;
			esac
			expect_eq "$got" "$want" "$_t $_p"
		else
			expect_eq "\"clawssh: $(answer "$_n" | tr -d '"')\"" \
			    "\"$(cat "$T/err13")\"" "$_t error for $_p"
		fi
		_n=$((_n + 1))
	done
}

# The paths of hostile_reads to read and stat, and to list.
HOSTILE="dang dl/in chain etc/passwd self/a.txt abs_in empty mode a.txt/x dl"
LISTED="dl self etc dang a.txt d/e"

# hostile_reads DIR: more paths for fs-read against the shell step: a
# dangling link, links to a directory and through it, a chain, a link
# out through a directory, a file taken for a directory, a link to the
# workspace itself, an absolute link back in, an empty file, a setuid
# mode.
hostile_reads() {
	ln -s nowhere "$1/dang"
	ln -s d "$1/dl"
	ln -s dl/in "$1/chain"
	ln -s /etc "$1/etc"
	ln -s . "$1/self"
	ln -s "$(cd "$1" && pwd -P)/a.txt" "$1/abs_in"
	: > "$1/empty"
	printf 'x\n' > "$1/mode"
	chmod 4750 "$1/mode"
}

case_13() {
	warm thirteen
	RW13="$R/$id/workspace"
	fs_tree "$RW13"
	own13() {	# what root made here, the workspace owner's
		chown -hR --reference="$RW13" "$RW13"
	}
	own13
	w0=$(workers read)$(workers stat)$(workers ls)
	n0=$(steps)
	fs_reads "$(fs 12 read ',"path":"d"')"
	expect_eq "$(( $(steps) - n0 ))" 12 "steps sent by the daemon"
	expect_eq "$(workers read)$(workers stat)$(workers ls)" "$w0" \
	    "workers started for them"
	fs_check "$RW13"
	want=$("$CLAWSSH" read -s "$id" d 2>&1 >/dev/null)
	expect_eq "\"clawssh: $(answer 12 | tr -d '"')\"" "\"$want\"" \
	    "error for d"
	# the agent's own fs-read, fs-stat and fs-ls answer as the shell
	# steps do (the CLI's read, stat and ls run the shell steps)
	hostile_reads "$RW13"
	own13
	o0=$(own_reads)
	# shellcheck disable=SC2086 # words: paths without blanks
	rpc "$(fs_batch read 1 $HOSTILE)"
	expect_eq "$(( $(own_reads) - o0 ))" 10 "the agent's own reads"
	# shellcheck disable=SC2086
	fs_agree read 1 $HOSTILE
	o0=$(own_reads)
	# shellcheck disable=SC2086
	rpc "$(fs_batch stat 1 $HOSTILE)" "$(fs_batch ls 11 $LISTED)"
	expect_eq "$(( $(own_reads) - o0 ))" 16 "the agent's own stat and ls"
	# shellcheck disable=SC2086
	fs_agree stat 1 $HOSTILE
	# shellcheck disable=SC2086
	fs_agree ls 11 $LISTED
	# fs.write: one step too; parents made, binary, the mode kept, a
	# link out refused as the CLI refuses it
	chmod 640 "$RW13/a.txt"
	echo sentinel > "$T/outside13"
	ln -s "$T/outside13" "$RW13/out13"
	own13
	n0=$(steps)
	w0=$(workers write)
	rpc "$(fs 1 write ',"path":"n/e/w.txt","content":"new\n"')" \
	    "$(fs 2 write ',"path":"b.bin","content_base64":"AAEC/w=="')" \
	    "$(fs 3 write ',"path":"a.txt","content":"whole\n"')" \
	    "$(fs 4 write ',"path":"out13","content":"pwned\n"')"
	expect_eq "$(( $(steps) - n0 ))" 4 "write steps sent by the daemon"
	expect_eq "$(workers write)" "$w0" "workers started for writes"
	expect_eq "$(answer 1)" '{"text":""}' "write"
	expect_eq "$(cat "$RW13/n/e/w.txt")" new "written with parents"
	expect_eq "$(od -An -tx1 "$RW13/b.bin" | tr -d ' ')" 000102ff "binary"
	expect_eq "$(cat "$RW13/a.txt")" whole "replaced"
	expect_eq "$(stat -c %a "$RW13/a.txt")" 640 "the mode kept"
	want=$(echo x | "$CLAWSSH" write -s "$id" out13 2>&1 >/dev/null)
	expect_eq "\"clawssh: $(answer 4 | tr -d '"')\"" "\"$want\"" \
	    "write through a link out"
	expect_eq "$(cat "$T/outside13")" sentinel "the file outside"
	# fs.edit: a read step, then a write step; the mode kept; absent text
	# and a link out refused as the CLI refuses them, nothing written
	printf 'a b a\n' > "$RW13/e.txt"
	chmod 640 "$RW13/e.txt"
	own13
	n0=$(steps)
	w0=$(workers edit)
	rpc "$(fs 1 edit ',"path":"e.txt","old":"a","new":"X","all":true')" \
	    "$(fs 2 edit ',"path":"e.txt","old":"b","new":"Y"')" \
	    "$(fs 3 edit ',"path":"e.txt","old":"zz","new":"Y"')" \
	    "$(fs 4 edit ',"path":"out13","old":"s","new":"p"')"
	expect_eq "$(( $(steps) - n0 ))" 6 "edit steps sent by the daemon"
	expect_eq "$(workers edit)" "$w0" "workers started for edits"
	expect_eq "$(answer 1)" '{"text":"2 replacements\n"}' "edit --all"
	expect_eq "$(answer 2)" '{"text":"1 replacement\n"}' "edit"
	expect_eq "$(cat "$RW13/e.txt")" "X Y X" "edited"
	expect_eq "$(stat -c %a "$RW13/e.txt")" 640 "the mode kept by edit"
	want=$("$CLAWSSH" edit -s "$id" e.txt --old zz --new Y 2>&1 >/dev/null)
	expect_eq "\"clawssh: $(answer 3 | tr -d '"')\"" "\"$want\"" \
	    "edit of absent text"
	want=$("$CLAWSSH" edit -s "$id" out13 --old s --new p 2>&1 >/dev/null)
	expect_eq "\"clawssh: $(answer 4 | tr -d '"')\"" "\"$want\"" \
	    "edit through a link out"
	expect_eq "$(cat "$T/outside13")" sentinel "the file outside, edit"
	expect_eq "$(cat "$RW13/e.txt")" "X Y X" "nothing written by refusals"
	# fs.applyPatch: a read step a file, then one commit: an update
	# (mode kept), an addition, a deletion; a hunk that does not match,
	# a missing file and a link out change nothing and say what the CLI
	# says
	printf 'gone\n' > "$RW13/gone.txt"
	own13
	good='--- a/e.txt\n+++ b/e.txt\n@@ -1 +1 @@\n-X Y X\n+patched\n--- /dev/null\n+++ b/added.txt\n@@ -0,0 +1 @@\n+added\n--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-gone\n'
	bad='--- a/e.txt\n+++ b/e.txt\n@@ -1 +1 @@\n-patched\n+again\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-nope\n+x\n'
	missing='--- a/e.txt\n+++ b/e.txt\n@@ -1 +1 @@\n-patched\n+again\n--- a/none.txt\n+++ b/none.txt\n@@ -1 +1 @@\n-a\n+b\n'
	out='--- a/out13\n+++ b/out13\n@@ -1 +1 @@\n-sentinel\n+pwned\n'
	n0=$(steps)
	w0=$(workers apply-patch)
	rpc "$(fs 1 applyPatch ",\"patch\":\"$good\"")" \
	    "$(fs 2 applyPatch ",\"patch\":\"$bad\"")" \
	    "$(fs 3 applyPatch ",\"patch\":\"$missing\"")" \
	    "$(fs 4 applyPatch ",\"patch\":\"$out\"")"
	# 1: two reads and a commit; 2: two reads; 3 and 4: a read each
	# that fails (3 stops at none.txt)
	expect_eq "$(( $(steps) - n0 ))" 8 "patch steps sent by the daemon"
	expect_eq "$(workers apply-patch)" "$w0" "workers started for patches"
	expect_eq "$(answer 1)" '{"text":"M e.txt\nA added.txt\nD gone.txt\n"}' \
	    "patch"
	expect_eq "$(cat "$RW13/e.txt")$(cat "$RW13/added.txt")" \
	    patchedadded "patched"
	[ -e "$RW13/gone.txt" ] && lib_case_fail "patch: gone.txt is still there"
	expect_eq "$(stat -c %a "$RW13/e.txt")" 640 "patch keeps the mode"
	for n in 2 3 4; do
		case $n in 2) p=$bad ;; 3) p=$missing ;; 4) p=$out ;; esac
		want=$(printf '%b' "$p" | "$CLAWSSH" apply-patch -s "$id" \
		    2>&1 >/dev/null)
		expect_eq "\"clawssh: $(answer "$n" | tr -d '"')\"" \
		    "\"$want\"" "patch $n refused as the CLI refuses it"
	done
	expect_eq "$(cat "$RW13/e.txt")" patched "nothing changed by refusals"
	expect_eq "$(cat "$T/outside13")" sentinel "the file outside, patch"
	printf 'one\ntwo\nthree\n' > "$RW13/a.txt"
	own13
	# stopped: the agent refuses, a worker reads (and starts nothing)
	"$CLAWSSH" stop "$id" > /dev/null || lib_case_fail "stop"
	w0=$(workers read)
	rpc "$(fs 1 read ',"path":"a.txt"')"
	expect_eq "$(answer 1)" '{"content":"one\ntwo\nthree\n"}' \
	    "read, stopped"
	[ "$(workers read)" -gt "$w0" ] || lib_case_fail "stopped: no worker"
}

# preq ID METHOD PARAMS: a process request line for $id.
preq() {
	printf '{"jsonrpc":"2.0","id":%s,"method":"%s","params":{"sandbox":"%s"%s}}' \
	    "$1" "$2" "$id" "$3"
}

# procs: how many process calls the daemon has made itself so far.
procs() {
	grep -c "in the daemon, the host agent's" "$T/daemon.log"
}

case_14() {
	warm fourteen
	rpc "$(preq 1 process.start \
	    ',"argv":["sh","-c","echo one; read x; echo got $x; exit 5"]')"
	h=$(jq -r 'select(.id == 1) | .result.handle' "$T/out")
	expect_match "$h" '^p[0-9a-f]\{8\}$' "started"
	w0=$(workers process)
	n0=$(procs)
	sleep 0.5
	rpc "$(preq 2 process.poll ",\"handle\":\"$h\"")" \
	    "$(preq 3 process.write ",\"handle\":\"$h\",\"data\":\"yo\\n\",\"eof\":true")" \
	    "$(preq 4 process.wait ",\"handle\":\"$h\",\"timeout\":20")" \
	    "$(preq 5 process.poll ",\"handle\":\"$h\"")" \
	    "$(preq 6 process.log ",\"handle\":\"$h\",\"tail\":1")" \
	    "$(preq 7 process.list '')" \
	    "$(preq 8 process.kill ",\"handle\":\"$h\"")" \
	    "$(preq 9 process.poll ',"handle":"p00000000"')"
	expect_eq "$(( $(procs) - n0 ))" 8 "process calls made by the daemon"
	expect_eq "$(workers process)" "$w0" "workers for them"
	expect_eq "$(jq -r 'select(.id == 2) | .result.output' "$T/out")" \
	    one "first poll"
	expect_eq "$(answer 3)" '{"text":""}' "write"
	expect_eq "$(jq -c 'select(.id == 4) | .result | [.state,
	    .exit_status]' "$T/out")" '["exited",5]' "wait"
	expect_eq "$(jq -r 'select(.id == 5) | .result.output' "$T/out")" \
	    "got yo" "second poll: the rest"
	expect_eq "$(answer 6)" "$("$CLAWSSH" process log -s "$id" --json \
	    --tail 1 "$h")" "log as the CLI prints it"
	expect_eq "$(answer 7)" "$("$CLAWSSH" process list -s "$id" --json |
	    jq -c '{processes: .}')" "list as the CLI prints it"
	expect_eq "$(answer 8)" '{"text":""}' "kill of an ended one"
	want=$("$CLAWSSH" process poll -s "$id" p00000000 2>&1 >/dev/null)
	expect_eq "\"clawssh: $(answer 9 | tr -d '"')\"" "\"$want\"" \
	    "an unknown handle refused as the CLI refuses it"
	# a cancelled wait: no answer, and its step gone from the host
	h2=$("$CLAWSSH" process start -s "$id" -- sleep 60) ||
	    lib_case_fail "start sleep"
	rpc "&$(preq 10 process.wait ",\"handle\":\"$h2\"")" 'sleep 1' \
	    '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":10}}' \
	    'sleep 0.2'
	expect_eq "$(answer 10)" "" "a cancelled wait answered"
	pgrep -f "proc-wait $R/$id $h2" > /dev/null ||
	    lib_case_fail "the wait's step was not on the host"
	_i=0
	while pgrep -f "proc-wait $R/$id $h2" > /dev/null && [ $_i -lt 80 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	pgrep -f "proc-wait $R/$id $h2" > /dev/null &&
	    lib_case_fail "the cancelled wait's step still runs"
	# a signal by number, in the daemon too
	n0=$(procs)
	rpc "$(preq 12 process.kill ",\"handle\":\"$h2\",\"signal\":9")" \
	    "$(preq 13 process.wait ",\"handle\":\"$h2\",\"timeout\":10")"
	expect_eq "$(answer 12)" '{"text":""}' "kill by number"
	expect_eq "$(jq -c 'select(.id == 13) | .result | [.state,
	    .exit_status]' "$T/out")" '["killed",137]' "killed by number"
	expect_eq "$(( $(procs) - n0 ))" 2 "kill by number in the daemon"
	# the route's agent gone from the host (a copy of it that the kept
	# answer names, removed once the route is learnt): the daemon makes
	# the call through the sh script instead
	kept=$(grep -l " clawssh-agent-ok /" "$CLAWSSH_STATE_DIR"/agents/*) ||
	    lib_case_fail "no kept answer about the host agent"
	cp "$(sed -n 's|^[^ ]* clawssh-agent-ok ||p' "$kept")" "$T/agent14"
	cp "$kept" "$T/kept14"
	sed -i "s| clawssh-agent-ok /.*| clawssh-agent-ok $T/agent14|" "$kept"
	warm fourteen-b
	grep -q "route through $T/agent14" "$T/daemon.log" ||
	    lib_case_fail "the route does not take the copy"
	h3=$("$CLAWSSH" process start -s "$id" -- echo three) ||
	    lib_case_fail "start three"
	rm -f "$T/agent14"
	sleep 0.5
	rpc "$(preq 11 process.poll ",\"handle\":\"$h3\"")"
	expect_eq "$(jq -r 'select(.id == 11) | .result.output' "$T/out")" \
	    three "poll with the agent gone"
	grep -q "agent14 is not there any more: the sh script instead" \
	    "$T/daemon.log" || lib_case_fail "no fallback said"
	cp "$T/kept14" "$kept"		# the real agent for later cases
}

case_15() {
	warm fifteen
	w0=$(workers process)
	n0=$(procs)
	nap="61.$$"	# its own, apart from any other test's
	rpc "$(preq 1 process.start ',"argv":["sh","-c","echo $SECRET_X-$CFG; echo bg > /tmp/from-bg; umask; exec sleep '"$nap"'"],"env":{"SECRET_X":"s3cr3t"},"name":"srv","log_max":4096')"
	h=$(jq -r 'select(.id == 1) | .result.handle' "$T/out")
	expect_match "$h" '^p[0-9a-f]\{8\}$' "started in the daemon"
	expect_eq "$(( $(procs) - n0 ))" 1 "the start made by the daemon"
	expect_eq "$(workers process)" "$w0" "no worker for the start"
	sleep 0.5
	# the process runs in the sandbox's running environment: its /tmp
	# and its processes are what a later exec sees
	rpc "$(ex 2 ',"argv":["cat","/tmp/from-bg"]')" \
	    "$(ex 3 ',"argv":["sh","-c","ps -e -o args | grep -c \"^sleep '"$nap"'\""]')" \
	    "$(preq 4 process.poll ",\"handle\":\"$h\"")" \
	    "$(preq 5 process.list '')"
	expect_eq "$(stream 2 stdout)" bg "a later exec reads its /tmp file"
	expect_eq "$(stream 3 stdout)" 1 "a later exec sees it in ps"
	pout=$(jq -r 'select(.id == 4) | .result.output' "$T/out")
	expect_eq "$(printf '%s\n' "$pout" | sed -n 1p)" "s3cr3t-one" \
	    "the call's env and the config's"
	expect_eq "$(jq -r "select(.id == 5) | .result.processes[] |
	    select(.handle == \"$h\") | [.name, .command] | join(\"|\")" \
	    "$T/out")" "srv|sh -c 'echo \$SECRET_X-\$CFG; echo bg > /tmp/from-bg; umask; exec sleep $nap'" \
	    "its name and the user's words, not the wrapper"
	expect_eq "$(cat "$R/$id/procs/$h/max")" 4096 "its log cap"
	grep -r --exclude="log.*" s3cr3t "$R" > /dev/null 2>&1 &&
	    lib_case_fail "the env value on the host's disk"
	pgrep -af s3cr3t > /dev/null && lib_case_fail "the env value in an argv"
	# as a worker's start: the same umask as an exec's
	rpc "$(ex 6 ',"argv":["sh","-c","umask"]')"
	expect_eq "$(printf '%s\n' "$pout" | sed -n 2p)" "$(stream 6 stdout)" \
	    "the umask an exec has"
	rpc "$(preq 7 process.kill ",\"handle\":\"$h\"")"
	expect_eq "$(answer 7)" '{"text":""}' "kill"
	pgrep -f "^sleep $nap" > /dev/null && lib_case_fail "killed, still runs"
	# stopped: the check fails, a worker starts the environment and the
	# process, and says so
	"$CLAWSSH" stop "$id" > /dev/null 2>&1 || lib_case_fail "stop"
	w0=$(workers process)
	rpc "$(preq 8 process.start ',"argv":["sh","-c","echo after-stop"]')"
	h2=$(jq -r 'select(.id == 8) | .result.handle' "$T/out")
	expect_match "$h2" '^p[0-9a-f]\{8\}$' "started after stop"
	expect_eq "$(( $(workers process) - w0 ))" 1 "a worker after stop"
	grep -q "no sandbox environment to join; through a worker" \
	    "$T/daemon.log" || lib_case_fail "the fallback not said"
	sleep 0.5
	expect_eq "$("$CLAWSSH" process poll -s "$id" "$h2" 2>/dev/null)" \
	    after-stop "the worker's process ran"
	# a terminal: in the daemon too; what process.write sends is typed
	# on it
	w0=$(workers process)
	n0=$(procs)
	rpc "$(preq 9 process.start ',"argv":["sh","-c","[ -t 0 ] && [ -t 1 ] && echo on-a-terminal; tty; read -r n; echo hello-$n; exit 3"],"pty":true')"
	h9=$(jq -r 'select(.id == 9) | .result.handle' "$T/out")
	expect_match "$h9" '^p[0-9a-f]\{8\}$' "a terminal's start"
	expect_eq "$(( $(procs) - n0 ))" 1 "the terminal's start in the daemon"
	rpc "$(preq 10 process.write ",\"handle\":\"$h9\",\"data\":\"claw\\n\"")" \
	    "$(preq 11 process.wait ",\"handle\":\"$h9\",\"timeout\":20")" \
	    "$(preq 12 process.log ",\"handle\":\"$h9\"")"
	expect_eq "$(jq -r 'select(.id == 11) | .result.exit_status' "$T/out")" 3 \
	    "the terminal's process's status"
	tlog=$(jq -r 'select(.id == 12) | .result.output' "$T/out" | tr -d '\r')
	expect_match "$tlog" "^on-a-terminal" "stdin and stdout are a terminal"
	expect_match "$tlog" "^/dev/pts/[0-9]" "tty names a pty"
	expect_match "$tlog" "^hello-claw" "the input reached it"
	# a mirror sandbox (it pushes first): a worker
	n0=$(procs)
	warm fifteen-m mirror
	rpc "$(preq 13 process.start ',"argv":["true"]')"
	expect_eq "$(( $(workers process) - w0 ))" 1 "mirror: a worker"
	expect_eq "$(procs)" "$n0" "not in the daemon"
}

# Long words (an agent's heredoc, a python -c script) reach the command
# intact on every path: over 32 KiB a command's words travel on stdin,
# not in the SSH exec request (libssh2 sends at most 40000 bytes a
# packet), and the host agent's messages take up to 128 KiB a word.
case_16() {
	warm sixteen
	b50=$(head -c 50000 /dev/zero | tr '\0' x)
	b90=$(head -c 90000 /dev/zero | tr '\0' y)
	# shellcheck disable=SC2016 # expanded on the host
	size='echo ${#1}'
	rpc "$(ex 2 ",\"argv\":[\"sh\",\"-c\",\"$size\",\"sh\",\"$b90\"]")" \
	    "$(preq 3 process.start ",\"argv\":[\"sh\",\"-c\",\"$size\",\"sh\",\"$b90\"],\"env\":{\"K\":\"$b50\"}")" \
	    "$(ex 4 ",\"argv\":[\"sh\",\"-c\",\"$size\",\"sh\",\"$b90\"],\"pty\":true")"
	expect_eq "$(stream 2 stdout)" 90000 "exec in the daemon: a 90 KB word"
	h=$(jq -r 'select(.id == 3) | .result.handle' "$T/out")
	expect_match "$h" '^p[0-9a-f]\{8\}$' "process.start: a 90 KB word"
	# (the terminal also shows what sshd says, e.g. of a missing home)
	expect_eq "$(stream 4 stdout | tr -d '\r' | tail -n 1)" 90000 \
	    "on a terminal: a 90 KB word"
	rpc "$(preq 5 process.wait ",\"handle\":\"$h\",\"timeout\":20")" \
	    "$(preq 6 process.log ",\"handle\":\"$h\"")"
	expect_eq "$(jq -r 'select(.id == 6) | .result.output' "$T/out")" \
	    90000 "the started process's word"
	expect_eq "$("$CLAWSSH" --no-daemon exec -s "$id" -- sh -c "$size" sh \
	    "$b50")" 50000 "exec without the daemon: a 50 KB word"
	h=$("$CLAWSSH" --no-daemon process start -s "$id" -- sh -c "$size" sh \
	    "$b90") || lib_case_fail "process start"
	"$CLAWSSH" process wait -s "$id" --timeout 20 "$h" > /dev/null 2>&1
	expect_eq "$("$CLAWSSH" process log -s "$id" "$h")" 90000 \
	    "process start without the daemon: a 90 KB word"
	expect_eq "$(CLAWSSH_NO_AGENT=1 "$CLAWSSH" --no-daemon exec -s "$id" \
	    -- sh -c "$size" sh "$b90")" 90000 \
	    "a sandbox of its own (no agent): a 90 KB word"
}

# sandbox.stop made by the daemon: clawssh stop's script on its own
# session, the same answer as `clawssh stop --json`; the sandbox's
# background processes and environment end; the route stands, and the
# next exec starts the environment again.
case_17() {
	warm seventeen
	w0=$(workers stop)
	rpc "$(preq 2 process.start ',"argv":["sleep","3717.'$$'"]')" \
	    "$(ex 3 ',"argv":["sh","-c","echo before > /tmp/mark"]')"
	hp=$(cut -d' ' -f1 "$R/$id/run/box.pid")
	kill -0 "$hp" || lib_case_fail "no holder before stop"
	pgrep -f "^sleep 3717.$$" > /dev/null || lib_case_fail "no sleeper"
	rpc "$(preq 4 sandbox.stop '')" "$(preq 5 sandbox.stop '')"
	expect_eq "$(jq -c 'select(.id == 4) | .result' "$T/out")" \
	    "{\"id\":\"$id\",\"state\":\"stopped\"}" "stopped"
	expect_eq "$(jq -c 'select(.id == 5) | .result' "$T/out")" \
	    "{\"id\":\"$id\",\"state\":\"not running\"}" "again: not running"
	expect_eq "$(workers stop)" "$w0" "no worker for stop"
	grep -q "sandbox $id: in the daemon, clawssh stop's script" \
	    "$T/daemon.log" || lib_case_fail "not said in the daemon's log"
	_i=0
	while kill -0 "$hp" 2>/dev/null && [ $_i -lt 30 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	kill -0 "$hp" 2>/dev/null && lib_case_fail "the holder survived stop"
	pgrep -f "^sleep 3717.$$" > /dev/null &&
	    lib_case_fail "the background process survived stop"
	expect_eq "$("$CLAWSSH" stop --json "$id" | jq -c .)" \
	    "{\"id\":\"$id\",\"state\":\"not running\"}" "the CLI says the same"
	rpc "$(ex 6 ',"argv":["sh","-c","cat /tmp/mark 2>/dev/null; echo after"]')"
	expect_eq "$(stream 6 stdout)" after "a fresh environment after stop"
	[ -S "$R/$id/run/box.sock" ] || lib_case_fail "no environment after"
}

# A failure shows the end of the daemon's log (-vv).
LIB_CASE_LOG=$T/daemon.log
lib_run_cases "${RPC_ROUTE_CASES:-1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17}"
