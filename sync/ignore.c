/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gitignore(5) pattern sets: each line is compiled once into a pattern,
 * patterns are kept per directory and kind (the user's .clawsshignore,
 * .gitignore) of the file they came from, and a path is judged by the
 * push or the pull rule (see ignore.h).  The wildcard matcher is in
 * ignore_wild.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "error.h"
#include "ignore.h"
#include "ignore_git.h"
#include "ignore_int.h"
#include "log.h"
#include "pathguard.h"
#include "strv.h"
#include "xmalloc.h"

#define IG_NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

#define IG_NEGATE	0x1	/* '!': a match re-includes */
#define IG_DIRONLY	0x2	/* trailing '/': directories only */
#define IG_BASENAME	0x4	/* no '/': matches the last component */

#define IG_FNV_BASIS	2166136261u
#define IG_FNV_PRIME	16777619u

/* How a compiled pattern is compared. */
enum ig_kind {
	IG_LITERAL,		/* text, escapes removed, compared whole */
	IG_SUFFIX,		/* a '*' then text: the name ends with text */
	IG_GLOB			/* text is a wildcard pattern */
};

/* One compiled pattern. */
struct ig_pat {
	char		*text;		/* see kind; NUL-terminated */
	size_t		 len;		/* strlen(text) */
	size_t		 prefix;	/* IG_GLOB: leading literal bytes */
	enum ig_kind	 kind;
	int		 flags;		/* IG_NEGATE, IG_DIRONLY, IG_BASENAME */
	char		*line;		/* as written, for ignore_describe */
};

/* Patterns in precedence order: a later match wins. */
struct ig_list {
	struct ig_pat	*pats;
	size_t		 n;
	size_t		 cap;
};

/* The patterns of one directory's ignore files. */
struct ig_scope {
	char		*dir;		/* relative to the root; "" for it */
	size_t		 dirlen;
	uint32_t	 hash;		/* ig_hash of dir */
	struct ig_scope	*parent;	/* nearest loaded ancestor, or NULL */
	struct ig_list	 user;		/* its .clawsshignore */
	struct ig_list	 git;		/* its .gitignore */
};

/* Which patterns a judgement asks. */
enum ig_which {
	IG_USER,		/* defaults, sync.exclude, .clawsshignore */
	IG_GIT			/* .gitignore */
};

struct ignore {
	struct ig_list	  global;	/* defaults, then configuration */
	size_t		  ndefaults;	/* of global, the built-in ones */
	int		  push_git;	/* .git judged by patterns alone */
	int		  user_only;	/* .gitignore never applies */
	struct buf	  tracked_buf;	/* git ls-files -z */
	char		**tracked;	/* sorted, pointers into it */
	size_t		  ntracked;
	char		 *tracked_why;	/* why there is no list, or NULL */
	int		  tracked_asked; /* git was asked (once a set) */
	ignore_keep_fn	  keep;		/* see ignore_set_keep */
	void		 *keep_arg;
	struct ig_scope	**tab;		/* open addressing by hash */
	size_t		  tabsize;	/* 0 or a power of two */
	size_t		  nscopes;
};

/*
 * The built-in defaults, lowest precedence of all; see ignore.h.  .git is
 * not among them: ignore_match excludes it before any pattern is asked.
 */
static const char *const ig_defaults[] = {
	PATHGUARD_TMP_PREFIX "*"
};

/* Return the FNV-1a hash of the len bytes at s. */
static uint32_t
ig_hash(const char *s, size_t len)
{
	uint32_t	h = IG_FNV_BASIS;

	while (len-- > 0)
		h = (h ^ (unsigned char)*s++) * IG_FNV_PRIME;
	return h;
}

/*
 * If p has no wildcard, set *out to it with escapes removed (allocated) and
 * return 1; else return 0.
 */
static int
ig_literal(const char *p, char **out)
{
	char	*s, *d;

	if (strpbrk(p, "*?[\\") == NULL) {
		*out = xstrdup(p);
		return 1;
	}
	d = s = xmalloc(strlen(p) + 1);
	for (; *p != '\0'; p++) {
		if (*p == '*' || *p == '?' || *p == '[') {
			free(s);
			return 0;
		}
		if (*p == '\\')
			p++;
		*d++ = *p;
	}
	*d = '\0';
	*out = s;
	return 1;
}

