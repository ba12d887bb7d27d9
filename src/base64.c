/*
 * Base64 via libcrypto's EVP block functions, with the padding arithmetic
 * they leave to the caller.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>

#include "base64.h"
#include "xmalloc.h"

/* Decode base64 text; see base64.h. */
unsigned char *
base64_decode(const char *text, size_t len, size_t *outlen)
{
	unsigned char	*in, *out;
	size_t		 padded, pad = 0;
	int		 n;

	if (len > INT_MAX / 2)
		return NULL;
	while (len > 0 && text[len - 1] == '=')
		len--;
	if (len % 4 == 1)
		return NULL;
	padded = (len + 3) / 4 * 4;
	in = xmalloc(padded + 1);
	memcpy(in, text, len);
	memset(in + len, '=', padded - len);
	pad = padded - len;
	out = xmalloc(padded / 4 * 3 + 1);
	n = EVP_DecodeBlock(out, in, (int)padded);
	free(in);
	if (n < 0 || (size_t)n < pad) {
		free(out);
		return NULL;
	}
	*outlen = (size_t)n - pad;
	return out;
}

/* Encode data as base64 with padding; see base64.h. */
char *
base64_encode(const unsigned char *data, size_t len)
{
	char	*out;

	if (len > INT_MAX / 2)
		abort();
	out = xmalloc((len + 2) / 3 * 4 + 1);
	EVP_EncodeBlock((unsigned char *)out, data, (int)len);
	return out;
}
