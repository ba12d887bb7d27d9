/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Host key verification against OpenSSH known_hosts files.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include "base64.h"
#include "compat.h"
#include "error.h"
#include "fdio.h"
#include "knownhosts.h"
#include "strv.h"
#include "log.h"
#include "match.h"
#include "xmalloc.h"

#define KH_LINE_MAX	65536			/* longest line considered */
#define KH_BLOB_MAX	(KH_LINE_MAX / 4 * 3)	/* largest key blob */
#define KH_TYPE_MAX	64			/* longest key type name */
#define KH_TYPES_MAX	64			/* most distinct types listed */
#define KH_SALT_LEN	20			/* salt and HMAC-SHA1 size */
#define KH_HASH_MAGIC	"|1|"

enum kh_marker {
	KH_MARK_NONE,
	KH_MARK_REVOKED,
	KH_MARK_CA
};

enum kh_read {
	KH_READ_EOF,
	KH_READ_LINE,
	KH_READ_SKIP,
	KH_READ_ERROR
};

/* The fields of one line, split in place. */
struct kh_fields {
	enum kh_marker	 marker;
	char		*hosts;
	char		*type;
	char		*b64;
};

/* A well-formed line whose host field matched the name looked up. */
struct kh_entry {
	const char	*file;
	size_t		 line;
	enum kh_marker	 marker;
	char		*type;		/* allocated */
	unsigned char	*blob;		/* allocated */
	size_t		 bloblen;
};

/* Called for each matching line: 0 to go on, 1 to stop, or negative. */
typedef int (*kh_visit_fn)(const struct kh_entry *, void *);

/* State of one walk over the files. */
struct kh_walk {
	const char	*name;
	const char	*file;
	kh_visit_fn	 fn;
	void		*arg;
};

/* A line remembered by knownhosts_check; file NULL if none. */
struct kh_hit {
	const char	*file;
	size_t		 line;
};

/* State of knownhosts_check. */
struct kh_check {
	const unsigned char	*key;
	size_t			 keylen;
	char			*type;
	struct kh_hit		 revoked;
	struct kh_hit		 match;
	struct kh_hit		 changed;
};

/* State of knownhosts_types. */
struct kh_types {
	char	**v;
	size_t	  n;
};

/* Set *cause, if cause is not NULL, to a formatted message. */
static void __attribute__((__format__(__printf__, 2, 3)))
kh_cause(char **cause, const char *fmt, ...)
{
	va_list	ap;

	if (cause == NULL)
		return;
	va_start(ap, fmt);
	*cause = xvasprintf(fmt, ap);
	va_end(ap);
}

/* Set *cause to "FILE: WHAT: error" from errno and return its code. */
static int
kh_errno(char **cause, const char *file, const char *what)
{
	int	saved = errno;

	if (saved == 0)
		saved = EIO;
	kh_cause(cause, "%s: %s: %s", file, what, strerror(saved));
	return claw_err_from_errno(saved);
}

/* Read a big-endian 32-bit number. */
static uint32_t
kh_u32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

/* HMAC-SHA1 of name keyed by salt into mac: 0, or CLAW_ERR_UNSUPPORTED. */
static int
kh_hmac(const unsigned char *salt, const char *name,
    unsigned char mac[KH_SALT_LEN])
{
	unsigned char	out[EVP_MAX_MD_SIZE];
	unsigned int	outlen = 0;

	if (HMAC(EVP_sha1(), salt, KH_SALT_LEN, (const unsigned char *)name,
	    strlen(name), out, &outlen) == NULL || outlen != KH_SALT_LEN)
		return CLAW_ERR_UNSUPPORTED;
	memcpy(mac, out, KH_SALT_LEN);
	return 0;
}

