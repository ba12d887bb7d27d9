/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Reading what Slurm's commands print for the slurm provider driver:
 * squeue lines, sbatch --parsable, scontrol's NodeAddr and GRES indexes.
 * Everything is hostile: lengths, characters and counts are checked, and
 * anything unexpected is an error rather than a guess.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "gpu_alloc.h"
#include "lines.h"
#include "num.h"
#include "provider_slurm.h"
#include "xmalloc.h"

#define SLURM_LINE_MAX		1024	/* bytes of one squeue line */
#define SLURM_LINES_MAX		10000	/* squeue lines read */
#define SLURM_REASON_MAX	64	/* bytes of a pending reason kept */
#define SLURM_HOST_MAX		253	/* bytes of a node name or address */
#define SLURM_FIELDS		5	/* fields of SLURM_SQUEUE_FORMAT */

/* Slurm's job states and where each leaves a sandbox. */
static const struct {
	const char		*word;
	enum provider_state	 state;
} slurm_states[] = {
	{ "PENDING",		PROVIDER_PENDING },
	{ "CONFIGURING",	PROVIDER_PENDING },
	{ "REQUEUED",		PROVIDER_PENDING },
	{ "REQUEUE_FED",	PROVIDER_PENDING },
	{ "REQUEUE_HOLD",	PROVIDER_PENDING },
	{ "RESV_DEL_HOLD",	PROVIDER_PENDING },
	{ "RESIZING",		PROVIDER_PENDING },
	{ "SUSPENDED",		PROVIDER_PENDING },
	{ "STOPPED",		PROVIDER_PENDING },
	{ "RUNNING",		PROVIDER_READY },
	{ "COMPLETING",		PROVIDER_GONE },
	{ "SIGNALING",		PROVIDER_GONE },
	{ "STAGE_OUT",		PROVIDER_GONE },
	{ "COMPLETED",		PROVIDER_GONE },
	{ "CANCELLED",		PROVIDER_GONE },
	{ "FAILED",		PROVIDER_GONE },
	{ "TIMEOUT",		PROVIDER_GONE },
	{ "PREEMPTED",		PROVIDER_GONE },
	{ "DEADLINE",		PROVIDER_GONE },
	{ "NODE_FAIL",		PROVIDER_GONE },
	{ "BOOT_FAIL",		PROVIDER_GONE },
	{ "OUT_OF_MEMORY",	PROVIDER_GONE },
	{ "REVOKED",		PROVIDER_GONE },
	{ "SPECIAL_EXIT",	PROVIDER_GONE }
};

/* True for the bytes a sandbox name may hold. */
static int
slurm_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

/* True when s[0..n) is a valid sandbox name. */
static int
slurm_name_ok(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || n > SLURM_JOB_NAME_MAX - strlen(SLURM_JOB_PREFIX))
		return 0;
	if (!slurm_name_char(s[0]) || s[0] == '.' || s[0] == '_' ||
	    s[0] == '-')
		return 0;
	for (i = 0; i < n; i++) {
		if (!slurm_name_char(s[i]))
			return 0;
	}
	return 1;
}

/* Check a sandbox name; see provider_slurm.h. */
int
slurm_name_check(const char *name, char **cause)
{
	if (!slurm_name_ok(name, strlen(name)))
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "slurm: bad sandbox name (want 1..%zu of [A-Za-z0-9._-], "
		    "starting with a letter or digit)",
		    SLURM_JOB_NAME_MAX - strlen(SLURM_JOB_PREFIX));
	return 0;
}

/* Map a state word; see provider_slurm.h. */
int
slurm_state_map(const char *word, enum provider_state *state)
{
	size_t	i;

	for (i = 0; i < sizeof slurm_states / sizeof slurm_states[0]; i++) {
		if (strcmp(word, slurm_states[i].word) == 0) {
			*state = slurm_states[i].state;
			return 0;
		}
	}
	return CLAW_ERR_PARSE;
}

/* True when s[0..n) is a plausible host name or address. */
static int
slurm_host_ok(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || n > SLURM_HOST_MAX || s[0] == '-')
		return 0;
	for (i = 0; i < n; i++) {
		if (!slurm_name_char(s[i]) && s[i] != ':')
			return 0;
	}
	return 1;
}

/* True when s[0..n) is 1..SLURM_JOBID_MAX digits. */
static int
slurm_jobid_ok(const char *s, size_t n)
{
	size_t	i;

	if (n == 0 || n > SLURM_JOBID_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
	}
	return 1;
}

