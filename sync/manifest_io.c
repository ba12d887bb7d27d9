/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Manifests as text: the escaped line format of the saved manifest, atomic
 * save and bounded load, and the NUL-separated listing that the remote
 * script prints.  All input is treated as hostile and checked against a
 * struct manifest_limits.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
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
#include "host_sh.h"
#include "log.h"
#include "manifest.h"
#include "manifest_int.h"
#include "num.h"
#include "xmalloc.h"

#define IO_TEXT_FIELDS	7	/* TYPE MODE SIZE TIME HASH PATH TARGET */
#define IO_FIND_FIELDS	5	/* TYPE MODE SIZE TIME PATH */
#define IO_FRAC_MAX	18	/* fraction digits accepted in a listing */
#define IO_CHUNK	(64 * 1024)

static const char io_hexdigits[] = "0123456789abcdef";

/* Return the remote listing script. */
const char *
manifest_remote_script(void)
{
	return HOST_SH_LIST_ALL;	/* src/host/list_all.sh */
}

/* Append s escaped as in the text format. */
void
manifest_escape(struct buf *b, const char *s)
{
	const char	*run = s;
	char		 esc[4] = { '\\', 'x', '0', '0' };
	unsigned char	 c;

	for (; *s != '\0'; s++) {
		c = (unsigned char)*s;
		if (c > 0x20 && c < 0x7f && c != '\\')
			continue;
		buf_append(b, run, (size_t)(s - run));
		esc[2] = io_hexdigits[c >> 4];
		esc[3] = io_hexdigits[c & 0xf];
		buf_append(b, esc, sizeof(esc));
		run = s + 1;
	}
	buf_append(b, run, (size_t)(s - run));
}

static const long	io_pow10[9] = { 1, 10, 100, 1000, 10000, 100000,
    1000000, 10000000, 100000000 };

/* Write v in decimal at p; return the end. */
static char *
io_utoa(char *p, uint64_t v)
{
	char	tmp[20];
	size_t	n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		*p++ = tmp[--n];
	return p;
}

/* Append the text line for e; see manifest.h. */
void
manifest_format_line(struct buf *b, const struct manifest_entry *e)
{
	char		 head[160], *p = head;
	uint64_t	 sec;
	size_t		 i;

	*p++ = (char)e->type;
	*p++ = ' ';
	*p++ = (char)('0' + ((e->mode >> 6) & 7));
	*p++ = (char)('0' + ((e->mode >> 3) & 7));
	*p++ = (char)('0' + (e->mode & 7));
	*p++ = ' ';
	p = io_utoa(p, e->size);
	*p++ = ' ';
	sec = e->mtime_sec < 0 ? (uint64_t)0 - (uint64_t)e->mtime_sec :
	    (uint64_t)e->mtime_sec;
	if (e->mtime_sec < 0)
		*p++ = '-';
	p = io_utoa(p, sec);
	*p++ = '.';
	for (i = 0; i < 9; i++)
		p[8 - i] = (char)('0' + (e->mtime_nsec / io_pow10[i]) % 10);
	p += 9;
	*p++ = ' ';
	for (i = 0; e->have_hash && i < MANIFEST_HASH_LEN; i++) {
		*p++ = io_hexdigits[e->hash[i] >> 4];
		*p++ = io_hexdigits[e->hash[i] & 0xf];
	}
	if (!e->have_hash)
		*p++ = '-';
	*p++ = ' ';
	buf_append(b, head, (size_t)(p - head));
	manifest_escape(b, e->path);
	if (e->link == NULL)
		buf_append_str(b, " -\n");
	else if (strcmp(e->link, "-") == 0)
		buf_append_str(b, " \\x2d\n");
	else {
		buf_append(b, " ", 1);
		manifest_escape(b, e->link);
		buf_append(b, "\n", 1);
	}
}

/* Return m in the text format. */
char *
manifest_format(const struct manifest *m, size_t *len)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	buf_append_str(&b, MANIFEST_TEXT_HEADER);
	for (i = 0; i < m->n; i++)
		manifest_format_line(&b, &m->e[i]);
	*len = b.len;
	return buf_detach(&b);
}

