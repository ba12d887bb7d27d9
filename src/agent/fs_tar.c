/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The tar reader of fs-unpack; see fs_tar.h.  POSIX.1-2001 (pax) sets
 * out the headers; GNU sparse format 1.0 puts the map of a sparse file
 * at the start of its data, as decimal numbers one per line, padded to
 * a block.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "fs_tar.h"

#define TAR_NAME_MAX	4096		/* a path or link target */
#define TAR_SIZE_MAX	(UINT64_C(1) << 62)

/* What the extended headers before an entry said. */
struct tar_pax {
	char		*path, *link, *sparse_name;
	uint64_t	 size, realsize;
	struct timespec	 mtime;
	int		 has_size, has_mtime, has_realsize;
	int		 sparse_major, sparse_minor;	/* -1: not said */
};

/* Say why in t->err; -1. */
static int __attribute__((format(printf, 2, 3)))
tar_fail(struct tar_rd *t, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vsnprintf(t->err, sizeof t->err, fmt, ap);
	va_end(ap);
	return -1;
}

/* Start; see fs_tar.h. */
void
tar_init(struct tar_rd *t, tar_read_fn *rd, void *arg)
{
	memset(t, 0, sizeof *t);
	t->rd = rd;
	t->arg = arg;
}

/* Exactly len bytes: 1, 0 at the end of input before any, -1. */
static int
tar_full(struct tar_rd *t, void *p, size_t len)
{
	size_t	got = 0;
	ssize_t	n;

	while (got < len) {
		if ((n = t->rd(t->arg, (char *)p + got, len - got)) < 0)
			return tar_fail(t, "reading the stream failed");
		if (n == 0)
			return got == 0 ? 0 : tar_fail(t, "the stream ends "
			    "inside a block");
		got += (size_t)n;
	}
	return 1;
}

/* Skip n bytes of input: 0 or -1. */
static int
tar_skip(struct tar_rd *t, uint64_t n)
{
	char	buf[TAR_BLOCK * 8];
	size_t	k;

	while (n > 0) {
		k = n < sizeof buf ? (size_t)n : sizeof buf;
		if (tar_full(t, buf, k) != 1)
			return tar_fail(t, "the stream ends inside an entry");
		n -= k;
	}
	return 0;
}

/* A header's number field (octal, or base-256): 0 or -1. */
static int
tar_num(const unsigned char *f, size_t len, uint64_t *v)
{
	size_t	i = 0;

	*v = 0;
	if (f[0] & 0x80) {		/* base-256, big-endian */
		if (f[0] != 0x80)
			return -1;	/* negative, or too wide */
		for (i = 1; i < len; i++) {
			if (*v >> 56 != 0)
				return -1;
			*v = *v << 8 | f[i];
		}
		return 0;
	}
	while (i < len && (f[i] == ' ' || f[i] == '\0'))
		i++;
	for (; i < len && f[i] >= '0' && f[i] <= '7'; i++) {
		if (*v >> 60 != 0)
			return -1;
		*v = *v << 3 | (uint64_t)(f[i] - '0');
	}
	for (; i < len; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return -1;
	return 0;
}

/* Whether h's checksum holds (unsigned sum, or the old signed one). */
static int
tar_sum_ok(const unsigned char *h)
{
	uint64_t	want;
	long		u = 0, s = 0;
	int		i;

	if (tar_num(h + 148, 8, &want) != 0)
		return 0;
	for (i = 0; i < TAR_BLOCK; i++) {
		u += i >= 148 && i < 156 ? ' ' : h[i];
		s += i >= 148 && i < 156 ? ' ' : (signed char)h[i];
	}
	return (uint64_t)u == want || (uint64_t)s == want;
}

/* A decimal number of s[0..len) (no sign): 0 or -1. */
static int
tar_dec(const char *s, size_t len, uint64_t *v)
{
	size_t	i;

	*v = 0;
	if (len == 0)
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9' || *v > TAR_SIZE_MAX)
			return -1;
		*v = *v * 10 + (uint64_t)(s[i] - '0');
	}
	return 0;
}

/* A pax time, SECONDS[.FRACTION]: 0 or -1 (before 1970 is refused). */
static int
tar_time(const char *s, size_t len, struct timespec *ts)
{
	const char	*dot = memchr(s, '.', len);
	uint64_t	 sec;
	long		 ns = 0, scale = 100000000;
	size_t		 i, n = dot != NULL ? (size_t)(dot - s) : len;

	if (tar_dec(s, n, &sec) != 0 || sec > INT64_MAX / 2)
		return -1;
	for (i = n + 1; dot != NULL && i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		ns += (s[i] - '0') * scale;
		scale /= 10;
	}
	ts->tv_sec = (time_t)sec;
	ts->tv_nsec = ns;
	return 0;
}