/* Free n jobs and the array. */
void
slurm_jobs_free(struct slurm_job *jobs, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		free(jobs[i].name);
		free(jobs[i].state_text);
		free(jobs[i].node);
	}
	free(jobs);
}

/* The state text: the word, and the reason when there is one. */
static char *
slurm_state_text(const char *word, const char *r, size_t rn)
{
	size_t	i;
	char	*reason, *s;

	if (rn == 0 ||
	    (rn == 4 && memcmp(r, "None", 4) == 0))
		return xstrdup(word);
	if (rn > SLURM_REASON_MAX)
		rn = SLURM_REASON_MAX;
	reason = xstrndup(r, rn);
	for (i = 0; i < rn; i++) {
		if (reason[i] <= ' ' || reason[i] > '~')
			reason[i] = '?';
	}
	s = xasprintf("%s (%s)", word, reason);
	free(reason);
	return s;
}

/*
 * Split line s[0..n) at the first SLURM_FIELDS - 1 '|' into f[] and
 * fn[]; the last field takes the rest.  Returns 0 or CLAW_ERR_PARSE.
 */
static int
slurm_split(const char *s, size_t n, const char **f, size_t *fn)
{
	const char	*p = s, *end = s + n, *bar;
	int		 i;

	for (i = 0; i < SLURM_FIELDS - 1; i++) {
		if ((bar = memchr(p, '|', end - p)) == NULL)
			return CLAW_ERR_PARSE;
		f[i] = p;
		fn[i] = bar - p;
		p = bar + 1;
	}
	f[i] = p;
	fn[i] = end - p;
	return 0;
}

/*
 * Parse one squeue line s[0..n) (line number line) into j.  Returns 0,
 * 1 when the line is not one of ours (or not want), or an error.
 */
static int
slurm_parse_line(const char *s, size_t n, size_t line, const char *want,
    struct slurm_job *j, char **cause)
{
	const char	*f[SLURM_FIELDS], *name;
	size_t		 fn[SLURM_FIELDS], plen = strlen(SLURM_JOB_PREFIX);
	size_t		 namelen;
	char		 word[32];

	if (slurm_split(s, n, f, fn) != 0)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: squeue line %zu: want ID|STATE|REASON|NODES|NAME",
		    line);
	if (fn[4] < plen || memcmp(f[4], SLURM_JOB_PREFIX, plen) != 0 ||
	    !slurm_name_ok(f[4] + plen, fn[4] - plen))
		return 1;
	name = f[4] + plen;
	namelen = fn[4] - plen;
	if (want != NULL &&
	    (strlen(want) != namelen || memcmp(want, name, namelen) != 0))
		return 1;
	if (!slurm_jobid_ok(f[0], fn[0]))
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: squeue line %zu: bad job id", line);
	if (fn[1] == 0 || fn[1] >= sizeof word)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: squeue line %zu: bad job state", line);
	memcpy(word, f[1], fn[1]);
	word[fn[1]] = '\0';
	if (slurm_state_map(word, &j->state) != 0)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: squeue line %zu: unknown job state", line);
	if (fn[3] != 0 && !slurm_host_ok(f[3], fn[3]))
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: squeue line %zu: bad node name", line);
	memcpy(j->id, f[0], fn[0]);
	j->id[fn[0]] = '\0';
	j->name = xstrndup(name, namelen);
	j->state_text = slurm_state_text(word, f[2], fn[2]);
	j->node = fn[3] != 0 ? xstrndup(f[3], fn[3]) : NULL;
	return 0;
}

/* Parse squeue output; see provider_slurm.h. */
int
slurm_parse_squeue(const char *text, size_t len, const char *want,
    struct slurm_job **jobs, size_t *n, char **cause)
{
	struct slurm_job	*v = NULL;
	struct lines		 lr;
	const char		*p;
	size_t			 nv = 0, line = 0, ll;
	int			 rc;

	if (memchr(text, '\0', len) != NULL)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: squeue printed a NUL byte");
	lines_init(&lr, text, len);
	while (lines_left(&lr) != 0) {
		if (++line > SLURM_LINES_MAX ||
		    lines_next_loose(&lr, SLURM_LINE_MAX, &p, &ll) != 0) {
			rc = claw_fail(cause, CLAW_ERR_PARSE, "slurm: squeue "
			    "output too long (line %zu)", line);
			goto fail;
		}
		v = xreallocarray(v, nv + 1, sizeof *v);
		memset(&v[nv], 0, sizeof v[nv]);
		if (ll != 0 &&
		    (rc = slurm_parse_line(p, ll, line, want, &v[nv],
		    cause)) < 0)
			goto fail;
		if (ll != 0 && rc == 0)
			nv++;
	}
	if (nv == 0) {
		free(v);
		v = NULL;
	}
	*jobs = v;
	*n = nv;
	return 0;
fail:
	slurm_jobs_free(v, nv);
	return rc;
}

