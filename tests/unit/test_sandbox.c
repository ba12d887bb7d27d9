/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for sandbox: enum names, key, image and root rules, ids,
 * config hashes, and the metadata file against hostile input.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <cmocka.h>
#include <openssl/evp.h>

#include "compat.h"
#include "error.h"
#include "sandbox.h"
#include "xmalloc.h"

#define HASH_USER_NOBODY \
	"728445e6ac160cb3c4b31989ec78fea4" \
	"1b5e4493e934620b23daab09505180cc"
#define HOST		"alice@gpu.example.com:22"
#define META_ID_KEY	"chat-42"

/* Return a string of n copies of c (allocated). */
static char *
repeat(char c, size_t n)
{
	char	*s;

	s = xmalloc(n + 1);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

/* Expect result r to be CLAW_ERR_INVAL with *causep exactly expect. */
static void
expect_inval(int r, char **causep, const char *expect)
{
	assert_int_equal(r, CLAW_ERR_INVAL);
	assert_non_null(*causep);
	assert_string_equal(*causep, expect);
	free(*causep);
	*causep = NULL;
}

/* Expect sandbox_key_check(scope, key) to fail with message expect. */
static void
expect_bad_key(enum sandbox_scope scope, const char *key, const char *expect)
{
	char	*cause = NULL;

	expect_inval(sandbox_key_check(scope, key, &cause), &cause, expect);
	/* The cause is optional. */
	assert_int_equal(sandbox_key_check(scope, key, NULL), CLAW_ERR_INVAL);
}

/* Expect key to pass for every scope. */
static void
expect_good_key(const char *key)
{
	char	*cause = NULL;

	assert_int_equal(sandbox_key_check(SANDBOX_SCOPE_SESSION, key,
	    &cause), 0);
	assert_int_equal(sandbox_key_check(SANDBOX_SCOPE_AGENT, key, &cause),
	    0);
	assert_int_equal(sandbox_key_check(SANDBOX_SCOPE_SHARED, key,
	    &cause), 0);
	assert_null(cause);
}

/* Every enum value survives name then parse; other names are refused. */
static void
test_enum_roundtrip(void **state)
{
	enum sandbox_scope	sv;
	enum sandbox_mode	mv;
	enum sandbox_access	av;
	int			i;

	(void)state;
	for (i = SANDBOX_SCOPE_SESSION; i <= SANDBOX_SCOPE_SHARED; i++) {
		assert_int_equal(sandbox_scope_parse(
		    sandbox_scope_name((enum sandbox_scope)i), &sv), 0);
		assert_int_equal(sv, i);
	}
	for (i = SANDBOX_MODE_MIRROR; i <= SANDBOX_MODE_REMOTE; i++) {
		assert_int_equal(sandbox_mode_parse(
		    sandbox_mode_name((enum sandbox_mode)i), &mv), 0);
		assert_int_equal(mv, i);
	}
	for (i = SANDBOX_ACCESS_RW; i <= SANDBOX_ACCESS_NONE; i++) {
		assert_int_equal(sandbox_access_parse(
		    sandbox_access_name((enum sandbox_access)i), &av), 0);
		assert_int_equal(av, i);
	}
	assert_string_equal(sandbox_scope_name(SANDBOX_SCOPE_SESSION),
	    "session");
	assert_string_equal(sandbox_scope_name(SANDBOX_SCOPE_AGENT), "agent");
	assert_string_equal(sandbox_scope_name(SANDBOX_SCOPE_SHARED),
	    "shared");
	assert_string_equal(sandbox_mode_name(SANDBOX_MODE_MIRROR), "mirror");
	assert_string_equal(sandbox_mode_name(SANDBOX_MODE_REMOTE), "remote");
	assert_string_equal(sandbox_access_name(SANDBOX_ACCESS_RW), "rw");
	assert_string_equal(sandbox_access_name(SANDBOX_ACCESS_RO), "ro");
	assert_string_equal(sandbox_access_name(SANDBOX_ACCESS_NONE), "none");
}

/* Bad names fail and leave the out-pointer alone; bad values are named. */
static void
test_enum_bad_names(void **state)
{
	static const char *const bad[] = {
		"", "Session", "session ", " agent", "SHARED", "mirror\n",
		"RW", "r", "nonee", "unknown", "0"
	};
	enum sandbox_scope	sc = SANDBOX_SCOPE_AGENT;
	enum sandbox_mode	mo = SANDBOX_MODE_REMOTE;
	enum sandbox_access	ac = SANDBOX_ACCESS_NONE;
	size_t			i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(sandbox_scope_parse(bad[i], &sc),
		    CLAW_ERR_INVAL);
		assert_int_equal(sandbox_mode_parse(bad[i], &mo),
		    CLAW_ERR_INVAL);
		assert_int_equal(sandbox_access_parse(bad[i], &ac),
		    CLAW_ERR_INVAL);
	}
	assert_int_equal(sandbox_scope_parse(NULL, &sc), CLAW_ERR_INVAL);
	assert_int_equal(sandbox_mode_parse(NULL, &mo), CLAW_ERR_INVAL);
	assert_int_equal(sandbox_access_parse(NULL, &ac), CLAW_ERR_INVAL);
	assert_int_equal(sandbox_scope_parse("rw", &sc), CLAW_ERR_INVAL);
	assert_int_equal(sandbox_access_parse("mirror", &ac), CLAW_ERR_INVAL);
	assert_int_equal(sc, SANDBOX_SCOPE_AGENT);
	assert_int_equal(mo, SANDBOX_MODE_REMOTE);
	assert_int_equal(ac, SANDBOX_ACCESS_NONE);
	assert_string_equal(sandbox_scope_name((enum sandbox_scope)3),
	    "unknown");
	assert_string_equal(sandbox_scope_name((enum sandbox_scope)-1),
	    "unknown");
	assert_string_equal(sandbox_mode_name((enum sandbox_mode)2),
	    "unknown");
	assert_string_equal(sandbox_access_name((enum sandbox_access)3),
	    "unknown");
}

