/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The operations and their arguments (see ops.h).  Adding a parameter
 * here offers it in JSON-RPC's checks, MCP's schema and the reference
 * of docs/protocol.md at once; the builder in src/gateway/rpc_methods.c
 * says what it becomes on the CLI.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "contain.h"
#include "ops.h"
#include "process.h"
#include "pty.h"
#include "sandbox.h"

static const char *const ops_encoding_v[] = { "utf-8", "base64" };
static const struct names ops_encoding_names = NAMES_OF(ops_encoding_v);
static const char *const ops_stream_v[] = { "stdout", "stderr" };
static const struct names ops_stream_names = NAMES_OF(ops_stream_v);

#define LIMIT_MAX	INT64_C(9007199254740992)	/* CONTAIN_LIMIT_MAX */
#define END		{ .name = NULL }

/* Shapes that several operations share. */
#define A_SANDBOX_OPT \
	{ .name = "sandbox", .type = OP_ID, .flags = OPA_REQUIRED | OPA_RPC, \
	  .opt = "sandbox", .sopt = 's', .metavar = "ID", \
	  .doc = "the sandbox's id, as provision returned it" }
#define A_SANDBOX_OPERAND \
	{ .name = "sandbox", .type = OP_ID, \
	  .flags = OPA_REQUIRED | OPA_RPC | OPA_OPERAND, .metavar = "ID", \
	  .doc = "the sandbox's id, as provision returned it" }
#define A_TIMEOUT(f, d) \
	{ .name = "timeout", .type = OP_INT, .flags = (f), \
	  .hi = OPS_TIMEOUT_MAX, .opt = "timeout", .metavar = "SECONDS", \
	  .doc = (d) }
#define A_PATH(f, d) \
	{ .name = "path", .type = OP_PATH, .flags = (f) | OPA_OPERAND, \
	  .hi = OPS_PATH_MAX, .metavar = "PATH", .doc = (d) }
#define A_PUSH \
	{ .name = "push", .type = OP_BOOL, .flags = OPA_RPC, .opt = "push", \
	  .doc = "mirror mode: send the change to the sandbox now, not with " \
	  "the next sync" }
#define A_FS_TIMEOUT \
	A_TIMEOUT(OPA_RPC, "give up on (and kill) a step on the host after " \
	    "SECONDS (default 60; 0: never)")
#define A_JSON(d) \
	{ .name = "json", .type = OP_BOOL, .flags = OPA_CLI, .opt = "json", \
	  .doc = (d) }
#define A_HANDLE \
	{ .name = "handle", .type = OP_HANDLE, \
	  .flags = OPA_REQUIRED | OPA_OPERAND, .hi = 16, .metavar = "HANDLE", \
	  .doc = "the handle process_start returned" }
#define A_ENV \
	{ .name = "env", .type = OP_ENV, .hi = OPS_ENV_MAX, .opt = "env", \
	  .metavar = "NAME[=VALUE]", .doc = "environment variables " \
	  "(JSON-RPC: {\"NAME\": \"value\"} or [\"NAME=value\"]; the " \
	  "CLI's --env NAME passes its own value); the values never reach " \
	  "an argument list" }
#define A_ARGV \
	{ .name = "argv", .type = OP_ARGV, .flags = OPA_REQ_RPC | OPA_OPERAND, \
	  .metavar = "-- CMD [ARG...]", .doc = "the program and its " \
	  "arguments, run without a shell (MCP: give this or command)" }
#define A_COMMAND \
	{ .name = "command", .type = OP_STR, \
	  .flags = OPA_MCP | OPA_NONEMPTY | OPA_TEXT, \
	  .doc = "a shell command line, run with sh -c (give this or argv)" }
#define A_ENCODING(d) \
	{ .name = "encoding", .type = OP_ENUM, .flags = OPA_MCP, \
	  .names = &ops_encoding_names, .doc = (d) }
#define A_HOST(f, d) \
	{ .name = "host", .type = OP_STR, \
	  .flags = (f) | OPA_NONEMPTY | OPA_NODASH | OPA_WORD, \
	  .hi = OPS_WORD_MAX, .opt = "host", .metavar = "TARGET", .doc = (d) }
#define A_REMOTE_ROOT \
	{ .name = "remote_root", .type = OP_PATH, .flags = OPA_NODASH, \
	  .hi = OPS_PATH_MAX, .opt = "remote-root", .metavar = "DIR", \
	  .doc = "the host directory that holds the sandboxes (default: " \
	  "the config's sandbox.remoteRoot, else " SANDBOX_DEFAULT_ROOT ")" }
#define A_STRICT \
	{ .name = "strict_config", .type = OP_BOOL, .flags = OPA_RPC, \
	  .opt = "strict-config", .doc = "refuse a sandbox made with other " \
	  "settings than the config's now" }
