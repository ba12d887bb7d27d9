#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# GPU passthrough, checked for real on a machine with an NVIDIA GPU (the
# device machine some sessions are lent; see tests/device/README).  Run
# as root from the top of the tree after tests/device/bundle.sh packed
# .devchk/.  It starts sshd on loopback, then, as root and as an
# unprivileged SSH user, provisions bwrap sandboxes with --gpu and runs
# nvidia-smi and a CUDA matrix product (PyTorch) inside them.  Every step
# is logged to $OUT/gpu_check.log (or ./gpu_check.log) with its status;
# the last lines are a PASS/FAIL summary.  FAKE_GPU_DIR=DIR (a directory
# of mknod'ed nvidiaN nodes) lets the plumbing be tried without a GPU.
set -u

top=$(pwd)
log=${OUT:-$top}/gpu_check.log
work=/tmp/clawgpu
port=2299
npass=0
nfail=0
: > "$log"

say() { printf '%s\n' "$*" >> "$log"; }

# step NAME WANT CMD...: run CMD, log its output and status; WANT is the
# status wanted ("0", "!0" for any failure, or "-" for a fact only).
step() {
	_n=$1 _w=$2
	shift 2
	say "=== $_n: $*"
	"$@" >> "$log" 2>&1
	_s=$?
	say "--- status $_s"
	case $_w in
	-) return $_s ;;
	!0) _ok=$((_s != 0)) ;;
	*) _ok=$((_s == _w)) ;;
	esac
	if [ "$_ok" -eq 1 ]; then
		npass=$((npass + 1)); say "PASS $_n"
	else
		nfail=$((nfail + 1)); say "FAIL $_n (status $_s, want $_w)"
	fi
	return $_s
}

# setup: the carried libraries the machine lacks, and the binaries.
setup() {
	mkdir -p "$work/lib" /usr/local/lib/clawdev
	tar -C "$work" -xJf "$top/.devchk/lib.tar.xz"
	for f in "$work"/lib/*; do
		n=${f##*/}
		ldconfig -p | grep -q "^[[:space:]]*$n " ||
		    cp "$f" /usr/local/lib/clawdev/
	done
	echo /usr/local/lib/clawdev > /etc/ld.so.conf.d/zz-clawdev.conf
	ldconfig
	ls /usr/local/lib/clawdev
	install -m 755 "$top/.devchk/bin/clawssh" /usr/local/bin/clawssh
	for b in bwrap ssh-keygen; do
		command -v "$b" >/dev/null ||
		    install -m 755 "$top/.devchk/bin/$b" "/usr/local/bin/$b"
	done
	SSHD=/usr/sbin/sshd
	[ -x "$SSHD" ] || SSHD=$top/.devchk/bin/sshd
	id sshd >/dev/null 2>&1 ||
	    useradd -r -M -d /run/sshd -s /usr/sbin/nologin sshd
	mkdir -p /run/sshd && chmod 755 /run/sshd
	id clawgpu >/dev/null 2>&1 || useradd -m -s /bin/sh clawgpu
	usermod -p '*' clawgpu
	clawssh --version; bwrap --version
}

# start_sshd: sshd on 127.0.0.1:$port, one key for both users.
start_sshd() {
	ssh-keygen -q -t ed25519 -N '' -f "$work/hostkey" &&
	ssh-keygen -q -t ed25519 -N '' -f "$work/id" &&
	cp "$work/id.pub" "$work/authorized_keys" &&
	chmod 644 "$work/authorized_keys" && chmod 755 "$work" || return 1
	cat > "$work/sshd_config" <<-CONF
	Port $port
	ListenAddress 127.0.0.1
	HostKey $work/hostkey
	PidFile $work/sshd.pid
	AuthorizedKeysFile $work/authorized_keys
	StrictModes no
	UsePAM no
	PasswordAuthentication no
	PermitRootLogin yes
	${FAKE_GPU_DIR:+SetEnv CLAWSSH_GPU_DEV_DIR=$FAKE_GPU_DIR}
	CONF
	"$SSHD" -f "$work/sshd_config" -E "$work/sshd.log" || return 1
	for u in root clawgpu; do
		printf 'Host gpu-%s\n  HostName 127.0.0.1\n  Port %s\n  User %s\n'\
'  IdentityFile %s/id\n  UserKnownHostsFile %s/known_hosts\n'\
'  StrictHostKeyChecking yes\n' "$u" "$port" "$u" "$work" "$work"
	done > "$work/ssh_config"
	printf '[127.0.0.1]:%s %s\n' "$port" \
	    "$(cut -d' ' -f1,2 "$work/hostkey.pub")" > "$work/known_hosts"
}

