/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sandboxes as data: enum names, key, image and root checks, ids, config
 * hashes and the metadata file.  Everything decoded is treated as hostile:
 * sizes are capped, every field is checked, and messages quote bad values
 * escaped and shortened.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "compat.h"
#include "buf.h"
#include "error.h"
#include "jsonc.h"
#include "log.h"
#include "names.h"
#include "sandbox.h"
#include "sha256.h"
#include "xmalloc.h"

#define SANDBOX_B32		"abcdefghijklmnopqrstuvwxyz234567"
#define SANDBOX_HEX		"0123456789abcdef"
#define SANDBOX_ID_CHARS	12	/* base32 characters after the 'c' */
#define SANDBOX_QUOTE_MAX	64	/* bytes of a bad value in a message */
#define SANDBOX_CREATED_MAX	9007199254740991.0	/* 2^53 - 1 */

#define SANDBOX_IMAGE_CHARS	"abcdefghijklmnopqrstuvwxyz0123456789._-"
#define SANDBOX_USER_CHARS	"abcdefghijklmnopqrstuvwxyz0123456789_-"
#define SANDBOX_UID_DIGITS	10	/* digits of a uid or gid */
#define SANDBOX_ROOT_CHARS \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/+-@"

#define SANDBOX_NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

static const char *const sandbox_scopes[] = { "session", "agent", "shared" };
static const char *const sandbox_modes[] = { "mirror", "remote" };
static const char *const sandbox_accesses[] = { "rw", "ro", "none" };

const struct names sandbox_scope_names = NAMES_OF(sandbox_scopes);
const struct names sandbox_mode_names = NAMES_OF(sandbox_modes);
const struct names sandbox_access_names = NAMES_OF(sandbox_accesses);

/*
 * Return s in single quotes for a message (allocated): bytes that are not
 * printable ASCII, quotes and backslashes as \xNN, cut after
 * SANDBOX_QUOTE_MAX bytes with "...".
 */
static char *
sandbox_quote(const char *s)
{
	struct buf		 b = BUF_INIT;
	const unsigned char	*p = (const unsigned char *)s;
	size_t			 i;

	buf_append(&b, "'", 1);
	for (i = 0; p[i] != '\0'; i++) {
		if (i == SANDBOX_QUOTE_MAX) {
			buf_append_str(&b, "...");
			break;
		}
		if (p[i] < 0x20 || p[i] >= 0x7f || p[i] == '\\' ||
		    p[i] == '\'')
			buf_appendf(&b, "\\x%02x", p[i]);
		else
			buf_append(&b, p + i, 1);
	}
	buf_append(&b, "'", 1);
	return buf_detach(&b);
}

/* Fail with "invalid WHAT 'VALUE': why" (why allocated, freed here). */
static int
sandbox_fail_value(char **cause, const char *what, const char *value,
    char *why)
{
	char	*q;

	q = sandbox_quote(value);
	claw_fail(cause, CLAW_ERR_INVAL, "invalid %s %s: %s", what, q, why);
	free(q);
	free(why);
	return CLAW_ERR_INVAL;
}

/* Log that a library call failed where failure means no memory; abort. */
static void __attribute__((__noreturn__))
sandbox_fatal(const char *what)
{
	log_error("%s failed", what);
	abort();
}

/* Parse a scope name. */
int
sandbox_scope_parse(const char *s, enum sandbox_scope *out)
{
	int	v;

	if ((v = names_find(&sandbox_scope_names, s)) < 0)
		return CLAW_ERR_INVAL;
	*out = (enum sandbox_scope)v;
	return 0;
}

/* Name a scope; "unknown" for a value outside the enum. */
const char *
sandbox_scope_name(enum sandbox_scope scope)
{
	return names_get(&sandbox_scope_names, (int)scope);
}

/* Parse a mode name. */
int
sandbox_mode_parse(const char *s, enum sandbox_mode *out)
{
	int	v;

	if ((v = names_find(&sandbox_mode_names, s)) < 0)
		return CLAW_ERR_INVAL;
	*out = (enum sandbox_mode)v;
	return 0;
}