/* The defaults are mirror, rw and "host". */
static void
test_settings_default(void **state)
{
	struct sandbox_settings	s;

	(void)state;
	memset(&s, 0xa5, sizeof(s));
	sandbox_settings_default(&s);
	assert_int_equal(s.mode, SANDBOX_MODE_MIRROR);
	assert_int_equal(s.access, SANDBOX_ACCESS_RW);
	assert_string_equal(s.image, "host");
}

/* Keys of printable ASCII or UTF-8, spaces included, up to 256 bytes. */
static void
test_key_good(void **state)
{
	char	*k;

	(void)state;
	expect_good_key("a");
	expect_good_key("chat-42");
	expect_good_key("my key with spaces");
	expect_good_key("~!@#$%^&*()_+={}[]|\\:;\"'<>,.?`");
	expect_good_key(". ..");
	expect_good_key("caf\xc3\xa9 \xe6\x97\xa5\xe6\x9c\xac");
	expect_good_key("\xf0\x9f\x98\x80 \xc2\xa0nbsp \xf4\x8f\xbf\xbf");
	k = repeat('k', SANDBOX_KEY_MAX);
	expect_good_key(k);
	free(k);
}

/* Session and agent need a key; shared takes none, NULL or "". */
static void
test_key_required(void **state)
{
	char	*cause = NULL;

	(void)state;
	expect_bad_key(SANDBOX_SCOPE_SESSION, NULL,
	    "scope 'session' needs a key");
	expect_bad_key(SANDBOX_SCOPE_SESSION, "",
	    "scope 'session' needs a key");
	expect_bad_key(SANDBOX_SCOPE_AGENT, NULL, "scope 'agent' needs a key");
	expect_bad_key(SANDBOX_SCOPE_AGENT, "", "scope 'agent' needs a key");
	assert_int_equal(sandbox_key_check(SANDBOX_SCOPE_SHARED, NULL,
	    &cause), 0);
	assert_int_equal(sandbox_key_check(SANDBOX_SCOPE_SHARED, "", &cause),
	    0);
	assert_int_equal(sandbox_key_check(SANDBOX_SCOPE_SHARED,
	    SANDBOX_SHARED_KEY, &cause), 0);
	assert_null(cause);
	expect_bad_key((enum sandbox_scope)7, "k", "invalid scope 7");
}

/* '/', control characters and invalid UTF-8 are refused in every scope. */
static void
test_key_bad_bytes(void **state)
{
	(void)state;
	expect_bad_key(SANDBOX_SCOPE_SESSION, "a/b",
	    "invalid key 'a/b': '/' is not allowed");
	expect_bad_key(SANDBOX_SCOPE_SHARED, "/",
	    "invalid key '/': '/' is not allowed");
	expect_bad_key(SANDBOX_SCOPE_AGENT, "a\tb",
	    "invalid key 'a\\x09b': control character U+0009 is not allowed");
	expect_bad_key(SANDBOX_SCOPE_SESSION, "\n",
	    "invalid key '\\x0a': control character U+000A is not allowed");
	expect_bad_key(SANDBOX_SCOPE_SESSION, "x\x01",
	    "invalid key 'x\\x01': control character U+0001 is not allowed");
	expect_bad_key(SANDBOX_SCOPE_SHARED, "del\x7f",
	    "invalid key 'del\\x7f': control character U+007F is not "
	    "allowed");
	expect_bad_key(SANDBOX_SCOPE_SESSION, "c1\xc2\x85",
	    "invalid key 'c1\\xc2\\x85': control character U+0085 is not "
	    "allowed");
	expect_bad_key(SANDBOX_SCOPE_SESSION, "\xff",
	    "invalid key '\\xff': not valid UTF-8");
	expect_bad_key(SANDBOX_SCOPE_SESSION, "ab\xc3",
	    "invalid key 'ab\\xc3': not valid UTF-8");
	expect_bad_key(SANDBOX_SCOPE_SESSION, "\xc0\xaf",
	    "invalid key '\\xc0\\xaf': not valid UTF-8");
	expect_bad_key(SANDBOX_SCOPE_SESSION, "\xed\xa0\x80",
	    "invalid key '\\xed\\xa0\\x80': not valid UTF-8");
	expect_bad_key(SANDBOX_SCOPE_SESSION, "\xf4\x90\x80\x80",
	    "invalid key '\\xf4\\x90\\x80\\x80': not valid UTF-8");
	expect_bad_key(SANDBOX_SCOPE_SESSION, "\xe6\x97",
	    "invalid key '\\xe6\\x97': not valid UTF-8");
	expect_bad_key(SANDBOX_SCOPE_SESSION, "it's\\/",
	    "invalid key 'it\\x27s\\x5c/': '/' is not allowed");
}

/* Keys over 256 bytes are refused, and the message quotes only a prefix. */
static void
test_key_too_long(void **state)
{
	char	*k, *cause = NULL, *expect, *prefix;
	size_t	 i;

	(void)state;
	k = repeat('k', SANDBOX_KEY_MAX + 1);
	prefix = repeat('k', 64);
	expect = xasprintf("invalid key '%s...': longer than 256 bytes",
	    prefix);
	expect_inval(sandbox_key_check(SANDBOX_SCOPE_SHARED, k, &cause),
	    &cause, expect);
	free(expect);
	free(prefix);
	free(k);

	/* 128 two-byte characters are 256 bytes; one more is too many. */
	k = xcalloc(1, 2 * 129 + 1);
	for (i = 0; i < 128; i++)
		memcpy(k + 2 * i, "\xc3\xa9", 2);
	expect_good_key(k);
	memcpy(k + 256, "\xc3\xa9", 2);
	assert_int_equal(sandbox_key_check(SANDBOX_SCOPE_AGENT, k, NULL),
	    CLAW_ERR_INVAL);
	free(k);
}

/* Expect sandbox_image_check(image) to fail with message expect. */
static void
expect_bad_image(const char *image, const char *expect)
{
	char	*cause = NULL;

	expect_inval(sandbox_image_check(image, &cause), &cause, expect);
}

