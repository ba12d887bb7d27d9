/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A test harness for the request layer: reads JSON-RPC lines on stdin
 * and answers on stdout, running each call's worker (the clawssh given
 * as argv[1]) to completion, one at a time, with its argv, stdin and env
 * as rpc_call_build made them.  With --mcp ID it answers MCP for sandbox
 * ID instead.  Not the daemon: no socket, no concurrency, no policy;
 * only what tests/integration/rpc_methods.sh needs to check that the
 * built argv work with the real CLI, and that the MCP SDK client works.
 *
 *   rpc_oneshot [--mcp ID] CLAWSSH
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "error.h"
#include "jsonrpc.h"
#include "mcp_tools.h"
#include "rpc_methods.h"
#include "xmalloc.h"

static const char	*clawssh;
static const char	*mcp_sandbox;

/* Write a line (and free it). */
static void
put(char *line)
{
	size_t	n = strlen(line), off = 0;
	ssize_t	w;

	while (off < n) {
		if ((w = write(STDOUT_FILENO, line + off, n - off)) < 0) {
			if (errno == EINTR)
				continue;
			exit(1);
		}
		off += (size_t)w;
	}
	free(line);
}

/* The child: set env, wire the pipes, exec the worker. */
static void
child(const struct rpc_call *c, int in, int out, int err)
{
	char	**argv;
	size_t	  i;

	for (i = 0; i < c->nenv; i++)
		setenv(c->env_names[i], c->env_values[i], 1);
	dup2(in, 0);
	dup2(out, 1);
	dup2(err, 2);
	argv = xcalloc((size_t)c->argc + 2, sizeof *argv);
	argv[0] = xstrdup(clawssh);
	memcpy(argv + 1, c->argv, (size_t)c->argc * sizeof *argv);
	execv(clawssh, argv);
	_exit(127);
}

/* Run the worker; collect its output, streaming it if asked. */
static int
run(const struct rpc_call *c, const cJSON *id, struct buf *out,
    struct buf *err)
{
	int		 pin[2], pout[2], perr[2], st, open_fds = 2;
	size_t		 inoff = 0;
	struct pollfd	 pfd[3];
	char		 chunk[8192];
	ssize_t		 n;
	pid_t		 pid;
	int		 i;

	if (pipe(pin) != 0 || pipe(pout) != 0 || pipe(perr) != 0)
		exit(1);
	if ((pid = fork()) == 0) {
		close(pin[1]);
		close(pout[0]);
		close(perr[0]);
		child(c, pin[0], pout[1], perr[1]);
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	if (c->in == NULL || c->inlen == 0) {
		close(pin[1]);
		pin[1] = -1;
	}
	while (open_fds > 0 || pin[1] != -1) {
		pfd[0].fd = pout[0];
		pfd[1].fd = perr[0];
		pfd[2].fd = pin[1];
		pfd[0].events = pfd[1].events = POLLIN;
		pfd[2].events = POLLOUT;
		if (poll(pfd, 3, -1) < 0) {
			if (errno == EINTR)
				continue;
			exit(1);
		}
		if (pin[1] != -1 && (pfd[2].revents & (POLLOUT | POLLERR))) {
			n = write(pin[1], c->in + inoff, c->inlen - inoff);
			if (n > 0)
				inoff += (size_t)n;
			if (n < 0 || inoff == c->inlen) {
				close(pin[1]);
				pin[1] = -1;
			}
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].fd == -1 ||
			    !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if ((n = read(pfd[i].fd, chunk, sizeof chunk)) <= 0) {
				close(pfd[i].fd);
				*(i == 0 ? &pout[0] : &perr[0]) = -1;
				open_fds--;
				continue;
			}
			if (c->stream && mcp_sandbox == NULL)
				put(jsonrpc_notification("exec.output",
				    jsonrpc_output_params(id, i == 0 ?
				    "stdout" : "stderr", chunk, (size_t)n)));
			if (i == 0 && c->stream && mcp_sandbox == NULL)
				continue;
			buf_append(i == 0 ? out : err, chunk, (size_t)n);
		}
	}
	if (waitpid(pid, &st, 0) < 0)
		exit(1);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Build and run a call; return its result or NULL with *code, *msg. */
static cJSON *
call(const char *method, const cJSON *params, const cJSON *id,
    struct buf *out, int *code, char **msg)
{
	struct rpc_call	 c;
	struct buf	 err = BUF_INIT;
	struct timespec	 t0, t1;
	cJSON		*r;
	int		 st;

