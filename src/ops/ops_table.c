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
#define END		{ NULL, OP_STR, 0, 0, 0, NULL, NULL, NULL, NULL }

/* Shapes that several operations share. */
#define A_SANDBOX(cli) \
	{ "sandbox", OP_ID, OPA_REQUIRED | OPA_RPC, 0, 0, NULL, cli, \
	  "the sandbox's id, as sandbox.provision returned it", NULL }
#define A_TIMEOUT(flags, doc) \
	{ "timeout", OP_INT, flags, 0, OPS_TIMEOUT_MAX, NULL, "--timeout", \
	  doc, NULL }
#define A_PATH(flags, doc) \
	{ "path", OP_PATH, flags, 0, OPS_PATH_MAX, NULL, "PATH", doc, NULL }
#define A_PUSH \
	{ "push", OP_BOOL, OPA_RPC, 0, 0, NULL, "--push", \
	  "mirror mode: send the change to the sandbox now, not with the " \
	  "next exec", NULL }
#define A_FS_TIMEOUT \
	A_TIMEOUT(OPA_RPC, "seconds for the remote step, 0: none")
#define A_HANDLE \
	{ "handle", OP_HANDLE, OPA_REQUIRED, 0, 16, NULL, "HANDLE", \
	  "the handle process_start returned", NULL }
#define A_ENV \
	{ "env", OP_ENV, 0, 0, OPS_ENV_MAX, NULL, "--env NAME", \
	  "environment variables: {\"NAME\": \"value\"} (JSON-RPC also " \
	  "[\"NAME=value\"]); the values never reach an argument list", NULL }
#define A_ARGV \
	{ "argv", OP_ARGV, OPA_REQ_RPC, 0, 0, NULL, "-- CMD [ARG...]", \
	  "the program and its arguments, run without a shell (MCP: give " \
	  "this or command)", NULL }
#define A_COMMAND \
	{ "command", OP_STR, OPA_MCP | OPA_NONEMPTY | OPA_TEXT, 0, 0, NULL, \
	  NULL, "a shell command line, run with sh -c (give this or argv)", \
	  NULL }
#define A_ENCODING(doc) \
	{ "encoding", OP_ENUM, OPA_MCP, 0, 0, &ops_encoding_names, NULL, \
	  doc, NULL }
#define A_HOST(flags, doc) \
	{ "host", OP_STR, (flags) | OPA_NONEMPTY | OPA_NODASH | OPA_WORD, \
	  0, OPS_WORD_MAX, NULL, "--host", doc, NULL }
#define A_REMOTE_ROOT \
	{ "remote_root", OP_PATH, OPA_NODASH, 0, OPS_PATH_MAX, NULL, \
	  "--remote-root", "the host directory that holds the sandboxes", \
	  NULL }
#define A_STRICT \
	{ "strict_config", OP_BOOL, OPA_RPC, 0, 0, NULL, "--strict-config", \
	  "refuse a sandbox made with other settings than the config's now", \
	  NULL }
#define A_PATHS \
	{ "paths", OP_PATHS, 0, 0, OPS_PATHS_MAX, NULL, "PATH...", \
	  "only these paths (default: everything)", NULL }

/* The connection parameters: the CLI's options for reaching a host. */
const struct op_arg ops_conn_args[] = {
	{ "config", OP_PATH, OPA_RPC | OPA_NODASH, 0, OPS_PATH_MAX, NULL,
	  "--config", "the clawssh config file", NULL },
	{ "ssh_config", OP_PATH, OPA_RPC | OPA_NODASH, 0, OPS_PATH_MAX, NULL,
	  "-F", "the OpenSSH client config file", NULL },
	{ "state_dir", OP_PATH, OPA_RPC | OPA_NODASH, 0, OPS_PATH_MAX, NULL,
	  "--state-dir", "clawssh's local state", NULL },
	{ "passphrase_file", OP_PATH, OPA_RPC | OPA_NODASH, 0, OPS_PATH_MAX,
	  NULL, "--passphrase-file", "the passphrase of an encrypted "
	  "identity", NULL },
	{ "user", OP_STR, OPA_RPC | OPA_NONEMPTY | OPA_NODASH | OPA_WORD, 0,
	  OPS_WORD_MAX, NULL, "-l", "the remote user", NULL },
	{ "port", OP_INT, OPA_RPC, 1, 65535, NULL, "-p", "the SSH port",
	  NULL },
	{ "ssh_options", OP_OPTIONS, OPA_RPC, 0, OPS_OPTIONS_MAX, NULL, "-o",
	  "ssh_config options, \"Key=Value\" strings", NULL },
	END
};

