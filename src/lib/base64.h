/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Base64 (RFC 4648, standard alphabet).
 */
#ifndef CLAW_BASE64_H
#define CLAW_BASE64_H

#include <stddef.h>

/*
 * Decode len bytes of base64 text, with no whitespace.  Padding is optional;
 * where present it must complete the last group of four.  Returns an
 * allocated buffer (never NULL on success, even for empty text) and sets
 * *outlen, or returns NULL if the text is not valid base64.  Failed output is
 * wiped before it is freed, so the text may be a secret.
 */
unsigned char	*base64_decode(const char *text, size_t len, size_t *outlen);

/*
 * Decode as base64_decode, but as strictly as OpenSSH reads keys: padding is
 * required (len a multiple of 4) and the bits past the last byte must be
 * zero, so each byte string has exactly one accepted encoding.
 */
unsigned char	*base64_decode_strict(const char *text, size_t len,
		    size_t *outlen);

/* Encode len bytes, padded; returns an allocated, NUL-terminated string. */
char		*base64_encode(const unsigned char *data, size_t len);

#endif /* CLAW_BASE64_H */
