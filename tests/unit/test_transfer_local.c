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
#include "pathguard.h"
#include "tmpdir.h"
#include "transfer.h"
#include "transport.h"

/* A local workspace, a "host" one, and the transport between them. */
struct fx {
	char			 top[64];
	char			 local[128];
	char			 host[128];
	struct transport	*t;
	struct pathguard	*pg;
	struct hostws		 hw;
};

static int
setup(void **state)
{
	struct fx	*f = calloc(1, sizeof *f);
	char		*cause = NULL;

	signal(SIGPIPE, SIG_IGN);
	snprintf(f->top, sizeof f->top, "/tmp/test_transfer_local.XXXXXX");
	assert_non_null(mkdtemp(f->top));
	snprintf(f->local, sizeof f->local, "%s/local", f->top);
	snprintf(f->host, sizeof f->host, "%s/host", f->top);
	assert_int_equal(mkdir(f->local, 0755), 0);
	assert_int_equal(mkdir(f->host, 0755), 0);
	assert_non_null(f->t = transport_local("local", &cause));
	assert_int_equal(pathguard_open(f->local, &f->pg, &cause), 0);
	hostws_init(&f->hw, f->host, NULL);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fx	*f = *state;

	hostws_clear(&f->hw);
	pathguard_close(f->pg);
	transport_free(f->t);
	tmpdir_remove(f->top);
	free(f);
	return 0;
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

/* Whether dir/rel holds exactly text. */
static int
holds(const char *dir, const char *rel, const char *text)
{
	char	 p[PATH_MAX], buf[256];
	FILE	*fp;
	size_t	 n;

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	if ((fp = fopen(p, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return strcmp(buf, text) == 0;
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

	put(f->local, "a.txt", "one\n");
	snprintf(p, sizeof p, "%s/dir", f->local);
	assert_int_equal(mkdir(p, 0750), 0);
	put(f->local, "dir/b.sh", "#!/bin/sh\n");
	snprintf(p, sizeof p, "%s/dir/b.sh", f->local);
	assert_int_equal(chmod(p, 0755), 0);
	snprintf(p, sizeof p, "%s/ln", f->local);
	assert_int_equal(symlink("a.txt", p), 0);
	memset(&st, 0, sizeof st);
	if (transfer_push(f->t, f->pg, &f->hw, NULL, 0, 0, NULL, 0, &st,
	    &cause) != 0)
		fail_msg("push: %s", cause);
	assert_true(holds(f->host, "a.txt", "one\n"));
	assert_true(holds(f->host, "dir/b.sh", "#!/bin/sh\n"));
	snprintf(p, sizeof p, "%s/dir/b.sh", f->host);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0755);
	snprintf(p, sizeof p, "%s/ln", f->host);
	assert_true((n = readlink(p, link, sizeof link - 1)) > 0);
	link[n] = '\0';
	assert_string_equal(link, "a.txt");
	/* the stage is gone */
	snprintf(p, sizeof p, "find %s -name '.clawssh-tmp-*' | grep -q .",
	    f->host);
	assert_int_not_equal(system(p), 0);
}

/* A pull brings the host's edits and new files down. */
static void
test_pull(void **state)
{
	struct fx		*f = *state;
	struct tarstream_stats	 st;
	char			 p[PATH_MAX], *cause = NULL;

	put(f->local, "a.txt", "one\n");
	put(f->host, "a.txt", "ONE\n");
	snprintf(p, sizeof p, "%s/new", f->host);
	assert_int_equal(mkdir(p, 0755), 0);
	put(f->host, "new/c.txt", "three\n");
	memset(&st, 0, sizeof st);
	if (transfer_pull(f->t, f->pg, &f->hw, NULL, 0, NULL, &st,
	    &cause) != 0)
		fail_msg("pull: %s", cause);
	assert_true(holds(f->local, "a.txt", "ONE\n"));
	assert_true(holds(f->local, "new/c.txt", "three\n"));
}

/*
 * A host link that points out of the workspace comes down as a link and
 * is never written through: a file the host puts "inside" it is refused.
 */
static void
test_pull_link_out(void **state)
{
	struct fx		*f = *state;
	struct tarstream_stats	 st;
	char			 p[PATH_MAX], out[256], *cause = NULL;
	int			 rc;

	snprintf(out, sizeof out, "%s/outside", f->top);
	assert_int_equal(mkdir(out, 0755), 0);
	snprintf(p, sizeof p, "%s/esc", f->host);
	assert_int_equal(symlink(out, p), 0);
	memset(&st, 0, sizeof st);
	rc = transfer_pull(f->t, f->pg, &f->hw, NULL, 0, NULL, &st, &cause);
	(void)rc;
	free(cause);
	cause = NULL;
	/* now a tar whose entry goes through the link */
	snprintf(p, sizeof p, "cd %s && rm esc && mkdir esc && "
	    "echo pwned > esc/x", f->host);
	assert_int_equal(system(p), 0);
	snprintf(p, sizeof p, "%s/esc", f->local);
	(void)unlink(p);
	assert_int_equal(symlink(out, p), 0);
	(void)transfer_pull(f->t, f->pg, &f->hw, NULL, 0, NULL, &st, &cause);
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
		cmocka_unit_test_setup_teardown(test_pull_link_out, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