static const struct op_arg exec_args[] = {
	{ "sandbox", OP_ID, OPA_RPC, 0, 0, NULL, "--sandbox",
	  "the sandbox's id (give sandbox or host)", NULL },
	A_HOST(OPA_RPC, "run on this host, outside any sandbox (give "
	    "sandbox or host)"),
	A_COMMAND,
	A_ARGV,
	{ "cwd", OP_PATH, 0, 0, OPS_PATH_MAX, NULL, "--cwd",
	  "working directory, relative to the workspace", NULL },
	A_ENV,
	A_TIMEOUT(0, "seconds; 0 or absent: none (exit status 124 when it "
	    "ends the command)"),
	{ "stdin", OP_DATA, OPA_TEXT, 0, 0, NULL, "standard input",
	  "standard input (JSON-RPC: or stdin_base64)", NULL },
	{ "no_sync", OP_BOOL, OPA_RPC, 0, 0, NULL, "--no-sync",
	  "mirror mode: no sync before and after (sandbox only)", NULL },
	A_STRICT,
	{ "pty", OP_BOOL, 0, 0, 0, NULL, "-tt",
	  "run it on a pseudo-terminal (stdout and stderr become one "
	  "stream)", NULL },
	{ "cols", OP_INT, 0, 1, PTY_SIZE_MAX, NULL, "--size",
	  "with pty: columns (80)", NULL },
	{ "rows", OP_INT, 0, 1, PTY_SIZE_MAX, NULL, "--size",
	  "with pty: rows (24)", NULL },
	END
};

static const struct op_arg provision_args[] = {
	A_HOST(OPA_REQUIRED | OPA_RPC, "the host (or provider target) to "
	    "make it on"),
	{ "scope", OP_ENUM, OPA_RPC, 0, 0, &sandbox_scope_names, "--scope",
	  "whose sandbox it is", NULL },
	{ "key", OP_STR, OPA_RPC | OPA_NONEMPTY, 0, SANDBOX_KEY_MAX, NULL,
	  "--key", "the scope's key (session or agent id)", NULL },
	{ "workspace", OP_PATH, OPA_RPC | OPA_NODASH | OPA_ABSOLUTE, 0,
	  OPS_PATH_MAX, NULL, "--workspace", "the local workspace, an "
	  "absolute path", NULL },
	{ "access", OP_ENUM, OPA_RPC, 0, 0, &sandbox_access_names,
	  "--access", "the command's access to the workspace", NULL },
	{ "mode", OP_ENUM, OPA_RPC, 0, 0, &sandbox_mode_names, "--mode",
	  "which copy of the workspace is canonical", NULL },
	{ "from", OP_STR, OPA_RPC | OPA_NONEMPTY | OPA_NODASH | OPA_WORD, 0,
	  128, NULL, "--from", "the image", NULL },
	{ "runtime", OP_ENUM, OPA_RPC, 0, 0, &contain_runtime_names,
	  "--runtime", "the containment", NULL },
	{ "network", OP_ENUM, OPA_RPC, 0, 0, &contain_network_names,
	  "--network", "the sandbox's network", NULL },
	{ "workdir", OP_ENUM, OPA_RPC, 0, 0, &sandbox_workdir_names,
	  "--workdir", "where the workspace appears inside", NULL },
	{ "memory", OP_SIZE, OPA_RPC, 0, LIMIT_MAX, NULL, "--memory",
	  "memory limit: bytes, or a size such as \"512M\"", NULL },
	{ "processes", OP_INT, OPA_RPC, 0, LIMIT_MAX, NULL, "--processes",
	  "process limit", NULL },
	{ "cpu_seconds", OP_INT, OPA_RPC, 0, LIMIT_MAX, NULL,
	  "--cpu-seconds", "CPU time limit of a command", NULL },
	{ "file_size", OP_SIZE, OPA_RPC, 0, LIMIT_MAX, NULL, "--file-size",
	  "largest file a command may write", NULL },
	{ "open_files", OP_INT, OPA_RPC, 0, LIMIT_MAX, NULL, "--open-files",
	  "open files limit", NULL },
	{ "gpu", OP_GPU, OPA_RPC, 1, SANDBOX_GPUS_MAX, NULL, "--gpu",
	  "GPUs: a count or \"all\"", NULL },
	A_REMOTE_ROOT,
	A_STRICT,
	END
};

