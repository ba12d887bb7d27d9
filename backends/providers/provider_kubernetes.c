/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "kubernetes" provider driver: kubernetes-sigs/agent-sandbox through
 * kubectl.  Every call is an argv (no shell) of the configured kubectl
 * with the settings' --kubeconfig, --context and --namespace, a deadline
 * and capped output (provider_run); what it prints is read as JSON by
 * provider_kubernetes_json.c.
 *
 *	get	kubectl get sandboxclaims.v1beta1.extensions.agents.x-k8s.io
 *		    NAME --ignore-not-found -o json, then the claim's pods
 *		    (kubectl get pods -l agents.x-k8s.io/claim-uid=UID -o json)
 *		    and, once one is Running and Ready, its host key
 *		    (kubectl exec POD -c C -- cat HOSTKEY)
 *	create	the SandboxClaim (kubectl create -f - -o name) against the
 *		    warm pool of the template asked for
 *	destroy	kubectl delete ... NAME --ignore-not-found --wait=false
 *	list	the claims labelled as this provider's, and their pods
 *
 * See provider_kubernetes.h and docs/providers-kubernetes.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "clock.h"
#include "error.h"
#include "provider.h"
#include "provider_kubernetes.h"
#include "xmalloc.h"

#define K8S_DEFAULT		"kubectl"
#define K8S_LIST_MAX		10000	/* claims in one list */
#define K8S_UIDS_PER_CALL	32	/* claims per pod query of list */
#define K8S_KEYS_MAX		(64 * 1024)
#define K8S_POLL_MS		250

/* The kubectl to run. */
static const char *
k8s_kubectl(const struct provider_conf *pc)
{
	return pc->command != NULL ? pc->command : K8S_DEFAULT;
}

/* Start an argv: kubectl and the global options; ns NULL: the setting. */
static void
k8s_argv_start(struct provider_argv *a, const struct provider_conf *pc,
    const struct k8s_conf *kc, const char *ns)
{
	memset(a, 0, sizeof *a);
	provider_argv_add(a, "%s", k8s_kubectl(pc));
	if (kc->kubeconfig != NULL)
		provider_argv_add(a, "--kubeconfig=%s", kc->kubeconfig);
	if (kc->context != NULL)
		provider_argv_add(a, "--context=%s", kc->context);
	if (ns != NULL || kc->namespace != NULL)
		provider_argv_add(a, "--namespace=%s", ns != NULL ? ns : kc->namespace);
}

/*
 * Run a (freed here) with input on stdin; exit status 0 is required.
 * On success *r holds the output (provider_run_free it).
 */
static int
k8s_run(const struct provider_conf *pc, struct provider_argv *a,
    const char *input, const char *what, struct provider_run *r,
    char **cause)
{
	int	rc;

	memset(r, 0, sizeof *r);
	rc = provider_run(pc, a->v, input, r, cause);
	provider_argv_free(a);
	if (rc == 0 && r->status != 0) {
		rc = provider_fail_run(cause, pc, what, r);
		provider_run_free(r);
	}
	return rc;
}

/* Whether out holds nothing but white space. */
static int
k8s_blank(const struct provider_run *r)
{
	return strspn(r->out, " \t\r\n") == r->len;
}

/* Parse all of r's output as one JSON value (white space after it). */
static cJSON *
k8s_parse(const struct provider_run *r)
{
	const char	*end = NULL;
	cJSON		*j;

	if (memchr(r->out, '\0', r->len) != NULL ||
	    (j = cJSON_ParseWithLengthOpts(r->out, r->len, &end, 0)) == NULL)
		return NULL;
	if (end == NULL || strspn(end, " \t\r\n") !=
	    r->len - (size_t)(end - r->out)) {
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}

/* Run a (freed here) and parse its output as one JSON object. */
static int
k8s_run_json(const struct provider_conf *pc, struct provider_argv *a,
    const char *what, cJSON **out, char **cause)
{
	struct provider_run	r;
	int			rc;

	*out = NULL;
	if ((rc = k8s_run(pc, a, NULL, what, &r, cause)) != 0)
		return rc;
	if (k8s_blank(&r))
		rc = 0;		/* --ignore-not-found: nothing */
	else if ((*out = k8s_parse(&r)) == NULL || !cJSON_IsObject(*out)) {
		cJSON_Delete(*out);
		*out = NULL;
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "%s: the answer "
		    "is not a JSON object", what);
	}
	provider_run_free(&r);
	return rc;
}

