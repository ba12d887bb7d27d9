#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The managed backend with the "command" driver, driven by the example
# provider examples/providers/local-sshd (which hands back the test sshd):
# get-or-create, the record, exec and mirror sync over the endpoint,
# list, status, recreate, destroy through the provider.
. "$TESTLIB"
top_srcdir=${top_srcdir:?make check sets it}

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
P="$T/pstate"
mkdir -p "$XDG_CONFIG_HOME/clawssh" "$T/ws"
cat > "$XDG_CONFIG_HOME/clawssh/config.json" <<CONF
{
  "sandbox": { "remoteRoot": "$R", "runtime": "none" },
  "providers": {
    "local": {
      "driver": "command",
      "command": "$top_srcdir/examples/providers/local-sshd",
      "args": ["--port", "$PORT", "--identity", "$T/id_ed25519",
               "--host-key", "$T/hostkey.pub", "--state", "$P"],
      "timeout": 10, "readyTimeout": 10
    },
    "wrapped": {
      "driver": "command",
      "command": "$top_srcdir/examples/providers/local-sshd",
      "args": ["--port", "$PORT", "--identity", "$T/id_ed25519",
               "--host-key", "$T/hostkey.pub", "--state", "$P.w",
               "--exec-wrap", "env CLAW_WRAPPED=yes"]
    }
  }
}
CONF
# No ssh_config and an empty known_hosts: the endpoint alone must do.
: > "$HOME/.ssh/known_hosts"
prov() {
	"$CLAWSSH" provision --provider local --workspace "$T/ws" "$@"
}
c() {
	"$CLAWSSH" "$@"
}

id=$(prov --key one --from base-image --gpu 2 --policy strict)
expect_status $? 0 "provision through the provider"
expect_match "$id" '^c[a-z2-7]\{12\}$' "id shape"
name="claw-$id"
[ -f "$P/$name" ] || fail "the provider did not create $name"
grep -q '"image":"base-image"' "$P/$name" || fail "create request: image"
grep -q '"gpus":2' "$P/$name" || fail "create request: gpus"
grep -q '"policy":"strict"' "$P/$name" || fail "create request: policy"
[ -f "$R/$id/meta.json" ] || fail "no sandbox directory on the endpoint"
rec="$T/state/sandboxes/$id.json"
grep -q '"backend":[[:space:]]*"managed"' "$rec" || fail "record backend"
grep -q '"provider":[[:space:]]*"local"' "$rec" || fail "record provider"
grep -q "\"providerName\":[[:space:]]*\"$name\"" "$rec" ||
	fail "record providerName"
[ -s "$T/state/known_hosts.d/$id" ] || fail "host key not pinned"

# Again: found, not created (the provider's file is untouched).
inode=$(stat -c %i "$P/$name")
id2=$(prov --key one --from base-image --gpu 2 --policy strict -v 2>"$T/err")
expect_eq "$id2" "$id" "second provision"
expect_match "$(cat "$T/err")" "found" "second provision found it"
expect_eq "$(stat -c %i "$P/$name")" "$inode" "not created again"

# exec and mirror sync reach it over the endpoint.
echo hello > "$T/ws/in.txt"
out=$(c exec -s "$id" -- sh -c 'cat in.txt; echo made > out.txt')
expect_status $? 0 "exec -s"
expect_eq "$out" "hello" "exec -s sees the synced workspace"
expect_eq "$(cat "$T/ws/out.txt")" "made" "mirror pulled the result"

# list and status show it.
out=$(c list)
expect_match "$out" "$id .*session/one .* ok$" "list row"
out=$(c status "$id")
expect_match "$out" "state: *ok" "status"
expect_match "$out" "provider: *local, as $name: ready" "status: provider"
c list --json | grep -q "\"providerName\":[[:space:]]*\"$name\"" ||
	fail "list --json: providerName"

# A second sandbox, other key: another provider sandbox.
id3=$(prov --key two)
expect_status $? 0 "second key"
[ "$id3" != "$id" ] || fail "keys share a sandbox"
[ -f "$P/claw-$id3" ] || fail "second provider sandbox"

# list --provider: what the provider has, with the local record of each.
echo '{}' > "$P/claw-corphan00000"
out=$(c list --provider local)
expect_status $? 0 "list --provider"
expect_match "$out" "^$name  *ready  *$id" "list --provider: recorded"
expect_match "$out" "^claw-$id3  *ready  *$id3" "list --provider: second"
expect_match "$out" "^claw-corphan00000  *ready  *- " "list --provider: orphan"
rm -f "$P/claw-corphan00000"

# recreate replaces the machine through the provider, same request.
echo stale-marker >> "$P/$name"
touch "$R/$id/workspace/marker"
out=$(c recreate "$id")
expect_status $? 0 "recreate"
expect_eq "$out" "$id" "recreate output"
grep -q stale-marker "$P/$name" && fail "not created again"
grep -q '"gpus":2' "$P/$name" || fail "recreate lost the request"
[ -f "$R/$id/meta.json" ] || fail "recreate: no sandbox directory"
[ -e "$R/$id/workspace/marker" ] && fail "recreate kept the old sandbox"
grep -q "\"providerName\":[[:space:]]*\"$name\"" "$rec" ||
	fail "recreate: record lost its provider"

# destroy goes through the provider and forgets everything.
out=$(c destroy "$id")
expect_status $? 0 "destroy"
expect_match "$out" "destroyed $id" "destroy output"
[ -e "$P/$name" ] && fail "provider sandbox left after destroy"
[ -e "$rec" ] && fail "record left after destroy"
[ -e "$R/$id" ] && fail "sandbox directory left after destroy"
[ -e "$T/state/known_hosts.d/$id" ] && fail "pinned key left"

# A sandbox the provider lost: destroy still forgets it.
rm -f "$P/claw-$id3"
out=$(c status "$id3")
expect_match "$out" "provider: *local, as claw-$id3: absent" \
    "status of a lost sandbox"
out=$(c destroy "$id3")
expect_status $? 0 "destroy of a lost sandbox"
[ -e "$T/state/sandboxes/$id3.json" ] && fail "lost sandbox's record left"

# An endpoint's exec wrapper runs every command, in the workspace.
idw=$(prov --provider wrapped --key w)
expect_status $? 0 "provision with an exec wrapper"
grep -q '"execWrap":[[:space:]]*"env CLAW_WRAPPED=yes"' \
    "$T/state/sandboxes/$idw.json" || fail "execWrap not recorded"
out=$(c exec -s "$idw" -- sh -c 'echo "$CLAW_WRAPPED $(pwd)"')
expect_eq "$out" "yes $R/$idw/workspace" "exec under the wrapper"
mkdir -p "$T/ws/sub"
out=$(c exec -s "$idw" --cwd sub -- pwd)
expect_eq "$out" "$R/$idw/workspace/sub" "--cwd under the wrapper"

# prune deletes an idle managed sandbox at its provider too.
touch -d '3 days ago' "$R/$idw/last-used"
out=$(c prune --idle-hours 1)
expect_status $? 0 "prune"
expect_match "$out" "pruned $idw" "prune output"
[ -e "$P.w/claw-$idw" ] && fail "prune left the provider's sandbox"
[ -e "$T/state/sandboxes/$idw.json" ] && fail "prune left the record"

# Unknown provider, and --host with --provider, are refused.
prov --key x --provider nope 2>"$T/err"
expect_status $? 255 "unknown provider"
expect_match "$(cat "$T/err")" "no provider 'nope'" "unknown provider message"
c provision --provider local --host testhost --key x 2>"$T/err"
expect_status $? 255 "--host with --provider"
exit 0