/* Build the lower-cased name to look up for host and port. */
static int
kh_name(const char *host, int port, char **name, char **cause)
{
	char	*s, *p;

	if (host == NULL || *host == '\0') {
		kh_cause(cause, "empty host name");
		return CLAW_ERR_INVAL;
	}
	if (port < 0 || port > 65535) {
		kh_cause(cause, "%d: invalid port", port);
		return CLAW_ERR_INVAL;
	}
	if (port == 0 || port == 22)
		s = xstrdup(host);
	else
		s = xasprintf("[%s]:%d", host, port);
	for (p = s; *p != '\0'; p++) {
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	}
	*name = s;
	return 0;
}

/*
 * Read one line of f into buf (size bytes, NUL-terminated, newline removed).
 * A line too long for buf or holding a NUL byte is read to its end and
 * reported as KH_READ_SKIP.
 */
static enum kh_read
kh_read_line(FILE *f, char *buf, size_t size)
{
	size_t	len = 0;
	int	c, bad = 0, any = 0;

	while ((c = getc(f)) != EOF) {
		any = 1;
		if (c == '\n')
			break;
		if (c == '\0' || len + 1 >= size)
			bad = 1;
		else
			buf[len++] = (char)c;
	}
	if (ferror(f))
		return KH_READ_ERROR;
	if (!any)
		return KH_READ_EOF;
	if (len > 0 && buf[len - 1] == '\r')
		len--;
	buf[len] = '\0';
	return bad ? KH_READ_SKIP : KH_READ_LINE;
}

/* Return the next blank-separated token at *sp and advance, or NULL. */
static char *
kh_token(char **sp)
{
	char	*s = *sp, *tok;

	s += strspn(s, " \t");
	if (*s == '\0')
		return NULL;
	tok = s;
	s += strcspn(s, " \t");
	if (*s != '\0')
		*s++ = '\0';
	*sp = s;
	return tok;
}

/*
 * Split line in place; return 0, 1 for a blank or comment, CLAW_ERR_PARSE
 * if bad.
 */
static int
kh_split(char *line, struct kh_fields *kf)
{
	char	*s = line, *tok;

	if ((tok = kh_token(&s)) == NULL || *tok == '#')
		return 1;
	kf->marker = KH_MARK_NONE;
	if (*tok == '@') {
		if (strcmp(tok, "@revoked") == 0)
			kf->marker = KH_MARK_REVOKED;
		else if (strcmp(tok, "@cert-authority") == 0)
			kf->marker = KH_MARK_CA;
		else
			return CLAW_ERR_PARSE;
		tok = kh_token(&s);
	}
	kf->hosts = tok;
	kf->type = tok == NULL ? NULL : kh_token(&s);
	kf->b64 = kf->type == NULL ? NULL : kh_token(&s);
	return kf->b64 == NULL ? CLAW_ERR_PARSE : 0;
}

/*
 * Match a "|1|salt|hmac" field against name: 1, 0, CLAW_ERR_PARSE if
 * malformed, or CLAW_ERR_UNSUPPORTED without HMAC-SHA1.
 */
static int
kh_match_hashed(const char *field, const char *name)
{
	const char	*salt64, *bar;
	unsigned char	*salt = NULL, *hash = NULL, mac[KH_SALT_LEN];
	size_t		 saltlen, hashlen;
	int		 r = CLAW_ERR_PARSE;

	salt64 = field + strlen(KH_HASH_MAGIC);
	if ((bar = strchr(salt64, '|')) == NULL)
		return CLAW_ERR_PARSE;
	salt = base64_decode_strict(salt64, (size_t)(bar - salt64), &saltlen);
	if (salt == NULL)
		return CLAW_ERR_PARSE;
	hash = base64_decode_strict(bar + 1, strlen(bar + 1), &hashlen);
	if (hash == NULL || saltlen != KH_SALT_LEN || hashlen != KH_SALT_LEN)
		goto out;
	if ((r = kh_hmac(salt, name, mac)) != 0) {
		log_debug("known_hosts: HMAC-SHA1 failed");
		goto out;
	}
	r = CRYPTO_memcmp(mac, hash, KH_SALT_LEN) == 0;
out:
	free(salt);
	free(hash);
	return r;
}

