/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for adding to known_hosts, listing the known key types, and
 * reading key types and fingerprints, checked against OpenSSH's ssh-keygen.
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
#include <unistd.h>

#include <cmocka.h>

#include "compat.h"
#include "error.h"
#include "knownhosts.h"
#include "strv.h"
#include "knownhosts_fixture.h"
#include "xmalloc.h"

/* Run ssh-keygen -F host -f file; return its status, output in *out. */
static int
tk_keygen_find(const char *file, const char *host, char **out)
{
	const char	*argv[] = { "ssh-keygen", "-F", host, "-f", file,
	    NULL };

	return tk_run(argv, out);
}

/* knownhosts_add makes the directory 0700 and the file 0600. */
static void
test_add_creates(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 r;
	struct knownhosts_where		 w = { NULL, 0 };
	struct stat			 sb;
	char				*dir, *file, *text, *want, *out = NULL;
	char				*cause = NULL;
	mode_t				 old;

	tk_keygen(t, "rsa", "r", &r);
	dir = tk_path(t, "ssh");
	file = tk_path(t, "ssh/known_hosts");
	old = umask(022);
	assert_int_equal(knownhosts_add(file, HOST, 22, r.blob, r.len, 0,
	    &cause), 0);
	umask(old);
	assert_null(cause);
	assert_int_equal(stat(dir, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0700);
	assert_int_equal(stat(file, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	text = tk_read(file);
	want = xasprintf(HOST " %s %s\n", r.type, r.b64);
	assert_string_equal(text, want);
	assert_int_equal(tk_check(file, HOST, 22, &r, &w), 0);
	assert_int_equal(w.line, 1);
	knownhosts_where_clear(&w);
	assert_int_equal(tk_keygen_find(file, HOST, &out), 0);
	assert_non_null(strstr(out, want));
	free(out);
	free(want);
	free(text);
	free(file);
	free(dir);
	tk_key_free(&r);
}

/* knownhosts_add ends an unterminated last line before appending. */
static void
test_add_newline(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, e;
	char		*old, *file, *text, *want, *cause = NULL;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ecdsa", "e", &e);
	old = xasprintf("other.org %s %s", a.type, a.b64);
	file = tk_write(t, "kh", old);
	assert_int_equal(knownhosts_add(file, HOST, 2222, e.blob, e.len, 0,
	    &cause), 0);
	assert_int_equal(knownhosts_add(file, HOST, 22, a.blob, a.len, 0,
	    &cause), 0);
	text = tk_read(file);
	want = xasprintf("%s\n[" HOST "]:2222 %s %s\n" HOST " %s %s\n", old,
	    e.type, e.b64, a.type, a.b64);
	assert_string_equal(text, want);
	assert_int_equal(tk_check(file, HOST, 2222, &e, NULL), 0);
	assert_int_equal(tk_check(file, "other.org", 22, &a, NULL), 0);
	assert_int_equal(tk_keygen_find(file, "[" HOST "]:2222", NULL), 0);
	free(want);
	free(text);
	free(file);
	free(old);
	tk_key_free(&a);
	tk_key_free(&e);
}

/* knownhosts_add(hash=1) writes entries ssh-keygen -F can find. */
static void
test_add_hashed(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*file, *text, *out = NULL;
	char				*cause = NULL;

	tk_keygen(t, "ed25519", "a", &a);
	file = tk_path(t, "kh");
	assert_int_equal(knownhosts_add(file, "Example.COM", 22, a.blob,
	    a.len, 1, &cause), 0);
	assert_int_equal(knownhosts_add(file, HOST, 2222, a.blob, a.len, 1,
	    &cause), 0);
	text = tk_read(file);
	assert_null(strstr(text, "xample"));
	assert_int_equal(strncmp(text, "|1|", 3), 0);
	assert_non_null(strstr(text, "\n|1|"));
	assert_int_equal(tk_keygen_find(file, HOST, &out), 0);
	assert_non_null(strstr(out, "found: line 1"));
	free(out);
	assert_int_equal(tk_keygen_find(file, "[" HOST "]:2222", &out), 0);
	assert_non_null(strstr(out, "found: line 2"));
	free(out);
	assert_int_equal(tk_keygen_find(file, "example.net", NULL), 1);
	assert_int_equal(tk_check(file, HOST, 2222, &a, &w), 0);
	assert_int_equal(w.line, 2);
	knownhosts_where_clear(&w);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* knownhosts_add refuses names that would change the line's meaning. */
static void
test_add_bad_host(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	const char	*bad[] = { "", "a b", "a\nb", "a,b", "*", "!a", "#a",
	    "@revoked", "|1|x", "a\tb" };
	char		*file, *cause;
	size_t		 i;

	tk_keygen(t, "ed25519", "a", &a);
	file = tk_path(t, "kh");
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		assert_int_equal(knownhosts_add(file, bad[i], 22, a.blob,
		    a.len, 0, &cause), CLAW_ERR_INVAL);
		assert_non_null(cause);
		free(cause);
	}
	cause = NULL;
	assert_int_equal(knownhosts_add(file, HOST, 22, a.blob, 10, 0,
	    &cause), CLAW_ERR_INVAL);
	free(cause);
	assert_int_equal(access(file, F_OK), -1);
	free(file);
	tk_key_free(&a);
}

/* Types come in file order, once each, skipping marker lines. */
static void
test_types(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, b, e, r;
	char		*t1, *t2, *files[2], **types = NULL;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	tk_keygen(t, "ecdsa", "e", &e);
	tk_keygen(t, "rsa", "r", &r);
	t1 = xasprintf(HOST " %s %s\n@revoked " HOST " %s %s\n"
	    "@cert-authority * %s %s\nother.org %s %s\n" HOST " %s %s\n"
	    HOST " %s %s\n", e.type, e.b64, r.type, r.b64, r.type, r.b64,
	    r.type, r.b64, a.type, a.b64, e.type, e.b64);
	t2 = xasprintf(HOST " %s %s\n" HOST " %s %s\n[" HOST "]:2 %s %s\n",
	    b.type, b.b64, r.type, r.b64, r.type, r.b64);
	files[0] = tk_write(t, "kh1", t1);
	files[1] = tk_write(t, "kh2", t2);
	assert_int_equal(knownhosts_types(files, 2, "EXAMPLE.com", 22,
	    &types), 0);
	assert_string_equal(types[0], "ecdsa-sha2-nistp256");
	assert_string_equal(types[1], "ssh-ed25519");
	assert_string_equal(types[2], "ssh-rsa");
	assert_null(types[3]);
	strv_free(types);
	assert_int_equal(knownhosts_types(files, 2, HOST, 2, &types), 0);
	assert_string_equal(types[0], "ssh-rsa");
	assert_null(types[1]);
	strv_free(types);
	assert_int_equal(knownhosts_types(files, 1, "example.net", 22,
	    &types), 0);
	assert_null(types[0]);
	strv_free(types);
	strv_free(NULL);
	free(t1);
	free(t2);
	free(files[0]);
	free(files[1]);
	tk_key_free(&a);
	tk_key_free(&b);
	tk_key_free(&e);
	tk_key_free(&r);
}

/* knownhosts_key_type reads the first string and bounds its length. */
static void
test_key_type(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, r;
	char		*type;
	unsigned char	 huge[] = { 0x7f, 0xff, 0xff, 0xff, 's', 's', 'h' };
	unsigned char	 ctl[] = { 0, 0, 0, 3, 's', '\n', 'h' };
	unsigned char	 empty[] = { 0, 0, 0, 0 };

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "rsa", "r", &r);
	type = knownhosts_key_type(a.blob, a.len);
	assert_string_equal(type, "ssh-ed25519");
	free(type);
	type = knownhosts_key_type(r.blob, r.len);
	assert_string_equal(type, "ssh-rsa");
	free(type);
	assert_null(knownhosts_key_type(a.blob, 14));
	assert_null(knownhosts_key_type(a.blob, 3));
	assert_null(knownhosts_key_type(NULL, 0));
	assert_null(knownhosts_key_type(huge, sizeof huge));
	assert_null(knownhosts_key_type(ctl, sizeof ctl));
	assert_null(knownhosts_key_type(empty, sizeof empty));
	tk_key_free(&a);
	tk_key_free(&r);
}

/* Compare knownhosts_fingerprint with ssh-keygen -lf for one key. */
static void
tk_fp_compare(const struct tk_key *k)
{
	char		*pub, *out = NULL, *fp, *field, *sp;
	const char	*argv[] = { "ssh-keygen", "-l", "-E", "sha256", "-f",
	    NULL, NULL };

	pub = xasprintf("%s.pub", k->path);
	argv[5] = pub;
	assert_int_equal(tk_run(argv, &out), 0);
	assert_non_null(strtok_r(out, " ", &sp));
	field = strtok_r(NULL, " ", &sp);
	assert_non_null(field);
	fp = knownhosts_fingerprint(k->blob, k->len);
	assert_string_equal(fp, field);
	assert_null(strchr(fp, '='));
	free(fp);
	free(out);
	free(pub);
}

/* Fingerprints equal the SHA256 field of ssh-keygen -lf. */
static void
test_fingerprint(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, e, r;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ecdsa", "e", &e);
	tk_keygen(t, "rsa", "r", &r);
	tk_fp_compare(&a);
	tk_fp_compare(&e);
	tk_fp_compare(&r);
	tk_key_free(&a);
	tk_key_free(&e);
	tk_key_free(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, tk_setup, tk_teardown)
		T(test_add_creates),
		T(test_add_newline),
		T(test_add_hashed),
		T(test_add_bad_host),
		T(test_types),
		T(test_key_type),
		T(test_fingerprint),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
