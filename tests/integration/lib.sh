# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=sh
# Shared set-up for integration tests: a throwaway OpenSSH sshd on
# 127.0.0.1 with per-run host key, user key, known_hosts and ssh_config.
# Tests never touch ~/.ssh: HOME points into the test's own directory.
#
# Source it from a test; it defines:
#   T        the test's private directory (removed on exit)
#   PORT     the sshd's port
#   cexec    runs "clawssh exec -F $T/ssh_config ..."
# Set SSHD_EXTRA before sourcing to add lines to the sshd_config.
# Set LIB_DAEMON=1 to run the test with a daemon of its own (and check
# that a command took the host agent's channel).
# Set LIB_SSH_USER=NAME before sourcing to connect as that (non-root)
# user instead of the one running the test: see lib_ssh_user.
#   fail, expect_eq, expect_match, expect_status
#   lib_snapshot, lib_case_fail, lib_run_cases (tests made of cases;
#            LIB_CASE_LOG names a log whose end a failure shows),
#   lib_wait_host, lib_gone_cmd, lib_none_left (waits), lib_log_sane,
#   lib_cases_as_nonroot

set -u

: "${CLAWSSH:?CLAWSSH must name the clawssh binary}"
: "${SSHD:=/usr/sbin/sshd}"

T=$(mktemp -d "${TMPDIR:-/tmp}/clawssh-test.XXXXXX") || exit 99
# Sandboxes under $T run as their own uid (connected as root): bwrap, as
# that uid, must be able to pass through $T to reach them.
chmod 711 "$T"
SSHD_PID=

# lib_need_bwrap: skip the test (77) where bwrap is missing or cannot
# make its namespaces.
lib_need_bwrap() {
	command -v bwrap >/dev/null 2>&1 || { echo "SKIP: no bwrap"; exit 77; }
	bwrap --ro-bind / / --unshare-all true 2>/dev/null ||
	    { echo "SKIP: bwrap cannot create namespaces here"; exit 77; }
}

# lib_end_holders: end the persistent environments of the test's
# sandboxes (a remote root under $T), whatever the test left: their
# holders' bwrap and its init (whose end ends the sandbox's pid
# namespace).  A test that unmounts a remote root calls it first: a
# holder whose run directory went with an unmounted file system cannot
# see that it is gone.
# Only a holder still running: box.pid says its pid and start time
# (/proc/PID/stat's 22nd field), and a pid whose start differs is
# another process by now (pid_max is 32768 here: pids come round within
# a suite), often another test's.
lib_end_holders() {
	for _f in "$T"/*/c*/run/box.pid "$T"/*/*/c*/run/box.pid; do
		[ -f "$_f" ] || continue
		read -r _p _t < "$_f" 2>/dev/null || continue
		case $_p in ''|*[!0-9]*) continue ;; esac
		_s=$(sed 's/.*) //' "/proc/$_p/stat" 2>/dev/null |
		    cut -d' ' -f20)
		[ -n "$_s" ] && [ "$_s" = "$_t" ] || continue
		pkill -KILL -P "$_p" 2>/dev/null
		kill -KILL "$_p" 2>/dev/null || :
	done
}

lib_cleanup() {
	# LIB_DAEMON: a passing test must have run a command through the
	# host agent's channel, or it tested the shell path only.  (The
	# test's own status stands otherwise: no exit here.)
	_lib_st=$?
	_lib_fail=
	if [ -n "${LIB_DAEMON:-}" ] && [ "$_lib_st" -eq 0 ] &&
	    ! grep -q "host agent: command .* started" "$T/lib-daemon.log"
	then
		echo "FAIL: LIB_DAEMON: no command took the host agent's" \
		    "channel" >&2
		_lib_fail=1
	fi
	# A daemon a test started (or autostarted) listens under $T/run; an
	# MCP HTTP server names its token file under $T.
	pkill -f -- "clawssh serve.*$T/" 2>/dev/null || :
	lib_end_holders
	if [ -n "$SSHD_PID" ]; then
		kill "$SSHD_PID" 2>/dev/null
		wait "$SSHD_PID" 2>/dev/null
	fi
	if [ "${KEEP_TEST_DIR:-}" = "" ]; then
		rm -rf "$T"
	else
		echo "kept $T" >&2
	fi
	[ -z "$_lib_fail" ] || exit 1
}
trap lib_cleanup EXIT
trap 'exit 130' INT TERM

