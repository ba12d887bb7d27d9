/*
 * OpenSSH client configuration (ssh_config(5)) for one destination.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "compat.h"
#include "buf.h"
#include "error.h"
#include "log.h"
#include "match.h"
#include "sshconfig.h"
#include "xmalloc.h"

#define SC_MAX_DEPTH	16		/* nested Include levels, as ssh */
#define SC_BLANKS	" \t\r\n"

/* A string value and the line it came from, expanded once all is read. */
struct sc_item {
	char		*value;
	const char	*file;		/* NULL for a built-in default */
	size_t		 line;
};

/* A list of values; set once an active line has given it. */
struct sc_list {
	struct sc_item	*items;
	size_t		 n;
	int		 set;
};

/* Integer settings; -1 in a slot means no line has given it yet. */
enum sc_slot {
	SC_PORT,
	SC_IDONLY,
	SC_STRICT,
	SC_HASH,
	SC_CTIMEOUT,
	SC_ALIVE,
	SC_ALIVEMAX,
	SC_NSLOTS
};

/* Everything obtained so far while reading. */
struct sc_parse {
	const struct sshconfig_query *q;
	char		*hostname;	/* HostName, %h already expanded */
	char		*user;		/* User */
	int		 ints[SC_NSLOTS];
	struct sc_list	 ids;		/* IdentityFile */
	struct sc_list	 ukh;		/* UserKnownHostsFile */
	struct sc_list	 gkh;		/* GlobalKnownHostsFile */
	char		**files;	/* names of files read, for sc_item */
	size_t		 nfiles;
};

/* One configuration line being processed. */
struct sc_line {
	const char	*file;
	size_t		 num;
	char		**argv;		/* argv[0] is the keyword as typed */
	size_t		 argc;
	int		*active;	/* do lines apply here (Host/Match)? */
	int		 depth;		/* Include nesting of this file */
	int		 cmdline;	/* an ssh -o option, not a file */
};

/* A %-token and its value. */
struct sc_token {
	char		 key;
	const char	*value;
};

/* A supported keyword; conv and slot serve the integer ones. */
struct sc_keyword {
	const char	*name;
	int		(*fn)(struct sc_parse *, const struct sc_line *,
			    const struct sc_keyword *, char **);
	enum sc_slot	 slot;
	const char	*(*conv)(const char *, int *);
};

static const char *const sc_default_ids[] = {
	"~/.ssh/id_rsa", "~/.ssh/id_ecdsa", "~/.ssh/id_ecdsa_sk",
	"~/.ssh/id_ed25519", "~/.ssh/id_ed25519_sk", "~/.ssh/id_xmss",
	"~/.ssh/id_dsa", NULL
};
static const char *const sc_default_ukh[] = {
	"~/.ssh/known_hosts", "~/.ssh/known_hosts2", NULL
};
static const char *const sc_default_gkh[] = {
	"/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2", NULL
};

static int	sc_read_file(struct sc_parse *, const char *, int, int,
		    char **);

/* Hand msg to the caller through cause, or drop it if cause is NULL. */
static void
sc_cause(char **cause, char *msg)
{
	if (cause != NULL)
		*cause = msg;
	else
		free(msg);
}

/* Set *cause to "FILE line N: message" and return CLAW_ERR_PARSE. */
static int __attribute__((__format__(__printf__, 4, 5)))
sc_err(char **cause, const char *file, size_t line, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (file == NULL)
		sc_cause(cause, xasprintf("built-in default: %s", msg));
	else
		sc_cause(cause, xasprintf("%s line %zu: %s", file, line, msg));
	free(msg);
	return CLAW_ERR_PARSE;
}

/* Lower-case a string in place. */
static void
sc_lower(char *s)
{
	for (; *s != '\0'; s++)
		*s = (char)tolower((unsigned char)*s);
}

/* Return 1 if every character of s is a decimal digit and s is not empty. */
static int
sc_digits(const char *s)
{
	return *s != '\0' && s[strspn(s, "0123456789")] == '\0';
}

/* Parse a port number 1..65535; return it, or -1 if s is not one. */
static int
sc_port(const char *s)
{
	long	v;

	if (!sc_digits(s) || strlen(s) > 5)
		return -1;
	v = strtol(s, NULL, 10);
	if (v < 1 || v > 65535)
		return -1;
	return (int)v;
}

