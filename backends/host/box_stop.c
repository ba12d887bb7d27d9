/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh stop's host side: the script and the judge of its answer (see
 * box_stop.h).  The script is src/host/boxenv_procs.sh, then for bwrap
 * the holder's end (src/host/boxenv_stop_bwrap.sh, with the boxkill and
 * cgroup helpers of backends/host) and the removal of its cgroups.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "box_stop.h"
#include "buf.h"
#include "host_sh.h"
#include "hostdir_scripts.h"
#include "shquote.h"

#define BOX_STOP_BWRAP						\
	HOSTDIR_SCRIPT_BOXKILL HOSTDIR_SCRIPT_CGROUPS_RM		\
	HOST_SH_BOXENV_STOP_BWRAP "clawcgroups \"$id\"\nexit 0\n"

/* The boxenv scripts' parameters; see box_stop.h. */
void
box_script_params(struct buf *s, const char *dir, const char *run,
    const char *agent)
{
	buf_append_str(s, "set -- ");
	shquote_append(s, dir);
	buf_append_str(s, " ");
	shquote_append(s, run);
	buf_append_str(s, " ");
	shquote_append(s, agent != NULL ? agent : "");
	buf_append_str(s, "\n");
}

/* The script's parameters and the end of the background processes. */
void
box_stop_start(struct buf *s, const char *dir, const char *run,
    const char *agent)
{
	box_script_params(s, dir, run, agent);
	buf_append_str(s, HOST_SH_PROC_OURS);
	buf_append_str(s, HOST_SH_BOXENV_PROCS);
}

/* The end of a bwrap sandbox's script; see box_stop.h. */
void
box_stop_end_bwrap(struct buf *s)
{
	buf_append_str(s, BOX_STOP_BWRAP);
}

/* The whole script for a bwrap sandbox; see box_stop.h. */
char *
box_stop_script_bwrap(const char *dir, const char *run, const char *agent)
{
	struct buf	s = BUF_INIT;

	box_stop_start(&s, dir, run, agent);
	box_stop_end_bwrap(&s);
	return buf_detach(&s);
}

/* What the script said; see box_stop.h. */
const char *
box_stop_state(const struct buf *out)
{
	if (out->len == strlen("stopped\n") &&
	    memcmp(out->data, "stopped\n", out->len) == 0)
		return "stopped";
	if (out->len == strlen("not running\n") &&
	    memcmp(out->data, "not running\n", out->len) == 0)
		return "not running";
	return NULL;
}
