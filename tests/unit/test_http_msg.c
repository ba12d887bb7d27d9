/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for http_msg: request heads (complete, partial, leading
 * empty lines, every refusal and its status), header look-up, local Host
 * and Origin values (and look-alikes), Accept ranges with q=0, and
 * bearer tokens.
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

#include <cmocka.h>

#include "error.h"
#include "http_msg.h"
#include "xmalloc.h"

/* Parse s, expecting a refusal with status want. */
static void
expect_refused(const char *s, size_t len, int want)
{
	struct http_req	 r;
	const char	*why = NULL;
	size_t		 used = 0;
	int		 status = 0;

	assert_int_equal(http_req_parse(s, len, &r, &used, &status, &why),
	    CLAW_ERR_PARSE);
	assert_int_equal(status, want);
	assert_non_null(why);
}

/* A good head, with a body after it and blanks around a value. */
static void
test_parse_ok(void **state)
{
	const char	 s[] = "\r\nPOST /mcp?x=1 HTTP/1.1\r\nHost: "
	    "127.0.0.1:8080\r\ncontent-length:  5 \r\nX-A: 1\r\nx-a: 2\r\n"
	    "\r\nhello";
	struct http_req	 r;
	const char	*why = NULL;
	size_t		 used = 0;
	int		 status = 0;

	(void)state;
	assert_int_equal(http_req_parse(s, sizeof s - 1, &r, &used, &status,
	    &why), 1);
	assert_int_equal(used, sizeof s - 1 - 5);
	assert_string_equal(r.method, "POST");
	assert_string_equal(r.target, "/mcp?x=1");
	assert_int_equal(r.minor, 1);
	assert_int_equal(r.content_length, 5);
	assert_true(http_req_path_is(&r, "/mcp"));
	assert_false(http_req_path_is(&r, "/mc"));
	assert_string_equal(http_req_header(&r, "HOST"), "127.0.0.1:8080");
	assert_string_equal(http_req_header(&r, "x-a"), "1");
	assert_int_equal(http_req_count(&r, "X-A"), 2);
	assert_null(http_req_header(&r, "Origin"));
	http_req_clear(&r);
	http_req_clear(&r);
}

/* A head not complete yet asks for more; a long one is refused. */
static void
test_parse_partial(void **state)
{
	const char	 s[] = "GET /mcp HTTP/1.0\r\nHost: x\r\n";
	char		*big;
	struct http_req	 r;
	const char	*why = NULL;
	size_t		 used = 0;
	int		 status = 0;

	(void)state;
	assert_int_equal(http_req_parse(s, sizeof s - 1, &r, &used, &status,
	    &why), 0);
	assert_int_equal(http_req_parse("", 0, &r, &used, &status, &why), 0);
	big = xmalloc(HTTP_HEAD_MAX + 10);
	memset(big, 'a', HTTP_HEAD_MAX + 10);
	expect_refused(big, HTTP_HEAD_MAX + 10, 431);
	free(big);
}

