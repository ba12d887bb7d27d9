/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * GPU assignment on a host.  The table is indexed by GPU: holder[i] is the
 * sandbox id holding GPU i, or "" when it is free.  Lines of the
 * allocation file map one to one onto held entries.
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
#include "sandbox.h"
#include "xmalloc.h"

#define GPU_NSLOTS	(GPU_INDEX_MAX + 1)
#define GPU_BUSY_LIST	8	/* holders named in a "not enough" cause */

struct gpu_table {
	char	holder[GPU_NSLOTS][SANDBOX_ID_LEN + 1];
};

/* Return a new empty table. */
struct gpu_table *
gpu_table_new(void)
{
	return xcalloc(1, sizeof(struct gpu_table));
}

/* Free t; NULL does nothing. */
void
gpu_table_free(struct gpu_table *t)
{
	free(t);
}

/* Parse a GPU index; see gpu_alloc.h. */
int
gpu_parse_index(const char *s, size_t n)
{
	uint64_t	v;

	if (num_parse(s, n, NUM_CANONICAL, GPU_INDEX_MAX, &v) != 0)
		return CLAW_ERR_PARSE;
	return (int)v;
}

/* Parse line number line, s[0..n) without its newline, into t. */
static int
gpu_parse_line(struct gpu_table *t, const char *s, size_t n, size_t line,
    char **cause)
{
	char	id[SANDBOX_ID_LEN + 1];
	size_t	k;
	int	idx;

	for (k = 0; k < n && s[k] >= '0' && s[k] <= '9'; k++)
		;
	if (k == 0 || k == n || s[k] != ' ')
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "line %zu: want \"INDEX SANDBOX_ID\"", line);
	if ((idx = gpu_parse_index(s, k)) < 0)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "line %zu: bad GPU index (want 0..%d)", line,
		    GPU_INDEX_MAX);
	if (n - k - 1 != SANDBOX_ID_LEN)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "line %zu: bad sandbox id", line);
	memcpy(id, s + k + 1, SANDBOX_ID_LEN);
	id[SANDBOX_ID_LEN] = '\0';
	if (!sandbox_id_ok(id))
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "line %zu: bad sandbox id", line);
	if (t->holder[idx][0] != '\0')
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "line %zu: GPU %d listed twice", line, idx);
	memcpy(t->holder[idx], id, sizeof(id));
	return 0;
}

/* Parse the allocation file; see gpu_alloc.h. */
int
gpu_table_parse(const char *text, size_t len, struct gpu_table **out,
    char **cause)
{
	struct gpu_table	*t;
	struct lines		 lr;
	const char		*p;
	size_t			 n, line = 0;
	int			 r = 0;

	if (len > GPU_TABLE_MAX_BYTES)
		return claw_fail(cause, CLAW_ERR_PARSE, "GPU allocation file "
		    "is %zu bytes, more than %d", len, GPU_TABLE_MAX_BYTES);
	if (len != 0 && memchr(text, '\0', len) != NULL)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "GPU allocation file holds a NUL byte");
	t = gpu_table_new();
	lines_init(&lr, text, len);
	while (lines_next_loose(&lr, len, &p, &n) == 0) {
		if (++line > GPU_TABLE_MAX_LINES) {
			r = claw_fail(cause, CLAW_ERR_PARSE, "line %zu: more "
			    "than %d lines", line, GPU_TABLE_MAX_LINES);
			goto out;
		}
		if ((r = gpu_parse_line(t, p, n, line, cause)) != 0)
			goto out;
	}
	*out = t;
	t = NULL;
out:
	gpu_table_free(t);
	return r;
}

/* Return 1 if id is in live[0..nlive), else 0. */
static int
gpu_is_live(const char *id, const char *const *live, size_t nlive)
{
	size_t	i;

	for (i = 0; i < nlive; i++) {
		if (live[i] != NULL && strcmp(live[i], id) == 0)
			return 1;
	}
	return 0;
}

/* Release GPUs whose holder is neither keep nor live. */
static void
gpu_release_stale(struct gpu_table *t, const char *keep,
    const char *const *live, size_t nlive)
{
	int	i;

	for (i = 0; i < GPU_NSLOTS; i++) {
		if (t->holder[i][0] == '\0' || strcmp(t->holder[i], keep) == 0)
			continue;
		if (!gpu_is_live(t->holder[i], live, nlive))
			t->holder[i][0] = '\0';
	}
}

