#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The remote file tools against a hostile sandbox: its command (and what
# it leaves running) plants links and races the tools, which act on the
# host's copy of its workspace.  Outside sentinels ($T/outside: a file
# with its mode and content, a directory with a file) must be unchanged
# after every attack.
#
#   (a) links planted under the temporary names the tools used to pick
#       (.clawssh-tmp-PID-N, for the next few thousand pids) and in place
#       of a directory at depth three (a/b/c -> $T/outside), then write,
#       edit, apply-patch (add, update, delete) through them;
#   (b) a background process exchanging a directory and a link to
#       $T/outside (renameat2 RENAME_EXCHANGE, tests/helpers/swap_race,
#       bounded) while write runs 50 times beneath it;
#   (c) a FIFO in place of a file: read and write refuse it at once, and
#       reads of a file raced against a FIFO end within --timeout 3;
#   (d) the same with a --runtime none sandbox, which is uncontained: the
#       tools run as the SSH user on the host path there, so nothing is
#       asserted, only reported.
#
# On the code before the step jail (31e0c93, run as
#   CLAWSSH=/work/wt-fs-old/clawssh TESTLIB=$PWD/tests/integration/lib.sh \
#   SWAP_RACE=$PWD/tests/helpers/swap_race \
#   sh tests/integration/fs_hostile.sh)
# it fails first at "the tools wrote as root, not as the sandbox"; with
# FS_HOSTILE_ONLY naming one step at a time (a, b, c):
#   a: "(a) planted temporary names, write: the outside sentinels" (the
#      write follows .clawssh-tmp-PID-1 as root, overwrites
#      $T/outside/secret, then renames the link into place);
#   b: "(b) racing a/b/c against a link, 50 writes: the outside
#      sentinels" (a write lands in $T/outside);
#   c: "(c) fifo refused" ("--timeout" is unknown there, and a read raced
#      against a FIFO blocks with no bound).
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

: "${SWAP_RACE:=$(dirname "$TESTLIB")/../helpers/swap_race}"
[ -x "$SWAP_RACE" ] || { echo "no $SWAP_RACE" >&2; exit 77; }
command -v bwrap >/dev/null 2>&1 || { echo "no bwrap" >&2; exit 77; }

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
O="$T/outside"

# sentinels: (re)make the outside file and directory.
sentinels() {
	rm -rf "$O"
	mkdir -p "$O/dir"
	echo CANARY7f3a > "$O/secret"
	chmod 640 "$O/secret"
	echo INNER > "$O/dir/inner"
	chmod 750 "$O/dir"
	SNAP=$(snap)
}

# snap: everything about $T/outside that an attack could change.
snap() {
	find "$O" -printf '%p %y %m %s %T@ %l\n' | LC_ALL=C sort
	cat "$O/secret" "$O/dir/inner" 2>&1
}

# outside_same WHAT: the sentinels are as sentinels left them.
outside_same() {
	expect_eq "$(snap)" "$SNAP" "$1: the outside sentinels"
}

# outside_report WHAT: say (for runtime none) whether they changed.
outside_report() {
	if [ "$(snap)" = "$SNAP" ]; then
		echo "note: runtime none, $1: outside unchanged (by chance)"
	else
		echo "note: runtime none, $1: outside CHANGED (uncontained)"
	fi
	sentinels
}

# provision KEY WORKSPACE [RUNTIME]: print the new remote sandbox's id.
provision() {
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$1" \
	    --mode remote --remote-root "$R" --workspace "$2" \
	    ${3:+--runtime "$3"}
}

# inbox ID SCRIPT: run SCRIPT in the sandbox, as its command would.
inbox() {
	"$CLAWSSH" exec -s "$1" -- sh -c "$2"
}

# patch ID: apply-patch with stdin.
patch() {
	"$CLAWSSH" apply-patch -s "$1"
}

# check WHAT CONTAINED: assert (contained) or report (runtime none).
check() {
	if [ "$2" = 1 ]; then
		outside_same "$1"
	else
		outside_report "$1"
	fi
}