/* A string value: a copy without NULs, within TAR_NAME_MAX, or NULL. */
static char *
tar_str(const char *v, size_t len)
{
	char	*s;

	if (len == 0 || len > TAR_NAME_MAX || memchr(v, '\0', len) != NULL)
		return NULL;
	s = xmalloc(len + 1);
	memcpy(s, v, len);
	s[len] = '\0';
	return s;
}

/* Replace *slot with a string value: 0 or -1. */
static int
tar_set_str(char **slot, const char *v, size_t len)
{
	free(*slot);
	return (*slot = tar_str(v, len)) != NULL ? 0 : -1;
}

/* Take one "key=value" record into x: 0, or -1 for a bad value. */
static int
tar_pax_record(struct tar_pax *x, const char *k, size_t klen, const char *v,
    size_t vlen)
{
	uint64_t	n;

#define KEY(s)	(klen == sizeof(s) - 1 && memcmp(k, s, klen) == 0)
	if (KEY("path"))
		return tar_set_str(&x->path, v, vlen);
	if (KEY("linkpath"))
		return tar_set_str(&x->link, v, vlen);
	if (KEY("GNU.sparse.name"))
		return tar_set_str(&x->sparse_name, v, vlen);
	if (KEY("size"))
		return x->has_size = 1, tar_dec(v, vlen, &x->size);
	if (KEY("GNU.sparse.realsize"))
		return x->has_realsize = 1, tar_dec(v, vlen, &x->realsize);
	if (KEY("mtime"))
		return x->has_mtime = 1, tar_time(v, vlen, &x->mtime);
	if (KEY("GNU.sparse.major") || KEY("GNU.sparse.minor")) {
		if (tar_dec(v, vlen, &n) != 0 || n > 9)
			return -1;
		*(k[12] == 'a' ? &x->sparse_major : &x->sparse_minor) =
		    (int)n;
	}
#undef KEY
	return 0;			/* others: not ours to apply */
}

/* Parse an extended header's records, "LEN key=value\n" each: 0 or -1. */
static int
tar_pax_parse(struct tar_rd *t, struct tar_pax *x, const char *p, size_t n)
{
	const char	*rec, *sp, *eq;
	uint64_t	 len;
	size_t		 at = 0;

	while (at < n) {
		rec = p + at;
		if ((sp = memchr(rec, ' ', n - at)) == NULL ||
		    tar_dec(rec, (size_t)(sp - rec), &len) != 0 ||
		    len > n - at || len < (uint64_t)(sp - rec) + 3 ||
		    rec[len - 1] != '\n')
			return tar_fail(t, "a bad extended header record");
		if ((eq = memchr(sp + 1, '=', (size_t)(rec + len - sp - 1)))
		    == NULL || eq == sp + 1)
			return tar_fail(t, "a bad extended header record");
		if (tar_pax_record(x, sp + 1, (size_t)(eq - sp - 1), eq + 1,
		    (size_t)(rec + len - 1 - eq - 1)) != 0)
			return tar_fail(t, "a bad value in an extended header: "
			    "%.*s", (int)(eq - sp - 1), sp + 1);
		at += (size_t)len;
	}
	return 0;
}

/* Read an entry's whole data (a pax header, a GNU long name) into *p. */
static int
tar_slurp(struct tar_rd *t, uint64_t size, size_t max, char **p)
{
	uint64_t	padded = (size + TAR_BLOCK - 1) / TAR_BLOCK * TAR_BLOCK;

	if (size > max)
		return tar_fail(t, "an extended header of %llu bytes",
		    (unsigned long long)size);
	*p = xmalloc((size_t)padded + 1);
	if (padded > 0 && tar_full(t, *p, (size_t)padded) != 1) {
		free(*p);
		*p = NULL;
		return tar_fail(t, "the stream ends inside a header");
	}
	(*p)[size] = '\0';
	return 0;
}

/* Free x's strings. */
static void
tar_pax_clear(struct tar_pax *x)
{
	free(x->path);
	free(x->link);
	free(x->sparse_name);
	memset(x, 0, sizeof *x);
	x->sparse_major = x->sparse_minor = -1;
}

/* A NUL-terminated copy of a header field of up to len bytes. */
static char *
tar_field(const unsigned char *f, size_t len)
{
	size_t	n = strnlen((const char *)f, len);
	char	*s = xmalloc(n + 1);

	memcpy(s, f, n);
	s[n] = '\0';
	return s;
}