/* Name a mode; "unknown" for a value outside the enum. */
const char *
sandbox_mode_name(enum sandbox_mode mode)
{
	return names_get(&sandbox_mode_names, (int)mode);
}

/* Parse an access name. */
int
sandbox_access_parse(const char *s, enum sandbox_access *out)
{
	int	v;

	if ((v = names_find(&sandbox_access_names, s)) < 0)
		return CLAW_ERR_INVAL;
	*out = (enum sandbox_access)v;
	return 0;
}

/* Name an access; "unknown" for a value outside the enum. */
const char *
sandbox_access_name(enum sandbox_access access)
{
	return names_get(&sandbox_access_names, (int)access);
}

/* Set settings to the defaults; see sandbox.h. */
void
sandbox_settings_default(struct sandbox_settings *s)
{
	memset(s, 0, sizeof(*s));
	s->mode = SANDBOX_MODE_MIRROR;
	s->access = SANDBOX_ACCESS_RW;
	strlcpy(s->image, "host", sizeof(s->image));
	s->runtime = CONTAIN_BWRAP;
	s->network = CONTAIN_NET_NONE;
}

/*
 * Decode the UTF-8 sequence at NUL-terminated s: return its length and set
 * *cp, or return 0 if it is malformed (bad or missing continuation byte,
 * overlong, a surrogate, above U+10FFFF).
 */
static size_t
sandbox_utf8(const unsigned char *s, uint32_t *cp)
{
	uint32_t	c, min;
	size_t		i, n;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4, c = s[0] & 0x07, min = 0x10000;
	} else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return n;
}

/* Return why key (1..SANDBOX_KEY_MAX bytes) is not valid, or NULL. */
static char *
sandbox_key_problem(const char *key)
{
	const unsigned char	*p = (const unsigned char *)key;
	uint32_t		 cp;
	size_t			 n;

	while (*p != '\0') {
		if ((n = sandbox_utf8(p, &cp)) == 0)
			return xstrdup("not valid UTF-8");
		if (cp == '/')
			return xstrdup("'/' is not allowed");
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0))
			return xasprintf("control character U+%04X is not "
			    "allowed", (unsigned int)cp);
		p += n;
	}
	return NULL;
}

/* Check a key for scope; see sandbox.h. */
int
sandbox_key_check(enum sandbox_scope scope, const char *key, char **cause)
{
	char	*why;

	if (scope != SANDBOX_SCOPE_SESSION && scope != SANDBOX_SCOPE_AGENT &&
	    scope != SANDBOX_SCOPE_SHARED)
		return claw_fail(cause, CLAW_ERR_INVAL, "invalid scope %d",
		    (int)scope);
	if (key == NULL || *key == '\0') {
		if (scope == SANDBOX_SCOPE_SHARED)
			return 0;
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "scope '%s' needs a key", sandbox_scope_name(scope));
	}
	if (strnlen(key, SANDBOX_KEY_MAX + 1) > SANDBOX_KEY_MAX)
		why = xasprintf("longer than %d bytes", SANDBOX_KEY_MAX);
	else
		why = sandbox_key_problem(key);
	if (why != NULL)
		return sandbox_fail_value(cause, "key", key, why);
	return 0;
}

/* Check an image name; see sandbox.h. */
int
sandbox_image_check(const char *image, char **cause)
{
	size_t	 len;
	char	*why = NULL;

	if (image == NULL)
		return claw_fail(cause, CLAW_ERR_INVAL, "no image given");
	len = strnlen(image, SANDBOX_IMAGE_MAX + 1);
	if (len == 0)
		why = xstrdup("empty");
	else if (len > SANDBOX_IMAGE_MAX)
		why = xasprintf("longer than %d bytes", SANDBOX_IMAGE_MAX);
	else if (!((image[0] >= 'a' && image[0] <= 'z') ||
	    (image[0] >= '0' && image[0] <= '9')))
		why = xstrdup("must start with a lower-case letter or digit");
	else if (strspn(image, SANDBOX_IMAGE_CHARS) != len)
		why = xstrdup("only a-z, 0-9, '.', '_' and '-' are allowed");
	else if (strstr(image, "..") != NULL)
		why = xstrdup("'..' is not allowed");
	if (why != NULL)
		return sandbox_fail_value(cause, "image", image, why);
	return 0;
}

