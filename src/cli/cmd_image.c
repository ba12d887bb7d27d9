/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh image import|list|rm: the root file system images a host keeps
 * for sandboxes made with --from NAME.
 *
 *	clawssh image import --host TARGET NAME TARBALL
 *	clawssh image list --host TARGET [--json]
 *	clawssh image rm --host TARGET [--force] NAME
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "cmd_box.h"
#include "cmd_conn.h"
#include "cmd_ops.h"
#include "hostdir.h"
#include "sandbox.h"
#include "sshconfig.h"
#include "transport.h"
#include "xmalloc.h"

static const char image_usage[] =
    "usage: clawssh image import --host TARGET [options] NAME TARBALL\n"
    "       clawssh image list --host TARGET [--json]\n"
    "       clawssh image rm --host TARGET [--force] NAME\n"
    "\n"
    "TARBALL is a root file system as a tar archive (plain, gzip, xz,\n"
    "bzip2 or zstd): from debootstrap, docker export, or any tar of a\n"
    "root tree.  Sandboxes use it with 'clawssh provision --from NAME'.\n"
    "Images live in images/ below the host's sandbox root.\n";

struct image_args {
	struct cmd_box	 box;
	const char	*root;
	int		 json, force;
};

/* tar's decompression flag for the first bytes of a tarball. */
static const char *
image_zflag(const unsigned char *m, ssize_t n)
{
	if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
		return "-z";
	if (n >= 6 && memcmp(m, "\xfd" "7zXZ\0", 6) == 0)
		return "-J";
	if (n >= 3 && memcmp(m, "BZh", 3) == 0)
		return "-j";
	if (n >= 4 && memcmp(m, "\x28\xb5\x2f\xfd", 4) == 0)
		return "--zstd";
	return "";
}