TORCH='import time, torch
print("cuda", torch.cuda.is_available(), torch.cuda.device_count())
a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
b = a @ a
torch.cuda.synchronize()
t = time.perf_counter()
for _ in range(20):
    b = a @ a
torch.cuda.synchronize()
dt = time.perf_counter() - t
print("product", torch.cuda.get_device_name(0), bool(torch.isfinite(b).all()),
    "%.0f TFLOP/s" % (20 * 2 * 8192 ** 3 / dt / 1e12))'

# prov USER KEY ARGS...: provision, printing the id.
prov() {
	_u=$1 _k=$2
	shift 2
	clawssh provision -F "$work/ssh_config" --host "gpu-$_u" --key "$_k" \
	    --remote-root "/tmp/clawroot-$_u" --workspace "$work/ws-$_u" "$@"
}

# as_user USER: the checks for one SSH user.
as_user() {
	u=$1
	mkdir -p "$work/ws-$u"
	say "##### user $u"
	id=$(prov "$u" a --gpu 1 2>>"$log") ||
	    { step "$u provision --gpu 1" 0 false; return; }
	step "$u provision --gpu 1" 0 true
	# shellcheck disable=SC2016 # expanded in the sandbox
	step "$u devices and names" 0 clawssh exec -s "$id" -- sh -c \
	    'id; echo CVD=$CUDA_VISIBLE_DEVICES NVD=$NVIDIA_VISIBLE_DEVICES;
	     ls -l /dev | grep nvidia; ls /dev/nvidia0;
	     /sbin/ldconfig -p | grep -E "libcuda|libnvidia-ml"'
	step "$u nvidia-smi in the sandbox" 0 clawssh exec -s "$id" -- \
	    "$NSMI" -L
	step "$u CUDA matrix product in the sandbox" 0 clawssh exec -s "$id" \
	    -- "$PY" -c "$TORCH"
	step "$u background CUDA process, seen by a later exec" 0 sh -c "
	    clawssh process start -s $id -- $PY -c 'import torch,time
x = torch.ones(1 << 20, device=\"cuda\"); time.sleep(30)' &&
	    sleep 12 && clawssh exec -s $id -- sh -c 'ps ax | grep -v grep |
	    grep -q time.sleep && $NSMI --query-compute-apps=pid,used_memory --format=csv'"
	step "$u mirror: a file the GPU job wrote comes back" 0 sh -c "
	    clawssh exec -s $id -- $PY -c 'import torch
open(\"gpu.txt\", \"w\").write(str(torch.cuda.device_count()))' &&
	    grep -qx 1 $work/ws-$u/gpu.txt"
	step "$u second --gpu 1 sandbox refused (one GPU)" '!0' \
	    prov "$u" b --gpu 1
	if n=$(prov "$u" c 2>>"$log"); then
		step "$u no-GPU sandbox sees no GPU device" '!0' \
		    clawssh exec -s "$n" -- sh -c 'ls /dev | grep nvidia'
		step "$u no-GPU sandbox: CUDA not available" 0 \
		    clawssh exec -s "$n" -- "$PY" -c \
		    'import torch; assert not torch.cuda.is_available()'
		clawssh destroy "$n" >> "$log" 2>&1
	fi
	step "$u stop, start, still the GPU" 0 sh -c "clawssh stop $id &&
	    clawssh exec -s $id -- $NSMI -L"
	step "$u destroy" 0 clawssh destroy "$id"
	if m=$(prov "$u" d --gpu 1 --memory 16G 2>>"$log"); then
		step "$u --memory 16G: CUDA matrix product" 0 \
		    clawssh exec -v -s "$m" -- "$PY" -c "$TORCH"
		step "$u --memory 16G: no RLIMIT_AS" 0 sh -c "test \"\$(
		    clawssh exec -s $m -- sh -c 'ulimit -v')\" = unlimited"
		step "$u --memory 16G: how the limit was set" - \
		    clawssh status "$m"
		clawssh destroy "$m" >> "$log" 2>&1
	else
		step "$u provision --memory 16G" 0 false
	fi
	if [ "$u" = root ] && m=$(prov "$u" f --memory 256M 2>>"$log"); then
		# cgroup v2: the limit is the environment's memory.max, and
		# the kernel ends what goes over it (SIGKILL: 137).  A
		# python3 the sandbox can see (not a shim under /root).
		mpy=/usr/bin/python3
		case $PY in /root/*) ;; *) mpy=$PY ;; esac
		step "$u --memory 256M: 100 MiB fits" 0 clawssh exec -s "$m" \
		    -- "$mpy" -c 'b = bytearray(100 << 20); print(len(b))'
		step "$u --memory 256M: 1 GiB is killed" 137 clawssh exec \
		    -s "$m" -- "$mpy" -c 'b = bytearray(1 << 30); print(len(b))'
		step "$u --memory 256M: the cgroup's limit" 0 sh -c "{ cat \
		    /sys/fs/cgroup/clawssh-$m/memory.max 2>/dev/null ||
		    cat /sys/fs/cgroup/memory/clawssh-$m/memory.limit_in_bytes
		    } | grep -x 268435456"
		clawssh destroy "$m" >> "$log" 2>&1
	fi
	step "$u --gpu all" 0 sh -c "i=\$(clawssh provision -F $work/ssh_config \
	    --host gpu-$u --key e --remote-root /tmp/clawroot-$u \
	    --workspace $work/ws-$u --gpu all) && clawssh exec -s \$i -- \
	    $NSMI -L"
}

step "host facts" - sh -c 'uname -a; cat /etc/os-release | head -3;
    nvidia-smi -L; ls -l /dev/nvidia*; stat -fc %T /sys/fs/cgroup;
    cat /proc/self/cgroup; ls /sys/fs/cgroup | head -40;
    cat /sys/fs/cgroup/cgroup.subtree_control;
    ldconfig -p | grep -E "libcuda|libnvidia-ml"; env | grep -E "^(LD_|CUDA|NVIDIA|PATH)";
    cat /proc/sys/kernel/unprivileged_userns_clone /proc/sys/user/max_user_namespaces 2>&1;
    command -v bwrap sshd python3 setpriv prlimit'
step setup 0 setup || { say "SUMMARY install failed"; exit 1; }
PY=$(command -v python3)
[ -x /opt/torch/.venv/bin/python3 ] && PY=/opt/torch/.venv/bin/python3
NSMI=$(command -v nvidia-smi || echo nvidia-smi)
say "python: $PY -> $(readlink -f "$PY"); nvidia-smi: $NSMI"
step "torch on the bare host" - "$PY" -c "$TORCH"
step sshd 0 start_sshd || { cat "$work/sshd.log" >> "$log"; exit 1; }
CLAWSSH_STATE_DIR=$work/state XDG_RUNTIME_DIR=$work/run
export CLAWSSH_STATE_DIR XDG_RUNTIME_DIR
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
step "plain ssh session env" - clawssh exec -F "$work/ssh_config" \
    gpu-root -- sh -c 'env | sort; ldconfig -p | grep libcuda'
for u in root clawgpu; do
	as_user "$u"
done
step "daemon status" - clawssh serve --status
# shellcheck disable=SC2016 # awk's field, not the shell's
step "destroy what is left" - sh -c 'clawssh list | awk "NR > 1 { print \$1 }" |
    xargs -r -n 1 clawssh destroy'
clawssh serve --stop >/dev/null 2>&1
kill "$(cat "$work/sshd.pid")" 2>/dev/null
say "SUMMARY $npass passed, $nfail failed"
tail -1 "$log"