/* Check an image for a runtime; see sandbox.h. */
int
sandbox_image_check_for(enum contain_runtime rt, const char *image,
    char **cause)
{
	char	*why = NULL;
	int	 r;

	if (rt != CONTAIN_DOCKER && rt != CONTAIN_PODMAN)
		return sandbox_image_check(image, cause);
	if (image != NULL &&
	    strnlen(image, SANDBOX_REF_MAX + 1) > SANDBOX_REF_MAX)
		return sandbox_fail_value(cause, "image", image,
		    xasprintf("longer than %d bytes", SANDBOX_REF_MAX));
	if ((r = contain_image_ref_check(image, &why)) != 0) {
		claw_fail(cause, r, "%s", why);
		free(why);
	}
	return r;
}

/* Return 1 if s[0..n) is 1..SANDBOX_UID_DIGITS decimal digits. */
static int
sandbox_uid_ok(const char *s, size_t n)
{
	return n >= 1 && n <= SANDBOX_UID_DIGITS &&
	    strspn(s, "0123456789") >= n;
}

/* Check a user to run as; see sandbox.h. */
int
sandbox_user_check(const char *user, char **cause)
{
	const char	*colon;
	size_t		 len;

	if (user == NULL || *user == '\0')
		return claw_fail(cause, CLAW_ERR_INVAL, "no user given");
	len = strnlen(user, SANDBOX_USER_MAX + 1);
	if (len <= SANDBOX_USER_MAX && (colon = strchr(user, ':')) != NULL) {
		if (sandbox_uid_ok(user, (size_t)(colon - user)) &&
		    sandbox_uid_ok(colon + 1, strlen(colon + 1)))
			return 0;
	} else if (len <= SANDBOX_USER_MAX &&
	    ((user[0] >= 'a' && user[0] <= 'z') || user[0] == '_') &&
	    strspn(user, SANDBOX_USER_CHARS) == len)
		return 0;
	return sandbox_fail_value(cause, "user", user, xasprintf("want "
	    "\"uid:gid\" or a user name ([a-z_][a-z0-9_-]*, at most %d "
	    "bytes)", SANDBOX_USER_MAX));
}

/* The sandbox's own uid; see sandbox.h.  FNV-1a of the id. */
unsigned int
sandbox_default_uid(const char *id)
{
	uint32_t	h = 2166136261u;

	for (; *id != '\0'; id++)
		h = (h ^ (unsigned char)*id) * 16777619u;
	return SANDBOX_UID_BASE + h % SANDBOX_UID_SPAN;
}

/* Return why the components of absolute root are bad, or NULL. */
static const char *
sandbox_root_components(const char *root)
{
	const char	*p, *slash;
	size_t		 n;

	for (p = root + 1;; p = slash + 1) {
		slash = strchr(p, '/');
		n = slash == NULL ? strlen(p) : (size_t)(slash - p);
		if (n == 0)
			return "empty component ('//' or a trailing '/')";
		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return "'.' and '..' components are not allowed";
		if (slash == NULL)
			return NULL;
	}
}

/* Check a remoteRoot; see sandbox.h. */
int
sandbox_root_check(const char *root, char **cause)
{
	const char	*bad;
	size_t		 len;
	char		*why = NULL;

	if (root == NULL)
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "no remote root given");
	len = strnlen(root, SANDBOX_ROOT_MAX + 1);
	if (len > SANDBOX_ROOT_MAX)
		why = xasprintf("longer than %d bytes", SANDBOX_ROOT_MAX);
	else if (root[0] != '/')
		why = xstrdup("not an absolute path");
	else if (len == 1)
		why = xstrdup("'/' itself is not allowed");
	else if (strspn(root, SANDBOX_ROOT_CHARS) != len)
		why = xstrdup("only A-Z, a-z, 0-9 and '._/+-@' are allowed");
	else if ((bad = sandbox_root_components(root)) != NULL)
		why = xstrdup(bad);
	if (why != NULL)
		return sandbox_fail_value(cause, "remote root", root, why);
	return 0;
}

