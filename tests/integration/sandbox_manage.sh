#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Using and managing sandboxes against a real sshd: exec -s, list (also
# with an unreachable host), status, stale settings, recreate, destroy,
# prune with faked ages, and ssh-config used by the real ssh client.
. "$TESTLIB"

CLAWSSH_STATE_DIR="$T/state"
export CLAWSSH_STATE_DIR
R="$T/root"
mkdir -p "$XDG_CONFIG_HOME/clawssh"
printf '{ "sandbox": { "remoteRoot": "%s" } }\n' "$R" \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
mkdir -p "$T/ws"
prov() {
	"$CLAWSSH" provision -F "$T/ssh_config" --host testhost \
	    --workspace "$T/ws" "$@"
}
c() {
	"$CLAWSSH" "$@"
}

id=$(prov --key one)
expect_status $? 0 "provision"

# exec -s runs in the workspace and marks the sandbox used.
out=$(c exec -s "$id" -- pwd)
expect_eq "$out" "/workspace" "exec -s working directory (bwrap)"
touch -d '3 hours ago' "$R/$id/last-used"
c exec -s "$id" -- true
expect_status $? 0 "exec -s true"
[ "$(stat -c %Y "$R/$id/last-used")" -gt $(( $(date +%s) - 60 )) ] ||
	fail "exec -s did not update last-used"
out=$(c exec -s "$id" --cwd sub -- pwd 2>&1)
expect_match "$out" "sub" "relative --cwd under the workspace"
c exec -s "$id" -- sh -c 'exit 7'
expect_status $? 7 "exec -s exit status"
c exec -s cnotasandbox1 -- true 2>"$T/err"
expect_status $? 255 "exec -s unknown id"
c exec -s '../etc' -- true 2>"$T/err"
expect_status $? 255 "exec -s bad id"

# list and status.
out=$(c -vv list 2>"$T/err")
expect_match "$out" "^ID" "list header"
expect_match "$(cat "$T/err")" "listed by the host agent" \
    "list: the agent (known from the exec) lists"
expect_match "$out" "$id .*session/one .*mirror .*rw .*host .* ok$" \
    "list row"
c list --json > "$T/json"
grep -q '"state":[[:space:]]*"ok"' "$T/json" || fail "list --json state"
grep -q '"idleSeconds":' "$T/json" || fail "list --json idle"
out=$(c -v status "$id" 2>"$T/err")
expect_status $? 0 "status"
expect_match "$out" "state: *ok" "status state"
expect_match "$out" "key: *one" "status key"
expect_match "$(cat "$T/err")" "status in one step" \
    "status: the entry and the environment in one step"
# Without the host agent: two steps, the same answer but the environment.
out2=$(CLAWSSH_NO_AGENT=1 c -v status "$id" 2>"$T/err")
expect_status $? 0 "status without the agent"
expect_eq "$(echo "$out2" | sed -n '/^state:/p')" \
    "$(echo "$out" | sed -n '/^state:/p')" "status without the agent: state"
case $(cat "$T/err") in *"in one step"*)
	fail "status in one step without the agent" ;;
esac
# status reads its own sandbox's entry on the host, not the others': one
# whose metadata breaks the listing (over SANDBOX_META_MAX) makes list
# fail for that host, and leaves status of another sandbox alone.
big=$(prov --key big)
cp "$R/$big/meta.json" "$T/big-meta"
head -c 70000 /dev/zero | tr '\0' ' ' >> "$R/$big/meta.json"
out=$(c status "$id" --json)
expect_status $? 0 "status beside a broken entry"
expect_match "$out" '"state":[[:space:]]*"ok"' "status state beside a broken entry"
expect_match "$(c list 2>&1)" "$id .*unreachable" "list: the broken host's rows"
cp "$T/big-meta" "$R/$big/meta.json"
c destroy "$big" > /dev/null
expect_status $? 0 "destroy the broken one"

# Stale settings: a warning once, or a refusal with --strict-config.
out=$(prov --key one --access ro 2>"$T/err")
expect_eq "$out" "$id" "stale provision still gives the id"
expect_match "$(cat "$T/err")" "created with other settings; run: clawssh recreate --access 'ro' $id" \
    "stale warning (naming the flag)"
[ "$(grep -c 'other settings' "$T/err")" -eq 1 ] || fail "warned more than once"
prov --key one --access ro --strict-config > "$T/out" 2>"$T/err"
expect_status $? 255 "strict config refuses"
printf '{ "sandbox": { "remoteRoot": "%s", "access": "ro" } }\n' "$R" \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
c exec -s "$id" -- true 2>"$T/err"
expect_status $? 0 "exec -s on a stale sandbox"
expect_match "$(cat "$T/err")" "other settings" "exec -s stale warning"
expect_match "$(c list)" "$id .* stale$" "list shows stale"

