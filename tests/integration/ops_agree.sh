#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The three ways in agree (issue 19): every operation of the operations
# table (src/ops/ops_table.c) called through the CLI, JSON-RPC (`serve
# --stdio`) and MCP (`serve --mcp`), wherever the table offers it, on one
# remote-mode sandbox, with the results compared
# (tests/helpers/ops_agree.py).  A method of rpc.methods or a tool of
# tools/list without a case there fails it.  Then the same as the
# non-root user clawssh-test (skipped without root).
# shellcheck source=tests/integration/lib.sh
. "$TESTLIB"
top_srcdir=${top_srcdir:?make check sets it}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: no python3"; exit 77; }

# agree: a sandbox of the ssh user's, then the driver over it.
agree() {
	R="$T/root-$1"
	W="$T/ws-$1"
	XDG_STATE_HOME="$T/state-$1"	# a registry of this run's own
	export XDG_STATE_HOME
	mkdir -m 700 "$R" "$W"
	[ "$TEST_USER" = "$(id -un)" ] || chown "$TEST_USER:" "$R"
	# The user's defaults, so that every surface reaches the host alike.
	cp "$T/ssh_config" "$HOME/.ssh/config"
	mkdir -p "$XDG_CONFIG_HOME/clawssh"
	printf '{ "sandbox": { "remoteRoot": "%s" } }\n' "$R" \
	    > "$XDG_CONFIG_HOME/clawssh/config.json"
	id=$("$CLAWSSH" provision --host testhost --key agree --runtime none \
	    --mode remote --workspace "$W") || fail "provision ($1)"
	python3 "$top_srcdir/tests/helpers/ops_agree.py" "$CLAWSSH" "$id" "$W" \
	    > "$T/agree-$1.out" 2>&1
	_s=$?
	cat "$T/agree-$1.out"
	[ $_s -eq 0 ] || fail "the surfaces disagree ($1)"
}

agree root
if [ "$(id -u)" -eq 0 ]; then
	(lib_ssh_user clawssh-test && write_client_files && agree nonroot) ||
	    fail "as clawssh-test"
fi
echo "ops_agree: done"