/* kubectl get KIND [NAME] [-l SELECTOR] -o json in ns (NULL: setting). */
static int
k8s_get_json(const struct provider_conf *pc, const struct k8s_conf *kc,
    const char *ns, const char *kind, const char *name, const char *sel,
    cJSON **out, char **cause)
{
	struct provider_argv	 a;
	char		*what;
	int		 rc;

	k8s_argv_start(&a, pc, kc, ns);
	provider_argv_add(&a, "get");
	provider_argv_add(&a, "%s", kind);
	if (name != NULL) {
		provider_argv_add(&a, "%s", name);
		provider_argv_add(&a, "--ignore-not-found");
	}
	if (sel != NULL) {
		provider_argv_add(&a, "-l");
		provider_argv_add(&a, "%s", sel);
	}
	provider_argv_add(&a, "-o");
	provider_argv_add(&a, "json");
	what = xasprintf("kubectl get %s%s%s", kind, name != NULL ? " " : "",
	    name != NULL ? name : "");
	rc = k8s_run_json(pc, &a, what, out, cause);
	if (rc == 0 && *out == NULL && name == NULL)
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "%s printed "
		    "nothing", what);
	free(what);
	return rc;
}

/* A List's "items" array, at most max long; NULL if there is none. */
static const cJSON *
k8s_items(const cJSON *list, int max)
{
	const cJSON	*items;

	items = cJSON_GetObjectItemCaseSensitive(list, "items");
	if (!cJSON_IsArray(items) || cJSON_GetArraySize(items) > max)
		return NULL;
	return items;
}

/* The claim called name as a view: ABSENT when kubectl has none. */
static int
k8s_claim_view(const struct provider_conf *pc, const struct k8s_conf *kc,
    const char *name, struct k8s_view *v, char **cause)
{
	cJSON	*claim;
	char	*why = NULL;
	int	 rc;

	memset(v, 0, sizeof *v);
	if ((rc = k8s_get_json(pc, kc, NULL, K8S_CLAIMS, name, NULL, &claim,
	    cause)) != 0)
		return rc;
	if (claim == NULL) {
		v->state = PROVIDER_ABSENT;
		v->text = xstrdup("no such SandboxClaim");
		return 0;
	}
	if ((rc = k8s_claim_read(claim, name, pc->name, v, &why)) != 0) {
		rc = provider_fail(cause, pc, rc, "kubectl get %s %s: %s",
		    K8S_CLAIMS, name, why);
		free(why);
	}
	cJSON_Delete(claim);
	return rc;
}

/* Judge the views v[0..n) (one namespace) by their pods, one query. */
static int
k8s_views_pods(const struct provider_conf *pc, const struct k8s_conf *kc,
    struct k8s_view **v, size_t n, char **cause)
{
	struct buf	 sel = BUF_INIT;
	cJSON		*list;
	const cJSON	*items;
	char		*why = NULL;
	size_t		 i;
	int		 rc;

	if (n == 0)
		return 0;
	buf_appendf(&sel, "%s in (", K8S_LABEL_CLAIM_UID);
	for (i = 0; i < n; i++)
		buf_appendf(&sel, "%s%s", i > 0 ? "," : "", v[i]->uid);
	buf_appendf(&sel, ")");
	rc = k8s_get_json(pc, kc, v[0]->namespace, "pods", NULL, sel.data,
	    &list, cause);
	buf_free(&sel);
	if (rc != 0)
		return rc;
	if ((items = k8s_items(list, K8S_LIST_MAX)) == NULL)
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "kubectl get "
		    "pods: no items array (of at most %d)", K8S_LIST_MAX);
	for (i = 0; rc == 0 && i < n; i++) {
		if ((rc = k8s_pod_read(items, kc->container, v[i],
		    &why)) != 0) {
			rc = provider_fail(cause, pc, rc, "kubectl get pods: "
			    "%s", why);
			free(why);
		}
	}
	cJSON_Delete(list);
	return rc;
}

