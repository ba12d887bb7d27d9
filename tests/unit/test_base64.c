/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for base64: RFC 4648 vectors, round trips checked against a
 * bit-by-bit reference encoder, and what each decoding mode refuses.
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

#include "base64.h"
#include "xmalloc.h"

#define B64_ALPHABET \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

/* A decoder under test. */
typedef unsigned char *(*b64_decode_fn)(const char *, size_t, size_t *);

/* An encoding and the bytes it stands for. */
struct b64_vector {
	const char	*data;
	size_t		 len;
	const char	*text;
};

static const struct b64_vector b64_vectors[] = {
	/* RFC 4648, section 10. */
	{ "", 0, "" },
	{ "f", 1, "Zg==" },
	{ "fo", 2, "Zm8=" },
	{ "foo", 3, "Zm9v" },
	{ "foob", 4, "Zm9vYg==" },
	{ "fooba", 5, "Zm9vYmE=" },
	{ "foobar", 6, "Zm9vYmFy" },
	/* The last two characters of the alphabet, and zero bytes. */
	{ "\xfb\xff", 2, "+/8=" },
	{ "\xff\xff\xff", 3, "////" },
	{ "\0\0\0\0", 4, "AAAAAA==" },
};

/*
 * Decode text[0..len) from an exact-size copy, so that a read past len is
 * caught by the sanitizers; return the result as decode does.  *outlen is
 * set to SIZE_MAX first, and must stay so on failure.
 */
static unsigned char *
b64_try(b64_decode_fn decode, const char *text, size_t len, size_t *outlen)
{
	char		*copy;
	unsigned char	*out;

	copy = xmalloc(len == 0 ? 1 : len);
	memcpy(copy, text, len);
	*outlen = SIZE_MAX;
	out = decode(copy, len, outlen);
	free(copy);
	if (out == NULL)
		assert_int_equal(*outlen, SIZE_MAX);
	return out;
}

/* Assert that decode turns text into exactly len bytes of data. */
static void
b64_decodes(b64_decode_fn decode, const char *text, const void *data,
    size_t len)
{
	unsigned char	*out;
	size_t		 outlen;

	out = b64_try(decode, text, strlen(text), &outlen);
	if (out == NULL)
		fail_msg("\"%s\" was refused", text);
	assert_int_equal(outlen, len);
	assert_memory_equal(out, data, len);
	free(out);
}

/* Assert that decode refuses text[0..len). */
static void
b64_refuses_len(b64_decode_fn decode, const char *text, size_t len)
{
	unsigned char	*out;
	size_t		 outlen;

	if ((out = b64_try(decode, text, len, &outlen)) != NULL) {
		free(out);
		fail_msg("\"%.*s\" was accepted", (int)len, text);
	}
}

/* Assert that decode refuses a string. */
static void
b64_refuses(b64_decode_fn decode, const char *text)
{
	b64_refuses_len(decode, text, strlen(text));
}

/* Assert that both decoders refuse a string. */
static void
b64_refuses_both(const char *text)
{
	b64_refuses(base64_decode, text);
	b64_refuses(base64_decode_strict, text);
}

/*
 * Encode data one output character at a time, reading each character's six
 * bits straight from the bit string (allocated).
 */
static char *
b64_reference(const unsigned char *data, size_t len)
{
	char	*s;
	size_t	 nchars = (len * 8 + 5) / 6, i, bit;
	int	 v, k;

	s = xcalloc(1, (len + 2) / 3 * 4 + 1);
	for (i = 0; i < nchars; i++) {
		v = 0;
		for (k = 0; k < 6; k++) {
			bit = i * 6 + (size_t)k;
			v <<= 1;
			if (bit < len * 8)
				v |= data[bit / 8] >> (7 - bit % 8) & 1;
		}
		s[i] = B64_ALPHABET[v];
	}
	while (i % 4 != 0)
		s[i++] = '=';
	return s;
}

/* The RFC 4648 vectors encode, and decode in both modes. */
static void
test_vectors(void **state)
{
	const struct b64_vector	*v;
	char			*text;
	size_t			 i;

	(void)state;
	for (i = 0; i < sizeof b64_vectors / sizeof b64_vectors[0]; i++) {
		v = &b64_vectors[i];
		text = base64_encode((const unsigned char *)v->data, v->len);
		assert_string_equal(text, v->text);
		free(text);
		b64_decodes(base64_decode, v->text, v->data, v->len);
		b64_decodes(base64_decode_strict, v->text, v->data, v->len);
	}
}

/* Empty text decodes to an empty, but allocated, buffer. */
static void
test_empty(void **state)
{
	unsigned char	*out;
	size_t		 outlen;

	(void)state;
	out = b64_try(base64_decode, "", 0, &outlen);
	assert_non_null(out);
	assert_int_equal(outlen, 0);
	free(out);
	out = b64_try(base64_decode_strict, "", 0, &outlen);
	assert_non_null(out);
	assert_int_equal(outlen, 0);
	free(out);
}