/* The ustar path: prefix "/" name, or name. */
static char *
tar_ustar_path(const unsigned char *h)
{
	char	*name = tar_field(h, 100), *prefix, *p;

	if (memcmp(h + 257, "ustar", 5) != 0 || h[345] == '\0')
		return name;
	prefix = tar_field(h + 345, 155);
	p = xmalloc(strlen(prefix) + 1 + strlen(name) + 1);
	sprintf(p, "%s/%s", prefix, name);
	free(prefix);
	free(name);
	return p;
}

/* Read one number of a sparse map, up to its newline: 0 or -1. */
static int
tar_map_num(struct tar_rd *t, unsigned char *blk, size_t *at,
    uint64_t *v)
{
	int	digits = 0;

	*v = 0;
	for (;;) {
		if (*at == TAR_BLOCK) {
			if (t->left < TAR_BLOCK ||
			    tar_full(t, blk, TAR_BLOCK) != 1)
				return tar_fail(t, "a cut sparse map");
			t->left -= TAR_BLOCK;
			*at = 0;
		}
		if (blk[*at] == '\n' && digits > 0) {
			(*at)++;
			return 0;
		}
		if (blk[*at] < '0' || blk[*at] > '9' || digits++ > 18)
			return tar_fail(t, "a bad sparse map");
		*v = *v * 10 + (uint64_t)(blk[(*at)++] - '0');
	}
}

/*
 * GNU sparse 1.0: the map at the start of e's data (count, then offset
 * and size of each segment), checked against the real size and the
 * data that follows it.
 */
static int
tar_sparse_map(struct tar_rd *t, struct tar_entry *e)
{
	unsigned char	blk[TAR_BLOCK];
	uint64_t	count, i, data = 0, end = 0;
	size_t		at = TAR_BLOCK;

	if (tar_map_num(t, blk, &at, &count) != 0)
		return -1;
	if (count > TAR_SPARSE_MAX)
		return tar_fail(t, "a sparse map of %llu segments",
		    (unsigned long long)count);
	e->segs = xcalloc(count > 0 ? (size_t)count : 1, sizeof *e->segs);
	e->nsegs = (size_t)count;
	for (i = 0; i < count; i++) {
		if (tar_map_num(t, blk, &at, &e->segs[i].off) != 0 ||
		    tar_map_num(t, blk, &at, &e->segs[i].size) != 0)
			return -1;
		if (e->segs[i].off < end || e->segs[i].off > e->size ||
		    e->segs[i].size > e->size - e->segs[i].off)
			return tar_fail(t, "a sparse map out of order");
		end = e->segs[i].off + e->segs[i].size;
		data += e->segs[i].size;
	}
	if (data != t->left)
		return tar_fail(t, "a sparse map that does not match its "
		    "data");
	e->stored = data;
	return 0;
}

/* Fill e from header h and what the extended headers said. */
static int
tar_fill(struct tar_rd *t, const unsigned char *h, struct tar_pax *x,
    struct tar_entry *e)
{
	uint64_t	v;
	char		type = (char)h[156];

	memset(e, 0, sizeof *e);
	if (type == '0' || type == '\0' || type == '7')
		e->type = TAR_FILE;
	else if (type == '5')
		e->type = TAR_DIR;
	else if (type == '2')
		e->type = TAR_SYMLINK;
	else
		return tar_fail(t, "an entry of type '%c': only files, "
		    "directories and symbolic links are sent", type);
	if (tar_num(h + 100, 8, &v) != 0)
		return tar_fail(t, "a bad mode");
	e->mode = (mode_t)(v & 07777);
	if (x->has_mtime)
		e->mtime = x->mtime;
	else if (tar_num(h + 136, 12, &v) != 0 || v > INT64_MAX / 2)
		return tar_fail(t, "a bad mtime");
	else
		e->mtime.tv_sec = (time_t)v;
	if (x->has_size)
		e->stored = x->size;
	else if (tar_num(h + 124, 12, &e->stored) != 0)
		return tar_fail(t, "a bad size");
	if (e->stored > TAR_SIZE_MAX)
		return tar_fail(t, "a bad size");
	e->size = e->stored;
	e->path = x->sparse_name != NULL ? x->sparse_name : x->path != NULL ?
	    x->path : tar_ustar_path(h);
	if (e->path == x->sparse_name)
		x->sparse_name = NULL;
	else if (e->path == x->path)
		x->path = NULL;
	if (e->type == TAR_SYMLINK) {
		e->link = x->link != NULL ? x->link : tar_field(h + 157, 100);
		if (e->link == x->link)
			x->link = NULL;
		if (*e->link == '\0')
			return tar_fail(t, "%s: a link to nothing", e->path);
	}
	return 0;
}

