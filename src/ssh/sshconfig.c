/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * OpenSSH client configuration (ssh_config(5)) for one destination: reading
 * files and ssh -o lines, the keywords, Host, Match and Include.  Expansion
 * and defaults are in sshconfig_expand.c, target parsing in
 * sshconfig_target.c.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "error.h"
#include "fdio.h"
#include "log.h"
#include "match.h"
#include "sshconfig.h"
#include "strv.h"
#include "sshconfig_int.h"
#include "xmalloc.h"

#define SC_MAX_DEPTH	16		/* nested Include levels, as ssh */
#define SC_BLANKS	" \t\r\n"

/* One configuration line being processed. */
struct sc_line {
	const char	*file;
	size_t		 num;
	char		**argv;		/* argv[0] is the keyword as typed */
	size_t		 argc;
	int		*active;	/* do lines apply here (Host/Match)? */
	int		 depth;		/* Include nesting of this file */
	int		 cmdline;	/* an ssh -o option, not a file */
	const char	*rest;		/* the text after the keyword */
};

/* A supported keyword; conv and slot serve the integer ones. */
struct sc_keyword {
	const char	*name;
	int		(*fn)(struct sc_parse *, const struct sc_line *,
			    const struct sc_keyword *, char **);
	enum sc_slot	 slot;
	const char	*(*conv)(const char *, int *);
};

static int	sc_read_file(struct sc_parse *, const char *, int, int,
		    char **);

/* Hand msg to the caller through cause, or drop it if cause is NULL. */
void
sshconfig_cause(char **cause, char *msg)
{
	if (cause != NULL)
		*cause = msg;
	else
		free(msg);
}

/* Set *cause to "FILE line N: message" and return CLAW_ERR_PARSE. */
int
sshconfig_err(char **cause, const char *file, size_t line, const char *fmt,
    ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (file == NULL)
		sshconfig_cause(cause, xasprintf("built-in default: %s", msg));
	else
		sshconfig_cause(cause, xasprintf("%s line %zu: %s", file, line,
		    msg));
	free(msg);
	return CLAW_ERR_PARSE;
}

/* Return 1 if every character of s is a decimal digit and s is not empty. */
static int
sc_digits(const char *s)
{
	return *s != '\0' && s[strspn(s, "0123456789")] == '\0';
}

/* Parse a port number 1..65535; return it, or CLAW_ERR_PARSE. */
int
sshconfig_port(const char *s)
{
	long	v;

	if (!sc_digits(s) || strlen(s) > 5)
		return CLAW_ERR_PARSE;
	v = strtol(s, NULL, 10);
	if (v < 1 || v > 65535)
		return CLAW_ERR_PARSE;
	return (int)v;
}

/* Convert a Port argument. */
static const char *
sc_conv_port(const char *arg, int *v)
{
	if ((*v = sshconfig_port(arg)) < 0)
		return "bad port number";
	return NULL;
}

/* Convert a yes/no argument. */
static const char *
sc_conv_flag(const char *arg, int *v)
{
	if (strcasecmp(arg, "yes") == 0 || strcasecmp(arg, "true") == 0)
		*v = 1;
	else if (strcasecmp(arg, "no") == 0 || strcasecmp(arg, "false") == 0)
		*v = 0;
	else
		return "expected yes or no, not";
	return NULL;
}

/* Convert a StrictHostKeyChecking argument, accepting what ssh accepts. */
static const char *
sc_conv_strict(const char *arg, int *v)
{
	static const struct {
		const char		*name;
		enum sshconfig_strict	 value;
	} names[] = {
		{ "yes", SSHCONFIG_STRICT_YES },
		{ "true", SSHCONFIG_STRICT_YES },
		{ "no", SSHCONFIG_STRICT_NO },
		{ "false", SSHCONFIG_STRICT_NO },
		{ "off", SSHCONFIG_STRICT_NO },
		{ "ask", SSHCONFIG_STRICT_ASK },
		{ "accept-new", SSHCONFIG_STRICT_ACCEPT_NEW },
	};
	size_t	i;

	for (i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (strcasecmp(arg, names[i].name) == 0) {
			*v = (int)names[i].value;
			return NULL;
		}
	}
	return "expected yes, no, ask or accept-new, not";
}

