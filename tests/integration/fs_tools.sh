#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The file tools (read, write, edit, ls, stat) against a real sshd, in
# mirror mode (they act on the local copy) and remote mode (on the host's),
# with the confinement cases: links to /etc/passwd, "..", a symlinked
# parent swapped between calls, absolute paths, read-only workspaces.
. "$TESTLIB"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
mkdir -p "$T/outside"
echo CANARY7f3a > "$T/outside/secret"

# provision KEY MODE WORKSPACE [ACCESS]: print the new sandbox's id.
provision() {
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$1" \
	    --mode "$2" --remote-root "$R" --workspace "$3" \
	    ${4:+--access "$4"}
}

# tools ID DIR: every tool on sandbox ID whose canonical copy is DIR.
tools() {
	id=$1 d=$2
	c() { "$CLAWSSH" "$@"; }

	# write: new file with parents, content byte-exact (binary too).
	printf 'one\ntwo\nthree\n' | c write -s "$id" src/new/f.txt ||
	    fail "write"
	expect_eq "$(cat "$d/src/new/f.txt")" "one
two
three" "write content"
	head -c 3000 /dev/urandom > "$T/bin.in"
	c write -s "$id" /workspace/bin.dat < "$T/bin.in" || fail "write bin"
	cmp -s "$T/bin.in" "$d/bin.dat" || fail "binary write differs"
	c read -s "$id" bin.dat > "$T/bin.out" || fail "read bin"
	cmp -s "$T/bin.in" "$T/bin.out" || fail "binary read differs"

	# write keeps an existing file's mode.
	chmod 750 "$d/src/new/f.txt"
	printf 'one\ntwo\nthree\nfour\n' | c write -s "$id" src/new/f.txt
	expect_eq "$(stat -c %a "$d/src/new/f.txt")" "750" "mode kept"

	# read with byte and line ranges.
	expect_eq "$(c read -s "$id" src/new/f.txt --offset 4 --limit 3)" \
	    "two" "byte range"
	expect_eq "$(c read -s "$id" src/new/f.txt --lines --offset 2 \
	    --limit 1)" "three" "line range"
	out=$(c read -s "$id" src 2>&1)
	expect_status $? 255 "read of a directory"
	expect_match "$out" "is a directory" "read of a directory says so"
	out=$(c read -s "$id" nope.txt 2>&1)
	expect_status $? 255 "read of a missing file"
	expect_match "$out" "[Nn]o such file" "missing file says so"

	# edit: exact, unique, or --all; clear failures.
	out=$(c edit -s "$id" src/new/f.txt --old two --new TWO)
	expect_eq "$out" "1 replacement" "edit count"
	expect_eq "$(sed -n 2p "$d/src/new/f.txt")" "TWO" "edit applied"
	expect_eq "$(stat -c %a "$d/src/new/f.txt")" "750" "edit keeps mode"
	out=$(c edit -s "$id" src/new/f.txt --old absent --new x 2>&1)
	expect_status $? 255 "edit of absent text"
	expect_match "$out" "not found" "absent text named"
	printf 'a a a\n' | c write -s "$id" rep.txt
	out=$(c edit -s "$id" rep.txt --old a --new b 2>&1)
	expect_status $? 255 "ambiguous edit"
	expect_match "$out" "occurs 3 times" "ambiguous edit explained"
	expect_eq "$(cat "$d/rep.txt")" "a a a" "failed edit changed nothing"
	expect_eq "$(c edit -s "$id" rep.txt --old a --new b --all)" \
	    "3 replacements" "edit --all"
	expect_eq "$(cat "$d/rep.txt")" "b b b" "edit --all applied"

	# ls and stat.
	out=$(c ls -s "$id")
	expect_match "$out" "^d 0755 .* src/$" "ls shows the directory"
	expect_match "$out" " bin.dat$" "ls shows the file"
	c ls -s "$id" src --json | grep -q '"name":"new","type":"directory"' ||
	    fail "ls --json"
	out=$(c stat -s "$id" bin.dat)
	expect_match "$out" "^size: 3000$" "stat size"
	expect_match "$out" "^type: file$" "stat type"
	c stat -s "$id" src/new/f.txt --json | grep -q '"mode":"0750"' ||
	    fail "stat --json mode"

	# Links inside the workspace are followed.
	ln -s src/new "$d/inlink"
	expect_eq "$(c read -s "$id" inlink/f.txt | head -n 1)" "one" \
	    "link inside followed"

	# Confinement: links leading out, "..", absolute paths elsewhere.
	ln -s /etc/passwd "$d/passwd"
	ln -s "$T/outside" "$d/out"
	ln -s ../../.. "$d/src/up"
	for p in passwd out/secret src/up/etc/passwd ../outside/secret \
	    src/../../outside/secret /etc/passwd "$T/outside/secret"; do
		out=$(c read -s "$id" "$p" 2>&1) &&
		    fail "read $p escaped: $out"
		echo "$out" | grep -q "CANARY7f3a\|root:x" && fail "leak via $p"
		out=$(echo pwned | c write -s "$id" "$p" 2>&1) &&
		    fail "write $p escaped"
	done
	expect_eq "$(cat "$T/outside/secret")" "CANARY7f3a" "outside untouched"
	out=$(echo x | c write -s "$id" out/new 2>&1) &&
	    fail "write through an outside link"
	[ -e "$T/outside/new" ] && fail "file created outside"
	out=$(c ls -s "$id" out 2>&1) && fail "ls through an outside link"
	out=$(c stat -s "$id" passwd 2>&1) && fail "stat through a link"

	# A parent swapped for a symlink between two calls.
	mkdir -p "$d/swap"
	echo inside > "$d/swap/x"
	expect_eq "$(c read -s "$id" swap/x)" "inside" "before the swap"
	rm -rf "$d/swap"
	ln -s "$T/outside" "$d/swap"
	c read -s "$id" swap/secret > /dev/null 2>&1 &&
	    fail "read after the parent was swapped"
	echo pwned | c write -s "$id" swap/secret 2>/dev/null &&
	    fail "write after the parent was swapped"
	expect_eq "$(cat "$T/outside/secret")" "CANARY7f3a" "outside untouched"
	rm -f "$d/passwd" "$d/out" "$d/src/up" "$d/swap" "$d/inlink"
}

