/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host watcher's listing frames; see watch_frame.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "watch_frame.h"

#define WF_HEAD		"clawssh-list "
#define WF_END		"clawssh-end "
#define WF_HEAD_LEN	(sizeof(WF_HEAD) - 1 + WATCH_TOKEN_LEN + 1)
#define WF_TAIL_MAX	8	/* "STATUS\n" after the end's token */

/* Return 1 if c is a lowercase hex digit. */
static int
wf_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/*
 * Check the frame's first line as far as it is there: 0 with f->token
 * when it is all there, 1 when more must come, CLAW_ERR_PARSE if it is
 * not one.
 */
static int
wf_head(const char *buf, size_t len, struct watch_frame *f)
{
	size_t	plen = sizeof(WF_HEAD) - 1, i;
	int	bad;

	for (i = 0; i < len && i < WF_HEAD_LEN; i++) {
		if (i < plen)
			bad = buf[i] != WF_HEAD[i];
		else if (i < plen + WATCH_TOKEN_LEN)
			bad = !wf_hex(buf[i]);
		else
			bad = buf[i] != '\n';
		if (bad)
			return CLAW_ERR_PARSE;
	}
	if (i < WF_HEAD_LEN)
		return 1;
	memcpy(f->token, buf + plen, WATCH_TOKEN_LEN);
	f->token[WATCH_TOKEN_LEN] = '\0';
	return 0;
}

/*
 * Parse "STATUS\n" at p (at most n bytes there): 0, 1 more, or
 * CLAW_ERR_PARSE.
 */
static int
wf_status(const char *p, size_t n, struct watch_frame *f, size_t *tail)
{
	const char	*nl;
	size_t		 digits;

	if ((nl = memchr(p, '\n', n)) == NULL)
		return n >= WF_TAIL_MAX ? CLAW_ERR_PARSE : 1;
	digits = (size_t)(nl - p);
	if (digits == 0 || digits > 3 || strspn(p, "0123456789") != digits)
		return CLAW_ERR_PARSE;
	f->status = atoi(p);
	if (f->status > 255)
		return CLAW_ERR_PARSE;
	*tail = digits + 1;
	return 0;
}

/* Find a frame; see watch_frame.h. */
int
watch_frame_parse(const char *buf, size_t len, size_t max, size_t *scanned,
    struct watch_frame *f)
{
	char		 end[1 + sizeof(WF_END) - 1 + WATCH_TOKEN_LEN + 1];
	const char	*e;
	size_t		 elen, at, tail = 0;
	int		 r;

	memset(f, 0, sizeof(*f));
	if ((r = wf_head(buf, len, f)) != 0)
		return r > 0 ? 0 : r;
	end[0] = '\0';
	memcpy(end + 1, WF_END, sizeof(WF_END) - 1);
	memcpy(end + sizeof(WF_END), f->token, WATCH_TOKEN_LEN);
	end[sizeof(end) - 1] = ' ';
	elen = sizeof(end);
	/* resume where the last call stopped, less what may straddle */
	at = *scanned > WF_HEAD_LEN + elen ? *scanned - elen : WF_HEAD_LEN;
	if (at > len)
		at = len;
	if ((e = memmem(buf + at, len - at, end, elen)) == NULL) {
		*scanned = len;
		return len - WF_HEAD_LEN > max + elen ? CLAW_ERR_RANGE : 0;
	}
	/* the records end at the first NUL of the pair */
	if ((size_t)(e - buf) == WF_HEAD_LEN || e[-1] != '\0')
		return CLAW_ERR_PARSE;
	if ((size_t)(e - buf) - WF_HEAD_LEN - 1 > max)
		return CLAW_ERR_RANGE;
	if ((r = wf_status(e + elen, len - (size_t)(e - buf) - elen, f,
	    &tail)) != 0)
		return r > 0 ? 0 : r;
	f->rec_off = WF_HEAD_LEN;
	f->rec_len = (size_t)(e - buf) - WF_HEAD_LEN - 1;
	f->used = (size_t)(e - buf) + elen + tail;
	*scanned = 0;
	return 1;
}
