#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host-side scripts that stay sh (src/host/*.sh, embedded by
# scripts/sh2c.sh) run here under dash and under busybox sh, with no
# sshd, against the host agent's own steps that stand in for them:
#   list_all.sh   == clawssh-agent fs-list (GNU find; and, with a find
#                    that has no -printf, the stat(1) fallback: whole
#                    seconds), on a tree with links, a fifo, spaces,
#                    a newline and a backslash in names
#   list_part.sh  == clawssh-agent fs-list - (the paths on stdin)
#   agent_dirs.sh with agent_check.sh, agent_install.sh: a deployment
#                 into a home of its own: need, another architecture,
#                 installed (the same bytes, 0755), found again; a wrong
#                 sum, a cut upload, an agent that cannot run refused
#                 with nothing left behind
#   watch.sh      the protocol the daemon speaks (daemon_watch.c): the
#                 first line, a take's sentinel after the changes, a
#                 listing framed on stderr, the end with stdin's
# busybox sh runs its own applets first, as on a busybox-only host: its
# find has no -printf or -files0-from, so list_all.sh takes the stat
# fallback, and list_part.sh and the watcher's listings fail with a
# status (the client then lists another way), never with wrong records.
# Comparison and the watcher's driver are Python (tests/helpers).
. "$TESTLIB"
top_srcdir=${top_srcdir:?make check sets it}
H="$top_srcdir/src/host"
command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 77; }

SHELLS="dash"
if command -v busybox > /dev/null; then
	SHELLS="$SHELLS busybox"
else
	echo "note: no busybox: dash only" >&2
fi

# A tree with what a workspace may hold.
W="$T/ws"
mkdir -p "$W/src/deep/er" "$W/with space" "$W/e"
echo a > "$W/src/a.txt"
printf 'x%.0s' $(seq 1 100) > "$W/with space/f"
ln -s a.txt "$W/src/l"
ln -s /etc/passwd "$W/out"
mkfifo "$W/src/fifo"
touch "$W/$(printf 'nl\nname')" "$W/back\\slash"
chmod 700 "$W/src/deep"
touch -d @1600000000.5 "$W/src/a.txt"

# run SHELL SCRIPT [ARGS...]: the script under that shell, from $W.
run() {
	_sh=$1
	shift
	if [ "$_sh" = busybox ]; then
		(cd "$W" && busybox sh "$@")
	else
		(cd "$W" && "$_sh" "$@")
	fi
}

# same A B [SECONDS]: the two listings hold the same records.
same() {
	python3 - "$1" "$2" "${3:-}" <<'EOF'
import sys
def recs(path, whole):
    data = open(path, "rb").read().split(b"\0")
    if data and data[-1] == b"":
        data.pop()
    assert len(data) % 2 == 0, path + ": odd field count"
    out = {}
    for head, link in zip(data[0::2], data[1::2]):
        t, m, s, tm, p = head.split(b" ", 4)
        sec, frac = tm.split(b".")
        frac = b"" if whole else (frac + b"000000000")[:9]
        if t == b"d":
            s = b"0"
        out[p] = (t, int(m, 8), s, sec, frac, link)
    return out
a, b = recs(sys.argv[1], sys.argv[3]), recs(sys.argv[2], sys.argv[3])
if a != b:
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            print(k, a.get(k), b.get(k), file=sys.stderr)
    sys.exit(1)
print(len(a), "records")
EOF
}

(cd "$W" && "$CLAWSSH_AGENT" fs-list) > "$T/agent.all" ||
    fail "fs-list failed"
printf 'src\nwith space\nmissing\nout\n' > "$T/paths"
(cd "$W" && "$CLAWSSH_AGENT" fs-list -) < "$T/paths" > "$T/agent.part" ||
    fail "fs-list - failed"
# A find without -printf, for list_all.sh's fallback.
mkdir "$T/shim"
cat > "$T/shim/find" <<EOF
#!/bin/sh
for a do [ "\$a" = -printf ] && { echo "find: -printf: unknown" >&2; exit 1; }; done
exec $(command -v find) "\$@"
EOF
chmod +x "$T/shim/find"

for s in $SHELLS; do
	whole=
	[ "$s" = busybox ] && whole=whole
	run "$s" "$H/list_all.sh" > "$T/$s.all" || fail "$s: list_all.sh"
	same "$T/agent.all" "$T/$s.all" $whole > /dev/null ||
	    fail "$s: list_all.sh differs from fs-list"
	PATH="$T/shim:$PATH" run "$s" "$H/list_all.sh" > "$T/$s.stat" ||
	    fail "$s: list_all.sh, stat fallback"
	same "$T/agent.all" "$T/$s.stat" whole > /dev/null ||
	    fail "$s: list_all.sh's stat fallback differs from fs-list"
	if [ "$s" = busybox ]; then
		run "$s" "$H/list_part.sh" < "$T/paths" > "$T/$s.part" \
		    2>/dev/null && fail "busybox: list_part.sh did not fail"
		continue
	fi
	run "$s" "$H/list_part.sh" < "$T/paths" > "$T/$s.part" ||
	    fail "$s: list_part.sh"
	same "$T/agent.part" "$T/$s.part" > /dev/null ||
	    fail "$s: list_part.sh differs from fs-list -"
