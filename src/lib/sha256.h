/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SHA-256 (FIPS 180-4) for short inputs on hot paths: a sandbox's id and
 * config hash are computed on every command, and libcrypto's first digest
 * costs about 1.4 ms of provider set-up in a process that needs nothing
 * else from it.  Bulk hashing (manifests, archives) stays on libcrypto,
 * which is faster per byte.
 */
#ifndef CLAW_SHA256_H
#define CLAW_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN	32

struct sha256 {
	uint32_t	h[8];
	uint64_t	bytes;		/* hashed so far */
	unsigned char	block[64];
	size_t		fill;		/* bytes in block */
};

/* Start a hash. */
void	sha256_init(struct sha256 *c);

/* Add len bytes of p. */
void	sha256_update(struct sha256 *c, const void *p, size_t len);

/* Finish: the digest into md; c must be started again before reuse. */
void	sha256_final(struct sha256 *c, unsigned char md[SHA256_LEN]);

/* The digest of p[0..len) in one call. */
void	sha256(const void *p, size_t len, unsigned char md[SHA256_LEN]);

#endif /* CLAW_SHA256_H */
