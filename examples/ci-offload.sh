#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Offload a CI job's `make test` to a bigger box over SSH.
#
#   examples/ci-offload.sh HOST [DIR]
#
# Ships the current tree as a tar stream over one clawssh exec, runs the
# tests there under a time limit, and exits with their status.  (Workspace
# sync with change tracking is coming in clawssh itself; this is the plain
# version with what exists today.)
set -eu
host=${1:?usage: ci-offload.sh HOST [DIR]}
dir=${2:-/tmp/ci-$(id -un)-$$}

git ls-files -z | tar --null -T - -cf - |
    clawssh exec "$host" -- sh -c 'rm -rf "$1" && mkdir -p "$1" &&
        tar -xf - -C "$1"' sh "$dir"
status=0
clawssh exec "$host" --cwd "$dir" --timeout 1800 -- make -j8 test ||
    status=$?
clawssh exec "$host" -- rm -rf "$dir"
exit $status
