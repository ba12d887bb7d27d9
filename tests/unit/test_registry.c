/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the sandbox registry: state directory resolution, record
 * round trips, atomic replacement, listing and locks.  Records that must
 * not load are in test_registry_load.c.  Every test runs in its own
 * temporary directory, removed afterwards.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <cmocka.h>

#include "compat.h"
#include "error.h"
#include "jsonc.h"
#include "registry.h"
#include "registry_fixture.h"
#include "sandbox.h"
#include "xmalloc.h"

#define MIN(a, b)	((a) < (b) ? (a) : (b))

/* Inputs to state directory resolution; "@" stands for the test dir. */
struct resolve_case {
	const char	*test;
	int		 override;	/* pass dir/state */
	const char	*env;		/* CLAWSSH_STATE_DIR, NULL: unset */
	const char	*xdg;		/* XDG_STATE_HOME, NULL: unset */
	const char	*want;		/* below the test dir */
};

/* Write a short string to f->sbdir/name. */
static void
write_sb(const struct rf *f, const char *name, const char *text)
{
	char	path[256];

	snprintf(path, sizeof(path), "%s/%s", f->sbdir, name);
	rf_write_file(path, text, strlen(text));
}

/* Return the mode bits of dir/name (not following a link). */
static mode_t
mode_of(const char *dir, const char *name)
{
	struct stat	sb;
	char		path[512];

	snprintf(path, sizeof(path), "%s%s", dir, name);
	assert_int_equal(lstat(path, &sb), 0);
	return sb.st_mode & 07777;
}

/* Count the entries of directory path other than "." and "..". */
static int
count_entries(const char *path)
{
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	assert_non_null(d = opendir(path));
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			n++;
	}
	closedir(d);
	return n;
}

/* Replace the allocated string *field with a copy of s. */
static void
set_str(char **field, const char *s)
{
	free(*field);
	*field = s != NULL ? xstrdup(s) : NULL;
}

/* Fail unless records a and b hold the same values. */
static void
assert_same_record(const struct registry_record *a,
    const struct registry_record *b)
{
	assert_string_equal(a->id, b->id);
	assert_string_equal(a->backend, b->backend);
	assert_string_equal(a->target, b->target);
	if (a->ssh_config == NULL || b->ssh_config == NULL)
		assert_ptr_equal(a->ssh_config, b->ssh_config);
	else
		assert_string_equal(a->ssh_config, b->ssh_config);
	assert_string_equal(a->user, b->user);
	assert_string_equal(a->host, b->host);
	assert_int_equal(a->port, b->port);
	assert_string_equal(a->remote_root, b->remote_root);
	assert_int_equal(a->scope, b->scope);
	assert_string_equal(a->key, b->key);
	assert_int_equal(a->settings.mode, b->settings.mode);
	assert_int_equal(a->settings.access, b->settings.access);
	assert_string_equal(a->settings.image, b->settings.image);
	assert_string_equal(a->config_hash, b->config_hash);
	assert_string_equal(a->workspace, b->workspace);
	assert_true(a->created == b->created);
}

/* Set environment variable name to v, "@" expanded; NULL: leave unset. */
static void
setenv_case(const struct rf *f, const char *name, const char *v)
{
	char	buf[256];

	if (v == NULL)
		return;
	if (*v == '@') {
		snprintf(buf, sizeof(buf), "%s%s", f->dir, v + 1);
		v = buf;
	}
	assert_int_equal(setenv(name, v, 1), 0);
}

/* The state directory is chosen in order, made 0700 (subdirectories too). */
static void
test_resolve(void **state)
{
	struct rf			*f = *state;
	const struct resolve_case	*rc = f->arg;
	char				*cause = NULL, want[256];
	int				 in_home;

	setenv_case(f, "CLAWSSH_STATE_DIR", rc->env);
	setenv_case(f, "XDG_STATE_HOME", rc->xdg);
	snprintf(want, sizeof(want), "%s/%s", f->dir, rc->want);
	umask(022);
	assert_int_equal(registry_open(rc->override ? f->state : NULL,
	    f->home, &f->reg, &cause), 0);
	assert_string_equal(registry_dir(f->reg), want);
	assert_int_equal(mode_of(want, ""), 0700);
	assert_int_equal(mode_of(want, "/sandboxes"), 0700);
	assert_int_equal(mode_of(want, "/locks"), 0700);
	in_home = strncmp(rc->want, "home/", 5) == 0;
	assert_int_equal(count_entries(f->dir), in_home ? 1 : 2);
	if (in_home) {
		assert_int_equal(mode_of(f->home, "/.local"), 0700);
		assert_int_equal(mode_of(f->home, "/.local/state"), 0700);
	}
}