/* "host" and lower-case names up to 64 bytes pass; others fail. */
static void
test_image(void **state)
{
	static const char *const good[] = {
		"host", "a", "0", "ubuntu-22.04", "cuda_12.4-devel", "a.b.c",
		"x-", "9_"
	};
	char	*s, *cause = NULL;
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(sandbox_image_check(good[i], &cause), 0);
	s = repeat('i', SANDBOX_IMAGE_MAX);
	assert_int_equal(sandbox_image_check(s, &cause), 0);
	assert_null(cause);
	free(s);

	s = repeat('i', SANDBOX_IMAGE_MAX + 1);
	assert_int_equal(sandbox_image_check(s, NULL), CLAW_ERR_INVAL);
	free(s);
	expect_bad_image(NULL, "no image given");
	expect_bad_image("", "invalid image '': empty");
	expect_bad_image("Host", "invalid image 'Host': must start with a "
	    "lower-case letter or digit");
	expect_bad_image(".x", "invalid image '.x': must start with a "
	    "lower-case letter or digit");
	expect_bad_image("-x", "invalid image '-x': must start with a "
	    "lower-case letter or digit");
	expect_bad_image("_x", "invalid image '_x': must start with a "
	    "lower-case letter or digit");
	expect_bad_image("a..b", "invalid image 'a..b': '..' is not allowed");
	expect_bad_image("a/b", "invalid image 'a/b': only a-z, 0-9, '.', "
	    "'_' and '-' are allowed");
	expect_bad_image("ubuntu:22.04", "invalid image 'ubuntu:22.04': only "
	    "a-z, 0-9, '.', '_' and '-' are allowed");
	expect_bad_image("a b", "invalid image 'a b': only a-z, 0-9, '.', "
	    "'_' and '-' are allowed");
	expect_bad_image("hOst", "invalid image 'hOst': only a-z, 0-9, '.', "
	    "'_' and '-' are allowed");
	expect_bad_image("caf\xc3\xa9", "invalid image 'caf\\xc3\\xa9': only "
	    "a-z, 0-9, '.', '_' and '-' are allowed");
}

/* Expect sandbox_root_check(root) to fail with "...: why". */
static void
expect_bad_root(const char *root, const char *why)
{
	char	*cause = NULL, *expect;

	expect = xasprintf("invalid remote root '%s': %s", root, why);
	expect_inval(sandbox_root_check(root, &cause), &cause, expect);
	free(expect);
}

/* Absolute, normalised paths of safe characters pass. */
static void
test_root_good(void **state)
{
	static const char *const good[] = {
		"/tmp/clawssh-sandboxes", "/a", "/srv/x+y@z/A_b.c-9",
		"/home/u/.clawssh", "/a/..b/c..", "/a/.../b", "/..a"
	};
	char	*s, *cause = NULL;
	size_t	 i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_int_equal(sandbox_root_check(good[i], &cause), 0);
	s = repeat('r', SANDBOX_ROOT_MAX);
	s[0] = '/';
	assert_int_equal(sandbox_root_check(s, &cause), 0);
	assert_null(cause);
	free(s);
}

/* Relative paths, "/", empty, "." and ".." components, odd bytes fail. */
static void
test_root_bad(void **state)
{
	char	*s, *cause = NULL;

	(void)state;
	expect_bad_root("", "not an absolute path");
	expect_bad_root("rel/dir", "not an absolute path");
	expect_bad_root("~/sandboxes", "not an absolute path");
	expect_bad_root("/", "'/' itself is not allowed");
	expect_bad_root("//x", "empty component ('//' or a trailing '/')");
	expect_bad_root("/a//b", "empty component ('//' or a trailing '/')");
	expect_bad_root("/a/b/", "empty component ('//' or a trailing '/')");
	expect_bad_root("//", "empty component ('//' or a trailing '/')");
	expect_bad_root("/a/../b", "'.' and '..' components are not allowed");
	expect_bad_root("/a/./b", "'.' and '..' components are not allowed");
	expect_bad_root("/..", "'.' and '..' components are not allowed");
	expect_bad_root("/a/.", "'.' and '..' components are not allowed");
	expect_bad_root("/a b", "only A-Z, a-z, 0-9 and '._/+-@' are "
	    "allowed");
	expect_bad_root("/a$b", "only A-Z, a-z, 0-9 and '._/+-@' are "
	    "allowed");
	expect_bad_root("/a;rm", "only A-Z, a-z, 0-9 and '._/+-@' are "
	    "allowed");
	expect_bad_root("/a,b", "only A-Z, a-z, 0-9 and '._/+-@' are "
	    "allowed");
	expect_bad_root("/a:b", "only A-Z, a-z, 0-9 and '._/+-@' are "
	    "allowed");
	expect_inval(sandbox_root_check("/a\nb", &cause), &cause,
	    "invalid remote root '/a\\x0ab': only A-Z, a-z, 0-9 and "
	    "'._/+-@' are allowed");
	expect_inval(sandbox_root_check(NULL, &cause), &cause,
	    "no remote root given");
	s = repeat('r', SANDBOX_ROOT_MAX + 1);
	s[0] = '/';
	assert_int_equal(sandbox_root_check(s, NULL), CLAW_ERR_INVAL);
	free(s);
}

/* Compute an id the slow way: EVP directly, base32 one bit at a time. */
static void
reference_id(const char *scope, const char *key, const char *host,
    char out[SANDBOX_ID_LEN + 1])
{
	unsigned char	 in[1024], md[EVP_MAX_MD_SIZE];
	unsigned int	 mdlen = 0;
	size_t		 n, i, bit;
	int		 v;

	n = (size_t)snprintf((char *)in, sizeof(in), "%s%c%s%c%s", scope,
	    '\0', key, '\0', host);
	assert_true(n < sizeof(in));
	assert_int_equal(EVP_Digest(in, n, md, &mdlen, EVP_sha256(), NULL),
	    1);
	out[0] = 'c';
	for (i = 0; i < 12; i++) {
		for (v = 0, bit = 5 * i; bit < 5 * i + 5; bit++)
			v = v * 2 + ((md[bit / 8] >> (7 - bit % 8)) & 1);
		out[1 + i] = "abcdefghijklmnopqrstuvwxyz234567"[v];
	}
	out[SANDBOX_ID_LEN] = '\0';
}