#define A_PATHS \
	{ .name = "paths", .type = OP_PATHS, .flags = OPA_OPERAND, \
	  .hi = OPS_PATHS_MAX, .metavar = "PATH...", \
	  .doc = "only these paths (default: everything)" }
#define A_INT(n, f, l, h, o, m, d) \
	{ .name = (n), .type = OP_INT, .flags = (f), .lo = (l), .hi = (h), \
	  .opt = (o), .metavar = (m), .doc = (d) }
#define A_BOOL(n, f, o, d) \
	{ .name = (n), .type = OP_BOOL, .flags = (f), .opt = (o), .doc = (d) }
#define A_ENUM(n, t, o, m, d) \
	{ .name = (n), .type = OP_ENUM, .flags = OPA_RPC, .names = (t), \
	  .opt = (o), .metavar = (m), .doc = (d) }

/* The connection parameters: the CLI's options for reaching a host. */
const struct op_arg ops_conn_args[] = {
	{ .name = "config", .type = OP_PATH, .flags = OPA_RPC | OPA_NODASH,
	  .hi = OPS_PATH_MAX, .opt = "config", .metavar = "FILE",
	  .doc = "the clawssh config file" },
	{ .name = "ssh_config", .type = OP_PATH,
	  .flags = OPA_RPC | OPA_NODASH, .hi = OPS_PATH_MAX, .sopt = 'F',
	  .metavar = "FILE", .doc = "the OpenSSH client config file" },
	{ .name = "state_dir", .type = OP_PATH, .flags = OPA_RPC | OPA_NODASH,
	  .hi = OPS_PATH_MAX, .opt = "state-dir", .metavar = "DIR",
	  .doc = "clawssh's local state" },
	{ .name = "passphrase_file", .type = OP_PATH,
	  .flags = OPA_RPC | OPA_NODASH, .hi = OPS_PATH_MAX,
	  .opt = "passphrase-file", .metavar = "FILE",
	  .doc = "the passphrase of an encrypted identity" },
	{ .name = "user", .type = OP_STR,
	  .flags = OPA_RPC | OPA_NONEMPTY | OPA_NODASH | OPA_WORD,
	  .hi = OPS_WORD_MAX, .sopt = 'l', .metavar = "USER",
	  .doc = "the remote user" },
	{ .name = "port", .type = OP_INT, .flags = OPA_RPC, .lo = 1,
	  .hi = 65535, .sopt = 'p', .metavar = "PORT",
	  .doc = "the SSH port" },
	{ .name = "ssh_options", .type = OP_OPTIONS, .flags = OPA_RPC,
	  .hi = OPS_OPTIONS_MAX, .sopt = 'o', .metavar = "KEY=VALUE",
	  .doc = "ssh_config options, \"Key=Value\" strings" },
	END
};

static const struct op_arg exec_args[] = {
	{ .name = "sandbox", .type = OP_ID, .flags = OPA_RPC,
	  .opt = "sandbox", .sopt = 's', .metavar = "ID",
	  .doc = "the sandbox's id (give sandbox or host)" },
	A_HOST(OPA_RPC, "run on this host, outside any sandbox (give "
	    "sandbox or host)"),
	{ .name = "target", .type = OP_STR,
	  .flags = OPA_CLI | OPA_OPERAND, .metavar = "TARGET",
	  .doc = "[user@]host[:port] or a Host alias of the ssh config (as "
	  "--host)" },
	A_COMMAND,
	A_ARGV,
	{ .name = "cwd", .type = OP_PATH, .hi = OPS_PATH_MAX, .opt = "cwd",
	  .metavar = "DIR", .doc = "working directory (relative to the "
	  "sandbox's workspace)" },
	A_ENV,
	A_TIMEOUT(0, "kill the command after SECONDS and exit 124; absent "
	    "(JSON-RPC: or 0): the config's exec.timeout (0, none, by "
	    "default); the CLI's --timeout 0: none"),
	{ .name = "stdin", .type = OP_DATA, .flags = OPA_TEXT | OPA_STDIN,
	  .doc = "standard input (JSON-RPC: or stdin_base64)" },
	A_BOOL("no_sync", OPA_RPC, "no-sync",
	    "mirror mode: no sync before and after (sandbox only)"),
	A_STRICT,
	A_BOOL("pty", 0, NULL, "run it on a pseudo-terminal; stdout and "
	    "stderr become one stream (the CLI: -t, -tt)"),
	A_INT("cols", 0, 1, PTY_SIZE_MAX, NULL, NULL,
	    "with pty: columns, 80 (the CLI: --size COLSxROWS)"),
	A_INT("rows", 0, 1, PTY_SIZE_MAX, NULL, NULL,
	    "with pty: rows, 24 (the CLI: --size COLSxROWS)"),
	{ .name = "interactive", .type = OP_BOOL, .flags = OPA_CLI,
	  .sopt = 'i', .doc = "forward stdin even when it is a terminal" },
	{ .name = "tty", .type = OP_BOOL, .flags = OPA_CLI, .sopt = 't',
	  .doc = "a pseudo-terminal when stdin is a terminal (raw here; "
	  "output one stream); -tt: even when it is not" },
	{ .name = "no_tty", .type = OP_BOOL, .flags = OPA_CLI, .sopt = 'T',
	  .doc = "no pseudo-terminal" },
	{ .name = "size", .type = OP_STR, .flags = OPA_CLI | OPA_NONEMPTY,
	  .hi = 16, .opt = "size", .metavar = "COLSxROWS",
	  .doc = "the pseudo-terminal's size when there is no terminal here "
	  "to take it from" },
	A_BOOL("allow_mass_delete", OPA_CLI, "allow-mass-delete",
	    "mirror mode: take the sandbox's deletion of most files here "
	    "(the guard halts it)"),
	A_BOOL("background", OPA_CLI, "background", "with -s: start it as a "
	    "background process and print its handle (see clawssh process)"),
	A_INT("yield_ms", OPA_CLI, 0, INT32_MAX, "yield-ms", "N",
	    "with -s: wait up to N ms; if it is still running, say which "
	    "process handle to poll"),
	A_JSON("with --background or --yield-ms: one JSON object"),
	A_BOOL("sync_json", OPA_CLI, "sync-json", "mirror mode: end with "
	    "one JSON line on stderr saying what the sync moved"),
	A_BOOL("route_json", OPA_CLI | OPA_HIDDEN, "route-json",
	    "a daemon worker's: print the sandbox's route as JSON"),
	END
};

