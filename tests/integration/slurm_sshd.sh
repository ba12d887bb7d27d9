#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The slurm driver's holder job runs an sshd of its own inside the
# allocation, on the suite's single-node cluster (2 GPUs as GRES):
# plain ssh to each sandbox's endpoint (its port, its host key pinned,
# the user's key) lands inside its job and sees its GPU only; the host
# key of one job is refused for another, and for the job that replaces
# it; scancel makes the sandbox GONE and leaves neither its sshd nor any
# process started over it (one still in its session, one orphaned)
# running; where no sshd can run (none at that path, no user key,
# turned off) the job says why and commands go through srun --overlap.
# Remote commands are single-quoted on purpose.
# shellcheck disable=SC2016
. "$TESTLIB"

: "${SLURM_DRIVER_CLI:?SLURM_DRIVER_CLI must name the test helper}"
CLUSTER="${top_srcdir:-.}/scripts/slurm-test-cluster.sh"

[ "$(id -u)" -eq 0 ] || { echo "SKIP: slurmd must run as root"; exit 77; }
for p in munged slurmctld slurmd sbatch squeue scontrol scancel srun ssh \
    ss; do
	command -v "$p" >/dev/null 2>&1 || {
		echo "SKIP: $p not installed (scripts/install-deps.sh)"
		exit 77
	}
done

S="$T/slurm"
trap '"$CLUSTER" stop "$S" >/dev/null 2>&1; lib_cleanup' EXIT
if ! "$CLUSTER" start "$S"; then
	tail -n 20 "$S"/log/*.log >&2
	fail "the test cluster did not start"
fi
eval "$("$CLUSTER" env "$S")"
# The srun fallback reaches the node through its own sshd (the test's).
kill "$SSHD_PID" 2>/dev/null
wait "$SSHD_PID" 2>/dev/null
# shellcheck disable=SC2034 # lib.sh reads it
SSHD_EXTRA="SetEnv SLURM_CONF=$SLURM_CONF"
start_sshd

drv() {
	"$SLURM_DRIVER_CLI" -a "--clawssh-identity=$T/id_ed25519" "$@"
}

# field NAME KEY: KEY's value in "drv get NAME".
field() {
	drv get "$1" | sed -n "s/^$2=//p"
}

# wait_state NAME STATE: poll until NAME is in STATE (20 s at most).
wait_state() {
	i=0
	while [ $i -lt 80 ]; do
		[ "$(field "$1" state)" = "$2" ] && return 0
		sleep 0.25
		i=$((i + 1))
	done
	fail "$1 not $2 after 20 s: $(drv get "$1" | tr '\n' ' ')"
}

# pin NAME FILE: FILE pins NAME's host key as clawssh does ("* KEY").
pin() {
	printf '* %s\n' "$(field "$1" host_keys)" > "$2"
}

# ssh_to NAME KNOWN_HOSTS COMMAND: plain ssh to NAME's endpoint, read
# from one "drv get" (a driver call that fails under load would
# otherwise hand ssh an empty port and look like ssh's own 255).
ssh_to() {
	e=$(drv get "$1") || { echo "drv get $1 failed: $e" >&2; return 99; }
	ep=$(printf '%s\n' "$e" | sed -n 's/^port=//p')
	eu=$(printf '%s\n' "$e" | sed -n 's/^user=//p')
	eh=$(printf '%s\n' "$e" | sed -n 's/^host=//p')
	if [ -z "$ep" ] || [ -z "$eu" ] || [ -z "$eh" ]; then
		echo "no endpoint for $1: $e" >&2
		return 99
	fi
	ssh -F /dev/null -p "$ep" -l "$eu" \
	    -i "$T/id_ed25519" -o IdentitiesOnly=yes -o BatchMode=yes \
	    -o UserKnownHostsFile="$2" -o GlobalKnownHostsFile=none \
	    -o StrictHostKeyChecking=yes -o ConnectTimeout=10 \
	    "$eh" "$3"
}

# sshd_pid NAME: the pid of the sshd listening on NAME's port.
sshd_pid() {
	ss -Hltnp "sport = :$(field "$1" port)" |
	    sed -n 's/.*"sshd",pid=\([0-9]*\),.*/\1/p' | head -n 1
}

# jobid NAME: NAME's job id, from its state text.
jobid() {
	field "$1" state_text | sed -n 's/^job \([0-9]*\) .*/\1/p'
}

drv create one 1 || fail "create one"
drv create two 1 || fail "create two"
wait_state one READY
wait_state two READY
out=$(drv get one)
expect_match "$out" '^state_text=job [0-9]* RUNNING, sshd on port [0-9]*$' \
    "state text names the job's sshd"
expect_match "$out" '^exec_wrap=$' "no srun wrap with the job's sshd"
expect_match "$out" '^host=127.0.0.1$' "host is the node's NodeAddr"
expect_match "$out" '^port=[1-9][0-9]*$' "the job's sshd has a port"
expect_match "$out" "^user=$(id -un)\$" "the user the job runs as"
expect_match "$out" "^identity=$T/id_ed25519\$" "the identity it lets in"
expect_match "$out" '^host_keys=ssh-ed25519 [A-Za-z0-9+/=]*$' "host key"
[ "$(field one port)" != "$(field two port)" ] || fail "one port for two"
[ "$(field one host_keys)" != "$(field two host_keys)" ] ||
	fail "one host key for two jobs"
pin one "$T/kh-one"
pin two "$T/kh-two"

# Plain ssh lands inside each job and sees its GPU only.
va=$(ssh_to one "$T/kh-one" 'echo $CUDA_VISIBLE_DEVICES $SLURM_JOB_ID') ||
    fail "ssh to one"
vb=$(ssh_to two "$T/kh-two" 'echo $CUDA_VISIBLE_DEVICES $SLURM_JOB_ID') ||
    fail "ssh to two"