static const struct op_arg none_args[] = { END };

static const struct op_arg box_args[] = { A_SANDBOX("ID"), END };

static const struct op_arg prune_args[] = {
	{ "idle_hours", OP_INT, OPA_RPC, 0, 1000000, NULL, "--idle-hours",
	  "remove sandboxes unused for this many hours", NULL },
	{ "max_age_days", OP_INT, OPA_RPC, 0, 100000, NULL,
	  "--max-age-days", "remove sandboxes older than this", NULL },
	{ "dry_run", OP_BOOL, OPA_RPC, 0, 0, NULL, "--dry-run",
	  "say what would go, remove nothing", NULL },
	END
};

static const struct op_arg sync_args[] = {
	A_SANDBOX("ID"), A_PATHS, END
};

static const struct op_arg image_list_args[] = {
	A_HOST(OPA_REQUIRED | OPA_RPC, "the host whose images to list"),
	A_REMOTE_ROOT,
	END
};

static const struct op_arg read_args[] = {
	A_SANDBOX("--sandbox"),
	A_PATH(OPA_REQUIRED, "a path in the sandbox's workspace, relative "
	    "to it"),
	{ "offset", OP_INT, 0, 0, OPS_OFFSET_MAX, NULL, "--offset",
	  "start here (bytes, or lines with lines)", NULL },
	{ "limit", OP_INT, 0, 0, OPS_OFFSET_MAX, NULL, "--limit",
	  "at most this much (0: to the end)", NULL },
	{ "lines", OP_BOOL, 0, 0, 0, NULL, "--lines",
	  "offset and limit count lines, not bytes", NULL },
	A_ENCODING("base64: the content as base64 (the default for content "
	    "that is not UTF-8)"),
	A_FS_TIMEOUT,
	END
};

static const struct op_arg write_args[] = {
	A_SANDBOX("--sandbox"),
	A_PATH(OPA_REQUIRED, "a path in the sandbox's workspace, relative "
	    "to it"),
	{ "content", OP_DATA, OPA_REQUIRED | OPA_TEXT, 0, 0, NULL,
	  "standard input", "the new content (JSON-RPC: or content_base64)",
	  NULL },
	A_ENCODING("base64: content is base64 of the bytes (binary files)"),
	A_PUSH,
	A_FS_TIMEOUT,
	END
};

static const struct op_arg edit_args[] = {
	A_SANDBOX("--sandbox"),
	A_PATH(OPA_REQUIRED, "a path in the sandbox's workspace, relative "
	    "to it"),
	{ "old", OP_STR, OPA_REQUIRED | OPA_NONEMPTY | OPA_TEXT, 0,
	  OPS_ARG_MAX - 6, NULL, "--old", "the exact text to replace",
	  NULL },
	{ "new", OP_STR, OPA_REQUIRED | OPA_TEXT, 0, OPS_ARG_MAX - 6, NULL,
	  "--new", "its replacement", NULL },
	{ "all", OP_BOOL, 0, 0, 0, NULL, "--all",
	  "replace every occurrence (else old must occur once)", NULL },
	A_PUSH,
	A_FS_TIMEOUT,
	END
};

static const struct op_arg patch_args[] = {
	A_SANDBOX("--sandbox"),
	{ "patch", OP_STR, OPA_REQUIRED | OPA_NONEMPTY | OPA_TEXT, 0, 0,
	  NULL, "standard input", "a unified diff or a '*** Begin Patch' "
	  "patch", NULL },
	A_PUSH,
	A_FS_TIMEOUT,
	END
};

static const struct op_arg ls_args[] = {
	A_SANDBOX("--sandbox"),
	A_PATH(0, "a directory of the workspace, relative to it (default: "
	    "its top)"),
	A_FS_TIMEOUT,
	END
};

static const struct op_arg stat_args[] = {
	A_SANDBOX("--sandbox"),
	A_PATH(OPA_REQUIRED, "a path in the sandbox's workspace, relative "
	    "to it"),
	A_FS_TIMEOUT,
	END
};

static const struct op_arg pstart_args[] = {
	A_SANDBOX("--sandbox"),
	A_COMMAND,
	A_ARGV,
	A_ENV,
	{ "name", OP_NAME, 0, 0, PROCESS_NAME_MAX, NULL, "--name",
	  "a name for it", "^[A-Za-z0-9._][A-Za-z0-9._-]{0,63}$" },
	{ "pty", OP_BOOL, 0, 0, 0, NULL, "--pty",
	  "on a terminal of the sandbox's own (bwrap): process_write types "
	  "on it", NULL },
	{ "log_max", OP_INT, OPA_RPC, PROCESS_LOG_MIN, PROCESS_LOG_LIMIT,
	  NULL, "--log-max", "bytes of output kept", NULL },
	END
};

