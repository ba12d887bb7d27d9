#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What an agent gateway does for one session: get the session's sandbox on
# a GPU box (created once, however many tool calls ask), run tool calls in
# it, and let the operator's prune job clean up later.
#
#   examples/agent-session.sh HOST SESSION_ID
set -eu
host=${1:?usage: agent-session.sh HOST SESSION_ID}
session=${2:?usage: agent-session.sh HOST SESSION_ID}

id=$(clawssh provision --host "$host" --scope session --key "$session")
echo "sandbox $id"
clawssh exec -s "$id" --timeout 60 -- sh -c 'uname -a; nvidia-smi -L || true'
clawssh exec -s "$id" -- sh -c 'echo "step 1" >> progress.log; cat progress.log'
clawssh status "$id"
# Later, from cron:  clawssh prune --idle-hours 24 --max-age-days 7