/* Return the value of hex digit c, or -1. */
static int
io_hex(char c)
{
	static signed char	val[256];
	static int		ready;
	int			i;

	if (!ready) {
		memset(val, -1, sizeof(val));
		for (i = 0; i < 10; i++)
			val['0' + i] = (signed char)i;
		for (i = 0; i < 6; i++) {
			val['a' + i] = (signed char)(10 + i);
			val['A' + i] = (signed char)(10 + i);
		}
		ready = 1;
	}
	return val[(unsigned char)c];
}

/*
 * Parse len digits at s in base 8 or 10 into *v, at most max; 0 or
 * CLAW_ERR_PARSE.
 */
static int
io_number(const char *s, size_t len, unsigned base, uint64_t max,
    uint64_t *v)
{
	if (len > 22 || num_parse(s, len, base == 8 ? NUM_OCTAL : 0, max,
	    v) != 0)
		return CLAW_ERR_PARSE;
	return 0;
}

/*
 * Parse "[-]SEC.FRACTION" (len bytes at s) into *sec and *nsec: exactly
 * nine fraction digits if exact, else 1 to IO_FRAC_MAX (beyond nine they
 * are dropped).  SEC is tv_sec, FRACTION tv_nsec, as GNU find prints them.
 * Returns 0 or CLAW_ERR_PARSE.
 */
static int
io_time(const char *s, size_t len, int exact, int64_t *sec, long *nsec)
{
	const char	*dot;
	uint64_t	 v, max = INT64_MAX;
	size_t		 neg = len > 0 && s[0] == '-', flen, i;
	long		 f = 0;

	if ((dot = memchr(s, '.', len)) == NULL)
		return CLAW_ERR_PARSE;
	if (io_number(s + neg, (size_t)(dot - s) - neg, 10, max + neg,
	    &v) != 0)
		return CLAW_ERR_PARSE;
	flen = len - (size_t)(dot + 1 - s);
	if (exact ? flen != 9 : (flen == 0 || flen > IO_FRAC_MAX))
		return CLAW_ERR_PARSE;
	for (i = 0; i < flen; i++) {
		if (dot[1 + i] < '0' || dot[1 + i] > '9')
			return CLAW_ERR_PARSE;
		if (i < 9)
			f = f * 10 + (dot[1 + i] - '0');
	}
	for (; i < 9; i++)
		f *= 10;
	if (!neg)
		*sec = (int64_t)v;
	else
		*sec = v == 0 ? 0 : -(int64_t)(v - 1) - 1;
	*nsec = f;
	return 0;
}

/* Parse the hash field ("-" or 64 hex digits) into e; 0 or CLAW_ERR_PARSE. */
static int
io_hash(const char *s, size_t len, struct manifest_entry *e)
{
	size_t	i;
	int	hi, lo;

	if (len == 1 && s[0] == '-')
		return 0;
	if (len != MANIFEST_HASH_LEN * 2)
		return CLAW_ERR_PARSE;
	for (i = 0; i < MANIFEST_HASH_LEN; i++) {
		if ((hi = io_hex(s[i * 2])) < 0 ||
		    (lo = io_hex(s[i * 2 + 1])) < 0)
			return CLAW_ERR_PARSE;
		e->hash[i] = (unsigned char)(hi << 4 | lo);
	}
	e->have_hash = 1;
	return 0;
}

/*
 * Decode the escaped field (len bytes at s) into *out (allocated), at most
 * max bytes.  Returns NULL, or the reason it is malformed.
 */
static const char *
io_unescape(const char *s, size_t len, size_t max, char **out)
{
	unsigned char	 c;
	size_t		 i, n = 0;
	char		*p;
	int		 hi, lo;

	if (len > 4 * max)
		return "path or target longer than the limit (max_path)";
	p = xmalloc(len + 1);
	for (i = 0; i < len; i++, n++) {
		c = (unsigned char)s[i];
		if (c == '\\') {
			if (len - i < 4 || s[i + 1] != 'x' ||
			    (hi = io_hex(s[i + 2])) < 0 ||
			    (lo = io_hex(s[i + 3])) < 0) {
				free(p);
				return "bad escape";
			}
			if ((c = (unsigned char)(hi << 4 | lo)) == 0) {
				free(p);
				return "escaped NUL byte";
			}
			i += 3;
		} else if (c <= 0x20 || c >= 0x7f) {
			free(p);
			return "unescaped control or non-ASCII byte";
		}
		p[n] = (char)c;
	}
	p[n] = '\0';
	*out = p;
	return NULL;
}