/* Compile the checked pattern p (no '!', leading or trailing '/'). */
static void
ig_compile(const char *p, int flags, struct ig_pat *pat)
{
	memset(pat, 0, sizeof(*pat));
	pat->flags = flags;
	if (ig_literal(p, &pat->text))
		pat->kind = IG_LITERAL;
	else if ((flags & IG_BASENAME) && *p == '*' &&
	    ig_literal(p + 1, &pat->text))
		pat->kind = IG_SUFFIX;
	else {
		pat->kind = IG_GLOB;
		pat->text = xstrdup(p);
		while (pat->text[pat->prefix] != '\0' &&
		    !ignore_wild_special(pat->text[pat->prefix]))
			pat->prefix++;
	}
	pat->len = strlen(pat->text);
}

/* Drop trailing spaces from s unless escaped with '\', as git does. */
static void
ig_trim(char *s)
{
	char	*space = NULL;

	for (; *s != '\0'; s++) {
		if (*s == ' ') {
			if (space == NULL)
				space = s;
			continue;
		}
		space = NULL;
		if (*s == '\\' && *++s == '\0')
			return;
	}
	if (space != NULL)
		*space = '\0';
}

/*
 * Parse line (modified) into *pat.  Returns 1 if it holds a pattern, 0 if
 * it is blank or a comment, CLAW_ERR_PARSE with *why set if the pattern is
 * malformed.
 */
static int
ig_parse(char *line, struct ig_pat *pat, const char **why)
{
	char	*p = line;
	size_t	 len;
	int	 flags = 0;

	if (*p == '#')
		return 0;
	ig_trim(p);
	if (*p == '!') {
		flags |= IG_NEGATE;
		p++;
	}
	len = strlen(p);
	if (len > 0 && p[len - 1] == '/') {
		flags |= IG_DIRONLY;
		p[--len] = '\0';
	}
	if (p[0] == '*' && p[1] == '*' && p[2] == '/' &&
	    strchr(p + 3, '/') == NULL)
		p += 3;		/* the same as a name at any depth */
	if (strchr(p, '/') == NULL)
		flags |= IG_BASENAME;
	else if (*p == '/')
		p++;
	if (*p == '\0')
		return 0;
	if ((*why = ignore_wild_check(p)) != NULL)
		return CLAW_ERR_PARSE;
	ig_compile(p, flags, pat);
	return 1;
}

/*
 * Parse line (modified) and append its pattern, if any, to list: 0, or
 * CLAW_ERR_PARSE with *why set.
 */
static int
ig_list_add(struct ig_list *list, char *line, const char **why)
{
	struct ig_pat	 pat;
	char		*orig = xstrdup(line);
	int		 r;

	if ((r = ig_parse(line, &pat, why)) <= 0) {
		free(orig);
		return r;
	}
	pat.line = orig;
	if (list->n == list->cap) {
		list->cap = list->cap == 0 ? 16 : list->cap * 2;
		list->pats = xreallocarray(list->pats, list->cap,
		    sizeof(*list->pats));
	}
	list->pats[list->n++] = pat;
	return 0;
}

/* Append the pattern of the one line s to list (see ig_parse). */
static int
ig_list_add_string(struct ig_list *list, const char *s, const char **why)
{
	char	*line = xstrdup(s);
	int	 r;

	r = ig_list_add(list, line, why);
	free(line);
	return r;
}

/* Free the patterns of list and empty it. */
static void
ig_list_clear(struct ig_list *list)
{
	size_t	i;

	for (i = 0; i < list->n; i++) {
		free(list->pats[i].text);
		free(list->pats[i].line);
	}
	free(list->pats);
	memset(list, 0, sizeof(*list));
}

