/* SPDX-License-Identifier: BSD-2-Clause */
/* The agent protocol's frame codec: see frame.h and docs/agent.md. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"

/* Start reading p[0..len). */
void
frame_buf_init(struct frame_buf *b, const void *p, size_t len)
{
	b->p = p;
	b->len = len;
	b->off = 0;
}

/* n bytes at the reader's position, or FRAME_ERR_SHORT. */
int
frame_get_bytes(struct frame_buf *b, size_t n, const uint8_t **v)
{
	if (b->off > b->len || n > b->len - b->off)
		return FRAME_ERR_SHORT;
	*v = b->p + b->off;
	b->off += n;
	return 0;
}

/* An unsigned big-endian integer of n bytes. */
static int
frame_get_be(struct frame_buf *b, size_t n, uint64_t *v)
{
	const uint8_t	*p;
	uint64_t	 x = 0;
	size_t		 i;
	int		 r;

	if ((r = frame_get_bytes(b, n, &p)) != 0)
		return r;
	for (i = 0; i < n; i++)
		x = x << 8 | p[i];
	*v = x;
	return 0;
}

/* One byte. */
int
frame_get_u8(struct frame_buf *b, uint8_t *v)
{
	uint64_t	x;
	int		r;

	if ((r = frame_get_be(b, 1, &x)) == 0)
		*v = (uint8_t)x;
	return r;
}

/* A big-endian u16. */
int
frame_get_u16(struct frame_buf *b, uint16_t *v)
{
	uint64_t	x;
	int		r;

	if ((r = frame_get_be(b, 2, &x)) == 0)
		*v = (uint16_t)x;
	return r;
}

/* A big-endian u32. */
int
frame_get_u32(struct frame_buf *b, uint32_t *v)
{
	uint64_t	x;
	int		r;

	if ((r = frame_get_be(b, 4, &x)) == 0)
		*v = (uint32_t)x;
	return r;
}

/* A big-endian u64. */
int
frame_get_u64(struct frame_buf *b, uint64_t *v)
{
	return frame_get_be(b, 8, v);
}

/* The next field of b: its tag and a reader over its value. */
int
frame_next_field(struct frame_buf *b, uint16_t *tag, struct frame_buf *val)
{
	struct frame_buf	 save = *b;
	const uint8_t		*p;
	uint32_t		 n;
	uint16_t		 t;

	if (b->off >= b->len)
		return 0;
	if (frame_get_u16(b, &t) != 0 || frame_get_u32(b, &n) != 0 ||
	    frame_get_bytes(b, n, &p) != 0) {
		*b = save;
		return FRAME_ERR_FIELD;
	}
	*tag = t;
	frame_buf_init(val, p, n);
	return 1;
}

/* Walk every field of b once: none may overrun it. */
static int
frame_check_fields(struct frame_buf b)
{
	struct frame_buf	val;
	uint16_t		tag;
	int			r;

	while ((r = frame_next_field(&b, &tag, &val)) == 1)
		;
	return r;
}

/* Parse a frame at the start of p[0..len): see frame.h. */
int
frame_parse(const void *p, size_t len, struct frame *f)
{
	struct frame_buf	 b;
	const uint8_t		*body;
	uint32_t		 n;
	int			 r;

	frame_buf_init(&b, p, len);
	if (frame_get_u32(&b, &n) != 0)
		return 0;
	if (n < FRAME_HEAD || n > FRAME_MAX)
		return FRAME_ERR_LENGTH;
	if (frame_get_u8(&b, &f->version) != 0)
		return 0;
	if (f->version != FRAME_VERSION)
		return FRAME_ERR_VERSION;
	if (frame_get_u8(&b, &f->type) != 0)
		return 0;
	if (f->type == 0 || f->type > FRAME_TYPE_LAST)
		return FRAME_ERR_TYPE;
	if (frame_get_u32(&b, &f->id) != 0 ||
	    frame_get_bytes(&b, n - FRAME_HEAD, &body) != 0)
		return 0;
	frame_buf_init(&f->body, body, n - FRAME_HEAD);
	if ((r = frame_check_fields(f->body)) != 0)
		return r;
	f->used = 4 + (size_t)n;
	return 1;
}

/* A string naming a FRAME_ERR_* code. */
const char *
frame_strerror(int err)
{
	switch (err) {
	case FRAME_ERR_LENGTH:
		return "frame length out of range";
	case FRAME_ERR_VERSION:
		return "unknown frame version";
	case FRAME_ERR_TYPE:
		return "unknown frame type";
	case FRAME_ERR_FIELD:
		return "a field overruns its frame";
	case FRAME_ERR_VALUE:
		return "a field's value is malformed";
	case FRAME_ERR_SHORT:
		return "short frame";
	}
	return "frame error";
}