ga=${va% *}
gb=${vb% *}
expect_eq "${va#* }" "$(jobid one)" "ssh to one lands in one's job"
expect_eq "${vb#* }" "$(jobid two)" "ssh to two lands in two's job"
expect_match "$ga$gb" '^[01][01]$' "GPU indexes seen over ssh"
[ "$ga" != "$gb" ] || fail "both sandboxes see GPU $ga"
expect_eq "$(field one gpus)" "$ga" "driver's GPU list for one"
expect_eq "$(field two gpus)" "$gb" "driver's GPU list for two"
out=$(ssh_to one "$T/kh-one" 'exit 3' 2>&1)
expect_status $? 3 "exit status over the job's sshd ($out)"

# One job's host key is not another's.
out=$(ssh_to one "$T/kh-two" true 2>&1)
expect_status $? 255 "two's host key for one's endpoint"
expect_match "$out" "Host key verification failed" "pinned key refused"

# A process in a live session and an orphaned one, both started over
# one's sshd; then scancel behind the driver's back.
ssh_to one "$T/kh-one" 'exec sleep 4242' </dev/null >/dev/null 2>&1 &
cpid=$!
out=$(ssh_to one "$T/kh-one" \
    'setsid sleep 4243 </dev/null >/dev/null 2>&1 &' 2>&1) ||
    fail "start an orphan in one (ssh status $?): $out"
i=0
until [ "$(pgrep -c -f '^sleep 424[23]$')" -eq 2 ]; do
	[ $i -lt 40 ] || fail "sleep 4242 and 4243 did not start in one"
	sleep 0.25
	i=$((i + 1))
done
spid=$(sshd_pid one)
expect_match "$spid" '^[0-9][0-9]*$' "one's sshd listens"
jdir=$(ps -o args= -p "$spid" | sed -n 's|.* -f \(/[^ ]*\)/config.*|\1|p')
expect_match "$jdir" '/clawssh-job\.' "one's job directory"
[ -d "$jdir" ] || fail "no directory $jdir"
oport=$(field one port)
okey=$(field one host_keys)
scancel --name=clawssh-one || fail "scancel one"
wait_state one GONE
expect_match "$(field one state_text)" 'CANCELLED\|COMPLETING' "cancelled"
expect_eq "$(field one port)" 0 "no endpoint for a gone job"
i=0
while pgrep -f '^sleep 424[23]$' >/dev/null || kill -0 "$spid" 2>/dev/null; do
	[ $i -lt 40 ] || fail "left running after scancel:" \
	    "$(pgrep -a -f '^sleep 424[23]$'; ps -o pid=,args= -p "$spid")"
	sleep 0.25
	i=$((i + 1))
done
wait "$cpid" 2>/dev/null
expect_eq "$(ss -Hltn "sport = :$oport" | wc -l)" 0 "one's port closed"
[ -e "$jdir" ] && fail "one's job directory $jdir left behind"
ssh_to two "$T/kh-two" true || fail "two untouched by one's end"

# The job that replaces one has a host key of its own: one's old pin
# does not let clawssh into it.
drv create one 1 || fail "create one again"
wait_state one READY
[ "$(field one host_keys)" != "$okey" ] || fail "recreated job kept the key"
out=$(ssh_to one "$T/kh-one" true 2>&1)
expect_status $? 255 "the old job's key for the new job"
expect_match "$out" "Host key verification failed" "old pin refused"
pin one "$T/kh-one"
expect_eq "$(ssh_to one "$T/kh-one" 'echo $CUDA_VISIBLE_DEVICES')" "$ga" \
    "the new job over its own key, on the freed GPU"

# No sshd at that path, no user key, turned off: srun, and why.
in_alloc() {
	w=$(field "$1" exec_wrap)
	[ -n "$w" ] || fail "$1 has no exec_wrap"
	cexec testhost -- sh -c "$w sh -c '$2'"
}
drv -a "--clawssh-sshd=$T/no/sshd" create three 0 || fail "create three"
wait_state three READY
out=$(drv get three)
expect_match "$out" '^state_text=job [0-9]* RUNNING, srun (no sshd: no-sshd)$' \
    "no sshd at the path"
expect_match "$out" '^port=0$' "no port of the job's own"
expect_match "$out" '^host_keys=$' "no host key to pin"
expect_eq "$(in_alloc three 'echo $SLURM_JOB_ID')" "$(jobid three)" \
    "srun into three's allocation"
# (The node has 4 CPUs: each of these jobs gives its own back.)
drv destroy three >/dev/null || fail "destroy three"
HOME="$T/home" "$SLURM_DRIVER_CLI" create four 0 || fail "create four"
wait_state four READY
expect_match "$(field four state_text)" 'srun (no sshd: no-user-key)$' \
    "no key to let in"
drv destroy four >/dev/null || fail "destroy four"
drv -a --clawssh-sshd=no create five 0 || fail "create five"
wait_state five READY
expect_match "$(field five state_text)" 'srun (no sshd: disabled)$' \
    "sshd turned off"
out=$(drv -a --clawssh-sshd=sshd create six 0 2>&1)
expect_status $? 1 "relative sshd path"
expect_match "$out" "clawssh-sshd= takes an absolute path or no" \
    "relative sshd message"

# destroy ends the other sshds as scancel did.
spid=$(sshd_pid two)
expect_eq "$(drv destroy two)" "existed=1" "destroy two"
i=0
while kill -0 "$spid" 2>/dev/null; do
	[ $i -lt 40 ] || fail "two's sshd outlived destroy"
	sleep 0.25
	i=$((i + 1))
done
for n in one five; do
	drv destroy "$n" >/dev/null || fail "destroy $n"
done
exit 0