/* Ids match known vectors and an independent computation. */
static void
test_id_vectors(void **state)
{
	static const char *const keys[] = {
		"chat-42", "k", "caf\xc3\xa9 key", "default"
	};
	static const char *const hosts[] = {
		HOST, "u@h:22", "root@10.0.0.1:2222", ""
	};
	char	id[SANDBOX_ID_LEN + 1], ref[SANDBOX_ID_LEN + 1];
	size_t	i, j;
	int	s;

	(void)state;
	/* Computed with Python: sha256, base32, first 12, lower case. */
	sandbox_id(SANDBOX_SCOPE_SESSION, "chat-42", HOST, id);
	assert_string_equal(id, "cfp465cqbbubo");
	sandbox_id(SANDBOX_SCOPE_SHARED, "default", "u@h:22", id);
	assert_string_equal(id, "c4sitd7c2xsx7");
	for (s = SANDBOX_SCOPE_SESSION; s <= SANDBOX_SCOPE_SHARED; s++) {
		for (i = 0; i < 4; i++) {
			for (j = 0; j < 4; j++) {
				sandbox_id((enum sandbox_scope)s, keys[i],
				    hosts[j], id);
				reference_id(sandbox_scope_name(
				    (enum sandbox_scope)s), keys[i],
				    hosts[j], ref);
				assert_string_equal(id, ref);
				assert_true(sandbox_id_ok(id));
			}
		}
	}
}

/* Scope, key and host each change the id; shared defaults its key. */
static void
test_id_inputs(void **state)
{
	char	a[SANDBOX_ID_LEN + 1], b[SANDBOX_ID_LEN + 1];

	(void)state;
	sandbox_id(SANDBOX_SCOPE_SESSION, "k", HOST, a);
	sandbox_id(SANDBOX_SCOPE_SESSION, "k", HOST, b);
	assert_string_equal(a, b);
	sandbox_id(SANDBOX_SCOPE_AGENT, "k", HOST, b);
	assert_string_not_equal(a, b);
	sandbox_id(SANDBOX_SCOPE_SHARED, "k", HOST, b);
	assert_string_not_equal(a, b);
	sandbox_id(SANDBOX_SCOPE_SESSION, "k2", HOST, b);
	assert_string_not_equal(a, b);
	sandbox_id(SANDBOX_SCOPE_SESSION, "k", "alice@gpu.example.com:23", b);
	assert_string_not_equal(a, b);
	/* The NUL separators keep "ab" + "c" apart from "a" + "bc". */
	sandbox_id(SANDBOX_SCOPE_SESSION, "ab", "c", a);
	sandbox_id(SANDBOX_SCOPE_SESSION, "a", "bc", b);
	assert_string_not_equal(a, b);

	sandbox_id(SANDBOX_SCOPE_SHARED, SANDBOX_SHARED_KEY, HOST, a);
	sandbox_id(SANDBOX_SCOPE_SHARED, NULL, HOST, b);
	assert_string_equal(a, b);
	sandbox_id(SANDBOX_SCOPE_SHARED, "", HOST, b);
	assert_string_equal(a, b);
	sandbox_id(SANDBOX_SCOPE_SESSION, NULL, NULL, a);
	assert_true(sandbox_id_ok(a));
}

/* sandbox_id_ok accepts exactly 'c' and 12 characters of a-z, 2-7. */
static void
test_id_ok(void **state)
{
	static const char *const bad[] = {
		"", "c", "caaaaaaaaaaa", "caaaaaaaaaaaaa", "daaaaaaaaaaaa",
		"Caaaaaaaaaaaa", "cAaaaaaaaaaaa", "c0aaaaaaaaaaa",
		"caaaaaaaaaa1a", "caaaaaaaaaaa8", "caaaaaaaaaa9a",
		"caaaaaa/aaaaa", "caaaaaa.aaaaa", "caaaaaaaaaaa\n",
		"c-aaaaaaaaaaa", " caaaaaaaaaaa"
	};
	size_t	i;

	(void)state;
	assert_true(sandbox_id_ok("caaaaaaaaaaaa"));
	assert_true(sandbox_id_ok("c234567zzzzzz"));
	assert_true(sandbox_id_ok("cfp465cqbbubo"));
	assert_false(sandbox_id_ok(NULL));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(sandbox_id_ok(bad[i]));
}

/* The config hash has a known value and changes with every field. */
static void
test_config_hash(void **state)
{
	struct sandbox_settings	s;
	char			h0[SANDBOX_HASH_LEN + 1];
	char			h1[SANDBOX_HASH_LEN + 1];
	char			h2[SANDBOX_HASH_LEN + 1];
	char			h3[SANDBOX_HASH_LEN + 1];

	(void)state;
	sandbox_settings_default(&s);
	sandbox_config_hash(&s, h0);
	/*
	 * sha256("access=rw\nimage=host\nmode=mirror\nnetwork=none\n"
	 * "runtime=bwrap\n"), from Python.
	 */
	assert_string_equal(h0, "165b4425812e14534c91bc29e10b6745"
	    "a14b7fe74005f2bcded2dea7db26f1c4");
	/* Runtime and network none: the hash of sandboxes made before. */
	s.runtime = CONTAIN_NONE;
	sandbox_config_hash(&s, h1);
	assert_string_equal(h1, "4a6800b39627f7dbd8c95543588447cf"
	    "589e64b37bd78218041a1a0cfa35a335");
	s.network = CONTAIN_NET_HOST;
	sandbox_config_hash(&s, h2);
	assert_string_not_equal(h1, h2);
	sandbox_settings_default(&s);
	s.access = SANDBOX_ACCESS_RO;
	sandbox_config_hash(&s, h1);
	sandbox_settings_default(&s);
	s.mode = SANDBOX_MODE_REMOTE;
	sandbox_config_hash(&s, h2);
	sandbox_settings_default(&s);
	strlcpy(s.image, "hosts", sizeof(s.image));
	sandbox_config_hash(&s, h3);
	assert_string_not_equal(h0, h1);
	assert_string_not_equal(h0, h2);
	assert_string_not_equal(h0, h3);
	assert_string_not_equal(h1, h2);
	assert_string_not_equal(h1, h3);
	assert_string_not_equal(h2, h3);

	s.access = SANDBOX_ACCESS_RO;
	s.mode = SANDBOX_MODE_REMOTE;
	strlcpy(s.image, "ubuntu-22.04", sizeof(s.image));
	sandbox_config_hash(&s, h1);
	/* The same, computed with Python's hashlib. */
	assert_string_equal(h1, "41e9aa650857fe8470ff0b76db2d0415"
	    "6d424206f296bba5a9a079d2b388e8a2");
}

