/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The frames in which the host watcher's script (src/daemon/daemon_watch.c)
 * sends a listing on its stderr:
 *
 *	"clawssh-list " TOKEN "\n"  RECORDS  "\0\0clawssh-end " TOKEN " " STATUS "\n"
 *
 * TOKEN is the take's 32 lowercase hex digits, RECORDS what GNU find
 * printed (NUL-terminated records, possibly cut short if find failed),
 * STATUS find's exit status in decimal (0 to 255).  The end is searched
 * with the frame's own token from its second NUL, so RECORDS end at the
 * first NUL of the pair: a whole listing keeps its last NUL, and one
 * cut mid-record cannot swallow the end.  The input is the host's,
 * hostile: the parser only ever reads inside the buffer it is given and
 * caps how far it looks.
 */
#ifndef CLAW_WATCH_FRAME_H
#define CLAW_WATCH_FRAME_H

#include <stddef.h>

#define WATCH_TOKEN_LEN		32

/* One frame found at the start of a buffer. */
struct watch_frame {
	char	token[WATCH_TOKEN_LEN + 1];
	int	status;		/* find's exit status */
	size_t	rec_off;	/* the records: buf[rec_off, rec_off + rec_len) */
	size_t	rec_len;
	size_t	used;		/* bytes of the buffer the frame took */
};

/*
 * Look for a frame at the start of buf[0..len).  1: found, *f filled;
 * 0: not all there yet (call again with more; *scanned, 0 at first,
 * remembers how far the end was searched); CLAW_ERR_PARSE: not a frame,
 * or CLAW_ERR_RANGE: longer than max bytes of records; either way the
 * stream cannot be followed.
 */
int	watch_frame_parse(const char *buf, size_t len, size_t max,
	    size_t *scanned, struct watch_frame *f);

#endif /* CLAW_WATCH_FRAME_H */