/* Return the seconds in one time unit letter (s m h d w), or 0. */
static long
sc_time_unit(char c)
{
	switch (tolower((unsigned char)c)) {
	case '\0':
	case 's':
		return 1;
	case 'm':
		return 60;
	case 'h':
		return 60 * 60;
	case 'd':
		return 24 * 60 * 60;
	case 'w':
		return 7 * 24 * 60 * 60;
	}
	return 0;
}

/* Convert a time such as "30", "1m30s" or "none" (-1: not given). */
static const char *
sc_conv_time(const char *arg, int *v)
{
	const char	*s = arg;
	char		*end;
	long		 n, unit, total = 0;

	if (strcmp(arg, "none") == 0) {
		*v = -1;
		return NULL;
	}
	while (*s != '\0') {
		if (!isdigit((unsigned char)*s))
			return "bad time value";
		errno = 0;
		n = strtol(s, &end, 10);
		if (errno != 0 || (unit = sc_time_unit(*end)) == 0)
			return "bad time value";
		if (n > INT_MAX / unit || total > INT_MAX - n * unit)
			return "time value too large";
		total += n * unit;
		s = *end == '\0' ? end : end + 1;
	}
	*v = (int)total;
	return NULL;
}

/* Convert a non-negative count. */
static const char *
sc_conv_count(const char *arg, int *v)
{
	long	n;

	if (!sc_digits(arg) || strlen(arg) > 9)
		return "bad number";
	n = strtol(arg, NULL, 10);
	*v = (int)n;
	return NULL;
}

/* Split off the keyword (up to a blank or '='), then skip one '='. */
static char *
sc_split_keyword(const char **sp)
{
	const char	*s = *sp, *start;
	size_t		 n;

	s += strspn(s, SC_BLANKS);
	start = s;
	n = strcspn(s, SC_BLANKS "=");
	s += n;
	s += strspn(s, SC_BLANKS);
	if (*s == '=')
		s++;
	*sp = s;
	return xstrndup(start, n);
}

/* Read one argument into b, as ssh's argv_split; NULL on an open quote. */
static const char *
sc_split_arg(const char *s, struct buf *b)
{
	char	quote = 0;

	for (; *s != '\0'; s++) {
		if (*s == '\\' && (s[1] == '"' || s[1] == '\'' ||
		    s[1] == '\\' || (quote == 0 && s[1] == ' ')))
			buf_append(b, ++s, 1);
		else if (quote == 0 && strchr(SC_BLANKS, *s) != NULL)
			break;
		else if (quote == 0 && (*s == '"' || *s == '\''))
			quote = *s;
		else if (quote != 0 && *s == quote)
			quote = 0;
		else
			buf_append(b, s, 1);
	}
	return quote != 0 ? NULL : s;
}

/*
 * Split the arguments after the keyword into l: 0, or CLAW_ERR_PARSE on
 * an open quote.
 */
static int
sc_split_args(const char *s, char *keyword, struct sc_line *l)
{
	struct buf	 b = BUF_INIT;

	l->argv = xcalloc(2, sizeof *l->argv);
	l->argv[0] = keyword;
	l->argc = 1;
	for (;;) {
		s += strspn(s, SC_BLANKS);
		if (*s == '\0' || *s == '#')
			break;
		if ((s = sc_split_arg(s, &b)) == NULL) {
			buf_free(&b);
			return CLAW_ERR_PARSE;
		}
		l->argv = xreallocarray(l->argv, l->argc + 2,
		    sizeof *l->argv);
		l->argv[l->argc++] = buf_detach(&b);
		l->argv[l->argc] = NULL;
	}
	return 0;
}

/* Check that l has exactly one non-empty argument. */
static int
sc_one_arg(const struct sc_line *l, char **cause)
{
	if (l->argc < 2 || *l->argv[1] == '\0')
		return sshconfig_err(cause, l->file, l->num,
		    "missing argument to %s", l->argv[0]);
	if (l->argc > 2)
		return sshconfig_err(cause, l->file, l->num,
		    "%s takes one argument", l->argv[0]);
	return 0;
}

