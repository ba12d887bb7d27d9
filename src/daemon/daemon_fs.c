/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON-RPC and MCP fs.read, fs.stat and fs.ls answered by the daemon
 * itself where the file tools act on the local copy (a mirror sandbox,
 * access rw or ro): the sandbox's route (daemon_route.c) names that
 * copy, and the daemon reads it through pathguard as the CLI's worker
 * would, with the same output and errors, and no worker process.  The
 * reads are local and bounded (FSTORE_FILE_MAX, FSTORE_LIST_MAX); a FIFO
 * or device is refused without blocking (pathguard opens O_NONBLOCK).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "daemon_int.h"
#include "fstore.h"
#include "fstore_show.h"
#include "log.h"
#include "pathguard.h"
#include "xmalloc.h"

#define DFS_EXIT_FAILED	255	/* the CLI's own failures */

/* fs.read: the file, or its byte or line range, as stdout. */
static int
dfs_read(struct fstore *fs, const struct rpc_fs *a, struct buf *out,
    char **cause)
{
	int	r;

	if (a->lines) {
		if ((r = fstore_read(fs, a->path, 0, 0, out, NULL,
		    cause)) == 0)
			fstore_show_lines(out, a->offset, a->limit);
		return r;
	}
	return fstore_read(fs, a->path, a->offset, a->limit, out, NULL,
	    cause);
}

/* fs.stat: the entry as one JSON line. */
static int
dfs_stat(struct fstore *fs, const struct rpc_fs *a, struct buf *out,
    char **cause)
{
	struct fstore_stat	 st;
	cJSON			*o;
	char			*s;
	int			 r;

	memset(&st, 0, sizeof st);
	if ((r = fstore_stat(fs, a->path, &st, cause)) != 0)
		return r;
	o = fstore_show_json(*a->path == '\0' ? "." : a->path, &st);
	s = cJSON_PrintUnformatted(o);
	buf_appendf(out, "%s\n", s);
	free(s);
	cJSON_Delete(o);
	fstore_stat_clear(&st);
	return 0;
}

/* fs.ls: the entries as one JSON array line. */
static int
dfs_ls(struct fstore *fs, const struct rpc_fs *a, struct buf *out,
    char **cause)
{
	struct fstore_entry	*e = NULL;
	cJSON			*arr;
	char			*s;
	size_t			 i, n = 0;
	int			 r;

	if ((r = fstore_list(fs, a->path, &e, &n, cause)) != 0)
		return r;
	arr = cJSON_CreateArray();
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, fstore_show_json(e[i].name,
		    &e[i].st));
	s = cJSON_PrintUnformatted(arr);
	buf_appendf(out, "%s\n", s);
	free(s);
	cJSON_Delete(arr);
	fstore_entries_free(e, n);
	return 0;
}

/* Run c's tool on the copy at ws: 0 and out, or an error and cause. */
static int
dfs_run(const struct dcall *c, const char *ws, struct buf *out,
    char **cause)
{
	const char		*tool = c->rc.argv[0];
	struct pathguard	*pg = NULL;
	struct fstore		*fs;
	int			 r;

	if ((r = pathguard_open(ws, &pg, cause)) != 0)
		return r;
	fs = fstore_local(pg);
	if (strcmp(tool, "read") == 0)
		r = dfs_read(fs, &c->rc.fs, out, cause);
	else if (strcmp(tool, "stat") == 0)
		r = dfs_stat(fs, &c->rc.fs, out, cause);
	else
		r = dfs_ls(fs, &c->rc.fs, out, cause);
	fstore_free(fs);
	pathguard_close(pg);
	return r;
}

/* Answer c here; see daemon_int.h. */
int
dfs_call(struct dcall *c)
{
	struct buf	 out = BUF_INIT;
	const char	*ws;
	char		*cause = NULL, *line;
	int		 status = 0;

	if (!c->rc.fs.simple || c->rc.sandbox == NULL ||
	    (ws = droute_fs_local(c)) == NULL)
		return 0;
	log_debug("%s: sandbox %s: in the daemon, on the local copy",
	    c->method, c->rc.sandbox);
	if (dfs_run(c, ws, &out, &cause) != 0) {
		line = xasprintf("clawssh: %s: %s\n", c->rc.argv[0],
		    cause != NULL ? cause : "failed");
		dcall_output(c, 1, line, strlen(line));
		free(line);
		free(cause);
		status = DFS_EXIT_FAILED;
	} else if (out.len != 0)
		dcall_output(c, 0, out.data, out.len);
	buf_free(&out);
	drpc_finish(c, status);
	return 1;
}
