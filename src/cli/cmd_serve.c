/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh serve: run the per-user daemon that keeps SSH sessions warm for
 * every other clawssh command (see daemon.h), in the foreground or
 * detached; or serve JSON-RPC (--stdio) or MCP (--mcp) on stdin/stdout
 * with a daemon of its own; and cmd_serve_spawn, which starts one on
 * demand.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit.h"
#include "clawconfig.h"
#include "cmd.h"
#include "cmd_conn.h"
#include "cmd_serve.h"
#include "daemon.h"
#include "error.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp_http.h"
#include "mcp_tools.h"
#include "mux_client.h"
#include "registry.h"
#include "sandbox.h"
#include "xmalloc.h"

#define SERVE_READY_MS	10000	/* how long a start may take */

enum {
	SERVE_OPT_SOCKET = CMD_OPT_FIRST_FREE,
	SERVE_OPT_IDLE,
	SERVE_OPT_DETACH,
	SERVE_OPT_LOG,
	SERVE_OPT_STDIO,
	SERVE_OPT_MCP,
	SERVE_OPT_AGENT,
	SERVE_OPT_HOST,
	SERVE_OPT_KEY,
	SERVE_OPT_WORKSPACE,
	SERVE_OPT_STOP,
	SERVE_OPT_STATUS,
	SERVE_OPT_JSON,
	SERVE_OPT_MAX_RESULT,
	SERVE_OPT_LISTEN,
	SERVE_OPT_TOKEN_FILE,
	SERVE_OPT_MAX_BODY
};

