/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * JSON with comments.  Comments are blanked to spaces (newlines kept) in a
 * private copy so cJSON's byte offsets still give the user's line and column.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "compat.h"
#include "buf.h"
#include "error.h"
#include "jsonc.h"
#include "xmalloc.h"

#define JSONC_MAX_SIZE		(16 * 1024 * 1024)
#define JSONC_EXCERPT_MAX	16

/* Convert byte offset off in text to a 1-based line and column. */
static void
jsonc_position(const char *text, size_t off, size_t *line, size_t *col)
{
	size_t	i, bol = 0;

	*line = 1;
	for (i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			bol = i + 1;
		}
	}
	*col = off - bol + 1;
}

/* Return a message "NAME:LINE:COL: what" for byte offset off in text. */
static int __attribute__((__format__(__printf__, 5, 6)))
jsonc_fail_at(char **cause, const char *name, const char *text, size_t off,
    const char *fmt, ...)
{
	va_list	 ap;
	size_t	 line, col;
	char	*what;

	if (cause == NULL)
		return CLAW_ERR_PARSE;
	va_start(ap, fmt);
	what = xvasprintf(fmt, ap);
	va_end(ap);
	jsonc_position(text, off, &line, &col);
	*cause = xasprintf("%s:%zu:%zu: %s", name, line, col, what);
	free(what);
	return CLAW_ERR_PARSE;
}

/* Return the offset of the quote closing the string opened at i, or len. */
static size_t
jsonc_string_end(const char *s, size_t len, size_t i)
{
	for (i++; i < len && s[i] != '"'; i++) {
		if (s[i] == '\\' && i + 1 < len)
			i++;
	}
	return i < len ? i : len;
}

/* Return the offset just past the string whose opening quote is at i. */
static size_t
jsonc_skip_string(const char *s, size_t len, size_t i)
{
	i = jsonc_string_end(s, len, i);
	return i < len ? i + 1 : len;
}

/* Blank s[i..) up to the end of the line; return where the line ends. */
static size_t
jsonc_blank_line(char *s, size_t len, size_t i)
{
	while (i < len && s[i] != '\n')
		s[i++] = ' ';
	return i;
}

/*
 * Blank the block comment starting at s[i] ("/" then "*") and return the
 * offset just past it, or len if it is not terminated.
 */
static size_t
jsonc_blank_block(char *s, size_t len, size_t i, int *closed)
{
	*closed = 0;
	s[i] = s[i + 1] = ' ';
	for (i += 2; i < len; i++) {
		if (s[i] == '*' && i + 1 < len && s[i + 1] == '/') {
			s[i] = s[i + 1] = ' ';
			*closed = 1;
			return i + 2;
		}
		if (s[i] != '\n')
			s[i] = ' ';
	}
	return len;
}

/*
 * Replace comments outside strings in s[0..len) with spaces, keeping
 * newlines.  Returns 0, or CLAW_ERR_PARSE with *bad at an unterminated
 * block comment.
 */
static int
jsonc_strip(char *s, size_t len, size_t *bad)
{
	size_t	i = 0;
	int	closed;

	while (i < len) {
		if (s[i] == '"')
			i = jsonc_skip_string(s, len, i);
		else if (s[i] == '/' && i + 1 < len && s[i + 1] == '/')
			i = jsonc_blank_line(s, len, i);
		else if (s[i] == '/' && i + 1 < len && s[i + 1] == '*') {
			*bad = i;
			i = jsonc_blank_block(s, len, i, &closed);
			if (!closed)
				return CLAW_ERR_PARSE;
		} else
			i++;
	}
	return 0;
}

/* Return the offset of the first non-whitespace byte at or after i. */
static size_t
jsonc_skip_space(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
	    s[i] == '\r'))
		i++;
	return i;
}

/*
 * Scan s[0..c) and set *top to the innermost open bracket ('{', '[' or 0)
 * and *last to the last byte before c that is not whitespace ('"' for a
 * string).  Returns 0, or CLAW_ERR_INVAL if c lies inside a string.
 */
static int
jsonc_context(const char *s, size_t len, size_t c, char *top, char *last)
{
	char	stack[CJSON_NESTING_LIMIT + 2];
	size_t	i = 0, depth = 0;

	*last = 0;
	while (i < c) {
		if (s[i] == '"') {
			if ((i = jsonc_skip_string(s, len, i)) > c)
				return CLAW_ERR_INVAL;
			*last = '"';
			continue;
		}
		if (s[i] == '{' || s[i] == '[') {
			if (depth < sizeof(stack))
				stack[depth] = s[i];
			depth++;
		} else if ((s[i] == '}' || s[i] == ']') && depth > 0)
			depth--;
		if (jsonc_skip_space(s, len, i) == i)
			*last = s[i];
		i++;
	}
	*top = depth > 0 && depth <= sizeof(stack) ? stack[depth - 1] : 0;
	return 0;
}

