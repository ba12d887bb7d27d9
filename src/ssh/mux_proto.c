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
#include "pty.h"
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

/* Append an OPEN_PTY frame; see mux_proto.h. */
void
mux_frame_put_pty(struct buf *out, uint32_t chan, const struct pty_req *pty,
    const char *command)
{
	struct buf	p = BUF_INIT;
	unsigned char	hdr[8], len;

	mux_put32(hdr, pty->cols);
	mux_put32(hdr + 4, pty->rows);
	buf_append(&p, hdr, sizeof hdr);
	len = (unsigned char)strlen(pty->term);
	buf_append(&p, &len, 1);
	buf_append(&p, pty->term, len);
	len = (unsigned char)pty->modes_len;
	buf_append(&p, &len, 1);
	buf_append(&p, pty->modes, pty->modes_len);
	buf_append_str(&p, command);
	mux_frame_put(out, MUX_OPEN_PTY, chan, p.data, p.len);
	buf_free(&p);
}

/* Whether a window size is in range. */
static int
mux_size_ok(uint32_t cols, uint32_t rows)
{
	return cols >= 1 && rows >= 1 && cols <= PTY_SIZE_MAX &&
	    rows <= PTY_SIZE_MAX;
}

/* Split an OPEN_PTY payload; see mux_proto.h. */
int
mux_frame_get_pty(const struct mux_frame *f, struct pty_req *pty,
    char **command, char **cause)
{
	const char	*p = f->payload, *end = f->payload + f->len;
	size_t		 tlen, mlen;

	memset(pty, 0, sizeof *pty);
	if (f->len < 10)
		goto bad;
	pty->cols = mux_get32(p);
	pty->rows = mux_get32(p + 4);
	tlen = (unsigned char)p[8];
	p += 9;
	if (!mux_size_ok(pty->cols, pty->rows) || tlen > PTY_TERM_MAX ||
	    (size_t)(end - p) < tlen + 1)
		goto bad;
	memcpy(pty->term, p, tlen);
	p += tlen;
	mlen = (unsigned char)*p++;
	if (!pty_term_ok(pty->term) || mlen > PTY_MODES_MAX ||
	    (size_t)(end - p) < mlen + 1)
		goto bad;
	memcpy(pty->modes, p, mlen);
	pty->modes_len = mlen;
	p += mlen;
	if (memchr(p, '\0', (size_t)(end - p)) != NULL)
		goto bad;
	*command = xstrndup(p, (size_t)(end - p));
	return 0;
bad:
	return claw_fail(cause, CLAW_ERR_PROTO, "OPEN_PTY: malformed "
	    "terminal request");
}

/* Append a RESIZE frame; see mux_proto.h. */
void
mux_frame_put_size(struct buf *out, uint32_t chan, unsigned cols,
    unsigned rows)
{
	unsigned char	p[8];

	mux_put32(p, cols);
	mux_put32(p + 4, rows);
	mux_frame_put(out, MUX_RESIZE, chan, p, sizeof p);
}

/* Split a RESIZE payload; see mux_proto.h. */
int
mux_frame_get_size(const struct mux_frame *f, unsigned *cols,
    unsigned *rows)
{
	uint32_t	c, r;

	if (f->len != 8)
		return CLAW_ERR_PROTO;
	c = mux_get32(f->payload);
	r = mux_get32(f->payload + 4);
	if (!mux_size_ok(c, r))
		return CLAW_ERR_PROTO;
	*cols = c;
	*rows = r;
	return 0;
}
