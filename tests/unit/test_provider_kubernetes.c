/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for what the kubernetes provider driver reads and writes:
 * its settings, SandboxClaims and pods judged as provider states (each
 * documented condition and pod state, and malformed answers), warm pool
 * choice, template GPUs, the claim manifest and the ProxyCommand.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "error.h"
#include "provider.h"
#include "provider_kubernetes.h"
#include "xmalloc.h"

#define API	"\"apiVersion\": \"extensions.agents.x-k8s.io/v1beta1\""
#define OURS	"\"labels\": {\"app.kubernetes.io/managed-by\": \"clawssh\"," \
		" \"clawssh/provider\": \"lab\"}"
#define META	"\"metadata\": {\"name\": \"claw-c1\", \"namespace\": " \
		"\"agents\", \"uid\": \"u-1\", " OURS "}"

/* Parse the settings args (NULL-terminated) for provider name. */
static int
conf(const char *name, const char *const *args, struct k8s_conf *kc)
{
	struct provider_conf	 pc;
	char			*cause = NULL;
	size_t			 n = 0;
	int			 rc;

	while (args[n] != NULL)
		n++;
	memset(&pc, 0, sizeof pc);
	pc.name = name;
	pc.driver = "kubernetes";
	pc.args = (char *const *)(uintptr_t)args;
	pc.nargs = n;
	rc = k8s_conf_parse(&pc, kc, &cause);
	if (rc != 0)
		assert_non_null(strstr(cause, "provider "));
	free(cause);
	return rc;
}

/* Settings: each key, the defaults, and what is refused. */
static void
test_conf(void **state)
{
	const char *const good[] = { "namespace=agents", "context=a@b:c",
	    "kubeconfig=/k/config", "template=py.sshd", "warmPool=p1",
	    "container=box", "user=dev", "hostKey=none",
	    "sshd=/opt/sshd  -i -f /etc/x", NULL };
	const char *const none[] = { NULL };
	const char *const bad[][3] = {
		{ "colour=blue", NULL }, { "namespace", NULL },
		{ "namespace=Agents", NULL }, { "namespace=a", "namespace=b" },
		{ "sshd=-i", NULL }, { "hostKey=relative", NULL },
		{ "context=-x", NULL }, { "template=a..b", NULL },
		{ "user=a b", NULL }, { "=x", NULL },
	};
	struct k8s_conf	kc;
	size_t		i;

	(void)state;
	assert_int_equal(conf("lab", good, &kc), 0);
	assert_string_equal(kc.namespace, "agents");
	assert_string_equal(kc.context, "a@b:c");
	assert_string_equal(kc.template, "py.sshd");
	assert_string_equal(kc.warm_pool, "p1");
	assert_null(kc.host_key);
	assert_string_equal(kc.sshd[0], "/opt/sshd");
	assert_string_equal(kc.sshd[1], "-i");
	assert_string_equal(kc.sshd[3], "/etc/x");
	assert_null(kc.sshd[4]);
	k8s_conf_free(&kc);
	assert_int_equal(conf("lab", none, &kc), 0);
	assert_string_equal(kc.sshd[0], "/usr/sbin/sshd");
	assert_string_equal(kc.sshd[1], "-i");
	assert_string_equal(kc.host_key, K8S_DEFAULT_HOSTKEY);
	assert_null(kc.namespace);
	k8s_conf_free(&kc);
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_int_equal(conf("lab", bad[i], &kc), CLAW_ERR_INVAL);
	assert_int_equal(conf(".lab", none, &kc), CLAW_ERR_INVAL);
	k8s_conf_free(NULL);
}

/* DNS-1123 labels and subdomains. */
static void
test_names(void **state)
{
	(void)state;
	assert_true(k8s_label_ok("claw-c3x4", 63));
	assert_false(k8s_label_ok("Claw", 63));
	assert_false(k8s_label_ok("-a", 63));
	assert_false(k8s_label_ok("a-", 63));
	assert_false(k8s_label_ok("a.b", 63));
	assert_false(k8s_label_ok("abcd", 3));
	assert_false(k8s_label_ok("", 63));
	assert_true(k8s_subdomain_ok("a.b-c.d"));
	assert_false(k8s_subdomain_ok("a..b"));
	assert_false(k8s_subdomain_ok(".a"));
	assert_false(k8s_subdomain_ok("a_b"));
}