/* Release every GPU id holds. */
void
gpu_table_release(struct gpu_table *t, const char *id)
{
	int	i;

	if (t == NULL || id == NULL)
		return;
	for (i = 0; i < GPU_NSLOTS; i++) {
		if (strcmp(t->holder[i], id) == 0)
			t->holder[i][0] = '\0';
	}
}

/*
 * Mark present[0..npresent) in pres[] and set *np to the number of
 * distinct indexes.
 */
static int
gpu_mark_present(const int *present, size_t npresent,
    unsigned char pres[GPU_NSLOTS], size_t *np, char **cause)
{
	size_t	i;

	memset(pres, 0, GPU_NSLOTS);
	*np = 0;
	if (npresent != 0 && present == NULL)
		return claw_fail(cause, CLAW_ERR_INVAL, "no GPU list");
	for (i = 0; i < npresent; i++) {
		if (present[i] < 0 || present[i] > GPU_INDEX_MAX)
			return claw_fail(cause, CLAW_ERR_INVAL,
			    "GPU index %d outside 0..%d", present[i],
			    GPU_INDEX_MAX);
		if (!pres[present[i]])
			(*np)++;
		pres[present[i]] = 1;
	}
	return 0;
}

/* Set *got and *ngot to the sorted GPUs id holds (count of them: n). */
static void
gpu_collect(const struct gpu_table *t, const char *id, size_t n, int **got,
    size_t *ngot)
{
	int	*v;
	size_t	 k = 0;
	int	 i;

	v = xcalloc(n == 0 ? 1 : n, sizeof(*v));
	for (i = 0; i < GPU_NSLOTS && k < n; i++) {
		if (strcmp(t->holder[i], id) == 0)
			v[k++] = i;
	}
	*got = v;
	*ngot = k;
}

/* Return the number of GPUs id holds. */
static size_t
gpu_count_held(const struct gpu_table *t, const char *id)
{
	size_t	n = 0;
	int	i;

	for (i = 0; i < GPU_NSLOTS; i++) {
		if (strcmp(t->holder[i], id) == 0)
			n++;
	}
	return n;
}

/* Fail with "need N GPUs, M free on this host (GPU i held by ...)". */
static int
gpu_busy_fail(const struct gpu_table *t, const unsigned char *pres,
    size_t need, size_t nfree, char **cause)
{
	struct buf	b = BUF_INIT;
	size_t		listed = 0;
	int		i, r;

	buf_appendf(&b, "need %zu GPU%s, %zu free on this host", need,
	    need == 1 ? "" : "s", nfree);
	for (i = 0; i < GPU_NSLOTS; i++) {
		if (!pres[i] || t->holder[i][0] == '\0')
			continue;
		if (listed == GPU_BUSY_LIST) {
			buf_append_str(&b, ", ...");
			break;
		}
		buf_appendf(&b, "%sGPU %d held by %s", listed == 0 ? " (" :
		    ", ", i, t->holder[i]);
		listed++;
	}
	if (listed != 0)
		buf_append_str(&b, ")");
	r = claw_fail(cause, CLAW_ERR_EXISTS, "%s", b.data);
	buf_free(&b);
	return r;
}

/* Give id the lowest need free present GPUs, or fail naming holders. */
static int
gpu_take(struct gpu_table *t, const char *id, const unsigned char *pres,
    size_t np, size_t need, char **cause)
{
	size_t	nfree = 0, k = 0;
	int	i;

	if (np == 0)
		return claw_fail(cause, CLAW_ERR_UNSUPPORTED,
		    "no GPUs on this host");
	if (need > np)
		return claw_fail(cause, CLAW_ERR_UNSUPPORTED,
		    "need %zu GPUs, this host has %zu", need, np);
	for (i = 0; i < GPU_NSLOTS; i++) {
		if (pres[i] && t->holder[i][0] == '\0')
			nfree++;
	}
	if (nfree < need)
		return gpu_busy_fail(t, pres, need, nfree, cause);
	for (i = 0; i < GPU_NSLOTS && k < need; i++) {
		if (pres[i] && t->holder[i][0] == '\0') {
			memcpy(t->holder[i], id, SANDBOX_ID_LEN + 1);
			k++;
		}
	}
	return 0;
}

