#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The slurm provider driver against a real single-node Slurm cluster
# (scripts/slurm-test-cluster.sh: munge, slurmctld and slurmd from
# Debian's packages, 2 GPUs declared as GRES).  Two sandboxes asking for
# one GPU each get different GPUs, as seen by a command run over SSH
# through the driver's exec_wrap; a third waits (PENDING); destroy frees a
# GPU and the waiting one becomes READY on it; a cancelled job is GONE,
# not READY.  Then a stand-in bin directory makes Slurm's commands hang,
# print garbage or lie, and the driver fails clearly.
# Remote commands are single-quoted on purpose.
# shellcheck disable=SC2016
. "$TESTLIB"

: "${SLURM_DRIVER_CLI:?SLURM_DRIVER_CLI must name the test helper}"
CLUSTER="${top_srcdir:-.}/scripts/slurm-test-cluster.sh"

[ "$(id -u)" -eq 0 ] || { echo "SKIP: slurmd must run as root"; exit 77; }
for p in munged slurmctld slurmd sbatch squeue scontrol scancel srun; do
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

# Commands reach the node over SSH with the cluster's SLURM_CONF, as a
# login on a real cluster node has /etc/slurm/slurm.conf.
kill "$SSHD_PID" 2>/dev/null
wait "$SSHD_PID" 2>/dev/null
# shellcheck disable=SC2034 # lib.sh reads it
SSHD_EXTRA="SetEnv SLURM_CONF=$SLURM_CONF"
start_sshd

