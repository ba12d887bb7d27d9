#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The first step of every docker/podman script (contain_oci.c): $1 the
# engine ("docker" or "podman") must be installed on this host, else
# "clawssh: runtime ENGINE: ENGINE is not installed on this host" on
# stderr and exit 125.
command -v "$1" >/dev/null 2>&1 || { echo "clawssh: runtime $1: $1 is not installed on this host" >&2; exit 125; }
