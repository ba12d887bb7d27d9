/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The audit log: records formatted with cJSON, appended with one write(2)
 * each on an O_APPEND descriptor.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "audit.h"
#include "buf.h"
#include "error.h"
#include "log.h"
#include "xmalloc.h"

struct audit {
	int	 fd;
	char	*path;
};

/* cJSON failed to allocate: abort, as x*alloc does. */
static void __attribute__((__noreturn__))
audit_fatal(const char *what)
{
	log_error("%s failed", what);
	abort();
}

/* Return base/rest without doubling a trailing slash of base. */
static char *
audit_join(const char *base, const char *rest)
{
	size_t	len = strlen(base);

	while (len > 1 && base[len - 1] == '/')
		len--;
	return xasprintf("%.*s/%s", (int)len, base, rest);
}

/* Return the default path; see audit.h. */
char *
audit_default_path(const char *home)
{
	const char	*xdg;

	if ((xdg = getenv("XDG_STATE_HOME")) != NULL && xdg[0] == '/')
		return audit_join(xdg, "clawssh/audit.log");
	if (home == NULL || *home == '\0')
		return NULL;
	return audit_join(home, ".local/state/clawssh/audit.log");
}

/* Create every missing directory above the file at path (mode 0700). */
static int
audit_mkdirs(const char *path, char **cause)
{
	char	*dir, *p;
	int	 r = 0;

	dir = xstrdup(path);
	for (p = dir + 1; r == 0 && (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(dir, 0700) != 0 && errno != EEXIST)
			r = claw_fail_errno(cause, dir, "mkdir");
		*p = '/';
	}
	free(dir);
	return r;
}

/* Open the log; see audit.h. */
int
audit_open(const char *path, struct audit **out, char **cause)
{
	struct audit	*a;
	struct stat	 st;
	int		 fd, r;

	if (path == NULL)
		return claw_fail(cause, CLAW_ERR_INVAL, "audit: no path");
	if (*path == '\0') {
		*out = NULL;
		return 0;
	}
	if ((r = audit_mkdirs(path, cause)) != 0)
		return r;
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW |
	    O_NOCTTY | O_NONBLOCK, 0600);
	if (fd == -1)
		return claw_fail_errno(cause, path, "open");
	if (fstat(fd, &st) != 0) {
		r = claw_fail_errno(cause, path, "fstat");
		goto fail;
	}
	if (!S_ISREG(st.st_mode)) {
		r = claw_fail(cause, CLAW_ERR_INVAL, "%s: not a regular file",
		    path);
		goto fail;
	}
	if ((st.st_mode & 077) != 0 && fchmod(fd, st.st_mode & 0700) != 0) {
		r = claw_fail_errno(cause, path, "fchmod");
		goto fail;
	}
	a = xcalloc(1, sizeof(*a));
	a->fd = fd;
	a->path = xstrdup(path);
	*out = a;
	return 0;
fail:
	close(fd);
	return r;
}

/* Return the length of the valid UTF-8 sequence at p (n bytes), or 0. */
static size_t
audit_utf8_len(const unsigned char *p, size_t n)
{
	size_t		len, i;
	unsigned	min, cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		min = 0x80;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		min = 0x800;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		min = 0x10000;
	} else
		return 0;
	if (len > n)
		return 0;
	cp = p[0] & (0x7f >> len);
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Return s cut to AUDIT_FIELD_MAX bytes with bad UTF-8 replaced. */
static char *
audit_clean(const char *s)
{
	struct buf		 b = BUF_INIT;
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 n, len;

	n = strnlen(s, AUDIT_FIELD_MAX);
	while (n > 0) {
		if ((len = audit_utf8_len(p, n)) == 0) {
			/* A sequence cut by the limit is dropped. */
			if (n < 4 && strlen((const char *)p) > n)
				break;
			buf_append_str(&b, "\xef\xbf\xbd");
			len = 1;
		} else
			buf_append(&b, p, len);
		p += len;
		n -= len;
	}
	buf_append(&b, "", 1);
	return buf_detach(&b);
}

/* Add string s (or null) to obj as name. */
static void
audit_add_str(cJSON *obj, const char *name, const char *s)
{
	char	*c;

	if (s == NULL) {
		cJSON_AddNullToObject(obj, name);
		return;
	}
	c = audit_clean(s);
	cJSON_AddStringToObject(obj, name, c);
	free(c);
}

/* Format epoch milliseconds as RFC 3339 UTC with milliseconds. */
static void
audit_time(int64_t ms, char *out, size_t len)
{
	struct tm	tm;
	time_t		sec;
	int64_t		frac;

	frac = ms % 1000;
	if (frac < 0)
		frac += 1000;
	sec = (time_t)((ms - frac) / 1000);
	if (gmtime_r(&sec, &tm) == NULL)
		memset(&tm, 0, sizeof(tm));
	snprintf(out, len, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
	    tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
	    tm.tm_min, tm.tm_sec, (int)frac);
}

/* Format one record; see audit.h. */
char *
audit_format(const struct audit_rec *rec)
{
	cJSON	*obj;
	char	 when[64], *line, *p;

	audit_time(rec->start_ms, when, sizeof(when));
	if ((obj = cJSON_CreateObject()) == NULL)
		audit_fatal("cJSON_CreateObject");
	cJSON_AddStringToObject(obj, "time", when);
	audit_add_str(obj, "caller", rec->caller);
	audit_add_str(obj, "agent", rec->agent);
	audit_add_str(obj, "sandbox", rec->sandbox);
	audit_add_str(obj, "host", rec->host);
	audit_add_str(obj, "tool", rec->tool);
	cJSON_AddBoolToObject(obj, "elevated", rec->elevated != 0);
	cJSON_AddNumberToObject(obj, "duration_ms", (double)rec->duration_ms);
	cJSON_AddNumberToObject(obj, "exit_status", rec->exit_status);
	cJSON_AddNumberToObject(obj, "bytes_in", (double)rec->bytes_in);
	cJSON_AddNumberToObject(obj, "bytes_out", (double)rec->bytes_out);
	audit_add_str(obj, "error", rec->error);
	if ((p = cJSON_PrintUnformatted(obj)) == NULL)
		audit_fatal("cJSON_PrintUnformatted");
	cJSON_Delete(obj);
	line = xstrdup(p);
	cJSON_free(p);
	return line;
}

/* Append one record as a line; see audit.h. */
int
audit_write(struct audit *a, const struct audit_rec *rec)
{
	char	*line, *text;
	size_t	 len;
	ssize_t	 w;
	int	 r = 0;

	if (a == NULL)
		return 0;
	line = audit_format(rec);
	text = xasprintf("%s\n", line);
	free(line);
	len = strlen(text);
	do
		w = write(a->fd, text, len);
	while (w == -1 && errno == EINTR);
	if (w == -1)
		r = claw_err_from_errno(errno);
	else if ((size_t)w != len)
		r = CLAW_ERR_IO;
	free(text);
	return r;
}

/* Close the log; NULL is fine. */
void
audit_free(struct audit *a)
{
	if (a == NULL)
		return;
	close(a->fd);
	free(a->path);
	free(a);
}