/*
 * The settings a sandbox is made with, provision's and recreate's (f:
 * OPA_RPC for provision, JSON-RPC and the CLI; OPA_CLI for recreate).
 */
#define A_SETTINGS(f) \
	{ .name = "access", .type = OP_ENUM, .flags = (f), \
	  .names = &sandbox_access_names, .opt = "access", .metavar = "MODE", \
	  .doc = "the command's access to the workspace" }, \
	{ .name = "mode", .type = OP_ENUM, .flags = (f), \
	  .names = &sandbox_mode_names, .opt = "mode", .metavar = "MODE", \
	  .doc = "which copy of the workspace is canonical" }, \
	{ .name = "from", .type = OP_STR, \
	  .flags = (f) | OPA_NONEMPTY | OPA_NODASH | OPA_WORD, .hi = 128, \
	  .opt = "from", .metavar = "IMAGE", .doc = "bwrap: an image " \
	  "imported with 'clawssh image import' (default host); docker and " \
	  "podman: an image reference the engine has" }, \
	{ .name = "runtime", .type = OP_ENUM, .flags = (f), \
	  .names = &contain_runtime_names, .opt = "runtime", \
	  .metavar = "RUNTIME", .doc = "the containment" }, \
	{ .name = "network", .type = OP_ENUM, .flags = (f), \
	  .names = &contain_network_names, .opt = "network", .metavar = "NET", \
	  .doc = "the sandbox's network" }, \
	{ .name = "workdir", .type = OP_ENUM, .flags = (f), \
	  .names = &sandbox_workdir_names, .opt = "workdir", \
	  .metavar = "WHERE", .doc = "local: the workspace also at its " \
	  "local path inside, where commands start (default /workspace)" }, \
	{ .name = "memory", .type = OP_SIZE, .flags = (f), .hi = LIMIT_MAX, \
	  .opt = "memory", .metavar = "SIZE", \
	  .doc = "memory limit: bytes, or a size such as 512M" }, \
	{ .name = "processes", .type = OP_INT, .flags = (f), .hi = LIMIT_MAX, \
	  .opt = "processes", .metavar = "N", .doc = "process limit" }, \
	{ .name = "cpu_seconds", .type = OP_INT, .flags = (f), \
	  .hi = LIMIT_MAX, .opt = "cpu-seconds", .metavar = "N", \
	  .doc = "CPU time limit of a command" }, \
	{ .name = "file_size", .type = OP_SIZE, .flags = (f), \
	  .hi = LIMIT_MAX, .opt = "file-size", .metavar = "SIZE", \
	  .doc = "largest file a command may write" }, \
	{ .name = "open_files", .type = OP_INT, .flags = (f), \
	  .hi = LIMIT_MAX, .opt = "open-files", .metavar = "N", \
	  .doc = "open files limit" }, \
	{ .name = "cpus", .type = OP_CPUS, .flags = (f), \
	  .opt = "cpus", .metavar = "N", .doc = "CPUs the sandbox's " \
	  "processes may use together: 2, 1.5 or \"500m\" (0: no limit)" }, \
	{ .name = "gpu", .type = OP_GPU, .flags = (f), .lo = 1, \
	  .hi = SANDBOX_GPUS_MAX, .opt = "gpu", .metavar = "N|all", \
	  .doc = "GPUs: a count or all" }, \
	{ .name = "user", .type = OP_STR, \
	  .flags = OPA_CLI | OPA_NONEMPTY | OPA_NODASH | OPA_WORD, \
	  .hi = 256, .opt = "user", .metavar = "USER", .doc = "run commands " \
	  "as USER (nobody, NAME or UID:GID) when the host user is root " \
	  "(docker and podman: always)" }

