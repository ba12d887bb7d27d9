#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# process_tool.sh on the fallback: no host agent, so list, poll, log,
# wait, kill and write run the host's sh scripts (src/host/process_*.sh)
# as on a host where the agent cannot run.
CLAWSSH_NO_AGENT=1
export CLAWSSH_NO_AGENT
exec sh "$(dirname "$0")/process_tool.sh"
