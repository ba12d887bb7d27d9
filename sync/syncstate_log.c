/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sync state's log on disk: its header, its checksummed blocks, and
 * the old format (version 1, without checksums) still read; see
 * syncstate.h for the format and docs/sync.md for what damage costs.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "error.h"
#include "fdio.h"
#include "log.h"
#include "manifest.h"
#include "strv.h"
#include "syncstate.h"
#include "syncstate_int.h"
#include "xmalloc.h"

#define SS_MAGIC1	"clawssh-manifest-log 1 "
#define SS_MAGIC2	"clawssh-manifest-log 2 "
#define SS_HEAD_MAX	256	/* a longer first line is no header */
#define SS_END_LEN	10	/* ". CCCCCCCC", a block's last line */

/* The one "another sync raced us" reason, told apart by address. */
static const char ss_raced[] = SS_RACED;

/* The CRC-32 of p; see syncstate_int.h.  Half a byte at a time. */
uint32_t
syncstate_crc32(const void *p, size_t len)
{
	static const uint32_t	 t[16] = {
		0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac,
		0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
		0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c,
		0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c
	};
	const unsigned char	*b = p;
	uint32_t		 c = 0xffffffffu;
	size_t			 i;

	for (i = 0; i < len; i++) {
		c ^= b[i];
		c = (c >> 4) ^ t[c & 15];
		c = (c >> 4) ^ t[c & 15];
	}
	return c ^ 0xffffffffu;
}

/* Parse 8 lowercase hex digits at p into *out: 0, or CLAW_ERR_PARSE. */
static int
ss_hex8(const char *p, uint32_t *out)
{
	uint32_t	v = 0;
	int		i;

	for (i = 0; i < 8; i++) {
		if (p[i] >= '0' && p[i] <= '9')
			v = v << 4 | (uint32_t)(p[i] - '0');
		else if (p[i] >= 'a' && p[i] <= 'f')
			v = v << 4 | (uint32_t)(p[i] - 'a' + 10);
		else
			return CLAW_ERR_PARSE;
	}
	*out = v;
	return 0;
}

/* The identity part of a header line (no checksum, no newline). */
static char *
ss_identity(const char *magic, const struct stat *st)
{
	return xasprintf("%s%llu %lld %lld.%09ld", magic,
	    (unsigned long long)st->st_ino, (long long)st->st_size,
	    (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec);
}

/* The header line; see syncstate_int.h. */
char *
syncstate_log_header(const struct stat *st)
{
	char	*id = ss_identity(SS_MAGIC2, st), *line;

	line = xasprintf("%s %08x\n", id, syncstate_crc32(id, strlen(id)));
	free(id);
	return line;
}

/*
 * Parse a scope line's path (after "S ") into layer l: valid, after the
 * last one and not below another.  NULL, or the reason.
 */
static const char *
ss_scope_line(struct ss_layer *l, const char *p, size_t len)
{
	const char	*why;
	char		*path;

	if ((why = manifest_unescape(p, len, &path)) != NULL)
		return why;
	if ((why = manifest_path_check(path, MANIFEST_PATH_MAX)) == NULL &&
	    l->n > 0 && (strcmp(l->v[l->n - 1], path) >= 0 ||
	    strv_has_ancestor(l->v, l->n, path, 0)))
		why = "scope paths out of order";
	if (why != NULL) {
		free(path);
		return why;
	}
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = path;
	return NULL;
}

/* Parse an entry line into l: in its scope and in order. */
static const char *
ss_entry_line(struct ss_layer *l, const char *p, size_t len)
{
	const char	*why = NULL, *path;

	if (manifest_parse_line(l->m, p, len, &why) != 0)
		return why;
	path = l->m->e[l->m->n - 1].path;
	if (!strv_has_ancestor(l->v, l->n, path, 1))
		return "entry outside the block's scope";
	if (l->m->n > 1 && strcmp(l->m->e[l->m->n - 2].path, path) >= 0)
		return "entries out of order";
	return NULL;
}

/*
 * Parse the lines of a block's body [p, end) (whole lines: scope lines,
 * then entries) into a new layer of s.  NULL, or why it is malformed
 * (nothing added then).
 */
static const char *
ss_body(struct syncstate *s, const char *p, const char *end)
{
	struct ss_layer	 l = { NULL, 0, manifest_new() };
	const char	*nl, *why = NULL;

	for (; why == NULL && p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl - p > 2 && p[0] == 'S' && p[1] == ' ')
			why = l.m->n != 0 ? "scope after entries" :
			    ss_scope_line(&l, p + 2, (size_t)(nl - p - 2));
		else
			why = l.n == 0 ? "entry before the scope" :
			    ss_entry_line(&l, p, (size_t)(nl - p));
	}
	if (why == NULL && l.n == 0)
		why = "block without a scope";
	if (why != NULL) {
		syncstate_layer_free(&l);
		return why;
	}
	syncstate_layer_push(s, l.v, l.n, l.m);
	return NULL;
}

