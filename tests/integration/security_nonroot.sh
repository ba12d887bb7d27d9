#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A hostile sandbox against the files of a non-root SSH user
# (LIB_SSH_USER): the host-side sync steps run as that user, whose own
# files outside the sandbox ($T/nr-home, a directory it owns) must stay
# unchanged and unreadable from the sandbox.  Planted links (push,
# deletion, pull, sync push|pull PATH), a RENAME_EXCHANGE race, and a
# mirrored round trip as that user.
#
#   case  what                                   31e0c93  f4342a2
#   1     planted links into the user's files    FAIL     pass
#   2     RENAME_EXCHANGE race during 30 execs   FAIL     pass
#   3     a mirrored round trip works            pass     pass
# SECURITY_CASES="1 3" runs some (default: all).
# The case_N functions are called by name, by lib_run_cases.
# shellcheck disable=SC2317
LIB_SSH_USER=${LIB_SSH_USER:-clawssh-test}
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"

command -v bwrap >/dev/null 2>&1 || { echo "SKIP: no bwrap"; exit 77; }
command -v setpriv >/dev/null 2>&1 || { echo "SKIP: no setpriv"; exit 77; }
: "${SWAP_RACE:?SWAP_RACE must name tests/helpers/swap_race}"
NRU=$LIB_SSH_USER
NRUID=$(id -u "$NRU")
NRGID=$(id -g "$NRU")
setpriv --reuid="$NRUID" --regid="$NRGID" --clear-groups --no-new-privs \
    bwrap --ro-bind / / --unshare-all true 2>/dev/null ||
    { echo "SKIP: bwrap cannot make namespaces as user $NRU (no" \
    "unprivileged user namespaces)"; exit 77; }

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
# The sandboxes' remoteRoot is the user's own.
R="$T/nr-root"
mkdir -m 700 "$R"
chown "$NRU:" "$R"

# prov KEY WORKSPACE [FLAGS...]: print the id of a mirror-mode sandbox.
prov() {
	_k=$1
	_w=$2
	shift 2
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$_k" \
	    --remote-root "$R" --workspace "$_w" "$@"
}

# x ARGS...: clawssh exec -s "$id" ARGS (the case's sandbox).
x() {
	"$CLAWSSH" exec -s "$id" "$@"
}

# sentinels N: the user's own files for case N, $H (0700, the user's:
# v, c/f, secret, all 0600), and how they look now.
sentinels() {
	H="$T/nr-home$1"
	SECRET="nr-secret-$1-$$"
	mkdir -m 700 "$H"
	mkdir -m 700 "$H/c"
	echo "$SECRET" > "$H/secret"
	echo "$SECRET" > "$H/v"
	echo "$SECRET" > "$H/c/f"
	chmod 600 "$H/secret" "$H/v" "$H/c/f"
	chown -R "$NRU:" "$H"
	SENT=$(lib_snapshot "$H")
}

# sentinels_check WHAT LOCAL-WORKSPACE: $H is as sentinels left it and
# none of it reached the local copy.
sentinels_check() {
	[ "$(lib_snapshot "$H")" = "$SENT" ] ||
	    lib_case_fail "$1: the user's files outside changed"
	grep -rqs -- "$SECRET" "$2" &&
	    lib_case_fail "$1: the user's secret came down"
	return 0
}

# Case 1: links to the user's own files, planted at depth three.
# Old code: the steps, as the user, followed them (FAIL); f4342a2:
# they run in the jail, where the links lead nowhere (pass).
case_1() {
	sentinels 1
	W="$T/ws1"
	mkdir -p "$W/d" "$W/a/b/c" "$W/p/q/c"
	echo 1 > "$W/d/v"
	echo mine > "$W/a/b/c/f"
	echo mine > "$W/p/q/c/f"
	id=$(prov n1 "$W") || { lib_case_fail "provision"; return; }
	x -- true || lib_case_fail "first exec"

	# Unreadable from the sandbox itself.
	out=$(x --no-sync -- sh -c "cat '$H/secret'; ls -A '$T' '$H'" 2>&1)
	case $out in
	*"$SECRET"*) lib_case_fail "the sandbox reads $H: $out" ;;
	esac

	# The issue's reproduction: d -> $H, the local d/v changed.
	x --background -- sh -c "rm -rf d; ln -s '$H' d" >/dev/null ||
	    lib_case_fail "background exec"
	lib_wait_host -L "$R/$id/workspace/d"
	echo 2 > "$W/d/v"
	x -- true
	sentinels_check "1 push through d -> home" "$W"

	# A deletion through a/b -> $H; a sync push and pull through it.
	x --no-sync -- sh -c "rm -rf a/b p/q; ln -s '$H' a/b; ln -s '$H' p/q" ||
	    lib_case_fail "plant"
	rm "$W/a/b/c/f"
	echo pushed > "$W/p/q/c/f"
	echo pushed > "$W/p/q/v"
	"$CLAWSSH" sync pull "$id" p/q/c p/q/secret >/dev/null
	grep -rqs -- "$SECRET" "$W" &&
	    lib_case_fail "sync pull p/q/c p/q/secret brought the secret"
	"$CLAWSSH" sync push "$id" p/q/c/f p/q/v >/dev/null
	x -- true
	sentinels_check "1 delete, sync push, sync pull via a/b -> home" "$W"
}