/* Fill m with valid metadata: session "chat-42" on HOST, defaults. */
static void
meta_example(struct sandbox_meta *m)
{
	memset(m, 0, sizeof(*m));
	m->version = SANDBOX_META_VERSION;
	m->scope = SANDBOX_SCOPE_SESSION;
	strlcpy(m->key, META_ID_KEY, sizeof(m->key));
	sandbox_id(m->scope, m->key, HOST, m->id);
	sandbox_settings_default(&m->settings);
	sandbox_config_hash(&m->settings, m->config_hash);
	m->created = 1700000000;
	strlcpy(m->workspace, "/home/alice/project", sizeof(m->workspace));
}

/* Assert a and b hold the same metadata, field by field. */
static void
assert_meta_equal(const struct sandbox_meta *a, const struct sandbox_meta *b)
{
	assert_int_equal(a->version, b->version);
	assert_string_equal(a->id, b->id);
	assert_int_equal(a->scope, b->scope);
	assert_string_equal(a->key, b->key);
	assert_int_equal(a->settings.mode, b->settings.mode);
	assert_int_equal(a->settings.access, b->settings.access);
	assert_string_equal(a->settings.image, b->settings.image);
	assert_int_equal(a->settings.runtime, b->settings.runtime);
	assert_string_equal(a->settings.user, b->settings.user);
	assert_string_equal(a->config_hash, b->config_hash);
	assert_int_equal(a->created, b->created);
	assert_string_equal(a->workspace, b->workspace);
}

/* Encode m, decode it back (checking want_id too) and compare. */
static void
meta_roundtrip(const struct sandbox_meta *m)
{
	struct sandbox_meta	 got;
	char			*text, *cause = NULL;
	size_t			 len;

	text = sandbox_meta_encode(m);
	len = strlen(text);
	assert_true(len > 2 && text[len - 1] == '\n' && text[len - 2] == '}');
	memset(&got, 0xa5, sizeof(got));
	assert_int_equal(sandbox_meta_decode(text, len, m->id, &got, &cause),
	    0);
	assert_null(cause);
	assert_meta_equal(m, &got);
	memset(&got, 0xa5, sizeof(got));
	assert_int_equal(sandbox_meta_decode(text, len, NULL, &got, &cause),
	    0);
	assert_meta_equal(m, &got);
	free(text);
}

/* Metadata survives encode and decode; keys come in the stated order. */
static void
test_meta_roundtrip(void **state)
{
	static const char *const order[] = {
		"\"version\"", "\"id\"", "\"scope\"", "\"key\"", "\"mode\"",
		"\"access\"", "\"image\"", "\"configHash\"", "\"created\"",
		"\"workspace\""
	};
	struct sandbox_meta	 m;
	const char		*prev, *p;
	char			*text;
	size_t			 i;

	(void)state;
	meta_example(&m);
	meta_roundtrip(&m);
	text = sandbox_meta_encode(&m);
	for (i = 0, prev = text; i < sizeof(order) / sizeof(order[0]); i++) {
		assert_non_null(p = strstr(text, order[i]));
		assert_true(p >= prev);
		prev = p;
	}
	assert_non_null(strstr(text, "1700000000"));
	free(text);

	m.scope = SANDBOX_SCOPE_SHARED;
	strlcpy(m.key, "it's \"q\" \\ caf\xc3\xa9 a\\u0000", sizeof(m.key));
	sandbox_id(m.scope, m.key, HOST, m.id);
	m.settings.mode = SANDBOX_MODE_REMOTE;
	m.settings.access = SANDBOX_ACCESS_NONE;
	strlcpy(m.settings.image, "ubuntu-22.04", sizeof(m.settings.image));
	sandbox_config_hash(&m.settings, m.config_hash);
	m.created = 0;
	strlcpy(m.workspace, "/home/a b/\"q\"/caf\xc3\xa9",
	    sizeof(m.workspace));
	meta_roundtrip(&m);
	m.created = 9007199254740991LL;
	m.settings.access = SANDBOX_ACCESS_RO;
	meta_roundtrip(&m);
}

/* Return text with its first "from" replaced by "to" (allocated). */
static char *
replace(const char *text, const char *from, const char *to)
{
	const char	*p;

	p = strstr(text, from);
	assert_non_null(p);
	return xasprintf("%.*s%s%s", (int)(p - text), text, to,
	    p + strlen(from));
}

/* Return the example metadata with field's value as raw text, or absent. */
static char *
meta_with(const char *field, const char *raw)
{
	struct sandbox_meta	 m;
	cJSON			*root;
	char			*text, *out;

	meta_example(&m);
	text = sandbox_meta_encode(&m);
	root = cJSON_Parse(text);
	free(text);
	assert_non_null(root);
	cJSON_DeleteItemFromObjectCaseSensitive(root, field);
	if (raw != NULL)
		assert_non_null(cJSON_AddStringToObject(root, field, "@RAW@"));
	assert_non_null(text = cJSON_PrintUnformatted(root));
	cJSON_Delete(root);
	out = raw == NULL ? xstrdup(text) : replace(text, "\"@RAW@\"", raw);
	cJSON_free(text);
	return out;
}

/* Decode text[0..len) expecting failure with exactly "metadata" + rest. */
static void
expect_meta_error(const char *text, size_t len, const char *want_id,
    const char *rest)
{
	struct sandbox_meta	m, before;
	char			*cause = NULL, *expect;

	memset(&m, 0xa5, sizeof(m));
	memcpy(&before, &m, sizeof(m));
	assert_int_equal(sandbox_meta_decode(text, len, want_id, &m, &cause),
	    CLAW_ERR_PARSE);
	assert_memory_equal(&m, &before, sizeof(m));
	assert_non_null(cause);
	expect = xasprintf("metadata%s", rest);
	assert_string_equal(cause, expect);
	free(expect);
	free(cause);
	assert_int_equal(sandbox_meta_decode(text, len, want_id, &m, NULL),
	    CLAW_ERR_PARSE);
}

