/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for pushes and pulls (sync/transfer.c) over the local
 * transport: the real host scripts under /bin/sh with the host's tar,
 * into a second directory standing for the host's workspace; no sshd.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <limits.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "hostws.h"
#include "local_fixture.h"
#include "manifest.h"
#include "pathguard.h"
#include "sha256.h"
#include "transfer.h"
#include "transport.h"

/* A local workspace, a "host" one, and the transport between them. */
struct fx {
	struct local_sync	 sy;
};

static int
setup(void **state)
{
	struct fx	*f = calloc(1, sizeof *f);

	local_sync_init(&f->sy, "test_transfer_local");
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx	*f = *state;

	local_sync_free(&f->sy);
	free(f);
	return 0;
}

/* Pull the whole host workspace. */
static int
pull(struct fx *f, char **cause)
{
	struct tarstream_stats	st;

	memset(&st, 0, sizeof st);
	return transfer_pull(f->sy.lx.t, f->sy.pg, &f->sy.hw, NULL, 0, NULL,
	    &st, NULL, cause);
}

/* Write text to dir/rel. */
static void
put(const char *dir, const char *rel, const char *text)
{
	char	 p[PATH_MAX];
	FILE	*fp;

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	assert_non_null(fp = fopen(p, "w"));
	fputs(text, fp);
	assert_int_equal(fclose(fp), 0);
}

/* A push carries files, directories, modes and links up. */
static void
test_push(void **state)
{
	struct fx		*f = *state;
	struct tarstream_stats	 st;
	char			 p[PATH_MAX], link[64], *cause = NULL;
	struct stat		 sb;
	ssize_t			 n;

	put(f->sy.lx.a, "a.txt", "one\n");
	snprintf(p, sizeof p, "%s/dir", f->sy.lx.a);
	assert_int_equal(mkdir(p, 0750), 0);
	put(f->sy.lx.a, "dir/b.sh", "#!/bin/sh\n");
	snprintf(p, sizeof p, "%s/dir/b.sh", f->sy.lx.a);
	assert_int_equal(chmod(p, 0755), 0);
	snprintf(p, sizeof p, "%s/ln", f->sy.lx.a);
	assert_int_equal(symlink("a.txt", p), 0);
	memset(&st, 0, sizeof st);
	if (transfer_push(f->sy.lx.t, f->sy.pg, &f->sy.hw, NULL, 0, 0, NULL, 0,
	    &st, &cause) != 0)
		fail_msg("push: %s", cause);
	assert_true(local_holds(f->sy.lx.b, "a.txt", "one\n"));
	assert_true(local_holds(f->sy.lx.b, "dir/b.sh", "#!/bin/sh\n"));
	snprintf(p, sizeof p, "%s/dir/b.sh", f->sy.lx.b);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0755);
	snprintf(p, sizeof p, "%s/ln", f->sy.lx.b);
	assert_true((n = readlink(p, link, sizeof link - 1)) > 0);
	link[n] = '\0';
	assert_string_equal(link, "a.txt");
	/* the stage is gone */
	snprintf(p, sizeof p, "find %s -name '.clawssh-tmp-*' | grep -q .",
	    f->sy.lx.b);
	assert_int_not_equal(system(p), 0);
}

/* A pull brings the host's edits and new files down. */
static void
test_pull(void **state)
{
	struct fx	*f = *state;
	char		 p[PATH_MAX], *cause = NULL;

	put(f->sy.lx.a, "a.txt", "one\n");
	put(f->sy.lx.b, "a.txt", "ONE\n");
	snprintf(p, sizeof p, "%s/new", f->sy.lx.b);
	assert_int_equal(mkdir(p, 0755), 0);
	put(f->sy.lx.b, "new/c.txt", "three\n");
	if (pull(f, &cause) != 0)
		fail_msg("pull: %s", cause);
	assert_true(local_holds(f->sy.lx.a, "a.txt", "ONE\n"));
	assert_true(local_holds(f->sy.lx.a, "new/c.txt", "three\n"));
}

/* Assert that e is dir/rel as it is on disk, with its content's hash. */
static void
hint_is(const struct manifest_entry *e, const char *dir, const char *rel,
    const char *text)
{
	unsigned char	want[SHA256_LEN];
	struct sha256	md;
	struct stat	sb;
	char		p[PATH_MAX];

	assert_non_null(e);
	assert_int_equal(e->type, MANIFEST_FILE);
	assert_true(e->have_hash);
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	assert_int_equal(lstat(p, &sb), 0);
	assert_int_equal(e->size, (uint64_t)sb.st_size);
	assert_int_equal(e->mtime_sec, sb.st_mtim.tv_sec);
	assert_int_equal(e->mtime_nsec, sb.st_mtim.tv_nsec);
	sha256_init(&md);
	sha256_update(&md, text, strlen(text));
	sha256_final(&md, want);
	assert_memory_equal(e->hash, want, MANIFEST_HASH_LEN);
}

/*
 * A pull says what it wrote: each regular file with the size and time it
 * has here and the hash of its content (what the scan after it would
 * read the file again for), and nothing else (no directory, no link).
 */
static void
test_pull_hints(void **state)
{
	struct fx		*f = *state;
	struct tarstream_stats	 st;
	struct manifest		*h = NULL;
	char			 p[PATH_MAX], big[300000], *cause = NULL;

	put(f->sy.lx.b, "a.txt", "ONE\n");
	snprintf(p, sizeof p, "%s/new", f->sy.lx.b);
	assert_int_equal(mkdir(p, 0755), 0);
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	put(f->sy.lx.b, "new/big", big);
	snprintf(p, sizeof p, "%s/ln", f->sy.lx.b);
	assert_int_equal(symlink("a.txt", p), 0);
	memset(&st, 0, sizeof st);
	if (transfer_pull(f->sy.lx.t, f->sy.pg, &f->sy.hw, NULL, 0, NULL,
	    &st, &h, &cause) != 0)
		fail_msg("pull: %s", cause);
	assert_non_null(h);
	assert_int_equal(h->n, 2);
	hint_is(manifest_find(h, "a.txt"), f->sy.lx.a, "a.txt", "ONE\n");
	hint_is(manifest_find(h, "new/big"), f->sy.lx.a, "new/big", big);
	manifest_free(h);
}

/*
 * A host link that points out of the workspace comes down as a link and
 * is never written through: a file the host puts "inside" it is refused.
 */
static void
test_pull_link_out(void **state)
{
	struct fx	*f = *state;
	char		 p[PATH_MAX], out[256], *cause = NULL;

	snprintf(out, sizeof out, "%s/outside", f->sy.lx.top);
	assert_int_equal(mkdir(out, 0755), 0);
	snprintf(p, sizeof p, "%s/esc", f->sy.lx.b);
	assert_int_equal(symlink(out, p), 0);
	(void)pull(f, &cause);	/* the link comes down, or is refused */
	free(cause);
	cause = NULL;
	/* now a tar whose entry goes through the link */
	snprintf(p, sizeof p, "cd %s && rm esc && mkdir esc && "
	    "echo pwned > esc/x", f->sy.lx.b);
	assert_int_equal(system(p), 0);
	snprintf(p, sizeof p, "%s/esc", f->sy.lx.a);
	(void)unlink(p);
	assert_int_equal(symlink(out, p), 0);
	(void)pull(f, &cause);
	free(cause);
	snprintf(p, sizeof p, "%s/x", out);
	assert_int_not_equal(access(p, F_OK), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_push, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pull, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pull_hints, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_pull_link_out, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
