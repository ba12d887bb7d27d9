/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sh scripts behind the remote file tools, from the files in src/host
 * (fstore_*.sh, each saying what it does and what it needs;
 * src/host/host_sh.h).  Each body is the prelude, then the variables of
 * the operation (sh-quoted words or numbers: fstore_wire.c), then the
 * operation; it runs through hostws_script, so its working directory is
 * the workspace.
 */
#ifndef CLAW_FSTORE_SCRIPTS_H
#define CLAW_FSTORE_SCRIPTS_H

#include "host_sh.h"

/* clawfail, inside, real P; the workspace entered. */
#define FSTORE_SCRIPT_PRELUDE	HOST_SH_FSTORE_PRELUDE
/* Read: p, off, lim, cap; "clawssh-mode MODE LEN" and the bytes. */
#define FSTORE_SCRIPT_READ	HOST_SH_FSTORE_READ
/* Stat: p; one record named x. */
#define FSTORE_SCRIPT_STAT	HOST_SH_FSTORE_STAT
/* List: p; one record an entry. */
#define FSTORE_SCRIPT_LIST	HOST_SH_FSTORE_LIST
/* Commit: tag; the request on stdin. */
#define FSTORE_SCRIPT_COMMIT	HOST_SH_FSTORE_COMMIT

#endif /* CLAW_FSTORE_SCRIPTS_H */
