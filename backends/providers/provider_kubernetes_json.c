/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the kubernetes driver reads from "kubectl get -o json": a
 * SandboxClaim and its pods judged as one provider state, warm pools and
 * templates.  Everything here is hostile input: each field is checked for
 * its type and shape, and the cluster's own words are kept only as one
 * printable, bounded line.  See provider_kubernetes.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "error.h"
#include "provider.h"
#include "provider_kubernetes.h"
#include "xmalloc.h"

#define K8S_TEXT_MAX	300	/* bytes of the cluster's words kept */
#define K8S_UID_MAX	64

/* Ready reasons after which the claim's sandbox is gone or dead. */
static const char *const k8s_gone_reasons[] = {
	"ClaimExpired", "SandboxExpired", NULL
};
static const char *const k8s_failed_reasons[] = {
	"PodFailed", "PodSucceeded", "SandboxSuspended", NULL
};

/* Container waiting reasons that no wait will cure. */
static const char *const k8s_fatal_waits[] = {
	"InvalidImageName", "ErrImageNeverPull", NULL
};

/* Whether s is one of the words of v. */
static int
k8s_among(const char *s, const char *const *v)
{
	for (; s != NULL && *v != NULL; v++) {
		if (strcmp(s, *v) == 0)
			return 1;
	}
	return 0;
}

/* The member at a path of keys (NULL-terminated) of o, or NULL. */
static const cJSON *
k8s_at(const cJSON *o, ...)
{
	va_list		 ap;
	const char	*key;

	va_start(ap, o);
	while (o != NULL && (key = va_arg(ap, const char *)) != NULL)
		o = cJSON_IsObject(o) ?
		    cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
	va_end(ap);
	return o;
}

/* The string of j, or NULL when j is not a string. */
static const char *
k8s_s(const cJSON *j)
{
	return cJSON_IsString(j) ? j->valuestring : NULL;
}

/* Whether j is present and not null. */
static int
k8s_set(const cJSON *j)
{
	return j != NULL && !cJSON_IsNull(j);
}

/* "Reason: message" (either may be NULL) as one printable line. */
static char *
k8s_text(const char *reason, const char *msg)
{
	struct buf	 b = BUF_INIT;
	const char	*p;

	if (reason != NULL && *reason != '\0')
		buf_appendf(&b, "%.64s%s", reason,
		    msg != NULL && *msg != '\0' ? ": " : "");
	for (p = msg; p != NULL && *p != '\0' && b.len < K8S_TEXT_MAX; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			buf_append(&b, " ", 1);
		else
			buf_append(&b, p, 1);
	}
	return b.len > 0 ? buf_detach(&b) : xstrdup("");
}

/* Set *why (if not NULL) and return CLAW_ERR_PROTO. */
static int __attribute__((__format__(__printf__, 2, 3)))
k8s_bad(char **why, const char *fmt, ...)
{
	va_list	ap;

	if (why != NULL) {
		va_start(ap, fmt);
		*why = xvasprintf(fmt, ap);
		va_end(ap);
	}
	return CLAW_ERR_PROTO;
}

