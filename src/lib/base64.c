/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Base64 (RFC 4648, standard alphabet), in plain C so that what is accepted
 * is decided here and not by a library's leniency.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>

#include "base64.h"
#include "compat.h"
#include "error.h"
#include "xmalloc.h"

static const char base64_chars[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Return the value of base64 alphabet character c, or -1 for any other. */
static int
base64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Set *ndata to the length of text[0..len) without its padding; return
 * CLAW_ERR_PARSE if the length cannot be base64 or padding is wrong, or
 * missing when strict.
 */
static int
base64_data_len(const char *text, size_t len, int strict, size_t *ndata)
{
	size_t	n = len;

	while (n > 0 && len - n < 2 && text[n - 1] == '=')
		n--;
	if (n % 4 == 1 || ((strict || n != len) && len % 4 != 0))
		return CLAW_ERR_PARSE;
	*ndata = n;
	return 0;
}

/*
 * Decode n alphabet characters into out, setting *outlen; return the bits
 * left over past the last whole byte, or CLAW_ERR_PARSE at a character
 * not in the alphabet.
 */
static int
base64_decode_chars(const char *text, size_t n, unsigned char *out,
    size_t *outlen)
{
	unsigned int	acc = 0, bits = 0;
	size_t		i, o = 0;
	int		v;

	for (i = 0; i < n; i++) {
		if ((v = base64_value((unsigned char)text[i])) < 0)
			return CLAW_ERR_PARSE;
		acc = acc << 6 | (unsigned int)v;
		if ((bits += 6) >= 8) {
			bits -= 8;
			out[o++] = (unsigned char)(acc >> bits);
			acc &= (1U << bits) - 1;
		}
	}
	*outlen = o;
	return (int)acc;
}

/* Decode text, strictly or not; see base64.h. */
static unsigned char *
base64_decode_mode(const char *text, size_t len, int strict, size_t *outlen)
{
	unsigned char	*out;
	size_t		 n, size, got;
	int		 rest;

	if (base64_data_len(text, len, strict, &n) != 0)
		return NULL;
	size = n / 4 * 3 + 3;
	out = xmalloc(size);
	rest = base64_decode_chars(text, n, out, &got);
	if (rest < 0 || (strict && rest != 0)) {
		freezero(out, size);
		return NULL;
	}
	*outlen = got;
	return out;
}

/* Decode base64 text with optional padding; see base64.h. */
unsigned char *
base64_decode(const char *text, size_t len, size_t *outlen)
{
	return base64_decode_mode(text, len, 0, outlen);
}

/* Decode padded, canonical base64 text; see base64.h. */
unsigned char *
base64_decode_strict(const char *text, size_t len, size_t *outlen)
{
	return base64_decode_mode(text, len, 1, outlen);
}

/* Encode data as base64 with padding; see base64.h. */
char *
base64_encode(const unsigned char *data, size_t len)
{
	char		*out, *p;
	size_t		 i;
	uint32_t	 v;

	if (len / 3 >= SIZE_MAX / 4 - 1)
		abort();
	p = out = xmalloc((len + 2) / 3 * 4 + 1);
	for (i = 0; i < len; i += 3) {
		v = (uint32_t)data[i] << 16;
		if (i + 1 < len)
			v |= (uint32_t)data[i + 1] << 8;
		if (i + 2 < len)
			v |= data[i + 2];
		*p++ = base64_chars[v >> 18 & 63];
		*p++ = base64_chars[v >> 12 & 63];
		*p++ = i + 1 < len ? base64_chars[v >> 6 & 63] : '=';
		*p++ = i + 2 < len ? base64_chars[v & 63] : '=';
	}
	*p = '\0';
	return out;
}
