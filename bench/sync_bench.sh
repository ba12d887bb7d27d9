#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Sync benchmarks on loopback, all figures from one run:
#   seed        clawssh provision --mode remote   vs  tar | ssh tar, rsync -a
#   round trip  clawssh exec -s (1 file changed each way, mirror mode)
#               vs  rsync up + ssh (ControlMaster) + rsync down
#   no change   clawssh exec -s (mirror) vs clawssh exec -s --no-sync
#   state       a view of the saved sync state vs reading it whole
#               (bench/syncstate_bench, built by make check)
# Prints medians and ratios.  Run after building; needs hyperfine, rsync.
#   bench/sync_bench.sh [RUNS]
set -eu
cd "$(dirname "$0")/.."
RUNS=${1:-5}
CLAWSSH=${CLAWSSH:-$PWD/clawssh}
SSHD=${SSHD:-$(command -v sshd || echo /usr/sbin/sshd)}
TESTLIB=$PWD/tests/integration/lib.sh
export CLAWSSH SSHD
for tool in hyperfine rsync; do
	command -v $tool >/dev/null ||
	    { echo "$tool missing: apt-get install $tool" >&2; exit 1; }
done
. "$TESTLIB"
CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
W="$T/ws"
R="$T/root"
sh bench/gen_workspace.sh "$W"
SSH="ssh -F $T/ssh_config -o BatchMode=yes"
MUX="$SSH -o ControlMaster=auto -o ControlPath=$T/cm -o ControlPersist=300"
$MUX testhost true
C="$CLAWSSH"
F="-F $T/ssh_config"

