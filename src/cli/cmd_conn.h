/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What every command that reaches a host shares: the connection options
 * (-F, -o, -l, -p, -v, --config, --passphrase-file, --state-dir), loading
 * the clawssh config, resolving a target through ssh_config, connecting.
 * Failures print the one-line error and return CMD_EXIT_FAILURE.
 */
#ifndef CLAW_CMD_CONN_H
#define CLAW_CMD_CONN_H

#include <getopt.h>
#include <stddef.h>

struct claw_config;
struct sshconfig;
struct transport;

enum {
	CMD_OPT_CONFIG = 256,
	CMD_OPT_PASSPHRASE,
	CMD_OPT_STATE_DIR,
	CMD_OPT_NO_DAEMON,
	CMD_OPT_FIRST_FREE		/* commands number theirs from here */
};

#define CMD_CONN_SHORTOPTS	"F:l:o:p:v"
#define CMD_CONN_LONGOPTS						\
	{ "config", required_argument, NULL, CMD_OPT_CONFIG },		\
	{ "passphrase-file", required_argument, NULL, CMD_OPT_PASSPHRASE }, \
	{ "state-dir", required_argument, NULL, CMD_OPT_STATE_DIR },	\
	{ "no-daemon", no_argument, NULL, CMD_OPT_NO_DAEMON },		\
	{ "verbose", no_argument, NULL, 'v' }

#define CMD_CONN_USAGE							\
	"  -F FILE               OpenSSH client config (default "	\
	"~/.ssh/config)\n"						\
	"  -o KEY=VALUE          ssh_config option, as with ssh -o\n"	\
	"  -l USER, -p PORT      remote user and port\n"		\
	"  --config FILE         clawssh config (default\n"		\
	"                        $XDG_CONFIG_HOME/clawssh/config.json)\n" \
	"  --passphrase-file F   passphrase for an encrypted identity\n" \
	"  --state-dir DIR       local state (default "		\
	"$XDG_STATE_HOME/clawssh)\n"					\
	"  --no-daemon           connect directly, not through a "	\
	"running\n                        clawssh daemon\n"		\
	"  -v                    more logging (repeatable)\n"

/*
 * The connection options and --help (as 'h'), for commands that take no
 * others.
 */
extern const struct option cmd_conn_longopts[];

struct cmd_conn {
	const char		*target;	/* TARGET or --host */
	const char		*ssh_config;	/* -F */
	const char		*config;	/* --config */
	const char		*state_dir;	/* --state-dir */
	const char		*user;		/* -l */
	int			 port;		/* -p */
	char			**options;	/* -o lines, then config's */
	size_t			 noptions;
	const char		*passphrase_file;
	int			 no_daemon;	/* --no-daemon */
	int			 verbose;
	struct claw_config	*cfg;		/* after cmd_conn_load */
	size_t			 ncli;		/* -o lines before config's */
	char			**ep_lines;	/* a managed endpoint's */
	size_t			 nep_lines;
};

/*
 * Take one option if it is a connection option: returns 1 if taken, 0 if
 * not ours, CMD_EXIT_FAILURE (after printing why) if its argument is bad.
 */
int	cmd_conn_option(struct cmd_conn *cc, int ch, const char *arg);

/*
 * Load the clawssh config, set the log level, and append the config's
 * ssh settings after the -o lines.  Returns 0 or CMD_EXIT_FAILURE.
 */
int	cmd_conn_load(struct cmd_conn *cc);

/*
 * Use lines (ssh_config lines for a managed sandbox's endpoint, taken
 * over) after the command line's -o lines and before the config's,
 * replacing any given before.
 */
void	cmd_conn_endpoint(struct cmd_conn *cc, char **lines, size_t n);

/* The ssh config file cmd_conn_resolve reads: -F, else ~/.ssh/config. */
char	*cmd_conn_ssh_config_path(const struct cmd_conn *cc);

/* Resolve cc->target through ssh_config.  Returns 0 or CMD_EXIT_FAILURE. */
int	cmd_conn_resolve(struct cmd_conn *cc, struct sshconfig **sc);

/*
 * Connect and authenticate: through the clawssh daemon when one listens
 * on the control socket (starting one first unless daemon.autostart is
 * false, or CLAWSSH_AUTOSTART=0 and the config does not say; a start that
 * fails falls back to connecting directly), unless --no-daemon; else
 * directly.  Returns 0 or CMD_EXIT_FAILURE.
 */
int	cmd_conn_connect(struct cmd_conn *cc, const struct sshconfig *sc,
	    struct transport **t);

/* "user@hostname:port" for sc (allocated): what a sandbox id hashes. */
char	*cmd_conn_identity(const struct sshconfig *sc);

/* Parse a decimal integer in [lo, hi]; 0, or CLAW_ERR_INVAL if bad. */
int	cmd_parse_int(const char *s, int lo, int hi, int *out);

/*
 * The index of the first "--" in argv[1..argc) (options and operands
 * come before it, the command after), or argc if there is none.
 */
int	cmd_dashdash(int argc, char **argv);

/* Free what cc owns (not the strings from argv). */
void	cmd_conn_free(struct cmd_conn *cc);

#endif /* CLAW_CMD_CONN_H */
