#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The docker/podman scripts (src/host/oci_*.sh: contain_oci.c) and the
# sandbox environment's stop and status (src/host/boxenv_*.sh:
# cmd_boxenv.c) under dash and under busybox sh, with no sshd and no
# engine, against a temporary tree whose sandbox directory, workspace and
# agent have hostile names (a space, a quote, a newline, a leading dash):
#   oci_engine.sh + oci_wrap_*.sh, joined as contain_oci_wrap joins them
#       (with creation words of its own): the identity (a default uid as
#       root only, a user name resolved, an unknown one refused, the bound
#       directory given or the run stopped), the container started under
#       the lock when absent, kept when running, a warning once per new
#       digest, GPUs from the allocation file per engine (none: refused),
#       a failed start with the engine's last line, the watcher running
#       the kill script through the engine once the shell is gone
#   oci_engine.sh + oci_stop.sh, oci_status.sh: each state's lines and
#       statuses, a failed rm, per-engine top options, no engine at all
#   boxenv_procs.sh (+ boxenv_stop_bwrap.sh): the background processes'
#       groups ended (TERM; KILL for one that ignores it; not under
#       busybox, whose kill refuses "kill -s 0 -- -PGID"), pid files that
#       are garbage or 1 left alone, a sandbox gone or a link refused;
#       the holder ended by the agent's box-stop (a failure: 3) or from
#       box.pid; boxenv_status.sh: the agent's box-status, or none
# The engine is a stand-in script on PATH ($T/bin/podman, and docker):
# it logs its words and keeps its containers as files.  id, chown and
# chmod are shell functions (busybox sh would run its own applets before
# a stand-in on PATH), so that the host user is root or not at will.
. "$TESTLIB"
top_srcdir=${top_srcdir:?make check sets it}
H="$top_srcdir/src/host"
DASH=$(command -v dash) || { echo "SKIP: no dash"; exit 77; }

SHELLS="dash"
if BUSYBOX=$(command -v busybox); then
	SHELLS="$SHELLS busybox"
else
	echo "note: no busybox: dash only" >&2
fi

# run SHELL SCRIPT [ARGS...]: the script under that shell (found by its
# full path: some cases run with a PATH that has no engine).
run() {
	_sh=$1
	shift
	if [ "$_sh" = busybox ]; then
		"$BUSYBOX" sh "$@"
	else
		"$DASH" "$@"
	fi
}

# The stand-in engine: each call logged as [WORD]s on a line of
# $ENG_DIR/log (emptied by runs) and of $ENG_DIR/all; a container NAME is the file $ENG_DIR/c/NAME holding
# "RUNNING SPEC"; run fails with $ENG_FAIL, rm with $ENG_RM_FAIL.
mkdir -p "$T/bin" "$T/empty"
cat > "$T/bin/podman" <<'EOF'
#!/bin/sh
e=${0##*/}
{ printf '[%s]' "$e" "$@"; echo; } | tee -a "$ENG_DIR/all" >> "$ENG_DIR/log"
case $1 in
container)
	shift 2
	f=
	[ "$1" = -f ] && { f=$2; shift 2; }
	[ -f "$ENG_DIR/c/$1" ] ||
	    { echo "Error: no such container $1" >&2; exit 125; }
	read -r r s < "$ENG_DIR/c/$1"
	case $f in
	*Labels*) echo "$r $s" ;;
	?*) echo "$r" ;;
	*) echo '[{}]' ;;
	esac ;;
run)
	[ -z "${ENG_FAIL:-}" ] || { printf 'pulling\n%s\n' "$ENG_FAIL" >&2; exit 125; }
	n=; s=
	while [ $# -gt 0 ]; do
		case $1 in
		--name) n=$2; shift ;;
		--label) case $2 in clawssh.spec=*) s=${2#*=} ;; esac; shift ;;
		esac
		shift
	done
	mkdir -p "$ENG_DIR/c"
	echo "true $s" > "$ENG_DIR/c/$n"
	echo 0123abcd ;;
rm)
	[ -z "${ENG_RM_FAIL:-}" ] || { echo "Error: $ENG_RM_FAIL" >&2; exit 2; }
	rm -f "$ENG_DIR/c/$3" ;;
stats) echo '1.5MB / 512MB' ;;
top) shift 2; echo 'PID USER ELAPSED COMMAND'; echo "1 root 1m $*" ;;
esac
exit 0
EOF
chmod +x "$T/bin/podman"
ln -s podman "$T/bin/docker"
PATH="$T/bin:$PATH"
export PATH

