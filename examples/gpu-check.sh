#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Ask a GPU box what it has, with a bounded wait.
#   examples/gpu-check.sh HOST
set -eu
host=${1:?usage: gpu-check.sh HOST}
clawssh exec "$host" --timeout 30 -- nvidia-smi \
    --query-gpu=index,name,memory.total,utilization.gpu --format=csv
