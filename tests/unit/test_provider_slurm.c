/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the slurm provider driver's parsers: squeue lines, sbatch
 * --parsable, scontrol's NodeAddr, GRES indexes and the holder job's
 * Comment, public key lines, each good, garbage and truncated, and the
 * choice among jobs of one name; the holder job's script under sh.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "provider.h"
#include "provider_slurm.h"
#include "xmalloc.h"

/* Parse squeue text (its own length) keeping want's lines; expect rc. */
static int
squeue(const char *text, const char *want, struct slurm_job **jobs,
    size_t *n)
{
	char	*cause = NULL;
	int	 rc;

	*jobs = NULL;
	*n = 0;
	rc = slurm_parse_squeue(text, strlen(text), want, jobs, n, &cause);
	if (rc != 0)
		assert_non_null(strstr(cause, "slurm: squeue"));
	free(cause);
	return rc;
}

/* Running, pending with a reason, and ended jobs. */
static void
test_squeue_good(void **state)
{
	struct slurm_job	*j;
	size_t			 n;

	(void)state;
	assert_int_equal(squeue(
	    "12|RUNNING|None|node-1|clawssh-one\n"
	    "13|PENDING|Resources||clawssh-two\n"
	    "9|FAILED|BadConstraints|node-1|clawssh-one\n"
	    "14|CONFIGURING|None|n2|clawssh-three\n", NULL, &j, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(j[0].id, "12");
	assert_string_equal(j[0].name, "one");
	assert_int_equal(j[0].state, PROVIDER_READY);
	assert_string_equal(j[0].state_text, "RUNNING");
	assert_string_equal(j[0].node, "node-1");
	assert_int_equal(j[1].state, PROVIDER_PENDING);
	assert_string_equal(j[1].state_text, "PENDING (Resources)");
	assert_null(j[1].node);
	assert_int_equal(j[2].state, PROVIDER_GONE);
	assert_string_equal(j[2].state_text, "FAILED (BadConstraints)");
	assert_int_equal(j[3].state, PROVIDER_PENDING);
	slurm_jobs_free(j, n);

	/* want keeps one name; no trailing newline is fine. */
	assert_int_equal(squeue("12|RUNNING|None|n|clawssh-one\n"
	    "13|PENDING|Priority||clawssh-onex", "one", &j, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(j[0].id, "12");
	slurm_jobs_free(j, n);

	/* Nothing at all. */
	assert_int_equal(squeue("", NULL, &j, &n), 0);
	assert_int_equal(n, 0);
	assert_null(j);
}

/* Jobs that are not clawssh's are skipped, not errors. */
static void
test_squeue_foreign(void **state)
{
	struct slurm_job	*j;
	size_t			 n;

	(void)state;
	assert_int_equal(squeue(
	    "5|RUNNING|None|n|other\n"
	    "6|RUNNING|None|n|clawssh-\n"
	    "7|RUNNING|None|n|clawssh-../x\n"
	    "8|RUNNING|None|n|clawssh--dash\n"
	    "9|RUNNING|None|n|clawssh-a|b\n"
	    "10|RUNNING|None|n|clawssh-ok\n", NULL, &j, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(j[0].name, "ok");
	slurm_jobs_free(j, n);
}

/* Garbage and truncated lines fail the parse. */
static void
test_squeue_garbage(void **state)
{
	static const char *const bad[] = {
		"garbage\n",
		"12|RUNNING|None|n\n",			/* truncated */
		"12|RUNN",				/* truncated */
		"x12|RUNNING|None|n|clawssh-a\n",	/* bad id */
		"12_3|RUNNING|None|n|clawssh-a\n",	/* array job */
		"1234567890123456|RUNNING|None|n|clawssh-a\n",
		"|RUNNING|None|n|clawssh-a\n",
		"12|WEIRD|None|n|clawssh-a\n",		/* unknown state */
		"12|running|None|n|clawssh-a\n",
		"12||None|n|clawssh-a\n",
		"12|RUNNING|None|node[1-2]|clawssh-a\n",	/* many nodes */
		"12|RUNNING|None|-oProxyCommand=x|clawssh-a\n",
		"12|RUNNING|None|n m|clawssh-a\n",
	};
	struct slurm_job	*j;
	size_t			 n, i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (squeue(bad[i], NULL, &j, &n) != CLAW_ERR_PARSE)
			fail_msg("accepted: %s", bad[i]);
	}
}

/* NUL bytes, huge lines and too many lines are refused. */
static void
test_squeue_hostile(void **state)
{
	struct slurm_job	*j;
	size_t			 n, i;
	char			*big, *cause = NULL;
	const char		 nul[] = "12|RUNNING|None|n|clawssh-a\0b\n";

	(void)state;
	assert_int_equal(slurm_parse_squeue(nul, sizeof nul - 1, NULL, &j,
	    &n, &cause), CLAW_ERR_PARSE);
	assert_non_null(strstr(cause, "NUL"));
	free(cause);

	big = xmalloc(5000);
	memset(big, 'a', 4999);
	big[4999] = '\0';
	assert_int_equal(squeue(big, NULL, &j, &n), CLAW_ERR_PARSE);
	free(big);

	big = xmalloc(20001 * 2 + 1);
	for (i = 0; i < 20001; i++)
		memcpy(big + i * 2, "\n\n", 2);
	big[20001 * 2] = '\0';
	assert_int_equal(squeue(big, NULL, &j, &n), CLAW_ERR_PARSE);
	free(big);

	/* A hostile pending reason is kept short and printable. */
	assert_int_equal(squeue("1|PENDING|a\033[2Jb|n|clawssh-a\n", NULL,
	    &j, &n), 0);
	assert_string_equal(j[0].state_text, "PENDING (a?[2Jb)");
	slurm_jobs_free(j, n);
}

/* Every state word maps; unknown ones do not. */
static void
test_states(void **state)
{
	enum provider_state	st;

	(void)state;
	assert_int_equal(slurm_state_map("PENDING", &st), 0);
	assert_int_equal(st, PROVIDER_PENDING);
	assert_int_equal(slurm_state_map("CONFIGURING", &st), 0);
	assert_int_equal(st, PROVIDER_PENDING);
	assert_int_equal(slurm_state_map("RUNNING", &st), 0);
	assert_int_equal(st, PROVIDER_READY);
	assert_int_equal(slurm_state_map("COMPLETING", &st), 0);
	assert_int_equal(st, PROVIDER_GONE);
	assert_int_equal(slurm_state_map("TIMEOUT", &st), 0);
	assert_int_equal(st, PROVIDER_GONE);
	assert_int_equal(slurm_state_map("FAILED", &st), 0);
	assert_int_equal(st, PROVIDER_GONE);
	assert_int_equal(slurm_state_map("NODE_FAIL", &st), 0);
	assert_int_equal(st, PROVIDER_GONE);
	assert_int_equal(slurm_state_map("", &st), CLAW_ERR_PARSE);
	assert_int_equal(slurm_state_map("RUNNING ", &st), CLAW_ERR_PARSE);
}

/* A live job stands for its name before an ended one, then the newest. */
static void
test_pick(void **state)
{
	struct slurm_job	*j;
	size_t			 n;

	(void)state;
	assert_int_equal(squeue("100|CANCELLED|None|n|clawssh-a\n"
	    "99|PENDING|Priority||clawssh-a\n"
	    "98|RUNNING|None|n|clawssh-a\n", NULL, &j, &n), 0);
	assert_string_equal(slurm_job_pick(j, n)->id, "99");
	slurm_jobs_free(j, n);

	assert_int_equal(squeue("9|CANCELLED|None|n|clawssh-a\n"
	    "10|COMPLETED|None|n|clawssh-a\n"
	    "8|TIMEOUT|None|n|clawssh-a\n", NULL, &j, &n), 0);
	assert_string_equal(slurm_job_pick(j, n)->id, "10");
	slurm_jobs_free(j, n);
	assert_null(slurm_job_pick(NULL, 0));
}

/* Sandbox names: Slurm-safe characters and length. */
static void
test_names(void **state)
{
	char	name[80], *cause = NULL;
	size_t	max;

	(void)state;
	assert_int_equal(slurm_name_check("box-1.a_b", NULL), 0);
	assert_int_equal(slurm_name_check("", NULL), CLAW_ERR_INVAL);
	assert_int_equal(slurm_name_check("-x", NULL), CLAW_ERR_INVAL);
	assert_int_equal(slurm_name_check(".x", NULL), CLAW_ERR_INVAL);
	assert_int_equal(slurm_name_check("a/b", NULL), CLAW_ERR_INVAL);
	assert_int_equal(slurm_name_check("a b", NULL), CLAW_ERR_INVAL);
	assert_int_equal(slurm_name_check("a|b", NULL), CLAW_ERR_INVAL);
	max = SLURM_JOB_NAME_MAX - strlen(SLURM_JOB_PREFIX);
	memset(name, 'a', sizeof name);
	name[max] = '\0';
	assert_int_equal(slurm_name_check(name, NULL), 0);
	name[max] = 'a';
	name[max + 1] = '\0';
	assert_int_equal(slurm_name_check(name, &cause), CLAW_ERR_INVAL);
	assert_non_null(strstr(cause, "bad sandbox name"));
	free(cause);
}

/* Parse sbatch text; return the rc, id filled on success. */
static int
jobid(const char *text, char *id)
{
	return slurm_parse_jobid(text, strlen(text), id, NULL);
}

/* sbatch --parsable: "ID" or "ID;CLUSTER", nothing else. */
static void
test_jobid(void **state)
{
	char	id[SLURM_JOBID_MAX + 1];

	(void)state;
	assert_int_equal(jobid("42\n", id), 0);
	assert_string_equal(id, "42");
	assert_int_equal(jobid("43;cluster\n", id), 0);
	assert_string_equal(id, "43");
	assert_int_equal(jobid("44", id), 0);
	assert_string_equal(id, "44");
	assert_int_equal(jobid("", id), CLAW_ERR_PARSE);
	assert_int_equal(jobid("\n", id), CLAW_ERR_PARSE);
	assert_int_equal(jobid("Submitted batch job 5\n", id),
	    CLAW_ERR_PARSE);
	assert_int_equal(jobid("5\n6\n", id), CLAW_ERR_PARSE);
	assert_int_equal(jobid("5x\n", id), CLAW_ERR_PARSE);
	assert_int_equal(jobid("-5\n", id), CLAW_ERR_PARSE);
	assert_int_equal(jobid("12345678901234567\n", id), CLAW_ERR_PARSE);
}

/* Parse scontrol show node text; return rc, *addr set on success. */
static int
addr(const char *text, char **a)
{
	char	*cause = NULL;
	int	 rc;

	*a = NULL;
	rc = slurm_parse_node_addr(text, strlen(text), a, &cause);
	if (rc != 0)
		assert_non_null(strstr(cause, "slurm: scontrol"));
	free(cause);
	return rc;
}

/* NodeAddr: found in multi-line and one-line output; hostile refused. */
static void
test_node_addr(void **state)
{
	char	*a;

	(void)state;
	assert_int_equal(addr("NodeName=clawnode Arch=x86_64 "
	    "CoresPerSocket=4\n   Gres=gpu:2\n   NodeAddr=127.0.0.1 "
	    "NodeHostName=vm Version=22.05.8\n", &a), 0);
	assert_string_equal(a, "127.0.0.1");
	free(a);
	assert_int_equal(addr("NodeName=n NodeAddr=gpu-7.example.org", &a),
	    0);
	assert_string_equal(a, "gpu-7.example.org");
	free(a);
	assert_int_equal(addr("NodeAddr=fe80::1\n", &a), 0);
	free(a);
	assert_int_equal(addr("NodeName=n NodeHostName=vm\n", &a),
	    CLAW_ERR_PARSE);
	assert_int_equal(addr("NodeAddr=\n", &a), CLAW_ERR_PARSE);
	assert_int_equal(addr("NodeAddr=-oProxyCommand=x\n", &a),
	    CLAW_ERR_PARSE);
	assert_int_equal(addr("NodeAddr=a;b\n", &a), CLAW_ERR_PARSE);
	assert_int_equal(addr("NodeAddr=$(id)\n", &a), CLAW_ERR_PARSE);
	assert_int_equal(addr("NodeAddr=a NodeAddr=b\n", &a),
	    CLAW_ERR_PARSE);
	assert_int_equal(addr("garbage", &a), CLAW_ERR_PARSE);
	assert_int_equal(addr("", &a), CLAW_ERR_PARSE);
}

/* Parse scontrol show job -d text; return rc, *gpus set on success. */
static int
gpus(const char *text, char **g)
{
	*g = NULL;
	return slurm_parse_gpus(text, strlen(text), g, NULL);
}

/* GRES indexes: single, ranges, lists, types, other GRES, hostile. */
static void
test_gpus(void **state)
{
	char	*g;

	(void)state;
	assert_int_equal(gpus("JobId=5 JobName=clawssh-a\n"
	    "   JOB_GRES=gpu:1\n"
	    "     Nodes=clawnode CPU_IDs=0 Mem=0 GRES=gpu:1(IDX:1)\n"
	    "   TresPerNode=gres:gpu:1\n", &g), 0);
	assert_string_equal(g, "1");
	free(g);
	assert_int_equal(gpus("GRES=gpu:tesla:3(IDX:0,2-3)", &g), 0);
	assert_string_equal(g, "0,2,3");
	free(g);
	assert_int_equal(gpus("GRES=mps:100(IDX:0),gpu:2(IDX:3-4)", &g), 0);
	assert_string_equal(g, "3,4");
	free(g);
	assert_int_equal(gpus("GRES=gpu:1(IDX:1) GRES=gpu:1(IDX:0)", &g), 0);
	assert_string_equal(g, "0,1");
	free(g);

	/* No GPU: NULL. */
	assert_int_equal(gpus("JobId=5 JOB_GRES=(null)\n Nodes=n GRES=\n",
	    &g), 0);
	assert_null(g);
	assert_int_equal(gpus("Nodes=n GRES=gpu:1(IDX:N/A)\n", &g), 0);
	assert_null(g);
	assert_int_equal(gpus("", &g), 0);
	assert_null(g);

	/* Garbage and truncation. */
	assert_int_equal(gpus("GRES=gpu:1(IDX:", &g), CLAW_ERR_PARSE);
	assert_int_equal(gpus("GRES=gpu:1(IDX:0),gpu:1(", &g),
	    CLAW_ERR_PARSE);
	assert_int_equal(gpus("GRES=gpu:1(IDX:x)", &g), CLAW_ERR_PARSE);
	assert_int_equal(gpus("GRES=gpu:1(IDX:3-1)", &g), CLAW_ERR_PARSE);
	assert_int_equal(gpus("GRES=gpu:1(IDX:01)", &g), CLAW_ERR_PARSE);
	assert_int_equal(gpus("GRES=gpu:1(IDX:1,)", &g), CLAW_ERR_PARSE);
	assert_int_equal(gpus("GRES=gpu:1(IDX:0-99999)", &g),
	    CLAW_ERR_PARSE);
	assert_int_equal(gpus("GRES=gpu:1(IDX:1024)", &g), CLAW_ERR_PARSE);
	assert_int_equal(gpus("GRES=gpu:1(FOO:1)", &g), CLAW_ERR_PARSE);
	assert_int_equal(gpus("GRES=gpu:1(IDX:1)x", &g), CLAW_ERR_PARSE);
	assert_int_equal(slurm_parse_gpus("GRES=gpu:1(IDX:0)\0", 18, &g,
	    NULL), CLAW_ERR_PARSE);
}

/* Read how a job is reached from text; return rc. */
static int
access_of(const char *text, struct slurm_access_info *ai)
{
	char	*cause = NULL;
	int	 rc;

	memset(ai, 0, sizeof *ai);
	rc = slurm_parse_access(text, strlen(text), ai, &cause);
	if (rc != 0)
		assert_non_null(strstr(cause, "slurm: "));
	free(cause);
	return rc;
}

#define KEY64	"AAAAC3NzaC1lZDI1NTE5AAAAIFIOZY++8rQXOlgct8VW9jQKmAK9F9Mq"

/* The Comment a holder job writes, and RunTime, each good and bad. */
static void
test_access(void **state)
{
	struct slurm_access_info	 ai;
	const char			*bad[] = {
		"Comment=clawssh-sshd:0:ssh-ed25519:" KEY64,
		"Comment=clawssh-sshd:65536:ssh-ed25519:" KEY64,
		"Comment=clawssh-sshd:123456:ssh-ed25519:" KEY64,
		"Comment=clawssh-sshd:x1:ssh-ed25519:" KEY64,
		"Comment=clawssh-sshd::ssh-ed25519:" KEY64,
		"Comment=clawssh-sshd:22:ssh-rsa:" KEY64,
		"Comment=clawssh-sshd:22:ssh-ed25519:AAAA",
		"Comment=clawssh-sshd:22:ssh-ed25519:" KEY64 "$(x)",
		"Comment=clawssh-sshd:22:ssh-ed25519:",
		"Comment=clawssh-sshd:22",
		"Comment=clawssh-srun:",
		"Comment=clawssh-srun:No-Sshd",
		"Comment=clawssh-srun:a;b",
		"Comment=clawssh-srun:abcdefghijklmnopqrstuvwxyzabcdefg",
		"Comment=clawssh-srun:x Comment=clawssh-srun:y",
	};
	size_t				 i;

	(void)state;
	assert_int_equal(access_of("JobId=7 JobName=clawssh-a\n"
	    "   RunTime=00:02:05 TimeLimit=UNLIMITED\n"
	    "   Comment=clawssh-sshd:35646:ssh-ed25519:" KEY64 " \n"
	    "   AdminComment=clawssh-srun:no\n", &ai), 0);
	assert_int_equal(ai.mode, SLURM_ACCESS_SSHD);
	assert_int_equal(ai.port, 35646);
	assert_string_equal(ai.host_key, "ssh-ed25519 " KEY64);
	assert_null(ai.why);
	assert_int_equal(ai.runtime, 125);
	slurm_access_clear(&ai);

	assert_int_equal(access_of("RunTime=1-00:00:01 "
	    "Comment=clawssh-srun:bind-failed", &ai), 0);
	assert_int_equal(ai.mode, SLURM_ACCESS_SRUN);
	assert_string_equal(ai.why, "bind-failed");
	assert_null(ai.host_key);
	assert_int_equal(ai.runtime, 86401);
	slurm_access_clear(&ai);

	/* Not said yet, or someone else's words: unknown, not an error. */
	assert_int_equal(access_of("RunTime=00:00:01 Comment=(null)", &ai), 0);
	assert_int_equal(ai.mode, SLURM_ACCESS_UNKNOWN);
	assert_int_equal(ai.runtime, 1);
	assert_int_equal(access_of("Comment=my-own-words RunTime=INVALID",
	    &ai), 0);
	assert_int_equal(ai.mode, SLURM_ACCESS_UNKNOWN);
	assert_int_equal(ai.runtime, -1);
	assert_int_equal(access_of("JobId=7", &ai), 0);
	assert_int_equal(ai.mode, SLURM_ACCESS_UNKNOWN);
	assert_int_equal(ai.runtime, -1);
	assert_int_equal(access_of("RunTime=00:0x:01", &ai), 0);
	assert_int_equal(ai.runtime, -1);

	/* Ours, but malformed: an error, never a guess. */
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (access_of(bad[i], &ai) != CLAW_ERR_PARSE)
			fail_msg("accepted: %s", bad[i]);
	}
	assert_int_equal(slurm_parse_access("Comment=clawssh-srun:x\0", 23,
	    &ai, NULL), CLAW_ERR_PARSE);
}

/* Public key lines: the comment dropped, garbage refused. */
static void
test_pubkey(void **state)
{
	const char	*bad[] = { "", "ssh-ed25519", "ssh-ed25519 ",
	    "ssh-ed25519 AAAA", " ssh-ed25519 " KEY64, "ssh-ed25519 " KEY64
	    "'x", "SSH-ED25519 " KEY64, "ssh-ed25519 " KEY64 "\nx y",
	    "ssh-ed25519\t" KEY64 };
	char		*k, *cause = NULL;
	size_t		 i;

	(void)state;
	assert_int_equal(slurm_pubkey_check("ssh-ed25519 " KEY64 " me@host"
	    "\n", strlen("ssh-ed25519 " KEY64 " me@host\n"), &k, NULL), 0);
	assert_string_equal(k, "ssh-ed25519 " KEY64);
	free(k);
	assert_int_equal(slurm_pubkey_check("ecdsa-sha2-nistp256 " KEY64,
	    strlen("ecdsa-sha2-nistp256 " KEY64), &k, NULL), 0);
	assert_string_equal(k, "ecdsa-sha2-nistp256 " KEY64);
	free(k);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		if (slurm_pubkey_check(bad[i], strlen(bad[i]), &k, &cause) !=
		    CLAW_ERR_PARSE)
			fail_msg("accepted: %s", bad[i]);
		assert_non_null(strstr(cause, "public key"));
		free(cause);
		cause = NULL;
	}
}

/* Run sh text with /bin/sh; return its exit status, or -1. */
static int
sh_status(const char *text)
{
	int	st;

	st = system(text);
	return st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Write the script for key and sshd to a temporary file; return its path. */
static char *
script_file(const char *key, const char *sshd)
{
	char	*s, *path;
	int	 fd;

	path = xstrdup("/tmp/.clawssh-slurm-job-XXXXXX");
	assert_int_not_equal(fd = mkstemp(path), -1);
	s = slurm_job_script(key, sshd);
	assert_int_equal(write(fd, s, strlen(s)), (ssize_t)strlen(s));
	close(fd);
	free(s);
	return path;
}

/*
 * The holder script: sh reads it (dash, busybox), a hostile key and
 * path stay one word each, and each way of having no sshd is said in
 * the job's Comment (scontrol stubbed) before it waits.
 */
static void
test_job_script(void **state)
{
	const char	*hostile =
	    "ssh-ed25519 AAAA'; touch /tmp/pwn; '$(x)`y`";
	const char	*why[][3] = {
		{ KEY64, "no", "disabled" },
		{ KEY64, "/nonexistent/sshd", "no-sshd" },
		{ KEY64, "sshd", "sshd-not-absolute" },
		{ "", "/bin/true", "no-user-key" },
	};
	char		*path, *cmd;
	size_t		 i;

	(void)state;
	path = script_file(hostile, "/x y/$(sshd)");
	cmd = xasprintf("sh -n %s && { ! busybox sh -c : 2>/dev/null || "
	    "busybox sh -n %s; } && eval \"$(head -n 1 %s)\" && "
	    "printf %%s \"$k\" | cmp -s - /tmp/.clawssh-slurm-k.%ld && "
	    "[ \"$sshd\" = '/x y/$(sshd)' ]", path, path, path,
	    (long)getpid());
	{
		char	*kf = xasprintf("/tmp/.clawssh-slurm-k.%ld",
			    (long)getpid());
		FILE	*f = fopen(kf, "w");

		assert_non_null(f);
		fputs(hostile, f);
		fclose(f);
		assert_int_equal(sh_status(cmd), 0);
		unlink(kf);
		free(kf);
	}
	free(cmd);
	unlink(path);
	free(path);

	for (i = 0; i < sizeof why / sizeof why[0]; i++) {
		path = script_file(why[i][0], why[i][1]);
		cmd = xasprintf("d=$(mktemp -d) || exit 9; "
		    "printf '#!/bin/sh\\necho \"$*\" > %%s/said\\n' \"$d\" "
		    "> \"$d/scontrol\"; chmod +x \"$d/scontrol\"; "
		    "SLURM_JOB_ID=999999007 PATH=\"$d:$PATH\" setsid sh %s & "
		    "p=$!; i=0; "
		    "while [ ! -s \"$d/said\" ] && [ $i -lt 50 ]; do "
		    "sleep 0.1; i=$((i + 1)); done; kill -- -$p; wait $p; "
		    "s=$(cat \"$d/said\"); rm -rf \"$d\"; "
		    "[ \"$s\" = 'update JobId=999999007 "
		    "Comment=clawssh-srun:%s' ]",
		    path, why[i][2]);
		if (sh_status(cmd) != 0)
			fail_msg("no '%s' said for sshd %s", why[i][2],
			    why[i][1]);
		free(cmd);
		unlink(path);
		free(path);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_squeue_good),
		cmocka_unit_test(test_squeue_foreign),
		cmocka_unit_test(test_squeue_garbage),
		cmocka_unit_test(test_squeue_hostile),
		cmocka_unit_test(test_states),
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_jobid),
		cmocka_unit_test(test_node_addr),
		cmocka_unit_test(test_gpus),
		cmocka_unit_test(test_access),
		cmocka_unit_test(test_pubkey),
		cmocka_unit_test(test_job_script),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