/* Expect the example with field set to raw to fail with "metadata: why". */
static void
expect_field_error(const char *field, const char *raw, const char *why)
{
	char	*text, *rest;

	text = meta_with(field, raw);
	rest = xasprintf(": %s", why);
	expect_meta_error(text, strlen(text), NULL, rest);
	free(rest);
	free(text);
}

/* The example itself, and with unknown fields added, decodes. */
static void
test_meta_example_ok(void **state)
{
	struct sandbox_meta	 m, want;
	char			*text, *deep, *raw;

	(void)state;
	meta_example(&want);
	text = meta_with("future", "{\"x\": [1, null, {\"y\": \"z\"}]}");
	assert_int_equal(sandbox_meta_decode(text, strlen(text),
	    "cfp465cqbbubo", &m, NULL), 0);
	assert_meta_equal(&m, &want);
	free(text);
	/* Unknown but deeply nested is still just ignored. */
	deep = xasprintf("%s1%s", "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
	    "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]");
	raw = replace("{\"a\": @}", "@", deep);
	text = meta_with("zz", raw);
	assert_int_equal(sandbox_meta_decode(text, strlen(text), NULL, &m,
	    NULL), 0);
	free(text);
	free(raw);
	free(deep);
}

/* Runtime and network: optional (older metadata: none), else checked. */
static void
test_meta_runtime(void **state)
{
	struct sandbox_meta	 m;
	char			*text;

	(void)state;
	text = meta_with("runtime", "\"bwrap\"");
	assert_int_equal(sandbox_meta_decode(text, strlen(text), NULL, &m,
	    NULL), 0);
	assert_int_equal(m.settings.runtime, CONTAIN_BWRAP);
	free(text);
	text = meta_with("runtime", NULL);
	assert_int_equal(sandbox_meta_decode(text, strlen(text), NULL, &m,
	    NULL), 0);
	assert_int_equal(m.settings.runtime, CONTAIN_NONE);
	free(text);
	text = meta_with("network", "\"host\"");
	assert_int_equal(sandbox_meta_decode(text, strlen(text), NULL, &m,
	    NULL), 0);
	assert_int_equal(m.settings.network, CONTAIN_NET_HOST);
	free(text);
	text = meta_with("runtime", "\"docker-ish\"");
	assert_int_not_equal(sandbox_meta_decode(text, strlen(text), NULL,
	    &m, NULL), 0);
	free(text);
	text = meta_with("network", "7");
	assert_int_not_equal(sandbox_meta_decode(text, strlen(text), NULL,
	    &m, NULL), 0);
	free(text);
}

/* Each of the version, id and enum rules is enforced with its message. */
static void
test_meta_bad_head(void **state)
{
	(void)state;
	expect_field_error("version", NULL, "field 'version': missing");
	expect_field_error("version", "2",
	    "field 'version': unsupported version 2 (expected 1)");
	expect_field_error("version", "0",
	    "field 'version': unsupported version 0 (expected 1)");
	expect_field_error("version", "1.5",
	    "field 'version': unsupported version 1.5 (expected 1)");
	expect_field_error("version", "\"1\"",
	    "field 'version': expected a number");
	expect_field_error("version", "null",
	    "field 'version': expected a number");
	expect_field_error("id", NULL, "field 'id': missing");
	expect_field_error("id", "42", "field 'id': expected a string");
	expect_field_error("id", "\"cAAAAAAAAAAAA\"",
	    "field 'id': 'cAAAAAAAAAAAA' is not a sandbox id");
	expect_field_error("id", "\"../../etc\"",
	    "field 'id': '../../etc' is not a sandbox id");
	expect_field_error("id", "\"cfp465cqbbubo0\"",
	    "field 'id': 'cfp465cqbbubo0' is not a sandbox id");
	expect_field_error("scope", NULL, "field 'scope': missing");
	expect_field_error("scope", "\"global\"",
	    "field 'scope': unknown scope 'global'");
	expect_field_error("scope", "[]", "field 'scope': expected a string");
	expect_field_error("mode", "\"sync\"",
	    "field 'mode': unknown mode 'sync'");
	expect_field_error("mode", "0", "field 'mode': expected a string");
	expect_field_error("access", "\"RW\"",
	    "field 'access': unknown access 'RW'");
	expect_field_error("access", NULL, "field 'access': missing");
	expect_field_error("scope", "\"session\", \"scope\": \"agent\"",
	    "field 'scope': given more than once");
}

/* An id other than the one asked for is refused. */
static void
test_meta_want_id(void **state)
{
	char	*text, other[SANDBOX_ID_LEN + 1], *rest;

	(void)state;
	sandbox_id(SANDBOX_SCOPE_SESSION, "other", HOST, other);
	text = meta_with("future", "1");
	rest = xasprintf(": field 'id': 'cfp465cqbbubo' is not the expected "
	    "'%s'", other);
	expect_meta_error(text, strlen(text), other, rest);
	free(rest);
	expect_meta_error(text, strlen(text), "../x",
	    ": field 'id': 'cfp465cqbbubo' is not the expected '../x'");
	free(text);
}

/* Key and image rules apply to metadata; NUL escapes are refused. */
static void
test_meta_bad_key_image(void **state)
{
	char	*huge, *raw, *why, *prefix;

	(void)state;
	expect_field_error("key", NULL, "field 'key': missing");
	expect_field_error("key", "\"a/b\"",
	    "field 'key': invalid key 'a/b': '/' is not allowed");
	expect_field_error("key", "\"\"",
	    "field 'key': empty (the effective key is recorded)");
	expect_field_error("key", "\"a\\u0001\"", "field 'key': invalid key "
	    "'a\\x01': control character U+0001 is not allowed");
	expect_field_error("key", "\"\\u00ff\\u0085\"", "field 'key': invalid "
	    "key '\\xc3\\xbf\\xc2\\x85': control character U+0085 is not "
	    "allowed");
	expect_field_error("key", "\"a\\u0000b\"",
	    "\\u0000 (a NUL character) is not allowed");
	expect_field_error("key", "{}", "field 'key': expected a string");
	huge = repeat('k', 10000);
	raw = xasprintf("\"%s\"", huge);
	prefix = repeat('k', 64);
	why = xasprintf("field 'key': invalid key '%s...': longer than 256 "
	    "bytes", prefix);
	expect_field_error("key", raw, why);
	free(why);
	free(prefix);
	free(raw);
	free(huge);
	expect_field_error("image", NULL, "field 'image': missing");
	expect_field_error("image", "\"../x\"", "field 'image': invalid image "
	    "'../x': must start with a lower-case letter or digit");
	expect_field_error("image", "\"a..b\"",
	    "field 'image': invalid image 'a..b': '..' is not allowed");
	expect_field_error("image", "\"Host\"", "field 'image': invalid image "
	    "'Host': must start with a lower-case letter or digit");
	expect_field_error("image", "true", "field 'image': expected a string");
}