# plant_tmp DIR: links to the secret under the old temporary names of
# the next 3000 pids (perl plants them without using up pids; the ln loop
# uses one each, so it plants past its own), and under a new-form name.
plant_tmp() {
	ln -s "$O/secret" "$1/.clawssh-tmp-00000000000000000000000000000000-1"
	pm=$(cat /proc/sys/kernel/pid_max 2>/dev/null || echo 32768)
	base=$(sh -c 'echo $$')
	if command -v perl >/dev/null 2>&1; then
		perl -e 'my ($d, $t, $b, $m) = @ARGV; for my $i (0 .. 2999) {
		    my $p = ($b + $i) % $m; $p += 300 if $p < 300;
		    symlink($t, "$d/.clawssh-tmp-$p-1"); }' \
		    "$1" "$O/secret" "$base" "$pm"
		return
	fi
	i=0
	while [ $i -lt 3000 ]; do
		p=$(((base + 3000 + i) % pm))
		[ $p -ge 300 ] || p=$((p + 300))
		ln -s "$O/secret" "$1/.clawssh-tmp-$p-1" 2>/dev/null
		i=$((i + 1))
	done
}

# attack_a ID WS CONTAINED: planted temporary names and a deep link.
attack_a() {
	id=$1 ws=$2
	plant_tmp "$ws"
	echo one | "$CLAWSSH" write -s "$id" f.txt ||
	    fail "(a) write beside planted names"
	check "(a) planted temporary names, write" "$3"
	[ -L "$ws/f.txt" ] && fail "(a) a planted link was renamed into place"
	expect_eq "$(cat "$ws/f.txt")" "one" "(a) the write's content"
	"$CLAWSSH" edit -s "$id" f.txt --old one --new two >/dev/null ||
	    fail "(a) edit beside planted names"
	printf -- '--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-two\n+three\n' |
	    patch "$id" >/dev/null || fail "(a) apply-patch beside planted names"
	check "(a) planted temporary names" "$3"
	find "$ws" -maxdepth 1 -name '.clawssh-tmp-*' -type f | grep -q . &&
	    fail "(a) a temporary file was left behind"
	find "$ws" -maxdepth 1 -name '.clawssh-tmp-*' -type l -delete

	inbox "$id" "mkdir -p a/b && ln -s '$O' a/b/c" || fail "(a) plant a/b/c"
	echo pwned | "$CLAWSSH" write -s "$id" a/b/c/secret 2>/dev/null &&
	    [ "$3" = 1 ] && fail "(a) write through a/b/c succeeded"
	echo pwned | "$CLAWSSH" write -s "$id" a/b/c/new 2>/dev/null &&
	    [ "$3" = 1 ] && fail "(a) write of a new file through a/b/c"
	"$CLAWSSH" edit -s "$id" a/b/c/secret --old CANARY7f3a --new pwned \
	    >/dev/null 2>&1 && [ "$3" = 1 ] && fail "(a) edit through a/b/c"
	printf -- '--- a/a/b/c/secret\n+++ /dev/null\n@@ -1 +0,0 @@\n'\
'-CANARY7f3a\n' | patch "$id" >/dev/null 2>&1 &&
	    [ "$3" = 1 ] && fail "(a) apply-patch delete through a/b/c"
	printf '*** Begin Patch\n*** Add File: a/b/c/added\n+pwned\n'\
'*** Delete File: a/b/c/dir/inner\n*** End Patch\n' |
	    patch "$id" >/dev/null 2>&1 &&
	    [ "$3" = 1 ] && fail "(a) apply-patch add and delete through a/b/c"
	check "(a) a/b/c -> outside" "$3"
	rm -f "$ws/a/b/c"
}

# swapping PATH WHAT: PATH is seen both as a link and as something else
# within 10 s (the swapper runs).
swapping() {
	seen=
	k=0
	while [ $k -lt 1000 ] && [ "$seen" != "ol" ]; do
		if [ -L "$1" ]; then
			case $seen in *l*) ;; *) seen=${seen}l ;; esac
		elif [ -e "$1" ]; then
			case $seen in *o*) ;; *) seen=o${seen} ;; esac
		fi
		k=$((k + 1))
		[ $((k % 50)) -ne 0 ] || sleep 0.5
	done
	expect_eq "$seen" "ol" "$2 the swapper runs"
}

# attack_b ID WS CONTAINED N: N writes while a/b/c swaps with a link.
attack_b() {
	id=$1 ws=$2
	{ cp "$SWAP_RACE" "$ws/.swap" && chmod 755 "$ws/.swap"; } ||
	    fail "(b) copy the swapper"
	inbox "$id" "mkdir -p r/a/b/c && ln -s '$O' r/a/b/x && rm -f r/STOP" ||
	    fail "(b) set up the race"
	"$CLAWSSH" exec -s "$id" --background -- \
	    ./.swap r/a/b/c r/a/b/x 50000000 r/STOP >/dev/null ||
	    fail "(b) start the swapper"
	swapping "$ws/r/a/b/c" "(b)"
	k=0
	while [ $k -lt "$4" ]; do
		echo "pwned $k" | "$CLAWSSH" write -s "$id" r/a/b/c/secret \
		    2>/dev/null
		echo "pwned $k" | "$CLAWSSH" write -s "$id" r/a/b/c/dir/inner \
		    2>/dev/null
		k=$((k + 1))
	done
	: > "$ws/r/STOP"
	sleep 1
	check "(b) racing a/b/c against a link, $4 writes" "$3"
}

