/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sh scripts behind the process tool, joined from the files in
 * src/host (process_*.sh, each saying what it does; src/host/host_sh.h).
 * Unlike the backend's format
 * strings, each script takes its arguments as positional parameters: the
 * caller puts a "set -- WORD..." line (every word through shquote) in
 * front, or passes them after "sh -c SCRIPT sh".  They need POSIX sh plus
 * coreutils (split with --filter, tail, wc, head), util-linux
 * setsid with -w, and procps pgrep/pkill.  Errors are a line
 * "clawssh-error: MESSAGE" on stderr and exit status 3.
 *
 * A process directory <sandbox>/procs/<handle>/ holds: in and ctl (FIFOs),
 * max and chunk (log cap and chunk size), name, cmd (display form), start
 * (epoch seconds), sup (supervisor pid), pid (the process: a session and
 * process-group leader), log.NNNNNN (output chunks), polled (the byte
 * offset the last poll reached), rc (exit status, 128+N for signal N),
 * done (output complete), killed (a kill was asked for), lock (a mkdir
 * lock around pruning and reading).
 */
#ifndef CLAW_PROCESS_SCRIPTS_H
#define CLAW_PROCESS_SCRIPTS_H

#include "host_sh.h"

/* Functions shared by every script and by split's filter. */
#define PROCESS_SCRIPT_LIB	HOST_SH_PROCESS_LIB HOST_SH_PROC_OURS
/* The checks every reader starts with. */
#define PROCESS_SCRIPT_OPEN	PROCESS_SCRIPT_LIB HOST_SH_PROCESS_OPEN
/* clawstate [WAIT]: the state line. */
#define PROCESS_SCRIPT_STATE	HOST_SH_PROCESS_STATE
/* The supervisor: "setsid sh -c SCRIPT sh DIR CAP CHUNK UMASK LIB ARGV...". */
#define PROCESS_SCRIPT_SUPERVISOR HOST_SH_PROCESS_SUPERVISOR
/* Start: "sh -c SCRIPT sh SANDBOX HANDLE CAP CHUNK NAME CMD SUP LIB ...". */
#define PROCESS_SCRIPT_START	HOST_SH_PROCESS_START
/* Poll: the state line, "clawssh-out DROPPED LEN", LEN bytes. */
#define PROCESS_SCRIPT_POLL						\
	PROCESS_SCRIPT_OPEN PROCESS_SCRIPT_STATE HOST_SH_PROCESS_POLL
/* Log: as poll, the whole kept log or its last $3 lines. */
#define PROCESS_SCRIPT_LOG						\
	PROCESS_SCRIPT_OPEN PROCESS_SCRIPT_STATE HOST_SH_PROCESS_LOG
/* Wait: up to $3 tenths of a second, then the state line. */
#define PROCESS_SCRIPT_WAIT						\
	PROCESS_SCRIPT_OPEN PROCESS_SCRIPT_STATE HOST_SH_PROCESS_WAIT
/* List: a state line per process. */
#define PROCESS_SCRIPT_LIST						\
	PROCESS_SCRIPT_LIB HOST_SH_PROCESS_STATE HOST_SH_PROCESS_LIST
/* Write: "sh -c SCRIPT sh SANDBOX HANDLE EOF", stdin to the FIFO. */
#define PROCESS_SCRIPT_WRITE	PROCESS_SCRIPT_OPEN HOST_SH_PROCESS_WRITE
/* Kill: $3 the signal, $4 1 to follow with KILL after $5 tenths. */
#define PROCESS_SCRIPT_KILL	PROCESS_SCRIPT_OPEN HOST_SH_PROCESS_KILL

#endif /* CLAW_PROCESS_SCRIPTS_H */
