/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the slurm provider driver's parsers: squeue lines, sbatch
 * --parsable, scontrol's NodeAddr and GRES indexes, each good, garbage
 * and truncated, and the choice among jobs of one name.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