# Mirror mode: the tools act on the local copy; --push sends it up.
W="$T/ws"
mkdir -p "$W"
echo base > "$W/base.txt"
mid=$(provision fm mirror "$W") || fail "provision mirror"
tools "$mid" "$W"
RW="$R/$mid/workspace"
[ -e "$RW/rep.txt" ] && fail "mirror write went to the host without sync"
printf 'pushed\n' | "$CLAWSSH" write -s "$mid" --push p.txt ||
    fail "write --push"
expect_eq "$(cat "$RW/p.txt")" "pushed" "--push sent the file up"
out=$("$CLAWSSH" exec -s "$mid" -- cat rep.txt)
expect_eq "$out" "b b b" "the next exec sees the tools' changes"

# Remote mode: the tools act on the host's copy, not the local one.
W2="$T/ws2"
mkdir -p "$W2"
echo base > "$W2/base.txt"
rid=$(provision fr remote "$W2") || fail "provision remote"
RW2="$R/$rid/workspace"
tools "$rid" "$RW2"
[ -e "$W2/rep.txt" ] && fail "remote-mode write touched the local copy"
out=$(echo x | "$CLAWSSH" write -s "$rid" --push q.txt 2>&1)
expect_status $? 255 "--push in remote mode"

# Through the daemon, with the sandbox's environment running (an exec
# starts it), the tools run there as its steps (docs/agent.md), with the
# same results; stopped, they take their jails again.
if command -v bwrap >/dev/null 2>&1; then
	lib_start_daemon "$T/daemon.log"
	"$CLAWSSH" exec -s "$rid" -- true || fail "daemon: start the sandbox"
	tools "$rid" "$RW2"
	"$CLAWSSH" -vv stat -s "$rid" base.txt >/dev/null 2>"$T/err" ||
	    fail "daemon: stat: $(cat "$T/err")"
	expect_match "$(cat "$T/err")" "step in the sandbox's running env" \
	    "daemon: the tool joined the environment"
	"$CLAWSSH" stop "$rid" >/dev/null || fail "daemon: stop"
	expect_eq "$("$CLAWSSH" -vv read -s "$rid" base.txt 2>"$T/err")" \
	    base "daemon: read, stopped"
	case $(cat "$T/err") in
	*"step in the sandbox's running env"*)
		fail "daemon: stopped, yet joined" ;;
	esac
	kill "$DPID" && wait "$DPID" 2>/dev/null
fi

# A read-only workspace refuses writes and edits, allows reads.
W3="$T/ws3"
mkdir -p "$W3"
echo ro > "$W3/r.txt"
roid=$(provision fro remote "$W3" ro) || fail "provision ro"
expect_eq "$("$CLAWSSH" read -s "$roid" r.txt)" "ro" "read on ro"
out=$(echo x | "$CLAWSSH" write -s "$roid" r.txt 2>&1)
expect_status $? 255 "write on ro"
expect_match "$out" "read-only" "ro refusal explained"
out=$("$CLAWSSH" edit -s "$roid" r.txt --old ro --new rw 2>&1)
expect_status $? 255 "edit on ro"

# access none: the tools see the sandbox's private workspace, the one its
# commands see at /workspace, not the shared one.
W4="$T/ws4"
mkdir -p "$W4"
echo shared > "$W4/s.txt"
nid=$(provision fnone remote "$W4" none) || fail "provision none"
echo private | "$CLAWSSH" write -s "$nid" p.txt || fail "write (none)"
[ -e "$R/$nid/private/p.txt" ] || fail "none: not in the private workspace"
"$CLAWSSH" read -s "$nid" s.txt >/dev/null 2>&1 &&
    fail "none: the shared workspace is visible"
if command -v bwrap >/dev/null 2>&1; then
	expect_eq "$("$CLAWSSH" exec -s "$nid" -- cat p.txt)" "private" \
	    "none: commands and tools see the same files"
fi

# Bad input: no sandbox, unknown option, control characters.
out=$("$CLAWSSH" read x 2>&1)
expect_status $? 255 "read without -s"
out=$("$CLAWSSH" read -s "$rid" --old x y 2>&1)
expect_status $? 255 "option of another tool"
out=$("$CLAWSSH" read -s "$rid" "$(printf 'a\nb')" 2>&1)
expect_status $? 255 "control character in a path"
exit 0