static const struct option serve_longopts[] = {
	{ "config", required_argument, NULL, CMD_OPT_CONFIG },
	{ "socket", required_argument, NULL, SERVE_OPT_SOCKET },
	{ "idle-timeout", required_argument, NULL, SERVE_OPT_IDLE },
	{ "detach", no_argument, NULL, SERVE_OPT_DETACH },
	{ "log", required_argument, NULL, SERVE_OPT_LOG },
	{ "stdio", no_argument, NULL, SERVE_OPT_STDIO },
	{ "mcp", no_argument, NULL, SERVE_OPT_MCP },
	{ "agent", required_argument, NULL, SERVE_OPT_AGENT },
	{ "sandbox", required_argument, NULL, 's' },
	{ "host", required_argument, NULL, SERVE_OPT_HOST },
	{ "key", required_argument, NULL, SERVE_OPT_KEY },
	{ "workspace", required_argument, NULL, SERVE_OPT_WORKSPACE },
	{ "stop", no_argument, NULL, SERVE_OPT_STOP },
	{ "status", no_argument, NULL, SERVE_OPT_STATUS },
	{ "json", no_argument, NULL, SERVE_OPT_JSON },
	{ "max-result", required_argument, NULL, SERVE_OPT_MAX_RESULT },
	{ "listen", required_argument, NULL, SERVE_OPT_LISTEN },
	{ "token-file", required_argument, NULL, SERVE_OPT_TOKEN_FILE },
	{ "max-body", required_argument, NULL, SERVE_OPT_MAX_BODY },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static const char serve_usage[] =
    "usage: clawssh serve [--socket PATH] [--idle-timeout SECS] [--detach]\n"
    "           [--log FILE]\n"
    "       clawssh serve --stdio | --mcp [-s ID | --host TARGET --key KEY]\n"
    "           [--agent NAME] [--max-result BYTES]\n"
    "       clawssh serve --mcp --listen ADDR [--token-file FILE]\n"
    "           [--max-body BYTES] [-s ID | --host TARGET --key KEY] ...\n"
    "       clawssh serve --status [--json] | --stop [--socket PATH]\n\n"
    "  --socket PATH         control socket (default\n"
    "                        $XDG_RUNTIME_DIR/clawssh/control.sock)\n"
    "  --idle-timeout SECS   exit after this long without clients\n"
    "                        (default 600; 0: never)\n"
    "  --detach              run in the background once listening\n"
    "  --log FILE            append the log here (detached: else none)\n"
    "  --status              is a daemon running: pid, socket, uptime,\n"
    "                        hosts, counts (exit 1 if none; --json)\n"
    "  --stop                stop the running daemon and wait for it\n"
    "  --stdio               serve JSON-RPC on stdin/stdout, then exit\n"
    "  --mcp                 serve MCP on stdin/stdout, then exit; the\n"
    "                        tools act on the sandbox given by\n"
    "  -s ID                 its id, or by\n"
    "  --host TARGET --key KEY [-F FILE] [--workspace DIR]\n"
    "                        the scope key's sandbox (provisioned)\n"
    "  --agent NAME          the caller, for policy and audit\n"
    "  --max-result BYTES    MCP: cap on one tool result (default\n"
    "                        mcp.maxResult, else 1048576); the rest of a\n"
    "                        longer exec output is kept for read_output\n"
    "  --listen ADDR         MCP over Streamable HTTP at /mcp instead of\n"
    "                        stdio: 127.0.0.1:PORT, [::1]:PORT,\n"
    "                        localhost:PORT (0: any free port) or\n"
    "                        unix:PATH; prints {\"url\", \"tokenFile\"}\n"
    "  --token-file FILE     the bearer token clients must send (read;\n"
    "                        made, mode 0600, if missing; default: a new\n"
    "                        one in a private directory)\n"
    "  --max-body BYTES      HTTP: cap on a request body (default\n"
    "                        16777216)\n"
    "  --config FILE         clawssh config\n"
    "  -v                    more logging (repeatable)\n";

struct serve_args {
	const char	*config;
	const char	*socket;
	const char	*log;
	int		 idle;		/* -1: from config */
	int		 detach;
	int		 verbose;
	enum daemon_stdio stdio;
	const char	*agent;
	const char	*sandbox;
	const char	*host;
	const char	*key;
	const char	*workspace;
	const char	*ssh_config;
	int		 stop;
	int		 status;
	int		 json;
	int		 max_result;	/* 0: from config */
	const char	*listen;	/* MCP over HTTP here, or NULL */
	const char	*token_file;
	int		 max_body;	/* 0: the default */
};

/* The options of MCP over HTTP go together; 0 or the exit status. */
static int
serve_parse_http(const struct serve_args *a)
{
	char	*cause = NULL;
	int	 rc;

	if (a->listen == NULL) {
		if (a->token_file != NULL || a->max_body != 0)
			return cmd_fail("--token-file and --max-body go with "
			    "--listen");
		return 0;
	}
	if (a->stdio != DAEMON_STDIO_MCP)
		return cmd_fail("--listen goes with --mcp");
	if (a->socket != NULL)
		return cmd_fail("--socket does not go with --listen");
	if (mcp_http_listen_ok(a->listen, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	return 0;
}

/* An option of serve's that sets a member: its getopt value, where. */
struct serve_field {
	int	 ch;
	size_t	 off;
};

/* serve's options that take a string, and where it goes. */
static const struct serve_field serve_strs[] = {
	{ CMD_OPT_CONFIG, offsetof(struct serve_args, config) },
	{ SERVE_OPT_SOCKET, offsetof(struct serve_args, socket) },
	{ SERVE_OPT_LOG, offsetof(struct serve_args, log) },
	{ SERVE_OPT_AGENT, offsetof(struct serve_args, agent) },
	{ 's', offsetof(struct serve_args, sandbox) },
	{ SERVE_OPT_HOST, offsetof(struct serve_args, host) },
	{ SERVE_OPT_KEY, offsetof(struct serve_args, key) },
	{ SERVE_OPT_WORKSPACE, offsetof(struct serve_args, workspace) },
	{ 'F', offsetof(struct serve_args, ssh_config) },
	{ SERVE_OPT_LISTEN, offsetof(struct serve_args, listen) },
	{ SERVE_OPT_TOKEN_FILE, offsetof(struct serve_args, token_file) },
};

/* serve's flags, and the member each sets. */
static const struct serve_field serve_flags[] = {
	{ SERVE_OPT_DETACH, offsetof(struct serve_args, detach) },
	{ SERVE_OPT_STOP, offsetof(struct serve_args, stop) },
	{ SERVE_OPT_STATUS, offsetof(struct serve_args, status) },
	{ SERVE_OPT_JSON, offsetof(struct serve_args, json) },
};

/* Take serve's option ch: 0, -1 after printing help, or an exit status. */
static int
serve_opt(int ch, struct serve_args *a)
{
	size_t	i;

	for (i = 0; i < sizeof serve_strs / sizeof serve_strs[0]; i++)
		if (serve_strs[i].ch == ch) {
			*(const char **)(void *)((char *)a +
			    serve_strs[i].off) = optarg;
			return 0;
		}
	for (i = 0; i < sizeof serve_flags / sizeof serve_flags[0]; i++)
		if (serve_flags[i].ch == ch) {
			*(int *)(void *)((char *)a + serve_flags[i].off) = 1;
			return 0;
		}
	switch (ch) {
	case SERVE_OPT_IDLE:
		if (cmd_parse_int(optarg, 0, 604800, &a->idle) != 0)
			return cmd_fail("bad --idle-timeout '%s'", optarg);
		return 0;
	case SERVE_OPT_STDIO:
		a->stdio = DAEMON_STDIO_RPC;
		return 0;
	case SERVE_OPT_MCP:
		a->stdio = DAEMON_STDIO_MCP;
		return 0;
	case SERVE_OPT_MAX_RESULT:
		if (cmd_parse_int(optarg, MCP_MAX_RESULT_MIN,
		    MCP_MAX_RESULT_MAX, &a->max_result) != 0)
			return cmd_fail("bad --max-result '%s' (%d to "
			    "%d bytes)", optarg, MCP_MAX_RESULT_MIN,
			    MCP_MAX_RESULT_MAX);
		return 0;
	case SERVE_OPT_MAX_BODY:
		if (cmd_parse_int(optarg, MCP_HTTP_BODY_MIN,
		    MCP_HTTP_BODY_MAX, &a->max_body) != 0)
			return cmd_fail("bad --max-body '%s' (%d to "
			    "%d bytes)", optarg, MCP_HTTP_BODY_MIN,
			    MCP_HTTP_BODY_MAX);
		return 0;
	case 'v':
		a->verbose++;
		return 0;
	case 'h':
		fputs(serve_usage, stdout);
		return -1;
	default:
		fputs(serve_usage, stderr);
		return CMD_EXIT_FAILURE;
	}
}

/* The options that go together, or not; 0 or the exit status. */
static int
serve_parse_check(const struct serve_args *a)
{
	if (a->json && !a->status)
		return cmd_fail("--json goes with --status");
	if ((a->stop || a->status) && (a->stop + a->status > 1 ||
	    a->detach || a->stdio != DAEMON_STDIO_NONE || a->idle != -1 ||
	    a->log != NULL))
		return cmd_fail("--stop and --status take only --socket, "
		    "--config and --json");
	if (a->stdio == DAEMON_STDIO_NONE && (a->agent != NULL ||
	    a->sandbox != NULL || a->host != NULL || a->key != NULL))
		return cmd_fail("--agent, -s, --host and --key go with --stdio "
		    "or --mcp");
	if (a->stdio != DAEMON_STDIO_NONE && a->detach)
		return cmd_fail("--detach does not go with --stdio or --mcp");
	if (a->max_result != 0 && a->stdio != DAEMON_STDIO_MCP)
		return cmd_fail("--max-result goes with --mcp");
	if (a->stdio == DAEMON_STDIO_MCP && (a->sandbox == NULL) ==
	    (a->host == NULL || a->key == NULL))
		return cmd_fail("--mcp needs -s ID, or --host and --key");
	return serve_parse_http(a);
}

/*
 * Parse serve's options; 0, -1 after printing help, or the exit status
 * to return.
 */
static int
serve_parse(int argc, char **argv, struct serve_args *a)
{
	int	ch, rc;

	memset(a, 0, sizeof *a);
	a->idle = -1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "F:s:vh", serve_longopts,
	    NULL)) != -1)
		if ((rc = serve_opt(ch, a)) != 0)
			return rc;
	if (optind != argc)
		return cmd_fail("serve takes no operands");
	return serve_parse_check(a);
}