# lib_start_daemon LOG [SERVE-ARGS...]: start "clawssh serve" on the
# test's control socket $D, logging to LOG, and wait for it; DPID is its
# pid.  (lib_cleanup stops it.)
D="$T/run/clawssh/control.sock"
lib_start_daemon() {
	_log=$1
	shift
	"$CLAWSSH" serve "$@" --socket "$D" --log "$_log" &
	# shellcheck disable=SC2034 # the tests read it
	DPID=$!
	_i=0
	while [ ! -S "$D" ] && [ $_i -lt 100 ]; do
		sleep 0.05
		_i=$((_i + 1))
	done
	[ -S "$D" ] || fail "daemon did not start: $(cat "$_log")"
}

fail() {
	echo "FAIL: $*" >&2
	[ -f "$T/sshd.log" ] && tail -n 20 "$T/sshd.log" >&2
	exit 1
}

# expect_eq ACTUAL EXPECTED WHAT
expect_eq() {
	[ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"
}

# expect_match TEXT GREP-PATTERN WHAT
expect_match() {
	printf '%s\n' "$1" | grep -q -- "$2" ||
		fail "$3: '$1' does not match '$2'"
}

# expect_status STATUS EXPECTED WHAT
expect_status() {
	[ "$1" -eq "$2" ] || fail "$3: exit status $1, expected $2"
}

mkdir -p "$T/home/.ssh" "$T/xdg" "$T/run"
chmod 700 "$T/home/.ssh" "$T/run"
HOME="$T/home"
XDG_CONFIG_HOME="$T/xdg"
XDG_STATE_HOME="$T/state"
XDG_RUNTIME_DIR="$T/run"	# a daemon of the test's own, if any
export HOME XDG_CONFIG_HOME XDG_STATE_HOME XDG_RUNTIME_DIR
# Commands start a daemon on first use by default.  The tests mean the
# direct path unless they start a daemon (lib_start_daemon) or ask for
# autostart ("daemon": {"autostart": true} in their config.json, which
# wins over this, or CLAWSSH_AUTOSTART=1): a test that counts logins,
# kills sshd or times a connect then tests what it says, and no daemon
# outlives a test.  This is the default a config without the key gets,
# so every test's own config.json keeps it.
CLAWSSH_AUTOSTART=0
export CLAWSSH_AUTOSTART
unset SSH_AUTH_SOCK SSH_AGENT_PID

ssh-keygen -q -t ed25519 -N '' -C testhost -f "$T/hostkey" || exit 99
ssh-keygen -q -t ed25519 -N '' -C testuser -f "$T/id_ed25519" || exit 99
cp "$T/id_ed25519.pub" "$T/authorized_keys"
TEST_USER=$(id -un)

# lib_ssh_user NAME: connect as NAME, a system user made when missing
# (no home, sh as its shell, a password field that does not lock it:
# sshd without PAM refuses locked accounts).  sshd reads the
# authorized_keys as that user (StrictModes is off): it is made
# readable, and $T searchable.  Needs root; exits 77 without it.
lib_ssh_user() {
	[ "$(id -u)" -eq 0 ] ||
	    { echo "SKIP: making the SSH user $1 needs root"; exit 77; }
	if ! id -u "$1" >/dev/null 2>&1; then
		useradd --system --no-create-home --shell /bin/sh -p '*' \
		    "$1" || { echo "SKIP: cannot create user $1"; exit 77; }
	fi
	case $(getent shadow "$1" | cut -d: -f2) in
	'!'*) usermod -p '*' "$1" ||
	    { echo "SKIP: user $1 is locked"; exit 77; } ;;
	esac
	chmod 711 "$T"
	chmod 644 "$T/authorized_keys"
	TEST_USER=$1
}
[ -n "${LIB_SSH_USER:-}" ] && lib_ssh_user "$LIB_SSH_USER"

# The sshd refuses to start as root without its privilege-separation dir.
[ "$(id -u)" -eq 0 ] && mkdir -p /run/sshd && chmod 755 /run/sshd

# lib_sshd_extra: SSHD_EXTRA, with SHLVL=1 added to the session
# environment.  bash reads ~/.bashrc for an sshd session only while SHLVL
# is below 2, so a heavy rc file of the machine's user (pyenv and the
# like) is skipped and each channel costs what clawssh and sshd cost.
# sshd takes only the first SetEnv line, so a test's SetEnv is merged in.
lib_sshd_extra() {
	case ${SSHD_EXTRA:-} in
	SetEnv\ *)
		printf 'SetEnv SHLVL=1 %s\n' "${SSHD_EXTRA#SetEnv }" ;;
	*)
		printf 'SetEnv SHLVL=1\n%s\n' "${SSHD_EXTRA:-}" ;;
	esac
}

# lib_sshd_run ARGS: exec sshd with SIGINT and SIGQUIT at their default.
# Started in the background of a non-interactive sh it would inherit
# them ignored and hand that on to every remote command, unlike a real
# sshd: a remote terminal's ^C would then stop nothing.
lib_sshd_run() {
	if env --default-signal=INT true 2>/dev/null; then
		exec env --default-signal=INT,QUIT "$SSHD" "$@"
	fi
	exec "$SSHD" "$@"
}

