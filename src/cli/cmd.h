/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sub-commands of the clawssh program.  Each takes the arguments after its
 * name (argv[0] is the command name) and returns the process exit status.
 */
#ifndef CLAW_CMD_H
#define CLAW_CMD_H

#define CMD_EXIT_FAILURE	255	/* clawssh's own failures, as ssh */
#define CMD_EXIT_HELP		256	/* --help printed: main exits 0 */

struct cJSON;

int	cmd_apply_patch(int argc, char **argv);
int	cmd_destroy(int argc, char **argv);
int	cmd_edit(int argc, char **argv);
int	cmd_exec(int argc, char **argv);
int	cmd_image(int argc, char **argv);
int	cmd_list(int argc, char **argv);
int	cmd_ls(int argc, char **argv);
int	cmd_process(int argc, char **argv);
int	cmd_provision(int argc, char **argv);
int	cmd_prune(int argc, char **argv);
int	cmd_read(int argc, char **argv);
int	cmd_recreate(int argc, char **argv);
int	cmd_serve(int argc, char **argv);
int	cmd_shell(int argc, char **argv);
int	cmd_start(int argc, char **argv);
int	cmd_sshconfig(int argc, char **argv);
int	cmd_stat(int argc, char **argv);
int	cmd_status(int argc, char **argv);
int	cmd_stop(int argc, char **argv);
int	cmd_sync(int argc, char **argv);
int	cmd_write(int argc, char **argv);

/* Print the one-line error "clawssh: MSG" and return CMD_EXIT_FAILURE. */
int	cmd_fail(const char *fmt, ...)
	    __attribute__((__format__(__printf__, 1, 2)));

/*
 * Start `clawssh serve --detach` on the control socket path (with
 * --config config unless NULL, logging to daemon.log beside the socket)
 * and wait until it listens.  0, or a negative CLAW_ERR_* with *cause.
 */
int	cmd_serve_spawn(const char *path, const char *config, char **cause);

/* Print o as one line of JSON on stdout (--json output); o stays o's. */
void	cmd_print_json(const struct cJSON *o);

/* The user's home directory and login name (static storage). */
const char	*cmd_home(void);
const char	*cmd_local_user(void);

#endif /* CLAW_CMD_H */