/*
 * Return 1 if blob is a key type string followed by at least one more SSH
 * string, the strings covering it exactly (true of every plain public key
 * format), else 0.
 */
static int
kh_blob_ok(const unsigned char *blob, size_t len)
{
	size_t		off = 0, n = 0;
	uint32_t	slen;

	while (len - off >= 4) {
		slen = kh_u32(blob + off);
		off += 4;
		if (slen > len - off)
			return 0;
		off += slen;
		n++;
	}
	return off == len && n >= 2;
}

/* Return 1 if the host field of a line applies to name, else 0. */
static int
kh_host_match(const struct kh_walk *w, const char *hosts, size_t lineno)
{
	int	r;

	if (strncmp(hosts, KH_HASH_MAGIC, strlen(KH_HASH_MAGIC)) != 0)
		return match_pattern_list(w->name, hosts, 1) == 1;
	if ((r = kh_match_hashed(hosts, w->name)) < 0) {
		log_debug("%s:%zu: bad hashed host, skipped", w->file, lineno);
		return 0;
	}
	return r;
}

/*
 * Decode the key of a line into e, checking it against the type field:
 * 0, or CLAW_ERR_PARSE.
 */
static int
kh_decode_key(const struct kh_fields *kf, struct kh_entry *e)
{
	unsigned char	*blob;
	char		*type;
	size_t		 bloblen;

	blob = base64_decode_strict(kf->b64, strlen(kf->b64), &bloblen);
	if (blob == NULL) {
		log_debug("%s:%zu: bad base64 key, skipped", e->file, e->line);
		return CLAW_ERR_PARSE;
	}
	type = knownhosts_key_type(blob, bloblen);
	if (type == NULL || strcmp(type, kf->type) != 0 ||
	    !kh_blob_ok(blob, bloblen)) {
		log_debug("%s:%zu: bad key blob or type, skipped", e->file,
		    e->line);
		free(type);
		free(blob);
		return CLAW_ERR_PARSE;
	}
	e->type = type;
	e->blob = blob;
	e->bloblen = bloblen;
	return 0;
}

/* Parse one line and pass it to w->fn if it is a good line for w->name. */
static int
kh_visit_line(struct kh_walk *w, char *line, size_t lineno)
{
	struct kh_fields	kf;
	struct kh_entry		e;
	int			r;

	if ((r = kh_split(line, &kf)) != 0) {
		if (r < 0)
			log_debug("%s:%zu: malformed line, skipped", w->file,
			    lineno);
		return 0;
	}
	if (kf.marker == KH_MARK_CA || !kh_host_match(w, kf.hosts, lineno))
		return 0;
	e.file = w->file;
	e.line = lineno;
	e.marker = kf.marker;
	if (kh_decode_key(&kf, &e) != 0)
		return 0;
	r = w->fn(&e, w->arg);
	free(e.type);
	free(e.blob);
	return r;
}

/* Visit the lines of one file; a missing file is skipped. */
static int
kh_walk_file(struct kh_walk *w, const char *path, char **cause)
{
	FILE		*f;
	char		*buf;
	size_t		 lineno = 0;
	enum kh_read	 got;
	int		 r = 0;

	if ((f = fdio_fopen_text(path)) == NULL) {
		if (errno == EINVAL)
			return claw_fail(cause, CLAW_ERR_INVAL, "%s: not a "
			    "regular file", path);
		if (errno != ENOENT && errno != ENOTDIR)
			return kh_errno(cause, path, "open");
		log_debug("%s: not found, skipped", path);
		return 0;
	}
	w->file = path;
	buf = xmalloc(KH_LINE_MAX + 1);
	while (r == 0 && (got = kh_read_line(f, buf, KH_LINE_MAX + 1)) !=
	    KH_READ_EOF) {
		lineno++;
		if (got == KH_READ_ERROR)
			r = kh_errno(cause, path, "read");
		else if (got == KH_READ_SKIP)
			log_debug("%s:%zu: line too long or has a NUL byte, "
			    "skipped", path, lineno);
		else
			r = kh_visit_line(w, buf, lineno);
	}
	free(buf);
	fclose(f);
	return r;
}