/*
 * Split [p, end) at single spaces into n fields; the last runs to end and
 * may hold spaces only if rest is set.  0, or CLAW_ERR_PARSE if the count
 * is wrong.
 */
static int
io_split(const char *p, const char *end, const char **f, size_t *flen,
    size_t n, int rest)
{
	const char	*q;
	size_t		 i;

	for (i = 0; i + 1 < n; i++) {
		if ((q = memchr(p, ' ', (size_t)(end - p))) == NULL)
			return CLAW_ERR_PARSE;
		f[i] = p;
		flen[i] = (size_t)(q - p);
		p = q + 1;
	}
	if (!rest && memchr(p, ' ', (size_t)(end - p)) != NULL)
		return CLAW_ERR_PARSE;
	f[n - 1] = p;
	flen[n - 1] = (size_t)(end - p);
	return 0;
}

/* Check e and add it to m, or free its strings; 0 or CLAW_ERR_PARSE. */
static int
io_admit(struct manifest *m, struct manifest_entry *e,
    const struct manifest_limits *lim, uint64_t *total, const char **why)
{
	int	r;

	if ((r = manifest_entry_check(m, e, lim, total, why)) != 0) {
		free(e->path);
		free(e->link);
		return r;
	}
	*manifest_add(m) = *e;
	return 0;
}

/* Fill e from the fields of a text line; NULL, or the reason. */
static const char *
io_text_fields(const char **f, const size_t *fl, size_t max,
    struct manifest_entry *e)
{
	const char	*why;
	uint64_t	 v;

	if (fl[0] != 1 || (f[0][0] != MANIFEST_FILE &&
	    f[0][0] != MANIFEST_DIR && f[0][0] != MANIFEST_LINK))
		return "bad type";
	e->type = f[0][0];
	if (fl[1] != 3 || io_number(f[1], fl[1], 8, 0777, &v) != 0)
		return "bad mode";
	e->mode = (unsigned)v;
	if (io_number(f[2], fl[2], 10, UINT64_MAX, &e->size) != 0)
		return "bad size";
	if (io_time(f[3], fl[3], 1, &e->mtime_sec, &e->mtime_nsec) != 0)
		return "bad mtime";
	if (io_hash(f[4], fl[4], e) != 0)
		return "bad hash";
	if ((why = io_unescape(f[5], fl[5], max, &e->path)) != NULL)
		return why;
	if (fl[6] == 1 && f[6][0] == '-')
		return NULL;
	return io_unescape(f[6], fl[6], max, &e->link);
}

/* Parse one text line [p, end) into m. */
static int
io_text_line(struct manifest *m, const char *p, const char *end,
    const struct manifest_limits *lim, uint64_t *total, const char **why)
{
	struct manifest_entry	 e;
	const char		*f[IO_TEXT_FIELDS];
	size_t			 fl[IO_TEXT_FIELDS];

	if (io_split(p, end, f, fl, IO_TEXT_FIELDS, 0) != 0) {
		*why = "wrong number of fields";
		return CLAW_ERR_PARSE;
	}
	memset(&e, 0, sizeof(e));
	if ((*why = io_text_fields(f, fl, lim->max_path, &e)) != NULL) {
		free(e.path);
		free(e.link);
		return CLAW_ERR_PARSE;
	}
	return io_admit(m, &e, lim, total, why);
}

/* Unescape a path of the text format; see manifest.h. */
const char *
manifest_unescape(const char *s, size_t len, char **out)
{
	return io_unescape(s, len, MANIFEST_PATH_MAX, out);
}

/* Parse one line of the text format into m; see manifest.h. */
int
manifest_parse_line(struct manifest *m, const char *line, size_t len,
    const char **why)
{
	struct manifest_limits	lim;
	uint64_t		total = 0;

	manifest_limits_default(&lim);
	return io_text_line(m, line, line + len, &lim, &total, why);
}