/* Convert a Port argument. */
static const char *
sc_conv_port(const char *arg, int *v)
{
	if ((*v = sc_port(arg)) == -1)
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

/* Free a NULL-terminated argument vector. */
static void
sc_argv_free(char **argv)
{
	size_t	i;

	if (argv == NULL)
		return;
	for (i = 0; argv[i] != NULL; i++)
		free(argv[i]);
	free(argv);
}

/* Split the arguments after the keyword into l; -1 on an open quote. */
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
			return -1;
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
		return sc_err(cause, l->file, l->num, "missing argument to %s",
		    l->argv[0]);
	if (l->argc > 2)
		return sc_err(cause, l->file, l->num,
		    "%s takes one argument", l->argv[0]);
	return 0;
}

/* Check that l has at least one argument and none is empty. */
static int
sc_some_args(const struct sc_line *l, char **cause)
{
	size_t	i;

	if (l->argc < 2)
		return sc_err(cause, l->file, l->num, "missing argument to %s",
		    l->argv[0]);
	for (i = 1; i < l->argc; i++) {
		if (*l->argv[i] == '\0')
			return sc_err(cause, l->file, l->num,
			    "empty argument to %s", l->argv[0]);
	}
	return 0;
}

/* Append a value and its origin to a list. */
static void
sc_list_add(struct sc_list *l, const char *value, const char *file,
    size_t line)
{
	l->items = xreallocarray(l->items, l->n + 1, sizeof *l->items);
	l->items[l->n].value = xstrdup(value);
	l->items[l->n].file = file;
	l->items[l->n].line = line;
	l->n++;
}

/* Fill a list nobody set with built-in defaults. */
static void
sc_list_defaults(struct sc_list *l, const char *const *defaults)
{
	if (l->set)
		return;
	for (; *defaults != NULL; defaults++)
		sc_list_add(l, *defaults, NULL, 0);
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

/* Return the value of token key, or NULL if it is not one. */
static const char *
sc_token_find(const struct sc_token *tok, char key)
{
	for (; tok->key != '\0'; tok++) {
		if (tok->key == key)
			return tok->value;
	}
	return NULL;
}

/* Expand %-tokens in s; on an unknown one set *bad and return -1. */
static int
sc_percent(const char *s, const struct sc_token *tok, char **out, char *bad)
{
	struct buf	 b = BUF_INIT;
	const char	*v;

	for (; *s != '\0'; s++) {
		if (*s != '%') {
			buf_append(&b, s, 1);
			continue;
		}
		if (*++s == '%')
			v = "%";
		else if ((v = sc_token_find(tok, *s)) == NULL) {
			*bad = *s;
			buf_free(&b);
			return -1;
		}
		buf_append_str(&b, v);
	}
	*out = buf_detach(&b);
	return 0;
}

/* Report a bad %-token found in value at file and line. */
static int
sc_percent_err(char **cause, const char *file, size_t line,
    const char *value, char bad)
{
	if (bad == '\0')
		return sc_err(cause, file, line, "'%%' at end of \"%s\"",
		    value);
	return sc_err(cause, file, line, "unknown token %%%c in \"%s\"", bad,
	    value);
}

/* Look up the home directory of user name; NULL if there is none. */
static char *
sc_home_of(const char *name)
{
	struct passwd	 pw, *res = NULL;
	char		 buf[4096];

	if (getpwnam_r(name, &pw, buf, sizeof buf, &res) != 0 || res == NULL)
		return NULL;
	return xstrdup(pw.pw_dir);
}

/* Expand a leading ~ or ~user in s; -1 if the user is unknown. */
static int
sc_tilde(const char *home, const char *s, char **out)
{
	const char	*slash;
	char		*name, *dir;

	if (*s != '~') {
		*out = xstrdup(s);
		return 0;
	}
	if ((slash = strchr(s, '/')) == NULL)
		slash = s + strlen(s);
	if (slash == s + 1)
		dir = xstrdup(home);
	else {
		name = xstrndup(s + 1, (size_t)(slash - s - 1));
		dir = sc_home_of(name);
		free(name);
		if (dir == NULL)
			return -1;
	}
	*out = xasprintf("%s%s", strcmp(dir, "/") == 0 && *slash == '/' ?
	    "" : dir, slash);
	free(dir);
	return 0;
}

/* Expand ~ and then %-tokens in one item. */
static int
sc_expand_item(const struct sc_item *it, const struct sc_token *tok,
    const char *home, char **out, char **cause)
{
	char	*t, bad = '\0';
	int	 r;

	if (sc_tilde(home, it->value, &t) != 0)
		return sc_err(cause, it->file, it->line,
		    "unknown user in \"%s\"", it->value);
	r = sc_percent(t, tok, out, &bad);
	free(t);
	if (r != 0)
		return sc_percent_err(cause, it->file, it->line, it->value,
		    bad);
	return 0;
}

/* Return 1 if s is one of v[0..n). */
static int
sc_strv_has(char *const *v, size_t n, const char *s)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (strcmp(v[i], s) == 0)
			return 1;
	}
	return 0;
}

