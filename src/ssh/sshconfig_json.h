/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A resolved ssh_config as JSON: how a clawssh command tells the daemon
 * exactly which connection it wants, settings and all.  The text is
 * canonical (same settings, same bytes), so it also keys the daemon's
 * connection pool.
 */
#ifndef CLAW_SSHCONFIG_JSON_H
#define CLAW_SSHCONFIG_JSON_H

#include <cjson/cJSON.h>

struct sshconfig;

/* sc as a JSON object (free with cJSON_Delete). */
cJSON	*sshconfig_to_json(const struct sshconfig *sc);

/*
 * Rebuild a config from sshconfig_to_json's object: 0 with *out set
 * (free with sshconfig_free), or CLAW_ERR_PARSE with *cause naming the
 * field that is missing or of the wrong type.
 */
int	 sshconfig_from_json(const cJSON *obj, struct sshconfig **out,
	    char **cause);

#endif /* CLAW_SSHCONFIG_JSON_H */
