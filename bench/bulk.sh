#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# One big file up and down on loopback (issue 18's bulk floor), all from
# one run, each variant RUNS times in turns:
#   up    clawssh sync push ID FILE (a mirror sandbox, through the
#         daemon; the file's content changed before each run)
#         vs  cat FILE | ssh (ControlMaster) 'cat > DST'
#   down  clawssh sync pull ID FILE (the file changed on the host)
#         vs  ssh (ControlMaster) cat SRC > FILE
# Prints medians in ms and MB/s, and the ratios (clawssh's speed over
# ssh's: the floor is >= 0.8).
#   bench/bulk.sh [MIB [RUNS]]    (default 1024 3)
set -eu
cd "$(dirname "$0")/.."
MIB=${1:-1024}
RUNS=${2:-3}
CLAWSSH=${CLAWSSH:-$PWD/clawssh}
SSHD=${SSHD:-$(command -v sshd || echo /usr/sbin/sshd)}
TESTLIB=$PWD/tests/integration/lib.sh
export CLAWSSH SSHD
. "$TESTLIB"
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
W="$T/ws"
R="$T/root"
C="$CLAWSSH"
NODAEMON=${BULK_NO_DAEMON:+--no-daemon}
mkdir -p "$W"
echo small > "$W/small.txt"
SSH="ssh -F $T/ssh_config -o BatchMode=yes"
MUX="$SSH -o ControlMaster=auto -o ControlPath=$T/cm -o ControlPersist=600"
$MUX testhost true

id=$("$C" provision -F "$T/ssh_config" --host testhost --remote-root "$R" \
    --workspace "$W" --key bulk)
lib_start_daemon "$T/daemon.log"
RW="$R/$id/workspace"
"$C" exec -s "$id" -- true

# The file: random, so that nothing on the way can compress it; its
# first 8 bytes are rewritten before each run so that every run moves
# all of it.
head -c "$((MIB * 1024 * 1024))" /dev/urandom > "$W/big.bin"
ms() {
	echo $(( ($(date +%s%N) - $1) / 1000000 ))
}
poke() {
	printf '%08d' "$2" | dd of="$1" bs=8 count=1 conv=notrunc 2>/dev/null
	touch "$1"
}
: > "$T/times"
i=0
while [ "$i" -lt "$RUNS" ]; do
	i=$((i + 1))
	poke "$W/big.bin" "$i"
	t0=$(date +%s%N)
	"$C" sync push $NODAEMON "$id" big.bin > /dev/null 2>"$T/err" ||
	    { cat "$T/err" >&2; exit 1; }
	echo "up-clawssh $(ms "$t0")" >> "$T/times"
	cmp -s "$W/big.bin" "$RW/big.bin" || { echo "push: differs" >&2; exit 1; }
	t0=$(date +%s%N)
	$MUX testhost "cat > '$T/up.bin'" < "$W/big.bin"
	echo "up-ssh $(ms "$t0")" >> "$T/times"
	poke "$RW/big.bin" "$((i + 1000))"
	t0=$(date +%s%N)
	"$C" sync pull $NODAEMON "$id" big.bin > /dev/null 2>"$T/err" ||
	    { cat "$T/err" >&2; exit 1; }
	echo "down-clawssh $(ms "$t0")" >> "$T/times"
	cmp -s "$W/big.bin" "$RW/big.bin" || { echo "pull: differs" >&2; exit 1; }
	t0=$(date +%s%N)
	$MUX testhost "cat '$RW/big.bin'" > "$T/down.bin"
	echo "down-ssh $(ms "$t0")" >> "$T/times"
done
$MUX -O exit testhost 2>/dev/null || true
median() {
	awk -v n="$1" '$1 == n { print $2 }' "$T/times" | sort -n |
	    awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
for dir in up down; do
	c=$(median "$dir-clawssh")
	s=$(median "$dir-ssh")
	awk -v d="$dir" -v c="$c" -v s="$s" -v m="$MIB" 'BEGIN {
		printf "%-5s clawssh %7d ms %7.1f MB/s   ssh %7d ms %7.1f MB/s   " \
		    "speed ratio %.2f (target >= 0.8)\n", d, c, m * 1.048576 / c * 1000,
		    s, m * 1.048576 / s * 1000, s / c }'
done
