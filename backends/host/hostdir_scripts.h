/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sh scripts the host-directory backend runs on a host, joined from
 * the files in src/host (hostdir_*.sh, each saying what it expects and
 * prints; src/host/host_sh.h).  Values are never put in the text: each
 * script takes them as positional parameters, from the "set -- WORD..."
 * line hostdir_script (hostdir_int.h) puts in front, $1 the remote root
 * for all.  They need POSIX sh plus mkdir, mv, rm, cat, wc, ls, awk, id,
 * date, and stat or date -r for file times; errors are reported on
 * stderr as a line "clawssh-error: MESSAGE" and exit status 3.
 */
#ifndef CLAW_HOSTDIR_SCRIPTS_H
#define CLAW_HOSTDIR_SCRIPTS_H

#include "host_sh.h"

/*
 * Shared start: $1 the root, in $root; clawfail, mt, the root's checks,
 * clawlock, entry.
 */
#define HOSTDIR_SCRIPT_PRELUDE		HOST_SH_HOSTDIR_PRELUDE
/* The root must exist (created 0700 if not) and belong to us. */
#define HOSTDIR_SCRIPT_ENSURE_ROOT	HOST_SH_HOSTDIR_ENSURE_ROOT
/* clawctrs ID: the containers labelled clawssh.sandbox=ID removed. */
#define HOSTDIR_SCRIPT_CONTAINERS_RM	HOST_SH_HOSTDIR_CONTAINERS_RM
/* clawboxkill FILE: the holder FILE names killed.  No '%'. */
#define HOSTDIR_SCRIPT_BOXKILL		HOST_SH_HOSTDIR_BOXKILL
/* clawcgroups ID: sandbox ID's cgroups removed.  No '%'. */
#define HOSTDIR_SCRIPT_CGROUPS_RM	HOST_SH_HOSTDIR_CGROUPS_RM

/* Root, id, image, runtime; the metadata on stdin.  Found or created. */
#define HOSTDIR_SCRIPT_GET_OR_CREATE					\
	HOSTDIR_SCRIPT_PRELUDE HOSTDIR_SCRIPT_ENSURE_ROOT		\
	HOST_SH_HOSTDIR_GET_OR_CREATE
/* Root, the ids to list (an id, or the id pattern). */
#define HOSTDIR_SCRIPT_LIST						\
	HOSTDIR_SCRIPT_PRELUDE HOST_SH_HOSTDIR_LIST
/* Root, id (checked).  clawssh-destroyed or clawssh-missing. */
#define HOSTDIR_SCRIPT_DESTROY						\
	HOSTDIR_SCRIPT_PRELUDE HOSTDIR_SCRIPT_CONTAINERS_RM		\
	HOSTDIR_SCRIPT_BOXKILL HOSTDIR_SCRIPT_CGROUPS_RM		\
	HOST_SH_PROC_OURS HOST_SH_HOSTDIR_DESTROY
/*
 * The function __claw_pre DIR ID, checking the sandbox is there before
 * each command; hostdir_exec_pre calls it.
 */
#define HOSTDIR_SCRIPT_EXEC_PRE		HOST_SH_HOSTDIR_EXEC_PRE
/* Image import: root, name, tar's flag; the tarball on stdin. */
#define HOSTDIR_SCRIPT_IMAGE_IMPORT					\
	HOSTDIR_SCRIPT_PRELUDE HOSTDIR_SCRIPT_ENSURE_ROOT		\
	HOST_SH_HOSTDIR_IMAGE_IMPORT
/* Image listing: root.  One "clawssh-image NAME TIME KIB" line each. */
#define HOSTDIR_SCRIPT_IMAGE_LIST					\
	HOSTDIR_SCRIPT_PRELUDE HOST_SH_HOSTDIR_IMAGE_LIST
/* Image removal: root, name, force (0 or 1). */
#define HOSTDIR_SCRIPT_IMAGE_RM						\
	HOSTDIR_SCRIPT_PRELUDE HOST_SH_HOSTDIR_IMAGE_RM
/* GPU state: root.  Devices, live sandboxes, the allocation file. */
#define HOSTDIR_SCRIPT_GPU_READ						\
	HOSTDIR_SCRIPT_PRELUDE HOSTDIR_SCRIPT_ENSURE_ROOT		\
	HOST_SH_HOSTDIR_GPU_READ
/* GPU allocation write-back: root; "OLDLEN NEWLEN", old, new on stdin. */
#define HOSTDIR_SCRIPT_GPU_WRITE					\
	HOSTDIR_SCRIPT_PRELUDE HOST_SH_HOSTDIR_GPU_WRITE

#endif /* CLAW_HOSTDIR_SCRIPTS_H */
