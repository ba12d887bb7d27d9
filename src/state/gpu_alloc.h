/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * GPU assignment on a host: which sandbox holds which GPU.  The table is
 * the text of an allocation file kept on the host (read and written by the
 * caller under a lock): one line per held GPU, "INDEX SANDBOX_ID\n".
 * Pure: text in, text out, no I/O.  The text may be hostile: it is capped
 * and strictly checked.
 */
#ifndef CLAW_GPU_ALLOC_H
#define CLAW_GPU_ALLOC_H

#include <stddef.h>

#define GPU_INDEX_MAX		1023		/* highest GPU index */
#define GPU_TABLE_MAX_BYTES	(64 * 1024)	/* allocation file cap */
#define GPU_TABLE_MAX_LINES	1024		/* allocation file lines */
#define GPU_DEVICES_MAX_BYTES	(1024 * 1024)	/* device listing cap */

struct gpu_table;

/* Return a new empty table. */
struct gpu_table	*gpu_table_new(void);

/*
 * Parse the allocation file text[0..len) into *out.  Each line is a
 * decimal index 0..GPU_INDEX_MAX without leading zeros, one space, a
 * sandbox id (sandbox_id_ok), and a newline (the last may lack it).  Empty
 * text is an empty table.  Refuses with CLAW_ERR_PARSE and "line N: ..."
 * a bad line, a NUL byte, an index listed twice, more than
 * GPU_TABLE_MAX_LINES lines or GPU_TABLE_MAX_BYTES bytes.
 */
int	gpu_table_parse(const char *text, size_t len, struct gpu_table **out,
	    char **cause);

/*
 * Give sandbox id `want' GPUs (want == -1: all present ones) among
 * present[0..npresent), and set *got to a sorted allocated array of them
 * and *ngot to its length.
 *
 * First every GPU held by an id that is neither id nor in live[0..nlive)
 * is released (the table keeps this even when the call fails).  An id that
 * already holds GPUs keeps them: the same set comes back if its size is
 * the count asked for, else CLAW_ERR_EXISTS.  Otherwise the lowest free
 * present indexes are taken.  Too few GPUs on the host:
 * CLAW_ERR_UNSUPPORTED; too few free: CLAW_ERR_EXISTS with a cause naming
 * the holders ("need 2 GPUs, 1 free on this host (GPU 0 held by c...)").
 * A bad id, want < -1 or 0, or a present index outside 0..GPU_INDEX_MAX:
 * CLAW_ERR_INVAL.
 */
int	gpu_table_assign(struct gpu_table *t, const char *id, int want,
	    const int *present, size_t npresent, const char *const *live,
	    size_t nlive, int **got, size_t *ngot, char **cause);

/* Release every GPU id holds (on destroy); ids holding none are fine. */
void	gpu_table_release(struct gpu_table *t, const char *id);

/*
 * Return the allocated text to write back: lines sorted by index, each
 * ending in a newline, or "" for an empty table.
 */
char	*gpu_table_format(const struct gpu_table *t);

/* Free t; NULL does nothing. */
void	gpu_table_free(struct gpu_table *t);

/*
 * Parse a device listing text[0..len): names in /dev one per line (for
 * example "nvidia0\nnvidia1\nnvidiactl\nnvidia-uvm\n"; a "/dev/" prefix is
 * allowed) into the sorted unique indexes of the nvidiaN entries; other
 * names are ignored.  *idx is allocated (NULL when *n is 0).  Refuses with
 * CLAW_ERR_PARSE a NUL byte, an index over GPU_INDEX_MAX, or more than
 * GPU_DEVICES_MAX_BYTES bytes.
 */
int	gpu_parse_devices(const char *text, size_t len, int **idx, size_t *n,
	    char **cause);

/*
 * Return the allocated CUDA_VISIBLE_DEVICES / NVIDIA_VISIBLE_DEVICES value
 * for got[0..n): "0,1", or "" when n is 0.
 */
char	*gpu_visible(const int *got, size_t n);

/*
 * Parse a GPU index at s[0..n) (not NUL-terminated): 1..4 digits, no
 * leading zero, at most GPU_INDEX_MAX.  Return the index, or CLAW_ERR_PARSE.
 */
int	gpu_parse_index(const char *s, size_t n);

#endif /* CLAW_GPU_ALLOC_H */