/* Derive the id for scope, key and host; see sandbox.h. */
void
sandbox_id(enum sandbox_scope scope, const char *key,
    const char *host_identity, char id[SANDBOX_ID_LEN + 1])
{
	struct buf	b = BUF_INIT;
	unsigned char	md[SHA256_LEN];
	uint64_t	bits = 0;
	size_t		i;

	if (scope == SANDBOX_SCOPE_SHARED && (key == NULL || *key == '\0'))
		key = SANDBOX_SHARED_KEY;
	buf_append_str(&b, sandbox_scope_name(scope));
	buf_append(&b, "", 1);
	buf_append_str(&b, key != NULL ? key : "");
	buf_append(&b, "", 1);
	buf_append_str(&b, host_identity != NULL ? host_identity : "");
	sha256(b.data, b.len, md);
	buf_free(&b);
	for (i = 0; i < 8; i++)
		bits = (bits << 8) | md[i];
	bits >>= 4;		/* the first 60 bits */
	id[0] = 'c';
	for (i = 0; i < SANDBOX_ID_CHARS; i++)
		id[1 + i] = SANDBOX_B32[(bits >> (55 - 5 * i)) & 0x1f];
	id[SANDBOX_ID_LEN] = '\0';
}

/* Return 1 if id is 'c' and 12 base32 characters, else 0. */
int
sandbox_id_ok(const char *id)
{
	if (id == NULL || id[0] != 'c')
		return 0;
	if (strnlen(id, SANDBOX_ID_LEN + 1) != SANDBOX_ID_LEN)
		return 0;
	return strspn(id + 1, SANDBOX_B32) == SANDBOX_ID_CHARS;
}

/* Compute the config hash of s; see sandbox.h. */
void
sandbox_config_hash(const struct sandbox_settings *s,
    char hex[SANDBOX_HASH_LEN + 1])
{
	unsigned char	 md[SHA256_LEN];
	char		*text, *gpus, *tail;
	size_t		 i;

	gpus = s->gpus == 0 ? xstrdup("") : xasprintf("gpus=%d\n", s->gpus);
	tail = xasprintf("%s%.*s%s%s", s->user[0] == '\0' ? "" : "user=",
	    SANDBOX_USER_MAX, s->user, s->user[0] == '\0' ? "" : "\n",
	    s->workdir == SANDBOX_WORKDIR_LOCAL ? "workdir=local\n" : "");
	if (s->runtime == CONTAIN_NONE && s->network == CONTAIN_NET_NONE)
		text = xasprintf("access=%s\n%simage=%.*s\nmode=%s\n%s",
		    sandbox_access_name(s->access), gpus, SANDBOX_REF_MAX,
		    s->image, sandbox_mode_name(s->mode), tail);
	else
		text = xasprintf("access=%s\n%simage=%.*s\nmode=%s\n"
		    "network=%s\nruntime=%s\n%s",
		    sandbox_access_name(s->access), gpus, SANDBOX_REF_MAX,
		    s->image, sandbox_mode_name(s->mode),
		    contain_network_name(s->network),
		    contain_runtime_name(s->runtime), tail);
	free(tail);
	free(gpus);
	sha256(text, strlen(text), md);
	free(text);
	for (i = 0; i < SHA256_LEN; i++) {
		hex[2 * i] = SANDBOX_HEX[md[i] >> 4];
		hex[2 * i + 1] = SANDBOX_HEX[md[i] & 0x0f];
	}
	hex[SANDBOX_HASH_LEN] = '\0';
}

/* Add member name with the string in s[0..cap) (NUL-terminated or not). */
static void
sandbox_json_add(cJSON *obj, const char *name, const char *s, size_t cap)
{
	char	*v;

	v = xstrndup(s, cap);
	if (cJSON_AddStringToObject(obj, name, v) == NULL)
		sandbox_fatal("cJSON_AddStringToObject");
	free(v);
}

