/*
 * Base64 (RFC 4648, standard alphabet) on top of libcrypto.
 */
#ifndef CLAW_BASE64_H
#define CLAW_BASE64_H

#include <stddef.h>

/*
 * Decode len bytes of base64 text (padding optional, no whitespace).
 * Returns an allocated buffer and sets *outlen, or NULL if the text is not
 * valid base64.
 */
unsigned char	*base64_decode(const char *text, size_t len, size_t *outlen);

/* Encode len bytes; returns an allocated, NUL-terminated string. */
char		*base64_encode(const unsigned char *data, size_t len);

#endif /* CLAW_BASE64_H */