/* Return lim, or the defaults in def if lim is NULL. */
static const struct manifest_limits *
io_limits(const struct manifest_limits *lim, struct manifest_limits *def)
{
	if (lim != NULL)
		return lim;
	manifest_limits_default(def);
	return def;
}

/* Count the newlines in [p, end): the entries of a text manifest. */
static size_t
io_count_lines(const char *p, const char *end)
{
	size_t	n = 0;

	while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		n++;
		p++;
	}
	return n;
}

/* Parse the text format into a new manifest; see manifest.h. */
int
manifest_parse(const char *text, size_t len,
    const struct manifest_limits *lim, struct manifest **out, char **cause)
{
	struct manifest_limits	 def;
	struct manifest		*m;
	const char		*p = text, *end = text + len, *nl, *why = NULL;
	size_t			 line = 1, bad, hlen = strlen(MANIFEST_TEXT_HEADER);
	uint64_t		 total = 0;

	lim = io_limits(lim, &def);
	if (len > lim->max_text)
		why = "input longer than the limit (max_text)";
	else if (len < hlen || memcmp(text, MANIFEST_TEXT_HEADER, hlen) != 0)
		why = "not a clawssh manifest version 1";
	else
		p += hlen;
	m = manifest_new();
	if (why == NULL)
		manifest_reserve(m, io_count_lines(p, end));
	while (why == NULL && p < end) {
		line++;
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL)
			why = "no newline at the end";
		else if (io_text_line(m, p, nl, lim, &total, &why) == 0)
			p = nl + 1;
	}
	if (why == NULL && manifest_check_tree(m, &bad, &why) != 0)
		line = bad + 2;
	if (why != NULL) {
		*cause = xasprintf("line %zu: %s", line, why);
		manifest_free(m);
		return CLAW_ERR_PARSE;
	}
	*out = m;
	return 0;
}

/*
 * Fill e from the head "TYPE MODE SIZE TIME PATH" of a listing record.
 * A path over the limits of manifest_path_over is counted in over and
 * leaves e->path NULL: the record is skipped, as a scan would skip it.
 */
static const char *
io_find0_head(const char *p, size_t len, size_t max,
    struct manifest_over *over, struct manifest_entry *e)
{
	const char	*f[IO_FIND_FIELDS];
	size_t		 fl[IO_FIND_FIELDS], top;
	uint64_t	 v;

	if (io_split(p, p + len, f, fl, IO_FIND_FIELDS, 1) != 0)
		return "wrong number of fields";
	if (fl[0] != 1)
		return "bad type";
	e->type = f[0][0];
	if (io_number(f[1], fl[1], 8, 07777, &v) != 0)
		return "bad mode";
	e->mode = (unsigned)v & 0777;
	if (io_number(f[2], fl[2], 10, UINT64_MAX, &e->size) != 0)
		return "bad size";
	if (e->type == MANIFEST_DIR)
		e->size = 0;
	if (io_time(f[3], fl[3], 0, &e->mtime_sec, &e->mtime_nsec) != 0)
		return "bad mtime";
	if ((top = manifest_path_over(f[4], fl[4])) != 0) {
		manifest_over_add(over, f[4], top);
		return NULL;
	}
	if (fl[4] > max)
		return "path longer than the limit (max_path)";
	e->path = xstrndup(f[4], fl[4]);
	return NULL;
}

/*
 * Parse the listing record at *pp (head NUL target NUL) into m and move *pp
 * past it.  Records of other types are skipped.
 */
