#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host-directory backend's scripts (src/host/hostdir_*.sh, joined in
# backends/host/hostdir_scripts.h) run here under dash and under busybox
# sh, with no sshd, their values as positional parameters as
# hostdir_script passes them, against a remote root of the test's own
# whose path holds a space, a newline and a component with a leading
# dash:
#   get-or-create  created, then found (the entry's header and the
#                  metadata from stdin), a root made 0700; refused: a
#                  relative root, a root through a link, a root that is
#                  a file or another user's, a missing image, a link
#                  where the sandbox goes
#   list           the sandboxes only (not a link, a stage or a name
#                  that is no id), all or one; the agent's box-entry
#                  answering one id as the script does
#   exec pre       the check before each command: the command's own
#                  positional parameters kept, last-used touched; 255
#                  and the message once the sandbox is gone
#   destroy        destroyed, its background process and the holder of
#                  its environment killed (a holder whose start time
#                  differs left alone), its containers removed (a fake
#                  podman), then missing; a link refused, its target
#                  kept
#   image import, list, rm   (GNU tar: busybox's has no --exclude, so
#                  there the import fails, leaving nothing behind)
#   gpu read, write  devices, live sandboxes, table; written, retry,
#                  a truncated request
. "$TESTLIB"
top_srcdir=${top_srcdir:?make check sets it}
H="$top_srcdir/src/host"
ID=cabcdefghijkl
ID2=cz2345672zzzz
NL='
'

SHELLS="dash"
command -v dash > /dev/null || { echo "SKIP: no dash"; exit 77; }
if command -v busybox > /dev/null; then
	SHELLS="$SHELLS busybox"
else
	echo "note: no busybox: dash only" >&2
fi

# The joins of hostdir_scripts.h, as files.
S="$T/scripts"
mkdir "$S"
join() {
	_out=$1
	shift
	for _f do cat "$H/hostdir_$_f.sh"; done > "$S/$_out"
}
join get_or_create prelude ensure_root get_or_create
join list prelude list
join destroy prelude containers_rm boxkill cgroups_rm
cat "$H/proc_ours.sh" "$H/hostdir_destroy.sh" >> "$S/destroy"
join image_import prelude ensure_root image_import
join image_list prelude image_list
join image_rm prelude image_rm
join gpu_read prelude ensure_root gpu_read
join gpu_write prelude gpu_write

# A fake podman (and docker) that records its calls and lists, for
# "ps", the containers of $T/containers ("ID LABEL" lines) whose label
# is the one asked for.
mkdir "$T/bin"
cat > "$T/bin/podman" <<EOF
#!/bin/sh
echo "\$*" >> "$T/calls"
case \$1 in ps)
	for a; do case \$a in label=clawssh.sandbox=*) v=\${a#label=clawssh.sandbox=} ;; esac; done
	while read -r c l; do [ "\$l" = "\$v" ] && echo "\$c"; done < "$T/containers" ;;
esac
exit 0
EOF
chmod +x "$T/bin/podman"
ln -s podman "$T/bin/docker"
PATH="$T/bin:$PATH"
export PATH

# run SHELL SCRIPT [ARGS...]: the joined script under that shell, from
# $T, stdout in $T/out, stderr in $T/err; its status in $st.
run() {
	_sh=$1
	_f=$2
	shift 2
	if [ "$_sh" = busybox ]; then
		(cd "$T" && busybox sh "$S/$_f" "$@") > "$T/out" 2> "$T/err"
	else
		(cd "$T" && "$_sh" "$S/$_f" "$@") > "$T/out" 2> "$T/err"
	fi
	st=$?
}

# failed WHAT MESSAGE: the last run ended with status 3, its stderr
# with "clawssh-error: MESSAGE" (after a tool's own complaint, if any).
failed() {
	expect_status "$st" 3 "$1: status"
	case $(cat "$T/err") in
	"clawssh-error: $2"|*"$NL""clawssh-error: $2") ;;
	*) fail "$1: expected 'clawssh-error: $2', got '$(cat "$T/err")'" ;;
	esac
}

