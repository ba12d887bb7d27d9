/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The one parser of unsigned numbers for everything read from outside:
 * host replies, frames, environment variables, options.  Digits only (no
 * sign, space, prefix or trailing text), bounded by a maximum the caller
 * names, never reading past the length given.
 */
#ifndef CLAW_NUM_H
#define CLAW_NUM_H

#include <stddef.h>
#include <stdint.h>

#define NUM_OCTAL	0x1	/* digits 0-7, base 8 (else base 10) */
#define NUM_CANONICAL	0x2	/* no leading zero, except "0" itself */

/*
 * Parse s[0..len) into *v, at most max: 0, or CLAW_ERR_INVAL (empty, a
 * character that is not a digit of the base, a leading zero under
 * NUM_CANONICAL, over max) with *v untouched.
 */
int	num_parse(const char *s, size_t len, int flags, uint64_t max,
	    uint64_t *v);

/* num_parse over the NUL-terminated s (NULL fails). */
int	num_parse_str(const char *s, int flags, uint64_t max, uint64_t *v);

#endif /* CLAW_NUM_H */
