/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON-RPC and MCP fs.read, fs.stat, fs.ls, fs.write, fs.edit and
 * fs.applyPatch answered by the daemon itself where the file tools act on the local
 * copy (a mirror sandbox, access rw, or ro for reading; no push): the
 * sandbox's route (daemon_route.c) names that copy, and the daemon uses
 * it through pathguard and fstore as the CLI's worker would, with the
 * same output and errors, and no worker process.  Everything is local
 * and bounded (FSTORE_FILE_MAX, FSTORE_LIST_MAX); a FIFO or device is
 * refused without blocking (pathguard opens O_NONBLOCK).  What the CLI
 * would refuse before touching a file (a read-only workspace, content
 * over FSTORE_FILE_MAX) goes to a worker, which says so.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "daemon_int.h"
#include "error.h"
#include "exec.h"
#include "fsedit.h"
#include "fstore.h"
#include "fstore_patch.h"
#include "fstore_show.h"
#include "fstore_wire.h"
#include "log.h"
#include "patch.h"
#include "pathguard.h"
#include "xmalloc.h"

#define DFS_EXIT_FAILED	255	/* the CLI's own failures */
#define DFS_EDIT_READ	1	/* a remote edit's steps: the read, */
#define DFS_EDIT_COMMIT	2	/* then the write of the new text */
#define DFS_PATCH_READ	3	/* a remote patch: a read a file, */
#define DFS_PATCH_COMMIT 4	/* then the commit of every change */

/* A patch to a host's copy on its way (dcall.fs_patch). */
struct dfs_patch {
	struct patch	 *p;
	struct fstore	 *fs;		/* staged: the reads, the commit */
	char		**paths;	/* to read, normalised */
	size_t		  n;
	size_t		  next;		/* the one being read */
	struct buf	  report;	/* "M PATH" lines, said at the end */
};

/* The tools answered here, and whether they write. */
static const struct {
	const char	*name;
	int		 writes;
} dfs_tools[] = {
	{ "read", 0 }, { "stat", 0 }, { "ls", 0 }, { "write", 1 },
	{ "edit", 1 }, { "apply-patch", 1 }
};

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

/* fs.edit: "N replacement(s)", as the CLI says it. */
static int
dfs_edit(struct fstore *fs, const struct rpc_fs *a, struct buf *out,
    char **cause)
{
	size_t	count;
	int	r;

	if ((r = fstore_edit(fs, a->path, a->old, a->new, a->all, &count,
	    cause)) == 0)
		buf_appendf(out, "%zu replacement%s\n", count,
		    count == 1 ? "" : "s");
	return r;
}

/* fs.applyPatch: every file or none, "M PATH" lines as the CLI says. */
static int
dfs_patch(struct fstore *fs, const struct dcall *c, struct buf *out,
    char **cause)
{
	struct patch	*p = NULL;
	int		 r;

	if ((r = patch_parse(c->rc.in, c->rc.inlen, &p, cause)) == 0)
		r = fstore_patch(fs, p, 0, out, cause);
	patch_free(p);
	return r;
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
	else if (strcmp(tool, "ls") == 0)
		r = dfs_ls(fs, &c->rc.fs, out, cause);
	else if (strcmp(tool, "write") == 0)
		r = fstore_write_file(fs, c->rc.fs.path, c->rc.in,
		    c->rc.inlen, cause);
	else if (strcmp(tool, "edit") == 0)
		r = dfs_edit(fs, &c->rc.fs, out, cause);
	else
		r = dfs_patch(fs, c, out, cause);
	fstore_free(fs);
	pathguard_close(pg);
	return r;
}

/*
 * Whether c's tool may run here on a copy that is read-only or not:
 * one of dfs_tools, and within what the CLI takes.
 */
static int
dfs_may(const struct dcall *c, int ro)
{
	size_t	i;

	if (c->rc.inlen > FSTORE_FILE_MAX)
		return 0;
	for (i = 0; i < sizeof dfs_tools / sizeof dfs_tools[0]; i++) {
		if (strcmp(c->rc.argv[0], dfs_tools[i].name) == 0)
			return !dfs_tools[i].writes || !ro;
	}
	return 0;
}

/*
 * Finish c with out as its stdout, or with the CLI's "clawssh: TOOL:
 * cause" line and status (cause is freed).
 */
