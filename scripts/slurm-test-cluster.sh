#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A single-node Slurm cluster for tests, from Debian 12's packages (munge,
# slurmctld, slurmd), kept entirely under one state directory: its own
# slurm.conf and gres.conf, munge key and socket, spool, logs and pid
# files, on free ports.  No systemd: the daemons are started directly.
# The node declares 2 GPUs as GRES backed by plain files, so Slurm gives
# each job distinct GPU indexes and exports CUDA_VISIBLE_DEVICES.
#
#   slurm-test-cluster.sh start DIR	start (again) and wait until idle
#   slurm-test-cluster.sh stop DIR	cancel its jobs, stop what it started
#   slurm-test-cluster.sh env DIR	print SLURM_CONF=...; export SLURM_CONF
#
# start and stop are idempotent.  Run as root: slurmd launches jobs.
set -eu

NODE=clawnode
PART=claw
NGPU=2

usage() {
	echo "usage: slurm-test-cluster.sh start|stop|env STATEDIR" >&2
	exit 2
}

die() {
	echo "slurm-test-cluster: $*" >&2
	exit 1
}

[ $# -eq 2 ] || usage
cmd=$1
mkdir -p "$2"
S=$(cd "$2" && pwd)
CONF="$S/etc/slurm.conf"
SOCK="$S/munge/munge.socket"
export SLURM_CONF="$CONF"
# Every daemon (and so every slurmstepd) carries this mark; stop finds
# the slurmstepd processes this cluster left behind by it.
export CLAWSSH_SLURM_TEST="$S"

# The pid in file $1 if that process is alive and is the daemon the
# file is named after (a stale file may name a reused pid).
live_pid() {
	[ -s "$1" ] || return 1
	p=$(cat "$1")
	case $p in ''|*[!0-9]*) return 1 ;; esac
	n=$(basename "$1" .pid)
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = "$n" ] || return 1
	echo "$p"
}

# True when TCP port $1 is in use on this machine (as a local or a
# remote port: a little too careful is fine).
port_busy() {
	grep -qi ":$(printf %04X "$1") " /proc/net/tcp /proc/net/tcp6 \
	    2>/dev/null
}

# Two free consecutive ports from a range unlikely to clash (tests'
# sshds use random high ports; slurm's defaults are 6817/6818).
pick_ports() {
	base=$(( 20000 + ($$ % 2000) * 2 ))
	i=0
	while [ $i -lt 50 ]; do
		if ! port_busy "$base" && ! port_busy $((base + 1)); then
			echo "$base"
			return 0
		fi
		base=$((base + 2))
		i=$((i + 1))
	done
	die "no free ports near $base"
}

write_conf() {
	port=$1
	host=$(uname -n | cut -d. -f1)
	mkdir -p "$S/etc" "$S/munge" "$S/spool/ctld" "$S/spool/d" \
	    "$S/log" "$S/run" "$S/dev"
	# Slurm wants GRES files to be device nodes; these are /dev/null's
	# (1,3), so nothing can reach a device through them.
	for i in $(seq 0 $((NGPU - 1))); do
		[ -c "$S/dev/nvidia$i" ] && continue
		rm -f "$S/dev/nvidia$i"
		mknod -m 666 "$S/dev/nvidia$i" c 1 3 ||
		    die "cannot make device nodes in $S/dev"
	done
	cat > "$CONF.tmp" <<EOF
# Written by clawssh's scripts/slurm-test-cluster.sh; do not edit.
ClusterName=clawtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$SOCK
CredType=cred/munge
StateSaveLocation=$S/spool/ctld
SlurmdSpoolDir=$S/spool/d
SlurmctldPidFile=$S/run/slurmctld.pid
SlurmdPidFile=$S/run/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
SchedulerParameters=sched_interval=1
MinJobAge=300
KillWait=2
GresTypes=gpu
NodeName=$NODE NodeHostname=$host NodeAddr=127.0.0.1 CPUs=4 Sockets=1 \\
    CoresPerSocket=4 ThreadsPerCore=1 RealMemory=1000 Gres=gpu:$NGPU \\
    State=UNKNOWN
PartitionName=$PART Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF
	mv "$CONF.tmp" "$CONF"
	cat > "$S/etc/gres.conf" <<EOF
NodeName=$NODE Name=gpu File=$S/dev/nvidia[0-$((NGPU - 1))]
EOF
	if [ ! -s "$S/etc/munge.key" ]; then
		umask 077
		dd if=/dev/urandom of="$S/etc/munge.key" bs=1024 count=1 \
		    2>/dev/null
		umask 022
	fi
	chmod 755 "$S/munge"
	chmod 600 "$S/etc/munge.key"
}