# The hostile names: the sandbox directory, the workspace, the agent.
SD="$T/root dir/-s b'
x"
WS="$T/work space/-w\$(id)"
AG="$T/ag ent/-agent"
mkdir -p "$SD" "$WS" "${AG%/*}"
C=clawssh-cabcdefghijkl
ID=cabcdefghijkl
printf '0 %s\n1 cother000000\n2 %s\n' "$ID" "$ID" > "$T/gpus"
printf '1 cother000000\n' > "$T/nogpus"

# The wrap as contain_oci_wrap joins it, the creation words its own.
{
	cat <<'EOF'
id() { if [ "$*" = -u ]; then echo "$FAKE_UID"; else command id "$@"; fi; }
chown() { echo "chown $*" >> "$ENG_DIR/own"; [ -z "${CHOWN_FAIL:-}" ]; }
chmod() { echo "chmod $*" >> "$ENG_DIR/own"; }
EOF
	cat "$H/oci_engine.sh" "$H/oci_wrap_ids.sh"
	echo 'set -- "$__claw_e" run -d --name "$__claw_c"'
	cat "$H/oci_wrap_gpus.sh"
	cat <<'EOF'
__claw_spec=$(printf '%s\n' "$@" --entrypoint /bin/sh img | cksum | tr ' ' -)
set -- "$@" --label "clawssh.spec=$__claw_spec" --entrypoint /bin/sh img
EOF
	cat "$H/oci_wrap_box.sh" "$H/oci_wrap_watch.sh"
	echo 'echo "pid $$ user ${__claw_u:-none}"'
} > "$T/wrap.sh"
cat "$H/oci_engine.sh" "$H/oci_stop.sh" > "$T/stop.sh"
cat "$H/oci_engine.sh" "$H/oci_status.sh" > "$T/status.sh"

# wrap SHELL ENGINE UNAME UNUM DEFAULT GPUFILE: the wrap (verbose) into
# $T/out and $T/err, its status in $st.
wrap() {
	run "$1" "$T/wrap.sh" "$2" "$C" "$ID" "$SD" "$WS" "$3" "$4" "$5" \
	    "$6" 1 clawssh.spec kill-script > "$T/out" 2> "$T/err"
	st=$?
}
# box SHELL stop|status ENGINE: that script into $T/out, $T/err, $st.
box() {
	run "$1" "$T/$2.sh" "$3" "$C" > "$T/out" 2> "$T/err"
	st=$?
}
# runs: the run lines of the engine's log since the last call.
runs() {
	grep '^\[[a-z]*\]\[run\]' "$ENG_DIR/log"
	: > "$ENG_DIR/log"
}
# watched PID: wait for the watcher to run the kill script for PID.
watched() {
	_i=0
	while [ $_i -lt 50 ]; do
		grep -qF "[$e][exec][$C][/bin/sh][-c][kill-script][sh][$1]" \
		    "$ENG_DIR/all" && return 0
		sleep 0.1
		_i=$((_i + 1))
	done
	fail "$s $e: no watcher ran the kill script for $1: $(cat "$ENG_DIR/all")"
}
started="clawssh: started the sandbox's container $C"
warn="clawssh: warning: the sandbox environment runs with older settings; 'clawssh stop $ID' then the next command applies the new ones"

for s in $SHELLS; do
	for e in podman docker; do
		ENG_DIR="$T/eng-$s-$e"
		mkdir -p "$ENG_DIR"
		rm -f "$SD/oci-warned" "$SD/oci.lock"
		export ENG_DIR
		# not root: no identity of the default; started, then kept
		FAKE_UID=1000; export FAKE_UID
		wrap "$s" "$e" "" "" 4242:4242 ""
		expect_status "$st" 0 "$s $e: first start"
		pid=$(sed -n 's/^pid \([0-9]*\) user none$/\1/p' "$T/out")
		[ -n "$pid" ] || fail "$s $e: first start printed $(cat "$T/out")"
		expect_eq "$(cat "$T/err")" "$started ($e)" "$s $e: verbose"
		expect_eq "$(grep -c "^\[$e\]\[rm\]\[-f\]\[$C\]$" "$ENG_DIR/log")" \
		    1 "$s $e: the stopped one removed first"
		expect_match "$(runs)" "^\[$e\]\[run\]\[-d\]\[--name\]\[$C\]\[--label\]\[clawssh.spec=[0-9]*-[0-9]*\]\[--entrypoint\]\[/bin/sh\]\[img\]$" \
		    "$s $e: the run words"
		[ -f "$SD/oci.lock" ] || fail "$s $e: no start lock in $SD"
		[ -f "$ENG_DIR/own" ] && fail "$s $e: not root, yet chown"
		watched "$pid"
		wrap "$s" "$e" "" "" 4242:4242 ""
		expect_status "$st" 0 "$s $e: running"
		expect_eq "$(cat "$T/err")$(runs)" "" "$s $e: running: kept"
		# root: the default identity, the workspace given; a new
		# digest warned about once, the container kept
		FAKE_UID=0
		wrap "$s" "$e" "" "" 4242:4242 ""
		expect_status "$st" 0 "$s $e: another digest"
		expect_match "$(cat "$T/out")" "^pid [0-9]* user 4242:4242$" \
		    "$s $e: root: the default uid"
		expect_eq "$(cat "$ENG_DIR/own")" "chown -R -h -P 4242:4242 $WS
