/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SHA-256 as FIPS 180-4 sets it out (sections 4.1.2, 5.1.1, 6.2), one
 * 64-byte block at a time; see sha256.h for why it is here.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "sha256.h"

/* The first 32 bits of the fractional parts of the cube roots of the
 * first 64 primes (section 4.2.2). */
static const uint32_t sha256_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b,
	0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
	0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
	0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152,
	0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
	0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
	0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
	0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

/* Rotate x right by n (0 < n < 32). */
static uint32_t
sha256_ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

/* Mix one 64-byte block into the state. */
static void
sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t	w[64], v[8], s0, s1, t1, t2;
	int		i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		    (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		s0 = sha256_ror(w[i - 15], 7) ^ sha256_ror(w[i - 15], 18) ^
		    (w[i - 15] >> 3);
		s1 = sha256_ror(w[i - 2], 17) ^ sha256_ror(w[i - 2], 19) ^
		    (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h, sizeof v);
	for (i = 0; i < 64; i++) {
		t1 = v[7] + (sha256_ror(v[4], 6) ^ sha256_ror(v[4], 11) ^
		    sha256_ror(v[4], 25)) + ((v[4] & v[5]) ^ (~v[4] & v[6])) +
		    sha256_k[i] + w[i];
		t2 = (sha256_ror(v[0], 2) ^ sha256_ror(v[0], 13) ^
		    sha256_ror(v[0], 22)) + ((v[0] & v[1]) ^ (v[0] & v[2]) ^
		    (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof *v);
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (i = 0; i < 8; i++)
		h[i] += v[i];
}

/* Start a hash with the initial value of section 5.3.3. */
void
sha256_init(struct sha256 *c)
{
	static const uint32_t	iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};

	memcpy(c->h, iv, sizeof c->h);
	c->bytes = 0;
	c->fill = 0;
}

/* Add len bytes of p, a block at a time. */
void
sha256_update(struct sha256 *c, const void *p, size_t len)
{
	const unsigned char	*s = p;
	size_t			 n;

	c->bytes += len;
	while (len > 0) {
		n = sizeof c->block - c->fill;
		if (n > len)
			n = len;
		memcpy(c->block + c->fill, s, n);
		c->fill += n;
		s += n;
		len -= n;
		if (c->fill == sizeof c->block) {
			sha256_block(c->h, c->block);
			c->fill = 0;
		}
	}
}

/* Pad (section 5.1.1), then write the state big-endian into md. */
void
sha256_final(struct sha256 *c, unsigned char md[SHA256_LEN])
{
	uint64_t	bits = c->bytes * 8;
	int		i;

	c->block[c->fill++] = 0x80;
	if (c->fill > 56) {
		memset(c->block + c->fill, 0, sizeof c->block - c->fill);
		sha256_block(c->h, c->block);
		c->fill = 0;
	}
	memset(c->block + c->fill, 0, 56 - c->fill);
	for (i = 0; i < 8; i++)
		c->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_block(c->h, c->block);
	for (i = 0; i < 32; i++)
		md[i] = (unsigned char)(c->h[i / 4] >> (24 - 8 * (i % 4)));
	memset(c, 0, sizeof *c);
}

/* The digest of p[0..len). */
void
sha256(const void *p, size_t len, unsigned char md[SHA256_LEN])
{
	struct sha256	c;

	sha256_init(&c);
	sha256_update(&c, p, len);
	sha256_final(&c, md);
}