/* The pod's public host keys: kubectl exec POD -- cat HOSTKEY. */
static int
k8s_host_keys(const struct provider_conf *pc, const struct k8s_conf *kc,
    const struct k8s_view *v, char **keys, char **cause)
{
	struct provider_argv		a;
	struct provider_run	r;
	size_t			len;
	int			rc;

	k8s_argv_start(&a, pc, kc, v->namespace);
	provider_argv_add(&a, "exec");
	provider_argv_add(&a, "%s", v->pod);
	provider_argv_add(&a, "-c");
	provider_argv_add(&a, "%s", v->container);
	provider_argv_add(&a, "--");
	provider_argv_add(&a, "cat");
	provider_argv_add(&a, "%s", kc->host_key);
	if ((rc = k8s_run(pc, &a, NULL, "kubectl exec (host key)", &r,
	    cause)) != 0)
		return rc;
	len = r.len;
	while (len > 0 && strchr(" \t\r\n", r.out[len - 1]) != NULL)
		len--;
	if (len == 0 || len > K8S_KEYS_MAX || memchr(r.out, '\0', len))
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "pod %s: %s "
		    "holds no public host key (hostKey= in args; \"none\" to "
		    "use known_hosts instead)", v->pod, kc->host_key);
	else
		*keys = xstrndup(r.out, len);
	provider_run_free(&r);
	return rc;
}

/* The endpoint of a ready view: its pod through kubectl exec. */
static int
k8s_endpoint(const struct provider_conf *pc, const struct k8s_conf *kc,
    const struct k8s_view *v, struct provider_endpoint *ep, char **cause)
{
	int	rc;

	if (kc->host_key != NULL &&
	    (rc = k8s_host_keys(pc, kc, v, &ep->host_keys, cause)) != 0)
		return rc;
	ep->host = xstrdup(v->pod);
	ep->user = kc->user != NULL ? xstrdup(kc->user) : NULL;
	ep->proxy_command = k8s_proxy_command(k8s_kubectl(pc), kc,
	    v->namespace, v->pod, v->container);
	return 0;
}

/* Move a view into a provider sandbox called name. */
static void
k8s_fill(const char *name, struct k8s_view *v, struct provider_sandbox *out)
{
	out->name = xstrdup(name);
	out->state = v->state;
	out->state_text = v->text;
	v->text = NULL;
}

/* Read the settings and check name; 0 or CLAW_ERR_INVAL. */
static int
k8s_open(const struct provider_conf *pc, const char *name,
    struct k8s_conf *kc, char **cause)
{
	int	rc;

	if ((rc = k8s_conf_parse(pc, kc, cause)) != 0)
		return rc;
	if (name != NULL && !k8s_label_ok(name, K8S_NAME_MAX)) {
		k8s_conf_free(kc);
		return provider_fail(cause, pc, CLAW_ERR_INVAL, "'%.80s' is "
		    "not a DNS-1123 label (a SandboxClaim name)", name);
	}
	return 0;
}

/* Look name up; see provider.h. */
static int
k8s_get(const struct provider_conf *pc, const char *name,
    struct provider_sandbox *out, char **cause)
{
	struct k8s_conf		 kc;
	struct k8s_view		 v, *vp = &v;
	int			 rc;

	memset(out, 0, sizeof *out);
	if ((rc = k8s_open(pc, name, &kc, cause)) != 0)
		return rc;
	if ((rc = k8s_claim_view(pc, &kc, name, &v, cause)) == 0 &&
	    v.state == PROVIDER_PENDING && v.sandbox != NULL)
		rc = k8s_views_pods(pc, &kc, &vp, 1, cause);
	if (rc == 0) {
		k8s_fill(name, &v, out);
		if (v.state == PROVIDER_READY &&
		    (rc = k8s_endpoint(pc, &kc, &v, &out->ep, cause)) != 0)
			provider_sandbox_clear(out);
	}
	k8s_view_clear(&v);
	k8s_conf_free(&kc);
	return rc;
}

/* kubectl delete the claim; *existed when kubectl named it deleted. */
static int
k8s_delete(const struct provider_conf *pc, const struct k8s_conf *kc,
    const char *name, int *existed, char **cause)
{
	struct provider_argv		 a;
	struct provider_run	 r;
	char			*want;
	size_t			 len;
	int			 rc;

	k8s_argv_start(&a, pc, kc, NULL);
	provider_argv_add(&a, "delete");
	provider_argv_add(&a, "%s", K8S_CLAIMS);
	provider_argv_add(&a, "%s", name);
	provider_argv_add(&a, "--ignore-not-found");
	provider_argv_add(&a, "--wait=false");
	provider_argv_add(&a, "-o");
	provider_argv_add(&a, "name");
	if ((rc = k8s_run(pc, &a, NULL, "kubectl delete", &r, cause)) != 0)
		return rc;
	want = xasprintf("%s/%s", K8S_CLAIM_KIND, name);
	len = r.len;
	while (len > 0 && strchr(" \t\r\n", r.out[len - 1]) != NULL)
		len--;
	*existed = len > 0;
	if (len > 0 && (len != strlen(want) || memcmp(r.out, want, len) != 0))
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "kubectl delete "
		    "%s: expected '%s' or nothing", name, want);
	free(want);
	provider_run_free(&r);
	return rc;
}

