#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# security_host.sh with a daemon of its own, so that the sandboxed commands
# take the host agent's channel (issue 18: the security cases pass on
# both the agent path and the shell path; lib.sh fails the run if no
# command went through the agent).
LIB_DAEMON=1
export LIB_DAEMON
exec sh "$(dirname "$0")/security_host.sh"