/*
 * MCP bound to a scope key: provision it (a worker, as the user would)
 * and return its id (allocated), or NULL after printing why.
 */
static char *
serve_provision(const struct serve_args *a)
{
	const char	*argv[12];
	char		 buf[128];
	size_t		 n = 0, len = 0;
	ssize_t		 r;
	int		 p[2], status;
	pid_t		 pid;

	argv[n++] = "clawssh";
	argv[n++] = "provision";
	argv[n++] = "--host";
	argv[n++] = a->host;
	argv[n++] = "--key";
	argv[n++] = a->key;
	if (a->ssh_config != NULL) {
		argv[n++] = "-F";
		argv[n++] = a->ssh_config;
	}
	if (a->workspace != NULL) {
		argv[n++] = "--workspace";
		argv[n++] = a->workspace;
	}
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC) == -1 || (pid = fork()) == -1) {
		cmd_fail("provision: %s", strerror(errno));
		return NULL;
	}
	if (pid == 0) {
		if (dup2(p[1], 1) == -1)
			_exit(127);
		execv("/proc/self/exe", (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	close(p[1]);
	while (len < sizeof buf - 1 && (r = read(p[0], buf + len,
	    sizeof buf - 1 - len)) != 0) {
		if (r > 0)
			len += (size_t)r;
		else if (errno != EINTR)
			break;
	}
	close(p[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || buf[0] == '\0') {
		cmd_fail("could not provision the sandbox for --key %s",
		    a->key);
		return NULL;
	}
	return xstrdup(buf);
}

/*
 * MCP bound to -s ID: the sandbox must exist in the registry now, not
 * fail at every later call.  0, or the exit status after saying why.
 */
static int
serve_check_sandbox(const char *id)
{
	struct registry		*reg = NULL;
	struct registry_record	*rec = NULL;
	char			*cause = NULL;
	int			 rc;

	if (!sandbox_id_ok(id))
		return cmd_fail("-s %s: not a sandbox id ('c' and 12 "
		    "characters of a-z 2-7, as provision printed)", id);
	if ((rc = registry_open(NULL, cmd_home(), &reg, &cause)) == 0)
		rc = registry_get(reg, id, &rec, &cause);
	registry_record_free(rec);
	registry_close(reg);
	if (rc == CLAW_ERR_NOTFOUND) {
		free(cause);
		return cmd_fail("-s %s: no such sandbox (clawssh list shows "
		    "them; provision makes one)", id);
	}
	if (rc != 0) {
		rc = cmd_fail("-s %s: %s", id, cause != NULL ? cause :
		    claw_strerror(rc));
		free(cause);
		return rc;
	}
	return 0;
}

/* Open the audit log the config names (default path unless ""). */
static int
serve_audit(const struct claw_config *cfg, struct audit **out)
{
	char	*path, *cause = NULL;
	int	 rc;

	path = cfg->audit_file != NULL ? xstrdup(cfg->audit_file) :
	    audit_default_path(cmd_home());
	*out = NULL;
	if (path == NULL)
		return 0;
	if ((rc = audit_open(path, out, &cause)) != 0) {
		rc = cmd_fail("audit log: %s", cause);
		free(cause);
	}
	free(path);
	return rc;
}

/* A private socket for a stdio server (allocated; *dir to remove). */
static char *
serve_private_socket(char **dir)
{
	const char	*xdg = getenv("XDG_RUNTIME_DIR");
	char		*tmpl;

	tmpl = xasprintf("%s/clawssh-serve.XXXXXX", xdg != NULL &&
	    xdg[0] == '/' ? xdg : "/tmp");
	if (mkdtemp(tmpl) == NULL) {
		cmd_fail("%s: %s", tmpl, strerror(errno));
		free(tmpl);
		return NULL;
	}
	*dir = tmpl;
	return xasprintf("%s/control.sock", tmpl);
}

/*
 * Point stdin/stdout at /dev/null and stderr at the log (or null); 0,
 * or errno's code.
 */
static int
serve_stdio(const char *log)
{
	int	null, err;

	if ((null = open("/dev/null", O_RDWR)) == -1)
		return claw_err_from_errno(errno);
	err = log != NULL ? open(log, O_WRONLY | O_CREAT | O_APPEND |
	    O_CLOEXEC, 0600) : dup(null);
	if (err == -1)
		return claw_err_from_errno(errno);
	if (dup2(null, 0) == -1 || dup2(null, 1) == -1 ||
	    dup2(err, 2) == -1)
		return claw_err_from_errno(errno);
	close(null);
	close(err);
	return 0;
}

/*
 * Detach: the parent waits for the child's "listening" byte and exits 0,
 * or 255 if the child could not start.  The child runs in a new session.
 * Returns -1 in the child (with *ready_fd set), else the parent's status.
 */
static int
serve_detach(const char *log, int *ready_fd)
{
	struct pollfd	pfd;
	char		c;
	int		p[2];
	pid_t		pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return cmd_fail("pipe: %s", strerror(errno));
	if ((pid = fork()) == -1)
		return cmd_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		if (setsid() == -1 || serve_stdio(log) != 0 ||
		    dup2(p[1], 3) == -1)
			_exit(CMD_EXIT_FAILURE);
		(void)close_range(4, ~0U, 0);	/* the caller's pipes */
		*ready_fd = 3;
		return -1;
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, SERVE_READY_MS) == 1 && read(p[0], &c, 1) == 1) {
		close(p[0]);
		return 0;
	}
	close(p[0]);
	return cmd_fail("the daemon did not start (see --log FILE)");
}

/*
 * The argv of the stdio MCP server behind --listen (a NULL-ended array
 * of static and allocated strings: free with serve_http_argv_free).
 */
static char **
serve_http_argv(const struct serve_args *a, const char *id)
{
	char	**v = xcalloc(20, sizeof *v);
	size_t	  n = 0;
	int	  i;

	v[n++] = xstrdup("clawssh");
	v[n++] = xstrdup("serve");
	v[n++] = xstrdup("--mcp");
	v[n++] = xasprintf("--sandbox=%s", id);
	if (a->agent != NULL)
		v[n++] = xasprintf("--agent=%s", a->agent);
	if (a->max_result != 0)
		v[n++] = xasprintf("--max-result=%d", a->max_result);
	if (a->config != NULL)
		v[n++] = xasprintf("--config=%s", a->config);
	for (i = 0; i < a->verbose && i < 3; i++)
		v[n++] = xstrdup("-v");
	v[n] = NULL;
	return v;
}

/* Free what serve_http_argv made. */
static void
serve_http_argv_free(char **v)
{
	size_t	i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/*
 * The token file when none was given: "token" in a new private
 * directory (allocated; *dir to remove at the end), or NULL.
 */
static char *
serve_http_token_path(char **dir)
{
	const char	*xdg = getenv("XDG_RUNTIME_DIR");
	char		*tmpl;

	tmpl = xasprintf("%s/clawssh-mcp.XXXXXX", xdg != NULL &&
	    xdg[0] == '/' ? xdg : "/tmp");
	if (mkdtemp(tmpl) == NULL) {
		cmd_fail("%s: %s", tmpl, strerror(errno));
		free(tmpl);
		return NULL;
	}
	*dir = tmpl;
	return xasprintf("%s/token", tmpl);
}

/* Serve MCP over Streamable HTTP for sandbox id; the exit status. */
static int
serve_http(const struct serve_args *a, const struct claw_config *cfg,
    const char *id)
{
	struct mcp_http_opts	 o;
	char			*dir = NULL, *path, *token = NULL;
	char			*cause = NULL;
	size_t			 mr;
	int			 rc = CMD_EXIT_FAILURE;

	path = a->token_file != NULL ? xstrdup(a->token_file) :
	    serve_http_token_path(&dir);
	if (path == NULL)
		return CMD_EXIT_FAILURE;
	memset(&o, 0, sizeof o);
	mr = (size_t)(a->max_result != 0 ? a->max_result :
	    cfg->mcp_max_result != 0 ? cfg->mcp_max_result :
	    MCP_MAX_RESULT_DEFAULT);
	o.listen = a->listen;
	o.token_file = path;
	o.max_body = (size_t)a->max_body;
	o.max_line = mr + 65536 > JSONRPC_LINE_MAX ? mr + 65536 : 0;
	o.child_argv = serve_http_argv(a, id);
	if (a->log != NULL && (freopen(a->log, "a", stderr) == NULL ||
	    setvbuf(stderr, NULL, _IOLBF, 0) != 0))
		cmd_fail("%s: %s", a->log, strerror(errno));
	else if (mcp_http_token(path, &token, &cause) != 0)
		cmd_fail("%s", cause);
	else {
		o.token = token;
		if (mcp_http_run(&o, &cause) != 0)
			cmd_fail("%s", cause);
		else
			rc = 0;
	}
	free(cause);
	if (token != NULL)
		explicit_bzero(token, strlen(token));
	free(token);
	serve_http_argv_free((char **)(uintptr_t)o.child_argv);
	if (dir != NULL) {
		(void)unlink(path);
		(void)rmdir(dir);
	}
	free(dir);
	free(path);
	return rc;
}

/*
 * Run the daemon a asks for on path, for sandbox (MCP's, or NULL),
 * detached if asked; the exit status.
 */
static int
serve_run(const struct serve_args *a, struct claw_config *cfg,
    const char *sandbox, const char *path, struct audit *audit)
{
	struct daemon_opts	 o;
	char			*cause = NULL;
	int			 rc;

	memset(&o, 0, sizeof o);
	o.policy = cfg->policy;
	o.audit = audit;
	o.max_line = cfg->daemon_max_line;
	o.max_workers = cfg->daemon_max_workers;
	o.stdio = a->stdio;
	o.agent = a->agent;
	o.sandbox = sandbox;
	o.mcp_max_result = (size_t)(a->max_result != 0 ? a->max_result :
	    cfg->mcp_max_result);
	o.socket_path = path;
	o.idle_timeout = a->idle >= 0 ? a->idle :
	    cfg->daemon_idle_timeout >= 0 ? cfg->daemon_idle_timeout :
	    DAEMON_IDLE_DEFAULT;
	o.max_sessions = cfg->daemon_max_sessions;
	o.max_conns = cfg->daemon_max_conns;
	o.ready_fd = -1;
	if (a->detach && (rc = serve_detach(a->log, &o.ready_fd)) != -1)
		return rc;		/* the parent's */
	if (!a->detach && a->log != NULL && (freopen(a->log, "a",
	    stderr) == NULL || setvbuf(stderr, NULL, _IOLBF, 0) != 0))
		return cmd_fail("%s: %s", a->log, strerror(errno));
	if (daemon_run(&o, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	return 0;
}

/* The serve command; see clawssh(1). */
int
cmd_serve(int argc, char **argv)
{
	struct serve_args	 a;
	struct claw_config	*cfg = NULL;
	struct audit		*audit = NULL;
	char			*path, *cause = NULL, *dir = NULL;
	char			*bound = NULL;
	int			 rc;

	if ((rc = serve_parse(argc, argv, &a)) != 0)
		return rc < 0 ? 0 : rc;
	if (config_load(a.config, cmd_home(), &cfg, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	log_set_level(a.verbose > cfg->verbose ? a.verbose : cfg->verbose);
	if (a.stop || a.status) {
		path = mux_socket_path(a.socket != NULL ? a.socket :
		    cfg->daemon_socket);
		rc = a.stop ? serve_ctl_stop(path) : serve_ctl_status(path,
		    a.json);
		free(path);
		config_free(cfg);
		return rc;
	}
	if (a.stdio == DAEMON_STDIO_MCP && a.sandbox != NULL &&
	    (rc = serve_check_sandbox(a.sandbox)) != 0) {
		config_free(cfg);
		return rc;
	}
	if (a.stdio == DAEMON_STDIO_MCP && a.sandbox == NULL &&
	    (bound = serve_provision(&a)) == NULL) {
		config_free(cfg);
		return CMD_EXIT_FAILURE;
	}
	if (a.listen != NULL) {
		rc = serve_http(&a, cfg, bound != NULL ? bound : a.sandbox);
		free(bound);
		config_free(cfg);
		return rc;
	}
	if (a.stdio != DAEMON_STDIO_NONE && a.socket == NULL)
		path = serve_private_socket(&dir);
	else
		path = mux_socket_path(a.socket != NULL ? a.socket :
		    cfg->daemon_socket);
	if (path == NULL || serve_audit(cfg, &audit) != 0) {
		free(path);
		free(bound);
		config_free(cfg);
		return CMD_EXIT_FAILURE;
	}
	rc = serve_run(&a, cfg, bound != NULL ? bound : a.sandbox, path,
	    audit);
	if (dir != NULL)
		(void)rmdir(dir);
	free(dir);
	free(path);
	free(bound);
	audit_free(audit);
	config_free(cfg);
	return rc;
}

/*
 * The log of a started daemon: daemon.log beside its socket (allocated),
 * or NULL (no log) unless that directory is ours and private: a log
 * opened in a directory someone else controls could be a link to any of
 * the user's files.  (The daemon itself then refuses the directory.)
 */
static char *
serve_spawn_log(const char *path)
{
	const char	*slash = strrchr(path, '/');
	struct stat	 st;
	char		*dir;
	int		 ok;

	if (slash == NULL || slash == path)
		return NULL;
	dir = xstrndup(path, (size_t)(slash - path));
	ok = (mkdir(dir, 0700) == 0 || errno == EEXIST) &&
	    lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) &&
	    st.st_uid == getuid() && (st.st_mode & 077) == 0;
	free(dir);
	if (!ok)
		return NULL;
	return xasprintf("%.*s/daemon.log", (int)(slash - path), path);
}

/* Read what the starting daemon said (its first line, bounded). */
static void
serve_spawn_why(int fd, char *why, size_t len)
{
	size_t	got = 0;
	ssize_t	r;
	char	*s;

	while (got < len - 1 && (r = read(fd, why + got, len - 1 - got)) != 0) {
		if (r > 0)
			got += (size_t)r;
		else if (errno != EINTR)
			break;
	}
	why[got] = '\0';
	why[strcspn(why, "\n")] = '\0';
	if (strncmp(why, "clawssh: ", 9) == 0)
		memmove(why, why + 9, strlen(why + 9) + 1);
	for (s = why; *s != '\0'; s++) {
		if ((unsigned char)*s < ' ')
			*s = '?';
	}
}

/* Start a detached daemon; see cmd.h. */
int
cmd_serve_spawn(const char *path, const char *config, char **cause)
{
	const char	*argv[10];
	char		*log = serve_spawn_log(path), why[256];
	size_t		 n = 0;
	pid_t		 pid;
	int		 status, p[2];

	log_info("starting the clawssh daemon on %s (log %s)", path,
	    log != NULL ? log : "none");
	argv[n++] = "clawssh";
	argv[n++] = "serve";
	argv[n++] = "--detach";
	argv[n++] = "--socket";
	argv[n++] = path;
	if (config != NULL) {
		argv[n++] = "--config";
		argv[n++] = config;
	}
	if (log != NULL) {
		argv[n++] = "--log";
		argv[n++] = log;
	}
	argv[n] = NULL;
	if (pipe2(p, O_CLOEXEC) == -1 || (pid = fork()) == -1) {
		free(log);
		return claw_fail_errno(cause, "fork", "fork");
	}
	if (pid == 0) {		/* its complaint goes in the -v note */
		if (dup2(p[1], 2) == -1)
			_exit(127);
		execv("/proc/self/exe", (char *const *)(uintptr_t)argv);
		_exit(127);
	}
	close(p[1]);
	free(log);
	serve_spawn_why(p[0], why, sizeof why);
	close(p[0]);
	while (waitpid(pid, &status, 0) == -1) {
		if (errno != EINTR)
			return claw_fail_errno(cause, "waitpid", "wait");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return claw_fail(cause, CLAW_ERR_CONNECT,
		    "could not start the clawssh daemon on %s%s%s", path,
		    why[0] != '\0' ? ": " : "", why);
	return 0;
}
