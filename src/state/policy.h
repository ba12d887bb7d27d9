/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tool policy: which tool calls (JSON-RPC method names such as "exec",
 * "fs.read" or "sandbox.provision") a caller may make, from the "policy"
 * object of the configuration:
 *
 *	"policy": {
 *	  "allow": ["exec", "fs.*"],        // global; empty or absent: all
 *	  "deny": ["fs.write"],
 *	  "agents": { "ci-bot": { "allow": [...], "deny": [...] } },
 *	  "sandboxes": { "<sandbox id>": { "allow": [...], "deny": [...] } },
 *	  "elevated": false                 // exec on a host, outside a sandbox
 *	}
 *
 * Patterns are fnmatch(3) globs without flags: '*' matches any run of
 * characters, dots included, '?' one character, "[...]" a class.  Deny
 * wins: a tool matching any deny entry of any level that applies (global,
 * the caller's agent, the sandbox) is refused; otherwise every applying
 * level with a non-empty allow list must have an entry that matches.
 * Elevated exec (on a host, outside any sandbox) is refused unless
 * "elevated" is true.  A parsed policy is read-only: policy_check may be
 * called from several threads at once.
 */
#ifndef CLAW_POLICY_H
#define CLAW_POLICY_H

#include <cjson/cJSON.h>

#define POLICY_LIST_MAX		1000	/* entries in one allow/deny list */
#define POLICY_NAMES_MAX	10000	/* members of agents or sandboxes */
#define POLICY_PATTERN_MAX	256	/* bytes in one pattern */

struct claw_policy;

/*
 * Check the "policy" object obj, found at keypath (for messages, usually
 * "policy"), and store the policy in *out.  Unknown or duplicate keys,
 * wrong types, empty or overlong patterns and more than POLICY_LIST_MAX
 * entries are CLAW_ERR_PARSE with *cause naming the key, as in
 * "policy.agents.ci-bot.deny[2]: expected a non-empty string".
 */
int	policy_parse(const cJSON *obj, const char *keypath,
	    struct claw_policy **out, char **cause);

/* Free a policy; NULL is fine. */
void	policy_free(struct claw_policy *);

/*
 * Decide whether tool may be called by agent (NULL: no agent) on sandbox
 * (NULL: none); elevated is nonzero for exec on a host outside any
 * sandbox.  Returns 0 if allowed, CLAW_ERR_DENIED with *rule (allocated,
 * unless rule is NULL) set to the rule that refused, as in
 * `policy.agents.ci-bot.deny[0] "fs.*"`, `policy.allow (no entry matches
 * "exec")` or `policy.elevated is false`; CLAW_ERR_INVAL if tool is NULL.
 * A NULL policy allows everything except elevated exec.
 */
int	policy_check(const struct claw_policy *, const char *agent,
	    const char *sandbox, const char *tool, int elevated, char **rule);

#endif /* CLAW_POLICY_H */