# attack_c ID WS: FIFOs in place of files, and raced against one.
attack_c() {
	id=$1 ws=$2
	{ mkfifo "$ws/fifo" && ln -s fifo "$ws/flink"; } || fail "(c) mkfifo"
	for p in fifo flink; do
		s0=$(date +%s)
		out=$(timeout -s KILL 30 "$CLAWSSH" read -s "$id" --timeout 3 \
		    "$p" 2>&1)
		expect_status $? 255 "(c) read of a FIFO ($p)"
		expect_match "$out" "not a regular file" "(c) $p refused"
		[ $(($(date +%s) - s0)) -lt 15 ] || fail "(c) read of $p slow"
		out=$(echo x | timeout -s KILL 30 "$CLAWSSH" write -s "$id" \
		    --timeout 3 "$p" 2>&1)
		expect_status $? 255 "(c) write to a FIFO ($p)"
		expect_match "$out" "not a regular file" "(c) write $p refused"
	done
	echo REGULAR > "$ws/reg"
	"$CLAWSSH" exec -s "$id" --background -- \
	    ./.swap reg flink 50000000 STOPF >/dev/null ||
	    fail "(c) start the swapper"
	swapping "$ws/reg" "(c)"
	k=0
	while [ $k -lt 20 ]; do
		out=$(timeout -s KILL 30 "$CLAWSSH" read -s "$id" --timeout 3 \
		    reg 2>&1)
		st=$?
		[ $st -eq 137 ] && fail "(c) a raced read hung"
		if [ $st -eq 0 ]; then
			expect_eq "$out" "REGULAR" "(c) a raced read's content"
		else
			expect_match "$out" \
			    "not a regular file\|changed while\|timed out after 3 s" \
			    "(c) a raced read's error"
		fi
		k=$((k + 1))
	done
	: > "$ws/STOPF"
	sleep 1
}

sentinels

# The contained sandbox (runtime bwrap, the default).
W="$T/ws"
mkdir -p "$W"
id=$(provision fh "$W") || fail "provision"
RW="$R/$id/workspace"
echo base | "$CLAWSSH" write -s "$id" base.txt || fail "first write"
# FS_HOSTILE_ONLY (default: all) picks steps, to see each fail on old code.
steps=${FS_HOSTILE_ONLY:-owner a b c private none}
step() {
	case " $steps " in *" $1 "*) return 0 ;; esac
	return 1
}
if step owner; then
	owner=$(stat -c %u "$RW/base.txt")
	[ "$(id -u)" -ne 0 ] || [ "$owner" -ne 0 ] ||
	    fail "the tools wrote as root, not as the sandbox"
fi
step a && attack_a "$id" "$RW" 1
step b && attack_b "$id" "$RW" 1 50
if step c; then
	attack_c "$id" "$RW"
	out=$("$CLAWSSH" read -s "$id" --timeout x base.txt 2>&1)
	expect_status $? 255 "a bad --timeout"
	expect_eq "$("$CLAWSSH" read -s "$id" --timeout 0 base.txt)" "base" \
	    "--timeout 0: no deadline"
fi
if step private; then
	# access none: the tools work in private/, which its commands see.
	W3="$T/ws3"
	mkdir -p "$W3"
	pid=$("$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
	    --key fhp --mode remote --remote-root "$R" --workspace "$W3" \
	    --access none) || fail "provision access none"
	echo base | "$CLAWSSH" write -s "$pid" base.txt ||
	    fail "write (access none)"
	inbox "$pid" "cat base.txt" | grep -q base ||
	    fail "access none: the command does not see the tool's file"
	attack_a "$pid" "$R/$pid/private" 1
fi
step none || exit 0

# runtime none: uncontained, like its commands; reported, not asserted.
W2="$T/ws2"
mkdir -p "$W2"
nid=$(provision fhn "$W2" none) || fail "provision runtime none"
RW2="$R/$nid/workspace"
echo base | "$CLAWSSH" write -s "$nid" base.txt || fail "write (none)"
attack_a "$nid" "$RW2" 0
attack_b "$nid" "$RW2" 0 10
exit 0