/* Sleep ms milliseconds. */
static void
k8s_sleep(int ms)
{
	struct timespec	ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/*
 * Make the name free for a new claim: nothing to do when absent; a claim
 * of ours that has ended (expired, or being deleted) is deleted and
 * waited for, up to the provider's timeout; anything else is in the way.
 */
static int
k8s_make_room(const struct provider_conf *pc, const struct k8s_conf *kc,
    const char *name, char **cause)
{
	struct k8s_view	v;
	int64_t		deadline;
	int		rc, existed;

	deadline = clock_now_ms() + (int64_t)pc->timeout * 1000;
	for (;;) {
		if ((rc = k8s_claim_view(pc, kc, name, &v, cause)) != 0)
			return rc;
		if (v.state == PROVIDER_ABSENT)
			break;
		if (v.state != PROVIDER_GONE || !v.ours) {
			rc = provider_fail(cause, pc, CLAW_ERR_EXISTS, "claim "
			    "%s already exists (%s: %s)", name,
			    provider_state_name(v.state), v.text);
			break;
		}
		if (!v.deleting && (rc = k8s_delete(pc, kc, name, &existed,
		    cause)) != 0)
			break;
		if (clock_now_ms() >= deadline) {
			rc = provider_fail(cause, pc, CLAW_ERR_TIMEOUT, "claim "
			    "%s still there %d s after its deletion", name,
			    pc->timeout);
			break;
		}
		k8s_view_clear(&v);
		k8s_sleep(K8S_POLL_MS);
	}
	k8s_view_clear(&v);
	return rc;
}

/* The pool that serves template: the one of the list that refers to it. */
static int
k8s_pool_find(const struct provider_conf *pc, const struct k8s_conf *kc,
    const char *template, char **pool, char **cause)
{
	cJSON		*list;
	const cJSON	*items;
	char		*why = NULL;
	int		 rc;

	if ((rc = k8s_get_json(pc, kc, NULL, K8S_POOLS, NULL, NULL, &list,
	    cause)) != 0)
		return rc;
	if ((items = k8s_items(list, K8S_LIST_MAX)) == NULL)
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "kubectl get %s: "
		    "no items array (of at most %d)", K8S_POOLS, K8S_LIST_MAX);
	else if ((rc = k8s_pool_pick(items, template, pool, &why)) != 0) {
		rc = provider_fail(cause, pc, rc, "%s%s", why,
		    rc == CLAW_ERR_NOTFOUND ? ": a v1beta1 claim needs one "
		    "(replicas: 0 for cold starts only)" : "");
		free(why);
	}
	cJSON_Delete(list);
	return rc;
}

/* The template of the configured warm pool. */
static int
k8s_pool_of(const struct provider_conf *pc, const struct k8s_conf *kc,
    char **template, char **cause)
{
	cJSON	*pool;
	char	*why = NULL;
	int	 rc;

	if ((rc = k8s_get_json(pc, kc, NULL, K8S_POOLS, kc->warm_pool, NULL,
	    &pool, cause)) != 0)
		return rc;
	if (pool == NULL)
		return provider_fail(cause, pc, CLAW_ERR_NOTFOUND, "there is "
		    "no SandboxWarmPool %s (warmPool= in args)", kc->warm_pool);
	if ((rc = k8s_pool_template(pool, template, &why)) != 0) {
		rc = provider_fail(cause, pc, rc, "SandboxWarmPool %s: %s",
		    kc->warm_pool, why);
		free(why);
	}
	cJSON_Delete(pool);
	return rc;
}

/*
 * The warm pool and template a new claim uses: --from names a template
 * (its pool is looked up); else warmPool=, else template= of the args.
 */
