/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The output of an MCP exec that passed the result cap (mcp.maxResult):
 * the first bytes of stdout and stderr stay in memory for the result,
 * and every byte goes to an unlinked temporary file so the client can
 * read the rest with the read_output tool.  A store keeps the last
 * MCP_SPILLS_KEEP of them per server, by id; see docs/protocol.md.
 */
#ifndef CLAW_MCP_SPILL_H
#define CLAW_MCP_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#define MCP_SPILL_MAX	(UINT64_C(1) << 30)	/* bytes per stream */
#define MCP_SPILLS_KEEP	16			/* outputs per server */

struct mcp_spill;
struct mcp_spills;

/* A new output keeping keep bytes of each stream in memory. */
struct mcp_spill *mcp_spill_new(size_t keep);
void	mcp_spill_free(struct mcp_spill *);

/*
 * Add n bytes of stream (0 stdout, 1 stderr).  0; or, with *cause
 * (allocated), errno's code (claw_err_from_errno) when the temporary
 * file cannot be written, CLAW_ERR_RANGE when a stream passed
 * MCP_SPILL_MAX.
 */
int	mcp_spill_add(struct mcp_spill *, int stream, const void *p,
	    size_t n, char **cause);

/* The bytes of stream kept in memory (at most keep) and its total. */
const char *mcp_spill_head(const struct mcp_spill *, int stream,
	    size_t *len);
uint64_t mcp_spill_total(const struct mcp_spill *, int stream);

/* 1 if some stream passed keep (the file holds the rest). */
int	mcp_spill_spilled(const struct mcp_spill *);

struct mcp_spills *mcp_spills_new(void);
void	mcp_spills_free(struct mcp_spills *);

/*
 * Keep s (taking it) and return its id (owned by the store, "o" and 8
 * hex digits); the oldest output is dropped past MCP_SPILLS_KEEP.
 */
const char *mcp_spills_keep(struct mcp_spills *, struct mcp_spill *s);

/*
 * Up to limit bytes of the output id's stream from offset: 0 with *data
 * (allocated, *len bytes) and *total; or, with *cause (allocated),
 * CLAW_ERR_NOTFOUND for an unknown id, CLAW_ERR_IO or errno's code for a
 * read error.  An offset at or past the end gives 0
 * bytes.
 */
int	mcp_spills_read(struct mcp_spills *, const char *id, int stream,
	    uint64_t offset, size_t limit, char **data, size_t *len,
	    uint64_t *total, char **cause);

/*
 * The read_output tool: params {id, stream, offset, limit, encoding} (and
 * the bound sandbox) -> a tools/call result whose structuredContent has
 * content, encoding, offset, bytes, nextOffset, total and eof.  limit is
 * at most max/2 bytes; text is cut at a character boundary, and a range
 * that is not UTF-8 comes as base64.  st may be NULL (nothing kept).
 */
cJSON	*mcp_spills_tool(struct mcp_spills *st, const cJSON *params,
	    size_t max);

#endif /* CLAW_MCP_SPILL_H */