static const struct op_arg provision_args[] = {
	A_HOST(OPA_REQUIRED | OPA_RPC, "the host (or provider target) to "
	    "make it on (the CLI: or the operand TARGET)"),
	A_ENUM("scope", &sandbox_scope_names, "scope", "SCOPE",
	    "whose sandbox it is"),
	{ .name = "key", .type = OP_STR, .flags = OPA_RPC | OPA_NONEMPTY,
	  .hi = SANDBOX_KEY_MAX, .opt = "key", .metavar = "KEY",
	  .doc = "the scope's key (session or agent id)" },
	{ .name = "workspace", .type = OP_PATH,
	  .flags = OPA_RPC | OPA_NODASH | OPA_ABSOLUTE, .hi = OPS_PATH_MAX,
	  .opt = "workspace", .metavar = "DIR",
	  .doc = "the local workspace (JSON-RPC: an absolute path)" },
	A_SETTINGS(OPA_RPC),
	A_REMOTE_ROOT,
	A_STRICT,
	A_JSON("print the sandbox's record as JSON, not its id"),
	{ .name = "provider", .type = OP_STR,
	  .flags = OPA_CLI | OPA_NONEMPTY | OPA_NODASH | OPA_WORD, .hi = 64,
	  .opt = "provider", .metavar = "NAME", .doc = "the provider "
	  "configured as providers.NAME makes the machine (--from, --gpu and "
	  "--policy go to it)" },
	{ .name = "policy", .type = OP_STR,
	  .flags = OPA_CLI | OPA_NONEMPTY | OPA_NODASH | OPA_WORD, .hi = 128,
	  .opt = "policy", .metavar = "POLICY",
	  .doc = "with --provider: the provider's policy" },
	END
};

static const struct op_arg recreate_args[] = {
	A_SANDBOX_OPERAND,
	A_SETTINGS(OPA_CLI),
	END
};

static const struct op_arg list_args[] = {
	A_JSON("one JSON array, an object a sandbox"),
	{ .name = "provider", .type = OP_STR,
	  .flags = OPA_CLI | OPA_NONEMPTY | OPA_NODASH | OPA_WORD, .hi = 64,
	  .opt = "provider", .metavar = "NAME",
	  .doc = "the sandboxes that provider has instead" },
	END
};

static const struct op_arg status_args[] = {
	A_SANDBOX_OPERAND, A_JSON("one JSON object"), END
};

static const struct op_arg destroy_args[] = {
	A_SANDBOX_OPERAND, A_JSON("one JSON object: {\"id\", \"existed\"}"),
	END
};

static const struct op_arg sshconfig_args[] = { A_SANDBOX_OPERAND, END };

static const struct op_arg stop_args[] = {
	A_SANDBOX_OPERAND, A_JSON("one JSON object: {\"id\", \"state\"}"),
	END
};

static const struct op_arg prune_args[] = {
	A_INT("idle_hours", OPA_RPC, 0, 87600, "idle-hours", "N",
	    "remove sandboxes unused for this many hours (default: the "
	    "config's prune.idleHours, else 24; 0: no limit)"),
	A_INT("max_age_days", OPA_RPC, 0, 36500, "max-age-days", "N",
	    "remove sandboxes older than this many days (default: the "
	    "config's prune.maxAgeDays, else 7; 0: no limit)"),
	A_BOOL("dry_run", OPA_RPC, "dry-run",
	    "say what would go, remove nothing"),
	A_JSON("one JSON array: {\"id\", \"reason\", \"pruned\"}"),
	END
};

static const struct op_arg sync_args[] = {
	A_SANDBOX_OPERAND, A_PATHS,
	A_JSON("one JSON object saying what moved"), END
};

static const struct op_arg sync_status_args[] = {
	A_SANDBOX_OPERAND, A_JSON("what would move, and the rules"), END
};

#define A_IMAGE_NAME \
	{ .name = "name", .type = OP_STR, \
	  .flags = OPA_REQUIRED | OPA_RPC | OPA_OPERAND | OPA_NONEMPTY | \
	  OPA_NODASH | OPA_WORD, .hi = 128, .metavar = "NAME", \
	  .doc = "the image's name (not host: that is the host's own root)" }