/* configHash, created and workspace are checked strictly. */
static void
test_meta_bad_tail(void **state)
{
	const char	*hash = "expected 64 lower-case hex digits";
	const char	*created = "expected an integer from 0 to "
	    "9007199254740991";
	char		*w, *raw, *why;

	(void)state;
	why = xasprintf("field 'configHash': %s", hash);
	expect_field_error("configHash", "\"abc\"", why);
	expect_field_error("configHash", "\"4A6800B39627F7DBD8C95543588447CF"
	    "589E64B37BD78218041A1A0CFA35A335\"", why);
	expect_field_error("configHash", "\"4a6800b39627f7dbd8c95543588447cf"
	    "589e64b37bd78218041a1a0cfa35a335a\"", why);
	expect_field_error("configHash", "\"4a6800b39627f7dbd8c95543588447cf"
	    "589e64b37bd78218041a1a0cfa35a33g\"", why);
	expect_field_error("configHash", "1",
	    "field 'configHash': expected a string");
	free(why);
	why = xasprintf("field 'created': %s", created);
	expect_field_error("created", "-1", why);
	expect_field_error("created", "1.5", why);
	expect_field_error("created", "9007199254740992", why);
	expect_field_error("created", "1e300", why);
	expect_field_error("created", "\"1700000000\"", why);
	expect_field_error("created", "true", why);
	expect_field_error("created", NULL, "field 'created': missing");
	free(why);
	expect_field_error("workspace", "\"rel/path\"",
	    "field 'workspace': not an absolute path");
	expect_field_error("workspace", "\"\"",
	    "field 'workspace': not an absolute path");
	expect_field_error("workspace", "\"/a\\nb\"",
	    "field 'workspace': control character 0x0a is not allowed");
	expect_field_error("workspace", "\"/a\\u007f\"",
	    "field 'workspace': control character 0x7f is not allowed");
	expect_field_error("workspace", "false",
	    "field 'workspace': expected a string");
	w = repeat('w', SANDBOX_ROOT_MAX + 1);
	w[0] = '/';
	raw = xasprintf("\"%s\"", w);
	expect_field_error("workspace", raw,
	    "field 'workspace': longer than 1024 bytes");
	free(raw);
	free(w);
}

/* Whole documents that are not metadata objects are refused. */
static void
test_meta_bad_document(void **state)
{
	const char	nul[] = "{\"a\":\0}";
	char		*deep;

	(void)state;
	expect_meta_error("[]", 2, NULL, ": expected an object");
	expect_meta_error("\"x\"", 3, NULL, ": expected an object");
	expect_meta_error("null", 4, NULL, ": expected an object");
	expect_meta_error("{}", 2, NULL, ": field 'version': missing");
	expect_meta_error("", 0, NULL, ": empty file");
	expect_meta_error("{", 1, NULL, ":1:2: unexpected end of input");
	expect_meta_error("{\"version\": 1,}", 15, NULL,
	    ":1:15: syntax error near '}'");
	expect_meta_error(nul, sizeof(nul) - 1, NULL,
	    ":1:6: NUL byte in input");
	expect_meta_error("{\"id\\u0000x\": 1}", 16, NULL,
	    ": \\u0000 (a NUL character) is not allowed");
	expect_meta_error(NULL, 5, NULL, ": none");
	/* Nesting past cJSON's limit is a syntax error, not a crash. */
	deep = repeat('[', 5000);
	expect_meta_error(deep, 5000, NULL, ":1:1001: syntax error near "
	    "'[[[[[[[[[[[[[[[['");
	free(deep);
}

/* 64 KiB of metadata is read; one byte more, or 70 KiB, is refused. */
static void
test_meta_size_cap(void **state)
{
	struct sandbox_meta	 m;
	char			*text, *big;
	size_t			 len;

	(void)state;
	text = meta_with("future", "1");
	len = strlen(text);
	big = xmalloc(70 * 1024);
	memset(big, ' ', 70 * 1024);
	memcpy(big, text, len);
	assert_int_equal(sandbox_meta_decode(big, SANDBOX_META_MAX, NULL, &m,
	    NULL), 0);
	assert_string_equal(m.id, "cfp465cqbbubo");
	expect_meta_error(big, SANDBOX_META_MAX + 1, NULL,
	    ": larger than 65536 bytes");
	expect_meta_error(big, 70 * 1024, NULL, ": larger than 65536 bytes");
	free(big);
	free(text);
}

/* Run every test. */
/* docker and podman take OCI references; the others store names. */
static void
test_image_for_runtime(void **state)
{
	static const char *const refs[] = {
		"debian:bookworm", "docker.io/library/Debian:12",
		"localhost/clawtest:1", "ghcr.io/o/r@sha256:0123abcd",
		"registry:5000/a/b_c.d-e:v1.2"
	};
	static const char *const bad[] = {
		"", "-rm", "a b", "x;reboot", "$(id)", "a`b`", "a|b", "a'b",
		"a\"b", "a\\b", "a\nb", "a&b", "a>b", "a*b", "caf\xc3\xa9"
	};
	char		*cause = NULL, *s;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(refs) / sizeof(refs[0]); i++) {
		assert_int_equal(sandbox_image_check_for(CONTAIN_DOCKER,
		    refs[i], NULL), 0);
		assert_int_equal(sandbox_image_check_for(CONTAIN_PODMAN,
		    refs[i], NULL), 0);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (sandbox_image_check_for(CONTAIN_PODMAN, bad[i],
		    &cause) != CLAW_ERR_INVAL)
			fail_msg("accepted: \"%s\"", bad[i]);
		assert_non_null(cause);
		free(cause);
		cause = NULL;
	}
	/* bwrap and none: store names only. */
	assert_int_equal(sandbox_image_check_for(CONTAIN_BWRAP,
	    "debian:bookworm", NULL), CLAW_ERR_INVAL);
	assert_int_equal(sandbox_image_check_for(CONTAIN_NONE, "deb-12",
	    NULL), 0);
	s = repeat('a', SANDBOX_REF_MAX);
	assert_int_equal(sandbox_image_check_for(CONTAIN_DOCKER, s, NULL), 0);
	free(s);
	s = repeat('a', SANDBOX_REF_MAX + 1);
	assert_int_equal(sandbox_image_check_for(CONTAIN_DOCKER, s, &cause),
	    CLAW_ERR_INVAL);
	assert_non_null(strstr(cause, "longer than 255 bytes"));
	free(cause);
	free(s);
}