/* Lengths 0 to 64 encode as the reference does and decode back. */
static void
test_round_trip(void **state)
{
	unsigned char	data[64];
	char		*text, *want;
	size_t		len, i;

	(void)state;
	for (i = 0; i < sizeof data; i++)
		data[i] = (unsigned char)(i * 151 + 77);
	for (len = 0; len <= sizeof data; len++) {
		text = base64_encode(data, len);
		want = b64_reference(data, len);
		assert_string_equal(text, want);
		assert_int_equal(strlen(text), (len + 2) / 3 * 4);
		b64_decodes(base64_decode, text, data, len);
		b64_decodes(base64_decode_strict, text, data, len);
		free(want);
		free(text);
	}
}

/* Unpadded text decodes in the default mode only, for every length. */
static void
test_unpadded(void **state)
{
	unsigned char	data[64];
	char		*text;
	size_t		len, n;

	(void)state;
	for (len = 0; len < sizeof data; len++)
		data[len] = (unsigned char)(255 - len * 3);
	for (len = 0; len <= sizeof data; len++) {
		text = base64_encode(data, len);
		n = strcspn(text, "=");
		text[n] = '\0';
		b64_decodes(base64_decode, text, data, len);
		if (len % 3 != 0)
			b64_refuses(base64_decode_strict, text);
		free(text);
	}
}

/*
 * Every byte outside the alphabet but '=' (see test_padding) is refused, in
 * every position.
 */
static void
test_invalid_chars(void **state)
{
	char	text[9];
	int	c;
	size_t	pos;

	(void)state;
	for (c = 0; c < 256; c++) {
		if (c == '=' || (c != 0 && strchr(B64_ALPHABET, c) != NULL))
			continue;
		for (pos = 0; pos < 8; pos++) {
			memcpy(text, "Zm9vYmFy", sizeof text);
			text[pos] = (char)c;
			b64_refuses_len(base64_decode, text, 8);
			b64_refuses_len(base64_decode_strict, text, 8);
		}
	}
}

/* Whitespace, the URL-safe alphabet and stray '=' are all refused. */
static void
test_invalid_text(void **state)
{
	static const char	*bad[] = { "    Zm9v", " Zm9vYm8", "Zm9vYm8 ",
	    "Zm9v\nYm8", "Zm 9", "Zm9v\r\nYm", "\tZm9vYm8", "-_8=", "Zm=v",
	    "Zm9v=mFy", "Zm9vYg=A", "=Zm9", "\xc3\xa9Zm" };
	size_t			 i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		b64_refuses_both(bad[i]);
	b64_refuses_len(base64_decode, "Zm\0v", 4);
	b64_refuses_len(base64_decode_strict, "Zm\0v", 4);
}

/* A length that leaves one character in the last group is refused. */
static void
test_bad_length(void **state)
{
	static const char	*bad[] = { "Z", "Zm9vY", "Zm9vYmFyZ", "Z=",
	    "Z==", "Z===", "Zm9vY===" };
	unsigned char		*out;
	size_t			 i, outlen;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		b64_refuses_both(bad[i]);
	/* The length given counts, not the NUL. */
	out = b64_try(base64_decode_strict, "Zm9vYmFy", 4, &outlen);
	assert_non_null(out);
	assert_int_equal(outlen, 3);
	assert_memory_equal(out, "foo", 3);
	free(out);
	b64_refuses_len(base64_decode, "Zm9vYmFy", 5);
	b64_refuses_len(base64_decode_strict, "Zm9vYmFy", 6);
}

/* Padding must complete the last group, in the default mode too. */
static void
test_padding(void **state)
{
	static const char	*bad[] = { "=", "==", "===", "====", "Zg=",
	    "Zg===", "Zg====", "Zm8==", "Zm9v==", "Zm9v====", "Zm9vYg=" };
	size_t			 i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		b64_refuses_both(bad[i]);
	b64_decodes(base64_decode, "Zg", "f", 1);
	b64_decodes(base64_decode, "Zm8", "fo", 2);
	b64_refuses(base64_decode_strict, "Zg");
	b64_refuses(base64_decode_strict, "Zm8");
}

/* Strict decoding wants the unused bits zero; the default mode drops them. */
static void
test_trailing_bits(void **state)
{
	static const char	*odd1[] = { "Zh==", "Zv==", "Zm9vYh==" };
	static const char	*odd2[] = { "Zm9=", "Zm/=", "Zm9vYmF=" };
	size_t			 i;

	(void)state;
	for (i = 0; i < sizeof odd1 / sizeof odd1[0]; i++) {
		b64_refuses(base64_decode_strict, odd1[i]);
		b64_refuses(base64_decode_strict, odd2[i]);
	}
	b64_decodes(base64_decode, "Zh==", "f", 1);
	b64_decodes(base64_decode, "Zh", "f", 1);
	b64_decodes(base64_decode, "Zm9=", "fo", 2);
	b64_decodes(base64_decode, "Zm9vYmF=", "fooba", 5);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_unpadded),
		cmocka_unit_test(test_invalid_chars),
		cmocka_unit_test(test_invalid_text),
		cmocka_unit_test(test_bad_length),
		cmocka_unit_test(test_padding),
		cmocka_unit_test(test_trailing_bits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