static struct resolve_case resolve_cases[] = {
	{ "test_resolve_override", 1, "@/env", "@/xdg", "state" },
	{ "test_resolve_env", 0, "@/env", "@/xdg", "env" },
	{ "test_resolve_xdg", 0, NULL, "@/xdg", "xdg/clawssh" },
	{ "test_resolve_env_empty", 0, "", "@/xdg", "xdg/clawssh" },
	{ "test_resolve_xdg_relative", 0, NULL, "relative",
	    "home/.local/state/clawssh" },
	{ "test_resolve_xdg_empty", 0, NULL, "", "home/.local/state/clawssh" },
	{ "test_resolve_home", 0, NULL, NULL, "home/.local/state/clawssh" },
};

/* With nothing (or a relative home) to go on, opening fails. */
static void
test_resolve_nothing(void **state)
{
	struct rf	*f = *state;
	char		*cause = NULL;

	rf_check_fail(registry_open(NULL, NULL, &f->reg, &cause),
	    CLAW_ERR_INVAL, &cause, "state directory");
	rf_check_fail(registry_open(NULL, "home", &f->reg, &cause),
	    CLAW_ERR_INVAL, &cause, "state directory");
	rf_check_fail(registry_open("", f->home, &f->reg, &cause),
	    CLAW_ERR_INVAL, &cause, "state directory");
	assert_null(f->reg);
	assert_int_equal(count_entries(f->home), 0);
}

/* Try to open the state directory, expecting refusal with what. */
static void
expect_open_refused(struct rf *f, const char *what)
{
	char	*cause = NULL;

	rf_check_fail(registry_open(f->state, NULL, &f->reg, &cause),
	    CLAW_ERR_INVAL, &cause, what);
	assert_null(f->reg);
}

/* A state directory that is a symbolic link is refused. */
static void
test_open_symlink_refused(void **state)
{
	struct rf	*f = *state;

	assert_int_equal(mkdir("real", 0700), 0);
	assert_int_equal(symlink("real", f->state), 0);
	expect_open_refused(f, "symbolic link");
	assert_int_equal(count_entries("real"), 0);
}

/* A state directory that is a regular file is refused. */
static void
test_open_not_directory(void **state)
{
	struct rf	*f = *state;

	rf_write_file(f->state, "x", 1);
	expect_open_refused(f, "not a directory");
}

/* A sandboxes subdirectory that is a symbolic link is refused. */
static void
test_open_subdir_symlink_refused(void **state)
{
	struct rf	*f = *state;

	assert_int_equal(mkdir("real", 0700), 0);
	assert_int_equal(mkdir(f->state, 0700), 0);
	assert_int_equal(symlink("../real", f->sbdir), 0);
	expect_open_refused(f, "symbolic link");
}

/* Store rec, load it back, compare every field, and free rec. */
static void
roundtrip(struct rf *f, struct registry_record *rec)
{
	struct registry_record	*got;
	char			*cause = NULL;

	assert_int_equal(registry_put(rf_open(f), rec, &cause), 0);
	got = rf_get_record(rf_open(f), rec->id);
	assert_same_record(got, rec);
	registry_record_free(got);
	registry_record_free(rec);
}

/* Every field survives a round trip, sshConfig included. */
static void
test_roundtrip_full(void **state)
{
	roundtrip(*state, rf_make_record(ID_A));
}