/* Open the tarball and work out its compression. */
static int
image_open(const char *path, int *fd, const char **zflag)
{
	unsigned char	m[8];
	ssize_t		n;

	if ((*fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return cmd_fail("%s: %s", path, strerror(errno));
	n = pread(*fd, m, sizeof m, 0);
	if (n < 0) {
		close(*fd);
		return cmd_fail("%s: %s", path, strerror(errno));
	}
	*zflag = image_zflag(m, n);
	return 0;
}

/* Check an image name given on the command line. */
static int
image_name(const char *name)
{
	char	*cause = NULL;
	int	 rc;

	if (strcmp(name, "host") == 0)
		return cmd_fail("'host' names the host's own root; choose "
		    "another image name");
	if (sandbox_image_check(name, &cause) == 0)
		return 0;
	rc = cmd_fail("%s", cause);
	free(cause);
	return rc;
}

/* image import NAME TARBALL. */
static int
image_import(struct image_args *a, const char *name, const char *path)
{
	struct hostdir_image	 got;
	const char		*z = "";
	char			*cause = NULL;
	int			 fd, rc;

	if ((rc = image_name(name)) != 0 || (rc = image_open(path, &fd,
	    &z)) != 0)
		return rc;
	rc = hostdir_image_import(a->box.t, a->root, name, fd, z, &got,
	    &cause);
	close(fd);
	if (rc != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	printf("%s\n", got.name);
	fprintf(stderr, "clawssh: imported %s (%llu KiB)\n", got.name,
	    (unsigned long long)got.kib);
	return 0;
}

/* image list. */
static int
image_list(struct image_args *a)
{
	struct hostdir_image	*v = NULL;
	cJSON			*arr, *o;
	char			*cause = NULL, *s, when[32];
	size_t			 n = 0, i;
	time_t			 t;
	int			 rc;

	if ((rc = hostdir_image_list(a->box.t, a->root, &v, &n,
	    &cause)) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	arr = cJSON_CreateArray();
	for (i = 0; i < n; i++) {
		t = (time_t)v[i].imported;
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
		if (!a->json) {
			printf("%-24s %10llu KiB  %s\n", v[i].name,
			    (unsigned long long)v[i].kib, when);
			continue;
		}
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "name", v[i].name);
		cJSON_AddNumberToObject(o, "kib", (double)v[i].kib);
		cJSON_AddStringToObject(o, "imported", when);
		cJSON_AddItemToArray(arr, o);
	}
	if (a->json) {
		s = cJSON_PrintUnformatted(arr);
		puts(s);
		free(s);
	}
	cJSON_Delete(arr);
	free(v);
	return 0;
}

/* image rm NAME. */
static int
image_rm(struct image_args *a, const char *name)
{
	char	*cause = NULL;
	int	 rc;

	if ((rc = image_name(name)) != 0)
		return rc;
	if ((rc = hostdir_image_rm(a->box.t, a->root, name, a->force,
	    &cause)) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
	}
	return rc;
}

/*
 * Parse image SUB's options (the operations table's image.SUB); its
 * operands in *words.  0, -1 for --help, or an exit status.
 */
static int
image_parse(struct image_args *a, const char *sub, int argc, char **argv,
    char ***words, int *nwords)
{
	struct cmd_ops	 o;
	char		*method;
	int		 rc;

	method = xasprintf("image.%s", sub);
	rc = cmd_ops_parse(&o, method, &a->box.cc, image_usage, argc, argv);
	free(method);
	if (rc == 0) {
		a->box.cc.target = cmd_ops_get(&o, "host");
		a->root = cmd_ops_get(&o, "remote_root");
		a->json = cmd_ops_flag(&o, "json");	/* list's */
		a->force = cmd_ops_flag(&o, "force");	/* rm's */
	}
	cmd_ops_free(&o);	/* keeps the values: they are argv's */
	*words = o.operands;
	*nwords = o.noperands;
	if (rc == 0 && a->box.cc.target == NULL)
		return cmd_fail("image: --host TARGET is required");
	return rc;
}

/* Connect to the host named on the command line. */
static int
image_connect(struct image_args *a)
{
	char	*cause = NULL;
	int	 rc;

	if ((rc = cmd_conn_load(&a->box.cc)) != 0)
		return rc;
	if (a->root == NULL)
		a->root = cmd_box_root(&a->box);
	if (sandbox_root_check(a->root, &cause) != 0) {
		rc = cmd_fail("remoteRoot: %s", cause);
		free(cause);
		return rc;
	}
	if ((rc = cmd_conn_resolve(&a->box.cc, &a->box.sc)) != 0)
		return rc;
	return cmd_conn_connect(&a->box.cc, a->box.sc, &a->box.t);
}

/* The image command; see clawssh(1). */
int
cmd_image(int argc, char **argv)
{
	struct image_args	 a;
	const char		*sub;
	char			**w = NULL;
	int			 rc, want, help, nw = 0;

	memset(&a, 0, sizeof a);
	help = argc >= 2 && (strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "-h") == 0);
	if (argc < 2 || argv[1][0] == '-') {
		fputs(image_usage, help ? stdout : stderr);
		if (!help)
			return CMD_EXIT_FAILURE;
		printf("\n");
		cmd_ops_help(stdout, ops_by_method("image.rm"));
		printf("%s\nEach one's own options: clawssh image SUB "
		    "--help.\n", CMD_CONN_USAGE);
		return 0;
	}
	sub = argv[1];
	want = strcmp(sub, "import") == 0 ? 2 : strcmp(sub, "rm") == 0 ? 1 :
	    strcmp(sub, "list") == 0 ? 0 : -1;
	if (want < 0)
		return cmd_fail("image: unknown sub-command '%s' (import, "
		    "list, rm)", sub);
	if ((rc = image_parse(&a, sub, argc - 1, argv + 1, &w, &nw)) != 0)
		goto out;
	if (nw != want) {
		rc = cmd_fail("image %s: wrong arguments (see 'clawssh image "
		    "--help')", sub);
		goto out;
	}
	if ((rc = image_connect(&a)) != 0)
		goto out;
	if (want == 2)
		rc = image_import(&a, w[0], w[1]);
	else if (want == 1)
		rc = image_rm(&a, w[0]);
	else
		rc = image_list(&a);
out:
	cmd_box_free(&a.box);
	return rc < 0 ? 0 : rc;
}
