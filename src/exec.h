/*
 * Running one command on an authenticated transport, streaming stdin,
 * stdout and stderr, and reporting its exit the way a shell would.
 */
#ifndef CLAW_EXEC_H
#define CLAW_EXEC_H

#include <stddef.h>

struct claw_env;
struct transport;

#define EXEC_STATUS_TIMEOUT	124	/* as timeout(1) */
#define EXEC_STATUS_FAILURE	255	/* connection-level failure, as ssh */

struct exec_opts {
	int			 argc;		/* >= 1 */
	char *const		*argv;
	const char		*cwd;		/* remote directory, or NULL */
	const struct claw_env	*env;		/* never in any argv */
	size_t			 nenv;
	int			 timeout;	/* seconds; 0 = none */
	int			 forward_stdin;	/* else the remote gets EOF */
	int			 in_fd;		/* usually 0, 1, 2 */
	int			 out_fd;
	int			 err_fd;
};

/*
 * Run o->argv on t.  On return 0, *status is what clawssh should exit with:
 * the remote exit status, 128+N if the command died of signal N, 124 if
 * o->timeout passed (the remote process group is killed first), 128+N if
 * clawssh itself got SIGINT/SIGTERM/SIGHUP N (the remote process group is
 * killed first).  Returns a negative CLAW_ERR_* with *cause set when the
 * connection or channel failed; the caller exits 255.
 */
int	exec_run(struct transport *t, const struct exec_opts *o, int *status,
	    char **cause);

#endif /* CLAW_EXEC_H */