/* Free n strings of v and v. */
static void
sc_strv_free(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Expand a list into a new array, dropping "none" and duplicates. */
static int
sc_expand_list(const struct sc_list *l, const struct sc_token *tok,
    const char *home, char ***vp, size_t *np, char **cause)
{
	char	**v = NULL, *s;
	size_t	  i, n = 0;
	int	  r;

	for (i = 0; i < l->n; i++) {
		if (strcasecmp(l->items[i].value, "none") == 0)
			continue;
		if ((r = sc_expand_item(&l->items[i], tok, home, &s,
		    cause)) != 0) {
			sc_strv_free(v, n);
			return r;
		}
		if (sc_strv_has(v, n, s)) {
			free(s);
			continue;
		}
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n++] = s;
	}
	*vp = v;
	*np = n;
	return 0;
}

/* Set the host name buffers: long (%l) and up to the first dot (%L). */
static void
sc_local_host(char *lhost, char *shost, size_t len)
{
	if (gethostname(lhost, len) != 0) {
		log_debug("gethostname: %s", strerror(errno));
		lhost[0] = '\0';
	}
	lhost[len - 1] = '\0';
	strlcpy(shost, lhost, len);
	shost[strcspn(shost, ".")] = '\0';
}

/* Expand the file lists of p into c with the final values of c. */
static int
sc_finish_lists(struct sc_parse *p, struct sshconfig *c, char **cause)
{
	const struct sshconfig_query *q = p->q;
	char	 port[16], uid[32], lhost[256], shost[256];
	const struct sc_token tok[] = {
		{ 'd', q->home }, { 'h', c->hostname }, { 'i', uid },
		{ 'k', q->host }, { 'L', shost }, { 'l', lhost },
		{ 'n', q->host }, { 'p', port }, { 'r', c->user },
		{ 'u', q->local_user }, { '\0', NULL }
	};
	int	 r;

	snprintf(port, sizeof port, "%d", c->port);
	snprintf(uid, sizeof uid, "%lu", (unsigned long)getuid());
	sc_local_host(lhost, shost, sizeof lhost);
	sc_list_defaults(&p->ids, sc_default_ids);
	sc_list_defaults(&p->ukh, sc_default_ukh);
	sc_list_defaults(&p->gkh, sc_default_gkh);
	if ((r = sc_expand_list(&p->ids, tok, q->home, &c->identity_files,
	    &c->n_identity_files, cause)) != 0)
		return r;
	if ((r = sc_expand_list(&p->ukh, tok, q->home, &c->known_hosts_files,
	    &c->n_known_hosts_files, cause)) != 0)
		return r;
	return sc_expand_list(&p->gkh, tok, q->home,
	    &c->global_known_hosts_files, &c->n_global_known_hosts_files,
	    cause);
}

/* Copy the integer settings into c with defaults filled in. */
static void
sc_finish_ints(const struct sc_parse *p, struct sshconfig *c)
{
	const int	*v = p->ints;

	if (p->q->port > 0)
		c->port = p->q->port;
	else
		c->port = v[SC_PORT] > 0 ? v[SC_PORT] : 22;
	c->identities_only = v[SC_IDONLY] == 1;
	c->strict = SSHCONFIG_STRICT_ASK;
	if (v[SC_STRICT] != -1)
		c->strict = (enum sshconfig_strict)v[SC_STRICT];
	c->hash_known_hosts = v[SC_HASH] == 1;
	c->connect_timeout = v[SC_CTIMEOUT] > 0 ? v[SC_CTIMEOUT] : 0;
	c->server_alive_interval = v[SC_ALIVE] > 0 ? v[SC_ALIVE] : 0;
	c->server_alive_count_max = v[SC_ALIVEMAX] >= 0 ? v[SC_ALIVEMAX] : 3;
}

