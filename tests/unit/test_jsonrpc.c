/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for jsonrpc: framing (split lines, CRLF, empty lines, an
 * over-long line then a good one, NUL bytes), parsing (every error class,
 * id kinds, notifications), serialized responses and exec.output params.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "error.h"
#include "jsonrpc.h"
#include "xmalloc.h"

/* Feed s and expect the next line to be want. */
static void
expect_line(struct jsonrpc_framer *fr, const char *want, size_t wantlen)
{
	char	*line;
	size_t	 len;

	assert_int_equal(jsonrpc_framer_next(fr, &line, &len), 1);
	assert_int_equal(len, wantlen);
	assert_memory_equal(line, want, wantlen);
	assert_int_equal(line[len], '\0');
}

/* Expect no complete line. */
static void
expect_more(struct jsonrpc_framer *fr)
{
	char	*line;
	size_t	 len;

	assert_int_equal(jsonrpc_framer_next(fr, &line, &len), 0);
}

static void
test_framer_split(void **state)
{
	struct jsonrpc_framer	*fr = jsonrpc_framer_new(0);
	const char		*s = "{\"a\":1}\n{\"b\":2}\n";
	size_t			 i;

	(void)state;
	/* One byte at a time. */
	for (i = 0; i < 7; i++) {
		jsonrpc_framer_feed(fr, s + i, 1);
		expect_more(fr);
	}
	jsonrpc_framer_feed(fr, s + 7, strlen(s) - 7);
	expect_line(fr, "{\"a\":1}", 7);
	expect_line(fr, "{\"b\":2}", 7);
	expect_more(fr);
	assert_int_equal(jsonrpc_framer_pending(fr), 0);
	/* A partial line stays until its newline. */
	jsonrpc_framer_feed(fr, "abc", 3);
	expect_more(fr);
	assert_int_equal(jsonrpc_framer_pending(fr), 3);
	jsonrpc_framer_feed(fr, "def\n", 4);
	expect_line(fr, "abcdef", 6);
	jsonrpc_framer_free(fr);
	jsonrpc_framer_free(NULL);
}

static void
test_framer_crlf_empty(void **state)
{
	struct jsonrpc_framer	*fr = jsonrpc_framer_new(0);
	const char		*s = "\n\r\none\r\n\n\ntwo\nthree\r";

	(void)state;
	jsonrpc_framer_feed(fr, s, strlen(s));
	expect_line(fr, "one", 3);
	expect_line(fr, "two", 3);
	expect_more(fr);
	jsonrpc_framer_feed(fr, "\n", 1);
	expect_line(fr, "three", 5);
	expect_more(fr);
	/* A '\r' inside a line stays. */
	jsonrpc_framer_feed(fr, "a\rb\n", 4);
	expect_line(fr, "a\rb", 3);
	jsonrpc_framer_free(fr);
}

static void
test_framer_nul(void **state)
{
	struct jsonrpc_framer	*fr = jsonrpc_framer_new(0);

	(void)state;
	jsonrpc_framer_feed(fr, "a\0b\n", 4);
	expect_line(fr, "a\0b", 3);
	jsonrpc_framer_free(fr);
}

static void
test_framer_overlong(void **state)
{
	struct jsonrpc_framer	*fr = jsonrpc_framer_new(8);
	char			*line;
	size_t			 len;

	(void)state;
	/* Exactly the cap is fine, with or without '\r'. */
	jsonrpc_framer_feed(fr, "12345678\n12345678\r\n", 19);
	expect_line(fr, "12345678", 8);
	expect_line(fr, "12345678", 8);
	/* Over the cap within one feed: reported once, then the next. */
	jsonrpc_framer_feed(fr, "123456789\nok\n", 13);
	assert_int_equal(jsonrpc_framer_next(fr, &line, &len),
	    CLAW_ERR_RANGE);
	expect_line(fr, "ok", 2);
	expect_more(fr);
	/* Over the cap before its newline arrives: discarded as it comes. */
	jsonrpc_framer_feed(fr, "abcdefghijkl", 12);
	assert_int_equal(jsonrpc_framer_next(fr, &line, &len),
	    CLAW_ERR_RANGE);
	expect_more(fr);
	assert_int_equal(jsonrpc_framer_pending(fr), 0);
	jsonrpc_framer_feed(fr, "mnopqrstuvwxyz", 14);
	expect_more(fr);
	assert_int_equal(jsonrpc_framer_pending(fr), 0);
	jsonrpc_framer_feed(fr, "end\ngood\n", 9);
	expect_line(fr, "good", 4);
	expect_more(fr);
	jsonrpc_framer_free(fr);
}

