#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The one container clean-up (hostdir_destroy.sh): clawctrs ID removes
# the docker and podman containers labelled clawssh.sandbox=ID, and
# nothing else: the sandbox's long-lived clawssh-ID (contain_oci_create
# labels it so), and any left by older versions, running or not.  An ID
# that is not a sandbox id (c and 12 base32 letters) is refused before
# any engine is asked: an empty label value matches every sandbox's
# containers.  Returns 3 (with "clawssh-error: ...") when refused.
clawctrs() {
	case $1 in c[a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7]) ;;
	*) echo "clawssh-error: not removing the containers of '$1': not a sandbox id" >&2; return 3 ;;
	esac
	for e in docker podman; do
		command -v $e >/dev/null 2>&1 || continue
		c=$($e ps -aq --filter "label=clawssh.sandbox=$1" 2>/dev/null |
		    tr -cd '0-9a-f\n')
		[ -z "$c" ] || $e rm -f $c >/dev/null 2>&1
	done
}
