/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SHA-256 as FIPS 180-4 sets it out (sections 4.1.2, 5.1.1, 6.2): a
 * portable block function, and on x86-64 CPUs with the SHA extensions
 * one built on them (SHA256RNDS2 does two rounds, SHA256MSG1/MSG2 the
 * message schedule), picked once with CPUID.  See sha256.h for why it is
 * here.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define SHA256_X86	1
#endif

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

/* Mix n 64-byte blocks into the state. */
typedef void	sha256_blocks_fn(uint32_t h[8], const unsigned char *p,
		    size_t n);

static sha256_blocks_fn	*sha256_blocks;

/* Rotate x right by n (0 < n < 32). */
#define ROR(x, n)	((x) >> (n) | (x) << (32 - (n)))

/*
 * One round with the working variables named in place: the caller
 * rotates the names, not the values (a, b, c, d, e, f, g, h -> h, a, b,
 * ...), so nothing is moved between rounds.
 */
#define ROUND(a, b, c, d, e, f, g, h, i) do {				\
	t = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +			\
	    ((e & f) ^ (~e & g)) + sha256_k[i] + w[i];			\
	d += t;								\
	h = t + (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +			\
	    ((a & b) ^ (a & c) ^ (b & c));				\
} while (0)

/* The portable block function. */
static void
sha256_blocks_c(uint32_t s[8], const unsigned char *p, size_t n)
{
	uint32_t	w[64], a, b, c, d, e, f, g, h, t, s0, s1;
	int		i;

	for (; n > 0; n--, p += 64) {
		for (i = 0; i < 16; i++)
			w[i] = (uint32_t)p[4 * i] << 24 |
			    (uint32_t)p[4 * i + 1] << 16 |
			    (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
		for (i = 16; i < 64; i++) {
			s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
			    (w[i - 15] >> 3);
			s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^
			    (w[i - 2] >> 10);
			w[i] = w[i - 16] + s0 + w[i - 7] + s1;
		}
		a = s[0]; b = s[1]; c = s[2]; d = s[3];
		e = s[4]; f = s[5]; g = s[6]; h = s[7];
		for (i = 0; i < 64; i += 8) {
			ROUND(a, b, c, d, e, f, g, h, i);
			ROUND(h, a, b, c, d, e, f, g, i + 1);
			ROUND(g, h, a, b, c, d, e, f, i + 2);
			ROUND(f, g, h, a, b, c, d, e, i + 3);
			ROUND(e, f, g, h, a, b, c, d, i + 4);
			ROUND(d, e, f, g, h, a, b, c, i + 5);
			ROUND(c, d, e, f, g, h, a, b, i + 6);
			ROUND(b, c, d, e, f, g, h, a, i + 7);
		}
		s[0] += a; s[1] += b; s[2] += c; s[3] += d;
		s[4] += e; s[5] += f; s[6] += g; s[7] += h;
	}
}

#ifdef SHA256_X86
/*
 * Four rounds i..i+3 with the SHA extensions: the message words plus
 * their constants, two rounds on each half.  abef and cdgh are the state
 * as SHA256RNDS2 wants it.
 */
#define SHA256_NI_ROUNDS(m, i) do {					\
	k = _mm_add_epi32(m, _mm_loadu_si128(				\
	    (const __m128i *)(const void *)&sha256_k[i]));		\
	cdgh = _mm_sha256rnds2_epu32(cdgh, abef, k);			\
	abef = _mm_sha256rnds2_epu32(abef, cdgh,			\
	    _mm_shuffle_epi32(k, 0x0e));				\
} while (0)