static const struct op_arg image_list_args[] = {
	A_HOST(OPA_REQUIRED | OPA_RPC, "the host whose images to list"),
	A_REMOTE_ROOT,
	A_JSON("one JSON array of {name, kib, imported}"),
	END
};

static const struct op_arg image_import_args[] = {
	A_HOST(OPA_REQUIRED | OPA_RPC, "the host to import it on"),
	A_IMAGE_NAME,
	{ .name = "tarball", .type = OP_PATH,
	  .flags = OPA_REQUIRED | OPA_RPC | OPA_OPERAND | OPA_NODASH,
	  .hi = OPS_PATH_MAX, .metavar = "TARBALL", .doc = "a root file "
	  "system as a local tar archive (plain, gzip, xz, bzip2 or zstd)" },
	A_REMOTE_ROOT,
	END
};

static const struct op_arg image_rm_args[] = {
	A_HOST(OPA_REQUIRED | OPA_RPC, "the host to remove it from"),
	A_IMAGE_NAME,
	A_BOOL("force", OPA_RPC, "force", "even if sandboxes use it"),
	A_REMOTE_ROOT,
	END
};

static const struct op_arg read_args[] = {
	A_SANDBOX_OPT,
	A_PATH(OPA_REQUIRED, "a path in the sandbox's workspace, relative "
	    "to it"),
	A_INT("offset", 0, 0, OPS_OFFSET_MAX, "offset", "N",
	    "where to start: bytes, or lines with lines"),
	A_INT("limit", 0, 0, OPS_OFFSET_MAX, "limit", "N",
	    "at most this much (0: to the end)"),
	A_BOOL("lines", 0, "lines", "offset and limit count lines, not "
	    "bytes"),
	A_ENCODING("base64: the content as base64 (the default for content "
	    "that is not UTF-8)"),
	A_FS_TIMEOUT,
	END
};

static const struct op_arg write_args[] = {
	A_SANDBOX_OPT,
	A_PATH(OPA_REQUIRED, "a path in the sandbox's workspace, relative "
	    "to it"),
	{ .name = "content", .type = OP_DATA,
	  .flags = OPA_REQUIRED | OPA_TEXT | OPA_STDIN,
	  .doc = "the new content (JSON-RPC: or content_base64)" },
	A_ENCODING("base64: content is base64 of the bytes (binary files)"),
	A_PUSH,
	A_FS_TIMEOUT,
	END
};

static const struct op_arg edit_args[] = {
	A_SANDBOX_OPT,
	A_PATH(OPA_REQUIRED, "a path in the sandbox's workspace, relative "
	    "to it"),
	{ .name = "old", .type = OP_STR,
	  .flags = OPA_REQUIRED | OPA_NONEMPTY | OPA_TEXT,
	  .hi = OPS_ARG_MAX - 6, .opt = "old", .metavar = "TEXT",
	  .doc = "the exact text to replace" },
	{ .name = "new", .type = OP_STR, .flags = OPA_REQUIRED | OPA_TEXT,
	  .hi = OPS_ARG_MAX - 6, .opt = "new", .metavar = "TEXT",
	  .doc = "its replacement" },
	A_BOOL("all", 0, "all", "replace every occurrence (else old must "
	    "occur once)"),
	A_JSON("say it as {\"path\", \"replacements\"}"),
	A_PUSH,
	A_FS_TIMEOUT,
	END
};

static const struct op_arg patch_args[] = {
	A_SANDBOX_OPT,
	{ .name = "patch", .type = OP_STR,
	  .flags = OPA_REQUIRED | OPA_NONEMPTY | OPA_TEXT | OPA_STDIN,
	  .doc = "a unified diff or a '*** Begin Patch' patch" },
	A_JSON("say what it did as an array of {\"op\", \"path\"}"),
	A_PUSH,
	A_FS_TIMEOUT,
	END
};

static const struct op_arg ls_args[] = {
	A_SANDBOX_OPT,
	A_PATH(0, "a directory of the workspace, relative to it (default: "
	    "its top)"),
	A_JSON("one JSON array of {name, type}"),
	A_FS_TIMEOUT,
	END
};

static const struct op_arg stat_args[] = {
	A_SANDBOX_OPT,
	A_PATH(OPA_REQUIRED, "a path in the sandbox's workspace, relative "
	    "to it"),
	A_JSON("one JSON object"),
	A_FS_TIMEOUT,
	END
};

static const struct op_arg pstart_args[] = {
	A_SANDBOX_OPT,
	A_COMMAND,
	A_ARGV,
	A_ENV,
	{ .name = "name", .type = OP_NAME, .hi = PROCESS_NAME_MAX,
	  .opt = "name", .metavar = "NAME", .doc = "a name for it",
	  .pattern = "^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$" },
	A_BOOL("pty", 0, "pty", "on a terminal of the sandbox's own "
	    "(bwrap): what process write sends is typed on it"),
	A_INT("log_max", OPA_RPC, PROCESS_LOG_MIN, PROCESS_LOG_LIMIT,
	    "log-max", "BYTES", "bytes of output kept"),
	A_JSON("print {\"handle\"}"),
	END
};