static void
dfs_finish(struct dcall *c, const struct buf *out, char *cause, int status)
{
	char	*line;

	if (cause != NULL || status != 0) {
		line = xasprintf("clawssh: %s: %s\n", c->rc.argv[0],
		    cause != NULL ? cause : "failed");
		dcall_output(c, 1, line, strlen(line));
		free(line);
		free(cause);
		if (status == 0)
			status = DFS_EXIT_FAILED;
	} else if (out->len != 0)
		dcall_output(c, 0, out->data, out->len);
	drpc_finish(c, status);
}

/* fs.write's commit request, as fstore_write_file makes it. */
static void
dfs_write_request(struct dcall *c)
{
	struct fstore_change	ch;

	memset(&ch, 0, sizeof ch);
	ch.path = c->rc.fs.path;
	ch.data = c->rc.in != NULL ? c->rc.in : "";
	ch.len = c->rc.inlen;
	ch.mode = -1;
	buf_reset(&c->fs_in);
	fstore_wire_commit_request(&ch, 1, &c->fs_in);
}

/* Send sh -c body (freed) as c's step: 1 started, 0 not. */
static int
dfs_step_sh(struct dcall *c, struct droute *r, char *body, int timeout_s)
{
	char	*argv[4];
	int	 started;

	argv[0] = (char *)(uintptr_t)"sh";
	argv[1] = (char *)(uintptr_t)"-c";
	argv[2] = body;
	argv[3] = NULL;
	started = droute_fs_step(c, r, argv, 0, timeout_s);
	free(body);
	return started;
}

/*
 * A read (bytes [off, off + lim)), stat or listing of path as the
 * agent's own step (clawssh-agent fs-read, fs-stat, fs-ls: one process
 * where the shell step starts two to four), when the agent runs them: 1
 * started, 0 not, CLAW_ERR_UNSUPPORTED it does not (the shell step
 * then).
 */
static int
dfs_step_self(struct dcall *c, struct droute *r, const char *tool,
    const char *path, uint64_t off, uint64_t lim, int timeout_s)
{
	char	 o[24], l[24], cap[24], step[16];
	char	*argv[7];

	if (strcmp(tool, "read") != 0 && strcmp(tool, "stat") != 0 &&
	    strcmp(tool, "ls") != 0)
		return CLAW_ERR_UNSUPPORTED;
	if (!droute_agent_self(c, r))
		return CLAW_ERR_UNSUPPORTED;
	snprintf(step, sizeof step, "fs-%s", tool);
	argv[0] = (char *)(uintptr_t)"clawssh-agent";
	argv[1] = step;
	argv[2] = (char *)(uintptr_t)path;
	argv[3] = NULL;
	if (strcmp(tool, "read") == 0) {
		snprintf(o, sizeof o, "%llu", (unsigned long long)off);
		snprintf(l, sizeof l, "%llu", (unsigned long long)lim);
		snprintf(cap, sizeof cap, "%llu",
		    (unsigned long long)FSTORE_FILE_MAX);
		argv[3] = o;
		argv[4] = l;
		argv[5] = cap;
		argv[6] = NULL;
	}
	return droute_fs_step(c, r, argv, 1, timeout_s);
}

/* All of path as c's step (the agent's own where it can): 1 started. */
static int
dfs_step_read_whole(struct dcall *c, struct droute *r, const char *path,
    int timeout_s)
{
	int	started = dfs_step_self(c, r, "read", path, 0, 0, timeout_s);

	if (started >= 0)
		return started;
	return dfs_step_sh(c, r, fstore_wire_read(path, 0, 0), timeout_s);
}

static int	dfs_patch_start(struct dcall *, struct droute *, int);

/*
 * Start c's tool as a step in the sandbox's running environment where
 * the tools act on the host's copy and the steps may join it (the
 * route's fs_steps): read, stat, ls and write one step each, edit a
 * read and a write, apply-patch a read a file and a commit.  1 started.
 */