/* The block function on the SHA extensions. */
static void __attribute__((__target__("sha,sse4.1,ssse3")))
sha256_blocks_ni(uint32_t s[8], const unsigned char *p, size_t n)
{
	const __m128i	be = _mm_set_epi64x(0x0c0d0e0f08090a0bLL,
			    0x0405060700010203LL);
	__m128i		abef, cdgh, t, m[4], k, abef0, cdgh0;
	int		i;

	/* From a b c d / e f g h to the order the instructions use. */
	t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)s), 0xb1);
	cdgh = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(s + 4)),
	    0x1b);
	abef = _mm_alignr_epi8(t, cdgh, 8);
	cdgh = _mm_blend_epi16(cdgh, t, 0xf0);
	for (; n > 0; n--, p += 64) {
		abef0 = abef;
		cdgh0 = cdgh;
		for (i = 0; i < 4; i++) {
			m[i] = _mm_shuffle_epi8(_mm_loadu_si128(
			    (const __m128i *)(const void *)(p + 16 * i)), be);
			SHA256_NI_ROUNDS(m[i], 4 * i);
		}
		/* W[t] = W[t-16] + s0(W[t-15]) + W[t-7] + s1(W[t-2]),
		   four at a time: m[i & 3] holds W[t-16..t-13] */
		for (i = 4; i < 16; i++) {
			t = _mm_sha256msg1_epu32(m[i & 3], m[(i + 1) & 3]);
			t = _mm_add_epi32(t, _mm_alignr_epi8(m[(i + 3) & 3],
			    m[(i + 2) & 3], 4));
			m[i & 3] = _mm_sha256msg2_epu32(t, m[(i + 3) & 3]);
			SHA256_NI_ROUNDS(m[i & 3], 4 * i);
		}
		abef = _mm_add_epi32(abef, abef0);
		cdgh = _mm_add_epi32(cdgh, cdgh0);
	}
	t = _mm_shuffle_epi32(abef, 0x1b);
	cdgh = _mm_shuffle_epi32(cdgh, 0xb1);
	_mm_storeu_si128((__m128i *)s, _mm_blend_epi16(t, cdgh, 0xf0));
	_mm_storeu_si128((__m128i *)(s + 4), _mm_alignr_epi8(cdgh, t, 8));
}

/* Whether the CPU has the SHA extensions, SSSE3 and SSE4.1. */
static int
sha256_cpu_ni(void)
{
	unsigned int	a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) ||
	    (c & bit_SSSE3) == 0 || (c & bit_SSE4_1) == 0)
		return 0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b & bit_SHA) != 0;
}
#endif /* SHA256_X86 */

/* Choose the block function (hw != 0: the fastest the CPU has). */
int
sha256_accel(int hw)
{
	sha256_blocks = sha256_blocks_c;
#ifdef SHA256_X86
	if (hw && sha256_cpu_ni()) {
		sha256_blocks = sha256_blocks_ni;
		return 1;
	}
#endif
	return 0;
}

/* Start a hash with the initial value of section 5.3.3. */
void
sha256_init(struct sha256 *c)
{
	static const uint32_t	iv[8] = {
		0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19
	};

	if (sha256_blocks == NULL)
		sha256_accel(1);
	memcpy(c->h, iv, sizeof c->h);
	c->bytes = 0;
	c->fill = 0;
}

/* Add len bytes of p: whole blocks straight from p, the rest kept. */
void
sha256_update(struct sha256 *c, const void *p, size_t len)
{
	const unsigned char	*s = p;
	size_t			 n;

	c->bytes += len;
	if (c->fill > 0) {
		n = sizeof c->block - c->fill;
		if (n > len)
			n = len;
		memcpy(c->block + c->fill, s, n);
		c->fill += n;
		s += n;
		len -= n;
		if (c->fill < sizeof c->block)
			return;
		sha256_blocks(c->h, c->block, 1);
		c->fill = 0;
	}
	if ((n = len / 64) > 0) {
		sha256_blocks(c->h, s, n);
		s += 64 * n;
		len -= 64 * n;
	}
	memcpy(c->block, s, len);
	c->fill = len;
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
		sha256_blocks(c->h, c->block, 1);
		c->fill = 0;
	}
	memset(c->block + c->fill, 0, 56 - c->fill);
	for (i = 0; i < 8; i++)
		c->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_blocks(c->h, c->block, 1);
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