/* The entry's data begins: its sizes, and a sparse file's map. */
static int
tar_begin_data(struct tar_rd *t, struct tar_entry *e, struct tar_pax *x)
{
	t->left = e->stored;
	t->pad = (TAR_BLOCK - e->stored % TAR_BLOCK) % TAR_BLOCK;
	if (e->type != TAR_FILE) {
		e->size = 0;
		return 0;
	}
	if (x->sparse_major == -1 && x->sparse_minor == -1)
		return 0;
	if (x->sparse_major != 1 || x->sparse_minor != 0 || !x->has_realsize)
		return tar_fail(t, "%s: a sparse format other than GNU 1.0",
		    e->path);
	e->size = x->realsize;
	return tar_sparse_map(t, e);
}

/* The next entry; see fs_tar.h. */
int
tar_next(struct tar_rd *t, struct tar_entry *e)
{
	unsigned char	 h[TAR_BLOCK];
	struct tar_pax	 x;
	char		*data = NULL, **slot;
	uint64_t	 size;
	int		 r;

	memset(e, 0, sizeof *e);
	memset(&x, 0, sizeof x);
	x.sparse_major = x.sparse_minor = -1;
	for (;;) {
		if (tar_skip(t, t->left + t->pad) != 0)
			goto bad;
		t->left = t->pad = 0;
		if ((r = tar_full(t, h, sizeof h)) != 1) {
			tar_pax_clear(&x);
			return r;
		}
		for (r = 0; r < TAR_BLOCK && h[r] == 0; r++)
			;
		if (r == TAR_BLOCK) {
			tar_pax_clear(&x);
			return 0;		/* the end-of-archive block */
		}
		if (!tar_sum_ok(h)) {
			tar_fail(t, "a header with a bad checksum");
			goto bad;
		}
		if (h[156] != 'x' && h[156] != 'g' && h[156] != 'L' &&
		    h[156] != 'K')
			break;
		if (tar_num(h + 124, 12, &size) != 0 ||
		    tar_slurp(t, size, TAR_PAX_MAX, &data) != 0) {
			tar_fail(t, "a bad extended header");
			goto bad;
		}
		r = 0;
		if (h[156] == 'x')
			r = tar_pax_parse(t, &x, data, (size_t)size);
		else if (h[156] != 'g') {	/* GNU long name or link */
			slot = h[156] == 'L' ? &x.path : &x.link;
			if (tar_set_str(slot, data, strnlen(data,
			    (size_t)size)) != 0)
				r = tar_fail(t, "a bad long name");
		}
		free(data);
		if (r != 0)
			goto bad;
	}
	if (tar_fill(t, h, &x, e) != 0 || tar_begin_data(t, e, &x) != 0)
		goto bad;
	tar_pax_clear(&x);
	return 1;
bad:
	tar_pax_clear(&x);
	tar_entry_clear(e);
	return -1;
}

/* The entry's data; see fs_tar.h. */
ssize_t
tar_data(struct tar_rd *t, void *p, size_t len)
{
	if (len > t->left)
		len = (size_t)t->left;
	if (len == 0)
		return 0;
	if (tar_full(t, p, len) != 1)
		return tar_fail(t, "the stream ends inside an entry");
	t->left -= len;
	return (ssize_t)len;
}

/* Free e's strings; see fs_tar.h. */
void
tar_entry_clear(struct tar_entry *e)
{
	free(e->path);
	free(e->link);
	free(e->segs);
	memset(e, 0, sizeof *e);
}

/* Clean a path; see fs_tar.h. */
int
tar_path_clean(char *path)
{
	char	*r = path, *w = path, *end;
	size_t	 n;

	if (*path == '/')
		return -1;
	while (*r != '\0') {
		end = strchr(r, '/');
		n = end != NULL ? (size_t)(end - r) : strlen(r);
		if (n == 2 && r[0] == '.' && r[1] == '.')
			return -1;
		if (n > 0 && !(n == 1 && r[0] == '.')) {
			if (w != path)
				*w++ = '/';
			memmove(w, r, n);
			w += n;
		}
		r += n;
		if (*r == '/')
			r++;
	}
	*w = '\0';
	return *path == '\0' ? -1 : 0;
}