/* True when a is a newer job id than b (both digits only). */
static int
slurm_jobid_newer(const char *a, const char *b)
{
	size_t	la = strlen(a), lb = strlen(b);

	if (la != lb)
		return la > lb;
	return strcmp(a, b) > 0;
}

/* True when a job is pending or running. */
static int
slurm_job_live(const struct slurm_job *j)
{
	return j->state == PROVIDER_PENDING || j->state == PROVIDER_READY;
}

/* Compare two jobs of one name; see provider_slurm.h. */
int
slurm_job_better(const struct slurm_job *a, const struct slurm_job *b)
{
	if (slurm_job_live(a) != slurm_job_live(b))
		return slurm_job_live(a);
	return slurm_jobid_newer(a->id, b->id);
}

/* Pick the job that stands for the sandbox; see provider_slurm.h. */
const struct slurm_job *
slurm_job_pick(const struct slurm_job *jobs, size_t n)
{
	const struct slurm_job	*best = NULL;
	size_t			 i;

	for (i = 0; i < n; i++) {
		if (best == NULL || slurm_job_better(&jobs[i], best))
			best = &jobs[i];
	}
	return best;
}

/* Parse sbatch --parsable output; see provider_slurm.h. */
int
slurm_parse_jobid(const char *text, size_t len, char *id, char **cause)
{
	size_t	n;

	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	for (n = 0; n < len && text[n] != ';'; n++)
		;
	if (!slurm_jobid_ok(text, n) ||
	    memchr(text, '\n', len) != NULL || memchr(text, '\0', len) != NULL)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: sbatch printed no job id");
	memcpy(id, text, n);
	id[n] = '\0';
	return 0;
}

/*
 * Find the whitespace-separated tokens of text[0..len) that start with
 * key; call fn on each value.  Returns fn's first error, or the count.
 */
static int
slurm_tokens(const char *text, size_t len, const char *key,
    int (*fn)(const char *, size_t, void *, char **), void *arg,
    char **cause)
{
	const char	*p = text, *end = text + len, *t;
	size_t		 kn = strlen(key);
	int		 rc, count = 0;

	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\n'))
			p++;
		for (t = p; p < end && *p != ' ' && *p != '\t' &&
		    *p != '\n'; p++)
			;
		if ((size_t)(p - t) >= kn && memcmp(t, key, kn) == 0) {
			if ((rc = fn(t + kn, p - t - kn, arg, cause)) != 0)
				return rc;
			count++;
		}
	}
	return count;
}

/* Take a NodeAddr value. */
static int
slurm_addr_cb(const char *v, size_t n, void *arg, char **cause)
{
	char	**addr = arg;

	if (*addr != NULL)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: scontrol printed more than one NodeAddr");
	if (!slurm_host_ok(v, n))
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: scontrol printed a bad NodeAddr");
	*addr = xstrndup(v, n);
	return 0;
}

/* Parse NodeAddr; see provider_slurm.h. */
int
slurm_parse_node_addr(const char *text, size_t len, char **addr,
    char **cause)
{
	char	*a = NULL;
	int	 rc;

	if (memchr(text, '\0', len) != NULL)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: scontrol printed a NUL byte");
	rc = slurm_tokens(text, len, "NodeAddr=", slurm_addr_cb, &a, cause);
	if (rc == 0)
		rc = claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: scontrol printed no NodeAddr");
	if (rc < 0) {
		free(a);
		return rc;
	}
	*addr = a;
	return 0;
}

/* Mark the indexes of an IDX list ("0,2-3") at s[0..n) in seen[]. */
static int
slurm_idx_list(const char *s, size_t n, char *seen, char **cause)
{
	const char	*p = s, *end = s + n, *c, *dash;
	int		 a, b;

	if (n == 3 && memcmp(s, "N/A", 3) == 0)
		return 0;
	if (n == 0 || s[n - 1] == ',')
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: scontrol printed a bad GPU index list");
	while (p < end) {
		if ((c = memchr(p, ',', end - p)) == NULL)
			c = end;
		if ((dash = memchr(p, '-', c - p)) == NULL) {
			a = b = gpu_parse_index(p, c - p);
		} else {
			a = gpu_parse_index(p, dash - p);
			b = gpu_parse_index(dash + 1, c - dash - 1);
		}
		if (a < 0 || b < a)
			return claw_fail(cause, CLAW_ERR_PARSE,
			    "slurm: scontrol printed a bad GPU index list");
		for (; a <= b; a++)
			seen[a] = 1;
		p = c + 1;
	}
	return 0;
}

