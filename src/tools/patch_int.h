/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internals shared by patch.c (agent format, common parsing),
 * patch_unified.c (unified diffs) and patch_apply.c.  Not a public API.
 */
#ifndef CLAW_PATCH_INT_H
#define CLAW_PATCH_INT_H

#include <stddef.h>

#include "patch.h"

#define PATCH_MAX_NUMBER	100000000	/* line numbers and counts */
#define PATCH_SHOW_NAME		200		/* path bytes in messages */

enum patch_format {
	PATCH_FMT_UNIFIED,
	PATCH_FMT_AGENT
};

/* One line of a hunk, pointing into the patch's copy of the text. */
struct patch_line {
	const char	*p;		/* bytes, without the newline */
	size_t		 len;
	char		 op;		/* ' ', '-' or '+' */
	char		 nl;		/* followed by a newline */
};

/* A unified hunk or an agent chunk: body lines[first..first + n). */
struct patch_hunk {
	size_t		 first;
	size_t		 n;
	size_t		 old_start, old_count;	/* unified header */
	size_t		 new_start, new_count;
	const char	*anchor;	/* agent "@@ TEXT", else NULL */
	size_t		 anchor_len;
	int		 at_eof;	/* agent "*** End of File" */
};

/* The private part of a struct patch_file. */
struct patch_body {
	enum patch_format	 format;
	size_t			 line;		/* patch line of its header */
	struct patch_line	*lines;
	size_t			 nlines, caplines;
	struct patch_hunk	*hunks;
	size_t			 nhunks, caphunks;
};

/* One line of the text: p[0..len), nl if a newline follows. */
struct patch_tline {
	const char	*p;
	size_t		 len;
	int		 nl;
	size_t		 next;		/* offset of the following line */
};

/* Parser state: a cursor over the text and the patch being built. */
struct patch_parser {
	const char	*text;
	size_t		 len;
	size_t		 off;		/* start of the current line */
	size_t		 lineno;	/* its number, from 1 */
	struct patch	*p;
	size_t		 cap;		/* slots allocated in p->files */
	char		**cause;
};

int			 patch_line_at(const struct patch_parser *, size_t,
			    struct patch_tline *);
int			 patch_peek(const struct patch_parser *,
			    struct patch_tline *);
void			 patch_skip(struct patch_parser *,
			    const struct patch_tline *);
int			 patch_starts(const struct patch_tline *,
			    const char *);
struct patch_file	*patch_add_file(struct patch_parser *,
			    enum patch_kind, enum patch_format);
void			 patch_add_line(struct patch_body *, char,
			    const char *, size_t);
struct patch_hunk	*patch_add_hunk(struct patch_body *);
int			 patch_unified_parse(struct patch_parser *);
char			*patch_show(const char *, size_t, size_t);

#endif /* CLAW_PATCH_INT_H */
