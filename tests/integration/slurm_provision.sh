#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# `clawssh provision --provider` with the slurm driver, end to end, on the
# suite's own single-node Slurm cluster (2 GPUs as GRES): two mirror-mode
# sandboxes asking for one GPU each are reached at their jobs' own sshds
# (-v says so) and see different GPUs in `clawssh exec -s`; a file the
# command writes comes back; each job's host key is pinned, and the job
# `recreate` makes has a new key that replaces the old pin (the old key is
# refused); destroy cancels the holder job and frees the GPU for the next
# sandbox; a provider whose jobs run no sshd goes through srun.
# Remote commands are single-quoted on purpose.
# shellcheck disable=SC2016
. "$TESTLIB"

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
"$CLUSTER" start "$S" || fail "the test cluster did not start"
eval "$("$CLUSTER" env "$S")"
kill "$SSHD_PID" 2>/dev/null
wait "$SSHD_PID" 2>/dev/null
# shellcheck disable=SC2034 # lib.sh reads it
SSHD_EXTRA="SetEnv SLURM_CONF=$SLURM_CONF"
start_sshd
# How to reach the cluster's nodes' own sshd (the srun fallback's
# endpoint is a NodeAddr), as a site's ssh_config would say it.
sed 's/^Host testhost$/Host */' "$T/ssh_config" > "$T/nodes"
cat "$T/nodes" >> "$T/ssh_config"

mkdir -p "$XDG_CONFIG_HOME/clawssh" "$T/wa" "$T/wb" "$T/wc" "$T/wd"
bin=$(dirname "$(command -v sbatch)")
printf '{ "sandbox": { "remoteRoot": "%s", "runtime": "none" },
  "providers": {
    "hpc": { "driver": "slurm", "command": "%s", "readyTimeout": 60,
             "args": [ "--clawssh-identity=%s" ] },
    "hpcsrun": { "driver": "slurm", "command": "%s", "readyTimeout": 60,
                 "args": [ "--clawssh-sshd=no" ] } } }\n' \
    "$T/root" "$bin" "$T/id_ed25519" "$bin" \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
prov() {
	"$CLAWSSH" provision --provider hpc -F "$T/ssh_config" --gpu 1 "$@"
}
pins="$XDG_STATE_HOME/clawssh/known_hosts.d"

a=$(prov -v --key a --workspace "$T/wa" 2>"$T/prov-a.err") ||
    fail "provision a: $(cat "$T/prov-a.err")"
expect_match "$(cat "$T/prov-a.err")" \
    "slurm: claw-.*RUNNING, sshd on port [0-9]*: the job's own sshd" \
    "-v names the job's sshd"
b=$(prov --key b --workspace "$T/wb") || fail "provision b"
[ "$a" != "$b" ] || fail "one sandbox for two keys"
ga=$("$CLAWSSH" exec -s "$a" -- sh -c 'echo $CUDA_VISIBLE_DEVICES > gpu.txt; cat gpu.txt')
expect_status $? 0 "exec in a"
gb=$("$CLAWSSH" exec -s "$b" -- sh -c 'echo $CUDA_VISIBLE_DEVICES')
expect_match "$ga$gb" '^[01][01]$' "GPUs seen by the commands"
[ "$ga" != "$gb" ] || fail "both sandboxes got GPU $ga"
expect_eq "$(cat "$T/wa/gpu.txt")" "$ga" "mirror mode brought the file back"
expect_eq "$(prov --key a --workspace "$T/wa")" "$a" "get, not create"
# No srun in between: the command is a child of the job's sshd.
expect_eq "$("$CLAWSSH" exec -s "$a" -- sh -c 'echo ${SLURM_STEP_ID:-none}')" \
    none "a command over the job's sshd is no srun step"

# Each job's host key is pinned for its sandbox alone.
expect_match "$(cat "$pins/$a")" '^\* ssh-ed25519 [A-Za-z0-9+/=]*$' \
    "a's pinned key"
[ "$(cat "$pins/$a")" != "$(cat "$pins/$b")" ] || fail "one key for two jobs"

# recreate: a new job with a new host key; the old one is trusted no more.
old=$(cat "$pins/$a")
"$CLAWSSH" recreate -F "$T/ssh_config" "$a" >/dev/null 2>"$T/rec.err" ||
    fail "recreate a: $(cat "$T/rec.err")"
new=$(cat "$pins/$a")
expect_match "$new" '^\* ssh-ed25519 [A-Za-z0-9+/=]*$' "a's new pinned key"
[ "$new" != "$old" ] || fail "recreate kept the old job's host key"
expect_eq "$("$CLAWSSH" exec -s "$a" -- sh -c 'echo $CUDA_VISIBLE_DEVICES')" \
    "$ga" "the new job has the GPU the old one gave back"
printf '%s\n' "$old" > "$pins/$a"
out=$("$CLAWSSH" exec -s "$a" -- true 2>&1)
expect_status $? 255 "the old job's key for the new job"
expect_match "$out" "host key" "refused for its host key"
printf '%s\n' "$new" > "$pins/$a"

"$CLAWSSH" destroy "$a" || fail "destroy a"
i=0
while squeue --noheader --states=RUNNING --format=%j | grep -q .; do
	[ "$(squeue --noheader --states=RUNNING --format=%j | wc -l)" -le 1 ] &&
		break
	[ $i -lt 40 ] || fail "destroy left the job running"
	sleep 0.25
	i=$((i + 1))
done
c=$(prov --key c --workspace "$T/wc") || fail "provision c after destroy"
gc=$("$CLAWSSH" exec -s "$c" -- sh -c 'echo $CUDA_VISIBLE_DEVICES')
expect_eq "$gc" "$ga" "the freed GPU went to the next sandbox"
"$CLAWSSH" destroy "$b" || fail "destroy b"
"$CLAWSSH" destroy "$c" || fail "destroy c"

# No sshd in the job: the node's own sshd and srun, and -v says so.
d=$("$CLAWSSH" provision --provider hpcsrun -F "$T/ssh_config" --gpu 1 -v \
    --key d --workspace "$T/wd" 2>"$T/prov-d.err") ||
    fail "provision d: $(cat "$T/prov-d.err")"
expect_match "$(cat "$T/prov-d.err")" \
    "srun (no sshd: disabled): commands run through srun --overlap" \
    "-v names the srun path"
[ -e "$pins/$d" ] && fail "a pin for a job without an sshd"
gd=$("$CLAWSSH" exec -s "$d" -- sh -c 'echo $CUDA_VISIBLE_DEVICES $SLURM_STEP_ID')
expect_match "$gd" '^[01] [0-9][0-9]*$' "srun step with a GPU in d"
"$CLAWSSH" destroy "$d" || fail "destroy d"
exit 0
