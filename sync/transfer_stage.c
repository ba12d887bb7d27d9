/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host side of a push, staged: the tar stream is unpacked into a
 * directory of its own beside the files (same filesystem, same jail),
 * and only once it is complete is each entry renamed into place.  See
 * transfer.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "host_sh.h"
#include "transfer.h"
#include "xmalloc.h"

/* Append the removal of dead pushes' stages; see transfer.h. */
void
transfer_stage_clean(struct buf *b)
{
	buf_append_str(b, "__claw_pre=" TRANSFER_STAGE_PREFIX "\n"
	    HOST_SH_TRANSFER_STAGE_CLEAN);
}

/* Append the staged unpacking; see transfer.h. */
void
transfer_stage_body(struct buf *b, const char *feed)
{
	uint64_t	rnd;

	arc4random_buf(&rnd, sizeof rnd);
	buf_appendf(b, "s=" TRANSFER_STAGE_PREFIX "%016llx\n",
	    (unsigned long long)rnd);
	transfer_stage_clean(b);
	buf_append_str(b, HOST_SH_TRANSFER_STAGE_OPEN);
	buf_append_str(b, feed);
	buf_append_str(b, " (cd \"$s/t\" && tar $q -xpvf - > ../members) ||"
	    " fail\n" HOST_SH_TRANSFER_STAGE_MOVE);
}