	if ((*code = rpc_call_build(method, params, &c, msg)) != 0)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	st = run(&c, id, out, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	r = rpc_call_result(&c, st, out->data, out->len, err.data, err.len,
	    (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) /
	    1000000, code, msg);
	if (mcp_sandbox != NULL && c.result == RPC_RESULT_EXEC)
		buf_append(out, err.data, err.len);	/* the output, all */
	buf_free(&err);
	rpc_call_clear(&c);
	return r;
}

/* An MCP request. */
static void
mcp(const struct jsonrpc_req *req)
{
	struct buf	 out = BUF_INIT;
	cJSON		*p = NULL, *r;
	char		*m = NULL, *msg = NULL;
	int		 code = 0;

	if (strcmp(req->method, "initialize") == 0)
		r = mcp_initialize_result(req->params, mcp_sandbox);
	else if (strcmp(req->method, "tools/list") == 0)
		r = mcp_tools_list();
	else if (strcmp(req->method, "ping") == 0)
		r = cJSON_CreateObject();
	else if (strcmp(req->method, "tools/call") == 0) {
		if ((code = mcp_tool_call(req->params, mcp_sandbox, &m, &p,
		    &msg)) != 0) {
			put(jsonrpc_error(req->id, code, msg, NULL));
			free(msg);
			return;
		}
		r = call(m, p, req->id, &out, &code, &msg);
		if (r == NULL && code == JSONRPC_INVALID_PARAMS) {
			put(jsonrpc_error(req->id, code, msg, NULL));
			free(msg);
			free(m);
			cJSON_Delete(p);
			buf_free(&out);
			return;
		}
		cJSON_Delete(p);
		p = mcp_tool_result(m, r, out.data, out.len, code, msg);
		cJSON_Delete(r);
		r = p;
		free(m);
		free(msg);
		buf_free(&out);
	} else {
		if (req->id != NULL)
			put(jsonrpc_error(req->id, JSONRPC_METHOD_NOT_FOUND,
			    "method not found", NULL));
		return;
	}
	if (req->id != NULL)
		put(jsonrpc_result(req->id, r));
	else
		cJSON_Delete(r);
}

/* A JSON-RPC request. */
static void
rpc(const struct jsonrpc_req *req)
{
	struct buf	 out = BUF_INIT;
	cJSON		*r;
	char		*msg = NULL;
	int		 code = 0;

	r = call(req->method, req->params, req->id, &out, &code, &msg);
	buf_free(&out);
	if (req->id == NULL) {
		cJSON_Delete(r);
		free(msg);
		return;
	}
	put(r != NULL ? jsonrpc_result(req->id, r) :
	    jsonrpc_error(req->id, code, msg, NULL));
	free(msg);
}

int
main(int argc, char **argv)
{
	struct jsonrpc_framer	*fr = jsonrpc_framer_new(0);
	struct jsonrpc_req	 req;
	char			 chunk[65536], *line, *msg;
	size_t			 len;
	ssize_t			 n;
	int			 rc;

	if (argc == 4 && strcmp(argv[1], "--mcp") == 0) {
		mcp_sandbox = argv[2];
		argv += 2;
	} else if (argc != 2) {
		fprintf(stderr, "usage: rpc_oneshot [--mcp ID] CLAWSSH\n");
		return 2;
	}
	clawssh = argv[1];
	signal(SIGPIPE, SIG_IGN);
	while ((n = read(STDIN_FILENO, chunk, sizeof chunk)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 1;
		jsonrpc_framer_feed(fr, chunk, (size_t)n);
		while ((rc = jsonrpc_framer_next(fr, &line, &len)) != 0) {
			if (rc == CLAW_ERR_RANGE) {
				put(jsonrpc_error(NULL,
				    JSONRPC_INVALID_REQUEST,
				    "request line over 16 MiB", NULL));
				continue;
			}
			msg = NULL;
			if ((rc = jsonrpc_parse(line, len, &req, &msg)) != 0)
				put(jsonrpc_error(req.id, rc, msg, NULL));
			else if (mcp_sandbox != NULL)
				mcp(&req);
			else
				rpc(&req);
			free(msg);
			jsonrpc_req_clear(&req);
		}
	}
	jsonrpc_framer_free(fr);
	return 0;
}