static int
k8s_pool_choose(const struct provider_conf *pc, const struct k8s_conf *kc,
    const char *from, char **pool, char **template, char **cause)
{
	int	rc;

	*pool = *template = NULL;
	if (from != NULL && !k8s_subdomain_ok(from))
		return provider_fail(cause, pc, CLAW_ERR_INVAL, "--from %.80s: "
		    "not a SandboxTemplate name", from);
	if (from == NULL && kc->warm_pool != NULL) {
		if ((rc = k8s_pool_of(pc, kc, template, cause)) == 0)
			*pool = xstrdup(kc->warm_pool);
		return rc;
	}
	if (from == NULL && kc->template == NULL)
		return provider_fail(cause, pc, CLAW_ERR_INVAL, "no template: "
		    "give --from TEMPLATE, or template= or warmPool= in args");
	*template = xstrdup(from != NULL ? from : kc->template);
	if ((rc = k8s_pool_find(pc, kc, *template, pool, cause)) != 0) {
		free(*template);
		*template = NULL;
	}
	return rc;
}

/* Check that template gives the GPUs asked for (-1: any, at least one). */
static int
k8s_gpus_check(const struct provider_conf *pc, const struct k8s_conf *kc,
    const char *template, int want, char **cause)
{
	cJSON	*t;
	char	*why = NULL;
	int	 rc, have;

	if ((rc = k8s_get_json(pc, kc, NULL, K8S_TEMPLATES, template, NULL,
	    &t, cause)) != 0)
		return rc;
	if (t == NULL)
		return provider_fail(cause, pc, CLAW_ERR_NOTFOUND, "there is "
		    "no SandboxTemplate %s", template);
	if ((rc = k8s_template_gpus(t, &have, &why)) != 0) {
		rc = provider_fail(cause, pc, rc, "SandboxTemplate %s: %s",
		    template, why);
		free(why);
	} else if (want < 0 ? have == 0 : have != want)
		rc = provider_fail(cause, pc, CLAW_ERR_UNSUPPORTED, "--gpu %s: "
		    "SandboxTemplate %s gives %d %s (a claim cannot change "
		    "resources: use --from with a template that has them)",
		    want < 0 ? "all" : "N", template, have, K8S_GPU_RESOURCE);
	cJSON_Delete(t);
	return rc;
}

/* kubectl create -f - with the claim; it must answer with its name. */
static int
k8s_create_claim(const struct provider_conf *pc, const struct k8s_conf *kc,
    const char *name, const char *pool, char **cause)
{
	struct provider_argv		 a;
	struct provider_run	 r;
	char			*manifest, *want;
	size_t			 len;
	int			 rc;

	manifest = k8s_claim_manifest(name, pc->name, pool);
	k8s_argv_start(&a, pc, kc, NULL);
	provider_argv_add(&a, "create");
	provider_argv_add(&a, "-f");
	provider_argv_add(&a, "-");
	provider_argv_add(&a, "-o");
	provider_argv_add(&a, "name");
	rc = k8s_run(pc, &a, manifest, "kubectl create", &r, cause);
	free(manifest);
	if (rc != 0)
		return rc;
	want = xasprintf("%s/%s", K8S_CLAIM_KIND, name);
	len = r.len;
	while (len > 0 && strchr(" \t\r\n", r.out[len - 1]) != NULL)
		len--;
	if (len != strlen(want) || memcmp(r.out, want, len) != 0)
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "kubectl create: "
		    "expected '%s'", want);
	free(want);
	provider_run_free(&r);
	return rc;
}

/* Claim a sandbox called name; see provider.h. */
static int
k8s_create(const struct provider_conf *pc, const char *name,
    const struct provider_request *req, char **cause)
{
	struct k8s_conf	 kc;
	char		*pool = NULL, *template = NULL;
	int		 rc;

	if ((rc = k8s_open(pc, name, &kc, cause)) != 0)
		return rc;
	if (req->policy != NULL || req->nextra > 0)
		rc = provider_fail(cause, pc, CLAW_ERR_UNSUPPORTED, "%s",
		    req->policy != NULL ? "--policy is not supported (the "
		    "template's networkPolicy applies)" : "extra arguments "
		    "are not supported");
	else if ((rc = k8s_pool_choose(pc, &kc, req->image, &pool, &template,
	    cause)) == 0 && (req->gpus == 0 || (rc = k8s_gpus_check(pc, &kc,
	    template, req->gpus, cause)) == 0) &&
	    (rc = k8s_make_room(pc, &kc, name, cause)) == 0)
		rc = k8s_create_claim(pc, &kc, name, pool, cause);
	free(pool);
	free(template);
	k8s_conf_free(&kc);
	return rc;
}