hf() {
	name=$1
	shift
	hyperfine --style basic --runs "$RUNS" --export-csv "$T/$name.csv" \
	    "$@" >"$T/hf.log" 2>&1 || { cat "$T/hf.log" >&2; exit 1; }
}
median() {
	awk -F, -v n="$2" 'NR > 1 && $1 == n { print $4 * 1000 }' "$T/$1.csv"
}
# The median of the seed runs of variant $1.
seed_median() {
	awk -v n="$1" '$1 == n { print $2 }' "$T/seed.txt" | sort -n |
	    awk '{ v[NR] = $1 }
	    END { if (NR % 2) print v[(NR + 1) / 2]
		  else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Seed: each run into a fresh place, the three variants taking turns
# (hyperfine runs one variant after the other, and this machine's file
# system, mounted with "discard", slows down as it fills and after big
# deletions: taking turns gives each variant the same conditions).
# Nothing is deleted until the end.
mkdir -p "$T/dst"
ms() {
	echo $(( ($(date +%s%N) - $1) / 1000000 ))
}
i=0
: > "$T/seed.txt"
while [ $i -lt "$RUNS" ]; do
	sync
	t=$(date +%s%N)
	$C provision $F --host testhost --mode remote --remote-root "$R" \
	    --workspace "$W" --key "seed-$i" > /dev/null
	echo "clawssh $(ms "$t")" >> "$T/seed.txt"
	sync
	t=$(date +%s%N)
	mkdir "$T/dst/t$i"
	(cd "$W" && tar -cf - . | $SSH testhost "tar -xf - -C $T/dst/t$i")
	echo "tar-ssh $(ms "$t")" >> "$T/seed.txt"
	sync
	t=$(date +%s%N)
	rsync -a -e "$SSH" "$W/" "testhost:$T/dst/r$i/"
	echo "rsync $(ms "$t")" >> "$T/seed.txt"
	i=$((i + 1))
done
rm -rf "$T/dst"

# Mirror round trip: change one file locally, the command changes one.
id=$($C provision $F --host testhost --remote-root $R --workspace $W --key mirror)
$C exec -s "$id" -- true
RW="$R/$id/workspace"
hf trip --prepare "date +%s%N > $W/pkg0/mod0/f000" \
    -n clawssh "$C exec -s $id -- sh -c 'date +%s%N > out.txt'" \
    -n rsync-ssh-rsync "rsync -a -e '$MUX' $W/ testhost:$RW/ && $MUX testhost 'cd $RW && date +%s%N > out.txt' && rsync -a -e '$MUX' testhost:$RW/ $W/"

# No-change exec: sync overhead over --no-sync.
hf nochange -n mirror "$C exec -s $id -- true" \
    -n no-sync "$C exec -s $id --no-sync -- true"

# Through a warm daemon: one changed file vs --no-sync, and the round trip.
"$C" serve --socket "$T/run/clawssh/control.sock" --idle-timeout 0 &
DAEMON=$!
sleep 0.5
$C exec -s "$id" -- true
hf warm --prepare "date +%s%N > $W/pkg0/mod0/f000" \
    -n mirror-one "$C exec -s $id -- true" \
    -n no-sync "$C exec -s $id --no-sync -- true" \
    -n trip "$C exec -s $id -- sh -c 'date +%s%N > out.txt'"
# No change through the daemon: its change journal spares the local scan.
hf warmnc -n mirror "$C exec -s $id -- true" \
    -n no-sync "$C exec -s $id --no-sync -- true"
kill "$DAEMON"; wait "$DAEMON" 2>/dev/null || true

$MUX -O exit testhost 2>/dev/null || true

# The saved state: a view of one path as the log grows, on a larger tree.
if [ -x bench/syncstate_bench ]; then
	mkdir -p "$T/sb"
	for blocks in 0 300 3000; do
		bench/syncstate_bench 1000 $blocks "$T/sb"
	done > "$T/sb.txt"
fi
cs=$(seed_median clawssh); ts=$(seed_median tar-ssh); rs=$(seed_median rsync)
ct=$(median trip clawssh); rt=$(median trip rsync-ssh-rsync)
cm=$(median nochange mirror); cn=$(median nochange no-sync)
wm=$(median warm mirror-one); wn=$(median warm no-sync); wt=$(median warm trip)
jm=$(median warmnc mirror); jn=$(median warmnc no-sync)
awk -v cs="$cs" -v ts="$ts" -v rs="$rs" -v ct="$ct" -v rt="$rt" \
    -v cm="$cm" -v cn="$cn" -v wm="$wm" -v wn="$wn" -v wt="$wt" \
    -v jm="$jm" -v jn="$jn" \
    -v runs="$RUNS" 'BEGIN {
	printf "medians over %d runs, milliseconds (workspace ~120 MiB, 10,002 files)\n", runs
	printf "seed:       clawssh %8.1f  tar|ssh %8.1f  rsync %8.1f\n", cs, ts, rs
	printf "            clawssh / tar|ssh   %.2f  (target <= 1.10)\n", cs / ts
	printf "            clawssh / rsync     %.2f  (target < 1.00)\n", cs / rs
	printf "round trip: clawssh %8.1f  rsync+ssh+rsync %8.1f\n", ct, rt
	printf "            speed-up            %.2fx (target >= 3)\n", rt / ct
	printf "no change:  mirror  %8.1f  --no-sync %8.1f\n", cm, cn
	printf "            sync overhead       %.2fx over --no-sync (no daemon: full scan)\n", cm / cn
	printf "daemon:     one file %8.1f  --no-sync %8.1f  round trip %8.1f\n", wm, wn, wt
	printf "            one file / --no-sync %.2f (target <= 1.50)\n", wm / wn
	printf "            round trip speed-up  %.2fx over rsync+ssh+rsync\n", rt / wt
	printf "no change, daemon: mirror %8.1f  --no-sync %8.1f\n", jm, jn
	printf "            sync overhead       %.2fx over --no-sync (change journal: no local scan)\n", jm / jn
}'
[ -f "$T/sb.txt" ] && cat "$T/sb.txt" ||
    echo "(make bench/syncstate_bench for the sync state's views)"