/* Whether s can be an object's uid (it goes into a label selector). */
static int
k8s_uid_ok(const char *s)
{
	size_t	n = strlen(s);

	return n > 0 && n <= K8S_UID_MAX && strspn(s, "0123456789"
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") == n;
}

/*
 * The condition of type in o's status.conditions; 0, or CLAW_ERR_PARSE if
 * malformed.
 */
static int
k8s_condition(const cJSON *o, const char *type, const cJSON **cond)
{
	const cJSON	*conds = k8s_at(o, "status", "conditions", NULL), *c;

	*cond = NULL;
	if (!k8s_set(conds))
		return 0;
	if (!cJSON_IsArray(conds))
		return CLAW_ERR_PARSE;
	cJSON_ArrayForEach(c, conds) {
		if (!cJSON_IsObject(c) || k8s_s(k8s_at(c, "type", NULL)) ==
		    NULL)
			return CLAW_ERR_PARSE;
		if (strcmp(k8s_s(k8s_at(c, "type", NULL)), type) == 0) {
			*cond = c;
			return 0;
		}
	}
	return 0;
}

/* Whether a condition's status is "True". */
static int
k8s_cond_true(const cJSON *cond)
{
	const char	*st = k8s_s(k8s_at(cond, "status", NULL));

	return st != NULL && strcmp(st, "True") == 0;
}

/* Check a claim's kind, name, namespace and uid into v. */
static int
k8s_claim_meta(const cJSON *c, const char *want, struct k8s_view *v,
    char **why)
{
	const char	*api = k8s_s(k8s_at(c, "apiVersion", NULL));
	const char	*kind = k8s_s(k8s_at(c, "kind", NULL));
	const char	*name = k8s_s(k8s_at(c, "metadata", "name", NULL));
	const char	*ns = k8s_s(k8s_at(c, "metadata", "namespace", NULL));
	const char	*uid = k8s_s(k8s_at(c, "metadata", "uid", NULL));

	if (api == NULL || kind == NULL || strcmp(api, K8S_API) != 0 ||
	    strcmp(kind, "SandboxClaim") != 0)
		return k8s_bad(why, "not a SandboxClaim of %s (apiVersion "
		    "%.64s, kind %.64s)", K8S_API, api != NULL ? api : "none",
		    kind != NULL ? kind : "none");
	if (name == NULL || !k8s_label_ok(name, K8S_NAME_MAX) ||
	    (want != NULL && strcmp(name, want) != 0))
		return k8s_bad(why, "the claim's metadata.name is missing, "
		    "malformed or another claim's");
	if (ns == NULL || !k8s_label_ok(ns, K8S_NAME_MAX))
		return k8s_bad(why, "the claim's metadata.namespace is missing "
		    "or malformed");
	if (uid == NULL || !k8s_uid_ok(uid))
		return k8s_bad(why, "the claim's metadata.uid is missing or "
		    "malformed");
	v->name = xstrdup(name);
	v->namespace = xstrdup(ns);
	v->uid = xstrdup(uid);
	return 0;
}

/* Whether the claim carries our labels for provider. */
static int
k8s_claim_ours(const cJSON *c, const char *provider)
{
	const char	*m, *p;

	m = k8s_s(k8s_at(c, "metadata", "labels", K8S_LABEL_MANAGED, NULL));
	p = k8s_s(k8s_at(c, "metadata", "labels", K8S_LABEL_PROVIDER, NULL));
	return m != NULL && p != NULL && strcmp(m, "clawssh") == 0 &&
	    strcmp(p, provider) == 0;
}

/* Judge a claim by its labels, deletion and Ready condition. */
static void
k8s_claim_judge(struct k8s_view *v, const cJSON *ready, const char *provider)
{
	const char	*reason = k8s_s(k8s_at(ready, "reason", NULL));
	const char	*msg = k8s_s(k8s_at(ready, "message", NULL));

	v->state = PROVIDER_PENDING;
	if (!v->ours) {
		v->state = PROVIDER_FAILED;
		v->text = xasprintf("the claim is not provider %s's (labels %s"
		    "=clawssh, %s=%s)", provider, K8S_LABEL_MANAGED,
		    K8S_LABEL_PROVIDER, provider);
		return;
	}
	if (v->deleting) {
		v->state = PROVIDER_GONE;
		v->text = xstrdup("Terminating");
		return;
	}
	if (k8s_among(reason, k8s_gone_reasons))
		v->state = PROVIDER_GONE;
	else if (k8s_among(reason, k8s_failed_reasons))
		v->state = PROVIDER_FAILED;
	if (reason != NULL && *reason != '\0')
		v->text = k8s_text(reason, msg);
	else if (v->sandbox == NULL)
		v->text = xstrdup("waiting for the claim to be bound");
	else
		v->text = xasprintf("bound to Sandbox %s", v->sandbox);
}

/* Read a SandboxClaim; see provider_kubernetes.h. */
int
k8s_claim_read(const cJSON *c, const char *want, const char *provider,
    struct k8s_view *v, char **why)
{
	const cJSON	*ready, *sb;
	const char	*sbname;
	int		 rc;

	memset(v, 0, sizeof *v);
	if (!cJSON_IsObject(c))
		return k8s_bad(why, "the claim is not a JSON object");
	if ((rc = k8s_claim_meta(c, want, v, why)) != 0)
		goto bad;
	sb = k8s_at(c, "status", "sandbox", "name", NULL);
	sbname = k8s_s(sb);
	if (k8s_set(sb) && (sbname == NULL || (*sbname != '\0' &&
	    !k8s_subdomain_ok(sbname)))) {
		rc = k8s_bad(why, "the claim's status.sandbox.name is "
		    "malformed");
		goto bad;
	}
	if (sbname != NULL && *sbname != '\0')
		v->sandbox = xstrdup(sbname);
	if (k8s_condition(c, "Ready", &ready) != 0) {
		rc = k8s_bad(why, "the claim's status.conditions are "
		    "malformed");
		goto bad;
	}
	v->ours = k8s_claim_ours(c, provider);
	v->deleting = k8s_set(k8s_at(c, "metadata", "deletionTimestamp",
	    NULL));
	k8s_claim_judge(v, ready, provider);
	return 0;
bad:
	k8s_view_clear(v);
	return rc;
}

/* A resource quantity that must be a whole count; CLAW_ERR_PARSE if not. */
static int
k8s_count(const cJSON *q)
{
	const char	*s = k8s_s(q);

	if (cJSON_IsNumber(q) && q->valuedouble >= 0 &&
	    q->valuedouble <= 1000 && q->valuedouble == (int)q->valuedouble)
		return (int)q->valuedouble;
	if (s == NULL || *s == '\0' || strlen(s) > 4 ||
	    strspn(s, "0123456789") != strlen(s))
		return CLAW_ERR_PARSE;
	return atoi(s);
}

/*
 * The GPUs containers ask for (limits, else requests); CLAW_ERR_PARSE if
 * malformed, CLAW_ERR_RANGE if over 1000.
 */
static int
k8s_containers_gpus(const cJSON *containers)
{
	const cJSON	*c, *q;
	int		 n, sum = 0;

	if (!cJSON_IsArray(containers))
		return CLAW_ERR_PARSE;
	cJSON_ArrayForEach(c, containers) {
		q = k8s_at(c, "resources", "limits", K8S_GPU_RESOURCE, NULL);
		if (!k8s_set(q))
			q = k8s_at(c, "resources", "requests",
			    K8S_GPU_RESOURCE, NULL);
		if (!k8s_set(q))
			continue;
		if ((n = k8s_count(q)) < 0)
			return n;
		if ((sum += n) > 1000)
			return CLAW_ERR_RANGE;
	}
	return sum;
}

/* The first waiting reason among a pod's (init) container statuses. */
static const cJSON *
k8s_pod_waiting(const cJSON *pod)
{
	static const char *const lists[] = { "initContainerStatuses",
	    "containerStatuses" };
	const cJSON	*st, *c, *w;
	size_t		 i;

	for (i = 0; i < 2; i++) {
		st = k8s_at(pod, "status", lists[i], NULL);
		if (!cJSON_IsArray(st))
			continue;
		cJSON_ArrayForEach(c, st) {
			w = k8s_at(c, "state", "waiting", NULL);
			if (k8s_s(k8s_at(w, "reason", NULL)) != NULL)
				return w;
		}
	}
	return NULL;
}

/* Judge a pod that is Pending: unschedulable, waiting, or starting. */
static void
k8s_pod_pending(const cJSON *pod, struct k8s_view *v)
{
	const cJSON	*sched, *w;
	const char	*reason;

	free(v->text);
	if (k8s_condition(pod, "PodScheduled", &sched) == 0 &&
	    sched != NULL && !k8s_cond_true(sched)) {
		v->text = k8s_text(k8s_s(k8s_at(sched, "reason", NULL)),
		    k8s_s(k8s_at(sched, "message", NULL)));
		return;
	}
	if ((w = k8s_pod_waiting(pod)) != NULL) {
		reason = k8s_s(k8s_at(w, "reason", NULL));
		v->text = k8s_text(reason, k8s_s(k8s_at(w, "message", NULL)));
		if (k8s_among(reason, k8s_fatal_waits))
			v->state = PROVIDER_FAILED;
		return;
	}
	v->text = xstrdup("pod Pending");
}

/* Judge a pod by its phase and Ready condition. */
static void
k8s_pod_judge(const cJSON *pod, struct k8s_view *v)
{
	const char	*phase = k8s_s(k8s_at(pod, "status", "phase", NULL));
	const char	*node = k8s_s(k8s_at(pod, "spec", "nodeName", NULL));
	const cJSON	*ready, *w;
	int		 gpus;

	if (phase == NULL)
		phase = "Unknown";
	gpus = k8s_containers_gpus(k8s_at(pod, "spec", "containers", NULL));
	if (strcmp(phase, "Running") == 0 && k8s_condition(pod, "Ready",
	    &ready) == 0 && k8s_cond_true(ready)) {
		free(v->text);
		v->state = PROVIDER_READY;
		if (gpus > 0)
			v->text = xasprintf("Running on %.64s, %d %s",
			    node != NULL ? node : "a node", gpus,
			    K8S_GPU_RESOURCE);
		else
			v->text = xasprintf("Running on %.64s",
			    node != NULL ? node : "a node");
	} else if (strcmp(phase, "Running") == 0) {
		w = k8s_pod_waiting(pod);
		free(v->text);
		v->text = w == NULL ? xstrdup("pod Running, not Ready") :
		    k8s_text(k8s_s(k8s_at(w, "reason", NULL)),
		    k8s_s(k8s_at(w, "message", NULL)));
	} else if (strcmp(phase, "Pending") == 0)
		k8s_pod_pending(pod, v);
	else if (strcmp(phase, "Failed") == 0 ||
	    strcmp(phase, "Succeeded") == 0) {
		free(v->text);
		v->state = PROVIDER_FAILED;
		v->text = xasprintf("pod %s%s", phase, strcmp(phase,
		    "Succeeded") == 0 ? ": its main process ended" : "");
	} else {
		free(v->text);
		v->text = xasprintf("pod phase %.32s", phase);
	}
}

/* The container to use: want if the pod has it, else its first. */
static const char *
k8s_pod_container(const cJSON *pod, const char *want)
{
	const cJSON	*cs = k8s_at(pod, "spec", "containers", NULL), *c;
	const char	*name;

	if (!cJSON_IsArray(cs))
		return NULL;
	cJSON_ArrayForEach(c, cs) {
		name = k8s_s(k8s_at(c, "name", NULL));
		if (name == NULL || !k8s_label_ok(name, K8S_NAME_MAX))
			return NULL;
		if (want == NULL || strcmp(name, want) == 0)
			return name;
	}
	return NULL;
}

/* The one live pod of v's claim among items; *n counts them. */
static const cJSON *
k8s_pod_find(const cJSON *items, const struct k8s_view *v, int *n)
{
	const cJSON	*p, *found = NULL;
	const char	*uid;

	*n = 0;
	cJSON_ArrayForEach(p, items) {
		uid = k8s_s(k8s_at(p, "metadata", "labels",
		    K8S_LABEL_CLAIM_UID, NULL));
		if (uid == NULL || strcmp(uid, v->uid) != 0 ||
		    k8s_set(k8s_at(p, "metadata", "deletionTimestamp", NULL)))
			continue;
		if ((*n)++ == 0)
			found = p;
	}
	return found;
}

/* Judge a bound claim by its pods; see provider_kubernetes.h. */
int
k8s_pod_read(const cJSON *items, const char *container, struct k8s_view *v,
    char **why)
{
	const cJSON	*pod;
	const char	*name, *cname;
	int		 n;

	if (v->state != PROVIDER_PENDING || v->sandbox == NULL)
		return 0;
	if (!cJSON_IsArray(items))
		return k8s_bad(why, "the pod list has no items array");
	if ((pod = k8s_pod_find(items, v, &n)) == NULL)
		return 0;	/* not made yet: the claim says why */
	name = k8s_s(k8s_at(pod, "metadata", "name", NULL));
	if (name == NULL || !k8s_subdomain_ok(name))
		return k8s_bad(why, "a pod's metadata.name is missing or "
		    "malformed");
	if ((cname = k8s_pod_container(pod, container)) == NULL)
		return k8s_bad(why, "pod %s has %s", name, container != NULL ?
		    "no container of the configured name" : "no container");
	free(v->text);
	v->text = NULL;
	if (n > 1) {
		v->text = xasprintf("%d pods for one claim", n);
		return 0;
	}
	v->pod = xstrdup(name);
	v->container = xstrdup(cname);
	k8s_pod_judge(pod, v);
	return 0;
}

/* Free a view; see provider_kubernetes.h. */
void
k8s_view_clear(struct k8s_view *v)
{
	if (v == NULL)
		return;
	free(v->name);
	free(v->uid);
	free(v->namespace);
	free(v->sandbox);
	free(v->pod);
	free(v->container);
	free(v->text);
	memset(v, 0, sizeof *v);
}

/* A warm pool's template; see provider_kubernetes.h. */
int
k8s_pool_template(const cJSON *pool, char **template, char **why)
{
	const char	*kind = k8s_s(k8s_at(pool, "kind", NULL));
	const char	*t;

	t = k8s_s(k8s_at(pool, "spec", "sandboxTemplateRef", "name", NULL));
	if (kind != NULL && strcmp(kind, "SandboxWarmPool") != 0)
		return k8s_bad(why, "not a SandboxWarmPool");
	if (t == NULL || !k8s_subdomain_ok(t))
		return k8s_bad(why, "the warm pool's spec.sandboxTemplateRef."
		    "name is missing or malformed");
	*template = xstrdup(t);
	return 0;
}

/* The pool for template among items; see provider_kubernetes.h. */
int
k8s_pool_pick(const cJSON *items, const char *template, char **pool,
    char **why)
{
	const cJSON	*p, *r;
	const char	*name, *best = NULL;
	char		*t;
	double		 ready, best_ready = -1;

	if (!cJSON_IsArray(items))
		return k8s_bad(why, "the warm pool list has no items array");
	cJSON_ArrayForEach(p, items) {
		name = k8s_s(k8s_at(p, "metadata", "name", NULL));
		if (name == NULL || !k8s_subdomain_ok(name) ||
		    k8s_pool_template(p, &t, NULL) != 0)
			return k8s_bad(why, "a warm pool in the list is "
			    "malformed");
		r = k8s_at(p, "status", "readyReplicas", NULL);
		ready = cJSON_IsNumber(r) ? r->valuedouble : 0;
		if (strcmp(t, template) == 0 && (ready > best_ready ||
		    (ready == best_ready && strcmp(name, best) < 0))) {
			best = name;
			best_ready = ready;
		}
		free(t);
	}
	if (best == NULL) {
		if (why != NULL)
			*why = xasprintf("no SandboxWarmPool refers to "
			    "SandboxTemplate %s", template);
		return CLAW_ERR_NOTFOUND;
	}
	*pool = xstrdup(best);
	return 0;
}

/* A template's GPU count; see provider_kubernetes.h. */
int
k8s_template_gpus(const cJSON *tmpl, int *gpus, char **why)
{
	const char	*kind = k8s_s(k8s_at(tmpl, "kind", NULL));
	int		 n;

	if (kind == NULL || strcmp(kind, "SandboxTemplate") != 0)
		return k8s_bad(why, "not a SandboxTemplate");
	n = k8s_containers_gpus(k8s_at(tmpl, "spec", "podTemplate", "spec",
	    "containers", NULL));
	if (n < 0)
		return k8s_bad(why, "the template's containers or their "
		    K8S_GPU_RESOURCE " resources are malformed");
	*gpus = n;
	return 0;
}