/* Delete name's claim, if it is ours; see provider.h. */
static int
k8s_destroy(const struct provider_conf *pc, const char *name, int *existed,
    char **cause)
{
	struct k8s_conf	kc;
	struct k8s_view	v;
	int		rc;

	*existed = 0;
	if ((rc = k8s_open(pc, name, &kc, cause)) != 0)
		return rc;
	if ((rc = k8s_claim_view(pc, &kc, name, &v, cause)) == 0 &&
	    v.state != PROVIDER_ABSENT) {
		if (!v.ours)
			rc = provider_fail(cause, pc, CLAW_ERR_PERM, "not "
			    "deleting claim %s: %s", name, v.text);
		else
			rc = k8s_delete(pc, &kc, name, existed, cause);
	}
	k8s_view_clear(&v);
	k8s_conf_free(&kc);
	return rc;
}

/* Read the claims of a list into views; n counts those read. */
static int
k8s_list_views(const struct provider_conf *pc, const cJSON *items,
    struct k8s_view *v, size_t *n, char **cause)
{
	const cJSON	*c;
	char		*why = NULL;
	int		 rc;

	*n = 0;
	cJSON_ArrayForEach(c, items) {
		if ((rc = k8s_claim_read(c, NULL, pc->name, &v[*n],
		    &why)) != 0) {
			rc = provider_fail(cause, pc, rc, "kubectl get %s: %s",
			    K8S_CLAIMS, why);
			free(why);
			return rc;
		}
		(*n)++;
	}
	return 0;
}

/* Judge the bound, pending views by their pods, K8S_UIDS_PER_CALL a go. */
static int
k8s_list_pods(const struct provider_conf *pc, const struct k8s_conf *kc,
    struct k8s_view *v, size_t n, char **cause)
{
	struct k8s_view	*batch[K8S_UIDS_PER_CALL];
	size_t		 i, k = 0;
	int		 rc = 0;

	for (i = 0; i < n && rc == 0; i++) {
		if (v[i].state == PROVIDER_PENDING && v[i].sandbox != NULL)
			batch[k++] = &v[i];
		if (k == K8S_UIDS_PER_CALL || (i + 1 == n && k > 0)) {
			rc = k8s_views_pods(pc, kc, batch, k, cause);
			k = 0;
		}
	}
	return rc;
}

/* Every claim labelled as this provider's; see provider.h. */
static int
k8s_list(const struct provider_conf *pc, struct provider_sandbox **out,
    size_t *nout, char **cause)
{
	struct k8s_conf		 kc;
	struct k8s_view		*v = NULL;
	struct provider_sandbox	*sb = NULL;
	cJSON			*list = NULL;
	const cJSON		*items;
	char			*sel;
	size_t			 i, n = 0;
	int			 rc;

	if ((rc = k8s_open(pc, NULL, &kc, cause)) != 0)
		return rc;
	sel = xasprintf("%s=clawssh,%s=%s", K8S_LABEL_MANAGED,
	    K8S_LABEL_PROVIDER, pc->name);
	rc = k8s_get_json(pc, &kc, NULL, K8S_CLAIMS, NULL, sel, &list, cause);
	free(sel);
	if (rc == 0 && (items = k8s_items(list, K8S_LIST_MAX)) == NULL)
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "kubectl get %s: "
		    "no items array (of at most %d)", K8S_CLAIMS, K8S_LIST_MAX);
	if (rc == 0) {
		v = xcalloc((size_t)cJSON_GetArraySize(items) + 1, sizeof *v);
		if ((rc = k8s_list_views(pc, items, v, &n, cause)) == 0)
			rc = k8s_list_pods(pc, &kc, v, n, cause);
	}
	if (rc == 0) {
		sb = xcalloc(n + 1, sizeof *sb);
		for (i = 0; i < n; i++)
			k8s_fill(v[i].name, &v[i], &sb[i]);
		*out = sb;
		*nout = n;
	}
	for (i = 0; v != NULL && i < n; i++)
		k8s_view_clear(&v[i]);
	free(v);
	cJSON_Delete(list);
	k8s_conf_free(&kc);
	return rc;
}

const struct provider_ops provider_kubernetes = {
	.driver = "kubernetes",
	.name_max = K8S_NAME_MAX,
	.get = k8s_get,
	.create = k8s_create,
	.destroy = k8s_destroy,
	.list = k8s_list,
};
