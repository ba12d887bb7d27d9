/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The file tools an agent calls on a sandbox's workspace:
 *
 *	clawssh read -s ID PATH [--offset N] [--limit N] [--lines]
 *	clawssh write -s ID PATH [--push]		(content on stdin)
 *	clawssh edit -s ID PATH --old TEXT --new TEXT [--all] [--push]
 *	clawssh ls -s ID [PATH] [--json]
 *	clawssh stat -s ID PATH [--json]
 *
 * each with --timeout SECONDS for the steps on the host.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "cmd.h"
#include "cmd_fs.h"
#include "error.h"
#include "fdio.h"
#include "fsedit.h"
#include "fstore.h"
#include "fstore_show.h"
#include "xmalloc.h"

/* Parse, take exactly want path arguments (or want - 1 with optional). */
static int
files_setup(struct cmd_fs *f, const char *method, const char *usage,
    int argc, char **argv, int optional, char **path)
{
	char	*cause = NULL;
	int	 rc;

	if ((rc = cmd_fs_parse(f, method, usage, argc, argv)) != 0)
		return rc;
	if (f->nargs > 1 || (f->nargs == 0 && !optional))
		return cmd_fail("%s: give one PATH (see 'clawssh %s --help')",
		    f->tool, f->tool);
	if (fstore_path(f->nargs == 1 ? f->args[0] : ".", path, &cause) != 0)
		return cmd_fs_fail(f, cause);
	return 0;
}

static const char read_usage[] =
    "usage: clawssh read -s ID PATH [--offset N] [--limit N] [--lines]\n"
    "\n"
    "Write a regular file of the sandbox's workspace to stdout.  --offset\n"
    "and --limit count bytes, or lines with --lines.\n";

/* The read tool. */
int
cmd_read(int argc, char **argv)
{
	struct cmd_fs	 f;
	struct buf	 b = BUF_INIT;
	char		*path = NULL, *cause = NULL;
	int		 rc;

	memset(&f, 0, sizeof f);
	if ((rc = files_setup(&f, "fs.read", read_usage, argc, argv, 0,
	    &path)) != 0 || (rc = cmd_fs_open(&f, 0)) != 0)
		goto out;
	if (f.lines)
		rc = fstore_read(f.fs, path, 0, 0, &b, NULL, &cause);
	else
		rc = fstore_read(f.fs, path, f.offset, f.limit, &b, NULL,
		    &cause);
	if (rc != 0) {
		rc = cmd_fs_error(&f, rc, cause);
		goto out;
	}
	if (f.lines)
		fstore_show_lines(&b, f.offset, f.limit);
	if (b.len != 0 && fdio_write_all(STDOUT_FILENO, b.data, b.len) != 0)
		rc = cmd_fail("read: stdout: %s", strerror(errno));
out:
	buf_free(&b);
	free(path);
	cmd_fs_free(&f);
	return rc < 0 ? 0 : rc;
}

static const char write_usage[] =
    "usage: clawssh write -s ID PATH [--push] < CONTENT\n"
    "\n"
    "Replace PATH with stdin, atomically, creating parent directories and\n"
    "keeping an existing file's mode.  In mirror mode --push sends it up\n"
    "now instead of with the next sync.\n";

/* The write tool. */
int
cmd_write(int argc, char **argv)
{
	struct cmd_fs		 f;
	struct buf		 b = BUF_INIT;
	char			*path = NULL, *cause = NULL;
	int			 rc;

	memset(&f, 0, sizeof f);
	if ((rc = files_setup(&f, "fs.write", write_usage, argc, argv, 0,
	    &path)) != 0 || (rc = cmd_fs_stdin(&f, &b)) != 0 ||
	    (rc = cmd_fs_open(&f, 1)) != 0)
		goto out;
	if ((rc = fstore_write_file(f.fs, path, b.data, b.len, &cause)) != 0)
		rc = cmd_fs_error(&f, rc, cause);
	else
		rc = cmd_fs_after_write(&f);
out:
	buf_free(&b);
	free(path);
	cmd_fs_free(&f);
	return rc < 0 ? 0 : rc;
}

static const char edit_usage[] =
    "usage: clawssh edit -s ID PATH --old TEXT --new TEXT [--all] "
    "[--push]\n"
    "           [--json]\n"
    "\n"
    "Replace the exact text --old by --new: it must occur once, or use\n"
    "--all to replace every occurrence.  Prints how many were replaced\n"
    "(--json: {\"path\", \"replacements\"}).\n";

/* Say how many replacements edit made, as a line or JSON. */
static void
files_edit_report(const struct cmd_fs *f, const char *path, size_t count)
{
	cJSON	*o;

	if (!f->json) {
		printf("%zu replacement%s\n", count, count == 1 ? "" : "s");
		return;
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "path", path);
	cJSON_AddNumberToObject(o, "replacements", (double)count);
	cmd_print_json(o);
	cJSON_Delete(o);
}

