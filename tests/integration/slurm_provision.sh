#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# `clawssh provision --provider` with the slurm driver, end to end, on the
# suite's own single-node Slurm cluster (2 GPUs as GRES): two mirror-mode
# sandboxes asking for one GPU each get different GPUs, seen by commands
# run with `clawssh exec -s`; a file the command writes comes back;
# destroy cancels the holder job and frees the GPU for the next sandbox.
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
# How to reach the cluster's nodes (the endpoint is a NodeAddr), as a
# site's ssh_config would say it.
sed 's/^Host testhost$/Host */' "$T/ssh_config" > "$T/nodes"
cat "$T/nodes" >> "$T/ssh_config"

mkdir -p "$XDG_CONFIG_HOME/clawssh" "$T/wa" "$T/wb" "$T/wc"
printf '{ "sandbox": { "remoteRoot": "%s", "runtime": "none" },
  "providers": { "hpc": { "driver": "slurm", "command": "%s",
                          "readyTimeout": 60 } } }\n' \
    "$T/root" "$(dirname "$(command -v sbatch)")" \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
prov() {
	"$CLAWSSH" provision --provider hpc -F "$T/ssh_config" --gpu 1 "$@"
}

a=$(prov --key a --workspace "$T/wa") || fail "provision a"
b=$(prov --key b --workspace "$T/wb") || fail "provision b"
[ "$a" != "$b" ] || fail "one sandbox for two keys"
ga=$("$CLAWSSH" exec -s "$a" -- sh -c 'echo $CUDA_VISIBLE_DEVICES > gpu.txt; cat gpu.txt')
expect_status $? 0 "exec in a"
gb=$("$CLAWSSH" exec -s "$b" -- sh -c 'echo $CUDA_VISIBLE_DEVICES')
expect_match "$ga$gb" '^[01][01]$' "GPUs seen by the commands"
[ "$ga" != "$gb" ] || fail "both sandboxes got GPU $ga"
expect_eq "$(cat "$T/wa/gpu.txt")" "$ga" "mirror mode brought the file back"
expect_eq "$(prov --key a --workspace "$T/wa")" "$a" "get, not create"

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
"$CLAWSSH" destroy "$b" && "$CLAWSSH" destroy "$c" || fail "destroy b, c"
exit 0
