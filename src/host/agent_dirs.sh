#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Deploying the host agent (src/tools/agent_deploy.c), shared by
# agent_check.sh and agent_install.sh: where the host keeps its agents.
# The SSH user's cache directory, else (no home, or one it cannot write)
# a directory of its own in the host's temporary directory, taken only
# if it is the user's own and not a link (and then kept 0700).
# clawdirs prints the candidates; clawmine DIR makes DIR usable or fails.
clawdirs() {
	echo "${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/clawssh/agent"
	echo "${TMPDIR:-/tmp}/clawssh-agent-$(id -u)"
}
clawmine() {
	case $1 in /*) ;; *) return 1 ;; esac
	case $1 in
	*/clawssh-agent-*) mkdir -m 700 -- "$1" 2>/dev/null ;;
	*) mkdir -p -- "$1" 2>/dev/null ;;
	esac
	# shellcheck disable=SC3062 # -O: dash, bash and busybox have it
	[ -d "$1" ] && [ ! -L "$1" ] && [ -O "$1" ] &&
	    chmod 700 -- "$1" 2>/dev/null
}
