/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: bytes through the whole request layer, as the daemon
 * uses it.  The framer gets the input in pieces; each line is parsed;
 * a request becomes a worker call (directly, and as an MCP tools/call),
 * then results are made from pieces of the input as if a worker had
 * printed them, and every response is serialized.  Build with 'make
 * fuzz' (clang); see docs/protocol.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonrpc.h"
#include "mcp_tools.h"
#include "rpc_methods.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Serialize and drop. */
static void
fz_emit(char *line)
{
	if (line == NULL || line[0] != '{' || line[strlen(line) - 1] != '\n')
		abort();
	free(line);
}

/* Results of a built call from worker output taken from the input. */
static void
fz_results(const struct rpc_call *c, const cJSON *id, const char *line,
    size_t len)
{
	static const int	 status[] = { 0, 1, 124, 255 };
	cJSON			*r, *t;
	char			*msg;
	size_t			 i, half = len / 2;
	int			 code;

	for (i = 0; i < sizeof status / sizeof *status; i++) {
		msg = NULL;
		code = 0;
		r = rpc_call_result(c, status[i], line, half, line + half,
		    len - half, 7, &code, &msg);
		if ((r == NULL) == (msg == NULL) || (r == NULL && code == 0))
			abort();
		fz_emit(jsonrpc_result(id, r == NULL ? NULL :
		    cJSON_Duplicate(r, 1)));
		fz_emit(jsonrpc_error(id, code, msg, NULL));
		if ((t = mcp_tool_result(c->tool, r, line, len, code,
		    msg)) == NULL)
			abort();
		cJSON_Delete(t);
		cJSON_Delete(r);
		free(msg);
	}
}

/* Build a call for method and params, and results for it. */
static void
fz_call(const char *method, const cJSON *params, const cJSON *id,
    const char *line, size_t len)
{
	struct rpc_call	 c;
	char		*msg = NULL;
	int		 rc, i;

	if ((rc = rpc_call_build(method, params, &c, &msg)) != 0) {
		if (msg == NULL)
			abort();
		fz_emit(jsonrpc_error(id, rc, msg, NULL));
		free(msg);
		return;
	}
	for (i = 0; i < c.argc; i++)
		if (c.argv[i] == NULL)
			abort();
	if (c.argv[c.argc] != NULL)
		abort();
	fz_results(&c, id, line, len);
	rpc_call_clear(&c);
}

/* One line, as the daemon would handle it. */
static void
fz_line(const char *line, size_t len)
{
	struct jsonrpc_req	 req;
	cJSON			*mp = NULL, *r;
	char			*msg = NULL, *m = NULL;
	int			 rc;

	if ((rc = jsonrpc_parse(line, len, &req, &msg)) != 0) {
		fz_emit(jsonrpc_error(req.id, rc, msg, NULL));
		free(msg);
		jsonrpc_req_clear(&req);
		return;
	}
	fz_call(req.method, req.params, req.id, line, len);
	if (mcp_tool_call(req.params, "cabcdefghijkl", &m, &mp, &msg) == 0) {
		fz_call(m, mp, req.id, line, len);
		free(m);
		cJSON_Delete(mp);
	} else
		free(msg);
	r = mcp_initialize_result(req.params, "cabcdefghijkl");
	fz_emit(jsonrpc_result(req.id, r));
	fz_emit(jsonrpc_notification("exec.output",
	    jsonrpc_output_params(req.id, "stdout", line, len)));
	jsonrpc_req_clear(&req);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jsonrpc_framer	*fr;
	char			*line;
	size_t			 len, off = 0, step;
	int			 rc;

	fr = jsonrpc_framer_new(4096);
	/* Feed in pieces whose size comes from the first byte. */
	step = size > 0 ? (size_t)data[0] % 64 + 1 : 1;
	while (off < size) {
		if (step > size - off)
			step = size - off;
		jsonrpc_framer_feed(fr, data + off, step);
		off += step;
		while ((rc = jsonrpc_framer_next(fr, &line, &len)) != 0) {
			if (rc == 1 && (len == 0 || len > 4096 ||
			    line[len] != '\0'))
				abort();
			if (rc == 1)
				fz_line(line, len);
		}
	}
	jsonrpc_framer_free(fr);
	return 0;
}
