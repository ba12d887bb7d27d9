#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A laptop gateway driving a GPU sandbox on a Slurm cluster: clawssh asks
# Slurm for an allocation (a holder job with --gres=gpu:1), reaches the
# allocated node over SSH, and runs a training command inside the
# allocation (srun --overlap), so CUDA_VISIBLE_DEVICES is Slurm's choice.
# The project directory is mirrored: local edits go up before each exec,
# checkpoints and logs the run writes come back after it.
#
# Needs on the laptop: the Slurm client commands (sbatch, squeue,
# scontrol, scancel) pointed at the cluster, and an ssh_config that
# reaches its nodes by their NodeAddr, e.g.
#     Host node*.cluster 10.1.*
#         User alice
#         IdentityFile ~/.ssh/id_ed25519
# and in ~/.config/clawssh/config.json:
#     { "providers": { "hpc": { "driver": "slurm",
#                               "command": "/usr/bin",
#                               "readyTimeout": 600 } },
#       "sandbox": { "runtime": "none" } }
# (runtime none: inside an allocation Slurm's cgroup is the container.)
# tests/integration/slurm_provision.sh runs this same flow against the
# suite's own single-node cluster.
#
#   examples/slurm-gpu-gateway.sh [PROJECT_DIR]
set -eu
project=${1:-.}
cd "$project"

id=$(clawssh provision --provider hpc --gpu 1 --key "train-$(whoami)" \
    --workspace "$PWD")
echo "sandbox $id: $(clawssh status "$id" | head -n 1)"

# Mirrored run: train.py and its data go up first; what it writes
# (checkpoints/, train.log) comes back when it ends.
clawssh exec -s "$id" -- sh -c \
    'echo "GPU(s): $CUDA_VISIBLE_DEVICES"; python3 train.py 2>&1 | tee train.log'

# Long runs: start in the background, poll, fetch the log.
h=$(clawssh process start -s "$id" -- python3 train.py --epochs 50)
clawssh process poll -s "$id" "$h"

# Give the GPU back when done: cancels the holder job.
# clawssh destroy "$id"