static const struct op_arg plog_args[] = {
	A_SANDBOX("--sandbox"),
	A_HANDLE,
	{ "tail", OP_INT, 0, 1, 10000000, NULL, "--tail",
	  "lines from the end", NULL },
	END
};

static const struct op_arg pwait_args[] = {
	A_SANDBOX("--sandbox"),
	A_HANDLE,
	A_TIMEOUT(0, "seconds to wait; then state is still running"),
	END
};

static const struct op_arg pwrite_args[] = {
	A_SANDBOX("--sandbox"),
	A_HANDLE,
	{ "data", OP_DATA, OPA_TEXT, 0, 0, NULL, "standard input",
	  "bytes for its input (JSON-RPC: or data_base64); required unless "
	  "eof", NULL },
	{ "eof", OP_BOOL, 0, 0, 0, NULL, "--eof",
	  "close its input after data", NULL },
	END
};

static const struct op_arg pkill_args[] = {
	A_SANDBOX("--sandbox"),
	A_HANDLE,
	{ "signal", OP_SIGNAL, 0, 1, 64, NULL, "--signal",
	  "TERM (the default), KILL, INT, HUP, ... or a number", NULL },
	END
};

static const struct op_arg phandle_args[] = {
	A_SANDBOX("--sandbox"), A_HANDLE, END
};

static const struct op_arg plist_args[] = { A_SANDBOX("--sandbox"), END };

static const struct op_arg read_output_args[] = {
	{ "sandbox", OP_ID, OPA_RPC, 0, 0, NULL, NULL,
	  "the server's sandbox (added by the server)", NULL },
	{ "id", OP_OUTPUT_ID, OPA_REQUIRED, 0, 0, NULL, NULL,
	  "the outputId of the exec's result", NULL },
	{ "stream", OP_ENUM, 0, 0, 0, &ops_stream_names, NULL,
	  "which stream (stdout)", NULL },
	{ "offset", OP_INT, 0, 0, OPS_OFFSET_MAX, NULL, NULL,
	  "bytes to skip", NULL },
	{ "limit", OP_INT, 0, 1, OPS_OFFSET_MAX, NULL, NULL,
	  "bytes (at most half of the result cap)", NULL },
	{ "encoding", OP_ENUM, 0, 0, 0, &ops_encoding_names, NULL,
	  "base64: the range as base64", NULL },
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
	  none_args, 1, OPH_RO | OPH_ID, NULL, NULL, NULL, 0 },
	{ "sandbox.status", NULL, "status",
	  "One sandbox's record, its environment and its processes.",
	  box_args, 1, OPH_RO | OPH_ID, NULL, NULL, NULL, 0 },
	{ "sandbox.destroy", NULL, "destroy",
	  "Remove a sandbox: its processes, mounts, cgroups and files.",
	  box_args, 1, OPH_DE | OPH_ID, NULL, NULL, NULL, 0 },
	{ "sandbox.recreate", NULL, "recreate",
	  "Make a sandbox again with the settings in force now.",
	  box_args, 1, OPH_DE, NULL, NULL, NULL, 0 },
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
	  "poll.", phandle_args, 1, OPH_RO, OUT_PROC, NULL, NULL, 0 },
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
	  "What a sync would move, each way.", box_args, 1, OPH_RO | OPH_ID,
	  NULL, NULL, NULL, 0 },
	{ "image.list", NULL, "image list", "The images of a host.",
	  image_list_args, 1, OPH_RO | OPH_ID, NULL, NULL, NULL, 0 },
	{ "mcp.readOutput", "read_output", NULL,
	  "Read the rest of an exec's output that was cut (truncated: true "
	  "and an outputId in its result), in ranges.", read_output_args, 0,
	  OPH_RO | OPH_ID,
	  OUT_CONTENT ",\"offset\":{\"type\":\"integer\"},"
	  "\"nextOffset\":{\"type\":\"integer\"},"
	  "\"total\":{\"type\":\"integer\"},"
	  "\"eof\":{\"type\":\"boolean\"}},"
	  "\"required\":[\"content\",\"encoding\",\"nextOffset\","
	  "\"eof\"]}", NULL, "exec", 1 },
};
const size_t ops_n = sizeof ops_table / sizeof ops_table[0];
