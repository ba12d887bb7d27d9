#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Stop a sandbox's container (contain_oci_stop, for clawssh stop), after
# oci_engine.sh: $1 the engine, $2 the container (clawssh-ID).  Removes
# it (ENGINE rm -f) and prints "stopped", or "not running" when there is
# none.  Exit 0 when none of that name is left, 1 (the engine's message
# on stderr) when removing it failed.
if ! "$1" container inspect "$2" >/dev/null 2>&1; then echo 'not running'; exit 0; fi
"$1" rm -f "$2" >/dev/null || exit 1
echo stopped