chmod 700 $WS" "$s $e: the workspace given"
		expect_eq "$(cat "$T/err")" "$warn" "$s $e: the warning"
		expect_eq "$(runs)" "" "$s $e: another digest: kept"
		wrap "$s" "$e" "" "" 4242:4242 ""
		expect_eq "$(cat "$T/err")" "" "$s $e: warned once"
		[ -s "$SD/oci-warned" ] || fail "$s $e: no oci-warned in $SD"
		# a user set: a name resolved, an unknown one refused, the
		# workspace that cannot be given stops the run
		wrap "$s" "$e" root "" "" ""
		expect_match "$(cat "$T/out")" "^pid [0-9]* user 0:0$" \
		    "$s $e: user root"
		wrap "$s" "$e" nosuch_cl4w "" "" ""
		expect_status "$st" 125 "$s $e: unknown user"
		expect_eq "$(cat "$T/err")" \
		    "clawssh: user nosuch_cl4w does not exist on this host" \
		    "$s $e: unknown user"
		export CHOWN_FAIL=1
		wrap "$s" "$e" "" 1000:1000 "" ""
		unset CHOWN_FAIL
		expect_status "$st" 125 "$s $e: chown fails"
		expect_eq "$(cat "$T/err")" "clawssh: cannot give the workspace to the sandbox's user" \
		    "$s $e: chown fails"
		expect_eq "$(cat "$T/out")" "" "$s $e: chown fails: nothing run"
		# stop, then the GPUs of the allocation file at the next start
		box "$s" stop "$e"
		expect_status "$st" 0 "$s $e: stop"
		expect_eq "$(cat "$T/out")" stopped "$s $e: stop"
		box "$s" stop "$e"
		expect_eq "$(cat "$T/out")" "not running" "$s $e: stop again"
		: > "$ENG_DIR/log"
		FAKE_UID=1000
		wrap "$s" "$e" "" 1000 "" "$T/gpus"
		expect_status "$st" 0 "$s $e: GPUs"
		if [ "$e" = podman ]; then
			g='\[--device\]\[nvidia.com/gpu=0\]\[--device\]\[nvidia.com/gpu=2\]'
		else
			g='\[--gpus\]\["device=0,2"\]'
		fi
		expect_match "$(runs)" "\[$C\]\[--user\]\[1000\]$g\[--label\]" \
		    "$s $e: the user and GPUs"
		box "$s" stop "$e"
		wrap "$s" "$e" "" "" "" "$T/nogpus"
		expect_status "$st" 125 "$s $e: no GPUs"
		expect_eq "$(cat "$T/err")" "clawssh: sandbox $ID has no GPUs assigned on this host; provision it again" \
		    "$s $e: no GPUs"
		# a failed start: the engine's last line
		export ENG_FAIL="Error: boom"
		wrap "$s" "$e" "" "" "" ""
		unset ENG_FAIL
		expect_status "$st" 125 "$s $e: failed start"
		expect_eq "$(cat "$T/err")" "clawssh: cannot start the sandbox's container $C (the image needs /bin/sh and sleep): Error: boom" \
		    "$s $e: failed start"
		# status in each state
		box "$s" status "$e"
		expect_eq "$(cat "$T/out")" "state: absent" "$s $e: absent"
		wrap "$s" "$e" "" "" "" ""
		box "$s" status "$e"
		if [ "$e" = podman ]; then o="pid user etime args"; else
			o="-o pid,user,etime,args"; fi
		expect_eq "$(cat "$T/out")" "state: running