/* Replace, write back and say how many. */
static int
files_edit(struct cmd_fs *f, const char *path)
{
	char	*cause = NULL;
	size_t	 count;
	int	 rc;

	if ((rc = fstore_edit(f->fs, path, f->old, f->new, f->all, &count,
	    &cause)) != 0)
		return cmd_fs_error(f, rc, cause);
	if ((rc = cmd_fs_after_write(f)) == 0)
		files_edit_report(f, path, count);
	return rc;
}

/* The edit tool. */
int
cmd_edit(int argc, char **argv)
{
	struct cmd_fs	 f;
	char		*path = NULL;
	int		 rc;

	memset(&f, 0, sizeof f);
	if ((rc = files_setup(&f, "fs.edit", edit_usage, argc, argv, 0,
	    &path)) != 0)
		goto out;
	if (f.old == NULL || f.new == NULL) {
		rc = cmd_fail("edit: give --old TEXT and --new TEXT");
		goto out;
	}
	if ((rc = cmd_fs_open(&f, 1)) == 0)
		rc = files_edit(&f, path);
out:
	free(path);
	cmd_fs_free(&f);
	return rc < 0 ? 0 : rc;
}

/* Print a JSON value on its own line. */
static void
files_print_json(cJSON *o)
{
	char	*s = cJSON_PrintUnformatted(o);

	puts(s);
	free(s);
	cJSON_Delete(o);
}

static const char ls_usage[] =
    "usage: clawssh ls -s ID [PATH] [--json]\n"
    "\n"
    "List a directory of the sandbox's workspace: type, mode, size,\n"
    "modification time (UTC) and name, one entry a line.\n";

/* Print a listing. */
static void
files_print_list(const struct fstore_entry *e, size_t n, int json)
{
	cJSON	*a;
	char	 when[64];
	size_t	 i;

	if (json) {
		a = cJSON_CreateArray();
		for (i = 0; i < n; i++)
			cJSON_AddItemToArray(a, fstore_show_json(e[i].name,
			    &e[i].st));
		files_print_json(a);
		return;
	}
	for (i = 0; i < n; i++) {
		fstore_show_time(&e[i].st, when, sizeof when);
		printf("%c %04o %10llu %s %s%s%s%s\n", e[i].st.type == 'f' ?
		    '-' : e[i].st.type, e[i].st.mode & 07777,
		    (unsigned long long)e[i].st.size, when, e[i].name,
		    e[i].st.type == 'd' ? "/" : "", e[i].st.link != NULL ?
		    " -> " : "", e[i].st.link != NULL ? e[i].st.link : "");
	}
}

/* The ls tool. */
int
cmd_ls(int argc, char **argv)
{
	struct cmd_fs		 f;
	struct fstore_entry	*e = NULL;
	char			*path = NULL, *cause = NULL;
	size_t			 n = 0;
	int			 rc;

	memset(&f, 0, sizeof f);
	if ((rc = files_setup(&f, "fs.ls", ls_usage, argc, argv, 1, &path)) != 0 || (rc = cmd_fs_open(&f, 0)) != 0)
		goto out;
	if ((rc = fstore_list(f.fs, path, &e, &n, &cause)) != 0)
		rc = cmd_fs_error(&f, rc, cause);
	else
		files_print_list(e, n, f.json);
out:
	fstore_entries_free(e, n);
	free(path);
	cmd_fs_free(&f);
	return rc < 0 ? 0 : rc;
}

static const char stat_usage[] =
    "usage: clawssh stat -s ID PATH [--json]\n"
    "\n"
    "Show one entry of the sandbox's workspace (symbolic links inside the\n"
    "workspace are followed).\n";

/* The stat tool. */
int
cmd_stat(int argc, char **argv)
{
	struct cmd_fs		 f;
	struct fstore_stat	 st;
	char			*path = NULL, *cause = NULL, when[64];
	int			 rc;

	memset(&f, 0, sizeof f);
	memset(&st, 0, sizeof st);
	if ((rc = files_setup(&f, "fs.stat", stat_usage, argc, argv, 0,
	    &path)) != 0 || (rc = cmd_fs_open(&f, 0)) != 0)
		goto out;
	if ((rc = fstore_stat(f.fs, path, &st, &cause)) != 0) {
		rc = cmd_fs_error(&f, rc, cause);
		goto out;
	}
	if (f.json)
		files_print_json(fstore_show_json(*path == '\0' ? "." : path, &st));
	else {
		fstore_show_time(&st, when, sizeof when);
		printf("path: %s\ntype: %s\nmode: %04o\nsize: %llu\n"
		    "mtime: %s\n", *path == '\0' ? "." : path,
		    fstore_show_type(st.type), st.mode & 07777,
		    (unsigned long long)st.size, when);
		if (st.link != NULL)
			printf("target: %s\n", st.link);
	}
out:
	fstore_stat_clear(&st);
	free(path);
	cmd_fs_free(&f);
	return rc < 0 ? 0 : rc;
}
