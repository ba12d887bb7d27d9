/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a pull's tar child learnt of the files it wrote -- path, size,
 * modification time, SHA-256 of the content -- sent to the parent after
 * the child's result, so that the scan after the pull need not read every
 * pulled file again for its hash (a 1 GiB file costs the scan about as
 * much as the transfer's last seconds).  One line of the manifest text
 * format per file (manifest_format_line), read back with
 * manifest_parse_line.  The child parses a hostile tar stream, so what it
 * says is checked as any manifest text, and the scan uses a hint only as
 * the hash of a file it finds on disk with exactly that size and time,
 * never as an entry of its own (prev->known, see mirror_hinted).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <time.h>

#include "buf.h"
#include "log.h"
#include "manifest.h"
#include "transfer_int.h"

/* A tarstream_written_fn: one line for a file written; see transfer_int.h. */
void
transfer_hints_add(void *arg, const char *path, int64_t size,
    const struct timespec *mtime, const unsigned char *hash)
{
	struct transfer_hints	*h = arg;
	struct manifest_entry	 e;

	if (h->over || size < 0)
		return;
	memset(&e, 0, sizeof e);
	e.path = (char *)(uintptr_t)path;
	e.type = MANIFEST_FILE;
	e.size = (uint64_t)size;
	e.mtime_sec = mtime->tv_sec;
	e.mtime_nsec = mtime->tv_nsec;
	e.have_hash = 1;
	memcpy(e.hash, hash, sizeof e.hash);
	manifest_format_line(&h->text, &e);
	if (h->text.len > TRANSFER_HINTS_MAX) {
		/* too many to be worth it: the scan reads them all */
		h->over = 1;
		buf_free(&h->text);
	}
}

/* The hints the child sent, checked; see transfer_int.h. */
struct manifest *
transfer_hints_parse(const char *data, size_t len)
{
	struct manifest	*m = manifest_new();
	const char	*p = data, *end = data + len, *nl, *why = NULL;
	size_t		 i;

	for (; p < end; p = nl + 1) {
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			why = "no final newline";
			break;
		}
		if (manifest_parse_line(m, p, (size_t)(nl - p), &why) != 0)
			break;
		why = NULL;
	}
	for (i = 0; why == NULL && i < m->n; i++) {
		if (m->e[i].type != MANIFEST_FILE || !m->e[i].have_hash)
			why = "not a hashed file";
	}
	if (why == NULL)
		manifest_sort(m);
	for (i = 1; why == NULL && i < m->n; i++) {
		if (strcmp(m->e[i - 1].path, m->e[i].path) == 0)
			why = "a path written twice";
	}
	if (why != NULL) {
		log_debug("the tar child's hashes left unused: %s", why);
		manifest_free(m);
		return NULL;
	}
	return m;
}
