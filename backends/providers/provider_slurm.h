/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Slurm provider driver: a sandbox is a holder job (sbatch --wrap
 * with slurm_job_script) that keeps an allocation and runs an sshd of its
 * own inside it; its endpoint is that sshd (node, port, the job's host
 * key), so every session lands in the allocation and Slurm's GPU
 * assignment applies.  Where the job could not run one, the endpoint is
 * the node's own sshd and every command runs inside the allocation
 * through srun --overlap.  Job names are SLURM_JOB_PREFIX followed by the
 * sandbox name.
 *
 * The parsers below read what squeue, scontrol and sbatch print; all of
 * it is treated as hostile.  What they return is owned by the caller.
 */
#ifndef CLAW_PROVIDER_SLURM_H
#define CLAW_PROVIDER_SLURM_H

#include <stddef.h>

#include "provider.h"

#define SLURM_JOB_PREFIX	"clawssh-"
#define SLURM_JOB_NAME_MAX	64	/* bytes of a job name we make */
#define SLURM_JOBID_MAX		15	/* digits of a job id */

/* The driver, for provider_find. */
extern const struct provider_ops	provider_slurm;

/* One line of squeue output. */
struct slurm_job {
	char			 id[SLURM_JOBID_MAX + 1];
	char			*name;		/* sandbox name, no prefix */
	char			*state_text;	/* "PENDING (Resources)" */
	enum provider_state	 state;
	char			*node;		/* allocated node, or NULL */
};

/* The squeue --format the parser reads: id, state, reason, nodes, name. */
#define SLURM_SQUEUE_FORMAT	"%i|%T|%r|%N|%j"

/*
 * Check that name can be a sandbox name: 1..name_max bytes of
 * [A-Za-z0-9._-], starting with a letter or digit.
 */
int	slurm_name_check(const char *name, char **cause);

/*
 * Map a Slurm job state word (as squeue %T prints it) to *state.
 * Returns 0, or CLAW_ERR_PARSE for a word this driver does not know.
 */
int	slurm_state_map(const char *word, enum provider_state *state);

/*
 * Parse squeue output in SLURM_SQUEUE_FORMAT.  Lines whose job name lacks
 * SLURM_JOB_PREFIX or is not a valid sandbox name are someone else's and
 * skipped; when want is not NULL only that sandbox's lines are kept.  Any
 * other malformed line fails the whole parse.  On success *jobs (NULL
 * when none) and *n are set; free with slurm_jobs_free.
 */
int	slurm_parse_squeue(const char *text, size_t len, const char *want,
	    struct slurm_job **jobs, size_t *n, char **cause);

/* Free n jobs and the array. */
void	slurm_jobs_free(struct slurm_job *jobs, size_t n);

/*
 * True when job a stands for a sandbox before job b of the same name: a
 * live one (pending or running) before an ended one, then the newer.
 */
int	slurm_job_better(const struct slurm_job *a, const struct slurm_job *b);

/*
 * Of n jobs for one name, the one that stands for the sandbox: a live
 * one (pending or running) before an ended one, then the newest.
 * Returns NULL when n is 0.
 */
const struct slurm_job	*slurm_job_pick(const struct slurm_job *jobs,
			    size_t n);

/*
 * Parse sbatch --parsable output ("ID" or "ID;CLUSTER") into id, which
 * holds SLURM_JOBID_MAX + 1 bytes.
 */
int	slurm_parse_jobid(const char *text, size_t len, char *id,
	    char **cause);

/*
 * Find NodeAddr= in scontrol show node output and return a copy in *addr
 * when it is a plausible host name or address.
 */
int	slurm_parse_node_addr(const char *text, size_t len, char **addr,
	    char **cause);

/*
 * Collect the GPU indexes from the GRES=...(IDX:...) fields of scontrol
 * show job -d output into *gpus as a sorted comma-separated list ("0,1"),
 * or NULL when the job holds no GPU.
 */
int	slurm_parse_gpus(const char *text, size_t len, char **gpus,
	    char **cause);

/* How a running job's sandbox is reached, as its Comment says. */
enum slurm_access {
	SLURM_ACCESS_UNKNOWN = 0,	/* not said (yet) */
	SLURM_ACCESS_SSHD,		/* the job's own sshd */
	SLURM_ACCESS_SRUN		/* no sshd: srun --overlap */
};

struct slurm_access_info {
	enum slurm_access	 mode;
	int			 port;		/* SSHD: 1..65535 */
	char			*host_key;	/* SSHD: "TYPE BASE64" */
	char			*why;		/* SRUN: why no sshd */
	long			 runtime;	/* RunTime= seconds, or -1 */
};

/*
 * Read a job's Comment= and RunTime= from scontrol show job output into
 * *ai: "clawssh-sshd:PORT:ssh-ed25519:BASE64" is SSHD, "clawssh-srun:WHY"
 * (WHY of [a-z-]) is SRUN, anything else UNKNOWN.  A Comment that starts
 * like ours but is malformed is an error.  Free with slurm_access_clear.
 */
int	slurm_parse_access(const char *text, size_t len,
	    struct slurm_access_info *ai, char **cause);

/* Free what ai holds and zero it. */
void	slurm_access_clear(struct slurm_access_info *ai);

/*
 * Check an OpenSSH public key line and return "TYPE BASE64" (its comment
 * dropped) in *out.
 */
int	slurm_pubkey_check(const char *line, size_t len, char **out,
	    char **cause);

/*
 * The holder job's sh script: key (a public key line, or NULL) is the
 * sshd's only authorized key, sshd its path (NULL or "": searched on the
 * node; "no": no sshd, srun only).  Both are quoted.
 */
char	*slurm_job_script(const char *key, const char *sshd);

#endif /* CLAW_PROVIDER_SLURM_H */