/*
 * The end of the block at p (version 2): the start of its last line,
 * ". CCCCCCCC", in *endp and the checksum in *crc.  NULL, or why there
 * is none (SS_RACED for a line "X" where the block would start).
 */
static const char *
ss_find_end(const char *p, const char *end, const char **endp,
    uint32_t *crc)
{
	const char	*q, *nl;

	for (q = p; q < end; q = nl + 1) {
		if ((nl = memchr(q, '\n', (size_t)(end - q))) == NULL)
			break;
		if (q == p && nl - q == 1 && *q == 'X')
			return ss_raced;
		if (nl - q == SS_END_LEN && q[0] == '.' && q[1] == ' ' &&
		    ss_hex8(q + 2, crc) == 0) {
			*endp = q;
			return NULL;
		}
	}
	return "cut short";
}

/*
 * Parse one block (version 2) at *pp: checked whole against its
 * checksum before any line of it is read.  NULL, or why not.
 */
static const char *
ss_block2(struct syncstate *s, const char **pp, const char *end)
{
	const char	*p = *pp, *q = NULL, *why;
	uint32_t	 crc = 0;

	if ((why = ss_find_end(p, end, &q, &crc)) != NULL)
		return why;
	if (syncstate_crc32(p, (size_t)(q - p)) != crc)
		return "checksum mismatch";
	if ((why = ss_body(s, p, q)) != NULL)
		return why;
	*pp = q + SS_END_LEN + 1;
	return NULL;
}

/* Parse one block of the old format (ending in a line "."). */
static const char *
ss_block1(struct syncstate *s, const char **pp, const char *end)
{
	const char	*p = *pp, *q, *nl, *why;

	for (q = p; q < end; q = nl + 1) {
		if ((nl = memchr(q, '\n', (size_t)(end - q))) == NULL)
			break;
		if (nl - q == 1 && *q == 'X')
			return ss_raced;
		if (nl - q == 1 && *q == '.') {
			if ((why = ss_body(s, p, q)) == NULL)
				*pp = nl + 1;
			return why;
		}
	}
	return "cut short";
}

/*
 * Blocks from p: all of them, or (version 2) those before the first
 * that is cut, torn or damaged, which is dropped with all after it.
 */
static void
ss_blocks(struct syncstate *s, const char *text, const char *p,
    const char *end, int version)
{
	const char	*why = NULL, *q;
	size_t		 line = 1;
	int		 raced;

	while (why == NULL && p < end)
		why = version == 2 ? ss_block2(s, &p, end) :
		    ss_block1(s, &p, end);
	if (why == NULL) {
		s->nsaved = s->nl;
		s->loglen = (size_t)(end - text);
		return;
	}
	s->log_fresh = 1;
	raced = why == ss_raced;
	if (raced || version == 1)
		syncstate_layers_free(s);	/* the manifest alone */
	s->nsaved = s->nl;
	if (raced) {
		s->noview = xasprintf("%s: %s", s->logname, why);
		return;
	}
	for (q = text; q < p; q++)
		line += *q == '\n';
	s->noview = xasprintf("%s: line %zu: %s", s->logname, line, why);
	s->damaged = version == 1 ? xasprintf("%s (old format): line %zu: "
	    "%s", s->logname, line, why) : xasprintf("%s: line %zu: %s (%zu "
	    "bytes dropped, the %zu blocks before used)", s->logname, line,
	    why, (size_t)(end - p), s->nl);
}

/*
 * Check the header line [text, nl) of a version 2 log: 1 if it belongs
 * to the manifest mapped, 0 if to another one (an older manifest that
 * includes it), CLAW_ERR_PARSE if it is damaged.
 */