/* Append the patterns of file text (len bytes, modified), from path. */
static void
ig_list_add_text(struct ig_list *list, char *text, size_t len,
    const char *path)
{
	char		*line = text, *end = text + len, *nl;
	const char	*why;
	size_t		 lineno = 0;

	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		line += 3;
	for (; line < end; line = nl + 1) {
		lineno++;
		if ((nl = memchr(line, '\n', (size_t)(end - line))) == NULL)
			nl = end;
		*nl = '\0';
		if (nl > line && nl[-1] == '\r')
			nl[-1] = '\0';
		if (ig_list_add(list, line, &why) < 0)
			log_warn("%s:%zu: %s; the pattern never matches",
			    path, lineno, why);
	}
}

/* Find the scope of the len bytes at dir (hash h), or NULL. */
static struct ig_scope *
ig_scope_find(const struct ignore *ig, const char *dir, size_t len,
    uint32_t h)
{
	struct ig_scope	*sc;
	size_t		 i, mask;

	if (ig->tabsize == 0)
		return NULL;
	mask = ig->tabsize - 1;
	for (i = h & mask; (sc = ig->tab[i]) != NULL; i = (i + 1) & mask) {
		if (sc->hash == h && sc->dirlen == len &&
		    memcmp(sc->dir, dir, len) == 0)
			return sc;
	}
	return NULL;
}

/* Put sc into the table, which has a free slot. */
static void
ig_tab_put(struct ignore *ig, struct ig_scope *sc)
{
	size_t	i, mask = ig->tabsize - 1;

	for (i = sc->hash & mask; ig->tab[i] != NULL; i = (i + 1) & mask)
		;
	ig->tab[i] = sc;
}

/* Grow the table if adding a scope would fill it over half. */
static void
ig_tab_grow(struct ignore *ig)
{
	struct ig_scope	**old = ig->tab;
	size_t		  i, oldsize = ig->tabsize;

	if ((ig->nscopes + 1) * 2 <= ig->tabsize)
		return;
	ig->tabsize = oldsize == 0 ? 16 : oldsize * 2;
	ig->tab = xcalloc(ig->tabsize, sizeof(*ig->tab));
	for (i = 0; i < oldsize; i++) {
		if (old[i] != NULL)
			ig_tab_put(ig, old[i]);
	}
	free(old);
}

/* Return the nearest loaded scope above the len bytes at dir, or NULL. */
static struct ig_scope *
ig_scope_parent(const struct ignore *ig, const char *dir, size_t len)
{
	struct ig_scope	*sc;

	while (len > 0) {
		while (--len > 0 && dir[len] != '/')
			;
		if ((sc = ig_scope_find(ig, dir, len, ig_hash(dir, len))) !=
		    NULL)
			return sc;
	}
	return NULL;
}

/* Return whether scope up is a proper ancestor of scope sc. */
static int
ig_scope_above(const struct ig_scope *up, const struct ig_scope *sc)
{
	if (up->dirlen == 0)
		return sc->dirlen > 0;
	return sc->dirlen > up->dirlen && sc->dir[up->dirlen] == '/' &&
	    memcmp(sc->dir, up->dir, up->dirlen) == 0;
}

/*
 * Add an empty scope for the len bytes at dir.  Scopes loaded earlier
 * below it (out of descending order) take it as their parent if it is
 * nearer than the one they had.
 */
static struct ig_scope *
ig_scope_new(struct ignore *ig, const char *dir, size_t len)
{
	struct ig_scope	*sc, *t;
	size_t		 i;

	sc = xcalloc(1, sizeof(*sc));
	sc->dir = xstrndup(dir, len);
	sc->dirlen = len;
	sc->hash = ig_hash(dir, len);
	sc->parent = ig_scope_parent(ig, dir, len);
	for (i = 0; i < ig->tabsize; i++) {
		if ((t = ig->tab[i]) != NULL && ig_scope_above(sc, t) &&
		    (t->parent == NULL || t->parent->dirlen < len))
			t->parent = sc;
	}
	ig_tab_grow(ig);
	ig_tab_put(ig, sc);
	ig->nscopes++;
	return sc;
}