/* Check that l has at least one argument and none is empty. */
static int
sc_some_args(const struct sc_line *l, char **cause)
{
	size_t	i;

	if (l->argc < 2)
		return sshconfig_err(cause, l->file, l->num,
		    "missing argument to %s", l->argv[0]);
	for (i = 1; i < l->argc; i++) {
		if (*l->argv[i] == '\0')
			return sshconfig_err(cause, l->file, l->num,
			    "empty argument to %s", l->argv[0]);
	}
	return 0;
}

/* Append a value and its origin to a list. */
void
sshconfig_list_add(struct sc_list *l, const char *value,
    const char *file, size_t line)
{
	l->items = xreallocarray(l->items, l->n + 1, sizeof *l->items);
	l->items[l->n].value = xstrdup(value);
	l->items[l->n].file = file;
	l->items[l->n].line = line;
	l->n++;
}

/* Free the items of a list. */
static void
sc_list_clear(struct sc_list *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		free(l->items[i].value);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

/* Handle Host: the block applies if a pattern matches and none negated. */
static int
sc_kw_host(struct sc_parse *p, const struct sc_line *l,
    const struct sc_keyword *kw, char **cause)
{
	const char	*pat;
	size_t		 i;
	int		 neg, on = 0;

	(void)kw;
	if (l->argc < 2)
		return sshconfig_err(cause, l->file, l->num,
		    "missing argument to %s", l->argv[0]);
	for (i = 1; i < l->argc; i++) {
		pat = l->argv[i];
		neg = *pat == '!';
		if (!match_pattern(p->q->host, neg ? pat + 1 : pat))
			continue;
		if (neg) {
			log_debug("%s line %zu: Host block skipped: negated "
			    "match for %s", l->file, l->num, pat);
			on = 0;
			break;
		}
		on = 1;
	}
	*l->active = on;
	return 0;
}

/* Return the remote user as known so far, for Match user. */
static const char *
sc_match_user(const struct sc_parse *p)
{
	if (p->q->user != NULL)
		return p->q->user;
	if (p->user != NULL)
		return p->user;
	return p->q->local_user;
}

/*
 * Evaluate one Match criterion: 1 match, 0 no match, CLAW_ERR_UNSUPPORTED
 * if unsupported.
 */
static int
sc_match_crit(const struct sc_parse *p, const char *attr, const char *arg)
{
	const char	*host;

	host = p->hostname != NULL ? p->hostname : p->q->host;
	if (strcasecmp(attr, "all") == 0)
		return 1;
	if (arg == NULL)
		return CLAW_ERR_UNSUPPORTED;
	if (strcasecmp(attr, "host") == 0)
		return match_pattern_list(host, arg, 1) == 1;
	if (strcasecmp(attr, "originalhost") == 0)
		return match_pattern_list(p->q->host, arg, 1) == 1;
	if (strcasecmp(attr, "user") == 0)
		return match_pattern_list(sc_match_user(p), arg, 0) == 1;
	if (strcasecmp(attr, "localuser") == 0)
		return match_pattern_list(p->q->local_user, arg, 0) == 1;
	return CLAW_ERR_UNSUPPORTED;
}

/* Return 1 if Match criterion attr takes no argument. */
static int
sc_match_noarg(const char *attr)
{
	return strcasecmp(attr, "all") == 0 ||
	    strcasecmp(attr, "canonical") == 0 ||
	    strcasecmp(attr, "final") == 0;
}

/* Handle Match: every criterion must hold; unsupported ones never do. */
static int
sc_kw_match(struct sc_parse *p, const struct sc_line *l,
    const struct sc_keyword *kw, char **cause)
{
	const char	*attr, *arg;
	size_t		 i;
	int		 neg, r, on = 1, all = 0, other = 0;

	(void)kw;
	if (l->argc < 2)
		return sshconfig_err(cause, l->file, l->num,
		    "missing argument to %s", l->argv[0]);
	for (i = 1; i < l->argc; i++) {
		attr = l->argv[i];
		neg = *attr == '!';
		if (neg)
			attr++;
		arg = NULL;
		if (!sc_match_noarg(attr)) {
			if (++i >= l->argc || *l->argv[i] == '\0')
				return sshconfig_err(cause, l->file, l->num,
				    "missing argument to Match %s", attr);
			arg = l->argv[i];
			other = 1;
		} else if (strcasecmp(attr, "all") == 0)
			all = 1;
		if ((r = sc_match_crit(p, attr, arg)) < 0)
			log_debug("%s line %zu: Match %s is not supported: "
			    "block skipped", l->file, l->num, attr);
		if (r < 0 || r == neg)
			on = 0;
	}
	if (all && other)
		return sshconfig_err(cause, l->file, l->num,
		    "'all' cannot be combined with other Match criteria");
	*l->active = on;
	return 0;
}

/* Make an Include argument absolute: ~ expanded, relative to ~/.ssh. */
static int
sc_include_path(const struct sc_parse *p, const struct sc_line *l,
    const char *arg, char **out, char **cause)
{
	if (*arg == '~') {
		if (sshconfig_tilde(p->q->home, arg, out) != 0)
			return sshconfig_err(cause, l->file, l->num,
			    "unknown user in \"%s\"", arg);
	} else if (*arg == '/')
		*out = xstrdup(arg);
	else
		*out = xasprintf("%s/.ssh/%s", p->q->home, arg);
	return 0;
}

/* Read every file matching one Include argument, in glob order. */
static int
sc_include_one(struct sc_parse *p, const struct sc_line *l, const char *arg,
    char **cause)
{
	glob_t	 g;
	char	*pattern;
	size_t	 i;
	int	 r;

	if ((r = sc_include_path(p, l, arg, &pattern, cause)) != 0)
		return r;
	memset(&g, 0, sizeof g);
	if ((r = glob(pattern, 0, NULL, &g)) == GLOB_NOMATCH) {
		log_debug("%s line %zu: Include %s matched no files",
		    l->file, l->num, pattern);
		r = 0;
	} else if (r != 0)
		r = sshconfig_err(cause, l->file, l->num,
		    "Include %s: glob failed", pattern);
	for (i = 0; r == 0 && i < g.gl_pathc; i++)
		r = sc_read_file(p, g.gl_pathv[i], 0, l->depth + 1, cause);
	globfree(&g);
	free(pattern);
	return r;
}

/* Handle Include: read the files now, if the block applies. */
static int
sc_kw_include(struct sc_parse *p, const struct sc_line *l,
    const struct sc_keyword *kw, char **cause)
{
	size_t	i;
	int	r;

	(void)kw;
	if ((r = sc_some_args(l, cause)) != 0)
		return r;
	if (!*l->active)
		return 0;
	if (p->no_include)
		return sshconfig_err(cause, l->file, l->num, "Include is not "
		    "allowed here");
	if (l->depth >= SC_MAX_DEPTH)
		return sshconfig_err(cause, l->file, l->num,
		    "too many nested Include levels (at most %d)",
		    SC_MAX_DEPTH);
	for (i = 1; i < l->argc; i++) {
		if ((r = sc_include_one(p, l, l->argv[i], cause)) != 0)
			return r;
	}
	return 0;
}

/* Handle HostName: %h is the original host; the first value wins. */
static int
sc_kw_hostname(struct sc_parse *p, const struct sc_line *l,
    const struct sc_keyword *kw, char **cause)
{
	const struct sc_token tok[] = { { 'h', p->q->host }, { '\0', NULL } };
	char	*v, bad = '\0';
	int	 r;

	(void)kw;
	if ((r = sc_one_arg(l, cause)) != 0)
		return r;
	if (sshconfig_percent(l->argv[1], tok, &v, &bad) != 0)
		return sshconfig_percent_err(cause, l->file, l->num, l->argv[1],
		    bad);
	if (*l->active && p->hostname == NULL)
		p->hostname = v;
	else
		free(v);
	return 0;
}

/* Handle User: the first value wins. */
static int
sc_kw_user(struct sc_parse *p, const struct sc_line *l,
    const struct sc_keyword *kw, char **cause)
{
	int	r;

	(void)kw;
	if ((r = sc_one_arg(l, cause)) != 0)
		return r;
	if (*l->active && p->user == NULL)
		p->user = xstrdup(l->argv[1]);
	return 0;
}

/* Handle HostKeyAlias: the first value wins. */
static int
sc_kw_hostkeyalias(struct sc_parse *p, const struct sc_line *l,
    const struct sc_keyword *kw, char **cause)
{
	int	r;

	(void)kw;
	if ((r = sc_one_arg(l, cause)) != 0)
		return r;
	if (*l->active && p->host_key_alias == NULL)
		p->host_key_alias = xstrdup(l->argv[1]);
	return 0;
}

/* Handle IdentityFile: every value adds to the list. */
static int
sc_kw_identityfile(struct sc_parse *p, const struct sc_line *l,
    const struct sc_keyword *kw, char **cause)
{
	int	r;

	(void)kw;
	if ((r = sc_one_arg(l, cause)) != 0)
		return r;
	if (*l->active) {
		sshconfig_list_add(&p->ids, l->argv[1], l->file, l->num);
		p->ids.set = 1;
	}
	return 0;
}

/* Handle the known hosts file keywords: the first line gives the list. */
static int
sc_kw_files(struct sc_parse *p, const struct sc_line *l,
    const struct sc_keyword *kw, char **cause)
{
	struct sc_list	*list;
	size_t		 i;
	int		 r;

	if ((r = sc_some_args(l, cause)) != 0)
		return r;
	if (strcmp(kw->name, "userknownhostsfile") == 0)
		list = &p->ukh;
	else
		list = &p->gkh;
	if (!*l->active || list->set)
		return 0;
	for (i = 1; i < l->argc; i++)
		sshconfig_list_add(list, l->argv[i], l->file, l->num);
	list->set = 1;
	return 0;
}

/* Handle a keyword with one integer value; the first value wins. */
static int
sc_kw_int(struct sc_parse *p, const struct sc_line *l,
    const struct sc_keyword *kw, char **cause)
{
	const char	*msg;
	int		 r, v;

	if ((r = sc_one_arg(l, cause)) != 0)
		return r;
	if ((msg = kw->conv(l->argv[1], &v)) != NULL)
		return sshconfig_err(cause, l->file, l->num, "%s: %s \"%s\"",
		    l->argv[0], msg, l->argv[1]);
	if (*l->active && p->ints[kw->slot] == -1)
		p->ints[kw->slot] = v;
	return 0;
}

/*
 * Handle ProxyCommand: like ssh, the rest of the line is the command,
 * unsplit and unquoted; "none" means no proxy.  The first value wins.
 */
static int
sc_kw_proxycommand(struct sc_parse *p, const struct sc_line *l,
    const struct sc_keyword *kw, char **cause)
{
	const char	*s = l->rest + strspn(l->rest, SC_BLANKS);
	size_t		 n;
	char		*v;

	(void)kw;
	n = strlen(s);
	while (n > 0 && strchr(SC_BLANKS, s[n - 1]) != NULL)
		n--;
	if (n == 0)
		return sshconfig_err(cause, l->file, l->num,
		    "missing argument to %s", l->argv[0]);
	if (!*l->active || p->proxy.set)
		return 0;
	v = xstrndup(s, n);
	if (strcasecmp(v, "none") != 0)
		sshconfig_list_add(&p->proxy, v, l->file, l->num);
	free(v);
	p->proxy.set = 1;
	return 0;
}

static const struct sc_keyword sc_keywords[] = {
	{ "host", sc_kw_host, SC_NSLOTS, NULL },
	{ "match", sc_kw_match, SC_NSLOTS, NULL },
	{ "include", sc_kw_include, SC_NSLOTS, NULL },
	{ "hostname", sc_kw_hostname, SC_NSLOTS, NULL },
	{ "user", sc_kw_user, SC_NSLOTS, NULL },
	{ "identityfile", sc_kw_identityfile, SC_NSLOTS, NULL },
	{ "proxycommand", sc_kw_proxycommand, SC_NSLOTS, NULL },
	{ "hostkeyalias", sc_kw_hostkeyalias, SC_NSLOTS, NULL },
	{ "userknownhostsfile", sc_kw_files, SC_NSLOTS, NULL },
	{ "globalknownhostsfile", sc_kw_files, SC_NSLOTS, NULL },
	{ "port", sc_kw_int, SC_PORT, sc_conv_port },
	{ "identitiesonly", sc_kw_int, SC_IDONLY, sc_conv_flag },
	{ "stricthostkeychecking", sc_kw_int, SC_STRICT, sc_conv_strict },
	{ "hashknownhosts", sc_kw_int, SC_HASH, sc_conv_flag },
	{ "connecttimeout", sc_kw_int, SC_CTIMEOUT, sc_conv_time },
	{ "serveraliveinterval", sc_kw_int, SC_ALIVE, sc_conv_time },
	{ "serveralivecountmax", sc_kw_int, SC_ALIVEMAX, sc_conv_count },
};

/* Find a supported keyword, ignoring case; NULL if it is not one. */
static const struct sc_keyword *
sc_keyword_find(const char *name)
{
	size_t	i;

	for (i = 0; i < sizeof sc_keywords / sizeof sc_keywords[0]; i++) {
		if (strcasecmp(name, sc_keywords[i].name) == 0)
			return &sc_keywords[i];
	}
	return NULL;
}

/* Process one line of a file; blank lines and comments do nothing. */
static int
sc_line_do(struct sc_parse *p, struct sc_line *l, const char *text,
    char **cause)
{
	const struct sc_keyword	*kw;
	char			*keyword;
	int			 r;

	keyword = sc_split_keyword(&text);
	if (*keyword == '\0' || *keyword == '#') {
		free(keyword);
		return 0;
	}
	kw = sc_keyword_find(keyword);
	l->rest = text;
	if (kw != NULL && kw->fn == sc_kw_proxycommand) {
		l->argv = xcalloc(2, sizeof *l->argv);
		l->argv[0] = keyword;
		l->argc = 1;
		r = kw->fn(p, l, kw, cause);
	} else if (sc_split_args(text, keyword, l) != 0)
		r = sshconfig_err(cause, l->file, l->num, "unterminated quote");
	else if (kw != NULL && l->cmdline && (kw->fn == sc_kw_host ||
	    kw->fn == sc_kw_match || kw->fn == sc_kw_include))
		r = sshconfig_err(cause, l->file, l->num,
		    "%s is not allowed as an option", keyword);
	else if (kw == NULL) {
		log_debug("%s line %zu: ignoring unsupported keyword %s",
		    l->file, l->num, keyword);
		r = 0;
	} else
		r = kw->fn(p, l, kw, cause);
	strv_free(l->argv);
	l->argv = NULL;
	return r;
}

/* Keep a copy of a file name for the lifetime of the parse. */
static const char *
sc_remember(struct sc_parse *p, const char *path)
{
	p->files = xreallocarray(p->files, p->nfiles + 1, sizeof *p->files);
	p->files[p->nfiles] = xstrdup(path);
	return p->files[p->nfiles++];
}

/* Report a file that could not be opened or read. */
static int
sc_err_errno(const char *path, int errnum, char **cause)
{
	sshconfig_cause(cause, xasprintf("%s: %s", path, strerror(errnum)));
	if (errnum == ENOENT)
		return CLAW_ERR_NOTFOUND;
	return claw_err_from_errno(errnum);
}

/* Read one file at Include depth; lines before any Host apply to all. */
static int
sc_read_file(struct sc_parse *p, const char *path, int flags, int depth,
    char **cause)
{
	struct sc_line	 l;
	struct stat	 st;
	FILE		*f;
	char		*text = NULL;
	size_t		 cap = 0;
	ssize_t		 n;
	int		 active = 1, r = 0, errnum;

	if (p->nfiles >= SSHCONFIG_FILES_MAX) {
		sshconfig_cause(cause, xasprintf("%s: more than %d ssh config "
		    "files", path, SSHCONFIG_FILES_MAX));
		return CLAW_ERR_PARSE;
	}
	if ((f = fdio_fopen_text(path)) == NULL) {
		if (errno == ENOENT && (flags & SSHCONFIG_OPTIONAL))
			return 0;
		if (errno == EINVAL) {
			sshconfig_cause(cause, xasprintf("%s: not a regular "
			    "file", path));
			return CLAW_ERR_PARSE;
		}
		return sc_err_errno(path, errno, cause);
	}
	memset(&l, 0, sizeof l);
	l.file = sc_remember(p, path);
	l.active = &active;
	l.depth = depth;
	if (fstat(fileno(f), &st) == 0 && st.st_size > (off_t)
	    (SSHCONFIG_FILE_MAX - p->bytes)) {	/* not even one line of it */
		sshconfig_cause(cause, xasprintf("%s: more than %d bytes of "
		    "ssh config", path, SSHCONFIG_FILE_MAX));
		r = CLAW_ERR_PARSE;
	}
	while (r == 0 && (n = getline(&text, &cap, f)) != -1) {
		if ((p->bytes += (size_t)n) > SSHCONFIG_FILE_MAX) {
			r = sshconfig_err(cause, l.file, l.num + 1, "more than "
			    "%d bytes of ssh config", SSHCONFIG_FILE_MAX);
			break;
		}
		l.num++;
		r = sc_line_do(p, &l, text, cause);
	}
	errnum = errno;
	if (r == 0 && ferror(f))
		r = sc_err_errno(path, errnum, cause);
	free(text);
	fclose(f);
	return r;
}

/* Apply the ssh -o lines of the query, before any file. */
static int
sc_read_options(struct sc_parse *p, char **cause)
{
	struct sc_line	 l;
	size_t		 i;
	int		 active = 1, r;

	memset(&l, 0, sizeof l);
	l.file = "command-line";
	l.active = &active;
	l.cmdline = 1;
	for (i = 0; i < p->q->noptions; i++) {
		l.num = i + 1;
		if ((r = sc_line_do(p, &l, p->q->options[i], cause)) != 0)
			return r;
	}
	return 0;
}

/* Release what a parse holds. */
static void
sc_parse_clear(struct sc_parse *p)
{
	size_t	i;

	free(p->hostname);
	free(p->user);
	free(p->host_key_alias);
	sc_list_clear(&p->ids);
	sc_list_clear(&p->ukh);
	sc_list_clear(&p->gkh);
	sc_list_clear(&p->proxy);
	for (i = 0; i < p->nfiles; i++)
		free(p->files[i]);
	free(p->files);
}

/* Resolve the settings for q from the file at path; see sshconfig.h. */
int
sshconfig_resolve(const char *path, int flags,
    const struct sshconfig_query *q, struct sshconfig **out, char **cause)
{
	struct sc_parse	 p;
	size_t		 i;
	int		 r = 0;

	if (q == NULL || q->host == NULL || *q->host == '\0' ||
	    q->local_user == NULL || q->home == NULL ||
	    q->port < 0 || q->port > 65535) {
		sshconfig_cause(cause, xstrdup("ssh config: the query needs a "
		    "host, a local user, a home directory and a valid port"));
		return CLAW_ERR_INVAL;
	}
	memset(&p, 0, sizeof p);
	p.q = q;
	p.no_include = (flags & SSHCONFIG_NO_INCLUDE) != 0;
	for (i = 0; i < SC_NSLOTS; i++)
		p.ints[i] = -1;
	r = sc_read_options(&p, cause);
	if (r == 0 && path != NULL)
		r = sc_read_file(&p, path, flags, 0, cause);
	if (r == 0)
		r = sshconfig_finish(&p, out, cause);
	sc_parse_clear(&p);
	return r;
}

/* Free a resolved config; NULL is fine. */
void
sshconfig_free(struct sshconfig *c)
{
	if (c == NULL)
		return;
	free(c->host);
	free(c->hostname);
	free(c->user);
	free(c->proxy_command);
	free(c->host_key_alias);
	sshconfig_strv_free(c->identity_files, c->n_identity_files);
	sshconfig_strv_free(c->known_hosts_files, c->n_known_hosts_files);
	sshconfig_strv_free(c->global_known_hosts_files,
	    c->n_global_known_hosts_files);
	free(c);
}