/* Each kind of bad head, and its status. */
static void
test_parse_refused(void **state)
{
	static const struct {
		const char	*s;
		int		 status;
	} t[] = {
		{ "GARBAGE\r\n\r\n", 400 },
		{ "GET  /mcp HTTP/1.1\r\n\r\n", 400 },
		{ "GET mcp HTTP/1.1\r\n\r\n", 400 },
		{ "G(T /mcp HTTP/1.1\r\n\r\n", 400 },
		{ "GET /mcp HTTP/2.0\r\n\r\n", 505 },
		{ "GET /mcp FTP/1.1\r\n\r\n", 400 },
		{ "GET /mcp HTTP/1.1\r\nHost x\r\n\r\n", 400 },
		{ "GET /mcp HTTP/1.1\r\nHost : x\r\n\r\n", 400 },
		{ "GET /mcp HTTP/1.1\r\nA: b\r\n c\r\n\r\n", 400 },
		{ "GET /mcp HTTP/1.1\r\nA: b\rc\r\n\r\n", 400 },
		{ "GET /mcp HTTP/1.1\r\nA: b\nc: d\r\n\r\n", 400 },
		{ "GET /mcp HTTP/1.1\r\nA: \x01\r\n\r\n", 400 },
		{ "POST /mcp HTTP/1.1\r\nContent-Length: -1\r\n\r\n", 400 },
		{ "POST /mcp HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", 400 },
		{ "POST /mcp HTTP/1.1\r\nContent-Length: "
		    "9999999999999999999\r\n\r\n", 400 },
		{ "POST /mcp HTTP/1.1\r\nContent-Length: 1\r\n"
		    "Content-Length: 1\r\n\r\n", 400 },
		{ "POST /mcp HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		    501 },
	};
	static const char nul[] = "GET /mcp HTTP/1.1\r\nA\0: b\r\n\r\n";
	char	buf[HTTP_HEAD_MAX];
	size_t	i, n = 0;

	(void)state;
	for (i = 0; i < sizeof t / sizeof *t; i++)
		expect_refused(t[i].s, strlen(t[i].s), t[i].status);
	expect_refused(nul, sizeof nul - 1, 400);
	n = (size_t)snprintf(buf, sizeof buf, "GET /mcp HTTP/1.1\r\n");
	for (i = 0; i <= HTTP_HEADERS_MAX; i++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "H%zu: v\r\n",
		    i);
	n += (size_t)snprintf(buf + n, sizeof buf - n, "\r\n");
	expect_refused(buf, n, 431);
}

/* Host and Origin values on loopback, and ones that only look so. */
static void
test_local(void **state)
{
	(void)state;
	assert_true(http_host_local("localhost"));
	assert_true(http_host_local("LocalHost:3000"));
	assert_true(http_host_local("127.0.0.1"));
	assert_true(http_host_local("127.8.9.10:80"));
	assert_true(http_host_local("[::1]:8080"));
	assert_true(http_host_local("[::1]"));
	assert_false(http_host_local(NULL));
	assert_false(http_host_local(""));
	assert_false(http_host_local("evil.example.com"));
	assert_false(http_host_local("localhost.evil.com"));
	assert_false(http_host_local("127.0.0.1.evil.com"));
	assert_false(http_host_local("128.0.0.1"));
	assert_false(http_host_local("localhost:"));
	assert_false(http_host_local("localhost:80x"));
	assert_false(http_host_local("[::2]:80"));
	assert_false(http_host_local("0.0.0.0"));
	assert_true(http_origin_local("http://localhost:3000"));
	assert_true(http_origin_local("https://127.0.0.1"));
	assert_true(http_origin_local("http://[::1]:1"));
	assert_false(http_origin_local("null"));
	assert_false(http_origin_local("http://evil.example"));
	assert_false(http_origin_local("file://localhost"));
	assert_false(http_origin_local("http://localhost@evil.com"));
	assert_false(http_origin_local("http://localhost/x"));
	assert_false(http_origin_local("http://localhost.evil.com"));
}

/* Accept ranges, q=0, and Content-Type. */
static void
test_accept(void **state)
{
	const char	*j = "application/json", *e = "text/event-stream";

	(void)state;
	assert_true(http_accepts(NULL, j));
	assert_true(http_accepts("application/json, text/event-stream", j));
	assert_true(http_accepts("application/json, text/event-stream", e));
	assert_true(http_accepts("*/*", e));
	assert_true(http_accepts("text/*;q=0.5", e));
	assert_true(http_accepts("Application/JSON ; charset=utf-8", j));
	assert_false(http_accepts("text/html", j));
	assert_false(http_accepts("application/json;q=0", j));
	assert_false(http_accepts("application/json; q=0.0, text/html", j));
	assert_false(http_accepts("application/jsonx", j));
	assert_false(http_accepts("", j));
	assert_true(http_type_is("application/json; charset=utf-8", j));
	assert_true(http_type_is("APPLICATION/JSON", j));
	assert_false(http_type_is("application/json-seq", j));
	assert_false(http_type_is(NULL, j));
}

/* Bearer tokens: the scheme in any case, the token exactly. */
static void
test_bearer(void **state)
{
	(void)state;
	assert_true(http_bearer_ok("Bearer abcdef0123456789",
	    "abcdef0123456789"));
	assert_true(http_bearer_ok("bearer abcdef0123456789",
	    "abcdef0123456789"));
	assert_false(http_bearer_ok("Bearer abcdef012345678",
	    "abcdef0123456789"));
	assert_false(http_bearer_ok("Bearer abcdef01234567890",
	    "abcdef0123456789"));
	assert_false(http_bearer_ok("Basic abcdef0123456789",
	    "abcdef0123456789"));
	assert_false(http_bearer_ok("Bearer ", ""));
	assert_false(http_bearer_ok(NULL, "abcdef0123456789"));
	assert_string_equal(http_status_text(404), "Not Found");
	assert_string_equal(http_status_text(299), "Unknown");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_parse_partial),
		cmocka_unit_test(test_parse_refused),
		cmocka_unit_test(test_local),
		cmocka_unit_test(test_accept),
		cmocka_unit_test(test_bearer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