/*
 * Add member name with the integer n, written exactly: cJSON prints large
 * doubles with 15 significant digits, which would round 2^53 - 1.
 */
static void
sandbox_json_int(cJSON *obj, const char *name, int64_t n)
{
	char	num[32];

	snprintf(num, sizeof(num), "%" PRId64, n);
	if (cJSON_AddRawToObject(obj, name, num) == NULL)
		sandbox_fatal("cJSON_AddRawToObject");
}

/* Encode meta as JSON; see sandbox.h. */
char *
sandbox_meta_encode(const struct sandbox_meta *meta)
{
	const struct sandbox_settings	*s = &meta->settings;
	cJSON				*o;
	char				*json, *out;

	if ((o = cJSON_CreateObject()) == NULL)
		sandbox_fatal("cJSON_CreateObject");
	sandbox_json_int(o, "version", meta->version);
	sandbox_json_add(o, "id", meta->id, sizeof(meta->id));
	sandbox_json_add(o, "scope", sandbox_scope_name(meta->scope),
	    SIZE_MAX);
	sandbox_json_add(o, "key", meta->key, sizeof(meta->key));
	sandbox_json_add(o, "mode", sandbox_mode_name(s->mode), SIZE_MAX);
	sandbox_json_add(o, "access", sandbox_access_name(s->access),
	    SIZE_MAX);
	sandbox_json_add(o, "image", s->image, sizeof(s->image));
	sandbox_json_add(o, "runtime", contain_runtime_name(s->runtime),
	    SIZE_MAX);
	sandbox_json_add(o, "network", contain_network_name(s->network),
	    SIZE_MAX);
	if (s->gpus != 0)
		sandbox_json_int(o, "gpus", s->gpus);
	if (s->user[0] != '\0')
		sandbox_json_add(o, "runAs", s->user, sizeof(s->user));
	if (s->workdir != SANDBOX_WORKDIR_WORKSPACE)
		sandbox_json_add(o, "workdir", sandbox_workdir_name(s->workdir),
		    SIZE_MAX);
	sandbox_json_add(o, "configHash", meta->config_hash,
	    sizeof(meta->config_hash));
	sandbox_json_int(o, "created", meta->created);
	sandbox_json_add(o, "workspace", meta->workspace,
	    sizeof(meta->workspace));
	json = cJSON_Print(o);
	cJSON_Delete(o);
	if (json == NULL)
		sandbox_fatal("cJSON_Print");
	out = xasprintf("%s\n", json);
	cJSON_free(json);
	return out;
}

/*
 * Metadata decoding.  Each field has a handler that checks the member and
 * stores it in the meta being built; on failure it sets *why (allocated)
 * to what is wrong and returns CLAW_ERR_PARSE, and meta_field names the
 * field.
 */
struct meta_ctx {
	const char		*want_id;	/* NULL: any id */
	struct sandbox_meta	*m;		/* being filled */
};

typedef int (*meta_field_fn)(const cJSON *, struct meta_ctx *, char **);

struct meta_field {
	const char	*name;
	meta_field_fn	 fn;
	int		 optional;	/* missing: keep the zero value */
};

/* Return item's string, or NULL with *why set if it is not a string. */
static const char *
meta_string(const cJSON *item, char **why)
{
	const char	*s;

	if ((s = cJSON_GetStringValue(item)) == NULL)
		*why = xstrdup("expected a string");
	return s;
}

/* Check "version": only SANDBOX_META_VERSION is understood. */
static int
meta_version(const cJSON *item, struct meta_ctx *c, char **why)
{
	if (!cJSON_IsNumber(item)) {
		*why = xstrdup("expected a number");
		return CLAW_ERR_PARSE;
	}
	if (item->valuedouble != SANDBOX_META_VERSION) {
		*why = xasprintf("unsupported version %.17g (expected %d)",
		    item->valuedouble, SANDBOX_META_VERSION);
		return CLAW_ERR_PARSE;
	}
	c->m->version = SANDBOX_META_VERSION;
	return 0;
}

