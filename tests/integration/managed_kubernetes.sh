#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The "kubernetes" provider driver against tests/providers/kubectl-standin:
# a contract test (no Kubernetes can run here).  A SandboxClaim per scope
# key against the warm pool of a template, the wait through a Pending pod
# to Running and Ready, the host key read through kubectl exec and pinned,
# exec over the ProxyCommand (kubectl exec -i POD -- sshd -i, here the
# test's sshd), the same sandbox for the same key, a warm pool's pod,
# GPUs from the template, list and prune by label, recreate, destroy; and
# one failure per modelled failure: quota exceeded, image pull back-off,
# an invalid image, unschedulable, no warm pool, a failed pod, a claim
# that is not ours, a kubectl that prints garbage, bad settings.
. "$TESTLIB"
command -v jq > /dev/null || { echo "SKIP: no jq" >&2; exit 77; }
: "${top_srcdir:?}"

CLAWSSH_STATE_DIR="$T/state"
KUBECTL_STANDIN_DIR="$T/k8s"
export CLAWSSH_STATE_DIR KUBECTL_STANDIN_DIR
K="$top_srcdir/tests/providers/kubectl-standin"
R="$T/root"
NS="$T/k8s/ns/agents"
mkdir -p "$XDG_CONFIG_HOME/clawssh" "$T/ws" "$T/k8s"
echo lab > "$T/k8s/contexts"
: > "$T/kubeconfig"
printf '#!/bin/sh\necho "this is not JSON"\n' > "$T/garbage"
printf '#!/bin/sh\necho "{} {}"\n' > "$T/twice"
chmod +x "$T/garbage" "$T/twice"
# args KUBECTL-EXTRA...: the driver's settings, as a JSON array.
args() {
	printf '"namespace=agents", "context=lab", "kubeconfig=%s",' "$T/kubeconfig"
	printf ' "template=sshd", "sshd=%s -i -f %s",' "$SSHD" "$T/sshd_config"
	printf ' "hostKey=%s"' "$T/hostkey.pub"
}
cat > "$XDG_CONFIG_HOME/clawssh/config.json" <<CONF
{
  "ssh": { "identityFile": "$T/id_ed25519" },
  "sandbox": { "remoteRoot": "$R", "runtime": "none" },
  "providers": {
    "k8s": { "driver": "kubernetes", "command": "$K",
             "args": [$(args)], "timeout": 30, "readyTimeout": 20 },
    "fast": { "driver": "kubernetes", "command": "$K",
              "args": [$(args)], "timeout": 30, "readyTimeout": 12 },
    "garbage": { "driver": "kubernetes", "command": "$T/garbage",
                 "args": ["namespace=agents"], "timeout": 30 },
    "twice": { "driver": "kubernetes", "command": "$T/twice" },
    "badargs": { "driver": "kubernetes", "command": "$K",
                 "args": ["namespace=agents", "colour=blue"] },
    "badctx": { "driver": "kubernetes", "command": "$K",
                "args": ["context=elsewhere", "template=sshd"] }
  }
}
CONF
# No known_hosts at all: the pinned key from the pod must do.
: > "$HOME/.ssh/known_hosts"

# kube ARGS...: the stand-in, as an administrator would use kubectl.
kube() {
	"$K" --context lab -n agents "$@"
}
# template NAME IMAGE GPUS [NODE-SELECTOR-JSON]: a SandboxTemplate.
template() {
	jq -n --arg n "$1" --arg i "$2" --arg g "$3" \
	    --argjson sel "${4:-null}" '{apiVersion:
	    "extensions.agents.x-k8s.io/v1beta1", kind: "SandboxTemplate",
	    metadata: {name: $n}, spec: {podTemplate: {spec: {
	      nodeSelector: $sel, containers: [{name: "sandbox", image: $i,
	      command: ["/usr/sbin/sshd", "-D", "-e"],
	      resources: {limits: {"nvidia.com/gpu": $g}}}]}}}}' |
	    kube create -f - > /dev/null || fail "template $1"
}
# pool NAME TEMPLATE [READY]: a SandboxWarmPool.
pool() {
	jq -n --arg n "$1" --arg t "$2" --argjson r "${3:-0}" '{apiVersion:
	    "extensions.agents.x-k8s.io/v1beta1", kind: "SandboxWarmPool",
	    metadata: {name: $n}, spec: {replicas: $r,
	      sandboxTemplateRef: {name: $t}}, status: {readyReplicas: $r}}' |
	    kube create -f - > /dev/null || fail "pool $1"
}
template sshd example.org/sshd:1 0
pool sshd-pool sshd
template gpu1 example.org/cuda-sshd:1 1
pool gpu1-pool gpu1
template warm example.org/sshd:1 0
pool warm-pool warm 1
template pull registry.invalid/sshd:1 0
pool pull-pool pull
template badname example.org/SSHD 0
pool badname-pool badname
template big example.org/cuda-sshd:1 16
pool big-pool big
template picky example.org/sshd:1 0 '{"zone": "mars"}'
pool picky-pool picky
template lonely example.org/sshd:1 0