/* A record without sshConfig round trips and omits the member. */
static void
test_roundtrip_no_ssh_config(void **state)
{
	struct rf		*f = *state;
	struct registry_record	*rec;
	cJSON			*root = NULL;
	char			*cause = NULL;

	rec = rf_make_record(ID_A);
	set_str(&rec->ssh_config, NULL);
	rec->scope = SANDBOX_SCOPE_SHARED;
	rec->settings.access = SANDBOX_ACCESS_NONE;
	rec->created = 0;
	roundtrip(f, rec);
	assert_int_equal(jsonc_load_file(f->path_a, &root, &cause), 0);
	assert_null(cJSON_GetObjectItemCaseSensitive(root, "sshConfig"));
	assert_non_null(cJSON_GetObjectItemCaseSensitive(root, "remoteRoot"));
	cJSON_Delete(root);
}

/* A second put replaces the first record. */
static void
test_put_replaces(void **state)
{
	struct registry		*reg = rf_open(*state);
	struct registry_record	*rec, *got;
	char			*cause = NULL;

	rf_put_record(reg, ID_A);
	rec = rf_make_record(ID_A);
	set_str(&rec->target, "other-box");
	assert_int_equal(registry_put(reg, rec, &cause), 0);
	got = rf_get_record(reg, ID_A);
	assert_string_equal(got->target, "other-box");
	registry_record_free(got);
	registry_record_free(rec);
}

/* Getting an id with no record is NOTFOUND and leaves *out alone. */
static void
test_get_missing(void **state)
{
	struct registry_record	*got = (struct registry_record *)0x1;
	char			*cause = NULL;

	rf_check_fail(registry_get(rf_open(*state), ID_A, &got, &cause),
	    CLAW_ERR_NOTFOUND, &cause, ID_A ".json");
	assert_ptr_equal(got, (struct registry_record *)0x1);
}

/* Ids that are not sandbox ids (or not terminated) are refused by all. */
static void
test_bad_ids_refused(void **state)
{
	static const char *const bad[] = { "../x", "C123", "", "cabcdefghijk",
	    "cabcdefghijklm", "cABCDEFGHIJKL", "cabcdefghijk1", "../../etc",
	    "cabcdefghij/l", NULL };
	struct rf		*f = *state;
	struct registry		*reg = rf_open(f);
	struct registry_record	*rec, *got = NULL;
	char			*cause = NULL;
	size_t			 i;

	for (i = 0; bad[i] != NULL; i++) {
		rf_check_fail(registry_get(reg, bad[i], &got, &cause),
		    CLAW_ERR_INVAL, &cause, NULL);
		rf_check_fail(registry_remove(reg, bad[i], &cause),
		    CLAW_ERR_INVAL, &cause, NULL);
		rf_check_fail(registry_lock(reg, bad[i], &cause),
		    CLAW_ERR_INVAL, &cause, NULL);
		rec = rf_make_record(ID_A);
		memset(rec->id, 0, sizeof(rec->id));
		/* One too long fills the array with no NUL at all. */
		memcpy(rec->id, bad[i], MIN(strlen(bad[i]), sizeof(rec->id)));
		rf_check_fail(registry_put(reg, rec, &cause), CLAW_ERR_INVAL,
		    &cause, NULL);
		registry_record_free(rec);
	}
	assert_null(got);
	assert_int_equal(count_entries(f->sbdir), 0);
	assert_int_equal(count_entries(f->state), 2);
}

/* An invalid record is refused by put and nothing is written. */
static void
test_put_invalid_refused(void **state)
{
	struct rf		*f = *state;
	struct registry		*reg = rf_open(f);
	struct registry_record	*rec;
	char			*cause = NULL;

	rec = rf_make_record(ID_A);
	rec->port = 0;
	rf_check_fail(registry_put(reg, rec, &cause), CLAW_ERR_INVAL, &cause,
	    "field 'port'");
	rec->port = 22;
	set_str(&rec->workspace, "relative/dir");
	rf_check_fail(registry_put(reg, rec, &cause), CLAW_ERR_INVAL, &cause,
	    "field 'workspace'");
	set_str(&rec->workspace, "/w");
	set_str(&rec->host, NULL);
	rf_check_fail(registry_put(reg, rec, &cause), CLAW_ERR_INVAL, &cause,
	    "field 'host': missing");
	assert_int_equal(count_entries(f->sbdir), 0);
	registry_record_free(rec);
}