/* Check "id": the shape sandbox_id makes, and want_id if given. */
static int
meta_id(const cJSON *item, struct meta_ctx *c, char **why)
{
	const char	*s;
	char		*q, *qw;

	if ((s = meta_string(item, why)) == NULL)
		return CLAW_ERR_PARSE;
	q = sandbox_quote(s);
	if (!sandbox_id_ok(s))
		*why = xasprintf("%s is not a sandbox id", q);
	else if (c->want_id != NULL && strcmp(s, c->want_id) != 0) {
		qw = sandbox_quote(c->want_id);
		*why = xasprintf("%s is not the expected %s", q, qw);
		free(qw);
	} else
		strlcpy(c->m->id, s, sizeof(c->m->id));
	free(q);
	return *why == NULL ? 0 : CLAW_ERR_PARSE;
}

/* Return the value string item names in t, or CLAW_ERR_PARSE with *why. */
static int
meta_enum(const cJSON *item, const struct names *t, const char *what,
    char **why)
{
	const char	*s;
	char		*q;
	int		 v;

	if ((s = meta_string(item, why)) == NULL)
		return CLAW_ERR_PARSE;
	if ((v = names_find(t, s)) == -1) {
		q = sandbox_quote(s);
		*why = xasprintf("unknown %s %s", what, q);
		free(q);
		return CLAW_ERR_PARSE;
	}
	return v;
}

/* Check "scope". */
static int
meta_scope(const cJSON *item, struct meta_ctx *c, char **why)
{
	int	v;

	v = meta_enum(item, &sandbox_scope_names, "scope", why);
	if (v < 0)
		return v;
	c->m->scope = (enum sandbox_scope)v;
	return 0;
}

/* Check "mode". */
static int
meta_mode(const cJSON *item, struct meta_ctx *c, char **why)
{
	int	v;

	v = meta_enum(item, &sandbox_mode_names, "mode", why);
	if (v < 0)
		return v;
	c->m->settings.mode = (enum sandbox_mode)v;
	return 0;
}

/* Check "access". */
static int
meta_access(const cJSON *item, struct meta_ctx *c, char **why)
{
	int	v;

	v = meta_enum(item, &sandbox_access_names, "access", why);
	if (v < 0)
		return v;
	c->m->settings.access = (enum sandbox_access)v;
	return 0;
}

/* Fail an enum member: "unknown WHAT 'S'". */
static int
meta_unknown(const char *what, const char *s, char **why)
{
	char	*q;

	q = sandbox_quote(s);
	*why = xasprintf("unknown %s %s", what, q);
	free(q);
	return CLAW_ERR_PARSE;
}

/* Check "runtime". */
static int
meta_runtime(const cJSON *item, struct meta_ctx *c, char **why)
{
	const char	*s;

	if ((s = meta_string(item, why)) == NULL)
		return CLAW_ERR_PARSE;
	if (contain_runtime_parse(s, &c->m->settings.runtime) != 0)
		return meta_unknown("runtime", s, why);
	return 0;
}

/* Check "network". */
static int
meta_network(const cJSON *item, struct meta_ctx *c, char **why)
{
	const char	*s;

	if ((s = meta_string(item, why)) == NULL)
		return CLAW_ERR_PARSE;
	if (contain_network_parse(s, &c->m->settings.network) != 0)
		return meta_unknown("network", s, why);
	return 0;
}

/* Check "gpus": -1 (all) or 1 to SANDBOX_GPUS_MAX. */
static int
meta_gpus(const cJSON *item, struct meta_ctx *c, char **why)
{
	double	d = cJSON_IsNumber(item) ? item->valuedouble : 0;

	if (!(d == -1 || (d >= 1 && d <= SANDBOX_GPUS_MAX)) ||
	    d != (double)(int)d) {
		*why = xasprintf("expected -1 (all) or 1 to %d",
		    SANDBOX_GPUS_MAX);
		return CLAW_ERR_PARSE;
	}
	c->m->settings.gpus = (int)d;
	return 0;
}

