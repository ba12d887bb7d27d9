/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host-directory backend's GPU assignment: the host's allocation file
 * <remoteRoot>/gpus (INDEX ID lines) is read, the assignment computed here
 * (gpu_alloc), and the new file written back only if nobody changed it
 * meanwhile (else read again).  GPUs of sandboxes that no longer exist
 * are reclaimed on the way.  See hostdir.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "gpu_alloc.h"
#include "hostdir.h"
#include "hostdir_int.h"
#include "hostdir_scripts.h"
#include "lines.h"
#include "sandbox.h"
#include "transport.h"
#include "xmalloc.h"

#define GPU_TRIES	5	/* reads before giving up on a busy file */

/* What one read of the host's GPU state found. */
struct gpu_state {
	int		*present;
	size_t		 npresent;
	char		**live;
	size_t		 nlive;
	char		*table;		/* the file's text */
	size_t		 tlen;
};

/* Free a state. */
static void
gs_free(struct gpu_state *g)
{
	size_t	i;

	free(g->present);
	for (i = 0; i < g->nlive; i++)
		free(g->live[i]);
	free(g->live);
	free(g->table);
	memset(g, 0, sizeof *g);
}

/* Return the text after marker line m in [p, end), or NULL. */
static const char *
gs_after(const char *p, const char *end, const char *m)
{
	size_t		 n = strlen(m);
	const char	*q;

	for (q = p; q + n < end; q++) {
		if ((q == p || q[-1] == '\n') && memcmp(q, m, n) == 0 &&
		    q[n] == '\n')
			return q + n + 1;
	}
	return NULL;
}

/* Split the read's output into g. */
static int
gs_parse(struct transport *t, const struct buf *o, struct gpu_state *g,
    char **cause)
{
	const char	*p = o->data, *end = o->data + o->len, *dev, *live, *tab;
	struct lines	 l;
	char		*line;

	if (p == NULL || (dev = gs_after(p, end, "clawssh-devices")) == NULL ||
	    (live = gs_after(dev, end, "clawssh-live")) == NULL ||
	    (tab = gs_after(live, end, "clawssh-table")) == NULL)
		return claw_fail(cause, CLAW_ERR_PROTO, "%s: garbled GPU "
		    "state", transport_label(t));
	if (gpu_parse_devices(dev, (size_t)(live - dev) -
	    strlen("clawssh-live\n"), &g->present, &g->npresent, cause) != 0)
		return CLAW_ERR_PROTO;
	lines_init(&l, live, (size_t)(tab - live) - strlen("clawssh-table\n"));
	while ((line = hostdir_line(&l)) != NULL) {
		if (!sandbox_id_ok(line)) {
			free(line);
			continue;
		}
		g->live = xreallocarray(g->live, g->nlive + 1,
		    sizeof *g->live);
		g->live[g->nlive++] = line;
	}
	g->tlen = (size_t)(end - tab);
	g->table = xstrndup(tab, g->tlen);
	return 0;
}

/* Write new over old if old is still there; *again if it was not. */
static int
gs_write(struct transport *t, const char *root, const struct gpu_state *g,
    const char *new, int *again, char **cause)
{
	struct buf	 in = BUF_INIT, out = BUF_INIT;
	char		*script;
	int		 rc;

	script = hostdir_script(HOSTDIR_SCRIPT_GPU_WRITE, root, NULL);
	buf_appendf(&in, "%zu %zu\n", g->tlen, strlen(new));
	buf_append(&in, g->table, g->tlen);
	buf_append_str(&in, new);
	rc = hostdir_run(t, script, in.data, in.len, &out, cause);
	*again = rc == 0 && out.data != NULL &&
	    strstr(out.data, "clawssh-retry\n") != NULL;
	if (rc == 0 && !*again && (out.data == NULL ||
	    strstr(out.data, "clawssh-written\n") == NULL))
		rc = claw_fail(cause, CLAW_ERR_PROTO, "%s: garbled reply to "
		    "the GPU assignment", transport_label(t));
	free(script);
	buf_free(&in);
	buf_free(&out);
	return rc;
}

/* One read-assign-write round; *again when the file changed under us. */
static int
gs_round(struct transport *t, const char *root, const char *id, int want,
    int **got, size_t *ngot, int *again, char **cause)
{
	struct gpu_state	 g;
	struct gpu_table	*tab = NULL;
	struct buf		 o = BUF_INIT;
	char			*script;
	char			*new = NULL;
	int			 rc;

	memset(&g, 0, sizeof g);
	script = hostdir_script(HOSTDIR_SCRIPT_GPU_READ, root, NULL);
	if ((rc = hostdir_run(t, script, NULL, 0, &o, cause)) == 0 &&
	    (rc = gs_parse(t, &o, &g, cause)) == 0 &&
	    (rc = gpu_table_parse(g.table, g.tlen, &tab, cause)) == 0 &&
	    (rc = gpu_table_assign(tab, id, want, g.present, g.npresent,
	    (const char *const *)g.live, g.nlive, got, ngot, cause)) == 0) {
		new = gpu_table_format(tab);
		if ((rc = gs_write(t, root, &g, new, again, cause)) != 0 ||
		    *again) {
			free(*got);
			*got = NULL;
		}
	}
	free(new);
	gpu_table_free(tab);
	gs_free(&g);
	buf_free(&o);
	free(script);
	return rc;
}

/* Assign GPUs to a sandbox; see hostdir.h. */
int
hostdir_gpu_assign(struct transport *t, const char *root, const char *id,
    int want, int **got, size_t *ngot, char **cause)
{
	int	rc = 0, again = 1, tries;

	for (tries = 0; rc == 0 && again && tries < GPU_TRIES; tries++)
		rc = gs_round(t, root, id, want, got, ngot, &again, cause);
	if (rc == 0 && again)
		rc = claw_fail(cause, CLAW_ERR_PROTO, "%s: the GPU allocation "
		    "file kept changing; try again", transport_label(t));
	return rc;
}