/*
 * Take a GRES= value: entries NAME[:TYPE]:COUNT(IDX:LIST) joined by ','.
 * Only gpu entries count.
 */
static int
slurm_gres_cb(const char *v, size_t n, void *arg, char **cause)
{
	const char	*p = v, *end = v + n, *open, *close;
	int		 rc;

	while (p < end) {
		open = memchr(p, '(', end - p);
		close = open != NULL ? memchr(open, ')', end - open) : NULL;
		if (open == NULL) {
			/* A GRES without indexes ("gpu:1"): nothing bound. */
			return 0;
		}
		if (close == NULL)
			return claw_fail(cause, CLAW_ERR_PARSE,
			    "slurm: scontrol printed a truncated GRES field");
		if ((size_t)(close - open) < 5 ||
		    memcmp(open, "(IDX:", 5) != 0)
			return claw_fail(cause, CLAW_ERR_PARSE,
			    "slurm: scontrol printed a bad GRES field");
		if (open - p > 4 && memcmp(p, "gpu:", 4) == 0 &&
		    (rc = slurm_idx_list(open + 5, close - open - 5, arg,
		    cause)) != 0)
			return rc;
		p = close + 1;
		if (p < end && *p++ != ',')
			return claw_fail(cause, CLAW_ERR_PARSE,
			    "slurm: scontrol printed a bad GRES field");
	}
	return 0;
}

/* Parse the GPU indexes; see provider_slurm.h. */
int
slurm_parse_gpus(const char *text, size_t len, char **gpus, char **cause)
{
	char		*seen;
	struct buf	 b = BUF_INIT;
	int		 i, rc;

	if (memchr(text, '\0', len) != NULL)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: scontrol printed a NUL byte");
	seen = xcalloc(GPU_INDEX_MAX + 1, 1);
	if ((rc = slurm_tokens(text, len, "GRES=", slurm_gres_cb, seen,
	    cause)) < 0) {
		free(seen);
		return rc;
	}
	for (i = 0; i <= GPU_INDEX_MAX; i++) {
		if (seen[i])
			buf_appendf(&b, "%s%d", b.len != 0 ? "," : "", i);
	}
	free(seen);
	*gpus = b.len != 0 ? buf_detach(&b) : NULL;
	return 0;
}

/* True when s[0..n) is n bytes all in set. */
static int
slurm_all_in(const char *s, size_t n, const char *set)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (s[i] == '\0' || strchr(set, s[i]) == NULL)
			return 0;
	}
	return 1;
}

#define SLURM_B64	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
			"0123456789+/="
#define SLURM_KEY_B64_MAX	1024	/* base64 bytes of a key we pin */
#define SLURM_WHY_MAX		32	/* bytes of a clawssh-srun reason */
#define SLURM_SSHD_TAG		"clawssh-sshd:"
#define SLURM_SRUN_TAG		"clawssh-srun:"

/* Read PORT:ssh-ed25519:BASE64 at v[0..n) into ai; 0 or CLAW_ERR_PARSE. */
static int
slurm_access_sshd(const char *v, size_t n, struct slurm_access_info *ai)
{
	const char	*c, *end = v + n;
	size_t		 tn = sizeof "ssh-ed25519:" - 1;
	uint64_t	 port;

	if ((c = memchr(v, ':', n)) == NULL ||
	    num_parse(v, (size_t)(c - v), 0, 65535, &port) != 0)
		return CLAW_ERR_PARSE;
	v = c + 1;
	if (port < 1 || (size_t)(end - v) <= tn ||
	    memcmp(v, "ssh-ed25519:", tn) != 0)
		return CLAW_ERR_PARSE;
	v += tn;
	if (end - v < 16 || end - v > SLURM_KEY_B64_MAX ||
	    !slurm_all_in(v, end - v, SLURM_B64))
		return CLAW_ERR_PARSE;
	ai->mode = SLURM_ACCESS_SSHD;
	ai->port = (int)port;
	ai->host_key = xasprintf("ssh-ed25519 %.*s", (int)(end - v), v);
	return 0;
}

