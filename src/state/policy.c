/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tool policy: allow and deny lists of fnmatch(3) globs at three levels
 * (global, per agent, per sandbox) and the elevated-exec switch.  Agents
 * and sandboxes are kept sorted by name for bsearch(3); each level keeps
 * the key path of its object so a refusal can name the rule.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <fnmatch.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "error.h"
#include "jsonc.h"
#include "policy.h"
#include "xmalloc.h"

struct policy_list {
	char	**pat;
	size_t	  n;
};

/* One level: the global lists, an agent's or a sandbox's. */
struct policy_level {
	char			*name;	/* NULL: global */
	char			*path;	/* key path, escaped */
	struct policy_list	 allow;
	struct policy_list	 deny;
};

struct claw_policy {
	struct policy_level	 global;
	struct policy_level	*agents;	/* sorted by name */
	size_t			 nagents;
	struct policy_level	*sandboxes;	/* sorted by name */
	size_t			 nsandboxes;
	int			 elevated;
};

/* Append s to b with '"', '\\' and unprintable bytes escaped. */
static void
policy_quote(struct buf *b, const char *s)
{
	const unsigned char	*p;

	buf_append(b, "\"", 1);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x20 || *p >= 0x7f || *p == '\\' || *p == '"')
			buf_appendf(b, "\\x%02x", *p);
		else
			buf_append(b, p, 1);
	}
	buf_append(b, "\"", 1);
}

/* Fail with "prefix.name: why". */
static int
policy_fail_key(char **cause, const char *prefix, const char *name,
    const char *why)
{
	char	*key;

	key = jsonc_key_path(prefix, name);
	claw_fail(cause, CLAW_ERR_PARSE, "%s: %s", key, why);
	free(key);
	return CLAW_ERR_PARSE;
}

/* Fail if two members of object obj (at path) share a name. */
static int
policy_check_dups(const cJSON *obj, const char *path, char **cause)
{
	const char	*dup = jsonc_dup_member(obj);

	return dup == NULL ? 0 :
	    policy_fail_key(cause, path, dup, "duplicate key");
}

/* Store the array of patterns item (at key) in l. */
static int
policy_parse_list(const cJSON *item, const char *key,
    struct policy_list *l, char **cause)
{
	const cJSON	*v;
	size_t		 n = 0;
	int		 size;

	if (!cJSON_IsArray(item))
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "%s: expected an array of patterns", key);
	if ((size = cJSON_GetArraySize(item)) > POLICY_LIST_MAX)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "%s: more than %d patterns", key, POLICY_LIST_MAX);
	cJSON_ArrayForEach(v, item) {
		if (!cJSON_IsString(v) || v->valuestring[0] == '\0' ||
		    strlen(v->valuestring) > POLICY_PATTERN_MAX)
			return claw_fail(cause, CLAW_ERR_PARSE, "%s[%zu]: "
			    "expected a non-empty string of at most %d bytes",
			    key, n, POLICY_PATTERN_MAX);
		n++;
	}
	l->pat = xcalloc(n + 1, sizeof(*l->pat));
	n = 0;
	cJSON_ArrayForEach(v, item)
		l->pat[n++] = xstrdup(v->valuestring);
	l->n = n;
	return 0;
}

/*
 * Fill level lv from object obj at path: "allow" and "deny", plus the
 * global keys when global is set (elevated goes to *elevated).
 */
static int
policy_parse_level(const cJSON *obj, const char *path,
    struct policy_level *lv, int *elevated, char **cause)
{
	const cJSON	*m;
	char		*key;
	int		 r = 0;

	if (!cJSON_IsObject(obj))
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "%s: expected an object", path);
	if ((r = policy_check_dups(obj, path, cause)) != 0)
		return r;
	for (m = obj->child; m != NULL && r == 0; m = m->next) {
		key = jsonc_key_path(path, m->string);
		if (strcmp(m->string, "allow") == 0)
			r = policy_parse_list(m, key, &lv->allow, cause);
		else if (strcmp(m->string, "deny") == 0)
			r = policy_parse_list(m, key, &lv->deny, cause);
		else if (elevated != NULL &&
		    strcmp(m->string, "elevated") == 0) {
			if (!cJSON_IsBool(m))
				r = claw_fail(cause, CLAW_ERR_PARSE,
				    "%s: expected true or false", key);
			else
				*elevated = cJSON_IsTrue(m) ? 1 : 0;
		} else if (elevated == NULL || (strcmp(m->string, "agents") &&
		    strcmp(m->string, "sandboxes")))
			r = claw_fail(cause, CLAW_ERR_PARSE,
			    "unknown key '%s'", key);
		free(key);
	}
	return r;
}

/* Order levels by name, for qsort and bsearch. */
static int
policy_cmp_level(const void *a, const void *b)
{
	const struct policy_level	*la = a, *lb = b;

	return strcmp(la->name, lb->name);
}

/* Fill *v and *n from "agents" or "sandboxes": an object of levels. */
static int
policy_parse_names(const cJSON *obj, const char *path,
    struct policy_level **v, size_t *n, char **cause)
{
	const cJSON	*m;
	int		 r, size;