static int
dfs_step(struct dcall *c, struct droute *r)
{
	const struct rpc_fs	*a = &c->rc.fs;
	const char		*tool = c->rc.argv[0];
	uint64_t		 off = a->lines ? 0 : a->offset;
	uint64_t		 lim = a->lines ? 0 : a->limit;
	char			*body;
	int			 started, timeout_s;

	if ((strcmp(tool, "read") == 0 || strcmp(tool, "write") == 0 ||
	    strcmp(tool, "edit") == 0) && *a->path == '\0')
		return 0;	/* the store's own refusal: the worker's */
	timeout_s = a->timeout >= 0 ? a->timeout : FSTORE_TIMEOUT;
	if (strcmp(tool, "edit") == 0) {	/* a read, then a write */
		c->fs_phase = DFS_EDIT_READ;
		return dfs_step_read_whole(c, r, a->path, timeout_s);
	}
	if (strcmp(tool, "apply-patch") == 0)
		return dfs_patch_start(c, r, timeout_s);
	if ((started = dfs_step_self(c, r, tool, a->path, off, lim,
	    timeout_s)) >= 0)
		return started;
	if (strcmp(tool, "read") == 0)
		body = fstore_wire_read(a->path, off, lim);
	else if (strcmp(tool, "stat") == 0)
		body = fstore_wire_stat(a->path);
	else if (strcmp(tool, "ls") == 0)
		body = fstore_wire_list(a->path);
	else if (strcmp(tool, "write") == 0 &&
	    c->rc.inlen <= FSTORE_FILE_MAX) {
		body = fstore_wire_commit();
		dfs_write_request(c);
	} else
		return 0;
	return dfs_step_sh(c, r, body, timeout_s);
}

/* Answer c here; see daemon_int.h. */
int
dfs_call(struct dcall *c)
{
	struct buf	 out = BUF_INIT;
	struct droute	*r;
	const char	*ws;
	char		*cause = NULL;
	int		 ro;

	if (!c->rc.fs.simple || c->rc.sandbox == NULL ||
	    (r = droute_lookup(c)) == NULL)
		return 0;
	if ((ws = droute_fs_local(r, &ro)) == NULL)
		return dfs_step(c, r);
	if (!dfs_may(c, ro))
		return 0;
	log_debug("%s: sandbox %s: in the daemon, on the local copy",
	    c->method, c->rc.sandbox);
	if (dfs_run(c, ws, &out, &cause) != 0 && cause == NULL)
		cause = xstrdup("failed");
	dfs_finish(c, &out, cause, 0);
	buf_free(&out);
	return 1;
}

/* Turn a step's reply (c->out) into the tool's output in out. */
static int
dfs_step_reply(const struct dcall *c, struct buf *out, char **cause)
{
	const struct rpc_fs	*a = &c->rc.fs;
	const char		*tool = c->rc.argv[0], *data;
	struct fstore_stat	 st;
	struct fstore_entry	*e = NULL;
	unsigned		 mode;
	size_t			 len, n = 0, i;
	cJSON			*o;
	char			*s;
	int			 r;

	if (strcmp(tool, "write") == 0)
		return 0;	/* nothing to say */
	if (strcmp(tool, "apply-patch") == 0) {
		buf_append(out, c->fs_patch->report.data,
		    c->fs_patch->report.len);
		return 0;
	}
	if (strcmp(tool, "edit") == 0) {
		buf_appendf(out, "%zu replacement%s\n", c->fs_count,
		    c->fs_count == 1 ? "" : "s");
		return 0;
	}
	if (strcmp(tool, "read") == 0) {
		if ((r = fstore_wire_read_reply(c->out.data, c->out.len,
		    a->path, &data, &len, &mode, cause)) != 0)
			return r;
		buf_append(out, data, len);
		if (a->lines)
			fstore_show_lines(out, a->offset, a->limit);
		return 0;
	}
	if (strcmp(tool, "stat") == 0) {
		if ((r = fstore_wire_stat_reply(c->out.data, c->out.len,
		    a->path, &st, cause)) != 0)
			return r;
		o = fstore_show_json(*a->path == '\0' ? "." : a->path, &st);
		fstore_stat_clear(&st);
	} else {
		if ((r = fstore_wire_list_reply(c->out.data, c->out.len,
		    a->path, &e, &n, cause)) != 0)
			return r;
		o = cJSON_CreateArray();
		for (i = 0; i < n; i++)
			cJSON_AddItemToArray(o, fstore_show_json(e[i].name,
			    &e[i].st));
		fstore_entries_free(e, n);
	}
	s = cJSON_PrintUnformatted(o);
	buf_appendf(out, "%s\n", s);
	free(s);
	cJSON_Delete(o);
	return 0;
}

/*
 * A remote edit's read came back (c->out): replace the text and send
 * the write of the new text, with the file's mode, as the second step.
 * 0 sent; or, with *cause, the reply's or the edit's code,
 * CLAW_ERR_NOTFOUND when the route went away, CLAW_ERR_CONNECT when the
 * write could not start.
 */