prov() {
	"$CLAWSSH" provision --workspace "$T/ws" "$@"
}
c() {
	"$CLAWSSH" "$@"
}
# claim NAME: the stored claim (the stand-in's state).
claim() {
	cat "$NS/sandboxclaims/$1.json"
}

# get-or-create: a claim named from the key, the wait, the SSH path.
id=$(prov --provider k8s --key k 2>"$T/err")
expect_status $? 0 "provision through kubernetes: $(cat "$T/err")"
name="claw-$id"
expect_match "$name" '^claw-c[a-z2-7]\{12\}$' "claim name is a DNS label"
expect_eq "$(claim "$name" | jq -r .spec.warmPoolRef.name)" sshd-pool \
    "the claim names the template's warm pool"
expect_eq "$(claim "$name" | jq -r '.metadata.labels["app.kubernetes.io/managed-by"] + " " + .metadata.labels["clawssh/provider"]')" \
    "clawssh k8s" "the claim's labels"
expect_eq "$(claim "$name" | jq -r .apiVersion)" \
    extensions.agents.x-k8s.io/v1beta1 "the claim's version"
grep -q "^--kubeconfig=$T/kubeconfig --context=lab --namespace=agents get sandboxclaims.v1beta1.extensions.agents.x-k8s.io $name --ignore-not-found -o json\$" \
    "$T/k8s/calls" || fail "get not called with the settings"
[ "$(grep -c "get sandboxclaims.* $name " "$T/k8s/calls")" -ge 3 ] ||
	fail "did not wait through the Pending pod"
grep -q "exec $name -c sandbox -- cat $T/hostkey.pub" "$T/k8s/calls" ||
	fail "host key not read through kubectl exec"
rec="$T/state/sandboxes/$id.json"
expect_match "$(jq -r .proxyCommand "$rec")" \
    "^'$K' --kubeconfig '$T/kubeconfig' --context 'lab' --namespace 'agents' exec -i '$name' -c 'sandbox' -- '$SSHD' '-i' '-f' '$T/sshd_config'\$" \
    "ProxyCommand recorded"
expect_eq "$(cut -d' ' -f2,3 "$T/state/known_hosts.d/$id")" \
    "$(cut -d' ' -f1,2 "$T/hostkey.pub")" "the pod's host key pinned"

echo data > "$T/ws/f"
out=$(c exec -s "$id" -- sh -c 'cat f; echo made > g')
expect_eq "$out" data "exec over kubectl exec and sshd -i"
expect_eq "$(cat "$T/ws/g")" made "mirror pulled the result back"
"$CLAWSSH" ssh-config "$id" > "$T/client_config"
out=$(ssh -F "$T/client_config" "clawssh-$id-host" cat "$R/$id/workspace/f")
expect_eq "$out" data "OpenSSH over the generated ProxyCommand"

id2=$(prov --provider k8s --key k)
expect_eq "$id2" "$id" "same key, same sandbox"
expect_eq "$(grep -c '"kind":"SandboxClaim"' "$T/k8s/created")" 1 \
    "claimed once"

out=$(c status "$id")
expect_match "$out" "provider: *k8s, as $name: ready (Running on standin-node)" \
    "status asks the cluster"

