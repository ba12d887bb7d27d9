/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for known_hosts verdicts (match, unknown, changed, revoked),
 * against keys and files made by OpenSSH's own ssh-keygen.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compat.h"
#include "base64.h"
#include "buf.h"
#include "error.h"
#include "knownhosts.h"
#include "strv.h"
#include "knownhosts_fixture.h"
#include "xmalloc.h"

/* A plain line for the host lists the key: match, naming the line. */
static void
test_plain_match(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf("# comment\n\nother.org %s %s\n"
	    HOST " %s %s a comment\n", a.type, a.b64, a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, &w), 0);
	assert_string_equal(w.file, file);
	assert_int_equal(w.line, 4);
	knownhosts_where_clear(&w);
	assert_null(w.file);
	assert_int_equal(w.line, 0);
	assert_int_equal(tk_check(file, "example.net", 22, &a, &w),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_null(w.file);
	assert_int_equal(tk_check(file, HOST, 22, &a, NULL), 0);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* A non-22 port is looked up as "[host]:port" and only as that. */
static void
test_port(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf("[" HOST "]:2222 %s %s\n", a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 2222, &a, NULL), 0);
	assert_int_equal(tk_check(file, HOST, 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_int_equal(tk_check(file, HOST, 0, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_int_equal(tk_check(file, HOST, 2223, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* Port 22 and port 0 both mean the bare host name. */
static void
test_port_default(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf(HOST " %s %s\n", a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 0, &a, NULL), 0);
	assert_int_equal(tk_check(file, HOST, 22, &a, NULL), 0);
	assert_int_equal(tk_check(file, HOST, 2222, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* Host names compare without regard to case. */
static void
test_case_insensitive(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf("Example.COM %s %s\n[Example.COM]:2222 %s %s\n",
	    a.type, a.b64, a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, "eXAMPLE.com", 22, &a, NULL), 0);
	assert_int_equal(tk_check(file, "example.com", 2222, &a, NULL), 0);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* Entries hashed by ssh-keygen -H are found, by lower-cased name. */
static void
test_hashed_keygen(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *file, *after;
	const char			*argv[] = { "ssh-keygen", "-H",
	    "-f", NULL, NULL };

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf("other.org %s %s\n" HOST " %s %s\n"
	    "[" HOST "]:2222 %s %s\n", a.type, a.b64, a.type, a.b64,
	    a.type, a.b64);
	file = tk_write(t, "kh", text);
	argv[3] = file;
	assert_int_equal(tk_run(argv, NULL), 0);
	after = tk_read(file);
	assert_null(strstr(after, HOST));
	assert_int_equal(strncmp(after, "|1|", 3), 0);
	assert_int_equal(tk_check(file, "Example.Com", 22, &a, &w), 0);
	assert_int_equal(w.line, 2);
	knownhosts_where_clear(&w);
	assert_int_equal(tk_check(file, HOST, 2222, &a, &w), 0);
	assert_int_equal(w.line, 3);
	knownhosts_where_clear(&w);
	assert_int_equal(tk_check(file, "example.net", 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_int_equal(tk_check(file, HOST, 2223, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(after);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* Wildcards in the host field match, '?' standing for one character. */
static void
test_wildcard(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf("*.example.com,10.0.0.? %s %s\n", a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, "www.example.com", 22, &a, NULL), 0);
	assert_int_equal(tk_check(file, "10.0.0.7", 22, &a, NULL), 0);
	assert_int_equal(tk_check(file, "10.0.0.17", 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_int_equal(tk_check(file, "example.org", 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* A negated pattern keeps a line from applying, even with a match. */
static void
test_negated(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, b;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	text = xasprintf("*.example.com,!bad.example.com %s %s\n"
	    "!solo.example.com %s %s\n", a.type, a.b64, b.type, b.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, "good.example.com", 22, &a, NULL),
	    0);
	assert_int_equal(tk_check(file, "bad.example.com", 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	/* A list of only negations matches nothing, so b is no conflict. */
	assert_int_equal(tk_check(file, "other.org", 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(text);
	free(file);
	tk_key_free(&a);
	tk_key_free(&b);
}

/* A line for another key type is no conflict: UNKNOWN, not CHANGED. */
static void
test_type_isolation(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, e;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ecdsa", "e", &e);
	text = xasprintf(HOST " %s %s\n", e.type, e.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_int_equal(tk_check(file, HOST, 22, &e, NULL), 0);
	free(text);
	free(file);
	tk_key_free(&a);
	tk_key_free(&e);
}

/* Another key of the same type is CHANGED, naming the first such line. */
static void
test_changed(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a, b, c;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	tk_keygen(t, "ed25519", "c", &c);
	text = xasprintf("# header\nother.org %s %s\n\n" HOST " %s %s\n"
	    HOST " %s %s\n", a.type, a.b64, b.type, b.b64, c.type, c.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, &w),
	    CLAW_ERR_HOSTKEY_CHANGED);
	assert_string_equal(w.file, file);
	assert_int_equal(w.line, 4);
	knownhosts_where_clear(&w);
	free(text);
	free(file);
	tk_key_free(&a);
	tk_key_free(&b);
	tk_key_free(&c);
}

/* A line with this exact key wins over an earlier conflicting line. */
static void
test_match_beats_changed(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a, b;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	text = xasprintf(HOST " %s %s\n" HOST " %s %s\n", b.type, b.b64,
	    a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, &w), 0);
	assert_int_equal(w.line, 2);
	knownhosts_where_clear(&w);
	free(text);
	free(file);
	tk_key_free(&a);
	tk_key_free(&b);
}

/* A @revoked line for the key wins over a match. */
static void
test_revoked(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a, b;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	text = xasprintf(HOST " %s %s\n@revoked * %s %s\n"
	    "@revoked " HOST " %s %s\n", a.type, a.b64, b.type, b.b64,
	    a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, &w),
	    CLAW_ERR_HOSTKEY_REVOKED);
	assert_string_equal(w.file, file);
	assert_int_equal(w.line, 3);
	knownhosts_where_clear(&w);
	/* b is revoked for every host; its line is no conflict for a. */
	assert_int_equal(tk_check(file, "example.net", 22, &b, &w),
	    CLAW_ERR_HOSTKEY_REVOKED);
	assert_int_equal(w.line, 2);
	knownhosts_where_clear(&w);
	assert_int_equal(tk_check(file, "example.net", 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(text);
	free(file);
	tk_key_free(&a);
	tk_key_free(&b);
}

/* A @cert-authority line is skipped: no match, no conflict. */
static void
test_cert_authority(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, b;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	text = xasprintf("@cert-authority * %s %s\n"
	    "@cert-authority * %s %s\n", a.type, a.b64, b.type, b.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(text);
	free(file);
	tk_key_free(&a);
	tk_key_free(&b);
}

/* Lines from all files count; the second file can decide. */
static void
test_multiple_files(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a, b;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*t1, *t2, *files[2], *cause = NULL;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	t1 = xasprintf("other.org %s %s\n" HOST " %s %s\n", a.type, a.b64,
	    b.type, b.b64);
	t2 = xasprintf("# second\n" HOST " %s %s\n", a.type, a.b64);
	files[0] = tk_write(t, "kh1", t1);
	files[1] = tk_write(t, "kh2", t2);
	assert_int_equal(knownhosts_check(files, 2, HOST, 22, a.blob, a.len,
	    &w, &cause), 0);
	assert_string_equal(w.file, files[1]);
	assert_int_equal(w.line, 2);
	knownhosts_where_clear(&w);
	assert_int_equal(knownhosts_check(files, 1, HOST, 22, a.blob, a.len,
	    &w, &cause), CLAW_ERR_HOSTKEY_CHANGED);
	assert_string_equal(w.file, files[0]);
	assert_int_equal(w.line, 2);
	knownhosts_where_clear(&w);
	free(t1);
	free(t2);
	free(files[0]);
	free(files[1]);
	tk_key_free(&a);
	tk_key_free(&b);
}

/* A missing file is skipped; the others still count. */
static void
test_missing_file(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *files[3], *cause = NULL;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf(HOST " %s %s\n", a.type, a.b64);
	files[0] = tk_path(t, "nonexistent");
	files[1] = tk_path(t, "nodir/known_hosts");
	files[2] = tk_write(t, "kh", text);
	assert_int_equal(knownhosts_check(files, 2, HOST, 22, a.blob, a.len,
	    &w, &cause), CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_null(cause);
	assert_null(w.file);
	assert_int_equal(knownhosts_check(files, 3, HOST, 22, a.blob, a.len,
	    &w, &cause), 0);
	assert_null(cause);
	assert_string_equal(w.file, files[2]);
	knownhosts_where_clear(&w);
	free(text);
	free(files[0]);
	free(files[1]);
	free(files[2]);
	tk_key_free(&a);
}

/* A file that exists but cannot be read is an error with a cause. */
static void
test_unreadable_file(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	char		*files[1], *cause = NULL, **types = NULL;
	int		 r;

	tk_keygen(t, "ed25519", "a", &a);
	files[0] = tk_path(t, "adir");
	assert_int_equal(mkdir(files[0], 0700), 0);
	r = knownhosts_check(files, 1, HOST, 22, a.blob, a.len, NULL, &cause);
	assert_true(r < 0);
	assert_int_not_equal(r, CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_non_null(cause);
	assert_non_null(strstr(cause, files[0]));
	free(cause);
	assert_true(knownhosts_types(files, 1, HOST, 22, &types) < 0);
	assert_null(types);
	free(files[0]);
	tk_key_free(&a);
}

/* A bad key blob or host is an argument error, not a verdict. */
static void
test_check_bad_args(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	char		*file, *cause = NULL;
	unsigned char	 junk[] = { 0, 0, 0, 200, 's', 's', 'h' };

	tk_keygen(t, "ed25519", "a", &a);
	file = tk_write(t, "kh", "");
	assert_int_equal(knownhosts_check(&file, 1, HOST, 22, junk,
	    sizeof junk, NULL, &cause), CLAW_ERR_INVAL);
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	assert_int_equal(knownhosts_check(&file, 1, HOST, 70000, a.blob,
	    a.len, NULL, &cause), CLAW_ERR_INVAL);
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	assert_int_equal(knownhosts_check(&file, 1, "", 22, a.blob, a.len,
	    NULL, &cause), CLAW_ERR_INVAL);
	free(cause);
	free(file);
	tk_key_free(&a);
}

/* Build a line for HOST with the type field and a raw blob. */
static char *
tk_raw_line(const char *type, const unsigned char *blob, size_t len)
{
	char	*b64, *line;

	b64 = base64_encode(blob, len);
	line = xasprintf(HOST " %s %s\n", type, b64);
	free(b64);
	return line;
}

/* Build malformed lines for HOST, each carrying key k if it had one. */
static char *
tk_malformed(const struct tk_key *k)
{
	static const unsigned char	 hugeinner[] = { 0, 0, 0, 11, 's', 's',
	    'h', '-', 'e', 'd', '2', '5', '5', '1', '9', 0xff, 0xff, 0xff,
	    0xf0, 1, 2, 3, 4 };
	static const unsigned char	 hugetype[] = { 0xff, 0xff, 0xff, 0xff,
	    's', 's', 'h', '-', 'e', 'd', '2', '5', '5', '1', '9', 0, 0, 0, 1,
	    1 };
	char				*l1, *l2, *s;

	l1 = tk_raw_line("ssh-ed25519", hugeinner, sizeof hugeinner);
	l2 = tk_raw_line("ssh-ed25519", hugetype, sizeof hugetype);
	s = xasprintf("\n   \t \n" HOST "\n" HOST " %s\n"
	    HOST " %s %.30s\n"		/* truncated base64 */
	    HOST " %s %.40s\n"		/* truncated blob */
	    HOST " %s !!!!%s\n"		/* not base64 */
	    "%s%s"			/* huge length prefixes */
	    HOST " ecdsa-sha2-nistp256 %s\n"	/* type disagrees */
	    "@bogus " HOST " %s %s\n"
	    "@revoked\n@revoked " HOST "\n"
	    "|1|garbage|garbage %s %s\n"
	    "|1|%s|%s %s %s\n"		/* salt/hash of wrong size */
	    "%s%.*s=\n",
	    k->type, k->type, k->b64, k->type, k->b64, k->type, k->b64,
	    l1, l2, k->b64, k->type, k->b64, k->type, k->b64,
	    "AAAA", "AAAA", k->type, k->b64, HOST " ssh-ed25519 ",
	    (int)strlen(k->b64) - 1, k->b64);
	free(l1);
	free(l2);
	return s;
}

/* Malformed lines are skipped; a good line after them still counts. */
static void
test_malformed_skipped(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	struct knownhosts_where		 w = { NULL, 0 };
	struct buf			 b = BUF_INIT;
	char				*bad, *file;
	size_t				 nlines = 0, i;

	tk_keygen(t, "ed25519", "a", &a);
	bad = tk_malformed(&a);
	for (i = 0; bad[i] != '\0'; i++)
		nlines += bad[i] == '\n';
	buf_append_str(&b, bad);
	/* A NUL byte cuts a good line short: the line must be skipped. */
	buf_appendf(&b, HOST " %s %s", a.type, a.b64);
	buf_append(&b, "\0 x\n", 4);
	/* A line over 64 KiB is skipped, though it starts well. */
	buf_appendf(&b, HOST " %s %s %070000d\n", a.type, a.b64, 0);
	buf_appendf(&b, HOST " %s %s\n", a.type, a.b64);
	file = tk_write_len(t, "kh", b.data, b.len);
	assert_int_equal(tk_check(file, HOST, 22, &a, &w), 0);
	assert_int_equal(w.line, nlines + 3);
	knownhosts_where_clear(&w);
	buf_free(&b);
	free(bad);
	free(file);
	tk_key_free(&a);
}

/* Malformed lines with another key are no conflict and list no type. */
static void
test_malformed_no_conflict(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, b;
	char		*bad, *file, **types = NULL;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	bad = tk_malformed(&b);
	file = tk_write(t, "kh", bad);
	assert_int_equal(tk_check(file, HOST, 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_int_equal(knownhosts_types(&file, 1, HOST, 22, &types), 0);
	assert_non_null(types);
	assert_null(types[0]);
	strv_free(types);
	free(bad);
	free(file);
	tk_key_free(&a);
	tk_key_free(&b);
}

/*
 * Return key k's base64 with its last character before the padding changed
 * so that the bits past the last byte are not zero (allocated).
 */
static char *
tk_b64_stray_bits(const struct tk_key *k)
{
	static const char	 alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789+/";
	char			*s, *c;
	size_t			 n;

	s = xstrdup(k->b64);
	n = strcspn(s, "=");
	assert_true(n > 0 && n < strlen(s));
	c = strchr(alphabet, s[n - 1]);
	assert_non_null(c);
	s[n - 1] = alphabet[(c - alphabet) | 1];
	return s;
}

/* As in OpenSSH, a key missing its padding or with stray bits is skipped. */
static void
test_strict_base64(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 e;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*odd, *text, *file, *good;
	const char			*argv[] = { "ssh-keygen", "-l", "-f",
	    NULL, NULL };

	tk_keygen(t, "ecdsa", "e", &e);
	odd = tk_b64_stray_bits(&e);
	text = xasprintf(HOST " %s %.*s\n" HOST " %s %s\n", e.type,
	    (int)strcspn(e.b64, "="), e.b64, e.type, odd);
	file = tk_write(t, "kh", text);
	argv[3] = file;
	assert_int_not_equal(tk_run(argv, NULL), 0);
	assert_int_equal(tk_check(file, HOST, 22, &e, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(file);
	good = xasprintf("%s" HOST " %s %s\n", text, e.type, e.b64);
	file = tk_write(t, "kh", good);
	assert_int_equal(tk_check(file, HOST, 22, &e, &w), 0);
	assert_int_equal(w.line, 3);
	knownhosts_where_clear(&w);
	free(good);
	free(file);
	free(text);
	free(odd);
	tk_key_free(&e);
}

/* A file with no final newline and CRLF line ends still parses. */
static void
test_crlf_no_final_newline(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf("# crlf\r\nother.org %s %s\r\n" HOST " %s %s",
	    a.type, a.b64, a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, &w), 0);
	assert_int_equal(w.line, 3);
	knownhosts_where_clear(&w);
	free(text);
	free(file);
	tk_key_free(&a);
}

/*
 * A file named as known_hosts that is no regular file: /dev/null holds
 * nothing (UserKnownHostsFile /dev/null), /dev/zero and a FIFO nobody
 * writes are errors at once, never a read without end or a hang.
 */
static void
test_not_regular(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	char				*files[1], *cause = NULL;
	const char			*bad[] = { "/dev/zero", NULL };

	tk_keygen(t, "ed25519", "a", &a);
	files[0] = (char *)(uintptr_t)"/dev/null";
	assert_int_equal(knownhosts_check(files, 1, HOST, 22, a.blob, a.len,
	    NULL, &cause), CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_null(cause);
	bad[1] = files[0] = tk_path(t, "fifo");
	assert_int_equal(mkfifo(files[0], 0600), 0);
	for (size_t i = 0; i < 2; i++) {
		files[0] = (char *)(uintptr_t)bad[i];
		assert_int_equal(knownhosts_check(files, 1, HOST, 22, a.blob,
		    a.len, NULL, &cause), CLAW_ERR_INVAL);
		assert_non_null(strstr(cause, "not a regular file"));
		free(cause);
		cause = NULL;
	}
	free((char *)(uintptr_t)bad[1]);
	tk_key_free(&a);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, tk_setup, tk_teardown)
		T(test_plain_match),
		T(test_port),
		T(test_port_default),
		T(test_case_insensitive),
		T(test_hashed_keygen),
		T(test_wildcard),
		T(test_negated),
		T(test_type_isolation),
		T(test_changed),
		T(test_match_beats_changed),
		T(test_revoked),
		T(test_cert_authority),
		T(test_multiple_files),
		T(test_missing_file),
		T(test_unreadable_file),
		T(test_not_regular),
		T(test_check_bad_args),
		T(test_malformed_skipped),
		T(test_malformed_no_conflict),
		T(test_strict_base64),
		T(test_crlf_no_final_newline),
#undef T
	};

	knownhosts_where_clear(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