static int
dfs_edit_commit(struct dcall *c, char **cause)
{
	const struct rpc_fs	*a = &c->rc.fs;
	struct fstore_change	 ch;
	struct droute		*r;
	const char		*data;
	char			*text = NULL;
	size_t			 len, tlen;
	unsigned		 mode;
	int			 rc;

	if ((rc = fstore_wire_read_reply(c->out.data, c->out.len, a->path,
	    &data, &len, &mode, cause)) != 0 ||
	    (rc = fsedit_replace(a->path, data, len, a->old, strlen(a->old),
	    a->new, strlen(a->new), a->all, &text, &tlen, &c->fs_count,
	    cause)) != 0)
		return rc;
	memset(&ch, 0, sizeof ch);
	ch.path = a->path;
	ch.data = text;
	ch.len = tlen;
	ch.mode = (int)(mode & 0777);
	buf_reset(&c->fs_in);
	fstore_wire_commit_request(&ch, 1, &c->fs_in);
	free(text);
	buf_reset(&c->out);
	buf_reset(&c->err);
	free(c->fs_label);
	c->fs_label = NULL;
	c->fs_phase = DFS_EDIT_COMMIT;
	if ((r = droute_lookup(c)) == NULL)
		return claw_fail(cause, CLAW_ERR_NOTFOUND, "the sandbox's "
		    "route went away between the read and the write; nothing "
		    "was written");
	if (!dfs_step_sh(c, r, fstore_wire_commit(), a->timeout >= 0 ?
	    a->timeout : FSTORE_TIMEOUT))
		return claw_fail(cause, CLAW_ERR_CONNECT, "host agent: the "
		    "write could not start; nothing was written");
	return 0;
}

/* Free a patch on its way; see daemon_int.h. */
void
dfs_patch_free(struct dfs_patch *fp)
{
	size_t	i;

	if (fp == NULL)
		return;
	patch_free(fp->p);
	fstore_free(fp->fs);
	for (i = 0; i < fp->n; i++)
		free(fp->paths[i]);
	free(fp->paths);
	buf_free(&fp->report);
	free(fp);
}

/*
 * c's patch's next step: the read of its next file, or, once all are
 * read, fstore_patch on the staged store and the commit it kept.  0
 * sent (or nothing left to do: answered); or, with *cause,
 * CLAW_ERR_NOTFOUND when the route went away, CLAW_ERR_CONNECT when a
 * step could not start, fstore_patch's code, CLAW_ERR_INVAL for a patch
 * that changes nothing.
 */
static int
dfs_patch_next(struct dcall *c, int timeout_s, char **cause)
{
	struct dfs_patch		*fp = c->fs_patch;
	const struct fstore_change	*ch;
	struct droute			*r;
	size_t				 n;
	int				 rc;

	buf_reset(&c->out);
	buf_reset(&c->err);
	free(c->fs_label);
	c->fs_label = NULL;
	if ((r = droute_lookup(c)) == NULL)
		return claw_fail(cause, CLAW_ERR_NOTFOUND, "the sandbox's "
		    "route went away; nothing was changed");
	if (fp->next < fp->n) {
		c->fs_phase = DFS_PATCH_READ;
		if (dfs_step_read_whole(c, r, fp->paths[fp->next], timeout_s))
			return 0;
		return claw_fail(cause, CLAW_ERR_CONNECT, "host agent: a read "
		    "could not start; nothing was changed");
	}
	if ((rc = fstore_patch(fp->fs, fp->p, 0, &fp->report, cause)) != 0)
		return rc;
	if ((ch = fstore_staged_changes(fp->fs, &n)) == NULL)
		return claw_fail(cause, CLAW_ERR_INVAL, "the patch changes "
		    "nothing");
	buf_reset(&c->fs_in);
	fstore_wire_commit_request(ch, n, &c->fs_in);
	c->fs_phase = DFS_PATCH_COMMIT;
	if (dfs_step_sh(c, r, fstore_wire_commit(), timeout_s))
		return 0;
	return claw_fail(cause, CLAW_ERR_CONNECT, "host agent: the commit "
	    "could not start; nothing was changed");
}

/* Whether path is among fp's files to read already. */
static int
dfs_patch_listed(const struct dfs_patch *fp, const char *path)
{
	size_t	i;

	for (i = 0; i < fp->n; i++)
		if (strcmp(fp->paths[i], path) == 0)
			return 1;
	return 0;
}

/*
 * fs.applyPatch on a host's copy: parse the patch, note the files it
 * reads (an update's or a deletion's old path) and start on them.  1
 * started; 0 for a worker (a patch or path the worker refuses says it).
 */