/* Read all of fd (a regular file) into b, refusing over IGNORE_FILE_MAX. */
static int
ig_read_fd(int fd, const char *path, struct buf *b, char **cause)
{
	char	chunk[8192];
	ssize_t	n;

	for (;;) {
		if ((n = read(fd, chunk, sizeof(chunk))) == 0)
			return 0;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return claw_fail_errno(cause, path, "cannot read");
		if (b->len + (size_t)n > IGNORE_FILE_MAX)
			return claw_fail(cause, CLAW_ERR_PARSE,
			    "%s: larger than %d MiB", path,
			    IGNORE_FILE_MAX >> 20);
		buf_append(b, chunk, (size_t)n);
	}
}

/*
 * Read file name in dirfd (path names it in messages) into b.  A missing
 * file, a symbolic link or anything but a regular file leaves b empty.
 */
static int
ig_read(int dirfd, const char *name, const char *path, struct buf *b,
    char **cause)
{
	struct stat	sb;
	int		fd, r = 0;

	fd = openat(dirfd, name, O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC);
	if (fd == -1 && errno == ENOENT)
		return 0;
	if (fd == -1 && errno == ELOOP) {
		log_debug("%s: symbolic link, skipped", path);
		return 0;
	}
	if (fd == -1)
		return claw_fail_errno(cause, path, "cannot open");
	if (fstat(fd, &sb) == -1)
		r = claw_fail_errno(cause, path, "cannot stat");
	else if (!S_ISREG(sb.st_mode))
		log_debug("%s: not a regular file, skipped", path);
	else if (sb.st_size > IGNORE_FILE_MAX)
		r = claw_fail(cause, CLAW_ERR_PARSE, "%s: larger than %d MiB",
		    path, IGNORE_FILE_MAX >> 20);
	else
		r = ig_read_fd(fd, path, b, cause);
	close(fd);
	return r;
}

/* Append the patterns of ignore file name in dirfd (reldir) to list. */
static int
ig_load_file(int dirfd, const char *reldir, const char *name,
    struct ig_list *list, char **cause)
{
	struct buf	 b = BUF_INIT;
	char		*path;
	int		 r;

	if (*reldir == '\0')
		path = xstrdup(name);
	else
		path = xasprintf("%s/%s", reldir, name);
	if ((r = ig_read(dirfd, name, path, &b, cause)) == 0 && b.len > 0)
		ig_list_add_text(list, b.data, b.len, path);
	buf_free(&b);
	free(path);
	return r;
}

/* Make a set of the defaults and configuration patterns; see ignore.h. */
int
ignore_new(const char *const *extra, size_t nextra, struct ignore **out,
    char **cause)
{
	struct ignore	*ig;
	const char	*why;
	size_t		 i;
	int		 r;

	ig = xcalloc(1, sizeof(*ig));
	for (i = 0; i < IG_NITEMS(ig_defaults); i++)
		(void)ig_list_add_string(&ig->global, ig_defaults[i], &why);
	ig->ndefaults = ig->global.n;
	for (i = 0; i < nextra; i++) {
		if (ig_list_add_string(&ig->global, extra[i], &why) < 0) {
			r = claw_fail(cause, CLAW_ERR_PARSE,
			    "sync.exclude: bad pattern '%s': %s", extra[i],
			    why);
			ignore_free(ig);
			return r;
		}
	}
	*out = ig;
	return 0;
}

/*
 * Ask git, when loading the root the first time, which files it tracks
 * (a .gitignore applies to the others only); a set lives for one
 * command, so later scans and rescans reuse the answer.  No checkout, no
 * git: every file counts as untracked; -v says why.
 */
static void
ig_load_tracked(struct ignore *ig, int rootfd)
{
	char	*why = NULL;
	size_t	 i, n = 0;

	buf_free(&ig->tracked_buf);
	free(ig->tracked);
	free(ig->tracked_why);
	ig->tracked = NULL;
	ig->ntracked = 0;
	ig->tracked_why = NULL;
	if (ignore_git_tracked(rootfd, &ig->tracked_buf, &why) != 0) {
		log_info("git: %s: a .gitignore applies to every file", why);
		ig->tracked_why = why;
		return;
	}
	for (i = 0; i < ig->tracked_buf.len; i++)
		n += ig->tracked_buf.data[i] == '\0';
	ig->tracked = xcalloc(n + 1, sizeof(*ig->tracked));
	for (i = 0; i < ig->tracked_buf.len;
	    i += strlen(ig->tracked_buf.data + i) + 1)
		ig->tracked[ig->ntracked++] = ig->tracked_buf.data + i;
	strv_uniq(ig->tracked, &ig->ntracked, 0);
}