/* Parse s; expect code, and an id printed as want_id (NULL: none). */
static void
parse_fails(const char *s, size_t len, int code, const char *want_id,
    const char *msg_part)
{
	struct jsonrpc_req	 req;
	char			*msg = NULL, *id;

	assert_int_equal(jsonrpc_parse(s, len, &req, &msg), code);
	assert_non_null(msg);
	if (msg_part != NULL && strstr(msg, msg_part) == NULL)
		fail_msg("message '%s' lacks '%s'", msg, msg_part);
	assert_null(req.method);
	assert_null(req.params);
	if (want_id == NULL)
		assert_null(req.id);
	else {
		assert_non_null(req.id);
		id = cJSON_PrintUnformatted(req.id);
		assert_string_equal(id, want_id);
		cJSON_free(id);
	}
	jsonrpc_req_clear(&req);
	free(msg);
}

#define FAILS(s, code, id, part) parse_fails(s, strlen(s), code, id, part)

static void
test_parse_errors(void **state)
{
	(void)state;
	FAILS("{", JSONRPC_PARSE_ERROR, NULL, NULL);
	FAILS("{\"jsonrpc\":\"2.0\"} x", JSONRPC_PARSE_ERROR, NULL, NULL);
	FAILS("   ", JSONRPC_PARSE_ERROR, NULL, NULL);
	parse_fails("{\"a\":\0}", 7, JSONRPC_PARSE_ERROR, NULL, "NUL");
	FAILS("{\"a\":\"\xff\"}", JSONRPC_PARSE_ERROR, NULL, "UTF-8");
	FAILS("{\"a\":\"\xc0\x80\"}", JSONRPC_PARSE_ERROR, NULL, "UTF-8");
	FAILS("{\"a\":\"\t\"}", JSONRPC_PARSE_ERROR, NULL, "control");
	FAILS("[]", JSONRPC_INVALID_REQUEST, NULL, "batches");
	FAILS("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\"}]",
	    JSONRPC_INVALID_REQUEST, NULL, "batches");
	FAILS("42", JSONRPC_INVALID_REQUEST, NULL, "object");
	FAILS("{\"id\":1,\"method\":\"x\"}", JSONRPC_INVALID_REQUEST, "1",
	    "jsonrpc");
	FAILS("{\"jsonrpc\":\"1.0\",\"id\":\"a\",\"method\":\"x\"}",
	    JSONRPC_INVALID_REQUEST, "\"a\"", "jsonrpc");
	FAILS("{\"jsonrpc\":\"2.0\",\"id\":7}", JSONRPC_INVALID_REQUEST, "7",
	    "method");
	FAILS("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"\"}",
	    JSONRPC_INVALID_REQUEST, "7", "method");
	FAILS("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":3}",
	    JSONRPC_INVALID_REQUEST, "7", "method");
	FAILS("{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"x\",\"params\":1}",
	    JSONRPC_INVALID_REQUEST, "7", "params");
	FAILS("{\"jsonrpc\":\"2.0\",\"id\":{},\"method\":\"x\"}",
	    JSONRPC_INVALID_REQUEST, NULL, "id");
	FAILS("{\"jsonrpc\":\"2.0\",\"id\":true,\"method\":\"x\"}",
	    JSONRPC_INVALID_REQUEST, NULL, "id");
	FAILS("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"x\",\"y\":1}",
	    JSONRPC_INVALID_REQUEST, "null", "unknown member 'y'");
	FAILS("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\","
	    "\"method\":\"y\"}",
	    JSONRPC_INVALID_REQUEST, "1", "repeated");
	FAILS("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":"
	    "{\"a\":\"b\\u0000c\"}}", JSONRPC_INVALID_REQUEST, NULL,
	    "\\u0000");
}

/* Parse a good request. */
static void
parse_ok(const char *s, struct jsonrpc_req *req)
{
	char	*msg = NULL;

	assert_int_equal(jsonrpc_parse(s, strlen(s), req, &msg), 0);
	assert_null(msg);
}

