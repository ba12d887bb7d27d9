/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Resolved ssh_config settings to and from JSON.  Every field of struct
 * sshconfig travels; the reader checks each one and trusts nothing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "sshconfig.h"
#include "sshconfig_json.h"
#include "xmalloc.h"

/* A string list as a JSON array. */
static void
sshconfig_json_strv(cJSON *obj, const char *key, char *const *v, size_t n)
{
	cJSON	*a = cJSON_AddArrayToObject(obj, key);
	size_t	 i;

	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
}

/* Serialise; see sshconfig_json.h. */
cJSON *
sshconfig_to_json(const struct sshconfig *sc)
{
	cJSON	*o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "host", sc->host);
	cJSON_AddStringToObject(o, "hostname", sc->hostname);
	cJSON_AddStringToObject(o, "user", sc->user);
	cJSON_AddNumberToObject(o, "port", sc->port);
	sshconfig_json_strv(o, "identityFiles", sc->identity_files,
	    sc->n_identity_files);
	cJSON_AddBoolToObject(o, "identityFilesSet", sc->identity_files_set);
	cJSON_AddBoolToObject(o, "identitiesOnly", sc->identities_only);
	sshconfig_json_strv(o, "knownHostsFiles", sc->known_hosts_files,
	    sc->n_known_hosts_files);
	sshconfig_json_strv(o, "globalKnownHostsFiles",
	    sc->global_known_hosts_files, sc->n_global_known_hosts_files);
	cJSON_AddNumberToObject(o, "strict", sc->strict);
	cJSON_AddBoolToObject(o, "hashKnownHosts", sc->hash_known_hosts);
	cJSON_AddNumberToObject(o, "connectTimeout", sc->connect_timeout);
	cJSON_AddNumberToObject(o, "serverAliveInterval",
	    sc->server_alive_interval);
	cJSON_AddNumberToObject(o, "serverAliveCountMax",
	    sc->server_alive_count_max);
	if (sc->proxy_command != NULL)
		cJSON_AddStringToObject(o, "proxyCommand", sc->proxy_command);
	if (sc->host_key_alias != NULL)
		cJSON_AddStringToObject(o, "hostKeyAlias", sc->host_key_alias);
	return o;
}

/* A string member, copied. */
static int
sshconfig_json_str(const cJSON *o, const char *key, char **out,
    char **cause)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsString(v) || v->valuestring[0] == '\0')
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "ssh settings: %s: expected a string", key);
	*out = xstrdup(v->valuestring);
	return 0;
}

/* An optional string member, copied (absent: NULL). */
static int
sshconfig_json_optstr(const cJSON *o, const char *key, char **out,
    char **cause)
{
	if (cJSON_GetObjectItemCaseSensitive(o, key) == NULL)
		return 0;
	return sshconfig_json_str(o, key, out, cause);
}

/* An integer member within [lo, hi]. */
static int
sshconfig_json_int(const cJSON *o, const char *key, int lo, int hi,
    int *out, char **cause)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(v) || v->valuedouble < lo ||
	    v->valuedouble > hi || v->valuedouble != (int)v->valuedouble)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "ssh settings: %s: expected an integer from %d to %d",
		    key, lo, hi);
	*out = (int)v->valuedouble;
	return 0;
}

/* A boolean member. */
static int
sshconfig_json_bool(const cJSON *o, const char *key, int *out, char **cause)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsBool(v))
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "ssh settings: %s: expected true or false", key);
	*out = cJSON_IsTrue(v);
	return 0;
}

/* A string array member, copied. */
static int
sshconfig_json_strv_get(const cJSON *o, const char *key, char ***out,
    size_t *n, char **cause)
{
	const cJSON	*a = cJSON_GetObjectItemCaseSensitive(o, key), *e;
	size_t		 i = 0;

	if (!cJSON_IsArray(a))
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "ssh settings: %s: expected an array", key);
	*out = xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof **out);
	cJSON_ArrayForEach(e, a) {
		if (!cJSON_IsString(e))
			return claw_fail(cause, CLAW_ERR_PARSE,
			    "ssh settings: %s: expected strings", key);
		(*out)[i++] = xstrdup(e->valuestring);
		*n = i;
	}
	return 0;
}

/* Deserialise; see sshconfig_json.h. */
int
sshconfig_from_json(const cJSON *o, struct sshconfig **out, char **cause)
{
	struct sshconfig	*sc = xcalloc(1, sizeof *sc);
	int			 strict = 0, rc;

	if (!cJSON_IsObject(o)) {
		rc = claw_fail(cause, CLAW_ERR_PARSE,
		    "ssh settings: expected an object");
		goto out;
	}
	if ((rc = sshconfig_json_str(o, "host", &sc->host, cause)) != 0 ||
	    (rc = sshconfig_json_str(o, "hostname", &sc->hostname,
	    cause)) != 0 ||
	    (rc = sshconfig_json_str(o, "user", &sc->user, cause)) != 0 ||
	    (rc = sshconfig_json_int(o, "port", 1, 65535, &sc->port,
	    cause)) != 0 ||
	    (rc = sshconfig_json_strv_get(o, "identityFiles",
	    &sc->identity_files, &sc->n_identity_files, cause)) != 0 ||
	    (rc = sshconfig_json_bool(o, "identityFilesSet",
	    &sc->identity_files_set, cause)) != 0 ||
	    (rc = sshconfig_json_bool(o, "identitiesOnly",
	    &sc->identities_only, cause)) != 0 ||
	    (rc = sshconfig_json_strv_get(o, "knownHostsFiles",
	    &sc->known_hosts_files, &sc->n_known_hosts_files, cause)) != 0 ||
	    (rc = sshconfig_json_strv_get(o, "globalKnownHostsFiles",
	    &sc->global_known_hosts_files, &sc->n_global_known_hosts_files,
	    cause)) != 0 ||
	    (rc = sshconfig_json_int(o, "strict", SSHCONFIG_STRICT_ASK,
	    SSHCONFIG_STRICT_NO, &strict, cause)) != 0 ||
	    (rc = sshconfig_json_bool(o, "hashKnownHosts",
	    &sc->hash_known_hosts, cause)) != 0 ||
	    (rc = sshconfig_json_int(o, "connectTimeout", 0, 86400,
	    &sc->connect_timeout, cause)) != 0 ||
	    (rc = sshconfig_json_int(o, "serverAliveInterval", 0, 86400,
	    &sc->server_alive_interval, cause)) != 0 ||
	    (rc = sshconfig_json_int(o, "serverAliveCountMax", 0, 1000,
	    &sc->server_alive_count_max, cause)) != 0 ||
	    (rc = sshconfig_json_optstr(o, "proxyCommand", &sc->proxy_command,
	    cause)) != 0 ||
	    (rc = sshconfig_json_optstr(o, "hostKeyAlias",
	    &sc->host_key_alias, cause)) != 0)
		goto out;
	sc->strict = (enum sshconfig_strict)strict;
	*out = sc;
	sc = NULL;
out:
	sshconfig_free(sc);
	return rc;
}