/* Check "key" against the scope read before it; empty is refused too. */
static int
meta_key(const cJSON *item, struct meta_ctx *c, char **why)
{
	const char	*s;

	if ((s = meta_string(item, why)) == NULL)
		return CLAW_ERR_PARSE;
	if (*s == '\0') {
		*why = xstrdup("empty (the effective key is recorded)");
		return CLAW_ERR_PARSE;
	}
	if (sandbox_key_check(c->m->scope, s, why) != 0)
		return CLAW_ERR_PARSE;
	strlcpy(c->m->key, s, sizeof(c->m->key));
	return 0;
}

/* Check "image" for the runtime read before it. */
static int
meta_image(const cJSON *item, struct meta_ctx *c, char **why)
{
	const char	*s;

	if ((s = meta_string(item, why)) == NULL)
		return CLAW_ERR_PARSE;
	if (sandbox_image_check_for(c->m->settings.runtime, s, why) != 0)
		return CLAW_ERR_PARSE;
	strlcpy(c->m->settings.image, s, sizeof(c->m->settings.image));
	return 0;
}

/* Check "runAs": a user sandbox_user_check takes. */
static int
meta_user(const cJSON *item, struct meta_ctx *c, char **why)
{
	const char	*s;

	if ((s = meta_string(item, why)) == NULL)
		return CLAW_ERR_PARSE;
	if (sandbox_user_check(s, why) != 0)
		return CLAW_ERR_PARSE;
	strlcpy(c->m->settings.user, s, sizeof(c->m->settings.user));
	return 0;
}

/* Check "workdir": "/workspace" or "local". */
static int
meta_workdir(const cJSON *item, struct meta_ctx *c, char **why)
{
	const char	*s;

	if ((s = meta_string(item, why)) == NULL)
		return CLAW_ERR_PARSE;
	if (sandbox_workdir_parse(s, &c->m->settings.workdir) != 0) {
		*why = xstrdup("expected \"" SANDBOX_WORKSPACE "\" or "
		    "\"local\"");
		return CLAW_ERR_PARSE;
	}
	return 0;
}

/* Check "configHash": 64 lower-case hex digits. */
static int
meta_hash(const cJSON *item, struct meta_ctx *c, char **why)
{
	const char	*s;

	if ((s = meta_string(item, why)) == NULL)
		return CLAW_ERR_PARSE;
	if (strnlen(s, SANDBOX_HASH_LEN + 1) != SANDBOX_HASH_LEN ||
	    strspn(s, SANDBOX_HEX) != SANDBOX_HASH_LEN) {
		*why = xasprintf("expected %d lower-case hex digits",
		    SANDBOX_HASH_LEN);
		return CLAW_ERR_PARSE;
	}
	strlcpy(c->m->config_hash, s, sizeof(c->m->config_hash));
	return 0;
}

/* Check "created": a whole number of seconds from 0 to 2^53 - 1. */
static int
meta_created(const cJSON *item, struct meta_ctx *c, char **why)
{
	double	d;

	d = cJSON_IsNumber(item) ? item->valuedouble : -1;
	if (!(d >= 0 && d <= SANDBOX_CREATED_MAX) ||
	    d != (double)(int64_t)d) {
		*why = xasprintf("expected an integer from 0 to %.0f",
		    SANDBOX_CREATED_MAX);
		return CLAW_ERR_PARSE;
	}
	c->m->created = (int64_t)d;
	return 0;
}

/* Check "workspace": an absolute path without control characters. */
static int
meta_workspace(const cJSON *item, struct meta_ctx *c, char **why)
{
	const unsigned char	*p;
	const char		*s;

	if ((s = meta_string(item, why)) == NULL)
		return CLAW_ERR_PARSE;
	if (strnlen(s, SANDBOX_ROOT_MAX + 1) > SANDBOX_ROOT_MAX)
		*why = xasprintf("longer than %d bytes", SANDBOX_ROOT_MAX);
	else if (s[0] != '/')
		*why = xstrdup("not an absolute path");
	for (p = (const unsigned char *)s; *why == NULL && *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			*why = xasprintf("control character 0x%02x is not "
			    "allowed", *p);
	}
	if (*why != NULL)
		return CLAW_ERR_PARSE;
	strlcpy(c->m->workspace, s, sizeof(c->m->workspace));
	return 0;
}