/* Take a Comment= value. */
static int
slurm_comment_cb(const char *v, size_t n, void *arg, char **cause)
{
	struct slurm_access_info	*ai = arg;
	size_t				 sn = sizeof SLURM_SSHD_TAG - 1;
	size_t				 rn = sizeof SLURM_SRUN_TAG - 1;

	if (ai->mode != SLURM_ACCESS_UNKNOWN || ai->why != NULL)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: scontrol printed more than one Comment");
	if (n >= sn && memcmp(v, SLURM_SSHD_TAG, sn) == 0) {
		if (slurm_access_sshd(v + sn, n - sn, ai) != 0)
			return claw_fail(cause, CLAW_ERR_PARSE, "slurm: the "
			    "job's Comment names a malformed sshd endpoint");
	} else if (n >= rn && memcmp(v, SLURM_SRUN_TAG, rn) == 0) {
		if (n == rn || n - rn > SLURM_WHY_MAX ||
		    !slurm_all_in(v + rn, n - rn,
		    "abcdefghijklmnopqrstuvwxyz-"))
			return claw_fail(cause, CLAW_ERR_PARSE, "slurm: the "
			    "job's Comment has a malformed srun reason");
		ai->mode = SLURM_ACCESS_SRUN;
		ai->why = xstrndup(v + rn, n - rn);
	}
	return 0;
}

/* Take a RunTime= value: [D-]HH:MM:SS, or INVALID and the like. */
static int
slurm_runtime_cb(const char *v, size_t n, void *arg, char **cause)
{
	long		*secs = arg;
	const char	*end = v + n;
	long		 d = 0, part[3] = { 0, 0, 0 };
	int		 i;

	(void)cause;
	*secs = -1;
	if (memchr(v, '-', n) != NULL) {
		for (; v < end && *v >= '0' && *v <= '9' && d < 100000; v++)
			d = d * 10 + (*v - '0');
		if (v == end || *v++ != '-')
			return 0;
	}
	for (i = 0; i < 3; i++) {
		if (end - v < 2 || v[0] < '0' || v[0] > '9' || v[1] < '0' ||
		    v[1] > '9')
			return 0;
		part[i] = (v[0] - '0') * 10 + (v[1] - '0');
		v += 2;
		if (i < 2 && (v == end || *v++ != ':'))
			return 0;
	}
	if (v != end)
		return 0;
	*secs = ((d * 24 + part[0]) * 60 + part[1]) * 60 + part[2];
	return 0;
}

/* Read how a job is reached; see provider_slurm.h. */
int
slurm_parse_access(const char *text, size_t len,
    struct slurm_access_info *ai, char **cause)
{
	struct slurm_access_info	a;
	int				rc;

	memset(&a, 0, sizeof a);
	a.runtime = -1;
	if (memchr(text, '\0', len) != NULL)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: scontrol printed a NUL byte");
	if ((rc = slurm_tokens(text, len, "Comment=", slurm_comment_cb, &a,
	    cause)) < 0 ||
	    (rc = slurm_tokens(text, len, "RunTime=", slurm_runtime_cb,
	    &a.runtime, cause)) < 0) {
		slurm_access_clear(&a);
		return rc;
	}
	*ai = a;
	return 0;
}

/* Free an access; see provider_slurm.h. */
void
slurm_access_clear(struct slurm_access_info *ai)
{
	free(ai->host_key);
	free(ai->why);
	memset(ai, 0, sizeof *ai);
}

/* Check a public key line; see provider_slurm.h. */
int
slurm_pubkey_check(const char *line, size_t len, char **out, char **cause)
{
	size_t	t, b;

	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	t = 0;
	while (t < len && line[t] != ' ' && t <= 64 &&
	    slurm_all_in(line + t, 1, "abcdefghijklmnopqrstuvwxyz"
	    "0123456789-@."))
		t++;
	for (b = 0; t + 1 + b < len &&
	    slurm_all_in(line + t + 1 + b, 1, SLURM_B64); b++)
		;
	if (t == 0 || t > 64 || t + 1 >= len || line[t] != ' ' || b < 16 ||
	    t + 1 + b > len || (t + 1 + b < len && line[t + 1 + b] != ' ') ||
	    memchr(line, '\n', len) != NULL)
		return claw_fail(cause, CLAW_ERR_PARSE, "slurm: not an OpenSSH "
		    "public key line (TYPE BASE64 [COMMENT])");
	*out = xstrndup(line, t + 1 + b);
	return 0;
}
