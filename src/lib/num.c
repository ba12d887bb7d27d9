/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Bounded unsigned number parsing; see num.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "error.h"
#include "num.h"

/* Parse s[0..len) into *v, at most max; see num.h. */
int
num_parse(const char *s, size_t len, int flags, uint64_t max, uint64_t *v)
{
	unsigned	base = (flags & NUM_OCTAL) ? 8 : 10, d;
	uint64_t	x = 0;
	size_t		i;

	if (len == 0 || ((flags & NUM_CANONICAL) && len > 1 && s[0] == '0'))
		return CLAW_ERR_INVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] >= '0' + (int)base)
			return CLAW_ERR_INVAL;
		d = (unsigned)(s[i] - '0');
		if (d > max || x > (max - d) / base)
			return CLAW_ERR_INVAL;
		x = x * base + d;
	}
	*v = x;
	return 0;
}

/* num_parse over a string; see num.h. */
int
num_parse_str(const char *s, int flags, uint64_t max, uint64_t *v)
{
	if (s == NULL)
		return CLAW_ERR_INVAL;
	return num_parse(s, strlen(s), flags, max, v);
}
