/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A process's state as JSON, as `clawssh process ... --json` prints it
 * and the daemon answers process.* with it (one builder for both).
 */
#ifndef CLAW_PROCESS_JSON_H
#define CLAW_PROCESS_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct process_state;

/*
 * {"handle", "name" (or null), "state", "exit_status" (or null),
 * "started", "command"}.
 */
cJSON	*process_state_json(const struct process_state *st);

/* As process_state_json, with "output": p[0..len) as valid UTF-8. */
cJSON	*process_output_json(const struct process_state *st, const char *p,
	    size_t len);

/* A listing: an array of process_state_json. */
cJSON	*process_list_json(const struct process_state *v, size_t n);

#endif /* CLAW_PROCESS_JSON_H */
