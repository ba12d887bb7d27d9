/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Frames of the control socket protocol: building and bounded parsing.
 * Both ends treat the other's bytes as untrusted.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "error.h"
#include "mux_proto.h"
#include "xmalloc.h"

/* Store v big-endian at p. */
static void
mux_put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* Load a big-endian number from p. */
static uint32_t
mux_get32(const char *s)
{
	const unsigned char	*p = (const unsigned char *)s;

	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* Append a frame; see mux_proto.h. */
void
mux_frame_put(struct buf *out, enum mux_type type, uint32_t chan,
    const void *payload, size_t len)
{
	unsigned char	hdr[MUX_HEADER];

	if (len > MUX_PAYLOAD_MAX)
		abort();
	mux_put32(hdr, (uint32_t)(len + MUX_HEADER - 4));
	hdr[4] = (unsigned char)type;
	mux_put32(hdr + 5, chan);
	buf_append(out, hdr, sizeof hdr);
	if (len != 0)
		buf_append(out, payload, len);
}

/* Append a number-and-text frame; see mux_proto.h. */
void
mux_frame_put_num(struct buf *out, enum mux_type type, uint32_t chan,
    int32_t num, const char *text)
{
	size_t		 tlen = text != NULL ? strlen(text) : 0;
	unsigned char	*p;

	if (tlen > MUX_PAYLOAD_MAX - 4)
		tlen = MUX_PAYLOAD_MAX - 4;
	p = xmalloc(tlen + 4);
	mux_put32(p, (uint32_t)num);
	if (tlen != 0)
		memcpy(p + 4, text, tlen);
	mux_frame_put(out, type, chan, p, tlen + 4);
	free(p);
}

/* Take one frame; see mux_proto.h. */
int
mux_frame_get(const char *p, size_t n, struct mux_frame *f, size_t *used,
    char **cause)
{
	uint32_t	len;
	unsigned	type;

	if (n < MUX_HEADER)
		return 0;
	len = mux_get32(p);
	type = (unsigned char)p[4];
	if (len < MUX_HEADER - 4 || len > MUX_PAYLOAD_MAX + MUX_HEADER - 4)
		return claw_fail(cause, CLAW_ERR_PROTO,
		    "control socket: frame length %u out of range", len);
	if (type == 0 || type >= MUX_TYPE_LAST)
		return claw_fail(cause, CLAW_ERR_PROTO,
		    "control socket: unknown frame type %u", type);
	if (n < (size_t)len + 4)
		return 0;
	f->type = (enum mux_type)type;
	f->chan = mux_get32(p + 5);
	f->payload = p + MUX_HEADER;
	f->len = len - (MUX_HEADER - 4);
	*used = (size_t)len + 4;
	return 1;
}

/* Split a number-and-text payload; see mux_proto.h. */
int
mux_frame_num(const struct mux_frame *f, int32_t *num, char **text)
{
	char	*s;
	size_t	 i;

	if (f->len < 4)
		return CLAW_ERR_PROTO;
	s = xmalloc(f->len - 4 + 1);
	memcpy(s, f->payload + 4, f->len - 4);
	s[f->len - 4] = '\0';
	for (i = 0; i < f->len - 4; i++) {
		if ((unsigned char)s[i] < 0x20 && s[i] != '\n')
			s[i] = '?';
	}
	*num = (int32_t)mux_get32(f->payload);
	*text = s;
	return 0;
}