/* Removing twice is fine and the record is gone. */
static void
test_remove_idempotent(void **state)
{
	struct registry		*reg = rf_open(*state);
	struct registry_record	*got = NULL;
	char			*cause = NULL;

	rf_put_record(reg, ID_A);
	assert_int_equal(registry_remove(reg, ID_A, &cause), 0);
	rf_check_fail(registry_get(reg, ID_A, &got, &cause), CLAW_ERR_NOTFOUND,
	    &cause, NULL);
	assert_int_equal(registry_remove(reg, ID_A, &cause), 0);
	assert_null(cause);
}

/* Run registry_list with stderr captured into *err (allocated). */
static int
list_capture(struct rf *f, struct registry_record ***recs, size_t *n,
    char **err)
{
	char	buf[4096];
	int	fd, saved, r;
	ssize_t	len;

	fd = open("stderr", O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd != -1);
	fflush(stderr);
	assert_true((saved = dup(STDERR_FILENO)) != -1);
	assert_int_equal(dup2(fd, STDERR_FILENO), STDERR_FILENO);
	r = registry_list(f->reg, recs, n, NULL);
	fflush(stderr);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	len = pread(fd, buf, sizeof(buf) - 1, 0);
	assert_true(len >= 0);
	buf[len] = '\0';
	*err = xstrdup(buf);
	close(fd);
	return r;
}

/* An empty registry lists nothing, NULL-terminated. */
static void
test_list_empty(void **state)
{
	struct registry_record	**recs = NULL;
	size_t			  n = 99;
	char			 *cause = NULL;

	assert_int_equal(registry_list(rf_open(*state), &recs, &n, &cause),
	    0);
	assert_int_equal(n, 0);
	assert_non_null(recs);
	assert_null(recs[0]);
	registry_records_free(recs);
}

/* Records are listed sorted by id. */
static void
test_list_sorted(void **state)
{
	struct registry		 *reg = rf_open(*state);
	struct registry_record	**recs = NULL;
	size_t			  n = 0;
	char			 *cause = NULL;

	rf_put_record(reg, ID_B);
	rf_put_record(reg, ID_C);
	rf_put_record(reg, ID_A);
	assert_int_equal(registry_list(reg, &recs, &n, &cause), 0);
	assert_int_equal(n, 3);
	assert_string_equal(recs[0]->id, ID_C);
	assert_string_equal(recs[1]->id, ID_A);
	assert_string_equal(recs[2]->id, ID_B);
	assert_null(recs[3]);
	assert_string_equal(recs[1]->host, "gpu.example.net");
	registry_records_free(recs);
}