static int
io_find0_record(struct manifest *m, const char **pp, const char *end,
    const struct manifest_limits *lim, struct manifest_over *over,
    uint64_t *total, const char **why)
{
	struct manifest_entry	 e;
	const char		*p = *pp, *n1, *n2 = NULL;
	size_t			 tlen;

	if ((n1 = memchr(p, '\0', (size_t)(end - p))) == NULL ||
	    (n2 = memchr(n1 + 1, '\0', (size_t)(end - n1 - 1))) == NULL ||
	    n1 == p) {
		*why = n2 == NULL ? "truncated record" : "empty record";
		return CLAW_ERR_PARSE;
	}
	*pp = n2 + 1;
	if (*p != MANIFEST_FILE && *p != MANIFEST_DIR && *p != MANIFEST_LINK) {
		log_debug("remote listing: record of type 0x%02x skipped",
		    (unsigned char)*p);
		return 0;
	}
	memset(&e, 0, sizeof(e));
	tlen = (size_t)(n2 - n1 - 1);
	if ((*why = io_find0_head(p, (size_t)(n1 - p), lim->max_path, over,
	    &e)) == NULL && e.path == NULL)
		return 0;	/* over the limits: stays on the host */
	if (*why == NULL && tlen > lim->max_path)
		*why = "link target longer than the limit (max_path)";
	if (*why != NULL) {
		free(e.path);
		return CLAW_ERR_PARSE;
	}
	if (tlen != 0)
		e.link = xstrndup(n1 + 1, tlen);
	return io_admit(m, &e, lim, total, why);
}

/*
 * Sort a parsed listing and check it as a tree (or, for part of a tree,
 * only for duplicates); cause names the path.
 */
static int
io_find0_tree(struct manifest *m, int part, char **cause)
{
	struct buf	 b = BUF_INIT;
	const char	*why = "duplicate path";
	size_t		 bad;

	manifest_sort(m);
	if (part) {
		for (bad = 1; bad < m->n; bad++) {
			if (strcmp(m->e[bad - 1].path, m->e[bad].path) == 0)
				break;
		}
		if (bad >= m->n)
			return 0;
	} else if (manifest_check_tree(m, &bad, &why) == 0)
		return 0;
	manifest_escape(&b, m->e[bad].path);
	*cause = xasprintf("path %s: %s", b.data, why);
	buf_free(&b);
	return CLAW_ERR_PARSE;
}

/* Parse a listing of the whole tree, or of part of it. */
static int
io_find0(const char *data, size_t len, const struct manifest_limits *lim,
    int part, struct manifest **out, char **cause)
{
	struct manifest_limits	 def;
	struct manifest_over	 over = { 0, NULL, 0 };
	struct manifest		*m;
	const char		*p = data, *end = data + len, *why = NULL;
	size_t			 rec = 0;
	uint64_t		 total = 0;
	int			 r = 0;

	lim = io_limits(lim, &def);
	if (len > lim->max_text) {
		*cause = xstrdup("input longer than the limit (max_text)");
		return CLAW_ERR_PARSE;
	}
	m = manifest_new();
	while (r == 0 && p < end) {
		rec++;
		r = io_find0_record(m, &p, end, lim, &over, &total, &why);
	}
	if (r != 0)
		*cause = xasprintf("record %zu: %s", rec, why);
	else
		r = io_find0_tree(m, part, cause);
	if (r != 0) {
		free(over.first);
		manifest_free(m);
		return r;
	}
	manifest_over_report(&over, "on the host, not fetched or deleted");
	*out = m;
	return 0;
}

/* Parse the remote listing into a new manifest; see manifest.h. */
int
manifest_parse_find0(const char *data, size_t len,
    const struct manifest_limits *lim, struct manifest **out, char **cause)
{
	return io_find0(data, len, lim, 0, out, cause);
}

/* Parse a listing of some paths of a tree; see manifest.h. */
int
manifest_parse_find0_part(const char *data, size_t len,
    const struct manifest_limits *lim, struct manifest **out, char **cause)
{
	return io_find0(data, len, lim, 1, out, cause);
}

/* Store "name: what: strerror" in *cause; return the mapped errno. */
static int
io_errno(char **cause, const char *name, const char *what)
{
	int	err = errno;

	*cause = xasprintf("%s: %s: %s", name, what, strerror(err));
	return claw_err_from_errno(err);
}

/* Return a fresh temporary name "<name>.tmp.<pid>.<random hex>". */
static char *
io_tmp_name(const char *name)
{
	uint64_t	rnd;

	arc4random_buf(&rnd, sizeof rnd);
	return xasprintf("%s.tmp.%ld.%016llx", name, (long)getpid(),
	    (unsigned long long)rnd);
}

