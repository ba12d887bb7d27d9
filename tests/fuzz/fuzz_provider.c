/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: what a control plane answers, all of it hostile --
 * Slurm's squeue, sbatch, scontrol (node address, GPUs, how a job is
 * reached) and the public key a job hands back, and the Kubernetes
 * objects kubectl prints (a SandboxClaim, its pods, the warm pools and
 * their templates), and the ssh config OpenShell's ssh-config prints
 * (read as its provider reads it: no Include).  The input's first byte
 * picks the parser; the rest is the text (parsed as JSON for
 * Kubernetes).  Sanitizers judge; every
 * result is freed.  Build with 'make fuzz' (clang); seeds in
 * tests/fuzz/corpus_provider.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/mman.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "log.h"
#include "provider_kubernetes.h"
#include "provider_slurm.h"
#include "sshconfig.h"
#include "xmalloc.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Slurm's words: which parser, on t[0..len). */
static void
fz_slurm(unsigned which, const char *t, size_t len)
{
	struct slurm_access_info	 ai;
	struct slurm_job		*jobs = NULL;
	char				 id[SLURM_JOBID_MAX + 1];
	char				*cause = NULL, *s = NULL;
	size_t				 n = 0;

	switch (which) {
	case 0:
	case 1:
		if (slurm_parse_squeue(t, len, which == 1 ? "box" : NULL,
		    &jobs, &n, &cause) == 0) {
			(void)slurm_job_pick(jobs, n);
			slurm_jobs_free(jobs, n);
		}
		break;
	case 2:
		(void)slurm_parse_jobid(t, len, id, &cause);
		break;
	case 3:
		(void)slurm_parse_node_addr(t, len, &s, &cause);
		break;
	case 4:
		(void)slurm_parse_gpus(t, len, &s, &cause);
		break;
	case 5:
		memset(&ai, 0, sizeof ai);
		(void)slurm_parse_access(t, len, &ai, &cause);
		slurm_access_clear(&ai);
		break;
	default:
		(void)slurm_pubkey_check(t, len, &s, &cause);
		break;
	}
	free(s);
	free(cause);
}

/* A claim's view as the pods are read against it. */
static void
fz_view_bound(struct k8s_view *v)
{
	memset(v, 0, sizeof *v);
	v->uid = xstrdup("u-1");
	v->namespace = xstrdup("agents");
	v->sandbox = xstrdup("sb");
	v->state = PROVIDER_PENDING;
	v->text = xstrdup("bound to Sandbox sb");
}

/* Kubernetes objects: which reader, on j. */
static void
fz_k8s(unsigned which, const cJSON *j)
{
	struct k8s_view	 v;
	char		*why = NULL, *s = NULL;
	int		 gpus;

	switch (which) {
	case 0:
		memset(&v, 0, sizeof v);
		(void)k8s_claim_read(j, "claw-c1", "lab", &v, &why);
		k8s_view_clear(&v);
		break;
	case 1:
		fz_view_bound(&v);
		(void)k8s_pod_read(j, "box", &v, &why);
		k8s_view_clear(&v);
		break;
	case 2:
		(void)k8s_pool_pick(j, "t", &s, &why);
		break;
	default:
		(void)k8s_pool_template(j, &s, &why);
		free(why);
		why = NULL;
		(void)k8s_template_gpus(j, &gpus, &why);
		break;
	}
	free(s);
	free(why);
}

/* An ssh config text, as OpenShell's provider reads ssh-config's. */
static void
fz_sshconfig(const char *t, size_t len)
{
	struct sshconfig_query	 q;
	struct sshconfig	*sc = NULL;
	char			 path[64], *why = NULL;
	int			 fd;

	if ((fd = memfd_create("fuzz-ssh-config", MFD_CLOEXEC)) == -1)
		abort();
	if (write(fd, t, len) != (ssize_t)len)
		abort();
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	memset(&q, 0, sizeof q);
	q.host = "h";
	q.local_user = "u";
	q.home = "/nonexistent";
	if (sshconfig_resolve(path, SSHCONFIG_NO_INCLUDE, &q, &sc,
	    &why) == 0) {
		if (why != NULL || sc == NULL || sc->hostname == NULL)
			abort();
		sshconfig_free(sc);
	} else if (why == NULL || sc != NULL)
		abort();
	free(why);
	close(fd);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf	 b = BUF_INIT;
	cJSON		*j;
	unsigned	 which;

	if (size < 1)
		return 0;
	log_set_level(LOG_LEVEL_ERROR - 1);	/* not even warnings */
	which = data[0] % 12;
	buf_append(&b, data + 1, size - 1);	/* NUL-terminated too */
	if (which < 7)
		fz_slurm(which, b.data, b.len);
	else if (which == 11)
		fz_sshconfig(b.data, b.len);
	else if ((j = cJSON_ParseWithLength(b.data, b.len)) != NULL) {
		fz_k8s(which - 7, j);
		cJSON_Delete(j);
	}
	buf_free(&b);
	return 0;
}
