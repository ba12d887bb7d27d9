/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for mirror mode (sync/mirror.c) over the local transport:
 * push, a "command" changing the host's copy, pull; conflicts; the
 * mass-deletion guard.  The host's listings, stages and tar run under
 * /bin/sh as they would through sshd; no sshd.
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

#include "buf.h"
#include "hostws.h"
#include "local_fixture.h"
#include "manifest.h"
#include "mirror.h"
#include "mirror_int.h"
#include "pathguard.h"
#include "sha256.h"
#include "transport.h"

#define ID	"cmirrortest0001"

/* A local workspace, a "host" one, a state directory, the transport. */
struct fx {
	struct local_sync	 sy;
	char			 state[160];
	uint64_t		 up, down;	/* files, the last exec */
};

static int
setup(void **state)
{
	struct fx	*f = calloc(1, sizeof *f);

	local_sync_init(&f->sy, "test_mirror_local");
	snprintf(f->state, sizeof f->state, "%s/state", f->sy.lx.top);
	assert_int_equal(mkdir(f->state, 0700), 0);
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

/* Open the sandbox's mirror in m. */
static void
open_mirror(struct fx *f, struct mirror *m)
{
	char	*cause = NULL;

	memset(m, 0, sizeof *m);
	if (mirror_open(m, f->sy.lx.t, f->sy.pg, &f->sy.hw, f->state, ID,
	    NULL, 0, &cause) != 0)
		fail_msg("mirror_open: %s", cause);
}

/* One mirrored exec: push, run cmd on the host, pull; the pull's rc. */
static int
mirrored(struct fx *f, const char *cmd, struct mirror *m)
{
	char	*cause = NULL;
	int	 rc;

	open_mirror(f, m);
	if (mirror_push(m, &cause) != 0)
		fail_msg("mirror_push: %s", cause);
	if (cmd != NULL)
		local_sh(f->sy.lx.b, cmd);
	rc = mirror_pull(m, &cause);
	free(cause);
	f->up = m->up.files;
	f->down = m->down.files;
	mirror_close(m);
	return rc;
}

/* Changes go up, the command's changes come down, deletions too. */
static void
test_round_trip(void **state)
{
	struct fx	*f = *state;
	struct mirror	 m;

	local_sh(f->sy.lx.a, "echo one > a.txt && echo two > b.txt && "
	    "mkdir d && echo three > d/c.txt");
	assert_int_equal(mirrored(f, NULL, &m), 0);
	assert_true(local_holds(f->sy.lx.b, "d/c.txt", "three\n"));
	assert_int_equal(mirrored(f, "echo ONE > a.txt && rm b.txt && "
	    "echo new > n.txt && mv d e", &m), 0);
	assert_true(local_holds(f->sy.lx.a, "a.txt", "ONE\n"));
	assert_true(local_holds(f->sy.lx.a, "b.txt", NULL));
	assert_true(local_holds(f->sy.lx.a, "n.txt", "new\n"));
	assert_true(local_holds(f->sy.lx.a, "d/c.txt", NULL));
	assert_true(local_holds(f->sy.lx.a, "e/c.txt", "three\n"));
	assert_int_equal(f->down, 3);
	/* nothing changed: nothing moves */
	assert_int_equal(mirrored(f, NULL, &m), 0);
	assert_int_equal(f->up, 0);
	assert_int_equal(f->down, 0);
	local_sh(f->sy.lx.a, "echo up > u.txt");
	assert_int_equal(mirrored(f, NULL, &m), 0);
	assert_int_equal(f->up, 1);
	assert_true(local_holds(f->sy.lx.b, "u.txt", "up\n"));
}

/*
 * Pushes and pulls on both sides of the small-transfer bounds (sync/
 * transfer_small.c): many entries and a big file stream through a
 * child process, a few small ones go from memory; all arrive whole.
 */
static void
test_sizes(void **state)
{
	struct fx	*f = *state;
	struct mirror	 m;

	local_sh(f->sy.lx.a, "mkdir many && i=0; while [ $i -lt 300 ]; do "
	    "echo $i > many/f$i; i=$((i + 1)); done && "
	    "head -c 3145728 /dev/urandom > big.bin && echo s > small.txt");
	assert_int_equal(mirrored(f, NULL, &m), 0);	/* 302 files: streamed */
	assert_int_equal(f->up, 302);
	local_sh(f->sy.lx.b, "cmp big.bin ../local/big.bin && "
	    "[ \"$(cat many/f299)\" = 299 ]");
	local_sh(f->sy.lx.a, "echo S > small.txt && echo t > t.txt");
	assert_int_equal(mirrored(f, NULL, &m), 0);	/* from memory */
	assert_int_equal(f->up, 2);
	assert_true(local_holds(f->sy.lx.b, "small.txt", "S\n"));
	assert_true(local_holds(f->sy.lx.b, "t.txt", "t\n"));
	assert_int_equal(mirrored(f, "i=0; while [ $i -lt 300 ]; do "
	    "echo x$i > many/f$i; i=$((i + 1)); done", &m), 0);
	assert_int_equal(f->down, 300);
	assert_true(local_holds(f->sy.lx.a, "many/f123", "x123\n"));
	assert_int_equal(mirrored(f, "head -c 2097152 /dev/urandom > "
	    "big.bin", &m), 0);			/* 2 MiB: streamed */
	assert_int_equal(f->down, 1);
	local_sh(f->sy.lx.a, "cmp big.bin ../host/big.bin");
	assert_int_equal(mirrored(f, "echo u > small.txt", &m), 0);
	assert_int_equal(f->down, 1);
	assert_true(local_holds(f->sy.lx.a, "small.txt", "u\n"));
}

/* A path changed on both sides keeps the local one, the host's beside. */
static void
test_conflict(void **state)
{
	struct fx	*f = *state;
	struct mirror	 m;
	char		*cause = NULL;

	local_sh(f->sy.lx.a, "echo base > a.txt");
	assert_int_equal(mirrored(f, NULL, &m), 0);
	open_mirror(f, &m);
	assert_int_equal(mirror_push(&m, &cause), 0);
	local_sh(f->sy.lx.b, "echo remote > a.txt");
	local_sh(f->sy.lx.a, "echo local > a.txt");
	assert_int_equal(mirror_pull(&m, &cause), 0);
	assert_int_equal(m.conflicts, 1);
	mirror_close(&m);
	assert_true(local_holds(f->sy.lx.a, "a.txt", "local\n"));
	assert_true(local_holds(f->sy.lx.a, "a.txt" MIRROR_CONFLICT_SUFFIX,
	    "remote\n"));
}

/* Hints standing in for the daemon: a journal naming a.txt, no watcher. */
static int	hint_takes, hint_acks;

static int
hint_take(void *arg, enum mirror_take_kind kind, const struct buf *req,
    int timeout_ms, struct buf *rep, char **why)
{
	(void)arg;
	(void)req;
	(void)timeout_ms;
	hint_takes++;
	if (kind == MIRROR_TAKE_WATCH) {
		*why = strdup("no watcher in this test");
		return 1;
	}
	buf_append(rep, "P\0a.txt\0", 8);
	return 0;
}

static void
hint_ack(void *arg)
{
	(void)arg;
	hint_acks++;
}

/*
 * With the journal's answer, a push sends the paths it names (no scan),
 * and the ack comes once the pull saved the state.
 */
static void
test_hints(void **state)
{
	struct fx	*f = *state;
	struct mirror	 m;
	char		*cause = NULL;

	local_sh(f->sy.lx.a, "echo one > a.txt && echo two > b.txt");
	assert_int_equal(mirrored(f, NULL, &m), 0);
	local_sh(f->sy.lx.a, "echo ONE > a.txt");
	open_mirror(f, &m);
	m.hints.take = hint_take;
	m.hints.ack = hint_ack;
	hint_takes = hint_acks = 0;
	if (mirror_push(&m, &cause) != 0)
		fail_msg("push: %s", cause);
	assert_string_equal(m.local_how, "journal");
	assert_int_equal(m.up.files, 1);
	assert_int_equal(mirror_pull(&m, &cause), 0);
	assert_string_equal(m.remote_how, "listing");
	assert_true(hint_takes >= 2);
	assert_int_equal(hint_acks, 1);
	mirror_close(&m);
	assert_true(local_holds(f->sy.lx.b, "a.txt", "ONE\n"));
}

/* The host's copy emptied: the pull halts and deletes nothing here. */
static void
test_mass_delete_guard(void **state)
{
	struct fx	*f = *state;
	struct mirror	 m;

	local_sh(f->sy.lx.a,
	    "for i in 1 2 3 4 5 6 7 8; do echo $i > f$i; done");
	assert_int_equal(mirrored(f, NULL, &m), 0);
	assert_int_not_equal(mirrored(f, "rm -f f*", &m), 0);
	assert_true(local_holds(f->sy.lx.a, "f1", "1\n"));
	assert_true(local_holds(f->sy.lx.a, "f8", "8\n"));
}

/* The SHA-256 of text. */
static void
hash_of(const char *text, unsigned char out[SHA256_LEN])
{
	struct sha256	md;

	sha256_init(&md);
	sha256_update(&md, text, strlen(text));
	sha256_final(&md, out);
}

/* A hint for dir/rel as it is on disk, with a hash of other content. */
static struct manifest *
false_hint(const char *dir, const char *rel)
{
	struct manifest		*h = manifest_new();
	struct manifest_entry	 e;
	struct stat		 sb;
	char			 p[PATH_MAX];

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	assert_int_equal(lstat(p, &sb), 0);
	memset(&e, 0, sizeof e);
	e.path = (char *)(uintptr_t)rel;
	e.type = MANIFEST_FILE;
	e.size = (uint64_t)sb.st_size;
	e.mtime_sec = sb.st_mtim.tv_sec;
	e.mtime_nsec = sb.st_mtim.tv_nsec;
	e.have_hash = 1;
	hash_of("not what the file holds", e.hash);
	manifest_add_copy(h, &e);
	return h;
}

/*
 * What a pull wrote (mirror_pulled) gives the scans their hashes without
 * reading the files again, but only for a file found with that size and
 * time, and in a rescan only at the paths it looks at: a hint that is
 * not on disk, or not listed, never becomes an entry.  (The hint's hash
 * is false on purpose, to show where it was taken.)
 */
static void
test_pulled_hashes(void **state)
{
	struct fx			*f = *state;
	struct mirror			 m;
	struct manifest			*out = NULL, *again = NULL;
	const struct manifest_entry	*e;
	unsigned char			 lie[SHA256_LEN], real[SHA256_LEN];
	char				*cause = NULL;
	char *const			 g[] = { (char *)(uintptr_t)"g" };
	char *const			 fb[] = { (char *)(uintptr_t)"f.bin" };

	local_sh(f->sy.lx.a, "printf data > f.bin && echo g > g");
	hash_of("not what the file holds", lie);
	hash_of("data", real);
	open_mirror(f, &m);
	mirror_pulled(&m, false_hint(f->sy.lx.a, "f.bin"));
	if (mirror_scan(&m, NULL, &out, &cause) != 0)
		fail_msg("scan: %s", cause);
	assert_non_null(e = manifest_find(out, "f.bin"));
	assert_memory_equal(e->hash, lie, SHA256_LEN);	/* taken, not read */
	manifest_free(out);
	/* a rescan of g alone: f.bin is no entry of it */
	out = manifest_new();
	if (mirror_rescan(&m, out, g, 1, &again, &cause) != 0)
		fail_msg("rescan: %s", cause);
	assert_null(manifest_find(again, "f.bin"));
	assert_non_null(manifest_find(again, "g"));
	manifest_free(again);
	/* a rescan of f.bin takes the hint */
	if (mirror_rescan(&m, out, fb, 1, &again, &cause) != 0)
		fail_msg("rescan: %s", cause);
	assert_non_null(e = manifest_find(again, "f.bin"));
	assert_memory_equal(e->hash, lie, SHA256_LEN);
	manifest_free(again);
	manifest_free(out);
	/* another time on disk: the file is read */
	local_sh(f->sy.lx.a, "touch -d '2001-01-01' f.bin");
	if (mirror_scan(&m, NULL, &out, &cause) != 0)
		fail_msg("scan: %s", cause);
	assert_non_null(e = manifest_find(out, "f.bin"));
	assert_memory_equal(e->hash, real, SHA256_LEN);
	manifest_free(out);
	/* a hint for a file that is not there adds nothing */
	local_sh(f->sy.lx.a, "printf x > h");
	mirror_pulled(&m, false_hint(f->sy.lx.a, "h"));
	local_sh(f->sy.lx.a, "rm h");
	if (mirror_scan(&m, NULL, &out, &cause) != 0)
		fail_msg("scan: %s", cause);
	assert_null(manifest_find(out, "h"));
	manifest_free(out);
	mirror_close(&m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_conflict, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_mass_delete_guard, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_hints, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pulled_hashes, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
