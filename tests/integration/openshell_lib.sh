# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=sh
# Set-up shared by the managed_openshell*.sh tests, sourced after lib.sh:
# the stand-in of OpenShell's CLI (tests/providers/openshell-standin)
# keeps its state in $T/os, clawssh its own in $T/state; a create that
# fails is tried again after 50 ms (then 100 ms), not 2 s.
#   os_config [SSH-MEMBERS [READY-TIMEOUT [TIMEOUT]]]  write config.json:
#            provider "os" drives the stand-in (args --gateway lab, a
#            call's timeout 10 s, readyTimeout 20 s); SSH-MEMBERS are added
#            to the "ssh" object (start them with a comma)
#   os_names  the sandboxes the stand-in has, one a line
#   os_ids    the sandbox ids clawssh has records of, one a line
#   os_key NAME  the base64 of the stand-in sandbox NAME's host key
: "${top_srcdir:?top_srcdir must name the source tree (make check sets it)}"
STANDIN="$top_srcdir/tests/providers/openshell-standin"
CLAWSSH_STATE_DIR="$T/state"
OPENSHELL_STANDIN_DIR="$T/os"
OPENSHELL_STANDIN_SSHD_CONFIG="$T/sshd_config"
CLAWSSH_PROVIDER_RETRY_MS=50
export CLAWSSH_STATE_DIR OPENSHELL_STANDIN_DIR OPENSHELL_STANDIN_SSHD_CONFIG \
    CLAWSSH_PROVIDER_RETRY_MS
R="$T/root"
mkdir -p "$XDG_CONFIG_HOME/clawssh" "$T/ws" "$T/os"

os_config() {
	cat > "$XDG_CONFIG_HOME/clawssh/config.json" <<-CONF
	{
	  "ssh": { "identityFile": "$T/id_ed25519"${1:-} },
	  "sandbox": { "remoteRoot": "$R", "runtime": "none" },
	  "providers": {
	    "os": { "driver": "openshell", "command": "$STANDIN",
	            "args": ["--gateway", "lab"],
	            "timeout": ${3:-10}, "readyTimeout": ${2:-20} }
	  }
	}
	CONF
}

os_names() {
	for _f in "$T/os"/*; do
		_n=${_f##*/}
		case $_n in *.*|calls) continue ;; esac
		[ -f "$_f" ] && echo "$_n"
	done
}

os_ids() {
	for _f in "$T/state/sandboxes"/*.json; do
		[ -f "$_f" ] || continue
		_n=${_f##*/}
		echo "${_n%.json}"
	done
}

os_key() {
	cut -d' ' -f2 "$T/os/$1.key.pub"
}
