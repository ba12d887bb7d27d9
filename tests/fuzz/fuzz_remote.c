/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: what a host sends back for mirror syncs, all of it
 * hostile.  The input is fed to the watcher's frame parser in pieces (as
 * the daemon reads it), the records of each frame go through the listing
 * parser the command uses (manifest_parse_find0_part), and the whole
 * input through both listing parsers and the text parser.  Build with
 * 'make fuzz' (clang); see docs/sync.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "watch_frame.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Parse a listing with small caps, and drop it. */
static void
fz_listing(const char *p, size_t len, int part)
{
	struct manifest_limits	 lim;
	struct manifest		*m = NULL;
	char			*cause = NULL;

	manifest_limits_default(&lim);
	lim.max_entries = 1000;
	lim.max_text = 1 << 20;
	if ((part ? manifest_parse_find0_part(p, len, &lim, &m, &cause) :
	    manifest_parse_find0(p, len, &lim, &m, &cause)) == 0) {
		if (cause != NULL)
			abort();	/* a cause only on failure */
		manifest_free(m);
	} else if (cause == NULL || m != NULL)
		abort();
	free(cause);
}

/* Frames out of the input, fed in pieces whose size the input picks. */
static void
fz_frames(const char *p, size_t len)
{
	struct watch_frame	f;
	size_t			at = 0, have, scanned = 0;
	size_t			step = len > 0 ? (unsigned char)p[0] % 61 + 1 : 1;
	int			r;

	for (have = 0; at < len;) {
		have = have + step < len - at ? have + step : len - at;
		r = watch_frame_parse(p + at, have, 1 << 16, &scanned, &f);
		if (r < 0)
			return;
		if (r == 0) {
			if (have == len - at)
				return;
			continue;
		}
		if (f.used > have || f.rec_off + f.rec_len > f.used ||
		    f.status < 0 || f.status > 255)
			abort();
		fz_listing(p + at + f.rec_off, f.rec_len, 1);
		at += f.used;
		have = 0;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char		*p = (const char *)data;
	struct manifest		*m = NULL;
	char			*cause = NULL;

	fz_frames(p, size);
	fz_listing(p, size, 0);
	fz_listing(p, size, 1);
	if (manifest_parse(p, size, NULL, &m, &cause) == 0)
		manifest_free(m);
	free(cause);
	return 0;
}
