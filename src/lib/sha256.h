/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SHA-256 (FIPS 180-4) without libcrypto: its first digest costs 1.5 to
 * 5 ms of provider set-up (and reading openssl.cnf) in a process that
 * needs nothing else from it, and every CLI call hashes something (a
 * sandbox's id and config hash; a mirror exec, the files it syncs).  On
 * x86-64 CPUs with the SHA extensions it is as fast per byte as
 * libcrypto's (docs/PERFORMANCE.md); elsewhere a portable version.
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

/*
 * Use the CPU's SHA instructions where it has them (hw != 0), or the
 * portable code (hw == 0: for tests).  Returns 1 if the instructions are
 * in use.  Not needed otherwise: the first sha256_init chooses.
 */
int	sha256_accel(int hw);

/* The digest of p[0..len) in one call. */
void	sha256(const void *p, size_t len, unsigned char md[SHA256_LEN]);

#endif /* CLAW_SHA256_H */