/* Assign GPUs to id; see gpu_alloc.h. */
int
gpu_table_assign(struct gpu_table *t, const char *id, int want,
    const int *present, size_t npresent, const char *const *live,
    size_t nlive, int **got, size_t *ngot, char **cause)
{
	unsigned char	pres[GPU_NSLOTS];
	size_t		np, need, held;
	int		r;

	if (t == NULL || !sandbox_id_ok(id))
		return claw_fail(cause, CLAW_ERR_INVAL, "bad sandbox id");
	if (want < -1 || want == 0)
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "GPU count must be positive or all");
	if (nlive != 0 && live == NULL)
		return claw_fail(cause, CLAW_ERR_INVAL, "no live sandbox list");
	if ((r = gpu_mark_present(present, npresent, pres, &np, cause)) != 0)
		return r;
	gpu_release_stale(t, id, live, nlive);
	need = want == -1 ? np : (size_t)want;
	if ((held = gpu_count_held(t, id)) != 0 && held != need)
		return claw_fail(cause, CLAW_ERR_EXISTS, "sandbox %s already "
		    "holds %zu GPU%s, not %zu", id, held, held == 1 ? "" : "s",
		    need);
	if (held == 0 && (r = gpu_take(t, id, pres, np, need, cause)) != 0)
		return r;
	gpu_collect(t, id, need, got, ngot);
	return 0;
}

/* Return the allocation file text for t; see gpu_alloc.h. */
char *
gpu_table_format(const struct gpu_table *t)
{
	struct buf	b = BUF_INIT;
	int		i;

	for (i = 0; t != NULL && i < GPU_NSLOTS; i++) {
		if (t->holder[i][0] != '\0')
			buf_appendf(&b, "%d %s\n", i, t->holder[i]);
	}
	return buf_detach(&b);
}

/*
 * Return the GPU index named by the /dev entry s[0..n) ("nvidiaN" or
 * "/dev/nvidiaN"), CLAW_ERR_NOTFOUND for any other name, or CLAW_ERR_RANGE
 * for an index too large.
 */
static int
gpu_device_index(const char *s, size_t n)
{
	size_t	k;
	int	i;

	if (n >= 5 && memcmp(s, "/dev/", 5) == 0) {
		s += 5;
		n -= 5;
	}
	if (n <= 6 || memcmp(s, "nvidia", 6) != 0)
		return CLAW_ERR_NOTFOUND;
	s += 6;
	n -= 6;
	for (k = 0; k < n; k++) {
		if (s[k] < '0' || s[k] > '9')
			return CLAW_ERR_NOTFOUND;
	}
	if (n > 1 && s[0] == '0')
		return CLAW_ERR_NOTFOUND;
	if ((i = gpu_parse_index(s, n)) < 0)
		return CLAW_ERR_RANGE;
	return i;
}

/* Parse a /dev listing into GPU indexes; see gpu_alloc.h. */
int
gpu_parse_devices(const char *text, size_t len, int **idx, size_t *n,
    char **cause)
{
	unsigned char	 seen[GPU_NSLOTS];
	struct lines	 lr;
	const char	*p;
	size_t		 k, line = 0, count = 0;
	int		 i, *v;

	if (len > GPU_DEVICES_MAX_BYTES)
		return claw_fail(cause, CLAW_ERR_PARSE, "device listing is "
		    "%zu bytes, more than %d", len, GPU_DEVICES_MAX_BYTES);
	if (len != 0 && memchr(text, '\0', len) != NULL)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "device listing holds a NUL byte");
	memset(seen, 0, sizeof(seen));
	lines_init(&lr, text, len);
	while (lines_next_loose(&lr, len, &p, &k) == 0) {
		line++;
		if ((i = gpu_device_index(p, k)) == CLAW_ERR_RANGE)
			return claw_fail(cause, CLAW_ERR_PARSE, "line %zu: GPU "
			    "device index over %d", line, GPU_INDEX_MAX);
		if (i >= 0 && !seen[i]) {
			seen[i] = 1;
			count++;
		}
	}
	v = count == 0 ? NULL : xcalloc(count, sizeof(*v));
	for (i = 0, k = 0; i < GPU_NSLOTS && k < count; i++) {
		if (seen[i])
			v[k++] = i;
	}
	*idx = v;
	*n = count;
	return 0;
}

/* Return "0,1" for got[0..n); see gpu_alloc.h. */
char *
gpu_visible(const int *got, size_t n)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	for (i = 0; i < n; i++)
		buf_appendf(&b, "%s%d", i == 0 ? "" : ",", got[i]);
	return buf_detach(&b);
}