/* Visit the lines for name in files; return 0, 1 if stopped, negative. */
static int
kh_walk(char *const *files, size_t nfiles, const char *name,
    kh_visit_fn fn, void *arg, char **cause)
{
	struct kh_walk	w;
	size_t		i;
	int		r = 0;

	w.name = name;
	w.file = NULL;
	w.fn = fn;
	w.arg = arg;
	for (i = 0; r == 0 && i < nfiles; i++) {
		if (files[i] == NULL)
			continue;
		r = kh_walk_file(&w, files[i], cause);
	}
	return r;
}

/* Note a line for knownhosts_check; stop at a revoked key. */
static int
kh_check_visit(const struct kh_entry *e, void *arg)
{
	struct kh_check	*c = arg;
	struct kh_hit	*hit;
	int		 same;

	same = e->bloblen == c->keylen &&
	    memcmp(e->blob, c->key, c->keylen) == 0;
	if (e->marker == KH_MARK_REVOKED) {
		if (!same)
			return 0;
		hit = &c->revoked;
	} else if (strcmp(e->type, c->type) != 0)
		return 0;
	else
		hit = same ? &c->match : &c->changed;
	if (hit->file == NULL) {
		hit->file = e->file;
		hit->line = e->line;
	}
	return e->marker == KH_MARK_REVOKED;
}

/* Turn what knownhosts_check saw into its verdict and fill where. */
static int
kh_check_verdict(const struct kh_check *c, struct knownhosts_where *where)
{
	const struct kh_hit	*hit;
	int			 r;

	if (c->revoked.file != NULL) {
		hit = &c->revoked;
		r = CLAW_ERR_HOSTKEY_REVOKED;
	} else if (c->match.file != NULL) {
		hit = &c->match;
		r = 0;
	} else if (c->changed.file != NULL) {
		hit = &c->changed;
		r = CLAW_ERR_HOSTKEY_CHANGED;
	} else
		return CLAW_ERR_HOSTKEY_UNKNOWN;
	if (where != NULL) {
		where->file = xstrdup(hit->file);
		where->line = hit->line;
	}
	return r;
}

/* Check key for host and port against known_hosts files. */
int
knownhosts_check(char *const *files, size_t nfiles, const char *host,
    int port, const unsigned char *key, size_t keylen,
    struct knownhosts_where *where, char **cause)
{
	struct kh_check	 c;
	char		*name = NULL;
	int		 r;

	if (where != NULL) {
		where->file = NULL;
		where->line = 0;
	}
	memset(&c, 0, sizeof c);
	if ((c.type = knownhosts_key_type(key, keylen)) == NULL) {
		kh_cause(cause, "invalid host key blob");
		return CLAW_ERR_INVAL;
	}
	c.key = key;
	c.keylen = keylen;
	if ((r = kh_name(host, port, &name, cause)) != 0)
		goto out;
	if ((r = kh_walk(files, nfiles, name, kh_check_visit, &c,
	    cause)) < 0)
		goto out;
	r = kh_check_verdict(&c, where);
out:
	free(name);
	free(c.type);
	return r;
}

