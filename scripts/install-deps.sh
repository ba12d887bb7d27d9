#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Install what clawssh needs to build, test and demo on Debian 12 (as root).
# Safe to run again; skips apt when everything is already there.
set -eu

PACKAGES="build-essential autoconf automake libtool pkg-config
libssh2-1-dev libssl-dev libcjson-dev libarchive-dev libcmocka-dev
libinotifytools0-dev inotify-tools openssh-client openssh-server bubblewrap busybox-static procps
musl-tools
time hyperfine valgrind rsync git netcat-openbsd jq mandoc
shellcheck clang libclang-rt-14-dev
munge slurmctld slurmd slurm-client
podman runc catatonit
googletest cmake"

missing=
for p in $PACKAGES; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
	    grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: need root to install:$missing" >&2
		exit 1
	fi
	echo "install-deps: installing$missing"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
# The MCP test drives the official TypeScript SDK (tests/mcp): Node.js 18
# or later and npm; Debian's packages when the machine has none.
if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	apt-get install -y -q --no-install-recommends nodejs npm
fi
# The Debian package may have started a system sshd; tests start their own
# on other ports and leave any system one alone.
