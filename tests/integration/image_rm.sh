#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# image rm touches the image store only: on a host with podman it leaves
# every sandbox's containers alone (it used to force-remove them all
# through an empty label filter, which podman takes as any value), and
# destroy removes the containers of its own sandbox, no other's.  podman
# here is a fake on the sshd session's PATH that records its arguments
# and filters labels as podman does.

# The fake's directory must be known before lib.sh writes sshd_config.
FAKE=$(mktemp -d "${TMPDIR:-/tmp}/clawssh-fakepodman.XXXXXX") || exit 99
chmod 755 "$FAKE"
# shellcheck disable=SC2034 # read by lib.sh
SSHD_EXTRA="SetEnv PATH=$FAKE/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"
trap 'rm -rf "$FAKE"; lib_cleanup' EXIT

command -v bwrap >/dev/null 2>&1 || { echo "SKIP: no bwrap"; exit 77; }
mkdir -p "$FAKE/bin"
# containers: one line per container, "HEXID SANDBOX-ID".
cat > "$FAKE/bin/podman" <<FAKEPODMAN
#!/bin/sh
st=$FAKE
echo "podman \$*" >> "\$st/calls"
case \$1 in
info) exit 0 ;;
image) exit 0 ;;
ps)	# ps -aq --filter label=clawssh.sandbox=VALUE: an empty VALUE
	# matches every container that has the label, as podman's does.
	v=
	for a in "\$@"; do
		case \$a in label=clawssh.sandbox=*) v=\${a#label=clawssh.sandbox=} ;; esac
	done
	while read -r cid sb; do
		[ -z "\$v" ] || [ "\$v" = "\$sb" ] && echo "\$cid"
	done < "\$st/containers"
	exit 0 ;;
rm)	shift
	for c in "\$@"; do
		case \$c in -*) continue ;; esac
		grep -v "^\$c " "\$st/containers" > "\$st/c.new"
		mv "\$st/c.new" "\$st/containers"
	done
	exit 0 ;;
esac
exit 0
FAKEPODMAN
chmod 755 "$FAKE/bin/podman"
: > "$FAKE/calls"
: > "$FAKE/containers"
chmod 666 "$FAKE/calls" "$FAKE/containers"
chmod 777 "$FAKE"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
W="$T/ws"
mkdir -p "$W"
F="$T/rootfs"
mkdir -p "$F/bin"
echo x > "$F/bin/x"
tar -C "$F" -czf "$T/rootfs.tar.gz" .

prov() {
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost --key "$1" \
	    --runtime podman --from tiny --remote-root "$R" --workspace "$W"
}
a=$(prov a 2>"$T/err") || fail "provision a: $(cat "$T/err")"
b=$(prov b 2>"$T/err") || fail "provision b: $(cat "$T/err")"
[ "$a" != "$b" ] || fail "one sandbox for two keys"
# Each has a container (running or not: podman ps -a lists both).
printf '%s\n' "aaaa1111 $a" "bbbb2222 $b" > "$FAKE/containers"

# A store image of the same name as the sandboxes' engine image: its
# metadata names it, so rm needs --force.
"$CLAWSSH" image import -F "$T/ssh_config" --host testhost \
    --remote-root "$R" tiny "$T/rootfs.tar.gz" >/dev/null 2>"$T/err" ||
    fail "import: $(cat "$T/err")"
out=$("$CLAWSSH" image rm -F "$T/ssh_config" --host testhost \
    --remote-root "$R" tiny 2>&1)
expect_status $? 255 "rm of an image sandboxes name"
expect_match "$out" "used by sandboxes" "users named"
"$CLAWSSH" image rm -F "$T/ssh_config" --host testhost \
    --remote-root "$R" --force tiny 2>"$T/err" || fail "rm: $(cat "$T/err")"
[ -e "$R/images/tiny" ] && fail "image still there"
expect_eq "$(cat "$FAKE/containers")" "aaaa1111 $a
bbbb2222 $b" "image rm left every container"
grep -q "^podman rm" "$FAKE/calls" && fail "image rm ran: $(cat "$FAKE/calls")"
grep -q "label=clawssh.sandbox= \|label=clawssh.sandbox=\$" "$FAKE/calls" &&
    fail "an empty label filter was used: $(cat "$FAKE/calls")"

# destroy removes its own sandbox's containers and nobody else's.
"$CLAWSSH" destroy "$a" >/dev/null 2>"$T/err" || fail "destroy: $(cat "$T/err")"
expect_eq "$(cat "$FAKE/containers")" "bbbb2222 $b" "destroy a: only a's"
grep -q "label=clawssh.sandbox=$a" "$FAKE/calls" ||
    fail "destroy did not filter by its id: $(cat "$FAKE/calls")"
"$CLAWSSH" destroy "$b" >/dev/null 2>"$T/err" || fail "destroy b"
expect_eq "$(cat "$FAKE/containers")" "" "destroy b: b's"
grep -q "label=clawssh.sandbox=\$" "$FAKE/calls" &&
    fail "an empty label filter was used: $(cat "$FAKE/calls")"
exit 0