static void
test_parse_ok(void **state)
{
	struct jsonrpc_req	 req;
	char			*id;

	(void)state;
	parse_ok("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"fs.read\","
	    "\"params\":{\"path\":\"a\\\\u0000\"}}", &req);
	assert_string_equal(req.method, "fs.read");
	id = cJSON_PrintUnformatted(req.id);
	assert_string_equal(id, "1");
	cJSON_free(id);
	assert_string_equal(cJSON_GetObjectItem(req.params,
	    "path")->valuestring, "a\\u0000");
	jsonrpc_req_clear(&req);
	assert_null(req.method);

	parse_ok(" {\"method\":\"m\",\"jsonrpc\":\"2.0\",\"id\":\"x-1\"} \r",
	    &req);
	assert_string_equal(req.id->valuestring, "x-1");
	assert_null(req.params);
	jsonrpc_req_clear(&req);

	parse_ok("{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"m\","
	    "\"params\":[1]}", &req);
	assert_true(cJSON_IsNull(req.id));
	assert_true(cJSON_IsArray(req.params));
	jsonrpc_req_clear(&req);

	/* A notification has no id at all. */
	parse_ok("{\"jsonrpc\":\"2.0\",\"method\":\"$/cancel\","
	    "\"params\":{\"id\":3}}", &req);
	assert_null(req.id);
	jsonrpc_req_clear(&req);

	/* A big id survives a round trip. */
	parse_ok("{\"jsonrpc\":\"2.0\",\"id\":9007199254740991,"
	    "\"method\":\"m\"}", &req);
	id = jsonrpc_result(req.id, NULL);
	assert_string_equal(id, "{\"jsonrpc\":\"2.0\",\"id\":"
	    "9007199254740991,\"result\":null}\n");
	free(id);
	jsonrpc_req_clear(&req);
	parse_ok("{\"jsonrpc\":\"2.0\",\"id\":-1.5,\"method\":\"m\"}",
	    &req);
	id = jsonrpc_result(req.id, NULL);
	assert_string_equal(id, "{\"jsonrpc\":\"2.0\",\"id\":-1.5,"
	    "\"result\":null}\n");
	free(id);
	jsonrpc_req_clear(&req);

	/* Non-ASCII text is fine. */
	parse_ok("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"m\","
	    "\"params\":{\"t\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"}}",
	    &req);
	jsonrpc_req_clear(&req);
}

/* Parse s and expect its result line to carry want_id exactly. */
static void
id_echoes(const char *id_text, const char *want_id)
{
	struct jsonrpc_req	 req;
	char			*s, *line, *want;

	s = xasprintf("{\"params\":{\"id\":5,\"x\":[{\"id\":6}]},"
	    "\"jsonrpc\":\"2.0\",\"method\":\"m\",\"id\" : %s }", id_text);
	parse_ok(s, &req);
	line = jsonrpc_result(req.id, NULL);
	want = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":null}\n",
	    want_id);
	assert_string_equal(line, want);
	free(want);
	free(line);
	line = jsonrpc_error(req.id, JSONRPC_INTERNAL_ERROR, "x", NULL);
	assert_non_null(strstr(line, want_id));
	free(line);
	jsonrpc_req_clear(&req);
	free(s);
}

/* Numeric ids come back as the literal sent, never rounded or null. */
static void
test_id_exact(void **state)
{
	char	digits[401];

	(void)state;
	id_echoes("9007199254740993", "9007199254740993");
	id_echoes("9007199254740992", "9007199254740992");
	id_echoes("-9007199254740993", "-9007199254740993");
	id_echoes("1e999999", "1e999999");
	id_echoes("0.1", "0.1");
	id_echoes("12345678901234567890123", "12345678901234567890123");
	memset(digits, '7', 400);
	digits[400] = '\0';
	id_echoes(digits, digits);
	id_echoes("\"9007199254740993\"", "\"9007199254740993\"");
}

/* Whether the id of request line s is the requestId rid (JSON text). */
static int
id_is(const char *s, const char *rid)
{
	struct jsonrpc_req	 req;
	cJSON			*r = cJSON_Parse(rid);
	int			 yes;

	parse_ok(s, &req);
	assert_non_null(r);
	yes = jsonrpc_id_is(req.id, r);
	cJSON_Delete(r);
	jsonrpc_req_clear(&req);
	return yes;
}

/* A cancellation names its call by number or string, exactly. */
static void
test_id_is(void **state)
{
	(void)state;
	assert_true(id_is("{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"method\":\"m\"}", "7"));
	assert_true(id_is("{\"jsonrpc\":\"2.0\",\"id\":7.0,"
	    "\"method\":\"m\"}", "7"));
	assert_false(id_is("{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"method\":\"m\"}", "8"));
	assert_false(id_is("{\"jsonrpc\":\"2.0\",\"id\":7,"
	    "\"method\":\"m\"}", "\"7\""));
	assert_true(id_is("{\"jsonrpc\":\"2.0\",\"id\":\"a7\","
	    "\"method\":\"m\"}", "\"a7\""));
	assert_false(id_is("{\"jsonrpc\":\"2.0\",\"id\":\"7\","
	    "\"method\":\"m\"}", "7"));
}