/* A whole value as a u32. */
int
frame_val_u32(const struct frame_buf *val, uint32_t *v)
{
	struct frame_buf	b = *val;

	b.off = 0;
	if (b.len != 4)
		return FRAME_ERR_VALUE;
	return frame_get_u32(&b, v);
}

/* A whole value as a u64. */
int
frame_val_u64(const struct frame_buf *val, uint64_t *v)
{
	struct frame_buf	b = *val;

	b.off = 0;
	if (b.len != 8)
		return FRAME_ERR_VALUE;
	return frame_get_u64(&b, v);
}

/* A whole value as an allocated string without NUL, at most max bytes. */
int
frame_val_str(const struct frame_buf *val, size_t max, char **s)
{
	char	*t;

	if (val->len > max || memchr(val->p, '\0', val->len) != NULL)
		return FRAME_ERR_VALUE;
	if ((t = malloc(val->len + 1)) == NULL)
		abort();
	if (val->len > 0)
		memcpy(t, val->p, val->len);
	t[val->len] = '\0';
	*s = t;
	return 0;
}

/* Room for n more bytes, or err set (a frame can never exceed the cap). */
static int
frame_wr_room(struct frame_wr *w, size_t n)
{
	size_t	 cap;
	uint8_t	*p;

	if (w->err != 0)
		return -1;
	if (n > FRAME_MAX + 4 || w->len - w->start + n > FRAME_MAX + 4) {
		w->err = FRAME_ERR_LENGTH;
		return -1;
	}
	if (w->len + n <= w->cap)
		return 0;
	cap = w->cap < 256 ? 256 : w->cap;
	while (cap < w->len + n)
		cap *= 2;
	if ((p = realloc(w->data, cap)) == NULL)
		abort();
	w->data = p;
	w->cap = cap;
	return 0;
}

/* Write v big-endian in n bytes at data[at]. */
static void
frame_be_at(struct frame_wr *w, size_t at, uint64_t v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		w->data[at + i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

/* Append v big-endian in n bytes. */
static void
frame_put_be(struct frame_wr *w, uint64_t v, size_t n)
{
	if (frame_wr_room(w, n) != 0)
		return;
	frame_be_at(w, w->len, v, n);
	w->len += n;
}

/* Open a frame: its length is filled by frame_end. */
void
frame_begin(struct frame_wr *w, int type, uint32_t id)
{
	w->start = w->len;
	frame_put_be(w, 0, 4);
	frame_put_be(w, FRAME_VERSION, 1);
	frame_put_be(w, (uint8_t)type, 1);
	frame_put_be(w, id, 4);
}

/* A field of n bytes at p. */
void
frame_put_bytes(struct frame_wr *w, int tag, const void *p, size_t n)
{
	frame_put_be(w, (uint16_t)tag, 2);
	frame_put_be(w, n, 4);
	if (frame_wr_room(w, n) != 0 || n == 0)
		return;
	memcpy(w->data + w->len, p, n);
	w->len += n;
}

/* A u32 field. */
void
frame_put_u32(struct frame_wr *w, int tag, uint32_t v)
{
	frame_put_be(w, (uint16_t)tag, 2);
	frame_put_be(w, 4, 4);
	frame_put_be(w, v, 4);
}

/* A u64 field. */
void
frame_put_u64(struct frame_wr *w, int tag, uint64_t v)
{
	frame_put_be(w, (uint16_t)tag, 2);
	frame_put_be(w, 8, 4);
	frame_put_be(w, v, 8);
}

/* A string field (without its NUL). */
void
frame_put_str(struct frame_wr *w, int tag, const char *s)
{
	frame_put_bytes(w, tag, s, strlen(s));
}

/* Open a nested field: its length is filled by frame_nest_end. */
size_t
frame_nest_begin(struct frame_wr *w, int tag)
{
	frame_put_be(w, (uint16_t)tag, 2);
	frame_put_be(w, 0, 4);
	return w->len;
}

/* Close the nested field whose value begins at at. */
void
frame_nest_end(struct frame_wr *w, size_t at)
{
	if (w->err == 0)
		frame_be_at(w, at - 4, w->len - at, 4);
}

/* Close the open frame: fill its length. */
int
frame_end(struct frame_wr *w)
{
	if (w->err != 0)
		return w->err;
	frame_be_at(w, w->start, w->len - w->start - 4, 4);
	return 0;
}

/* Forget what was written. */
void
frame_wr_reset(struct frame_wr *w)
{
	w->len = 0;
	w->start = 0;
	w->err = 0;
}

/* Free the writer's memory. */
void
frame_wr_free(struct frame_wr *w)
{
	free(w->data);
	w->data = NULL;
	w->len = w->cap = w->start = 0;
	w->err = 0;
}
