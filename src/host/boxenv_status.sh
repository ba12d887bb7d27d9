#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The bwrap environment's status for clawssh status (cmd_boxenv.c), with
# the parameters of clawssh stop's script: $2 the sandbox's run
# directory, $3 the host agent ('' when none).  Without the agent,
# {"running":false,"agent":false}; else the agent's box-status (JSON).
a=$3; [ -f "$a" ] || { echo '{"running":false,"agent":false}'; exit 0; }
exec "$a" box-status --dir "$2"