start_munge() {
	live_pid "$S/munge/munged.pid" >/dev/null && return 0
	rm -f "$SOCK" "$SOCK.lock"
	munged --force --key-file="$S/etc/munge.key" --socket="$SOCK" \
	    --pid-file="$S/munge/munged.pid" \
	    --log-file="$S/log/munged.log" \
	    --seed-file="$S/munge/munged.seed" ||
	    die "munged did not start (see $S/log/munged.log)"
}

start_slurm() {
	if ! live_pid "$S/run/slurmctld.pid" >/dev/null; then
		slurmctld -f "$CONF" ||
		    die "slurmctld did not start (see $S/log/slurmctld.log)"
	fi
	if ! live_pid "$S/run/slurmd.pid" >/dev/null; then
		slurmd -f "$CONF" -N "$NODE" ||
		    die "slurmd did not start (see $S/log/slurmd.log)"
	fi
}

# Wait until the node is up and idle (or mixed/allocated on a restart).
wait_ready() {
	i=0
	while [ $i -lt 60 ]; do
		st=$(sinfo -h -n "$NODE" -o %T 2>/dev/null || :)
		case $st in
		idle*|mixed*|allocated*) return 0 ;;
		down*|drain*)
			scontrol update NodeName="$NODE" State=RESUME \
			    >/dev/null 2>&1 || : ;;
		esac
		sleep 0.5
		i=$((i + 1))
	done
	die "node $NODE not ready (state '${st:-none}'; see $S/log)"
}

do_start() {
	[ "$(id -u)" -eq 0 ] || die "must run as root"
	for p in munged slurmctld slurmd sbatch; do
		command -v "$p" >/dev/null 2>&1 ||
		    die "$p not installed (scripts/install-deps.sh)"
	done
	if ! live_pid "$S/run/slurmctld.pid" >/dev/null ||
	    ! live_pid "$S/run/slurmd.pid" >/dev/null; then
		# Half up or down: start clean, with no old jobs, on fresh
		# ports.
		do_stop
		rm -rf "$S/spool"
		port=$(pick_ports) || exit 1
		write_conf "$port"
	fi
	start_munge
	start_slurm
	wait_ready
}

# Pids of slurmstepd processes this cluster's slurmd started.
stepd_pids() {
	for p in $(pgrep -x slurmstepd); do
		tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null |
		    grep -qxF "CLAWSSH_SLURM_TEST=$S" && echo "$p"
	done
	return 0
}

# Pid $1 and all its descendants, children first.
with_descendants() {
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		with_descendants "$c"
	done
	echo "$1"
}

# Stop the daemons in pid files "$@" together and wait for them.
stop_pids() {
	pids=
	for f in "$@"; do
		p=$(live_pid "$f") || continue
		kill "$p" 2>/dev/null || :
		pids="$pids $p"
	done
	i=0
	while [ -n "$pids" ] && [ $i -lt 100 ]; do
		left=
		for p in $pids; do
			kill -0 "$p" 2>/dev/null && left="$left $p"
		done
		pids=$left
		[ -z "$pids" ] || sleep 0.1
		i=$((i + 1))
	done
	[ -z "$pids" ] || kill -9 $pids 2>/dev/null || :
}

do_stop() {
	if live_pid "$S/run/slurmctld.pid" >/dev/null &&
	    [ -s "$CONF" ]; then
		scancel --quiet --full --partition="$PART" 2>/dev/null || :
		i=0
		while [ $i -lt 20 ] &&
		    [ -n "$(squeue -h -o %i -t PD,R,CG,CF 2>/dev/null)" ]; do
			sleep 0.25
			i=$((i + 1))
		done
	fi
	stop_pids "$S/run/slurmd.pid" "$S/run/slurmctld.pid"
	stop_pids "$S/munge/munged.pid"
	# slurmstepd and job processes left behind.
	for p in $(stepd_pids); do
		# shellcheck disable=SC2046
		kill -9 $(with_descendants "$p") 2>/dev/null || :
	done
	rm -f "$SOCK" "$SOCK.lock"
}

case $cmd in
start)	do_start ;;
stop)	do_stop ;;
env)	[ -s "$CONF" ] || die "no cluster in $S (start it first)"
	echo "SLURM_CONF=$CONF; export SLURM_CONF" ;;
*)	usage ;;
esac
