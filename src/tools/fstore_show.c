/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How the file tools show what they found.  See fstore_show.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "fstore.h"
#include "fstore_show.h"

/* Keep a line range of b; see fstore_show.h. */
void
fstore_show_lines(struct buf *b, uint64_t from, uint64_t n)
{
	size_t		 start = 0, end, i;
	uint64_t	 line = 0;

	for (i = 0; i < b->len && line < from; i++) {
		if (b->data[i] == '\n')
			line++;
	}
	start = line < from ? b->len : i;
	end = b->len;
	for (i = start, line = 0; n != 0 && i < b->len; i++) {
		if (b->data[i] == '\n' && ++line == n) {
			end = i + 1;
			break;
		}
	}
	memmove(b->data, b->data + start, end - start);
	b->len = end - start;
}

/* Format an mtime; see fstore_show.h. */
void
fstore_show_time(const struct fstore_stat *st, char *out, size_t len)
{
	struct tm	tm;
	time_t		t = (time_t)st->mtime_sec;
	char		day[32];

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm) == 0)
		snprintf(out, len, "%lld", (long long)st->mtime_sec);
	else
		snprintf(out, len, "%s.%09ldZ", day, st->mtime_nsec);
}

/* The word for an entry type; see fstore_show.h. */
const char *
fstore_show_type(char type)
{
	return type == 'f' ? "file" : type == 'd' ? "directory" :
	    type == 'l' ? "symlink" : "other";
}

/* One entry as JSON; see fstore_show.h. */
cJSON *
fstore_show_json(const char *name, const struct fstore_stat *st)
{
	cJSON	*o = cJSON_CreateObject();
	char	 when[64], mode[8];

	fstore_show_time(st, when, sizeof when);
	snprintf(mode, sizeof mode, "%04o", st->mode & 07777);
	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(o, "type", fstore_show_type(st->type));
	cJSON_AddStringToObject(o, "mode", mode);
	cJSON_AddNumberToObject(o, "size", (double)st->size);
	cJSON_AddStringToObject(o, "mtime", when);
	if (st->link != NULL)
		cJSON_AddStringToObject(o, "target", st->link);
	return o;
}