/*
 * The fields in the order they are checked: scope comes before key,
 * runtime before image.
 */
static const struct meta_field meta_fields[] = {
	{ "version", meta_version, 0 },
	{ "id", meta_id, 0 },
	{ "scope", meta_scope, 0 },
	{ "key", meta_key, 0 },
	{ "mode", meta_mode, 0 },
	{ "access", meta_access, 0 },
	{ "runtime", meta_runtime, 1 },
	{ "network", meta_network, 1 },
	{ "image", meta_image, 0 },
	{ "gpus", meta_gpus, 1 },
	{ "runAs", meta_user, 1 },
	{ "workdir", meta_workdir, 1 },
	{ "configHash", meta_hash, 0 },
	{ "created", meta_created, 0 },
	{ "workspace", meta_workspace, 0 }
};

/* Return how many members of obj are called name. */
static size_t
meta_count(const cJSON *obj, const char *name)
{
	const cJSON	*m;
	size_t		 n = 0;

	for (m = obj->child; m != NULL; m = m->next) {
		if (m->string != NULL && strcmp(m->string, name) == 0)
			n++;
	}
	return n;
}

/* Check and store field f of the metadata object root. */
static int
meta_field(const cJSON *root, const struct meta_field *f,
    struct meta_ctx *c, char **cause)
{
	const cJSON	*item;
	char		*why = NULL;
	size_t		 n;

	if ((n = meta_count(root, f->name)) == 0 && f->optional)
		return 0;
	if (n != 1)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "metadata: field '%s': %s", f->name,
		    n == 0 ? "missing" : "given more than once");
	item = cJSON_GetObjectItemCaseSensitive(root, f->name);
	if (f->fn(item, c, &why) == 0)
		return 0;
	claw_fail(cause, CLAW_ERR_PARSE, "metadata: field '%s': %s",
	    f->name, why);
	free(why);
	return CLAW_ERR_PARSE;
}

/*
 * Return 1 if text[0..len) holds the escape \u0000 anywhere: cJSON would
 * decode it into a NUL that silently shortens a string or member name.
 */
static int
meta_has_nul_escape(const char *text, size_t len)
{
	size_t	i, run = 0;

	for (i = 0; i < len; i++) {
		if (text[i] == '\\') {
			run++;
			continue;
		}
		if (text[i] == 'u' && run % 2 == 1 && len - i > 4 &&
		    memcmp(text + i + 1, "0000", 4) == 0)
			return 1;
		run = 0;
	}
	return 0;
}

/* Decode the metadata file; see sandbox.h. */
int
sandbox_meta_decode(const char *text, size_t len, const char *want_id,
    struct sandbox_meta *meta, char **cause)
{
	struct sandbox_meta	 m;
	struct meta_ctx		 c = { want_id, &m };
	cJSON			*root = NULL;
	size_t			 i;
	int			 r;

	if (text == NULL)
		return claw_fail(cause, CLAW_ERR_PARSE, "metadata: none");
	if (len > SANDBOX_META_MAX)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "metadata: larger than %d bytes", SANDBOX_META_MAX);
	if (meta_has_nul_escape(text, len))
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "metadata: \\u0000 (a NUL character) is not allowed");
	if ((r = jsonc_parse("metadata", text, len, &root, cause)) != 0)
		return r;
	memset(&m, 0, sizeof(m));
	if (!cJSON_IsObject(root))
		r = claw_fail(cause, CLAW_ERR_PARSE,
		    "metadata: expected an object");
	for (i = 0; r == 0 && i < SANDBOX_NITEMS(meta_fields); i++)
		r = meta_field(root, &meta_fields[i], &c, cause);
	cJSON_Delete(root);
	if (r == 0)
		*meta = m;
	return r;
}