/* Load the ignore files of directory reldir; see ignore.h. */
int
ignore_load_dir(struct ignore *ig, int dirfd, const char *reldir,
    char **cause)
{
	struct ig_list	 user = { NULL, 0, 0 }, git = { NULL, 0, 0 };
	struct ig_scope	*sc;
	size_t		 len = strlen(reldir);
	int		 r;

	if (*reldir == '/' || (len > 0 && reldir[len - 1] == '/'))
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "%s: not a relative directory", reldir);
	if ((r = ig_load_file(dirfd, reldir, ".gitignore", &git,
	    cause)) != 0 || (r = ig_load_file(dirfd, reldir,
	    ".clawsshignore", &user, cause)) != 0) {
		ig_list_clear(&user);
		ig_list_clear(&git);
		return r;
	}
	if (len == 0 && !ig->user_only && !ig->tracked_asked) {
		ig->tracked_asked = 1;
		ig_load_tracked(ig, dirfd);
	}
	sc = ig_scope_find(ig, reldir, len, ig_hash(reldir, len));
	if (sc == NULL && user.n == 0 && git.n == 0)
		return 0;
	if (sc == NULL)
		sc = ig_scope_new(ig, reldir, len);
	ig_list_clear(&sc->user);
	ig_list_clear(&sc->git);
	sc->user = user;
	sc->git = git;
	return 0;
}

/*
 * Return whether pat matches a path: rel (rellen bytes) relative to the
 * pattern's directory, name (namelen bytes) its last component.
 */
static int
ig_pat_match(const struct ig_pat *pat, const char *rel, size_t rellen,
    const char *name, size_t namelen, int is_dir)
{
	const char	*s = rel;
	size_t		 n = rellen;

	if ((pat->flags & IG_DIRONLY) && !is_dir)
		return 0;
	if (pat->flags & IG_BASENAME) {
		s = name;
		n = namelen;
	}
	/* Compare one byte before calling memcmp: most patterns fail there. */
	if (pat->kind == IG_LITERAL)
		return n == pat->len && *s == *pat->text &&
		    memcmp(s, pat->text, n) == 0;
	if (pat->kind == IG_SUFFIX)
		return n >= pat->len && (pat->len == 0 ||
		    (s[n - 1] == pat->text[pat->len - 1] &&
		    memcmp(s + n - pat->len, pat->text, pat->len) == 0));
	if (n < pat->prefix || (pat->prefix > 0 && (*s != *pat->text ||
	    memcmp(s, pat->text, pat->prefix) != 0)))
		return 0;
	/* Like git, a "**" right after the literal prefix counts as leading. */
	return ignore_wild_match(pat->text + pat->prefix, s + pat->prefix,
	    s + n);
}

/* Return 1 (excluded), 0 (re-included) or -1 (no match) by list's last. */
static int
ig_list_judge(const struct ig_list *list, const char *rel, size_t rellen,
    const char *name, size_t namelen, int is_dir)
{
	const struct ig_pat	*pat;
	size_t			 i;

	for (i = list->n; i-- > 0;) {
		pat = &list->pats[i];
		if (ig_pat_match(pat, rel, rellen, name, namelen, is_dir))
			return (pat->flags & IG_NEGATE) ? 0 : 1;
	}
	return -1;
}

/*
 * Judge path (len bytes; its last component at name) with which patterns
 * of the scopes from sc up to the root, then (IG_USER) the global ones.
 * Returns as ig_list_judge.
 */
static int
ig_judge(const struct ignore *ig, const struct ig_scope *sc,
    const char *path, size_t len, const char *name, int is_dir,
    enum ig_which which)
{
	size_t	namelen = (size_t)(path + len - name), off;
	int	r;

