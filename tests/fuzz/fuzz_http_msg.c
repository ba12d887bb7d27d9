/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: what a client sends to `serve --mcp --listen`
 * (docs/protocol.md), all of it hostile.  The input is parsed as a
 * request head, fed growing as a socket would deliver it; a head that
 * parses must point inside its own copy and keep the limits, and every
 * header value goes through the Host, Origin, Accept, Content-Type and
 * bearer checks.  Build with 'make fuzz' (clang); seeds in
 * tests/fuzz/corpus_http.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http_msg.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Run every check on each header value of r. */
static void
fz_checks(const struct http_req *r)
{
	size_t	i;

	for (i = 0; i < r->nh; i++) {
		(void)http_host_local(r->h[i].value);
		(void)http_origin_local(r->h[i].value);
		(void)http_accepts(r->h[i].value, "application/json");
		(void)http_accepts(r->h[i].value, "text/event-stream");
		(void)http_type_is(r->h[i].value, "application/json");
		(void)http_bearer_ok(r->h[i].value, "0123456789abcdef");
		if (strlen(r->h[i].name) == 0)
			abort();
	}
	(void)http_req_path_is(r, "/mcp");
	if (r->nh > HTTP_HEADERS_MAX || (r->minor != 0 && r->minor != 1))
		abort();
}

/* Parse data as it grows, 1 byte then in halves, as reads would. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_req	 r;
	const char	*why;
	size_t		 n, used;
	int		 rc, status;

	for (n = size > 0 ? 1 : 0; ; n = n + (size - n + 1) / 2) {
		used = 0;
		rc = http_req_parse((const char *)data, n, &r, &used,
		    &status, &why);
		if (rc == 1) {
			if (used > n || used < 4)
				abort();
			fz_checks(&r);
			http_req_clear(&r);
		} else if (rc != 0 && (status < 400 || status > 505 ||
		    why == NULL))
			abort();
		if (rc != 0 || n >= size)
			break;
	}
	return 0;
}