static int
dfs_patch_start(struct dcall *c, struct droute *r, int timeout_s)
{
	struct dfs_patch	*fp = xcalloc(1, sizeof *fp);
	char			*cause = NULL, *path;
	size_t			 i;

	(void)r;	/* dfs_patch_next looks it up, as each step does */
	if (patch_parse(c->rc.in, c->rc.inlen, &fp->p, &cause) != 0)
		goto worker;
	fp->fs = fstore_staged();
	fp->paths = xcalloc(fp->p->n + 1, sizeof *fp->paths);
	for (i = 0; i < fp->p->n; i++) {
		if (fp->p->files[i].kind == PATCH_ADD)
			continue;
		if (fstore_path(fp->p->files[i].old_path, &path, &cause) != 0)
			goto worker;
		if (*path == '\0' || dfs_patch_listed(fp, path)) {
			free(path);	/* the root: fstore_read refuses it */
			continue;
		}
		fp->paths[fp->n++] = path;
	}
	c->fs_patch = fp;
	if (dfs_patch_next(c, timeout_s, &cause) == 0)
		return 1;
	c->fs_patch = NULL;
worker:
	free(cause);
	dfs_patch_free(fp);
	c->fs_phase = 0;
	return 0;
}

/*
 * A remote patch's read came back with status: stage what it gave (the
 * bytes, or the error the CLI's read would say) and go on.
 */
static void
dfs_patch_read(struct dcall *c, int status)
{
	struct dfs_patch	*fp = c->fs_patch;
	struct buf		 none = BUF_INIT;
	const char		*path = fp->paths[fp->next], *data = NULL;
	char			*cause = NULL;
	size_t			 len = 0;
	unsigned		 mode = 0;
	int			 rc;

	if (status == EXEC_STATUS_TIMEOUT && c->timed_out) {
		cause = xasprintf("%s: timed out after %d s (the host-side "
		    "step was killed)", path, c->timeout_s);
		rc = CLAW_ERR_TIMEOUT;
	} else if (status != 0)
		rc = fstore_wire_failure(c->fs_label, c->err.data, c->err.len,
		    status, &cause);
	else
		rc = fstore_wire_read_reply(c->out.data, c->out.len, path,
		    &data, &len, &mode, &cause);
	fstore_staged_put(fp->fs, path, data, len, mode, rc, cause);
	free(cause);
	cause = NULL;
	/* fstore_patch stops at the first file it cannot read */
	fp->next = rc != 0 ? fp->n : fp->next + 1;
	if (dfs_patch_next(c, c->timeout_s, &cause) != 0) {
		buf_reset(&c->out);
		buf_reset(&c->err);
		dfs_finish(c, &none, cause, 0);
	}
}

/* c's step ended; see daemon_int.h. */
void
dfs_step_exit(struct dcall *c, int status)
{
	struct buf	 out = BUF_INIT;
	char		*cause = NULL, *why;

	if (c->fs_phase == DFS_PATCH_READ) {
		dfs_patch_read(c, status);
		return;
	}
	if (c->fs_phase == DFS_EDIT_READ && status == 0 && !c->timed_out) {
		if (dfs_edit_commit(c, &cause) == 0)
			return;		/* the write's exit comes next */
		buf_reset(&c->out);
		buf_reset(&c->err);
		dfs_finish(c, &out, cause, 0);
		return;
	}
	if (status == EXEC_STATUS_TIMEOUT && c->timed_out)
		cause = xasprintf("timed out after %d s (the host-side step "
		    "was killed)", c->timeout_s);
	else if (status != 0) {
		(void)fstore_wire_failure(c->fs_label, c->err.data,
		    c->err.len, status, &cause);
		status = DFS_EXIT_FAILED;
	} else
		(void)dfs_step_reply(c, &out, &cause);
	if (cause != NULL && c->fs_phase == DFS_PATCH_COMMIT) {
		why = cause;	/* as fstore_patch says a failed commit */
		cause = xasprintf("%s; nothing was changed", why);
		free(why);
	}
	buf_reset(&c->out);	/* the step's reply, not the tool's output */
	buf_reset(&c->err);
	dfs_finish(c, &out, cause, status);
	buf_free(&out);
}

/* The agent dropped c's step; see daemon_int.h. */
void
dfs_step_failed(struct dcall *c, const char *why)
{
	struct buf	out = BUF_INIT;

	buf_reset(&c->out);
	buf_reset(&c->err);
	dfs_finish(c, &out, xasprintf("host agent: %s", why),
	    DFS_EXIT_FAILED);
}