static void
test_responses(void **state)
{
	cJSON	*id = cJSON_CreateString("a\"b"), *r, *data;
	char	*s;

	(void)state;
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "text", "line1\nline2");
	s = jsonrpc_result(id, r);
	assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\","
	    "\"result\":{\"text\":\"line1\\nline2\"}}\n");
	free(s);
	s = jsonrpc_result(NULL, NULL);
	assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"id\":null,"
	    "\"result\":null}\n");
	free(s);
	data = cJSON_CreateObject();
	cJSON_AddNumberToObject(data, "exit_status", 255);
	s = jsonrpc_error(id, JSONRPC_REMOTE_FAILED, "bad\xff", data);
	assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"id\":\"a\\\"b\","
	    "\"error\":{\"code\":-32002,\"message\":\"bad\xef\xbf\xbd\","
	    "\"data\":{\"exit_status\":255}}}\n");
	free(s);
	s = jsonrpc_error(NULL, JSONRPC_PARSE_ERROR, "x", NULL);
	assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"id\":null,"
	    "\"error\":{\"code\":-32700,\"message\":\"x\"}}\n");
	free(s);
	s = jsonrpc_notification("exec.output",
	    jsonrpc_output_params(id, "stdout", "hi\n", 3));
	assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"exec.output\",\"params\":{\"id\":\"a\\\"b\",\"stream\":"
	    "\"stdout\",\"data\":\"hi\\n\"}}\n");
	free(s);
	s = jsonrpc_notification("x", NULL);
	assert_string_equal(s, "{\"jsonrpc\":\"2.0\",\"method\":\"x\"}\n");
	free(s);
	cJSON_Delete(id);
}

static void
test_output_params(void **state)
{
	cJSON	*id = cJSON_CreateNumber(5), *p;

	(void)state;
	p = jsonrpc_output_params(id, "stderr", "\xff\x00", 2);
	assert_null(cJSON_GetObjectItem(p, "data"));
	assert_string_equal(cJSON_GetObjectItem(p, "data_base64")->valuestring,
	    "/wA=");
	assert_string_equal(cJSON_GetObjectItem(p, "stream")->valuestring,
	    "stderr");
	assert_string_equal(cJSON_GetObjectItem(p, "id")->valuestring, "5");
	cJSON_Delete(p);
	/* NUL alone is valid UTF-8 but not a JSON-safe string here. */
	p = jsonrpc_output_params(id, "stdout", "a\0b", 3);
	assert_non_null(cJSON_GetObjectItem(p, "data_base64"));
	cJSON_Delete(p);
	/* A split multi-byte character goes as base64 too. */
	p = jsonrpc_output_params(id, "stdout", "\xe2\x82", 2);
	assert_non_null(cJSON_GetObjectItem(p, "data_base64"));
	cJSON_Delete(p);
	p = jsonrpc_output_params(id, "stdout", NULL, 0);
	assert_string_equal(cJSON_GetObjectItem(p, "data")->valuestring, "");
	cJSON_Delete(p);
	cJSON_Delete(id);
}

static void
test_utf8(void **state)
{
	char	*s;

	(void)state;
	assert_true(jsonrpc_utf8_ok("", 0));
	assert_true(jsonrpc_utf8_ok("\xf4\x8f\xbf\xbf", 4));
	assert_false(jsonrpc_utf8_ok("\xf4\x90\x80\x80", 4));	/* > 10FFFF */
	assert_false(jsonrpc_utf8_ok("\xed\xa0\x80", 3));	/* surrogate */
	assert_false(jsonrpc_utf8_ok("\xe0\x80\xaf", 3));	/* overlong */
	assert_false(jsonrpc_utf8_ok("\xc3", 1));
	s = jsonrpc_utf8_clean("a\xff" "b\0c\xc3", 6);
	assert_string_equal(s, "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c\xef\xbf\xbd");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_framer_split),
		cmocka_unit_test(test_framer_crlf_empty),
		cmocka_unit_test(test_framer_nul),
		cmocka_unit_test(test_framer_overlong),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_ok),
		cmocka_unit_test(test_id_exact),
		cmocka_unit_test(test_id_is),
		cmocka_unit_test(test_responses),
		cmocka_unit_test(test_output_params),
		cmocka_unit_test(test_utf8),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