memory: 1.5MB / 512MB
processes:
  PID USER ELAPSED COMMAND
  1 root 1m $o" "$s $e: running"
		expect_status "$st" 0 "$s $e: status"
		echo false > "$ENG_DIR/c/$C"
		box "$s" status "$e"
		expect_eq "$(cat "$T/out")" "state: stopped" "$s $e: stopped"
		export ENG_RM_FAIL="it is busy"
		box "$s" stop "$e"
		unset ENG_RM_FAIL
		expect_status "$st" 1 "$s $e: rm fails"
		expect_eq "$(cat "$T/out")" "" "$s $e: rm fails: no answer"
		expect_eq "$(cat "$T/err")" "Error: it is busy" "$s $e: rm fails"
	done
	# no engine at all
	path=$PATH
	for x in stop status; do
		# shellcheck disable=SC2123 # a PATH with no engine, on purpose
		PATH="$T/empty"
		box "$s" "$x" docker
		PATH=$path
		expect_status "$st" 125 "$s: $x without docker"
		expect_eq "$(cat "$T/err")" \
		    "clawssh: runtime docker: docker is not installed on this host" \
		    "$s: $x without docker"
	done
	# shellcheck disable=SC2123 # a PATH with no engine, on purpose
	PATH="$T/empty"
	wrap "$s" podman "" "" "" ""
	PATH=$path
	expect_status "$st" 125 "$s: wrap without podman"
	expect_eq "$(cat "$T/err")" \
	    "clawssh: runtime podman: podman is not installed on this host" \
	    "$s: wrap without podman"
done

# The sandbox environment's stop and status.  A stand-in agent logs its
# words and answers; clawboxkill (HOSTDIR_SCRIPT_BOXKILL) is logged.
cat > "$AG" <<'EOF'
#!/bin/sh
{ printf '[%s]' "$@"; echo; } >> "$AGENT_LOG"
case $1 in
box-stop) [ -z "${AGENT_FAIL:-}" ] || exit 1; echo stopped ;;
box-status) echo '{"running":true}' ;;
esac
EOF
chmod +x "$AG"
AGENT_LOG="$T/agent.log"
export AGENT_LOG
RUN="$SD/run"
cat "$H/proc_ours.sh" "$H/boxenv_procs.sh" > "$T/stop-none.sh"
echo 'echo stopped' >> "$T/stop-none.sh"
{
	echo 'clawboxkill() { echo "clawboxkill $1" >> "$AGENT_LOG"; }'
	cat "$H/proc_ours.sh" "$H/boxenv_procs.sh" "$H/boxenv_stop_bwrap.sh"
} > "$T/stop-bwrap.sh"
# clawident: the identity a supervisor records (proc_ours.sh).
. "$H/proc_ours.sh"