	if (!cJSON_IsObject(obj))
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "%s: expected an object", path);
	if ((r = policy_check_dups(obj, path, cause)) != 0)
		return r;
	if ((size = cJSON_GetArraySize(obj)) > POLICY_NAMES_MAX)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "%s: more than %d members", path, POLICY_NAMES_MAX);
	*v = xcalloc((size_t)size + 1, sizeof(**v));
	for (m = obj->child; m != NULL; m = m->next) {
		if (m->string[0] == '\0')
			return policy_fail_key(cause, path, m->string,
			    "empty name");
		(*v)[*n].name = xstrdup(m->string);
		(*v)[*n].path = jsonc_key_path(path, m->string);
		r = policy_parse_level(m, (*v)[*n].path, &(*v)[*n], NULL,
		    cause);
		(*n)++;
		if (r != 0)
			return r;
	}
	qsort(*v, *n, sizeof(**v), policy_cmp_level);
	return 0;
}

/* Check and store the policy object; see policy.h. */
int
policy_parse(const cJSON *obj, const char *keypath, struct claw_policy **out,
    char **cause)
{
	struct claw_policy	*p;
	const cJSON		*m;
	char			*key;
	int			 r;

	p = xcalloc(1, sizeof(*p));
	p->global.path = xstrdup(keypath);
	r = policy_parse_level(obj, keypath, &p->global, &p->elevated, cause);
	for (m = r == 0 ? obj->child : NULL; m != NULL && r == 0;
	    m = m->next) {
		key = jsonc_key_path(keypath, m->string);
		if (strcmp(m->string, "agents") == 0)
			r = policy_parse_names(m, key, &p->agents,
			    &p->nagents, cause);
		else if (strcmp(m->string, "sandboxes") == 0)
			r = policy_parse_names(m, key, &p->sandboxes,
			    &p->nsandboxes, cause);
		free(key);
	}
	if (r != 0) {
		policy_free(p);
		return r;
	}
	*out = p;
	return 0;
}

/* Free one level's strings. */
static void
policy_free_level(struct policy_level *lv)
{
	size_t	i;

	for (i = 0; i < lv->allow.n; i++)
		free(lv->allow.pat[i]);
	free(lv->allow.pat);
	for (i = 0; i < lv->deny.n; i++)
		free(lv->deny.pat[i]);
	free(lv->deny.pat);
	free(lv->name);
	free(lv->path);
}

/* Free a policy; NULL is fine. */
void
policy_free(struct claw_policy *p)
{
	size_t	i;

	if (p == NULL)
		return;
	policy_free_level(&p->global);
	for (i = 0; i < p->nagents; i++)
		policy_free_level(&p->agents[i]);
	free(p->agents);
	for (i = 0; i < p->nsandboxes; i++)
		policy_free_level(&p->sandboxes[i]);
	free(p->sandboxes);
	free(p);
}

/* Return the level for name in v, or NULL (name NULL: none). */
static const struct policy_level *
policy_find(const struct policy_level *v, size_t n, const char *name)
{
	struct policy_level	key;

	if (name == NULL || n == 0)
		return NULL;
	memset(&key, 0, sizeof(key));
	key.name = (char *)(uintptr_t)name;
	return bsearch(&key, v, n, sizeof(*v), policy_cmp_level);
}

/* Return the index of the first pattern of l matching tool, or -1. */
static long
policy_match(const struct policy_list *l, const char *tool)
{
	size_t	i;

	for (i = 0; i < l->n; i++) {
		if (fnmatch(l->pat[i], tool, 0) == 0)
			return (long)i;
	}
	return -1;
}

/* Refuse through lv's deny list if it matches tool. */
static int
policy_check_deny(const struct policy_level *lv, const char *tool,
    char **rule)
{
	struct buf	b = BUF_INIT;
	long		i;

	if (lv == NULL || (i = policy_match(&lv->deny, tool)) < 0)
		return 0;
	if (rule != NULL) {
		buf_appendf(&b, "%s.deny[%ld] ", lv->path, i);
		policy_quote(&b, lv->deny.pat[i]);
		*rule = buf_detach(&b);
	}
	return CLAW_ERR_DENIED;
}

/* Refuse if lv has a non-empty allow list and nothing in it matches. */
static int
policy_check_allow(const struct policy_level *lv, const char *tool,
    char **rule)
{
	struct buf	b = BUF_INIT;

	if (lv == NULL || lv->allow.n == 0 ||
	    policy_match(&lv->allow, tool) >= 0)
		return 0;
	if (rule != NULL) {
		buf_appendf(&b, "%s.allow (no entry matches ", lv->path);
		policy_quote(&b, tool);
		buf_append(&b, ")", 1);
		*rule = buf_detach(&b);
	}
	return CLAW_ERR_DENIED;
}

/* Decide one tool call; see policy.h. */
int
policy_check(const struct claw_policy *p, const char *agent,
    const char *sandbox, const char *tool, int elevated, char **rule)
{
	const struct policy_level	*lv[3];
	size_t				 i;
	int				 r;

	if (tool == NULL)
		return claw_fail(rule, CLAW_ERR_INVAL, "no tool name");
	if (elevated && (p == NULL || !p->elevated))
		return claw_fail(rule, CLAW_ERR_DENIED, "%s.elevated is false",
		    p != NULL ? p->global.path : "policy");
	if (p == NULL)
		return 0;
	lv[0] = &p->global;
	lv[1] = policy_find(p->agents, p->nagents, agent);
	lv[2] = policy_find(p->sandboxes, p->nsandboxes, sandbox);
	for (i = 0; i < 3; i++) {
		if ((r = policy_check_deny(lv[i], tool, rule)) != 0)
			return r;
	}
	for (i = 0; i < 3; i++) {
		if ((r = policy_check_allow(lv[i], tool, rule)) != 0)
			return r;
	}
	return 0;
}