/* Read claim text c (want: its name) into v; returns the result. */
static int
claim(const char *text, const char *want, struct k8s_view *v)
{
	cJSON	*j = cJSON_Parse(text);
	char	*why = NULL;
	int	 rc;

	assert_non_null(j);
	rc = k8s_claim_read(j, want, "lab", v, &why);
	if (rc != 0)
		assert_non_null(why);
	free(why);
	cJSON_Delete(j);
	return rc;
}

/* A claim just made, one bound, one whose pod the quota refused. */
static void
test_claim_states(void **state)
{
	struct k8s_view	v;

	(void)state;
	assert_int_equal(claim("{" API ", \"kind\": \"SandboxClaim\", " META
	    "}", "claw-c1", &v), 0);
	assert_int_equal(v.state, PROVIDER_PENDING);
	assert_true(v.ours);
	assert_null(v.sandbox);
	assert_string_equal(v.uid, "u-1");
	assert_string_equal(v.namespace, "agents");
	assert_string_equal(v.text, "waiting for the claim to be bound");
	k8s_view_clear(&v);

	assert_int_equal(claim("{" API ", \"kind\": \"SandboxClaim\", " META
	    ", \"status\": {\"sandbox\": {\"name\": \"pool-abcde\"}, "
	    "\"conditions\": [{\"type\": \"Ready\", \"status\": \"True\", "
	    "\"reason\": \"DependenciesReady\"}]}}", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_PENDING);	/* the pod decides */
	assert_string_equal(v.sandbox, "pool-abcde");
	k8s_view_clear(&v);

	assert_int_equal(claim("{" API ", \"kind\": \"SandboxClaim\", " META
	    ", \"status\": {\"sandbox\": {\"name\": \"claw-c1\"}, "
	    "\"conditions\": [{\"type\": \"Ready\", \"status\": \"False\", "
	    "\"reason\": \"ReconcilerError\", \"message\": \"Error seen: "
	    "exceeded quota:\\n gpu\\u0007\"}]}}", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_PENDING);
	assert_string_equal(v.text,
	    "ReconcilerError: Error seen: exceeded quota:  gpu ");
	k8s_view_clear(&v);
}

/* Expired, deleted, suspended, and a claim somebody else made. */
static void
test_claim_ended(void **state)
{
	struct k8s_view	v;

	(void)state;
	assert_int_equal(claim("{" API ", \"kind\": \"SandboxClaim\", " META
	    ", \"status\": {\"conditions\": [{\"type\": \"Ready\", \"status\": "
	    "\"False\", \"reason\": \"ClaimExpired\"}]}}", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_GONE);
	k8s_view_clear(&v);
	assert_int_equal(claim("{" API ", \"kind\": \"SandboxClaim\", "
	    "\"metadata\": {\"name\": \"claw-c1\", \"namespace\": \"a\", "
	    "\"uid\": \"u\", \"deletionTimestamp\": \"2026-01-01T00:00:00Z\", "
	    OURS "}}", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_GONE);
	assert_true(v.deleting);
	assert_string_equal(v.text, "Terminating");
	k8s_view_clear(&v);
	assert_int_equal(claim("{" API ", \"kind\": \"SandboxClaim\", " META
	    ", \"status\": {\"conditions\": [{\"type\": \"Ready\", \"status\": "
	    "\"False\", \"reason\": \"SandboxSuspended\"}]}}", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_FAILED);
	k8s_view_clear(&v);
	assert_int_equal(claim("{" API ", \"kind\": \"SandboxClaim\", "
	    "\"metadata\": {\"name\": \"claw-c1\", \"namespace\": \"a\", "
	    "\"uid\": \"u\", \"labels\": {\"clawssh/provider\": \"lab\"}}}",
	    NULL, &v), 0);
	assert_false(v.ours);
	assert_int_equal(v.state, PROVIDER_FAILED);
	k8s_view_clear(&v);
}

/* Answers that are not a v1beta1 claim of the right shape. */
static void
test_claim_bad(void **state)
{
	static const char *const bad[] = {
		"[]",
		"{\"apiVersion\": \"extensions.agents.x-k8s.io/v1alpha1\", "
		    "\"kind\": \"SandboxClaim\", " META "}",
		"{" API ", \"kind\": \"Sandbox\", " META "}",
		"{" API ", \"kind\": \"SandboxClaim\", \"metadata\": {\"name\":"
		    " \"claw-c2\", \"namespace\": \"a\", \"uid\": \"u\"}}",
		"{" API ", \"kind\": \"SandboxClaim\", \"metadata\": {\"name\":"
		    " \"claw-c1\", \"namespace\": \"a\", \"uid\": \"u v\"}}",
		"{" API ", \"kind\": \"SandboxClaim\", \"metadata\": {\"name\":"
		    " \"claw-c1\", \"namespace\": 7, \"uid\": \"u\"}}",
		"{" API ", \"kind\": \"SandboxClaim\", " META ", \"status\": "
		    "{\"sandbox\": {\"name\": 5}}}",
		"{" API ", \"kind\": \"SandboxClaim\", " META ", \"status\": "
		    "{\"sandbox\": {\"name\": \"../x\"}}}",
		"{" API ", \"kind\": \"SandboxClaim\", " META ", \"status\": "
		    "{\"conditions\": {\"type\": \"Ready\"}}}",
		"{" API ", \"kind\": \"SandboxClaim\", " META ", \"status\": "
		    "{\"conditions\": [{\"status\": \"True\"}]}}",
	};
	struct k8s_view	v;
	size_t		i;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(claim(bad[i], "claw-c1", &v), CLAW_ERR_PROTO);
		assert_null(v.uid);
	}
}

/* Judge a claim bound to "sb" (uid u-1) by pods text; returns rc. */
static int
pods(const char *items, const char *container, struct k8s_view *v)
{
	cJSON	*j = cJSON_Parse(items);
	char	*why = NULL;
	int	 rc;

	assert_non_null(j);
	memset(v, 0, sizeof *v);
	v->uid = xstrdup("u-1");
	v->namespace = xstrdup("agents");
	v->sandbox = xstrdup("sb");
	v->state = PROVIDER_PENDING;
	v->text = xstrdup("bound to Sandbox sb");
	rc = k8s_pod_read(j, container, v, &why);
	if (rc != 0)
		assert_non_null(why);
	free(why);
	cJSON_Delete(j);
	return rc;
}

#define POD(name, uid, status) "{\"metadata\": {\"name\": \"" name "\", " \
	"\"labels\": {\"agents.x-k8s.io/claim-uid\": \"" uid "\"}}, " \
	"\"spec\": {\"nodeName\": \"n7\", \"containers\": [{\"name\": " \
	"\"box\", \"resources\": {\"limits\": {\"nvidia.com/gpu\": \"2\"}}}," \
	" {\"name\": \"side\"}]}, \"status\": " status "}"
#define RUNNING	"{\"phase\": \"Running\", \"conditions\": [{\"type\": " \
	"\"Ready\", \"status\": \"True\"}]}"

/* Running and Ready, with the container asked for or the first. */
static void
test_pod_ready(void **state)
{
	struct k8s_view	v;

	(void)state;
	assert_int_equal(pods("[" POD("other", "u-2", "{}") ", "
	    POD("sb", "u-1", RUNNING) "]", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_READY);
	assert_string_equal(v.pod, "sb");
	assert_string_equal(v.container, "box");
	assert_string_equal(v.text, "Running on n7, 2 nvidia.com/gpu");
	k8s_view_clear(&v);
	assert_int_equal(pods("[" POD("sb", "u-1", RUNNING) "]", "side", &v),
	    0);
	assert_string_equal(v.container, "side");
	k8s_view_clear(&v);
	assert_int_equal(pods("[" POD("sb", "u-1", RUNNING) "]", "nope", &v),
	    CLAW_ERR_PROTO);
	k8s_view_clear(&v);
	assert_int_equal(pods("{}", NULL, &v), CLAW_ERR_PROTO);
	k8s_view_clear(&v);
}

/* Pending for a reason, failed, two pods, none yet, one being deleted. */
static void
test_pod_pending(void **state)
{
	struct k8s_view	v;

	(void)state;
	assert_int_equal(pods("[" POD("sb", "u-1", "{\"phase\": \"Pending\", "
	    "\"conditions\": [{\"type\": \"PodScheduled\", \"status\": "
	    "\"False\", \"reason\": \"Unschedulable\", \"message\": \"0/3 "
	    "nodes are available\"}]}") "]", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_PENDING);
	assert_string_equal(v.text, "Unschedulable: 0/3 nodes are available");
	k8s_view_clear(&v);
	assert_int_equal(pods("[" POD("sb", "u-1", "{\"phase\": \"Pending\", "
	    "\"containerStatuses\": [{\"state\": {\"running\": {}}}, "
	    "{\"state\": {\"waiting\": {\"reason\": \"ImagePullBackOff\", "
	    "\"message\": \"Back-off\"}}}]}") "]", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_PENDING);
	assert_string_equal(v.text, "ImagePullBackOff: Back-off");
	k8s_view_clear(&v);
	assert_int_equal(pods("[" POD("sb", "u-1", "{\"phase\": \"Pending\", "
	    "\"containerStatuses\": [{\"state\": {\"waiting\": {\"reason\": "
	    "\"InvalidImageName\"}}}]}") "]", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_FAILED);
	k8s_view_clear(&v);
	assert_int_equal(pods("[" POD("sb", "u-1", "{\"phase\": \"Running\", "
	    "\"containerStatuses\": [{\"state\": {\"waiting\": {\"reason\": "
	    "\"CrashLoopBackOff\"}}}]}") "]", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_PENDING);
	assert_string_equal(v.text, "CrashLoopBackOff");
	k8s_view_clear(&v);
	assert_int_equal(pods("[" POD("sb", "u-1", "{\"phase\": \"Failed\"}")
	    "]", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_FAILED);
	assert_string_equal(v.text, "pod Failed");
	k8s_view_clear(&v);
	assert_int_equal(pods("[" POD("a", "u-1", RUNNING) ", "
	    POD("b", "u-1", RUNNING) "]", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_PENDING);
	assert_string_equal(v.text, "2 pods for one claim");
	k8s_view_clear(&v);
	assert_int_equal(pods("[{\"metadata\": {\"name\": \"sb\", "
	    "\"deletionTimestamp\": \"x\", \"labels\": {\"agents.x-k8s.io/"
	    "claim-uid\": \"u-1\"}}}]", NULL, &v), 0);
	assert_int_equal(v.state, PROVIDER_PENDING);
	assert_string_equal(v.text, "bound to Sandbox sb");
	k8s_view_clear(&v);
	assert_int_equal(pods("[" POD("../x", "u-1", RUNNING) "]", NULL, &v),
	    CLAW_ERR_PROTO);
	k8s_view_clear(&v);
}

/* Warm pools: the one for the template with most ready sandboxes. */
static void
test_pools(void **state)
{
	cJSON	*j;
	char	*pool = NULL, *why = NULL;

	(void)state;
	j = cJSON_Parse("[{\"metadata\": {\"name\": \"b\"}, \"spec\": "
	    "{\"sandboxTemplateRef\": {\"name\": \"t\"}}}, {\"metadata\": "
	    "{\"name\": \"a\"}, \"spec\": {\"sandboxTemplateRef\": {\"name\": "
	    "\"t\"}}}, {\"metadata\": {\"name\": \"z\"}, \"spec\": "
	    "{\"sandboxTemplateRef\": {\"name\": \"t\"}}, \"status\": "
	    "{\"readyReplicas\": 2}}, {\"metadata\": {\"name\": \"o\"}, "
	    "\"spec\": {\"sandboxTemplateRef\": {\"name\": \"u\"}}, "
	    "\"status\": {\"readyReplicas\": 9}}]");
	assert_int_equal(k8s_pool_pick(j, "t", &pool, &why), 0);
	assert_string_equal(pool, "z");
	free(pool);
	cJSON_DeleteItemFromArray(j, 2);
	assert_int_equal(k8s_pool_pick(j, "t", &pool, &why), 0);
	assert_string_equal(pool, "a");
	free(pool);
	assert_int_equal(k8s_pool_pick(j, "v", &pool, &why),
	    CLAW_ERR_NOTFOUND);
	assert_non_null(strstr(why, "SandboxTemplate v"));
	free(why);
	cJSON_Delete(j);
	j = cJSON_Parse("[{\"metadata\": {\"name\": \"a\"}, \"spec\": {}}]");
	assert_int_equal(k8s_pool_pick(j, "t", &pool, &why), CLAW_ERR_PROTO);
	free(why);
	cJSON_Delete(j);
}

/* A template's GPUs: limits, requests, none, nonsense. */
static void
test_template_gpus(void **state)
{
	static const struct {
		const char	*res;
		int		 rc, gpus;
	} t[] = {
		{ "{\"limits\": {\"nvidia.com/gpu\": \"2\"}}", 0, 2 },
		{ "{\"requests\": {\"nvidia.com/gpu\": 1}}", 0, 1 },
		{ "{}", 0, 0 },
		{ "{\"limits\": {\"nvidia.com/gpu\": \"1.5\"}}",
		    CLAW_ERR_PROTO, 0 },
		{ "{\"limits\": {\"nvidia.com/gpu\": \"-1\"}}",
		    CLAW_ERR_PROTO, 0 },
	};
	cJSON	*j;
	char	 text[512], *why = NULL;
	size_t	 i;
	int	 n;

	(void)state;
	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		snprintf(text, sizeof text, "{\"kind\": \"SandboxTemplate\", "
		    "\"spec\": {\"podTemplate\": {\"spec\": {\"containers\": "
		    "[{\"name\": \"a\", \"resources\": %s}, {\"name\": \"b\"}]"
		    "}}}}", t[i].res);
		j = cJSON_Parse(text);
		n = -1;
		assert_int_equal(k8s_template_gpus(j, &n, &why), t[i].rc);
		if (t[i].rc == 0)
			assert_int_equal(n, t[i].gpus);
		free(why);
		why = NULL;
		cJSON_Delete(j);
	}
	j = cJSON_Parse("{\"kind\": \"Pod\"}");
	assert_int_equal(k8s_template_gpus(j, &n, &why), CLAW_ERR_PROTO);
	free(why);
	cJSON_Delete(j);
}

/* The claim manifest, read back. */
static void
test_manifest(void **state)
{
	char	*s = k8s_claim_manifest("claw-c1", "lab", "p1");
	cJSON	*j = cJSON_Parse(s);

	(void)state;
	assert_non_null(j);
	assert_string_equal(cJSON_GetObjectItem(j, "apiVersion")->valuestring,
	    K8S_API);
	assert_string_equal(cJSON_GetObjectItem(j, "kind")->valuestring,
	    "SandboxClaim");
	assert_non_null(strstr(s, "\"spec\":{\"warmPoolRef\":{\"name\":"
	    "\"p1\"}}"));
	assert_non_null(strstr(s, "\"app.kubernetes.io/managed-by\":"
	    "\"clawssh\",\"clawssh/provider\":\"lab\""));
	cJSON_Delete(j);
	free(s);
}

/* The ProxyCommand: every word quoted for sh, '%' doubled. */
static void
test_proxy_command(void **state)
{
	const char *const args[] = { "kubeconfig=/k/it's 100%", "context=c",
	    NULL };
	struct k8s_conf	 kc;
	char		*s;

	(void)state;
	assert_int_equal(conf("lab", args, &kc), 0);
	s = k8s_proxy_command("/bin/kubectl", &kc, "agents", "pod-1", "box");
	assert_string_equal(s, "'/bin/kubectl' --kubeconfig '/k/it'\\''s "
	    "100%%' --context 'c' --namespace 'agents' exec -i 'pod-1' -c "
	    "'box' -- '/usr/sbin/sshd' '-i'");
	free(s);
	k8s_conf_free(&kc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_claim_states),
		cmocka_unit_test(test_claim_ended),
		cmocka_unit_test(test_claim_bad),
		cmocka_unit_test(test_pod_ready),
		cmocka_unit_test(test_pod_pending),
		cmocka_unit_test(test_pools),
		cmocka_unit_test(test_template_gpus),
		cmocka_unit_test(test_manifest),
		cmocka_unit_test(test_proxy_command),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