# A warm pool hands over a running pod of its own name.
idw=$(prov --provider k8s --key warm --from warm)
expect_status $? 0 "provision from a warm pool"
pod=$(claim "claw-$idw" | jq -r .status.sandbox.name)
expect_match "$pod" '^warm-pool-[a-z]*$' "adopted pod"
grep -q "exec -i '$pod' -c 'sandbox'" "$T/state/sandboxes/$idw.json" ||
	fail "the warm pod is not the one reached"
expect_eq "$(c exec -s "$idw" -- echo warm)" warm "exec in the warm pod"

# GPUs come with the template; a claim cannot ask for others.
idg=$(prov --provider k8s --key gpu --from gpu1 --gpu 1)
expect_status $? 0 "provision with a GPU template"
expect_match "$(c status "$idg")" "ready (Running on standin-node, 1 nvidia.com/gpu)" \
    "status names the GPU"
prov --provider k8s --key gpu2 --from gpu1 --gpu 2 2>"$T/err"
expect_status $? 255 "--gpu 2 from a one-GPU template"
expect_match "$(cat "$T/err")" "provider k8s (kubernetes): --gpu N: SandboxTemplate gpu1 gives 1 nvidia.com/gpu" \
    "GPU mismatch message"
prov --provider k8s --key gpu3 --from sshd --gpu all 2>"$T/err"
expect_status $? 255 "--gpu all from a template without GPUs"
expect_match "$(cat "$T/err")" "--gpu all: SandboxTemplate sshd gives 0" \
    "--gpu all message"

# list --provider: the claims labelled ours, with the local record.
echo '{"apiVersion": "extensions.agents.x-k8s.io/v1beta1", "kind": "SandboxClaim", "metadata": {"name": "someone-else"}, "spec": {"warmPoolRef": {"name": "sshd-pool"}}}' |
    kube create -f - > /dev/null
out=$(c list --provider k8s)
expect_status $? 0 "list --provider"
expect_match "$out" "^$name  *ready  *$id  *Running on standin-node" \
    "list: the first sandbox"
expect_match "$out" "^claw-$idw  *ready  *$idw" "list: the warm one"
echo "$out" | grep -q someone-else && fail "list shows a claim not ours"
grep -q -- "-l app.kubernetes.io/managed-by=clawssh,clawssh/provider=k8s" \
    "$T/k8s/calls" || fail "list does not select by label"

# Failures, each named with the cluster's reason; nothing left behind.
# fails PROVIDER KEY STATUS PATTERN WHAT [provision args...]
fails() {
	_p=$1 _k=$2 _st=$3 _pat=$4 _what=$5
	shift 5
	_n0=$(find "$T/state/sandboxes" -name '*.json' | wc -l)
	prov --provider "$_p" --key "$_k" "$@" > /dev/null 2>"$T/err"
	expect_status $? "$_st" "$_what"
	expect_match "$(cat "$T/err")" "$_pat" "$_what: message"
	expect_eq "$(find "$T/state/sandboxes" -name '*.json' | wc -l)" \
	    "$_n0" "$_what: recorded"
	for _f in "$NS"/sandboxclaims/claw-*.json; do
		_n=$(basename "$_f" .json)
		grep -q "\"$_n\"" "$T/state/sandboxes/"*.json ||
		jq -e .metadata.deletionTimestamp "$_f" > /dev/null ||
			fail "$_what: claim $_n left behind"
	done
}
used=$(jq -s '[.[].spec.containers[].resources.limits["nvidia.com/gpu"]
    | tonumber] | add' "$NS"/pods/*.json)
echo "$used" > "$NS/quota"
fails fast quota 255 "not ready after 12 s (readyTimeout); last state: pending (ReconcilerError: Error seen: pods \"claw-.*\" is forbidden: exceeded quota" \
    "GPU quota exceeded" --from gpu1 --gpu 1
rm -f "$NS/quota"
fails fast pull 255 "last state: pending (\(ImagePullBackOff: Back-off pulling\|ErrImagePull: failed to pull and unpack\) image \"registry.invalid/sshd:1\"" \
    "image pull back-off" --from pull
fails fast badname 255 "will not become ready: failed (InvalidImageName: " \
    "invalid image name" --from badname
fails fast big 255 "last state: pending (Unschedulable: 0/1 nodes are available: 1 Insufficient nvidia.com/gpu.)" \
    "more GPUs than a node has" --from big --gpu 16