# start_sshd: pick a free-looking port, start sshd, retry if taken.
start_sshd() {
	tries=0
	while [ $tries -lt 20 ]; do
		tries=$((tries + 1))
		PORT=$(( (($$ * 7919 + tries * 104729 + $(date +%N | sed 's/^0*//;s/^$/0/')) % 30000) + 20000 ))
		cat > "$T/sshd_config" <<-CONF
		Port $PORT
		ListenAddress 127.0.0.1
		HostKey $T/hostkey
		PidFile $T/sshd.pid
		AuthorizedKeysFile $T/authorized_keys
		StrictModes no
		UsePAM no
		PasswordAuthentication no
		KbdInteractiveAuthentication no
		PubkeyAuthentication yes
		PermitRootLogin yes
		MaxStartups 100:30:200
		MaxSessions ${SSHD_MAX_SESSIONS:-100}
		LogLevel VERBOSE
		$(lib_sshd_extra)
		CONF
		: > "$T/sshd.log"
		lib_sshd_run -D -e -f "$T/sshd_config" 2>>"$T/sshd.log" &
		SSHD_PID=$!
		i=0
		while [ $i -lt 100 ]; do
			if grep -q "Server listening" "$T/sshd.log"; then
				write_client_files
				return 0
			fi
			kill -0 "$SSHD_PID" 2>/dev/null || break
			sleep 0.05
			i=$((i + 1))
		done
		kill "$SSHD_PID" 2>/dev/null
		wait "$SSHD_PID" 2>/dev/null
		SSHD_PID=
	done
	echo "could not start sshd:" >&2
	cat "$T/sshd.log" >&2
	exit 99
}

# write_client_files: ssh_config with a "testhost" alias, and known_hosts.
write_client_files() {
	cat > "$T/ssh_config" <<-CONF
	Host testhost
	    HostName 127.0.0.1
	    Port $PORT
	    User $TEST_USER
	    IdentityFile $T/id_ed25519
	    IdentitiesOnly yes
	    UserKnownHostsFile $T/known_hosts
	    GlobalKnownHostsFile none
	    StrictHostKeyChecking yes
	    ConnectTimeout 10
	CONF
	printf '[127.0.0.1]:%s %s\n' "$PORT" \
	    "$(cut -d' ' -f1,2 "$T/hostkey.pub")" > "$T/known_hosts"
}

cexec() {
	"$CLAWSSH" exec -F "$T/ssh_config" "$@"
}

# lib_snapshot PATH...: print what a sentinel looks like (each entry's
# type, mode, owner, size and link target, then every file's sha256),
# to compare before and after an attack.
lib_snapshot() {
	for _p in "$@"; do
		find "$_p" -exec stat -c '%n|%F|%a|%u:%g|%s|%N' {} + | sort
		find "$_p" -type f -exec sha256sum {} + | sort
	done
}

# Tests made of cases: case_N functions, each run in a subshell by
# lib_run_cases "N...", its stderr in $T/case-N.err; lib_case_fail
# records a failure of the current case and lets it go on; a case that
# exits non-zero (fail) counts too.  Every failure is reported at the
# lib_swapper TARGET [SECONDS]: the sh text of a sandbox's background
# attacker: it links lnk -> TARGET, makes "racing", then swaps the names
# real and lnk with swap_race (copied into the workspace) until "stop"
# appears or SECONDS (25) pass; it puts the names back and removes lnk
# and "racing".
lib_swapper() {
	printf '%s\n' "ln -s '$1' lnk; : > racing
	    end=\$((\$(date +%s) + ${2:-25}))
	    while [ ! -e stop ] && [ \$(date +%s) -lt \$end ]; do
		./swap_race real lnk 2000 || break
	    done
	    [ -L real ] && ./swap_race real lnk 1; rm -f lnk racing"
}

