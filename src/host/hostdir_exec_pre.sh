#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host-directory backend's check before each command in a sandbox
# (hostdir_exec_pre in backends/host/hostdir.c): __claw_pre DIR ID, DIR
# the sandbox directory and ID its id, fails with status 255 and
# "clawssh: sandbox ID no longer exists on this host; provision it
# again" on stderr when DIR/workspace is missing or DIR is a link, else
# marks the sandbox used (touches DIR/last-used).  A function, so that
# its values do not take the positional parameters of the command it
# runs before; the caller calls it, then unsets it.
__claw_pre() {
	if [ ! -d "$1/workspace" ] || [ -L "$1" ]; then
		echo "clawssh: sandbox $2 no longer exists on this host; provision it again" >&2
		exit 255
	fi
	touch -c -- "$1/last-used" 2>/dev/null
}
