#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# process_tool.sh on the fallback: no host agent, so list, poll, log,
# wait, kill and write run the host's sh scripts (src/host/process_*.sh)
# as on a host where the agent cannot run; as the non-root SSH user
# clawssh-test when run as root (process_tool.sh itself connects as
# root), so that both paths meet the host's permissions.
CLAWSSH_NO_AGENT=1
export CLAWSSH_NO_AGENT
if [ "$(id -u)" -eq 0 ] && [ -z "${LIB_SSH_USER:-}" ]; then
	LIB_SSH_USER=clawssh-test
	export LIB_SSH_USER
fi
exec sh "$(dirname "$0")/process_tool.sh"