# This test is the srun --overlap path: the holder job finds an sshd
# that cannot bind a port (as when a site's firewall or policy refuses
# it), says so, and every command goes through srun into the allocation
# over the node's own sshd.  tests/integration/slurm_sshd.sh is the
# job's own sshd.
cat > "$T/sshd-refused" <<'EOF'
#!/bin/sh
# sshd -D -e -f CONFIG, when no address may be bound.
port=$(sed -n 's/^Port //p' "$4")
echo "Bind to port $port on 0.0.0.0 failed: Permission denied." >&2
echo "Cannot bind any address." >&2
exit 255
EOF
chmod 755 "$T/sshd-refused"
drv() {
	"$SLURM_DRIVER_CLI" -a "--clawssh-identity=$T/id_ed25519" \
	    -a "--clawssh-sshd=$T/sshd-refused" "$@"
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

# in_alloc NAME COMMAND: run sh COMMAND over SSH inside NAME's allocation.
in_alloc() {
	w=$(field "$1" exec_wrap)
	[ -n "$w" ] || fail "$1 has no exec_wrap"
	cexec testhost -- sh -c "$w sh -c '$2'"
}

expect_eq "$(field one state)" ABSENT "unknown sandbox"

drv create one 1 || fail "create one"
drv create two 1 || fail "create two"
wait_state one READY
wait_state two READY
expect_eq "$(field one host)" 127.0.0.1 "endpoint is the node's NodeAddr"
expect_match "$(field one state_text)" \
    '^job [0-9]* RUNNING, srun (no sshd: bind-failed)$' "why srun"
expect_eq "$(field one port)" 0 "the node's own sshd"
expect_eq "$(field one host_keys)" "" "no job host key"
va=$(in_alloc one 'echo $CUDA_VISIBLE_DEVICES $SLURM_STEP_GPUS') ||
    fail "exec in one"
vb=$(in_alloc two 'echo $CUDA_VISIBLE_DEVICES $SLURM_STEP_GPUS') ||
    fail "exec in two"
ga=${va% *}
gb=${vb% *}
expect_eq "$va" "$ga $ga" "CUDA_VISIBLE_DEVICES and SLURM_STEP_GPUS agree"
expect_eq "$vb" "$gb $gb" "CUDA_VISIBLE_DEVICES and SLURM_STEP_GPUS agree"
expect_match "$ga$gb" '^[01][01]$' "GPU indexes seen inside the jobs"
[ "$ga" != "$gb" ] || fail "both sandboxes got GPU $ga"
expect_eq "$(field one gpus)" "$ga" "driver's GPU list for one"
expect_eq "$(field two gpus)" "$gb" "driver's GPU list for two"

# A command's exit status comes back through srun.
in_alloc one 'exit 3' 2>/dev/null
expect_status $? 3 "exit status through exec_wrap"

# The third waits for a GPU.
drv create three 1 || fail "create three"
sleep 2
out=$(drv get three)
expect_match "$out" '^state=PENDING$' "third sandbox waits"
expect_match "$out" 'state_text=job [0-9]* PENDING (Resources)' \
    "pending reason"
expect_match "$out" '^exec_wrap=$' "no exec_wrap while pending"

# Destroying one frees its GPU; the waiting one gets it.
expect_eq "$(drv destroy one)" "existed=1" "destroy one"
wait_state three READY
expect_eq "$(in_alloc three 'echo $CUDA_VISIBLE_DEVICES')" "$ga" \
    "freed GPU reused"
out=$(drv get one)
expect_match "$out" '^state=GONE$' "destroyed sandbox"
expect_match "$out" 'CANCELLED\|COMPLETING' "destroyed sandbox's state text"
expect_eq "$(drv destroy one)" "existed=0" "destroy again"

# A job cancelled behind the driver's back is GONE, not READY.
scancel --name=clawssh-two || fail "scancel"
wait_state two GONE
expect_match "$(field two state_text)" 'CANCELLED\|COMPLETING' "cancelled job"
expect_eq "$(field two exec_wrap)" "" "no exec_wrap for a gone job"

# A new sandbox of a gone one's name is the new job, not the old one.
drv create two 0 || fail "create two again"
wait_state two READY
expect_eq "$(field two gpus)" "" "no GPU asked, none given"

out=$(drv list | sort)
expect_eq "$out" "one GONE -
three READY $ga
two READY -" "list"

# Only clawssh's jobs are listed; a foreign job is left alone.
sbatch --quiet --job-name=other --output=/dev/null --wrap 'sleep 300' ||
    fail "foreign job"
expect_eq "$(drv list | grep -c other)" 0 "foreign job not listed"

# More GPUs than the node has: Slurm refuses, the driver says why.
out=$(drv create big 3 2>&1)
expect_status $? 1 "3 GPUs on a 2-GPU node"
expect_match "$out" "slurm: sbatch failed (exit 1): .*node configuration" \
    "refusal passed on"
# Slurm keeps a record of the refused job: it is GONE, never READY.
out=$(drv get big)
expect_match "$out" '^state=GONE$' "refused sandbox"
expect_match "$out" 'FAILED (BadConstraints)' "refused sandbox's state text"

# Bad requests fail before Slurm sees them.
out=$(drv create '../x' 1 2>&1)
expect_status $? 1 "bad name"
expect_match "$out" "bad sandbox name" "bad name message"
out=$(drv create four -1 2>&1)
expect_status $? 1 "all GPUs"
expect_match "$out" "slurm: ask for 0..64 GPUs, not all" "all GPUs message"
out=$(drv -a 'script.sh' create four 1 2>&1)
expect_status $? 1 "positional extra argument"
expect_match "$out" "not a --option" "extra argument message"

# Stand-ins for Slurm's commands: hanging, garbage, errors, lies.
B="$T/fakebin"
mkdir -p "$B"
fake() {
	printf '#!/bin/sh\n%s\n' "$2" > "$B/$1"
	chmod +x "$B/$1"
}
fake squeue 'exec sleep 307'
start=$(date +%s)
out=$(drv -c "$B" -t 1 get one 2>&1)
expect_status $? 1 "hanging squeue"
expect_match "$out" "squeue did not finish within 1 seconds" "timeout message"
[ $(( $(date +%s) - start )) -lt 5 ] || fail "timeout took too long"
pgrep -f 'sleep 307' >/dev/null && fail "hanging squeue left running"

fake squeue 'printf "garbage\n"'
out=$(drv -c "$B" get one 2>&1)
expect_status $? 1 "garbage from squeue"
expect_match "$out" "slurm: squeue line 1: want ID|STATE" "garbage message"

fake squeue 'printf "12|RUNNING|None|node1|clawssh-one\n"'
fake scontrol 'printf "NodeName=node1 NodeAddr=-oProxyCommand=x\n"'
out=$(drv -c "$B" get one 2>&1)
expect_status $? 1 "hostile NodeAddr"
expect_match "$out" "bad NodeAddr" "hostile NodeAddr message"

fake scontrol 'exec yes NodeAddr=n1'
out=$(drv -c "$B" get one 2>&1)
expect_status $? 1 "endless scontrol"
expect_match "$out" "scontrol printed more than 1048576 bytes" \
    "endless output message"

fake squeue 'printf "12|WEIRD|None||clawssh-one\n"'
out=$(drv -c "$B" get one 2>&1)
expect_status $? 1 "unknown state"
expect_match "$out" "unknown job state" "unknown state message"

fake squeue 'echo "slurm_load_jobs error: Unable to contact slurm" \
    "controller" >&2; exit 1'
out=$(drv -c "$B" list 2>&1)
expect_status $? 1 "squeue failing"
expect_match "$out" "slurm: squeue failed (exit 1): slurm_load_jobs error" \
    "squeue error passed on"

fake sbatch 'echo "Submitted batch job 5"'
out=$(drv -c "$B" create four 1 2>&1)
expect_status $? 1 "sbatch without --parsable output"
expect_match "$out" "sbatch printed no job id" "sbatch garbage message"

# sbatch submits but prints garbage (or hangs): the job it may have
# made is cancelled, not left to become READY behind clawssh's back.
for p in squeue scontrol scancel; do
	ln -sf "$(command -v $p)" "$B/$p"
done
fake sbatch "$(command -v sbatch) \"\$@\" >/dev/null; echo garbage"
out=$(drv -c "$B" create five 0 2>&1)
expect_status $? 1 "sbatch garbage after submitting"
expect_match "$out" "sbatch printed no job id" "sbatch garbage message"
wait_state five GONE
fake sbatch "$(command -v sbatch) \"\$@\" >/dev/null; exec sleep 311"
out=$(drv -c "$B" -t 2 create six 0 2>&1)
expect_status $? 1 "sbatch hanging after submitting"
expect_match "$out" "sbatch did not finish within 2 seconds" \
    "sbatch timeout message"
wait_state six GONE

out=$(drv -c "$T/nonexistent" list 2>&1)
expect_status $? 1 "missing command directory"
expect_match "$out" "cannot run $T/nonexistent/squeue" "missing command"

# start again leaves the running cluster (and its jobs) alone.
pids=$(cat "$S/run/slurmctld.pid" "$S/run/slurmd.pid" \
    "$S/munge/munged.pid")
"$CLUSTER" start "$S" || fail "start again"
expect_eq "$(cat "$S/run/slurmctld.pid" "$S/run/slurmd.pid" \
    "$S/munge/munged.pid")" "$pids" "same daemons after start again"
expect_eq "$(field three state)" READY "jobs kept by start again"

# stop ends every daemon and job it started.
start=$(date +%s)
"$CLUSTER" stop "$S" || fail "stop"
echo "cluster stopped in $(( $(date +%s) - start )) s"
for p in $pids; do
	kill -0 "$p" 2>/dev/null && fail "daemon $p still running after stop"
done
"$CLUSTER" stop "$S" || fail "stop again"
exit 0