/* Add the type of a plain line to the list unless already there. */
static int
kh_types_visit(const struct kh_entry *e, void *arg)
{
	struct kh_types	*t = arg;
	size_t		 i;

	if (e->marker != KH_MARK_NONE)
		return 0;
	for (i = 0; i < t->n; i++) {
		if (strcmp(t->v[i], e->type) == 0)
			return 0;
	}
	if (t->n >= KH_TYPES_MAX) {
		log_debug("%s:%zu: too many key types, %s ignored", e->file,
		    e->line, e->type);
		return 0;
	}
	t->v = xreallocarray(t->v, t->n + 2, sizeof *t->v);
	t->v[t->n++] = xstrdup(e->type);
	t->v[t->n] = NULL;
	return 0;
}

/* List the key types known for host and port. */
int
knownhosts_types(char *const *files, size_t nfiles, const char *host,
    int port, char ***types)
{
	struct kh_types	 t;
	char		*name = NULL, *cause = NULL;
	int		 r;

	if (types == NULL)
		return CLAW_ERR_INVAL;
	t.v = xcalloc(1, sizeof *t.v);
	t.n = 0;
	if ((r = kh_name(host, port, &name, &cause)) == 0 &&
	    (r = kh_walk(files, nfiles, name, kh_types_visit, &t,
	    &cause)) > 0)
		r = 0;
	if (r != 0) {
		log_debug("known_hosts: %s", cause);
		strv_free(t.v);
	} else
		*types = t.v;
	free(cause);
	free(name);
	return r;
}

/* Return 1 if host is safe to write as a plain known_hosts name. */
static int
kh_host_ok(const char *host)
{
	const char	*p;

	if (host == NULL || *host == '\0' || strchr("#@|", *host) != NULL)
		return 0;
	for (p = host; *p != '\0'; p++) {
		if ((unsigned char)*p <= ' ' || (unsigned char)*p > '~' ||
		    strchr(",*?!", *p) != NULL)
			return 0;
	}
	return 1;
}

/* Build the host field for name, hashed if asked. */
static int
kh_host_field(const char *name, int hash, char **field, char **cause)
{
	unsigned char	 salt[KH_SALT_LEN], mac[KH_SALT_LEN];
	char		*salt64, *mac64;

	if (!hash) {
		*field = xstrdup(name);
		return 0;
	}
	if (RAND_bytes(salt, sizeof salt) != 1) {
		kh_cause(cause, "cannot get random bytes for the salt");
		return CLAW_ERR_UNSUPPORTED;
	}
	if (kh_hmac(salt, name, mac) != 0) {
		kh_cause(cause, "HMAC-SHA1 failed");
		return CLAW_ERR_UNSUPPORTED;
	}
	salt64 = base64_encode(salt, sizeof salt);
	mac64 = base64_encode(mac, sizeof mac);
	*field = xasprintf("%s%s|%s", KH_HASH_MAGIC, salt64, mac64);
	free(salt64);
	free(mac64);
	return 0;
}

/* Create the directory holding file (mode 0700) if it is missing. */
static int
kh_mkparent(const char *file, char **cause)
{
	const char	*slash;
	char		*dir;
	int		 r = 0;

	if ((slash = strrchr(file, '/')) == NULL || slash == file)
		return 0;
	dir = xstrndup(file, (size_t)(slash - file));
	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		r = kh_errno(cause, dir, "mkdir");
	free(dir);
	return r;
}

/* Set *nl to 1 if the open file fd is empty or ends with a newline. */
static int
kh_ends_newline(int fd, const char *file, int *nl, char **cause)
{
	struct stat	sb;
	char		c;
	ssize_t		n;

	if (fstat(fd, &sb) != 0)
		return kh_errno(cause, file, "stat");
	if (!S_ISREG(sb.st_mode)) {
		kh_cause(cause, "%s: not a regular file", file);
		return CLAW_ERR_INVAL;
	}
	if (sb.st_size == 0) {
		*nl = 1;
		return 0;
	}
	while ((n = pread(fd, &c, 1, sb.st_size - 1)) == -1 && errno == EINTR)
		;
	if (n != 1)
		return kh_errno(cause, file, "read");
	*nl = c == '\n';
	return 0;
}

