#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The host-directory backend (after hostdir_prelude.sh): the remote root
# must exist (created 0700 if not), be a directory and not a link, and
# belong to the user running the script.
# shellcheck disable=SC2154 # $root: hostdir_prelude.sh
# shellcheck disable=SC2174 # -m for the root itself; the umask is 077
[ -d "$root" ] || mkdir -p -m 700 -- "$root" ||
    clawfail "cannot create remoteRoot $root"
[ -d "$root" ] && [ ! -L "$root" ] ||
    clawfail "remoteRoot $root is not a directory"
owner=$(ls -ldn -- "$root" | awk '{ print $3 }')
[ "$owner" = "$(id -u)" ] ||
    clawfail "remoteRoot $root is owned by uid $owner, not by $(id -un)"
