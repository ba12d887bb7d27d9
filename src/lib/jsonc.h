/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON with comments: // and block comments are allowed outside strings.
 * Parse errors report line and column.
 */
#ifndef CLAW_JSONC_H
#define CLAW_JSONC_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * Make cJSON allocate through xmalloc (which aborts when memory runs
 * out) instead of malloc, whose NULL cJSON would silently turn into a
 * missing member or a truncated document.  Call once, before any cJSON
 * use (main does).
 */
void	jsonc_hooks(void);

/*
 * Parse text[0..len) (comments allowed, one value, trailing whitespace and
 * comments only).  name labels messages (usually the file path).  On success
 * sets *out (free with cJSON_Delete) and returns 0; on failure returns
 * CLAW_ERR_PARSE with *cause like "NAME:LINE:COL: what went wrong".
 */
int	jsonc_parse(const char *name, const char *text, size_t len,
	    cJSON **out, char **cause);

/*
 * Read and parse the file at path (at most 16 MiB).  Returns
 * CLAW_ERR_NOTFOUND if it does not exist, else as jsonc_parse.
 */
int	jsonc_load_file(const char *path, cJSON **out, char **cause);

/*
 * The name two members of object obj share (the first in sorted order),
 * or NULL when every name is its own.  cJSON keeps duplicates; callers
 * that read settings refuse them.
 */
const char	*jsonc_dup_member(const cJSON *obj);

/*
 * The dotted path "prefix.name" of a member (just name when prefix is
 * NULL), allocated, with name's unprintable bytes, backslashes and
 * quotes escaped as \xHH: what an error about that key prints.
 */
char	*jsonc_key_path(const char *prefix, const char *name);

#endif /* CLAW_JSONC_H */