# lib_wait_host TEST-ARGS...: wait (up to 10 s) until test(1) ARGS holds on
# the host (a background command's work is done).
lib_wait_host() {
	_i=0
	while ! test "$@" && [ "$_i" -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	test "$@" || lib_case_fail "timed out waiting for: test $*"
}

# lib_cases_as_nonroot VAR CASES: run this test again, its cases CASES
# (VAR names the variable the test takes them from), connected as the
# non-root SSH user clawssh-test; once, from a root run; a case failure
# if that run fails.
lib_cases_as_nonroot() {
	if [ "$(id -u)" -ne 0 ] || [ -n "${LIB_SSH_USER:-}" ]; then
		echo "skipped: needs root (and runs once)" >&2
		return 0
	fi
	env LIB_SSH_USER=clawssh-test "$1=$2" sh "$0" >&2
	_s=$?
	[ "$_s" -eq 0 ] || [ "$_s" -eq 77 ] ||
	    lib_case_fail "as user clawssh-test: status $_s"
}

# lib_log_sane LOG WHAT: fail if LOG (WHAT's) tells of memory gone wrong:
# a double free, a sanitizer's report, an assertion.
lib_log_sane() {
	! grep -E "double free|AddressSanitizer|runtime error|corrupted|Assertion" \
	    "$1" || fail "$2's log says memory went wrong"
}

# lib_alive PID: the process runs (a zombie does not).
lib_alive() {
	[ -r "/proc/$1/stat" ] &&
	    [ "$(sed 's/.*) //' "/proc/$1/stat" 2> /dev/null | cut -c1)" != Z ]
}

# lib_gone PID: wait (up to 5 s) until the process has ended; 0 if it has.
lib_gone() {
	_i=0
	while lib_alive "$1" && [ "$_i" -lt 50 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	! lib_alive "$1"
}

# lib_wait_cmd_gone PATTERN TENTHS: wait (up to TENTHS tenths of a
# second) until no process whose command line matches PATTERN (pgrep -f)
# is left; 0 if none is.
lib_wait_cmd_gone() {
	_i=0
	while pgrep -f "$1" > /dev/null && [ "$_i" -lt "$2" ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	! pgrep -f "$1" > /dev/null
}

# lib_gone_cmd PATTERN: lib_wait_cmd_gone for 5 s; a case failure if one
# is left.
lib_gone_cmd() {
	lib_wait_cmd_gone "$1" 50 || lib_case_fail "$1 still runs"
	return 0
}

# lib_none_left PATTERN WHAT: lib_wait_cmd_gone for 15 s; else list them
# and fail saying WHAT still run on the host.
lib_none_left() {
	lib_wait_cmd_gone "$1" 150 && return 0
	pgrep -af "$1" | sed 's/^/left: /'
	fail "$2 still run on the host"
}

# end, with the tail of the failed cases' stderr.
LIB_CASE=
lib_case_fail() {
	echo "FAIL: case $LIB_CASE: $*" >&2
	printf 'case %s: %s\n' "$LIB_CASE" "$*" >> "$T/case-failures"
}

# lib_run_cases "N...": run case_N for each N; exit 1 listing every
# failure, else 0.
lib_run_cases() {
	: > "$T/case-failures"
	for LIB_CASE in $1; do
		echo "case $LIB_CASE" >&2
		_t0=$(date +%s)
		_n=$(wc -l < "$T/case-failures")
		_l=0
		[ -n "${LIB_CASE_LOG:-}" ] && [ -f "$LIB_CASE_LOG" ] &&
		    _l=$(wc -l < "$LIB_CASE_LOG")
		( "case_$LIB_CASE" ) 2>"$T/case-$LIB_CASE.err" ||
		    lib_case_fail "ended early (status $?)" 2>/dev/null
		_s="$(( $(date +%s) - _t0 )) s"
		if [ "$(wc -l < "$T/case-failures")" -eq "$_n" ]; then
			echo "case $LIB_CASE: ok, $_s" >&2
		else
			echo "case $LIB_CASE: FAILED, $_s; its stderr ends:" >&2
			tail -n 15 "$T/case-$LIB_CASE.err" | sed 's/^/  | /' >&2
			# what the log got while the case ran (its first lines)
			if [ -n "${LIB_CASE_LOG:-}" ] && [ -f "$LIB_CASE_LOG" ]; then
				echo "$LIB_CASE_LOG during case $LIB_CASE:" >&2
				tail -n "+$((_l + 1))" "$LIB_CASE_LOG" |
				    head -n 120 | sed 's/^/  | /' >&2
			fi
		fi
	done
	if [ -s "$T/case-failures" ]; then
		echo "FAILED:" >&2
		cat "$T/case-failures" >&2
		if [ -n "${LIB_CASE_LOG:-}" ] && [ -f "$LIB_CASE_LOG" ]; then
			echo "$LIB_CASE_LOG ends:" >&2
			tail -n 80 "$LIB_CASE_LOG" | sed 's/^/  | /' >&2
		fi
		exit 1
	fi
	exit 0
}

start_sshd
# LIB_DAEMON=1: the test runs with a daemon of its own, so that a bwrap
# sandbox's execs take the host agent's channel (docs/agent.md), the
# path the test would not see otherwise.
if [ -n "${LIB_DAEMON:-}" ]; then
	lib_start_daemon "$T/lib-daemon.log" -vv
fi