	for (; sc != NULL; sc = sc->parent) {
		off = sc->dirlen == 0 ? 0 : sc->dirlen + 1;
		r = ig_list_judge(which == IG_USER ? &sc->user : &sc->git,
		    path + off, len - off, name, namelen, is_dir);
		if (r != -1)
			return r;
	}
	if (which == IG_GIT)
		return -1;
	return ig_list_judge(&ig->global, path, len, name, namelen, is_dir);
}

/*
 * Return whether the len bytes at path name a file git tracks or (is_dir)
 * a directory holding one, or one the keep callback keeps: a .gitignore
 * does not apply to them.
 */
static int
ig_spared(const struct ignore *ig, const char *path, size_t len, int is_dir)
{
	char	key[PATHGUARD_PATH_MAX + 1];

	if (len > PATHGUARD_PATH_MAX)
		return 0;
	memcpy(key, path, len);
	key[len] = '\0';
	if (strv_has(ig->tracked, ig->ntracked, key) || (is_dir &&
	    strv_has_descendant(ig->tracked, ig->ntracked, key)))
		return 1;
	return ig->keep != NULL && ig->keep(ig->keep_arg, key, is_dir);
}

/*
 * The verdict on one path (len bytes) whose ancestors are not excluded:
 * 1 if out.  *gitout says whether a .gitignore excluded an ancestor (a
 * file cannot be re-included below an excluded directory); it is
 * updated for the path's own entries.  See ignore.h for the rules.
 */
static int
ig_verdict(const struct ignore *ig, const struct ig_scope *sc,
    const char *path, size_t len, const char *name, int is_dir, int pull,
    int *gitout)
{
	int	u, g;

	if ((u = ig_judge(ig, sc, path, len, name, is_dir, IG_USER)) == 1)
		return 1;
	if (u == 0) {		/* a user's '!' re-includes, .gitignore or not */
		*gitout = 0;
		return 0;
	}
	if (pull || ig->user_only)
		return 0;
	g = ig_judge(ig, sc, path, len, name, is_dir, IG_GIT);
	*gitout = *gitout || g == 1;
	return *gitout && !ig_spared(ig, path, len, is_dir);
}

/* Judge relpath and, first, each of its ancestors, by the push or pull rule. */
static int
ig_match(const struct ignore *ig, const char *relpath, int is_dir, int pull)
{
	const struct ig_scope	*sc, *found;
	const char		*p, *name = relpath;
	size_t			 len;
	uint32_t		 h = IG_FNV_BASIS;
	int			 gitout = 0;

	if (*relpath == '\0')
		return 0;
	if (!ig->push_git && pathguard_name_protected(relpath))
		return 1;
	sc = ig_scope_find(ig, relpath, 0, h);
	for (p = relpath; *p != '\0'; p++) {
		if (*p == '/') {
			len = (size_t)(p - relpath);
			if (ig_verdict(ig, sc, relpath, len, name, 1, pull,
			    &gitout))
				return 1;
			if ((found = ig_scope_find(ig, relpath, len, h)) !=
			    NULL)
				sc = found;
			name = p + 1;
		}
		h = (h ^ (unsigned char)*p) * IG_FNV_PRIME;
	}
	return ig_verdict(ig, sc, relpath, (size_t)(p - relpath), name,
	    is_dir, pull, &gitout);
}

/* The push rule; see ignore.h. */
int
ignore_match(const struct ignore *ig, const char *relpath, int is_dir)
{
	return ig_match(ig, relpath, is_dir, 0);
}

/* The pull rule; see ignore.h. */
int
ignore_match_pull(const struct ignore *ig, const char *relpath, int is_dir)
{
	return ig_match(ig, relpath, is_dir, 1);
}

/* Never let a .gitignore decide if on; see ignore.h. */
void
ignore_set_user_only(struct ignore *ig, int on)
{
	ig->user_only = on != 0;
}

/* Spare paths keep names from a .gitignore; see ignore.h. */
void
ignore_set_keep(struct ignore *ig, ignore_keep_fn keep, void *arg)
{
	ig->keep = keep;
	ig->keep_arg = arg;
}