static int
ss_header2(const struct syncstate *s, const char *text, const char *nl)
{
	char		*want;
	size_t		 len = (size_t)(nl - text), wlen;
	uint32_t	 crc;
	int		 r;

	if (len < 9 + strlen(SS_MAGIC2) || text[len - 9] != ' ' ||
	    ss_hex8(text + len - 8, &crc) != 0 ||
	    syncstate_crc32(text, len - 9) != crc)
		return CLAW_ERR_PARSE;
	want = syncstate_log_header(&s->st);
	wlen = strlen(want);
	r = wlen == len + 1 && memcmp(want, text, len + 1) == 0;
	free(want);
	return r;
}

/* Whether [text, nl) is the old header for the manifest mapped. */
static int
ss_header1(const struct syncstate *s, const char *text, const char *nl)
{
	char	*want = ss_identity(SS_MAGIC1, &s->st);
	int	 r;

	r = strlen(want) == (size_t)(nl - text) &&
	    memcmp(want, text, (size_t)(nl - text)) == 0;
	free(want);
	return r;
}

/* Parse the log; see syncstate_int.h. */
void
syncstate_log_parse(struct syncstate *s, const char *text, size_t len)
{
	const char	*nl, *end = text + len;
	int		 v2, h;

	nl = memchr(text, '\n', len < SS_HEAD_MAX ? len : SS_HEAD_MAX);
	v2 = len >= strlen(SS_MAGIC2) &&
	    memcmp(text, SS_MAGIC2, strlen(SS_MAGIC2)) == 0;
	if (nl == NULL || (!v2 && (len < strlen(SS_MAGIC1) ||
	    memcmp(text, SS_MAGIC1, strlen(SS_MAGIC1)) != 0)) ||
	    (v2 && (h = ss_header2(s, text, nl)) < 0)) {
		s->damaged = xasprintf("%s: %s", s->logname, len == 0 ?
		    "empty" : "no valid header (damaged, or of an unknown "
		    "version)");
		s->noview = xstrdup(s->damaged);
		s->log_fresh = 1;
		return;
	}
	if (v2 ? h == 0 : !ss_header1(s, text, nl)) {
		/* a log for an older manifest: that one includes it */
		log_debug("sync state: %s is not for this manifest: ignored",
		    s->logname);
		s->log_fresh = 1;
		return;
	}
	s->oldlog = !v2;
	ss_blocks(s, text, nl + 1, end, v2 ? 2 : 1);
}

/* Read the log; see syncstate_int.h. */
void
syncstate_log_read(struct syncstate *s)
{
	struct stat	 st;
	char		*text;
	ssize_t		 r;
	int		 fd;

	fd = openat(s->dirfd, s->logname, O_RDONLY|O_NOFOLLOW|O_CLOEXEC|
	    O_NONBLOCK|O_NOCTTY);
	if (fd == -1 && errno == ENOENT) {
		s->log_fresh = 1;
		return;
	}
	if (fd != -1 && fstat(fd, &st) == 0)
		s->logseen = (long long)st.st_size;
	if (fd == -1 || s->logseen < 0 || !S_ISREG(st.st_mode) ||
	    st.st_size > SS_LOG_MAX) {
		s->damaged = xasprintf("%s: %s", s->logname, fd == -1 ?
		    strerror(errno) : "not a regular file of at most 64 MiB");
		s->noview = xstrdup(s->damaged);
		s->log_fresh = 1;
		if (fd != -1)
			close(fd);
		return;
	}
	text = xmalloc((size_t)st.st_size + 1);
	r = fdio_read_full(fd, text, (size_t)st.st_size);
	close(fd);
	if (r != (ssize_t)st.st_size) {
		s->damaged = xasprintf("%s: cannot read it", s->logname);
		s->noview = xstrdup(s->damaged);
		s->log_fresh = 1;
	} else
		syncstate_log_parse(s, text, (size_t)st.st_size);
	free(text);
}

/* Format the staged blocks; see syncstate_int.h. */
void
syncstate_log_format(const struct syncstate *s, struct buf *b)
{
	const struct ss_layer	*l;
	size_t			 i, j, start;

	for (i = s->nsaved; i < s->nl; i++) {
		l = &s->l[i];
		start = b->len;
		for (j = 0; j < l->n; j++) {
			buf_append_str(b, "S ");
			manifest_escape(b, l->v[j]);
			buf_append(b, "\n", 1);
		}
		for (j = 0; j < l->m->n; j++)
			manifest_format_line(b, &l->m->e[j]);
		buf_appendf(b, ". %08x\n", syncstate_crc32(b->data + start,
		    b->len - start));
	}
}