/* A corrupt record is skipped with a warning naming its file. */
static void
test_list_skips_corrupt(void **state)
{
	struct rf		 *f = *state;
	struct registry_record	**recs = NULL;
	size_t			  n = 0;
	char			 *err;

	rf_put_record(rf_open(f), ID_A);
	rf_put_record(f->reg, ID_C);
	write_sb(f, ID_B ".json", "{ \"id\": 12");
	assert_int_equal(list_capture(f, &recs, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(recs[0]->id, ID_C);
	assert_string_equal(recs[1]->id, ID_A);
	assert_non_null(strstr(err, "warning"));
	assert_non_null(strstr(err, "/sandboxes/" ID_B ".json"));
	registry_records_free(recs);
	free(err);
}

/* Temporary files and other names are ignored without a warning. */
static void
test_list_ignores_others(void **state)
{
	struct rf		 *f = *state;
	struct registry_record	**recs = NULL;
	size_t			  n = 0;
	char			 *err;

	rf_put_record(rf_open(f), ID_A);
	write_sb(f, ID_B ".json.tmp.123.00112233aabbccdd", "garbage");
	write_sb(f, "notes.txt", "garbage");
	write_sb(f, "CABCDEFGHIJKL.json", "garbage");
	write_sb(f, ".json", "garbage");
	assert_int_equal(list_capture(f, &recs, &n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(recs[0]->id, ID_A);
	assert_string_equal(err, "");
	registry_records_free(recs);
	free(err);
}

/* After puts, the sandboxes directory holds only the record files. */
static void
test_put_leaves_no_temp(void **state)
{
	struct rf	*f = *state;
	struct registry	*reg = rf_open(f);

	rf_put_record(reg, ID_A);
	rf_put_record(reg, ID_A);
	rf_put_record(reg, ID_B);
	assert_int_equal(count_entries(f->sbdir), 2);
	assert_int_equal(mode_of(f->path_a, ""), 0600);
}

/* A temporary file left by a crash does not disturb get or list. */
static void
test_crash_temp_ignored(void **state)
{
	struct rf		 *f = *state;
	struct registry		 *reg = rf_open(f);
	struct registry_record	 *got, **recs = NULL;
	size_t			  n = 0;
	char			 *cause = NULL;

	rf_put_record(reg, ID_A);
	write_sb(f, ID_A ".json.tmp.4242.0123456789abcdef", "{ \"id\": \"ha");
	got = rf_get_record(reg, ID_A);
	assert_string_equal(got->target, "gpu-box");
	assert_int_equal(registry_list(reg, &recs, &n, &cause), 0);
	assert_int_equal(n, 1);
	registry_records_free(recs);
	registry_record_free(got);
}

/* In a child: try to put a new version of ID_A with writes capped. */
static int
child_put_capped(const struct rf *f)
{
	struct registry		*reg;
	struct registry_record	*rec;
	struct rlimit		 rl = { 64, 64 };
	char			*cause = NULL;
	int			 r;

	if (registry_open(f->state, NULL, &reg, &cause) != 0)
		return 2;
	signal(SIGXFSZ, SIG_IGN);
	if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
		return 3;
	rec = rf_make_record(ID_A);
	set_str(&rec->target, "new-box");
	r = registry_put(reg, rec, &cause);
	r = r == CLAW_ERR_IO && cause != NULL ? 0 : 1;
	free(cause);
	registry_record_free(rec);
	registry_close(reg);
	return r;
}

/* A put that fails while writing leaves the old record and no temp file. */
static void
test_put_failure_keeps_old(void **state)
{
	struct rf		*f = *state;
	struct registry_record	*got;
	pid_t			 pid;
	int			 status;

	rf_put_record(rf_open(f), ID_A);
	registry_close(f->reg);
	f->reg = NULL;
	if ((pid = fork()) == 0)
		_exit(child_put_capped(f));
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	got = rf_get_record(rf_open(f), ID_A);
	assert_string_equal(got->target, "gpu-box");
	assert_int_equal(count_entries(f->sbdir), 1);
	registry_record_free(got);
}

/* A put whose rename fails removes its temporary file. */
static void
test_put_rename_failure_cleans(void **state)
{
	struct rf		*f = *state;
	struct registry		*reg = rf_open(f);
	struct registry_record	*rec;
	char			*cause = NULL;

	assert_int_equal(mkdir(f->path_a, 0700), 0);
	rec = rf_make_record(ID_A);
	assert_true(registry_put(reg, rec, &cause) < 0);
	assert_non_null(strstr(cause, f->path_a));
	free(cause);
	assert_int_equal(count_entries(f->sbdir), 1);
	registry_record_free(rec);
}


/* In a child: hold ID_A's lock, say so, then record 'C' and release. */
static int
child_hold_lock(const struct rf *f, int ready, int order)
{
	struct registry	*reg;
	char		*cause = NULL;

	if (registry_open(f->state, NULL, &reg, &cause) != 0 ||
	    registry_lock(reg, ID_A, &cause) != 0)
		return 1;
	if (write(ready, "L", 1) != 1)
		return 2;
	usleep(200 * 1000);	/* room for the parent to get in first */
	if (write(order, "C", 1) != 1)
		return 3;
	registry_close(reg);
	return 0;
}

/* registry_lock waits while another process holds the lock. */
static void
test_lock_blocks(void **state)
{
	struct rf	*f = *state;
	char		*cause = NULL, c, seq[3] = "";
	int		 ready[2], order[2], status;
	pid_t		 pid;

	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(order), 0);
	if ((pid = fork()) == 0)
		_exit(child_hold_lock(f, ready[1], order[1]));
	assert_true(pid > 0);
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(registry_lock(rf_open(f), ID_A, &cause), 0);
	assert_int_equal(write(order[1], "P", 1), 1);
	close(order[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(read(order[0], seq, 2), 2);
	assert_string_equal(seq, "CP");
	close(ready[0]);
	close(order[0]);
}

/* Return 1 if another process finds the lock file path held. */
static int
lock_held(const char *path)
{
	pid_t	pid;
	int	fd, status;

	if ((pid = fork()) == 0) {
		if ((fd = open(path, O_RDWR | O_CLOEXEC)) == -1)
			_exit(2);
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			_exit(0);
		_exit(errno == EWOULDBLOCK ? 1 : 3);
	}
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_in_range(WEXITSTATUS(status), 0, 1);
	return WEXITSTATUS(status);
}

/* Unlock and close both release the lock; a second lock is refused. */
static void
test_lock_release(void **state)
{
	struct rf	*f = *state;
	struct registry	*reg = rf_open(f);
	char		*cause = NULL, path[256];

	snprintf(path, sizeof(path), "%s/locks/%s.lock", f->state, ID_A);
	assert_int_equal(registry_lock(reg, ID_A, &cause), 0);
	assert_int_equal(mode_of(path, ""), 0600);
	assert_int_equal(lock_held(path), 1);
	rf_check_fail(registry_lock(reg, ID_B, &cause), CLAW_ERR_INVAL, &cause,
	    "already held");
	registry_unlock(reg);
	assert_int_equal(lock_held(path), 0);
	registry_unlock(reg);
	assert_int_equal(registry_lock(reg, ID_A, &cause), 0);
	assert_int_equal(lock_held(path), 1);
	registry_close(reg);
	f->reg = NULL;
	assert_int_equal(lock_held(path), 0);
}

/* A duplicate is deep and equal; NULL handling is safe. */
static void
test_record_dup(void **state)
{
	struct registry_record	*rec, *dup;

	(void)state;
	rec = rf_make_record(ID_A);
	dup = registry_record_dup(rec);
	assert_non_null(dup);
	assert_same_record(dup, rec);
	assert_ptr_not_equal(dup->target, rec->target);
	assert_ptr_not_equal(dup->ssh_config, rec->ssh_config);
	registry_record_free(rec);
	registry_record_free(dup);
	assert_null(registry_record_dup(NULL));
	registry_record_free(NULL);
	registry_records_free(NULL);
	registry_close(NULL);
}

/* Run every test, each in its own directory; table cases by name. */
int
main(void)
{
	const struct CMUnitTest	tests[] = {
		RF_TEST(test_resolve_nothing),
		RF_TEST(test_open_symlink_refused),
		RF_TEST(test_open_not_directory),
		RF_TEST(test_open_subdir_symlink_refused),
		RF_TEST(test_roundtrip_full),
		RF_TEST(test_roundtrip_no_ssh_config),
		RF_TEST(test_put_replaces),
		RF_TEST(test_get_missing),
		RF_TEST(test_bad_ids_refused),
		RF_TEST(test_put_invalid_refused),
		RF_TEST(test_remove_idempotent),
		RF_TEST(test_list_empty),
		RF_TEST(test_list_sorted),
		RF_TEST(test_list_skips_corrupt),
		RF_TEST(test_list_ignores_others),
		RF_TEST(test_put_leaves_no_temp),
		RF_TEST(test_crash_temp_ignored),
		RF_TEST(test_put_failure_keeps_old),
		RF_TEST(test_put_rename_failure_cleans),
		RF_TEST(test_lock_blocks),
		RF_TEST(test_lock_release),
		RF_TEST(test_record_dup),
	};
	struct CMUnitTest	all[RF_NITEMS(tests) +
				    RF_NITEMS(resolve_cases)];
	size_t			n = RF_NITEMS(tests);

	memcpy(all, tests, sizeof(tests));
	RF_ADD_CASES(all, n, test_resolve, resolve_cases);
	return _cmocka_run_group_tests("test_registry", all, n, NULL, NULL);
}