/*
 * cJSON reports a string that fails to start (a key that is not a string)
 * or to end (no closing quote) one byte past its start.  Return the offset
 * to show the user for cJSON's offset off.
 */
static size_t
jsonc_error_offset(const char *s, size_t len, size_t off)
{
	size_t	c;
	char	top, last;

	if (off == 0 || off > len)
		return off;
	c = off - 1;
	if (jsonc_context(s, len, c, &top, &last) != 0)
		return off;
	if (s[c] == '"')
		return jsonc_string_end(s, len, c) == len ? c : off;
	if (jsonc_skip_space(s, len, c) == c && top == '{' &&
	    (last == '{' || last == ','))
		return c;
	return off;
}

/* Return a short, printable excerpt of text from off to the end of line. */
static char *
jsonc_excerpt(const char *text, size_t len, size_t off)
{
	struct buf	b = BUF_INIT;
	size_t		i;
	unsigned char	c;

	for (i = off; i < len && i - off < JSONC_EXCERPT_MAX; i++) {
		c = (unsigned char)text[i];
		if (c == '\n' || c == '\r')
			break;
		if (c < 0x20 || c >= 0x7f || c == '\\' || c == '\'')
			buf_appendf(&b, "\\x%02x", c);
		else
			buf_append(&b, &c, 1);
	}
	return buf_detach(&b);
}

/* Report a cJSON syntax error at offset off (len: end of input). */
static int
jsonc_syntax_error(const char *name, const char *text, size_t len,
    size_t off, char **cause)
{
	char	*near;
	int	 r;

	if (off >= len)
		return jsonc_fail_at(cause, name, text, len,
		    "unexpected end of input");
	near = jsonc_excerpt(text, len, off);
	if (*near == '\0')
		r = jsonc_fail_at(cause, name, text, off,
		    "syntax error at end of line");
	else
		r = jsonc_fail_at(cause, name, text, off,
		    "syntax error near '%s'", near);
	free(near);
	return r;
}

/* Check text before parsing: not empty, not too large, no NUL inside. */
static int
jsonc_check(const char *name, const char *text, size_t len, char **cause)
{
	const char	*nul;

	if (len == 0)
		return claw_fail(cause, CLAW_ERR_PARSE, "%s: empty file",
		    name);
	if (len > JSONC_MAX_SIZE)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "%s: larger than %d MiB", name, JSONC_MAX_SIZE >> 20);
	if ((nul = memchr(text, '\0', len)) != NULL)
		return jsonc_fail_at(cause, name, text, (size_t)(nul - text),
		    "NUL byte in input");
	return 0;
}

/*
 * Parse the comment-free copy s of text.  s[len] is an extra space: cJSON
 * reports running out of input at the last byte, which is then that space
 * rather than the user's last character.
 */
static int
jsonc_parse_stripped(const char *name, const char *text, const char *s,
    size_t len, cJSON **out, char **cause)
{
	cJSON		*root;
	const char	*end = NULL;
	size_t		 off;

	if (jsonc_skip_space(s, len, 0) == len)
		return claw_fail(cause, CLAW_ERR_PARSE, "%s: no JSON value",
		    name);
	root = cJSON_ParseWithLengthOpts(s, len + 1, &end, 0);
	if (root == NULL) {
		if (end == NULL && (end = cJSON_GetErrorPtr()) == NULL)
			end = s + len;
		off = jsonc_error_offset(s, len, (size_t)(end - s));
		return jsonc_syntax_error(name, text, len, off, cause);
	}
	off = jsonc_skip_space(s, len, (size_t)(end - s));
	if (off < len) {
		cJSON_Delete(root);
		return jsonc_fail_at(cause, name, text, off,
		    "unexpected content after the JSON value");
	}
	*out = root;
	return 0;
}

/* Parse JSON with comments; see jsonc.h. */
int
jsonc_parse(const char *name, const char *text, size_t len, cJSON **out,
    char **cause)
{
	char	*s;
	size_t	 bad;
	int	 r;

	if ((r = jsonc_check(name, text, len, cause)) != 0)
		return r;
	s = xmalloc(len + 2);
	memcpy(s, text, len);
	s[len] = ' ';
	s[len + 1] = '\0';
	if (jsonc_strip(s, len, &bad) != 0)
		r = jsonc_fail_at(cause, name, text, bad,
		    "unterminated comment");
	else
		r = jsonc_parse_stripped(name, text, s, len, out, cause);
	freezero(s, len + 2);
	return r;
}