fails fast picky 255 "last state: pending (Unschedulable: 0/1 nodes are available: 1 node(s) didn't match" \
    "node selector" --from picky
fails fast lonely 255 "provider fast (kubernetes): no SandboxWarmPool refers to SandboxTemplate lonely: a v1beta1 claim needs one" \
    "template without a warm pool" --from lonely
fails fast nope 255 "not a SandboxTemplate name" "bad --from" --from 'No/Such'
fails k8s pol 255 "policy is not supported" "--policy" --policy strict
fails garbage g 255 "provider garbage (kubernetes): kubectl get sandboxclaims.v1beta1.extensions.agents.x-k8s.io claw-.*: the answer is not a JSON object" \
    "kubectl printing garbage"
fails twice t 255 "provider twice (kubernetes): kubectl get .*: the answer is not a JSON object" \
    "kubectl printing two objects"
fails badargs b 255 "provider badargs (kubernetes): args: unknown key 'colour'" \
    "unknown setting"
fails badctx x 255 "provider badctx (kubernetes): kubectl get .* exited with status 1: error: context \"elsewhere\" does not exist" \
    "unknown context"

# A pod that failed: the sandbox will not become ready.
pf="$NS/pods/$name.json"
cp "$pf" "$T/pod.saved"
jq '.status.phase = "Failed"' "$T/pod.saved" > "$pf"
prov --provider k8s --key k 2>"$T/err"
expect_status $? 255 "provision onto a failed pod"
expect_match "$(cat "$T/err")" "will not become ready: failed (pod Failed)" \
    "failed pod message"
cp "$T/pod.saved" "$pf"

# A claim of the same name that is not ours is neither used nor deleted.
cf="$NS/sandboxclaims/$name.json"
cp "$cf" "$T/claim.saved"
jq 'del(.metadata.labels)' "$T/claim.saved" > "$cf"
prov --provider k8s --key k 2>"$T/err"
expect_status $? 255 "a claim not ours"
expect_match "$(cat "$T/err")" "not provider k8s's" "not ours message"
c destroy "$id" 2>"$T/err"
expect_status $? 255 "destroy refuses a claim not ours"
expect_match "$(cat "$T/err")" "not deleting claim $name" \
    "destroy refusal message"
[ -f "$cf" ] || fail "a claim not ours was deleted"
cp "$T/claim.saved" "$cf"

# recreate: the claim is deleted, waited for, and made again.
olduid=$(claim "$name" | jq -r .metadata.uid)
out=$(c recreate "$id")
expect_status $? 0 "recreate"
[ "$(claim "$name" | jq -r .metadata.uid)" != "$olduid" ] ||
	fail "recreate kept the old claim"
expect_eq "$(c exec -s "$id" -- cat f)" data "exec after recreate"

# prune: an idle sandbox goes, its claim deleted by name.
touch -d '3 days ago' "$R/$idw/last-used"
out=$(c prune --idle-hours 1)
expect_match "$out" "pruned $idw" "prune output"
jq -e .metadata.deletionTimestamp "$NS/sandboxclaims/claw-$idw.json" \
    > /dev/null 2>&1 || [ ! -e "$NS/sandboxclaims/claw-$idw.json" ] ||
	fail "prune left the claim"
grep -q "delete sandboxclaims.v1beta1.extensions.agents.x-k8s.io claw-$idw --ignore-not-found --wait=false -o name" \
    "$T/k8s/calls" || fail "prune did not delete the claim"

# destroy: the claim is deleted (then gone), and the record.
out=$(c destroy "$id")
expect_status $? 0 "destroy"
kube get sandboxclaims "$name" -o json > /dev/null 2>&1
kube get sandboxclaims "$name" -o json > /dev/null 2>&1 &&
	fail "claim still there after destroy"
[ -e "$rec" ] && fail "record left after destroy"
[ -e "$T/state/known_hosts.d/$id" ] && fail "pinned key left"
out=$(c list --provider k8s)
echo "$out" | grep -q "$name" && fail "destroyed sandbox still listed"
# Destroying what the cluster lost already is fine.
rm -f "$NS/sandboxclaims/claw-$idg.json"
c destroy "$idg" > /dev/null
expect_status $? 0 "destroy of a claim already gone"
exit 0