/* A user is "uid:gid" or a lower-case name. */
static void
test_user_check(void **state)
{
	static const char *const good[] = {
		"nobody", "_apt", "build-bot", "u1", "0:0", "1000:100",
		"4294967294:4294967294"
	};
	static const char *const bad[] = {
		"", "1000", ":1", "1:", "1:2:3", "Nobody", "-x", "a b",
		"a;b", "12345678901:1", "1:12345678901", "x:1", "$(id)",
		"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	};
	char		*cause = NULL;
	size_t		 i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (sandbox_user_check(good[i], NULL) != 0)
			fail_msg("refused: \"%s\"", good[i]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (sandbox_user_check(bad[i], NULL) != CLAW_ERR_INVAL)
			fail_msg("accepted: \"%s\"", bad[i]);
	}
	assert_int_equal(sandbox_user_check(NULL, NULL), CLAW_ERR_INVAL);
	assert_int_equal(sandbox_user_check("Bob", &cause), CLAW_ERR_INVAL);
	assert_string_equal(cause, "invalid user 'Bob': want \"uid:gid\" or a "
	    "user name ([a-z_][a-z0-9_-]*, at most 32 bytes)");
	free(cause);
}

/* A user changes the hash; none keeps the hash of sandboxes before. */
static void
test_hash_user_runtime(void **state)
{
	struct sandbox_settings	s;
	char			h0[SANDBOX_HASH_LEN + 1];
	char			h1[SANDBOX_HASH_LEN + 1];
	char			h2[SANDBOX_HASH_LEN + 1];

	(void)state;
	sandbox_settings_default(&s);
	assert_string_equal(s.user, "");
	sandbox_config_hash(&s, h0);
	assert_string_equal(h0, "165b4425812e14534c91bc29e10b6745"
	    "a14b7fe74005f2bcded2dea7db26f1c4");
	strlcpy(s.user, "nobody", sizeof(s.user));
	sandbox_config_hash(&s, h1);
	/*
	 * sha256("access=rw\nimage=host\nmode=mirror\nnetwork=none\n"
	 * "runtime=bwrap\nuser=nobody\n"), from Python.
	 */
	assert_string_equal(h1, HASH_USER_NOBODY);
	s.user[0] = '\0';
	s.runtime = CONTAIN_PODMAN;
	strlcpy(s.image, "localhost/x:1", sizeof(s.image));
	sandbox_config_hash(&s, h2);
	assert_string_not_equal(h0, h2);
	assert_string_not_equal(h1, h2);
}

/* docker with an OCI image and a user survive metadata; bad ones fail. */
static void
test_meta_oci_user(void **state)
{
	struct sandbox_meta	 m;
	char			*text;

	(void)state;
	meta_example(&m);
	m.settings.runtime = CONTAIN_DOCKER;
	strlcpy(m.settings.image, "docker.io/library/debian:bookworm",
	    sizeof(m.settings.image));
	strlcpy(m.settings.user, "1000:1000", sizeof(m.settings.user));
	sandbox_config_hash(&m.settings, m.config_hash);
	meta_roundtrip(&m);
	text = sandbox_meta_encode(&m);
	assert_non_null(strstr(text, "\"runAs\":\t\"1000:1000\""));
	assert_non_null(strstr(text, "\"runtime\":\t\"docker\""));
	free(text);
	m.settings.runtime = CONTAIN_PODMAN;
	m.settings.user[0] = '\0';
	meta_roundtrip(&m);
	expect_field_error("runAs", "\"root;id\"", "field 'runAs': invalid "
	    "user 'root;id': want \"uid:gid\" or a user name "
	    "([a-z_][a-z0-9_-]*, at most 32 bytes)");
	expect_field_error("runAs", "7", "field 'runAs': expected a string");
	/* bwrap (the example's runtime) takes no OCI reference. */
	expect_field_error("image", "\"debian:12\"", "field 'image': invalid "
	    "image 'debian:12': only a-z, 0-9, '.', '_' and '-' are allowed");
}

int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test(test_enum_roundtrip),
		cmocka_unit_test(test_enum_bad_names),
		cmocka_unit_test(test_settings_default),
		cmocka_unit_test(test_key_good),
		cmocka_unit_test(test_key_required),
		cmocka_unit_test(test_key_bad_bytes),
		cmocka_unit_test(test_key_too_long),
		cmocka_unit_test(test_image),
		cmocka_unit_test(test_root_good),
		cmocka_unit_test(test_root_bad),
		cmocka_unit_test(test_id_vectors),
		cmocka_unit_test(test_id_inputs),
		cmocka_unit_test(test_id_ok),
		cmocka_unit_test(test_config_hash),
		cmocka_unit_test(test_meta_roundtrip),
		cmocka_unit_test(test_meta_example_ok),
		cmocka_unit_test(test_meta_runtime),
		cmocka_unit_test(test_meta_bad_head),
		cmocka_unit_test(test_meta_want_id),
		cmocka_unit_test(test_meta_bad_key_image),
		cmocka_unit_test(test_meta_bad_tail),
		cmocka_unit_test(test_meta_bad_document),
		cmocka_unit_test(test_meta_size_cap),
		cmocka_unit_test(test_image_for_runtime),
		cmocka_unit_test(test_user_check),
		cmocka_unit_test(test_hash_user_runtime),
		cmocka_unit_test(test_meta_oci_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
