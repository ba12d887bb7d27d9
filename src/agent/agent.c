/* SPDX-License-Identifier: BSD-2-Clause */
/* clawssh-agent's main: one subcommand per invocation (docs/agent.md). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <string.h>

#include "agent.h"
#include "msg.h"
#include "serve.h"

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION	"unknown"
#endif

static const struct {
	const char	*name;
	int		(*main)(int, char **);
} agent_cmds[] = {
	{ "box-entry", box_entry_main },
	{ "box-exec", box_exec_main },
	{ "box-hold", box_hold_main },
	{ "box-init", box_init_main },
	{ "box-status", box_status_main },
	{ "box-stop", box_stop_main },
	{ "fs-list", fs_list_main },
	{ "fs-ls", fs_ls_main },
	{ "fs-pack", fs_pack_main },
	{ "fs-read", fs_read_main },
	{ "fs-stat", fs_stat_main },
	{ "fs-unpack", fs_unpack_main },
	{ "proc-kill", proc_main },
	{ "proc-list", proc_main },
	{ "proc-log", proc_main },
	{ "proc-poll", proc_main },
	{ "proc-start", proc_start_main },
	{ "proc-wait", proc_main },
	{ "proc-write", proc_main },
	{ "serve", serve_main },
	{ "watch", fs_watch_main },
};

/* The usage message, on stderr; exit status 125. */
static int
agent_usage(void)
{
	fprintf(stderr, "usage: clawssh-agent version\n"
	    "       clawssh-agent box-entry ROOT ID\n"
	    "       clawssh-agent box-exec --dir RUNDIR [--cwd DIR] "
	    "[--keep 'NAME ...'] [--spec TOKEN] [--pty] [--login] [-v] "
	    "-- [CMD [ARG...]]\n"
	    "       clawssh-agent box-exec --join [--check] --dir RUNDIR "
	    "[--spec TOKEN] [--cwd DIR] -- CMD [ARG...]\n"
	    "       clawssh-agent box-hold --dir RUNDIR [--spec TOKEN] -- "
	    "RUNTIME-ARGV...\n"
	    "       clawssh-agent box-status --dir RUNDIR\n"
	    "       clawssh-agent box-stop --dir RUNDIR\n"
	    "       clawssh-agent fs-read PATH OFFSET LIMIT CAP\n"
	    "       clawssh-agent fs-stat PATH\n"
	    "       clawssh-agent fs-ls PATH\n"
	    "       clawssh-agent fs-list [-]   (- : paths on stdin)\n"
	    "       clawssh-agent fs-pack < NAMES\n"
	    "       clawssh-agent fs-unpack < PARENTS-TAR   (fs-*: in the "
	    "sandbox, from its workspace)\n"
	    "       clawssh-agent proc-start SANDBOX HANDLE CAP CHUNK NAME "
	    "CMD ARGV...\n"
	    "       clawssh-agent proc-list SANDBOX\n"
	    "       clawssh-agent proc-poll SANDBOX HANDLE\n"
	    "       clawssh-agent proc-log SANDBOX HANDLE [LINES]\n"
	    "       clawssh-agent proc-wait SANDBOX HANDLE TENTHS\n"
	    "       clawssh-agent proc-kill SANDBOX HANDLE SIGNUM ESCALATE "
	    "TENTHS\n"
	    "       clawssh-agent proc-write SANDBOX HANDLE EOF < DATA   "
	    "(proc-*: on the host, as the process tool's scripts)\n"
	    "       clawssh-agent serve   (frames on stdin and stdout)\n"
	    "       clawssh-agent watch   (in the workspace: lines on stdin, "
	    "stdout, stderr)\n");
	return AGENT_EXIT_ERR;
}

/* Run the subcommand argv[1]. */
int
main(int argc, char **argv)
{
	size_t	i;

	if (argc < 2)
		return agent_usage();
	if (strcmp(argv[1], "version") == 0 && argc == 2) {
		printf("clawssh-agent %s %d\n", PACKAGE_VERSION, MSG_PROTO);
		return fflush(stdout) == 0 ? 0 : AGENT_EXIT_ERR;
	}
	for (i = 0; i < sizeof(agent_cmds) / sizeof(agent_cmds[0]); i++)
		if (strcmp(argv[1], agent_cmds[i].name) == 0)
			return agent_cmds[i].main(argc - 1, argv + 1);
	return agent_usage();
}