# recreate applies the settings in force: same id, fresh, no longer stale.
echo data > "$R/$id/workspace/file"
out=$(c recreate "$id")
expect_eq "$out" "$id" "recreate prints the id"
[ -e "$R/$id/workspace/file" ] && fail "recreate kept the old workspace"
grep -q '"access":[[:space:]]*"ro"' "$R/$id/meta.json" ||
	fail "recreate did not apply access ro"
expect_match "$(c status "$id")" "state: *ok" "ok after recreate"
printf '{ "sandbox": { "remoteRoot": "%s" } }\n' "$R" \
    > "$XDG_CONFIG_HOME/clawssh/config.json"

# A sandbox deleted behind our back shows as missing.
gone=$(prov --key gone)
rm -rf "${R:?}/$gone"
expect_match "$(c list)" "$gone .* missing$" "list shows missing"
c status "$gone" > /dev/null
expect_status $? 1 "status of a missing sandbox"
c exec -s "$gone" -- true 2>"$T/err"
expect_status $? 255 "exec -s in a missing sandbox"
expect_match "$(cat "$T/err")" "no longer exists" "missing sandbox message"
c destroy "$gone" > "$T/out"
expect_status $? 0 "destroy a missing sandbox"
expect_match "$(cat "$T/out")" "forgot" "destroy of a missing one says so"

# prune: faked ages; --dry-run changes nothing.
old=$(prov --key old)
aged=$(prov --key aged)
touch -d '30 hours ago' "$R/$old/last-used"
touch -d '10 days ago' "$R/$aged/meta.json"
out=$(c prune --dry-run)
expect_match "$out" "would prune $old (idle" "dry-run idle"
expect_match "$out" "would prune $aged (age" "dry-run age"
[ -d "$R/$old" ] && [ -d "$R/$aged" ] || fail "dry-run removed something"
out=$(c prune --idle-hours 0)
expect_match "$out" "pruned $aged" "prune by age only"
[ -d "$R/$old" ] || fail "--idle-hours 0 still pruned by idleness"
[ -d "$R/$aged" ] && fail "aged sandbox not pruned"
printf '{ "sandbox": { "remoteRoot": "%s", "prune": { "idleHours": 40 } } }\n' \
    "$R" > "$XDG_CONFIG_HOME/clawssh/config.json"
out=$(c prune --dry-run)
echo "$out" | grep -q "$old" && fail "prune.idleHours from config ignored"
printf '{ "sandbox": { "remoteRoot": "%s" } }\n' "$R" \
    > "$XDG_CONFIG_HOME/clawssh/config.json"
out=$(c prune)
expect_match "$out" "pruned $old" "prune by idleness"
[ -d "$R/$old" ] && fail "idle sandbox not pruned"
[ -d "$R/$id" ] || fail "prune removed a fresh sandbox"
expect_match "$(c list)" "$id" "fresh sandbox still listed"
c list | grep -q "$old" && fail "pruned sandbox still listed"

# ssh-config: the real ssh client reaches the host with it.
c ssh-config "$id" > "$T/stanza"
expect_status $? 0 "ssh-config"
grep -q "^Host clawssh-$id\$" "$T/stanza" || fail "stanza Host line"
out=$(ssh -F "$T/stanza" -o BatchMode=yes "clawssh-$id-host" echo via-ssh)
expect_eq "$out" "via-ssh" "ssh with the generated stanza"

# destroy removes the remote directory and the record.
out=$(c destroy "$id")
expect_match "$out" "destroyed $id" "destroy"
[ -e "$R/$id" ] && fail "destroy left the remote directory"
c status "$id" 2>/dev/null
expect_status $? 255 "status after destroy"

# An edited record pointing outside any sandbox root is refused.
keep=$(prov --key keep)
f="$CLAWSSH_STATE_DIR/sandboxes/$keep.json"
sed "s|\"remoteRoot\":[^,]*|\"remoteRoot\": \"/\"|" "$f" > "$f.new"
mv "$f.new" "$f"
c destroy "$keep" 2>"$T/err"
expect_status $? 255 "destroy with an edited remoteRoot"
[ -d "$R/$keep" ] || fail "edited record removed something"

# list with an unreachable host: shown as such, within ConnectTimeout.
prov --key two > /dev/null
kill "$SSHD_PID"
wait "$SSHD_PID" 2>/dev/null
SSHD_PID=
start=$(date +%s)
out=$(c list 2>"$T/err")
expect_status $? 0 "list with the host down"
[ $(( $(date +%s) - start )) -le 12 ] || fail "list hung on a down host"
expect_match "$out" " unreachable$" "list shows unreachable"
exit 0