static const struct op_arg plog_args[] = {
	A_SANDBOX_OPT,
	A_HANDLE,
	A_INT("tail", 0, 1, 10000000, "tail", "N", "lines from the end"),
	A_JSON("one JSON object: state, exit status, output"),
	END
};

static const struct op_arg pwait_args[] = {
	A_SANDBOX_OPT,
	A_HANDLE,
	A_TIMEOUT(0, "seconds to wait; then state is still running"),
	A_JSON("one JSON object: state, exit status"),
	END
};

static const struct op_arg pwrite_args[] = {
	A_SANDBOX_OPT,
	A_HANDLE,
	{ .name = "data", .type = OP_DATA, .flags = OPA_TEXT | OPA_STDIN,
	  .doc = "bytes for its input (JSON-RPC: or data_base64); required "
	  "unless eof" },
	A_BOOL("eof", 0, "eof", "close its input after data"),
	END
};

static const struct op_arg pkill_args[] = {
	A_SANDBOX_OPT,
	A_HANDLE,
	{ .name = "signal", .type = OP_SIGNAL, .lo = 1, .hi = 64,
	  .opt = "signal", .metavar = "SIG",
	  .doc = "TERM (the default), KILL, INT, HUP, ... or a number" },
	END
};

static const struct op_arg ppoll_args[] = {
	A_SANDBOX_OPT, A_HANDLE,
	A_JSON("one JSON object: state, exit status, new output"), END
};

static const struct op_arg plist_args[] = {
	A_SANDBOX_OPT, A_JSON("one JSON array of processes"), END
};

static const struct op_arg shell_args[] = {
	A_SANDBOX_OPERAND,
	{ .name = "cwd", .type = OP_PATH, .hi = OPS_PATH_MAX, .opt = "cwd",
	  .metavar = "DIR",
	  .doc = "start there (relative to the sandbox's workspace)" },
	A_ENV,
	{ .name = "size", .type = OP_STR, .flags = OPA_CLI | OPA_NONEMPTY,
	  .hi = 16, .opt = "size", .metavar = "COLSxROWS",
	  .doc = "the terminal's size when there is no terminal here to take "
	  "it from" },
	A_BOOL("no_sync", 0, "no-sync",
	    "mirror mode: no sync before and after"),
	A_STRICT,
	A_BOOL("route_json", OPA_CLI | OPA_HIDDEN, "route-json",
	    "a daemon worker's: print the sandbox's route as JSON"),
	END
};

static const struct op_arg read_output_args[] = {
	{ .name = "sandbox", .type = OP_ID, .flags = OPA_RPC,
	  .doc = "the server's sandbox (added by the server)" },
	{ .name = "id", .type = OP_OUTPUT_ID, .flags = OPA_REQUIRED,
	  .doc = "the outputId of the exec's result" },
	{ .name = "stream", .type = OP_ENUM, .names = &ops_stream_names,
	  .doc = "which stream (stdout)" },
	{ .name = "offset", .type = OP_INT, .hi = OPS_OFFSET_MAX,
	  .doc = "bytes to skip" },
	{ .name = "limit", .type = OP_INT, .lo = 1, .hi = OPS_OFFSET_MAX,
	  .doc = "bytes (at most half of the result cap)" },
	{ .name = "encoding", .type = OP_ENUM, .names = &ops_encoding_names,
	  .doc = "base64: the range as base64" },
	END
};

/* MCP result schemas. */
#define OUT_TEXT \
	"{\"type\":\"object\",\"properties\":{\"message\":{\"type\":" \
	"\"string\"}},\"required\":[\"message\"]}"
#define OUT_PROC \
	"{\"type\":\"object\",\"properties\":{\"handle\":{\"type\":" \
	"\"string\"},\"state\":{\"type\":\"string\"},\"exit_status\":" \
	"{\"type\":[\"integer\",\"null\"]},\"output\":{\"type\":" \
	"\"string\"}},\"required\":[\"state\"]}"
#define OUT_SYNC \
	"{\"type\":\"object\",\"properties\":{\"direction\":{\"type\":" \
	"\"string\"},\"files\":{\"type\":\"integer\"},\"bytes\":" \
	"{\"type\":\"integer\"}},\"required\":[\"direction\"]}"
#define OUT_CONTENT \
	"{\"type\":\"object\",\"properties\":{\"content\":{\"type\":" \
	"\"string\"},\"encoding\":{\"type\":\"string\",\"enum\":" \
	"[\"utf-8\",\"base64\"]},\"bytes\":{\"type\":\"integer\"}," \
	"\"truncated\":{\"type\":\"boolean\"}"
