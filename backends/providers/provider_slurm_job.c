/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The slurm driver's holder job: the batch script sbatch --wrap runs.  It
 * starts an sshd of the job's own inside the allocation (a host key made
 * in the job, a random port, the user's public key as its only
 * authorized key, the job's GPU and Slurm variables in every session),
 * tells the driver where it is through the job's Comment, and keeps the
 * allocation until the job ends; then it kills every process that
 * carries the job's mark, so nothing started over its sshd outlives the
 * job even where Slurm tracks processes by parent (proctrack/linuxproc).
 * Where no sshd can run, it says why, and commands go through srun.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>

#include "buf.h"
#include "provider_slurm.h"
#include "shquote.h"

/*
 * The script after its two settings, k (the authorized key, or empty)
 * and sshd (its path, empty to search, "no" to run none).  Comment:
 * clawssh-sshd:PORT:TYPE:BASE64 or clawssh-srun:WHY (see
 * slurm_parse_access).
 */
static const char slurm_job_body[] =
	"id=${SLURM_JOB_ID:?}\n"
	/*
	 * The mark: job ids repeat across clusters sharing a machine and
	 * after a controller restarts, so the job's id, cluster and a
	 * random token, or one job's end would kill another's processes.
	 */
	"mark=$id.$(printf %s \"${SLURM_CLUSTER_NAME:-}\" |"
	" tr -cd 'A-Za-z0-9_-').$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')\n"
	"d=''; s=''; z=''\n"
	"say() { scontrol update JobId=\"$id\" Comment=\"$1\""
	" >/dev/null 2>&1; }\n"
	/*
	 * The processes we may see marked with this job (one grep, fast
	 * enough for Slurm's KillWait), but this shell.
	 */
	"marked() {\n"
	"  grep -slzx \"CLAWSSH_SLURM_JOB=$mark\" /proc/[0-9]*/environ |\n"
	"    sed -n 's|^/proc/\\([0-9]*\\)/environ$|\\1|p' |"
	" grep -vx \"$$\"\n"
	"}\n"
	/*
	 * The sshd and the directory first; then stop every marked
	 * process, so none forks past the kill, and kill them.
	 */
	"sweep() {\n"
	"  [ -z \"$z\" ] || kill \"$z\" 2>/dev/null\n"
	"  [ -z \"$s\" ] || kill -KILL \"$s\" 2>/dev/null\n"
	"  [ -z \"$d\" ] || rm -rf -- \"$d\"\n"
	"  n=0\n"
	"  while [ $n -lt 5 ]; do\n"
	"    n=$((n + 1)); l=$(marked)\n"
	"    [ -n \"$l\" ] || break\n"
	"    for p in $l; do kill -STOP \"$p\" 2>/dev/null; done\n"
	"    for p in $l; do kill -KILL \"$p\" 2>/dev/null; done\n"
	"  done\n"
	"}\n"
	"trap sweep EXIT\n"
	"trap 'exit 143' TERM INT HUP\n"
	/* The variables every session gets: GPUs and Slurm's own. */
	"genv() {\n"
	"  env | grep -E '^(SLURM_[A-Z0-9_]*|CUDA_VISIBLE_DEVICES|"
	"GPU_DEVICE_ORDINAL|ROCR_VISIBLE_DEVICES|HIP_VISIBLE_DEVICES|"
	"ZE_AFFINITY_MASK)=[A-Za-z0-9._,:/+=@-]*$' |\n"
	"    tr '\\n' ' '\n"
	"}\n"
	"conf() {\n"
	"  cat > \"$d/config\" <<EOF\n"
	"Port $1\n"
	"HostKey $d/hostkey\n"
	"PidFile $d/pid\n"
	"AuthorizedKeysFile $d/authorized_keys\n"
	"AuthorizedPrincipalsFile none\n"
	"AllowUsers $(id -un)\n"
	"StrictModes no\n"
	"UsePAM no\n"
	"PasswordAuthentication no\n"
	"KbdInteractiveAuthentication no\n"
	"HostbasedAuthentication no\n"
	"PubkeyAuthentication yes\n"
	"PermitRootLogin prohibit-password\n"
	"PermitUserEnvironment no\n"
	"X11Forwarding no\n"
	"PermitTunnel no\n"
	"PrintMotd no\n"
	"MaxStartups 100:30:200\n"
	"MaxSessions 100\n"
	"Subsystem sftp internal-sftp\n"
	"SetEnv CLAWSSH_SLURM_JOB=$mark $(genv)\n"
	"EOF\n"
	"}\n"
	/* Wait for sshd's pid file (written once it listens) or its end. */
	"up() {\n"
	"  i=0\n"
	"  while [ $i -lt 100 ]; do\n"
	"    [ -s \"$d/pid\" ] && return 0\n"
	"    kill -0 \"$1\" 2>/dev/null || return 1\n"
	"    sleep 0.1 2>/dev/null || sleep 1\n"
	"    i=$((i + 1))\n"
	"  done\n"
	"  return 1\n"
	"}\n"
	"start() {\n"
	"  case $sshd in\n"
	"  no) why='disabled'; return 1 ;;\n"
	"  '') sshd=$(command -v sshd 2>/dev/null) || sshd=/usr/sbin/sshd ;;\n"
	"  esac\n"
	"  case $sshd in /*) ;; *) why='sshd-not-absolute'; return 1 ;; esac\n"
	"  [ -x \"$sshd\" ] || { why='no-sshd'; return 1; }\n"
	"  [ -n \"$k\" ] || { why='no-user-key'; return 1; }\n"
	"  command -v ssh-keygen >/dev/null 2>&1 ||"
	" { why='no-ssh-keygen'; return 1; }\n"
	"  d=$(mktemp -d \"${TMPDIR:-/tmp}/clawssh-job.XXXXXX\") ||\n"
	"    { d=; why='no-tmpdir'; return 1; }\n"
	"  ssh-keygen -q -t ed25519 -N '' -C \"clawssh-job-$id\""
	" -f \"$d/hostkey\" \\\n"
	"    </dev/null >/dev/null 2>&1 || { why='keygen-failed'; return 1; }\n"
	"  printf '%s\\n' \"$k\" > \"$d/authorized_keys\"\n"
	"  why='sshd-failed'; t=0\n"
	"  while [ $t -lt 8 ]; do\n"
	"    t=$((t + 1))\n"
	"    r=$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')\n"
	"    port=$((20000 + r % 40000))\n"
	"    conf \"$port\"\n"
	"    rm -f \"$d/pid\"; : > \"$d/log\"\n"
	"    CLAWSSH_SLURM_JOB=$mark \"$sshd\" -D -e -f \"$d/config\" \\\n"
	"      </dev/null >/dev/null 2>>\"$d/log\" &\n"
	"    s=$!\n"
	/*
	 * sshd runs on when it binds one of 0.0.0.0 and :: only; a
	 * port someone holds on either is tried again elsewhere.
	 */
	"    up \"$s\" && ! grep -q 'Bind to port\\|Cannot bind' \"$d/log\" &&\n"
	"      return 0\n"
	"    kill \"$s\" 2>/dev/null; wait \"$s\" 2>/dev/null; s=''\n"
	"    grep -q 'Bind to port\\|Cannot bind' \"$d/log\" &&"
	" why='bind-failed'\n"
	"  done\n"
	"  return 1\n"
	"}\n"
	"if start; then\n"
	"  read -r kt kb _ < \"$d/hostkey.pub\"\n"
	"  say \"clawssh-sshd:$port:$kt:$kb\"\n"
	"else\n"
	"  say \"clawssh-srun:$why\"\n"
	"fi\n"
	"while :; do sleep 3600 & z=$!; wait $z; done\n";

/* The holder job's script; see provider_slurm.h. */
char *
slurm_job_script(const char *key, const char *sshd)
{
	struct buf	b = BUF_INIT;

	buf_append(&b, "k=", 2);
	shquote_append(&b, key != NULL ? key : "");
	buf_append(&b, "; sshd=", 7);
	shquote_append(&b, sshd != NULL ? sshd : "");
	buf_append(&b, "\n", 1);
	buf_append(&b, slurm_job_body, sizeof slurm_job_body - 1);
	return buf_detach(&b);
}