/* Build the resolved config from what was read. */
static int
sc_finish(struct sc_parse *p, struct sshconfig **out, char **cause)
{
	const struct sshconfig_query *q = p->q;
	struct sshconfig	*c;
	int			 r;

	c = xcalloc(1, sizeof *c);
	c->host = xstrdup(q->host);
	c->hostname = xstrdup(p->hostname != NULL ? p->hostname : q->host);
	sc_lower(c->hostname);
	if (q->user != NULL)
		c->user = xstrdup(q->user);
	else
		c->user = xstrdup(p->user != NULL ? p->user : q->local_user);
	c->identity_files_set = p->ids.set;
	sc_finish_ints(p, c);
	if ((r = sc_finish_lists(p, c, cause)) != 0) {
		sshconfig_free(c);
		return r;
	}
	*out = c;
	return 0;
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
		return sc_err(cause, l->file, l->num, "missing argument to %s",
		    l->argv[0]);
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

/* Evaluate one Match criterion: 1 match, 0 no match, -1 unsupported. */
static int
sc_match_crit(const struct sc_parse *p, const char *attr, const char *arg)
{
	const char	*host;

	host = p->hostname != NULL ? p->hostname : p->q->host;
	if (strcasecmp(attr, "all") == 0)
		return 1;
	if (arg == NULL)
		return -1;
	if (strcasecmp(attr, "host") == 0)
		return match_pattern_list(host, arg, 1) == 1;
	if (strcasecmp(attr, "originalhost") == 0)
		return match_pattern_list(p->q->host, arg, 1) == 1;
	if (strcasecmp(attr, "user") == 0)
		return match_pattern_list(sc_match_user(p), arg, 0) == 1;
	if (strcasecmp(attr, "localuser") == 0)
		return match_pattern_list(p->q->local_user, arg, 0) == 1;
	return -1;
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
		return sc_err(cause, l->file, l->num, "missing argument to %s",
		    l->argv[0]);
	for (i = 1; i < l->argc; i++) {
		attr = l->argv[i];
		neg = *attr == '!';
		if (neg)
			attr++;
		arg = NULL;
		if (!sc_match_noarg(attr)) {
			if (++i >= l->argc || *l->argv[i] == '\0')
				return sc_err(cause, l->file, l->num,
				    "missing argument to Match %s", attr);
			arg = l->argv[i];
			other = 1;
		} else if (strcasecmp(attr, "all") == 0)
			all = 1;
		if ((r = sc_match_crit(p, attr, arg)) == -1)
			log_debug("%s line %zu: Match %s is not supported: "
			    "block skipped", l->file, l->num, attr);
		if (r == -1 || r == neg)
			on = 0;
	}
	if (all && other)
		return sc_err(cause, l->file, l->num,
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
		if (sc_tilde(p->q->home, arg, out) != 0)
			return sc_err(cause, l->file, l->num,
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
		r = sc_err(cause, l->file, l->num, "Include %s: glob failed",
		    pattern);
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
	if (l->depth >= SC_MAX_DEPTH)
		return sc_err(cause, l->file, l->num,
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
	if (sc_percent(l->argv[1], tok, &v, &bad) != 0)
		return sc_percent_err(cause, l->file, l->num, l->argv[1], bad);
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
		sc_list_add(&p->ids, l->argv[1], l->file, l->num);
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
		sc_list_add(list, l->argv[i], l->file, l->num);
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
		return sc_err(cause, l->file, l->num, "%s: %s \"%s\"",
		    l->argv[0], msg, l->argv[1]);
	if (*l->active && p->ints[kw->slot] == -1)
		p->ints[kw->slot] = v;
	return 0;
}

static const struct sc_keyword sc_keywords[] = {
	{ "host", sc_kw_host, SC_NSLOTS, NULL },
	{ "match", sc_kw_match, SC_NSLOTS, NULL },
	{ "include", sc_kw_include, SC_NSLOTS, NULL },
	{ "hostname", sc_kw_hostname, SC_NSLOTS, NULL },
	{ "user", sc_kw_user, SC_NSLOTS, NULL },
	{ "identityfile", sc_kw_identityfile, SC_NSLOTS, NULL },
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
	if (sc_split_args(text, keyword, l) != 0)
		r = sc_err(cause, l->file, l->num, "unterminated quote");
	else if (kw != NULL && l->cmdline && (kw->fn == sc_kw_host ||
	    kw->fn == sc_kw_match || kw->fn == sc_kw_include))
		r = sc_err(cause, l->file, l->num, "%s is not allowed as an "
		    "option", keyword);
	else if (kw == NULL) {
		log_debug("%s line %zu: ignoring unsupported keyword %s",
		    l->file, l->num, keyword);
		r = 0;
	} else
		r = kw->fn(p, l, kw, cause);
	sc_argv_free(l->argv);
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
	sc_cause(cause, xasprintf("%s: %s", path, strerror(errnum)));
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
	FILE		*f;
	char		*text = NULL;
	size_t		 cap = 0;
	int		 active = 1, r = 0, errnum;

	if ((f = fopen(path, "r")) == NULL) {
		if (errno == ENOENT && (flags & SSHCONFIG_OPTIONAL))
			return 0;
		return sc_err_errno(path, errno, cause);
	}
	memset(&l, 0, sizeof l);
	l.file = sc_remember(p, path);
	l.active = &active;
	l.depth = depth;
	while (r == 0 && getline(&text, &cap, f) != -1) {
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
	sc_list_clear(&p->ids);
	sc_list_clear(&p->ukh);
	sc_list_clear(&p->gkh);
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
		sc_cause(cause, xstrdup("ssh config: the query needs a host, "
		    "a local user, a home directory and a valid port"));
		return CLAW_ERR_INVAL;
	}
	memset(&p, 0, sizeof p);
	p.q = q;
	for (i = 0; i < SC_NSLOTS; i++)
		p.ints[i] = -1;
	r = sc_read_options(&p, cause);
	if (r == 0 && path != NULL)
		r = sc_read_file(&p, path, flags, 0, cause);
	if (r == 0)
		r = sc_finish(&p, out, cause);
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
	sc_strv_free(c->identity_files, c->n_identity_files);
	sc_strv_free(c->known_hosts_files, c->n_known_hosts_files);
	sc_strv_free(c->global_known_hosts_files,
	    c->n_global_known_hosts_files);
	free(c);
}

/* Return 1 if s holds a blank or control character. */
static int
sc_has_space(const char *s)
{
	for (; *s != '\0'; s++) {
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return 1;
	}
	return 0;
}

/* Split "host", "host:port", "[addr]" or "[addr]:port"; NULL or a reason. */
static const char *
sc_target_host(const char *s, char **host, const char **portstr)
{
	const char	*end;

	*portstr = NULL;
	if (*s == '[') {
		if ((end = strchr(s, ']')) == NULL)
			return "missing ']'";
		if (end[1] == ':')
			*portstr = end + 2;
		else if (end[1] != '\0')
			return "unexpected text after ']'";
		*host = xstrndup(s + 1, (size_t)(end - s - 1));
	} else if ((end = strchr(s, ':')) != NULL &&
	    strchr(end + 1, ':') == NULL) {
		*portstr = end + 1;
		*host = xstrndup(s, (size_t)(end - s));
	} else
		*host = xstrdup(s);
	if (**host == '\0')
		return "empty host name";
	if (sc_has_space(*host) || strchr(*host, '[') != NULL)
		return "bad character in host name";
	return NULL;
}

/* Split target into user, host and port parts; NULL or a reason. */
static const char *
sc_target_split(const char *target, char **user, char **host, int *port)
{
	const char	*at, *portstr, *why;

	if ((at = strrchr(target, '@')) != NULL) {
		*user = xstrndup(target, (size_t)(at - target));
		if (**user == '\0')
			return "empty user name";
		if (sc_has_space(*user))
			return "bad character in user name";
	}
	if ((why = sc_target_host(at != NULL ? at + 1 : target, host,
	    &portstr)) != NULL)
		return why;
	if (portstr != NULL && (*port = sc_port(portstr)) == -1)
		return "bad port number";
	return NULL;
}

/* Split "[user@]host[:port]"; see sshconfig.h. */
int
sshconfig_parse_target(const char *target, char **user, char **host,
    int *port, char **cause)
{
	const char	*why;
	char		*u = NULL, *h = NULL;
	int		 pn = 0;

	if (target == NULL || *target == '\0')
		why = "empty target";
	else
		why = sc_target_split(target, &u, &h, &pn);
	if (why != NULL) {
		sc_cause(cause, xasprintf("invalid target \"%s\": %s",
		    target == NULL ? "" : target, why));
		free(u);
		free(h);
		return CLAW_ERR_INVAL;
	}
	*user = u;
	*host = h;
	*port = pn;
	return 0;
}