/* Create tmp in dirfd holding len bytes of text, synced to disk. */
static int
io_write_tmp(int dirfd, const char *tmp, const char *text, size_t len,
    char **cause)
{
	int	fd, r = 0;

	fd = openat(dirfd, tmp, O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC,
	    0600);
	if (fd == -1)
		return io_errno(cause, tmp, "cannot create");
	if (fdio_write_all(fd, text, len) != 0)
		r = io_errno(cause, tmp, "cannot write");
	else if (fsync(fd) != 0)
		r = io_errno(cause, tmp, "cannot sync");
	if (close(fd) != 0 && r == 0)
		r = io_errno(cause, tmp, "cannot close");
	if (r != 0)
		unlinkat(dirfd, tmp, 0);
	return r;
}

/* Flush the directory dirfd (AT_FDCWD allowed) to disk. */
static int
io_sync_dir(int dirfd, const char *name, char **cause)
{
	int	fd, r = 0;

	if ((fd = openat(dirfd, ".", O_RDONLY|O_DIRECTORY|O_CLOEXEC)) == -1)
		return io_errno(cause, name, "cannot open directory");
	if (fsync(fd) != 0)
		r = io_errno(cause, name, "cannot sync directory");
	close(fd);
	return r;
}

/* Write m to name in dirfd atomically; see manifest.h. */
int
manifest_save(int dirfd, const char *name, const struct manifest *m,
    char **cause)
{
	char	*text, *tmp = NULL;
	size_t	 len;
	int	 r;

	tmp = io_tmp_name(name);
	text = manifest_format(m, &len);
	if ((r = io_write_tmp(dirfd, tmp, text, len, cause)) != 0)
		goto out;
	if (renameat(dirfd, tmp, dirfd, name) != 0) {
		r = io_errno(cause, name, "cannot replace");
		unlinkat(dirfd, tmp, 0);
	} else
		r = io_sync_dir(dirfd, name, cause);
out:
	free(text);
	free(tmp);
	return r;
}

/*
 * Read fd to its end into b, at most max bytes; 0, 1 if longer, or read's
 * error (errno set).
 */
static int
io_read_all(int fd, size_t max, struct buf *b)
{
	char	chunk[IO_CHUNK];
	ssize_t	n;

	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return claw_err_from_errno(errno);
		if ((size_t)n > max - b->len)
			return 1;
		buf_append(b, chunk, (size_t)n);
	}
	return 0;
}

/* Open name in dirfd as a regular file for reading. */
static int
io_open(int dirfd, const char *name, int *fdp, char **cause)
{
	struct stat	st;
	int		fd;

	fd = openat(dirfd, name, O_RDONLY|O_NOFOLLOW|O_CLOEXEC|O_NONBLOCK|
	    O_NOCTTY);
	if (fd == -1 && errno == ENOENT) {
		*cause = xasprintf("%s: no such file", name);
		return CLAW_ERR_NOTFOUND;
	}
	if (fd == -1)
		return io_errno(cause, name, "cannot open");
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		*cause = xasprintf("%s: not a regular file", name);
		return CLAW_ERR_PARSE;
	}
	*fdp = fd;
	return 0;
}

/* Read and parse a saved manifest; see manifest.h. */
int
manifest_load(int dirfd, const char *name,
    const struct manifest_limits *lim, struct manifest **out, char **cause)
{
	struct manifest_limits	 def;
	struct buf		 b = BUF_INIT;
	char			*why = NULL;
	int			 fd = -1, r;

	lim = io_limits(lim, &def);
	if ((r = io_open(dirfd, name, &fd, cause)) != 0)
		return r;
	if ((r = io_read_all(fd, lim->max_text, &b)) < 0)
		r = io_errno(cause, name, "cannot read");
	else if (r > 0) {
		*cause = xasprintf("%s: larger than the limit (max_text)",
		    name);
		r = CLAW_ERR_PARSE;
	} else if ((r = manifest_parse(b.data == NULL ? "" : b.data, b.len,
	    lim, out, &why)) != 0) {
		*cause = xasprintf("%s: %s", name, why);
		free(why);
	}
	close(fd);
	buf_free(&b);
	return r;
}