# A process in a session of its own; its pid in $T/pid.N.
session() {
	rm -f "$T/pid.$1"
	setsid sh -c 'echo $$ > "$1"; exec sleep 60' sh "$T/pid.$1.tmp" \
	    < /dev/null > /dev/null 2>&1 &
	_i=0
	while [ ! -s "$T/pid.$1.tmp" ] && [ $_i -lt 100 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	mv "$T/pid.$1.tmp" "$T/pid.$1" || fail "no session started"
}

# left DIR: the names in DIR, dot files too, one a line.
left() {
	for _f in "$1"/.* "$1"/*; do
		case ${_f##*/} in .|..) continue ;; esac
		[ -e "$_f" ] || [ -L "$_f" ] || continue
		echo "${_f##*/}"
	done
}

meta='{"id":"'$ID'","image":"img x","note":"a\nb"}'
real=$(cd -P "$T" && pwd) || fail "cd $T"
for s in $SHELLS; do
	B="$real/$s"
	R="$B/-r oot${NL}x"
	mkdir -p "$B"

	# get-or-create: created, then found
	printf '%s' "$meta" > "$T/meta"
	run "$s" get_or_create "$R" "$ID" host none < "$T/meta"
	expect_status "$st" 0 "$s: create"
	expect_eq "$(sed -n 1p "$T/out")" clawssh-created "$s: created"
	expect_match "$(sed -n 2p "$T/out")" \
	    "^clawssh-entry $ID [0-9][0-9]* [0-9][0-9]* ${#meta}\$" \
	    "$s: the entry's header"
	expect_eq "$(sed 1,2d "$T/out")" "$meta" "$s: the metadata"
	[ -d "$R/$ID/workspace" ] && [ -d "$R/$ID/private" ] &&
	    [ -f "$R/$ID/last-used" ] || fail "$s: the sandbox's tree"
	expect_eq "$(stat -c %a "$R")" 700 "$s: the root's mode"
	run "$s" get_or_create "$R" "$ID" host none < /dev/null
	expect_eq "$(sed -n 1p "$T/out")" clawssh-found "$s: found"
	expect_eq "$(sed 1,2d "$T/out")" "$meta" "$s: found: the metadata"
	expect_eq "$(left "$R")" "$ID" "$s: create: the root"

	# get-or-create refused
	run "$s" get_or_create "rel/root" "$ID2" host none < "$T/meta"
	failed "$s: relative root" "remoteRoot rel/root is not absolute"
	mkdir "$B/real"
	ln -s real "$B/link"
	run "$s" get_or_create "$B/link/r" "$ID2" host none < "$T/meta"
	failed "$s: a root through a link" \
	    "remoteRoot component $B/link is a symbolic link"
	[ ! -e "$B/real/r" ] || fail "$s: a root made through a link"
	: > "$B/file"
	run "$s" get_or_create "$B/file" "$ID2" host none < "$T/meta"
	failed "$s: a root that is a file" "cannot create remoteRoot $B/file"
	if [ "$(id -u)" -eq 0 ]; then
		mkdir "$B/theirs"
		chown 65534 "$B/theirs"
		run "$s" get_or_create "$B/theirs" "$ID2" host none < "$T/meta"
		failed "$s: another user's root" \
		    "remoteRoot $B/theirs is owned by uid 65534, not by $(id -un)"
	fi
	run "$s" get_or_create "$R" "$ID2" "-no such" none < "$T/meta"
	failed "$s: a missing image" "image -no such not found in $R/images (import it with: clawssh image import)"
	[ ! -e "$R/$ID2" ] || fail "$s: a sandbox of a missing image"
	ln -s "$B/real" "$R/$ID2"
	run "$s" get_or_create "$R" "$ID2" host none < "$T/meta"
	failed "$s: a link where the sandbox goes" \
	    "$R/$ID2 exists and is not a sandbox directory"
	rm "$R/$ID2"
	[ -z "$(ls "$B/real")" ] || fail "$s: written through a link"

	# list: the sandboxes only
	mkdir "$R/cbad" "$R/caaaaaaaaaaaa" "$R/.stage-$ID2-1"
	echo '{}' > "$R/cbad/meta.json"
	echo '{}' > "$R/.stage-$ID2-1/meta.json"
	ln -s "$ID" "$R/cbbbbbbbbbbbb"
	run "$s" list "$R" 'c????????????'
	expect_status "$st" 0 "$s: list"
	expect_match "$(sed -n 1p "$T/out")" '^clawssh-now [0-9][0-9]*$' \
	    "$s: list: the time"
	expect_eq "$(sed 1d "$T/out" | sed 1d)" "$meta" "$s: list: one sandbox"
	expect_match "$(sed -n 2p "$T/out")" "^clawssh-entry $ID " \
	    "$s: list: the entry"
	run "$s" list "$R" "$ID2"
	expect_eq "$(cat "$T/out" | wc -l)" 1 "$s: list: another id"
	run "$s" list "$B/none" 'c????????????'
	expect_status "$st" 0 "$s: list: no root"
	expect_match "$(cat "$T/out")" '^clawssh-now [0-9]*$' \
	    "$s: list: no root, the time only"
	# the agent's box-entry answers one id as the script does
	# (clawssh status), the clock line aside
	mkdir "$R/cccccccccccc2"	# (caaaaaaaaaaaa: made above)
	ln -s "$R/$ID/meta.json" "$R/caaaaaaaaaaaa/meta.json"
	echo '{}' > "$R/cccccccccccc2/meta.json"	# no last-used
	for id in "$ID" "$ID2" cbbbbbbbbbbbb caaaaaaaaaaaa cccccccccccc2 \
	    cbad ../x; do
		run "$s" list "$R" "$id"
		sed 1d "$T/out" > "$T/want"
		"$CLAWSSH_AGENT" box-entry "$R" "$id" > "$T/got" 2>&1
		expect_status $? 0 "$s: box-entry $id"
		expect_match "$(sed -n 1p "$T/got")" '^clawssh-now [0-9]*$' \
		    "$s: box-entry $id: the time"
		sed 1d "$T/got" | cmp -s - "$T/want" ||
		    fail "$s: box-entry $id: '$(cat "$T/got")', the script: '$(cat "$T/want")'"
	done
	# and all of them, as the script's glob (clawssh list, prune)
	cp -R "$R/$ID" "$R/czzzzzzzzzzz2"	# not its own metadata: kept
	run "$s" list "$R" 'c????????????'
	sed 1d "$T/out" > "$T/want"
	"$CLAWSSH_AGENT" box-entry "$R" '*' > "$T/got"
	expect_status $? 0 "$s: box-entry *"
	sed 1d "$T/got" | cmp -s - "$T/want" ||
	    fail "$s: box-entry *: '$(cat "$T/got")', the script: '$(cat "$T/want")'"
	# (an entry's metadata may not end a line: count them anywhere)
	expect_eq "$(grep -o "clawssh-entry c" "$T/want" | wc -l)" 3 \
	    "$s: box-entry *: three sandboxes"
	rm -r "$R/czzzzzzzzzzz2"
	"$CLAWSSH_AGENT" box-entry "$B/none" "$ID" > "$T/got"
	expect_eq "$(sed 1d "$T/got")" "" "box-entry: no root, the time only"
	"$CLAWSSH_AGENT" box-entry "$B/link/r" "$ID" > "$T/got" 2> "$T/err"
	expect_status $? 3 "box-entry: a root through a link"
	expect_eq "$(cat "$T/err")" \
	    "clawssh-error: remoteRoot component $B/link is a symbolic link" \
	    "box-entry: a root through a link, said"
	"$CLAWSSH_AGENT" box-entry rel "$ID" > "$T/got" 2> "$T/err"
	expect_status $? 3 "box-entry: a relative root"
	rm -r "$R/cbad" "$R/caaaaaaaaaaaa" "$R/.stage-$ID2-1" \
	    "$R/cbbbbbbbbbbbb" "$R/cccccccccccc2"

	# the check before each command keeps the command's arguments
	pre=$(cat "$H/hostdir_exec_pre.sh")
	touch -d @1000000000 "$R/$ID/last-used"
	q=$(printf '%s' "$R/$ID" | sed "s/'/'\\\\''/g")
	c="$pre${NL}__claw_pre '$q' $ID; unset -f __claw_pre; printf '%s|' \"\$@\""
	if [ "$s" = busybox ]; then
		got=$(busybox sh -c "$c" sh "a b" "-c")
	else
		got=$("$s" -c "$c" sh "a b" "-c")
	fi
	expect_status $? 0 "$s: exec pre"
	expect_eq "$got" "a b|-c|" "$s: exec pre: the command's arguments"
	[ "$(stat -c %Y "$R/$ID/last-used")" -gt 1000000000 ] ||
	    fail "$s: exec pre: last-used not touched"

	# destroy: its processes and containers go with it
	session proc
	session box
	session other
	mkdir -p "$R/$ID/procs/p1" "$R/$ID/procs/p2" "$R/$ID/run"
	cp "$T/pid.proc" "$R/$ID/procs/p1/pid"
	# p2: a process long gone, its pid another's by now (the identity
	# differs): that other process is left alone
	cp "$T/pid.other" "$R/$ID/procs/p2/pid"
	echo "another-boot 1" > "$R/$ID/procs/p2/pid.ident"
	p=$(cat "$T/pid.box")
	start=$(sed 's/.*) //' "/proc/$p/stat" | cut -d' ' -f20)
	echo "$p $start" > "$R/$ID/run/box.pid"
	printf 'aaaa1111 %s\nbbbb2222 %s\n' "$ID" "$ID2" > "$T/containers"
	: > "$T/calls"
	run "$s" destroy "$R" "$ID"
	expect_status "$st" 0 "$s: destroy"
	expect_eq "$(cat "$T/out")" clawssh-destroyed "$s: destroyed"
	[ ! -e "$R/$ID" ] || fail "$s: the sandbox is still there"
	expect_eq "$(left "$R")" "" "$s: destroy: the root"
	lib_gone "$(cat "$T/pid.proc")" || fail "$s: its background process lives"
	lib_gone "$p" || fail "$s: the holder of its environment lives"
	lib_alive "$(cat "$T/pid.other")" ||
	    fail "$s: destroy killed the process of a stale pid file"
	expect_eq "$(grep -c "^rm -f aaaa1111\$" "$T/calls")" 2 \
	    "$s: its containers removed (docker and podman)"
	grep -q bbbb2222 "$T/calls" && fail "$s: another's container removed"
	# a holder whose start time is not the one recorded is another
	# process: left alone
	mkdir -p "$R/$ID/run" "$R/$ID/workspace"
	echo '{}' > "$R/$ID/meta.json"
	echo "$(cat "$T/pid.other") 1" > "$R/$ID/run/box.pid"
	run "$s" destroy "$R" "$ID"
	expect_eq "$(cat "$T/out")" clawssh-destroyed "$s: destroyed again"
	lib_alive "$(cat "$T/pid.other")" ||
	    fail "$s: a process named by a stale box.pid was killed"
	kill "$(cat "$T/pid.other")"
	run "$s" destroy "$R" "$ID"
	expect_status "$st" 0 "$s: destroy: missing"
	expect_eq "$(cat "$T/out")" clawssh-missing "$s: missing"
	ln -s "$B/real" "$R/$ID"
	echo keep > "$B/real/sentinel"
	run "$s" destroy "$R" "$ID"
	failed "$s: destroy: a link" "$R/$ID is a symbolic link; not removing it"
	expect_eq "$(cat "$B/real/sentinel")" keep "$s: the link's target"
	rm "$R/$ID"

	# the check before each command, once the sandbox is gone
	if [ "$s" = busybox ]; then
		busybox sh -c "$c" sh 2> "$T/err"
	else
		"$s" -c "$c" sh 2> "$T/err"
	fi
	expect_status $? 255 "$s: exec pre: gone"
	expect_eq "$(cat "$T/err")" "clawssh: sandbox $ID no longer exists on this host; provision it again" \
	    "$s: exec pre: gone: the message"

	# images
	mkdir -p "$B/tree/etc" "$B/tree/dev"
	echo hi > "$B/tree/etc/motd"
	ln -s /etc "$B/tree/tmp"
	tar -C "$B/tree" -czf "$B/img.tgz" .
	run "$s" image_import "$R" img-1 -z < "$B/img.tgz"
	if [ "$s" = busybox ]; then
		expect_status "$st" 3 "busybox: image import"
		expect_match "$(cat "$T/err")" \
		    '^clawssh-error: unpacking the image failed: ' \
		    "busybox: image import: the message"
		expect_eq "$(left "$R/images")" "" \
		    "busybox: image import: the store"
		mkdir -p "$R/images/img-1/rootfs"
		echo 1700000000 > "$R/images/img-1/imported"
	else
		expect_status "$st" 0 "$s: image import"
		expect_match "$(cat "$T/out")" \
		    '^clawssh-image img-1 [0-9][0-9]* [0-9][0-9]*$' \
		    "$s: image import: the line"
		for d in workspace tmp proc dev etc; do
			[ -d "$R/images/img-1/rootfs/$d" ] &&
			    [ ! -L "$R/images/img-1/rootfs/$d" ] ||
			    fail "$s: image import: no /$d"
		done
		expect_eq "$(cat "$R/images/img-1/rootfs/etc/motd")" hi \
		    "$s: image import: a file"
		run "$s" image_import "$R" img-1 -z < "$B/img.tgz"
		failed "$s: image import: again" "image img-1 already exists on this host (remove it first: clawssh image rm)"
		printf 'not a tarball' > "$B/bad"
		run "$s" image_import "$R" img-2 -z < "$B/bad"
		expect_status "$st" 3 "$s: image import: garbage"
		expect_match "$(cat "$T/err")" \
		    '^clawssh-error: unpacking the image failed: ' \
		    "$s: image import: garbage: the message"
		expect_eq "$(left "$R/images")" img-1 \
		    "$s: image import: garbage: the store"
	fi
	mkdir -p "$R/images/no-rootfs" "$R/images/.stage-x/rootfs"
	run "$s" image_list "$R"
	expect_status "$st" 0 "$s: image list"
	expect_match "$(cat "$T/out")" \
	    '^clawssh-image img-1 [0-9][0-9]* [0-9][0-9]*$' \
	    "$s: image list: one image"
	printf '{"id":"%s","image":"img-1"}' "$ID2" > "$T/meta2"
	run "$s" get_or_create "$R" "$ID2" img-1 none < "$T/meta2"
	expect_status "$st" 0 "$s: a sandbox of img-1"
	run "$s" image_rm "$R" img-1 0
	expect_status "$st" 3 "$s: image rm: used"
	# (the users are named from grep -l's lines: a root with a newline
	# puts its first line in front of them)
	case $(cat "$T/err") in
	"clawssh-error: image img-1 is used by sandboxes "*"$ID2 (destroy them, or --force)") ;;
	*) fail "$s: image rm: used: $(cat "$T/err")" ;;
	esac
	[ -d "$R/images/img-1/rootfs" ] || fail "$s: image rm: used: removed"
	run "$s" image_rm "$R" img-1 1
	expect_status "$st" 0 "$s: image rm: forced"
	expect_eq "$(cat "$T/out")" clawssh-removed "$s: removed"
	[ ! -e "$R/images/img-1" ] || fail "$s: image rm: still there"
	[ -d "$R/$ID2/workspace" ] || fail "$s: image rm took its sandbox"
	run "$s" image_rm "$R" img-1 1
	failed "$s: image rm: missing" "no image img-1 on this host"

	# GPUs
	mkdir "$B/dev"
	touch "$B/dev/nvidia0" "$B/dev/nvidia12" "$B/dev/nvidiactl"
	printf '0 %s\n' "$ID2" > "$R/gpus"
	CLAWSSH_GPU_DEV_DIR="$B/dev" run "$s" gpu_read "$R"
	expect_status "$st" 0 "$s: gpu read"
	expect_eq "$(cat "$T/out")" "clawssh-devices${NL}nvidia0${NL}nvidia12${NL}clawssh-live${NL}$ID2${NL}clawssh-table${NL}0 $ID2" \
	    "$s: gpu read: the state"
	old="0 $ID2$NL"
	new="0 $ID2${NL}12 $ID$NL"
	printf '%s %s\n%s%s' ${#old} ${#new} "$old" "$new" > "$T/req"
	run "$s" gpu_write "$R" < "$T/req"
	expect_eq "$(cat "$T/out")" clawssh-written "$s: gpu write"
	expect_eq "$(cat "$R/gpus")" "0 $ID2${NL}12 $ID" "$s: gpu write: the file"
	run "$s" gpu_write "$R" < "$T/req"
	expect_eq "$(cat "$T/out")" clawssh-retry "$s: gpu write: changed"
	expect_eq "$(cat "$R/gpus")" "0 $ID2${NL}12 $ID" "$s: gpu write: kept"
	run "$s" gpu_write "$R" < /dev/null
	failed "$s: gpu write: truncated" "truncated request"
	case $(left "$R") in .*|*"$NL".*) fail "$s: gpu write: left $(left "$R")" ;; esac
done
exit 0