/* Let patterns alone judge .git paths if on; see ignore.h. */
void
ignore_set_push_git(struct ignore *ig, int on)
{
	ig->push_git = on != 0;
}

/* Free ig and everything it holds; NULL does nothing. */
void
ignore_free(struct ignore *ig)
{
	size_t	i;

	if (ig == NULL)
		return;
	ig_list_clear(&ig->global);
	for (i = 0; i < ig->tabsize; i++) {
		if (ig->tab[i] == NULL)
			continue;
		ig_list_clear(&ig->tab[i]->user);
		ig_list_clear(&ig->tab[i]->git);
		free(ig->tab[i]->dir);
		free(ig->tab[i]);
	}
	free(ig->tab);
	buf_free(&ig->tracked_buf);
	free(ig->tracked);
	free(ig->tracked_why);
	free(ig);
}

/* The manifest_skip_cb over an ignore set; see ignore.h. */
int
ignore_skip_cb(void *arg, int dirfd, const char *reldir, const char *relpath,
    int is_dir)
{
	char	*why = NULL;
	int	 rc;

	if (relpath != NULL)
		return ignore_match(arg, relpath, is_dir);
	if ((rc = ignore_load_dir(arg, dirfd, reldir, &why)) != 0) {
		log_warn("%s", why);
		free(why);
	}
	return rc;
}

/* Append list's patterns, from where (a file or a setting), to b. */
static void
ig_describe_list(const struct ig_list *list, size_t from, const char *where,
    const char *applies, struct buf *b)
{
	size_t	i;

	for (i = from; i < list->n; i++)
		buf_appendf(b, "  %s: %s  (%s)\n", where, list->pats[i].line,
		    applies);
}

/* Order scopes by directory. */
static int
ig_scope_cmp(const void *a, const void *b)
{
	const struct ig_scope	*x = *(const struct ig_scope *const *)a;
	const struct ig_scope	*y = *(const struct ig_scope *const *)b;

	return strcmp(x->dir, y->dir);
}

/* Append the patterns of each loaded ignore file, by directory, to b. */
static void
ig_describe_files(const struct ignore *ig, struct buf *b)
{
	struct ig_scope	**v = xcalloc(ig->nscopes + 1, sizeof(*v));
	char		 *where;
	size_t		  i, n = 0;

	for (i = 0; i < ig->tabsize; i++) {
		if (ig->tab[i] != NULL)
			v[n++] = ig->tab[i];
	}
	qsort(v, n, sizeof(*v), ig_scope_cmp);
	for (i = 0; i < n; i++) {
		where = xasprintf("%s%s.clawsshignore", v[i]->dir,
		    *v[i]->dir != '\0' ? "/" : "");
		ig_describe_list(&v[i]->user, 0, where, "push and pull", b);
		free(where);
		where = xasprintf("%s%s.gitignore", v[i]->dir,
		    *v[i]->dir != '\0' ? "/" : "");
		ig_describe_list(&v[i]->git, 0, where, ig->user_only ?
		    "not applied" : "push only, untracked files only", b);
		free(where);
	}
	free(v);
}

/* Describe the rules in force and where each came from; see ignore.h. */
void
ignore_describe(const struct ignore *ig, struct buf *b)
{
	struct ig_list	def = ig->global;

	buf_appendf(b, "rules (the last matching line of a kind wins, a "
	    "deeper file over the root's; nothing below an excluded "
	    "directory moves):\n");
	buf_appendf(b, "  protected: .git at any depth  (%s)\n",
	    ig->push_git ? "pushed (sync.pushGit), never pulled" :
	    "never pushed, never pulled");
	def.n = ig->ndefaults;
	ig_describe_list(&def, 0, "default", "push and pull", b);
	ig_describe_list(&ig->global, ig->ndefaults, "sync.exclude",
	    "push and pull", b);
	ig_describe_files(ig, b);
	if (ig->user_only)
		return;
	if (ig->tracked_why != NULL)
		buf_appendf(b, "git: %s: a .gitignore applies to every file\n",
		    ig->tracked_why);
	else
		buf_appendf(b, "git: %zu tracked files, always pushed unless "
		    "a user's rule excludes them\n", ig->ntracked);
}