# Case 2: swap a directory and a link to $H (RENAME_EXCHANGE) in the
# background while 30 mirrored execs change files under the directory.
# Old code: FAIL; f4342a2: pass.
case_2() {
	sentinels 2
	W="$T/ws2"
	mkdir -p "$W/real/c"
	echo 0 > "$W/real/v"
	cp "$SWAP_RACE" "$W/swap_race"
	id=$(prov n2 "$W") || { lib_case_fail "provision"; return; }
	x -- true || lib_case_fail "first exec"
	x --background -- sh -c "$(lib_swapper "$H")" >/dev/null ||
	    lib_case_fail "background exec"
	lib_wait_host -e "$R/$id/workspace/racing"
	i=1
	while [ "$i" -le 30 ]; do
		if [ -L "$W/real" ] || [ ! -d "$W/real" ]; then
			rm -rf "$W/real"
		fi
		mkdir -p "$W/real/c"
		for f in v secret c/f c/g1 c/g2 c/g3 c/g4; do
			echo "$i" > "$W/real/$f"
		done
		rm -f "$W/real/n$((i - 1))"
		echo "$i" > "$W/real/n$i"
		x -- true
		i=$((i + 1))
	done
	touch "$W/stop"
	x -- true
	lib_wait_host ! -e "$R/$id/workspace/racing"
	sentinels_check "2 RENAME_EXCHANGE race" "$W"
}

# Case 3: sync_mirror.sh's round trip, briefly, as the user: files go
# up and come back, owned by the user on the host, not world-writable
# here.  Old code and f4342a2: pass.
case_3() {
	W="$T/ws3"
	mkdir -p "$W/src"
	echo hello > "$W/src/a.txt"
	echo keep > "$W/b.txt"
	id=$(prov n3 "$W") || { lib_case_fail "provision"; return; }
	RW="$R/$id/workspace"
	out=$(x -- sh -c 'id -u; cat src/a.txt; echo made > out.txt') ||
	    lib_case_fail "first exec"
	[ "$(echo "$out" | sed -n 1p)" = "$NRUID" ] ||
	    lib_case_fail "runs as '$(echo "$out" | sed -n 1p)', not $NRUID"
	[ "$(echo "$out" | sed -n 2p)" = hello ] ||
	    lib_case_fail "the pushed file is not seen: $out"
	[ "$(cat "$W/out.txt" 2>/dev/null)" = made ] ||
	    lib_case_fail "the command's output did not come down"
	[ "$(stat -c %u "$RW/out.txt")" = "$NRUID" ] ||
	    lib_case_fail "out.txt on the host is not the user's"
	[ "$(stat -c %u "$RW/src/a.txt")" = "$NRUID" ] ||
	    lib_case_fail "a pushed file on the host is not the user's"

	echo changed > "$W/src/a.txt"
	rm "$W/b.txt"
	chmod 600 "$W/src/a.txt"
	ln -s src/a.txt "$W/alink"
	out=$(x -- sh -c 'cat src/a.txt; ls; stat -c %a src/a.txt;
	    readlink alink; rm out.txt; mkdir -p gen/sub; echo g > gen/sub/x;
	    echo edited > src/a.txt') || lib_case_fail "second exec"
	case $out in
	*changed*) ;;
	*) lib_case_fail "the edit did not go up: $out" ;;
	esac
	echo "$out" | grep -qx b.txt && lib_case_fail "deletion did not go up"
	echo "$out" | grep -qx 600 || lib_case_fail "mode did not go up: $out"
	echo "$out" | grep -qx src/a.txt ||
	    lib_case_fail "the link did not go up: $out"
	[ -e "$W/out.txt" ] && lib_case_fail "remote deletion not applied"
	[ "$(cat "$W/gen/sub/x" 2>/dev/null)" = g ] ||
	    lib_case_fail "new remote directory did not come down"
	[ "$(cat "$W/src/a.txt")" = edited ] ||
	    lib_case_fail "remote edit did not come down"
	m=$(stat -c %a "$W/gen/sub/x")
	[ $((0$m & 2)) -eq 0 ] || lib_case_fail "gen/sub/x came down $m"
	"$CLAWSSH" sync status "$id" > "$T/status3" ||
	    lib_case_fail "sync status"
	grep -q '^[AMPLD] ' "$T/status3" &&
	    lib_case_fail "something left to sync: $(cat "$T/status3")"
	return 0
}

lib_run_cases "${SECURITY_CASES:-1 2 3}"
