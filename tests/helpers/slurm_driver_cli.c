/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Drive the slurm provider driver from the command line, for
 * tests/integration/slurm_gpu.sh:
 *
 *	slurm_driver_cli [-c BINDIR] [-t SECS] [-a SBATCHARG]... get NAME
 *	slurm_driver_cli ... create NAME GPUS
 *	slurm_driver_cli ... destroy NAME
 *	slurm_driver_cli ... list
 *
 * get prints KEY=VALUE lines (state, state_text, host, gpus, exec_wrap,
 * port, user, identity, host_keys), list one "NAME STATE GPUS" line per
 * sandbox ("-": none), destroy "existed=0|1".  Errors go to stderr with
 * exit status 1.  -a takes the driver's own options too
 * (--clawssh-identity=, --clawssh-sshd=), as a config's args do.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "provider.h"
#include "provider_slurm.h"
#include "xmalloc.h"

#define CLI_ARGS_MAX	16

static const char *const cli_states[] = {
	"ABSENT", "PENDING", "READY", "FAILED", "GONE"
};

/* Print usage and exit 2. */
static void __attribute__((__noreturn__))
cli_usage(void)
{
	fprintf(stderr, "usage: slurm_driver_cli [-c BINDIR] [-t SECS] "
	    "[-a SBATCHARG]... get NAME | create NAME GPUS | destroy NAME | "
	    "list\n");
	exit(2);
}

/* Print a state's name. */
static const char *
cli_state(enum provider_state st)
{
	if ((size_t)st >= sizeof cli_states / sizeof cli_states[0])
		return "?";
	return cli_states[st];
}

/* Run get and print what it found. */
static int
cli_get(const struct provider_conf *conf, const char *name, char **cause)
{
	struct provider_sandbox	sb;
	int			rc;

	if ((rc = provider_slurm.get(conf, name, &sb, cause)) != 0)
		return rc;
	printf("state=%s\nstate_text=%s\n", cli_state(sb.state),
	    sb.state_text != NULL ? sb.state_text : "");
	printf("host=%s\ngpus=%s\nexec_wrap=%s\n",
	    sb.ep.host != NULL ? sb.ep.host : "",
	    sb.gpus != NULL ? sb.gpus : "",
	    sb.ep.exec_wrap != NULL ? sb.ep.exec_wrap : "");
	printf("port=%d\nuser=%s\nidentity=%s\nhost_keys=%s\n", sb.ep.port,
	    sb.ep.user != NULL ? sb.ep.user : "",
	    sb.ep.identity_file != NULL ? sb.ep.identity_file : "",
	    sb.ep.host_keys != NULL ? sb.ep.host_keys : "");
	provider_sandbox_clear(&sb);
	return 0;
}

/* Run list and print one line per sandbox. */
static int
cli_list(const struct provider_conf *conf, char **cause)
{
	struct provider_sandbox	*v;
	size_t			 n, i;
	int			 rc;

	if ((rc = provider_slurm.list(conf, &v, &n, cause)) != 0)
		return rc;
	for (i = 0; i < n; i++) {
		printf("%s %s %s\n", v[i].name, cli_state(v[i].state),
		    v[i].gpus != NULL ? v[i].gpus : "-");
		provider_sandbox_clear(&v[i]);
	}
	free(v);
	return 0;
}

int
main(int argc, char **argv)
{
	struct provider_conf	 conf;
	struct provider_request	 req;
	char			*args[CLI_ARGS_MAX], *cause = NULL;
	int			 ch, rc, existed;

	memset(&conf, 0, sizeof conf);
	memset(&req, 0, sizeof req);
	conf.name = "slurm";
	conf.driver = "slurm";
	conf.args = args;
	while ((ch = getopt(argc, argv, "+a:c:t:")) != -1) {
		switch (ch) {
		case 'a':
			if (conf.nargs == CLI_ARGS_MAX)
				cli_usage();
			args[conf.nargs++] = optarg;
			break;
		case 'c':
			conf.command = optarg;
			break;
		case 't':
			conf.timeout = atoi(optarg);
			break;
		default:
			cli_usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 2 && strcmp(argv[0], "get") == 0)
		rc = cli_get(&conf, argv[1], &cause);
	else if (argc == 3 && strcmp(argv[0], "create") == 0) {
		req.gpus = atoi(argv[2]);
		rc = provider_slurm.create(&conf, argv[1], &req, &cause);
	} else if (argc == 2 && strcmp(argv[0], "destroy") == 0) {
		if ((rc = provider_slurm.destroy(&conf, argv[1], &existed,
		    &cause)) == 0)
			printf("existed=%d\n", existed);
	} else if (argc == 1 && strcmp(argv[0], "list") == 0)
		rc = cli_list(&conf, &cause);
	else
		cli_usage();
	if (rc != 0) {
		fprintf(stderr, "slurm_driver_cli: %s\n",
		    cause != NULL ? cause : "failed");
		free(cause);
		return 1;
	}
	return 0;
}