done

# Deploying the agent: agent_dirs.sh with agent_check.sh or
# agent_install.sh, after the variables agent_deploy.c sets, with a home
# of the shell's own.
want=$("$CLAWSSH_AGENT" version)
size=$(wc -c < "$CLAWSSH_AGENT")
sum=$(sha256sum < "$CLAWSSH_AGENT")
sum=${sum%% *}
# deploy SHELL WHICH VARS [STDIN]: the answer of agent_WHICH.sh under
# SHELL, VARS set first, with the home and temporary directory of $s.
deploy() {
	printf '%s\n' "$3" > "$T/deploy.sh"
	cat "$H/agent_dirs.sh" "$H/agent_$2.sh" >> "$T/deploy.sh"
	if [ "$1" = busybox ]; then
		set -- busybox sh "$T/deploy.sh" "${4:-/dev/null}"
	else
		set -- "$1" "$T/deploy.sh" "${4:-/dev/null}"
	fi
	if [ $# -eq 4 ]; then
		env HOME="$T/home-$s" XDG_CACHE_HOME= TMPDIR="$T/tmp-$s" \
		    "$1" "$2" "$3" < "$4"
	else
		env HOME="$T/home-$s" XDG_CACHE_HOME= TMPDIR="$T/tmp-$s" \
		    "$1" "$2" < "$3"
	fi
}
for s in $SHELLS; do
	mkdir -p "$T/home-$s" "$T/tmp-$s"
	v="n=clawssh-agent-test; want='$want'; x=$(uname -m)"
	expect_eq "$(deploy "$s" check "$v")" clawssh-agent-need \
	    "$s: nothing deployed yet"
	expect_eq "$(deploy "$s" check "n=a; want=b; x=vax")" \
	    "clawssh-agent-no the host is $(uname -m); this clawssh carries an agent for vax" \
	    "$s: another architecture"
	v="n=clawssh-agent-test; want='$want'; size=$size; sum=$sum"
	got=$(deploy "$s" install "$v" "$CLAWSSH_AGENT")
	f="$T/home-$s/.cache/clawssh/agent/clawssh-agent-test"
	expect_eq "$got" "clawssh-agent-ok $f" "$s: installed"
	cmp -s "$f" "$CLAWSSH_AGENT" || fail "$s: the agent installed differs"
	expect_eq "$(stat -c %a "$f")" 755 "$s: its mode"
	v="n=clawssh-agent-test; want='$want'; x=$(uname -m)"
	expect_eq "$(deploy "$s" check "$v")" "clawssh-agent-ok $f" \
	    "$s: found again"
	v="n=x2; want='$want'; size=$size; sum=$(printf '%064d' 0)"
	expect_match "$(deploy "$s" install "$v" "$CLAWSSH_AGENT")" \
	    "^clawssh-agent-no the upload .* does not match its checksum" \
	    "$s: a wrong sum"
	v="n=x3; want='$want'; size=$((size + 1)); sum=$sum"
	expect_match "$(deploy "$s" install "$v" "$CLAWSSH_AGENT")" \
	    "^clawssh-agent-no the upload .* was cut short" "$s: cut short"
	v="n=x4; want='clawssh-agent 0 0'; size=$size; sum=$sum"
	expect_match "$(deploy "$s" install "$v" "$CLAWSSH_AGENT")" \
	    "^clawssh-agent-no the agent cannot run from" "$s: not runnable"
	for f in "$T/home-$s/.cache/clawssh/agent"/* \
	    "$T/home-$s/.cache/clawssh/agent"/.[!.]*; do
		case ${f##*/} in
		clawssh-agent-test|'*'|'.[!.]*') ;;
		*) fail "$s: a failed upload left $f" ;;
		esac
	done
	# no home of its own: the temporary directory, made 0700
	chmod 500 "$T/home-$s"
	v="n=x5; want='$want'; size=$size; sum=$sum"
	if [ "$(id -u)" -ne 0 ]; then
		expect_eq "$(deploy "$s" install "$v" "$CLAWSSH_AGENT")" \
		    "clawssh-agent-ok $T/tmp-$s/clawssh-agent-$(id -u)/x5" \
		    "$s: no home: the temporary directory"
	fi
	chmod 700 "$T/home-$s"
done

if ! command -v inotifywait > /dev/null; then
	echo "note: no inotifywait: watch.sh not run" >&2
	exit 0
fi
for s in $SHELLS; do
	WATCH_LIST_FAILS=
	if [ "$s" = busybox ]; then
		set -- busybox sh
		WATCH_LIST_FAILS=1
	else
		set -- "$s"
	fi
	export WATCH_LIST_FAILS
	mkdir -p "$T/sent-$s"
	(cd "$W" && python3 "$top_srcdir/tests/helpers/watch_sh_drive.py" \
	    "$T/sent-$s/s" "$@" "$H/watch.sh") > "$T/drive-$s" 2>&1 ||
	    fail "$s: watch.sh: $(cat "$T/drive-$s")"
	[ -z "$(ls "$T/sent-$s")" ] ||
	    fail "$s: watch.sh left its sentinel directory"
done
exit 0
