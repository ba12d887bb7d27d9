/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How the file tools show what they found, the same for the CLI (read,
 * ls, stat) and for the daemon answering them itself (daemon_fs.c): a
 * line range of a read, an entry as JSON, a time and a type as words.
 */
#ifndef CLAW_FSTORE_SHOW_H
#define CLAW_FSTORE_SHOW_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct buf;
struct fstore_stat;

/* Keep lines [from, from + n) of b (n 0: to the end), 0-based. */
void		 fstore_show_lines(struct buf *b, uint64_t from, uint64_t n);

/* st's mtime as UTC ISO 8601 with nanoseconds, into out[0..len). */
void		 fstore_show_time(const struct fstore_stat *st, char *out,
		     size_t len);

/* The word for an entry type: "file", "directory", "symlink", "other". */
const char	*fstore_show_type(char type);

/*
 * One entry as a JSON object: {"name", "type", "mode" ("0644"), "size",
 * "mtime", "target" for a link}.
 */
cJSON		*fstore_show_json(const char *name,
		     const struct fstore_stat *st);

#endif /* CLAW_FSTORE_SHOW_H */
