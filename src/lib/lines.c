/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A bounded reader of lines and words; see lines.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "error.h"
#include "lines.h"
#include "num.h"

/* Start a cursor; see lines.h. */
void
lines_init(struct lines *l, const char *data, size_t len)
{
	if (data == NULL) {
		data = "";
		len = 0;
	}
	l->p = data;
	l->end = data + len;
}

/* Return the bytes not taken yet; see lines.h. */
size_t
lines_left(const struct lines *l)
{
	return (size_t)(l->end - l->p);
}

/* Take a line, the last one without its newline too when loose. */
static int
lines_take(struct lines *l, size_t max, int loose, const char **line,
    size_t *len)
{
	size_t		 left = lines_left(l);
	const char	*nl;

	if (left == 0)
		return CLAW_ERR_NOTFOUND;
	nl = memchr(l->p, '\n', left > max ? max + 1 : left);
	if (nl == NULL && left > max)
		return CLAW_ERR_RANGE;
	if (nl == NULL && !loose)
		return CLAW_ERR_PARSE;
	*line = l->p;
	*len = nl != NULL ? (size_t)(nl - l->p) : left;
	l->p = nl != NULL ? nl + 1 : l->end;
	return 0;
}

/* Take the next newline-terminated line; see lines.h. */
int
lines_next(struct lines *l, size_t max, const char **line, size_t *len)
{
	return lines_take(l, max, 0, line, len);
}

/* Take the next line, which may lack its newline at the end; see lines.h. */
int
lines_next_loose(struct lines *l, size_t max, const char **line,
    size_t *len)
{
	return lines_take(l, max, 1, line, len);
}

/* Take n raw bytes; see lines.h. */
int
lines_bytes(struct lines *l, size_t n, const char **p)
{
	if (n > lines_left(l))
		return CLAW_ERR_RANGE;
	*p = l->p;
	l->p += n;
	return 0;
}

/* Take the next space-separated word; see lines.h. */
int
lines_word(struct lines *l, const char **word, size_t *len)
{
	const char	*sp;
	size_t		 n;

	sp = memchr(l->p, ' ', lines_left(l));
	n = sp != NULL ? (size_t)(sp - l->p) : lines_left(l);
	if (n == 0)
		return CLAW_ERR_PARSE;
	*word = l->p;
	*len = n;
	l->p += n;
	if (sp != NULL && sp + 1 < l->end)
		l->p++;
	return 0;
}

/* Take the next word if it is word; see lines.h. */
int
lines_expect(struct lines *l, const char *word)
{
	struct lines	 at = *l;
	const char	*w;
	size_t		 n;

	if (lines_word(&at, &w, &n) != 0 || n != strlen(word) ||
	    memcmp(w, word, n) != 0)
		return CLAW_ERR_PARSE;
	*l = at;
	return 0;
}

/* Take the next word as a number; see lines.h. */
int
lines_number(struct lines *l, int flags, uint64_t max, uint64_t *v)
{
	struct lines	 at = *l;
	const char	*w;
	size_t		 n;

	if (lines_word(&at, &w, &n) != 0 || num_parse(w, n, flags, max,
	    v) != 0)
		return CLAW_ERR_PARSE;
	*l = at;
	return 0;
}