# spawn N [IGNORE]: a process group (and session) of its own, not a
# child of ours, whose leader's pid goes to $SD/procs/pN/pid and to
# $T/spawned; IGNORE: it ignores TERM (and HUP, INT: only KILL ends it).
spawn() {
	mkdir -p "$SD/procs/p$1"
	_t=
	[ -n "${2:-}" ] && _t='trap "" TERM HUP INT; '
	(setsid sh -c "$_t"'echo $$ > "$1"; sleep 60 & wait' \
	    sh "$SD/procs/p$1/pid.t" < /dev/null > /dev/null 2>&1 &)
	_i=0
	while [ ! -s "$SD/procs/p$1/pid.t" ] && [ $_i -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	mv "$SD/procs/p$1/pid.t" "$SD/procs/p$1/pid" ||
	    fail "spawn $1: no pid"
	cat "$SD/procs/p$1/pid" >> "$T/spawned"
}
# end_spawned: KILL the groups spawn started that still run (their
# leader's command line names $T), whatever the outcome of the test.
end_spawned() {
	[ -f "$T/spawned" ] || return 0
	while read -r _g; do
		tr '\0' ' ' 2> /dev/null < "/proc/$_g/cmdline" |
		    grep -qF "$T/" && kill -s KILL -- "-$_g" 2> /dev/null
	done < "$T/spawned"
}
# oci_cleanup: end_spawned, then lib.sh's clean-up, with the status.
oci_cleanup() {
	_st=$?
	end_spawned
	(exit "$_st")
	lib_cleanup
}
trap oci_cleanup EXIT
# env_run SHELL stop-none|stop-bwrap|status AGENT: into $T/out, $T/err.
env_run() {
	_f="$T/$2.sh"
	[ "$2" = status ] && _f="$H/boxenv_status.sh"
	run "$1" "$_f" "$SD" "$RUN" "$3" > "$T/out" 2> "$T/err"
	st=$?
}

for s in $SHELLS; do
	rm -rf "$SD/procs" "$RUN"
	: > "$AGENT_LOG"
	spawn 1
	spawn 2 ignore
	mkdir -p "$SD/procs/p3" "$SD/procs/p4"
	echo junk > "$SD/procs/p3/pid"
	echo 1 > "$SD/procs/p4/pid"
	p1=$(cat "$SD/procs/p1/pid")
	p2=$(cat "$SD/procs/p2/pid")
	# p5: its identity recorded, as a supervisor does: ended.  p6: a
	# record whose process is long gone and whose pid is another's by
	# now (a reboot, pids come round): its identity differs, and stop
	# must leave that other process alone.  p7: a record from before
	# identities were kept, whose command has exited (rc): the same.
	spawn 5
	spawn 6
	spawn 7
	p5=$(cat "$SD/procs/p5/pid")
	p6=$(cat "$SD/procs/p6/pid")
	p7=$(cat "$SD/procs/p7/pid")
	clawident "$p5" > "$SD/procs/p5/pid.ident"
	echo "another-boot 12345" > "$SD/procs/p6/pid.ident"
	echo 0 > "$SD/procs/p7/rc"
	env_run "$s" stop-none ""
	expect_status "$st" 0 "$s: stop, runtime none"
	expect_eq "$(cat "$T/out")" stopped "$s: stop, runtime none"
	if [ "$s" = busybox ]; then
		# busybox's kill refuses the "--" of "kill -s 0 -- -PGID"
		# (invalid number '--'), so no group is signalled there
		echo "note: busybox: the background processes were not ended" >&2
		end_spawned
	fi
	lib_gone "$p1" || fail "$s: the background process $p1 still runs"
	lib_gone "$p2" || fail "$s: the one ignoring TERM ($p2) still runs"
	if [ "$s" != busybox ]; then	# (end_spawned ended them all)
		lib_gone "$p5" ||
		    fail "$s: the one with its identity ($p5) still runs"
		kill -0 "$p6" 2>/dev/null ||
		    fail "$s: stop killed $p6, whose identity is not the record's"
		kill -0 "$p7" 2>/dev/null ||
		    fail "$s: stop killed $p7, the pid of a process that had exited"
		kill -s KILL -- "-$p6" "-$p7" 2>/dev/null
	fi
	# the holder: none, from box.pid, by the agent (a failure: 3)
	mkdir -p "$RUN"
	env_run "$s" stop-bwrap ""
	expect_eq "$(cat "$T/out")" "not running" "$s: no holder"
	echo "999999 5" > "$RUN/box.pid"
	: > "$RUN/box.sock"
	env_run "$s" stop-bwrap "$T/no agent"
	expect_eq "$(cat "$T/out")" stopped "$s: box.pid"
	expect_eq "$(cat "$AGENT_LOG")" "clawboxkill $RUN/box.pid" \
	    "$s: clawboxkill"
	[ -e "$RUN/box.pid" ] || [ -e "$RUN/box.sock" ] &&
	    fail "$s: box.pid or box.sock left"
	: > "$AGENT_LOG"
	env_run "$s" stop-bwrap "$AG"
	expect_status "$st" 0 "$s: box-stop"
	expect_eq "$(cat "$T/out")" stopped "$s: box-stop"
	expect_eq "$(cat "$AGENT_LOG")" "[box-stop][--dir][$RUN]" \
	    "$s: box-stop's words"
	export AGENT_FAIL=1
	env_run "$s" stop-bwrap "$AG"
	unset AGENT_FAIL
	expect_status "$st" 3 "$s: box-stop fails"
	# status: the agent's, or none
	: > "$AGENT_LOG"
	env_run "$s" status "$AG"
	expect_eq "$(cat "$T/out")" '{"running":true}' "$s: box-status"
	expect_eq "$(cat "$AGENT_LOG")" "[box-status][--dir][$RUN]" \
	    "$s: box-status's words"
	env_run "$s" status ""
	expect_eq "$(cat "$T/out")" '{"running":false,"agent":false}' \
	    "$s: status without the agent"
	# a sandbox gone, or a link where it was
	mv "$SD" "$SD.away"
	env_run "$s" stop-none ""
	expect_status "$st" 3 "$s: sandbox gone"
	expect_eq "$(cat "$T/err")" "clawssh-error: sandbox ${SD##*/} no longer exists on this host" \
	    "$s: sandbox gone"
	ln -s "$SD.away" "$SD"
	env_run "$s" stop-bwrap "$AG"
	expect_status "$st" 3 "$s: a link"
	expect_eq "$(cat "$T/out")" "" "$s: a link: nothing stopped"
	rm "$SD"
	mv "$SD.away" "$SD"
done
exit 0
