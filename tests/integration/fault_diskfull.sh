#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Full disks: a small tmpfs over the host's sandbox root or over the local
# workspace (needs root and mount; exits 77 without).
#   host_push: a push that does not fit fails, leaves the host's files as
#              they were and no stage, and the pull after it takes no
#              partial copy over the good local file.
#   converge:  a first mirror push that does not fit (no state yet), the
#              local deletions that make it fit: the next exec goes
#              through, and nothing the failed push sent comes back.
#   local_pull: a pull onto a full local disk says so (a local error, not
#              the host's tar), keeps every local file as it was and
#              leaves no temporary file.
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

[ "$(id -u)" -eq 0 ] || { echo "SKIP: mounting a tmpfs needs root"; exit 77; }
mkdir -p "$T/probe"
mount -t tmpfs -o size=1m tmpfs "$T/probe" 2>/dev/null ||
    { echo "SKIP: mount is not permitted here"; exit 77; }
umount "$T/probe"
# The cases run in subshells: the mounts are listed in a file.
: > "$T/mounts"
lib_diskfull_cleanup() {
	lib_end_holders
	while IFS= read -r _m; do
		umount -l "$_m" 2>/dev/null
	done < "$T/mounts"
	lib_cleanup
}
trap lib_diskfull_cleanup EXIT

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
c() {
	timeout 60 "$CLAWSSH" "$@"
}

# small DIR MiB: a tmpfs of that size over DIR (made), searchable by all.
small() {
	mkdir -p "$1"
	mount -t tmpfs -o "size=$2m,mode=711" tmpfs "$1" ||
	    fail "mount tmpfs on $1"
	printf '%s\n' "$1" >> "$T/mounts"
}

sum1() {
	sha256sum < "$1" | cut -d' ' -f1
}

case_host_push() {
	R="$T/hp-root"
	W="$T/hp-ws"
	small "$R" 12
	mkdir -p "$W"
	head -c 2097152 /dev/urandom > "$W/good"
	id=$(c provision -F "$T/ssh_config" --host testhost --key hp \
	    --mode remote --remote-root "$R" --workspace "$W") ||
	    fail "provision"
	RW="$R/$id/workspace"
	good=$(sum1 "$W/good")
	head -c 20971520 /dev/urandom > "$W/huge"
	huge=$(sum1 "$W/huge")
	out=$(c sync push "$id" 2>&1)
	st=$?
	[ "$st" -eq 255 ] || lib_case_fail "a push that does not fit: exit $st"
	printf '%s\n' "$out" | grep -q "No space left\|Wrote only" ||
	    lib_case_fail "the push does not say why: $out"
	[ -e "$RW/huge" ] && lib_case_fail "a partial huge is on the host"
	[ "$(sum1 "$RW/good")" = "$good" ] ||
	    lib_case_fail "the host's good file changed"
	[ -z "$(find "$RW" -name '.clawssh-tmp-*')" ] ||
	    lib_case_fail "the failed push left its stage: $(ls -a "$RW")"
	out=$(c sync pull "$id" 2>&1) || lib_case_fail "pull after it: $out"
	[ "$(sum1 "$W/huge")" = "$huge" ] ||
	    lib_case_fail "the pull replaced the good local huge (now $(wc -c < "$W/huge") bytes)"
	[ "$(sum1 "$W/good")" = "$good" ] || lib_case_fail "local good changed"
	# Many failing files: the host's stderr is cut at a line, and says so.
	rm "$W/huge"
	mkdir "$W/many"
	i=10
	while [ $i -lt 40 ]; do
		head -c 1048576 /dev/urandom > "$W/many/file-with-a-long-name-$i"
		i=$((i + 1))
	done
	out=$(c sync push "$id" 2>&1)
	printf '%s\n' "$out" | grep -q '^tar: .*: \(Cannot write: No space left on device\|Wrote only [0-9]* of [0-9]* bytes\) \[cut: [0-9]* more bytes\]$' ||
	    lib_case_fail "the host's stderr not cut at a line: $out"
	[ -z "$(find "$RW" -name '.clawssh-tmp-*')" ] ||
	    lib_case_fail "the failed push left its stage: $(ls -a "$RW")"
}

case_converge() {
	R="$T/cv-root"
	W="$T/cv-ws"
	small "$R" 12
	mkdir -p "$W"
	head -c 9437184 /dev/urandom > "$W/huge"
	head -c 4194304 /dev/urandom > "$W/mid"
	mid=$(sum1 "$W/mid")
	id=$(c provision -F "$T/ssh_config" --host testhost --key cv \
	    --remote-root "$R" --workspace "$W") || fail "provision"
	RW="$R/$id/workspace"
	c exec -s "$id" -- true 2>"$T/cv.err" &&
	    lib_case_fail "the first push fitted: $(df "$R")"
	rm "$W/huge"
	out=$(c exec -s "$id" -- cat mid 2>"$T/cv.err" | sha256sum |
	    cut -d' ' -f1)
	[ "$out" = "$mid" ] ||
	    lib_case_fail "the exec after the deletion: $(cat "$T/cv.err")"
	[ -e "$W/huge" ] && lib_case_fail "the failed push's huge came back"
	[ -e "$RW/huge" ] && lib_case_fail "the failed push's huge is on the host"
	c exec -s "$id" -- true 2>"$T/cv.err" ||
	    lib_case_fail "later exec: $(cat "$T/cv.err")"
}

case_local_pull() {
	R="$T/lp-root"
	W="$T/lp-ws"
	small "$W" 4
	echo keep > "$W/keep"
	head -c 1048576 /dev/urandom > "$W/big"
	big=$(sum1 "$W/big")
	id=$(c provision -F "$T/ssh_config" --host testhost --key lp \
	    --mode remote --remote-root "$R" --workspace "$W") ||
	    fail "provision"
	c exec -s "$id" -- sh -c 'head -c 8388608 /dev/urandom > big' ||
	    fail "host change"
	out=$(c sync pull -v "$id" 2>&1)
	st=$?
	[ "$st" -eq 255 ] || lib_case_fail "a pull onto a full disk: exit $st"
	printf '%s\n' "$out" | grep -q "here: .*No space left on device" ||
	    lib_case_fail "the pull does not name the local ENOSPC: $out"
	printf '%s\n' "$out" | grep -q "remote tar failed" &&
	    lib_case_fail "the local error blamed on the host: $out"
	[ "$(sum1 "$W/big")" = "$big" ] ||
	    lib_case_fail "local big torn ($(wc -c < "$W/big") bytes)"
	[ "$(cat "$W/keep")" = keep ] || lib_case_fail "local keep changed"
	[ -z "$(find "$W" -name '.clawssh-tmp-*')" ] ||
	    lib_case_fail "temporary files left: $(ls -a "$W")"
}

lib_run_cases "host_push converge local_pull"