/*
 * Append line to file under an exclusive lock, in one write.  The file is
 * opened for reading too, to see whether its last byte is a newline.
 */
static int
kh_append(const char *file, const char *line, char **cause)
{
	char	*text = NULL;
	int	 fd, nl = 1, r;

	fd = open(file, O_RDWR|O_APPEND|O_CREAT|O_CLOEXEC, 0600);
	if (fd == -1)
		return kh_errno(cause, file, "open");
	while ((r = flock(fd, LOCK_EX)) == -1 && errno == EINTR)
		;
	if (r != 0) {
		r = kh_errno(cause, file, "lock");
		goto out;
	}
	if ((r = kh_ends_newline(fd, file, &nl, cause)) != 0)
		goto out;
	text = xasprintf("%s%s", nl ? "" : "\n", line);
	if (fdio_write_all(fd, text, strlen(text)) != 0)
		r = kh_errno(cause, file, "write");
	else if (fsync(fd) != 0)
		r = kh_errno(cause, file, "fsync");
out:
	if (close(fd) != 0 && r == 0)
		r = kh_errno(cause, file, "close");
	free(text);
	return r;
}

/* Append a line for host and port with key to file. */
int
knownhosts_add(const char *file, const char *host, int port,
    const unsigned char *key, size_t keylen, int hash, char **cause)
{
	char	*type, *name = NULL, *field = NULL, *b64 = NULL, *line = NULL;
	int	 r;

	if (!kh_host_ok(host)) {
		kh_cause(cause, "invalid host name for known_hosts");
		return CLAW_ERR_INVAL;
	}
	if (keylen > KH_BLOB_MAX ||
	    (type = knownhosts_key_type(key, keylen)) == NULL) {
		kh_cause(cause, "invalid host key blob");
		return CLAW_ERR_INVAL;
	}
	if ((r = kh_name(host, port, &name, cause)) != 0 ||
	    (r = kh_host_field(name, hash, &field, cause)) != 0)
		goto out;
	b64 = base64_encode(key, keylen);
	line = xasprintf("%s %s %s\n", field, type, b64);
	if ((r = kh_mkparent(file, cause)) == 0)
		r = kh_append(file, line, cause);
out:
	free(line);
	free(b64);
	free(field);
	free(name);
	free(type);
	return r;
}

/* Return the key type name from a key blob (allocated), or NULL if bad. */
char *
knownhosts_key_type(const unsigned char *key, size_t keylen)
{
	uint32_t	len;
	size_t		i;

	if (key == NULL || keylen < 4)
		return NULL;
	len = kh_u32(key);
	if (len == 0 || len > KH_TYPE_MAX || len > keylen - 4)
		return NULL;
	for (i = 0; i < len; i++) {
		if (key[4 + i] <= ' ' || key[4 + i] > '~')
			return NULL;
	}
	return xstrndup((const char *)key + 4, len);
}

/* Return "SHA256:<base64, no padding>" of key (allocated). */
char *
knownhosts_fingerprint(const unsigned char *key, size_t keylen)
{
	unsigned char	 md[EVP_MAX_MD_SIZE];
	unsigned int	 mdlen = 0;
	char		*b64, *fp;
	size_t		 n;

	if (EVP_Digest(key, keylen, md, &mdlen, EVP_sha256(), NULL) != 1 ||
	    mdlen != 32) {
		log_error("SHA-256 digest failed");
		abort();
	}
	b64 = base64_encode(md, mdlen);
	n = strlen(b64);
	while (n > 0 && b64[n - 1] == '=')
		b64[--n] = '\0';
	fp = xasprintf("SHA256:%s", b64);
	free(b64);
	return fp;
}

/* Free the strings inside where and reset it. */
void
knownhosts_where_clear(struct knownhosts_where *where)
{
	if (where == NULL)
		return;
	free(where->file);
	where->file = NULL;
	where->line = 0;
}
