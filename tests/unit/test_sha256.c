/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for sha256: the FIPS 180-2 examples, every length around
 * the padding boundaries and a long input, fed whole and in odd pieces,
 * against libcrypto's SHA-256, each with the portable block function and
 * with the CPU's SHA instructions where it has them; and the embedded
 * agent's sum, taken at build time by sha256sum, against the bytes.
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
#include <openssl/evp.h>

#include "agent_deploy.h"
#include "sha256.h"

/* md as 64 lower-case hex digits in out. */
static void
hex(const unsigned char md[SHA256_LEN], char out[2 * SHA256_LEN + 1])
{
	static const char	digits[] = "0123456789abcdef";
	int			i;

	for (i = 0; i < SHA256_LEN; i++) {
		out[2 * i] = digits[md[i] >> 4];
		out[2 * i + 1] = digits[md[i] & 0xf];
	}
	out[2 * SHA256_LEN] = '\0';
}

/* The published examples, including a million 'a's fed in pieces. */
static void
test_known(void **state)
{
	unsigned char	md[SHA256_LEN], a[1000];
	char		h[2 * SHA256_LEN + 1];
	struct sha256	c;
	int		i;

	(void)state;
	sha256("", 0, md);
	hex(md, h);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855");
	sha256("abc", 3, md);
	hex(md, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	sha256("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	    56, md);
	hex(md, h);
	assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039"
	    "a33ce45964ff2167f6ecedd419db06c1");
	memset(a, 'a', sizeof a);
	sha256_init(&c);
	for (i = 0; i < 1000; i++)
		sha256_update(&c, a, sizeof a);
	sha256_final(&c, md);
	hex(md, h);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67"
	    "f1809a48a497200e046d39ccc7112cd0");
}

/* Every length to 300 bytes, whole and in pieces of 1..7, as libcrypto. */
static void
test_lengths(void **state)
{
	unsigned char	 p[300], want[EVP_MAX_MD_SIZE], got[SHA256_LEN];
	unsigned int	 n;
	struct sha256	 c;
	size_t		 len, off, k;

	(void)state;
	for (len = 0; len < sizeof p; len++)
		p[len] = (unsigned char)(len * 131 + 7);
	for (len = 0; len <= sizeof p; len++) {
		assert_int_equal(EVP_Digest(p, len, want, &n, EVP_sha256(),
		    NULL), 1);
		assert_int_equal(n, SHA256_LEN);
		sha256(p, len, got);
		assert_memory_equal(got, want, SHA256_LEN);
		sha256_init(&c);
		for (off = 0; off < len; off += k) {
			k = 1 + (off + len) % 7;
			if (k > len - off)
				k = len - off;
			sha256_update(&c, p + off, k);
		}
		sha256_final(&c, got);
		assert_memory_equal(got, want, SHA256_LEN);
	}
}

/* 1 MiB and a bit, whole and in pieces that straddle blocks. */
static void
test_long(void **state)
{
	unsigned char	*p, want[EVP_MAX_MD_SIZE], got[SHA256_LEN];
	unsigned int	 n;
	struct sha256	 c;
	size_t		 len = (1 << 20) + 13, off, k;

	(void)state;
	p = malloc(len);
	assert_non_null(p);
	for (off = 0; off < len; off++)
		p[off] = (unsigned char)(off * 7 + (off >> 9));
	assert_int_equal(EVP_Digest(p, len, want, &n, EVP_sha256(), NULL), 1);
	sha256(p, len, got);
	assert_memory_equal(got, want, SHA256_LEN);
	sha256_init(&c);
	for (off = 0, k = 1; off < len; off += k, k = k * 3 % 1000 + 1) {
		if (k > len - off)
			k = len - off;
		sha256_update(&c, p + off, k);
	}
	sha256_final(&c, got);
	assert_memory_equal(got, want, SHA256_LEN);
	free(p);
}

/* Run the group's tests with the portable block function. */
static int
setup_portable(void **state)
{
	(void)state;
	return sha256_accel(0);		/* 0: the portable code */
}

/* Run them with the SHA instructions, or skip where the CPU lacks them. */
static int
setup_hw(void **state)
{
	(void)state;
	if (!sha256_accel(1))
		skip();
	return 0;
}

/* agent_deploy_sum is the hash of agent_deploy_blob's bytes. */
static void
test_agent_sum(void **state)
{
	unsigned char		 md[SHA256_LEN];
	char			 h[2 * SHA256_LEN + 1];
	const unsigned char	*p;
	size_t			 len;

	(void)state;
	p = agent_deploy_blob(&len);
	assert_true(len > 1000);
	sha256(p, len, md);
	hex(md, h);
	assert_string_equal(agent_deploy_sum(), h);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_known, setup_portable),
		cmocka_unit_test_setup(test_lengths, setup_portable),
		cmocka_unit_test_setup(test_long, setup_portable),
		cmocka_unit_test_setup(test_known, setup_hw),
		cmocka_unit_test_setup(test_lengths, setup_hw),
		cmocka_unit_test_setup(test_long, setup_hw),
		cmocka_unit_test(test_agent_sum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