/* Open path for reading and check it is a regular file. */
static int
jsonc_open(const char *path, int *fdp, char **cause)
{
	struct stat	sb;
	int		fd, err;

	/* O_NONBLOCK: a FIFO must not hang open; regular files ignore it. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1) {
		if (errno == ENOENT)
			return claw_fail(cause, CLAW_ERR_NOTFOUND,
			    "%s: no such file", path);
		err = errno;
		return claw_fail(cause, claw_err_from_errno(err), "%s: %s",
		    path, strerror(err));
	}
	if (fstat(fd, &sb) == -1) {
		err = errno;
		close(fd);
		return claw_fail(cause, claw_err_from_errno(err), "%s: %s",
		    path, strerror(err));
	}
	if (!S_ISREG(sb.st_mode)) {
		close(fd);
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "%s: not a regular file", path);
	}
	*fdp = fd;
	return 0;
}

/* Grow *bufp (holding len bytes, *capp allocated) without leaving copies. */
static void
jsonc_grow(char **bufp, size_t *capp, size_t len)
{
	size_t	 cap = *capp * 2;
	char	*n;

	if (cap > JSONC_MAX_SIZE + 1)
		cap = JSONC_MAX_SIZE + 1;
	n = xmalloc(cap);
	memcpy(n, *bufp, len);
	freezero(*bufp, *capp);
	*bufp = n;
	*capp = cap;
}

/*
 * Read all of fd into an allocated buffer, at most JSONC_MAX_SIZE bytes.
 * On success sets *bufp, *capp (its size, for freezero) and *lenp.
 */
static int
jsonc_read(int fd, const char *path, char **bufp, size_t *capp,
    size_t *lenp, char **cause)
{
	size_t	 cap = 8192, len = 0;
	char	*buf = xmalloc(cap);
	ssize_t	 n;
	int	 err;

	for (;;) {
		if (len == cap && cap <= JSONC_MAX_SIZE)
			jsonc_grow(&buf, &cap, len);
		if (len > JSONC_MAX_SIZE) {
			freezero(buf, cap);
			return claw_fail(cause, CLAW_ERR_PARSE,
			    "%s: larger than %d MiB", path,
			    JSONC_MAX_SIZE >> 20);
		}
		if ((n = read(fd, buf + len, cap - len)) == 0)
			break;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			err = errno;
			freezero(buf, cap);
			return claw_fail(cause, claw_err_from_errno(err),
			    "%s: %s", path, strerror(err));
		}
		len += (size_t)n;
	}
	*bufp = buf;
	*capp = cap;
	*lenp = len;
	return 0;
}

/* Read and parse a JSON-with-comments file; see jsonc.h. */
int
jsonc_load_file(const char *path, cJSON **out, char **cause)
{
	char	*buf = NULL;
	size_t	 cap = 0, len = 0;
	int	 fd = -1, r;

	if ((r = jsonc_open(path, &fd, cause)) != 0)
		return r;
	r = jsonc_read(fd, path, &buf, &cap, &len, cause);
	close(fd);
	if (r != 0)
		return r;
	r = jsonc_parse(path, buf, len, out, cause);
	freezero(buf, cap);
	return r;
}

/* Route cJSON's allocations through xmalloc; see jsonc.h. */
void
jsonc_hooks(void)
{
	cJSON_Hooks	h;

	h.malloc_fn = xmalloc;
	h.free_fn = free;
	cJSON_InitHooks(&h);
}

/* Order object members by name, for qsort. */
static int
jsonc_cmp_member(const void *a, const void *b)
{
	const cJSON	*const *ma = a, *const *mb = b;

	return strcmp((*ma)->string, (*mb)->string);
}

/* See jsonc.h; sorted, so n log n. */
const char *
jsonc_dup_member(const cJSON *obj)
{
	const cJSON	**v, *m;
	const char	 *dup = NULL;
	size_t		  i, n = 0;

	for (m = obj->child; m != NULL; m = m->next)
		n++;
	if (n < 2)
		return NULL;
	v = xreallocarray(NULL, n, sizeof(*v));
	for (i = 0, m = obj->child; m != NULL; m = m->next)
		v[i++] = m;
	qsort(v, n, sizeof(*v), jsonc_cmp_member);
	for (i = 1; i < n && dup == NULL; i++)
		if (strcmp(v[i - 1]->string, v[i]->string) == 0)
			dup = v[i]->string;
	free(v);
	return dup;
}

/* The path of a member, escaped; see jsonc.h. */
char *
jsonc_key_path(const char *prefix, const char *name)
{
	struct buf		 b = BUF_INIT;
	const unsigned char	*p;

	if (prefix != NULL) {
		buf_append_str(&b, prefix);
		buf_append(&b, ".", 1);
	}
	for (p = (const unsigned char *)name; *p != '\0'; p++) {
		if (*p < 0x20 || *p >= 0x7f || *p == '\\' || *p == '\'')
			buf_appendf(&b, "\\x%02x", *p);
		else
			buf_append(&b, p, 1);
	}
	return buf_detach(&b);
}