#define OUT_EXEC \
	"{\"type\":\"object\",\"properties\":{" \
	"\"exitCode\":{\"type\":[\"integer\",\"null\"]}," \
	"\"signal\":{\"type\":[\"string\",\"null\"]}," \
	"\"stdout\":{\"type\":\"string\"}," \
	"\"stderr\":{\"type\":\"string\"}," \
	"\"truncated\":{\"type\":\"boolean\"}," \
	"\"stdoutBytes\":{\"type\":\"integer\"}," \
	"\"stderrBytes\":{\"type\":\"integer\"}," \
	"\"durationMs\":{\"type\":\"integer\"}," \
	"\"outputId\":{\"type\":\"string\"}}," \
	"\"required\":[\"exitCode\",\"signal\",\"stdout\",\"stderr\"," \
	"\"truncated\"]}"

const struct op_entry ops_table[] = {
	{ "exec", "exec", "exec",
	  "Run a command in the sandbox's workspace and return its output "
	  "and exit status.", exec_args, 1, OPH_DE, OUT_EXEC, NULL, NULL, 0 },
	{ "sandbox.provision", NULL, "provision",
	  "Get or create the sandbox of a scope and key on a host.",
	  provision_args, 1, OPH_DE | OPH_ID, NULL, NULL, NULL, 0 },
	{ "sandbox.list", NULL, "list", "List the sandboxes of the registry.",
	  list_args, 1, OPH_RO | OPH_ID, NULL, NULL, NULL, 0 },
	{ "sandbox.status", NULL, "status",
	  "One sandbox's record, its environment and its processes.",
	  status_args, 1, OPH_RO | OPH_ID, NULL, NULL, NULL, 0 },
	{ "sandbox.destroy", NULL, "destroy",
	  "Remove a sandbox: its processes, mounts, cgroups and files.",
	  destroy_args, 1, OPH_DE | OPH_ID, NULL, NULL, NULL, 0 },
	{ "sandbox.recreate", NULL, "recreate",
	  "Make a sandbox again with the settings in force now.",
	  recreate_args, 1, OPH_DE, NULL, NULL, NULL, 0 },
	{ "sandbox.stop", NULL, "stop",
	  "End every process of a sandbox (its environment and its "
	  "background processes); the workspace stays, and the next command "
	  "starts it again.", stop_args, 1, OPH_DE | OPH_ID, NULL, NULL, NULL,
	  0 },
	{ "sandbox.start", NULL, "start",
	  "Start a sandbox's environment now rather than at its next "
	  "command.", stop_args, 1, OPH_ID, NULL, NULL, NULL, 0 },
	{ "sandbox.sshConfig", NULL, "ssh-config",
	  "OpenSSH client config stanzas for the sandbox: Host clawssh-ID "
	  "lands in a login shell inside it, clawssh-ID-host on its host "
	  "(its entry script is written there).", sshconfig_args, 1, OPH_ID,
	  NULL, NULL, NULL, 0 },
	{ "sandbox.prune", NULL, "prune",
	  "Remove idle or old sandboxes.", prune_args, 1, OPH_DE, NULL, NULL,
	  NULL, 0 },
	{ "fs.read", "read_file", "read",
	  "Read a file of the workspace, or a byte or line range of it.",
	  read_args, 1, OPH_RO | OPH_ID,
	  OUT_CONTENT "},\"required\":[\"content\",\"encoding\"]}", NULL,
	  NULL, 0 },
	{ "fs.write", "write_file", "write",
	  "Replace a file with new content, atomically, creating parent "
	  "directories.", write_args, 1, OPH_DE | OPH_ID,
	  "{\"type\":\"object\",\"properties\":{\"bytes\":{\"type\":"
	  "\"integer\"},\"message\":{\"type\":\"string\"}},"
	  "\"required\":[\"bytes\"]}", NULL, NULL, 0 },
	{ "fs.edit", "edit_file", "edit",
	  "Replace exact text in a file: old must occur once, or set all.",
	  edit_args, 1, OPH_DE, OUT_TEXT, NULL, NULL, 0 },
	{ "fs.applyPatch", "apply_patch", "apply-patch",
	  "Apply a unified diff or a '*** Begin Patch' patch to the "
	  "workspace: every file applies or nothing is written.",
	  patch_args, 1, OPH_DE, OUT_TEXT, NULL, NULL, 0 },
	{ "fs.ls", "list_dir", "ls",
	  "List a directory of the workspace (default: its top).",
	  ls_args, 1, OPH_RO | OPH_ID,
	  "{\"type\":\"object\",\"properties\":{\"entries\":{\"type\":"
	  "\"array\",\"items\":{\"type\":\"object\",\"properties\":"
	  "{\"name\":{\"type\":\"string\"},\"type\":{\"type\":"
	  "\"string\"}},\"required\":[\"name\",\"type\"]}}},"
	  "\"required\":[\"entries\"]}", NULL, NULL, 0 },
	{ "fs.stat", "stat", "stat",
	  "Show one file's type, mode, size and modification time.",
	  stat_args, 1, OPH_RO | OPH_ID,
	  "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":"
	  "\"string\"},\"type\":{\"type\":\"string\"},\"size\":"
	  "{\"type\":\"integer\"}},\"required\":[\"name\",\"type\"]}", NULL,
	  NULL, 0 },
	{ "process.start", "process_start", "process start",
	  "Start a background process in the sandbox; returns its handle.",
	  pstart_args, 1, OPH_DE,
	  "{\"type\":\"object\",\"properties\":{\"handle\":{\"type\":"
	  "\"string\"}},\"required\":[\"handle\"]}", NULL, NULL, 0 },
	{ "process.poll", "process_poll", "process poll",
	  "A background process's state and the output since the last "
	  "poll.", ppoll_args, 1, OPH_RO, OUT_PROC, NULL, NULL, 0 },
	{ "process.log", "process_log", "process log",
	  "The end of a background process's output.", plog_args, 1,
	  OPH_RO | OPH_ID, OUT_PROC, NULL, NULL, 0 },
	{ "process.wait", "process_wait", "process wait",
	  "Wait until a background process exits (or timeout seconds pass: "
	  "state still running); its state and exit status.", pwait_args, 1,
	  OPH_RO | OPH_ID, OUT_PROC, NULL, NULL, 0 },
	{ "process.write", "process_write", "process write",
	  "Write to a background process's standard input.", pwrite_args, 1,
	  OPH_DE, OUT_TEXT,
	  "\"anyOf\":[{\"required\":[\"data\"]},{\"required\":[\"eof\"],"
	  "\"properties\":{\"eof\":{\"const\":true}}}]", NULL, 0 },
	{ "process.kill", "process_kill", "process kill",
	  "Send a signal (default TERM) to a background process.",
	  pkill_args, 1, OPH_DE | OPH_ID, OUT_TEXT, NULL, NULL, 0 },
	{ "process.list", "process_list", "process list",
	  "List the sandbox's background processes.", plist_args, 1,
	  OPH_RO | OPH_ID,
	  "{\"type\":\"object\",\"properties\":{\"processes\":{\"type\":"
	  "\"array\",\"items\":{\"type\":\"object\"}}},"
	  "\"required\":[\"processes\"]}", NULL, NULL, 0 },
	{ "sync.push", "sync_push", "sync push",
	  "Send local workspace changes to the sandbox now.", sync_args, 1,
	  OPH_DE | OPH_ID, OUT_SYNC, NULL, NULL, 0 },
	{ "sync.pull", "sync_pull", "sync pull",
	  "Fetch the sandbox's workspace changes into the local workspace "
	  "now.", sync_args, 1, OPH_DE | OPH_ID, OUT_SYNC, NULL, NULL, 0 },
	{ "sync.status", NULL, "sync status",
	  "What a sync would move, each way.", sync_status_args, 1, OPH_RO | OPH_ID,
	  NULL, NULL, NULL, 0 },
	{ "image.list", NULL, "image list", "The images of a host.",
	  image_list_args, 1, OPH_RO | OPH_ID, NULL, NULL, NULL, 0 },
	{ "image.import", NULL, "image import", "Import a root file system "
	  "image on a host, for provision --from NAME.", image_import_args, 1,
	  OPH_DE, NULL, NULL, NULL, 0 },
	{ "image.rm", NULL, "image rm", "Remove an image from a host.",
	  image_rm_args, 1, OPH_DE | OPH_ID, NULL, NULL, NULL, 0 },
	{ "sandbox.shell", NULL, "shell",
	  "An interactive login shell in the sandbox's workspace, on a "
	  "pseudo-terminal (as exec -tt -s ID of a login shell).", shell_args,
	  1, 0, NULL, NULL, NULL, OP_ONLY_CLI },
	{ "mcp.readOutput", "read_output", NULL,
	  "Read the rest of an exec's output that was cut (truncated: true "
	  "and an outputId in its result), in ranges.", read_output_args, 0,
	  OPH_RO | OPH_ID,
	  OUT_CONTENT ",\"offset\":{\"type\":\"integer\"},"
	  "\"nextOffset\":{\"type\":\"integer\"},"
	  "\"total\":{\"type\":\"integer\"},"
	  "\"eof\":{\"type\":\"boolean\"}},"
	  "\"required\":[\"content\",\"encoding\",\"nextOffset\","
	  "\"eof\"]}", NULL, "exec", OP_ONLY_MCP },
};
const size_t ops_n = sizeof ops_table / sizeof ops_table[0];
