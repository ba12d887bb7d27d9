/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The transfer progress line; see progress.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "num.h"
#include "progress.h"

#define PROGRESS_MIB	(1024.0 * 1024.0)

/* CLAWSSH_PROGRESS_MS if it is a plain decimal up to 600000, else dflt. */
static int
progress_after(int dflt)
{
	uint64_t	v;

	if (num_parse_str(getenv("CLAWSSH_PROGRESS_MS"), 0, 600000, &v) != 0)
		return dflt;
	return (int)v;
}

/* Start counting; see progress.h. */
void
progress_init(struct progress *p, const char *verb, uint64_t total)
{
	memset(p, 0, sizeof *p);
	p->verb = verb;
	p->total = total;
	p->start = clock_now_ms();
	p->tty = isatty(STDERR_FILENO);
	p->after = progress_after(PROGRESS_AFTER_MS);
}

/* Seconds as M:SS or H:MM:SS. */
static void
progress_time(char *out, size_t len, int64_t s)
{
	if (s >= 3600)
		snprintf(out, len, "%lld:%02lld:%02lld", (long long)(s / 3600),
		    (long long)(s / 60 % 60), (long long)(s % 60));
	else
		snprintf(out, len, "%lld:%02lld", (long long)(s / 60),
		    (long long)(s % 60));
}

/* Format the line; see progress.h. */
void
progress_format(char *out, size_t len, const char *verb, uint64_t files,
    uint64_t bytes, uint64_t total, int64_t ms, int done)
{
	char	 t[32];
	double	 rate;
	int	 pct;
	int64_t	 left;

	if (ms < 1)
		ms = 1;
	rate = (double)bytes * 1000 / (double)ms;	/* bytes/s */
	if (total == 0 && !done) {
		snprintf(out, len, "clawssh: %s %llu files, %.1f MiB, "
		    "%.1f MiB/s", verb, (unsigned long long)files,
		    (double)bytes / PROGRESS_MIB, rate / PROGRESS_MIB);
		return;
	}
	if (done) {
		progress_time(t, sizeof t, (ms + 500) / 1000);
		snprintf(out, len, "clawssh: %s %llu files, %.1f MiB, 100%%, "
		    "%.1f MiB/s, %s", verb, (unsigned long long)files,
		    (double)bytes / PROGRESS_MIB, rate / PROGRESS_MIB, t);
		return;
	}
	/* The total is an estimate: never 100% nor no time left before
	   the end. */
	pct = bytes >= total ? 99 : (int)(bytes * 100 / total);
	if (pct > 99)
		pct = 99;
	left = bytes >= total || rate < 1 ? 0 :
	    (int64_t)((double)(total - bytes) / rate + 0.999);
	progress_time(t, sizeof t, left > 0 ? left : 1);
	snprintf(out, len, "clawssh: %s %llu files, %.1f of %.1f MiB, %d%%, "
	    "%.1f MiB/s, %s left", verb, (unsigned long long)files,
	    (double)bytes / PROGRESS_MIB, (double)total / PROGRESS_MIB, pct,
	    rate / PROGRESS_MIB, t);
}

/* Print the line (over the last one). */
static void
progress_show(struct progress *p, uint64_t files, int64_t now, int done)
{
	char	line[256];

	progress_format(line, sizeof line, p->verb, files, p->bytes,
	    p->total, now - p->start, done);
	/* trailing blanks wipe what a longer line left */
	fprintf(stderr, "\r%s%s", line, done ? "\n" : "   ");
	fflush(stderr);
	p->shown = now;
}

/* Count bytes; see progress.h. */
void
progress_add(struct progress *p, uint64_t n, uint64_t files)
{
	int64_t	now;

	p->bytes += n;
	if (!p->tty)
		return;
	now = clock_now_ms();
	if (now - p->start < p->after || now - p->shown < PROGRESS_EVERY_MS)
		return;
	progress_show(p, files, now, 0);
}

/* The end; see progress.h. */
void
progress_end(struct progress *p, uint64_t files)
{
	if (p->tty && p->shown != 0)
		progress_show(p, files, clock_now_ms(), 1);
}
