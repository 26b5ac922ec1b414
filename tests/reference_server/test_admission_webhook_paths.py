"""Admission webhooks on every write path (http/webhookcalls.py): PATCH of each type, server-side apply (update and
create), `pods/status`, `deployments/scale` (the Scale itself), each item of a DELETE collection, with the review's
fields as `webhook/request/admissionreview.go` fills them; `reinvocationPolicy: IfNeeded`."""
from __future__ import annotations

import requests

from .crds import wait_crd
from .test_admission_webhooks import Hook, hook, ns, server  # noqa: F401 - the fixtures, per module
from .webhookconfig import configure, reviews, unconfigure

MERGE, JSONP, SMP = ("application/merge-patch+json", "application/json-patch+json",
                     "application/strategic-merge-patch+json")
APPLY = "application/apply-patch+yaml"


def test_patch_apply_status_and_scale_reach_webhooks(server, hook, ns):
    cfg = f"paths-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/allow", hook.ca_bundle,
              ["configmaps", "pods/status", "deployments/scale"])
    base = f"{server.url}/api/v1/namespaces/{ns}"
    try:
        r = requests.post(f"{base}/configmaps", json={"metadata": {"name": "c"}, "data": {"a": "b"}})
        assert r.status_code == 201, r.text
        for ctype, body in ((MERGE, '{"data":{"a":"m"}}'), (SMP, '{"data":{"a":"s"}}'),
                            (JSONP, '[{"op":"replace","path":"/data/a","value":"j"}]')):
            r = requests.patch(f"{base}/configmaps/c", params={"fieldManager": "fm1"}, data=body,
                               headers={"Content-Type": ctype})
            assert r.status_code == 200, r.text
        got = reviews(hook, ns, scheduler=False)
        assert [(q["operation"], q["object"]["data"]["a"], q["oldObject"] and q["oldObject"]["data"]["a"])
                for q in got] == [("CREATE", "b", None), ("UPDATE", "m", "b"), ("UPDATE", "s", "m"),
                                  ("UPDATE", "j", "s")]
        # a PATCH's PatchOptions reach the webhook as UpdateOptions (patchToUpdateOptions), with the query's manager
        assert got[1]["options"] == {"kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "fm1"}
        assert "subResource" not in got[1] and got[1]["dryRun"] is False

        hook.reviews.clear()
        r = requests.patch(f"{base}/configmaps/c", params={"fieldManager": "ap", "force": "true", "dryRun": "All"},
                           data="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: dry}\n",
                           headers={"Content-Type": APPLY})
        assert r.status_code == 200, r.text
        r = requests.patch(f"{base}/configmaps/new", params={"fieldManager": "ap"},
                           data="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: new}\ndata: {x: v}\n",
                           headers={"Content-Type": APPLY})
        assert r.status_code == 201, r.text
        dry, created = reviews(hook, ns, scheduler=False)
        assert (dry["operation"], dry["dryRun"], dry["object"]["data"], dry["options"]) == (
            "UPDATE", True, {"a": "dry"},
            {"kind": "UpdateOptions", "apiVersion": "meta.k8s.io/v1", "dryRun": ["All"], "fieldManager": "ap"})
        assert (created["operation"], created["oldObject"], created["options"]) == (
            "CREATE", None, {"kind": "CreateOptions", "apiVersion": "meta.k8s.io/v1", "fieldManager": "ap"})
        assert requests.get(f"{base}/configmaps/c").json()["data"] == {"a": "j"}  # the dry run wrote nothing

        hook.reviews.clear()
        pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
        assert requests.post(f"{base}/pods", json=pod).status_code == 201
        assert reviews(hook, ns, scheduler=False) == []  # `pods/status` matches the subresource only
        for _ in range(2000):  # kube-scheduler's own `pods/status` write (reviewed too) first: no race with ours
            if requests.get(f"{base}/pods/p").json().get("status", {}).get("conditions"):
                break
        r = requests.patch(f"{base}/pods/p/status", data='{"status":{"message":"hi"}}',
                           headers={"Content-Type": MERGE})
        assert r.status_code == 200, r.text
        (st,) = reviews(hook, ns, scheduler=False)
        assert (st["operation"], st["subResource"], st["requestSubResource"], st["kind"], st["resource"],
                st["requestResource"], st["object"]["status"]["message"]) == (
            "UPDATE", "status", "status", {"group": "", "version": "v1", "kind": "Pod"},
            {"group": "", "version": "v1", "resource": "pods"}, {"group": "", "version": "v1", "resource": "pods"},
            "hi")

        hook.reviews.clear()
        dep = {"metadata": {"name": "d"}, "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "d"}},
               "template": {"metadata": {"labels": {"app": "d"}},
                            "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}
        apps = f"{server.url}/apis/apps/v1/namespaces/{ns}/deployments"
        assert requests.post(apps, json=dep).status_code == 201
        r = requests.patch(f"{apps}/d/scale", data='{"spec":{"replicas":3}}', headers={"Content-Type": MERGE})
        assert r.status_code == 200 and r.json()["spec"]["replicas"] == 3, r.text
        (sc,) = reviews(hook, ns, scheduler=False)
        scale = {"group": "autoscaling", "version": "v1", "kind": "Scale"}
        assert (sc["kind"], sc["requestKind"], sc["resource"], sc["subResource"], sc["name"]) == (
            scale, scale, {"group": "apps", "version": "v1", "resource": "deployments"}, "scale", "d")
        assert (sc["object"]["kind"], sc["object"]["spec"]["replicas"], sc["oldObject"]["spec"]["replicas"]) == (
            "Scale", 3, 1)
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_refusals_on_patch_and_delete_collection(server, hook, ns):
    cfg = f"deny-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/deny", hook.ca_bundle,
              ["configmaps"], objectSelector={"matchLabels": {"deny": "yes"}})
    base = f"{server.url}/api/v1/namespaces/{ns}/configmaps"
    try:
        for name in ("keep", "go"):
            assert requests.post(base, json={"metadata": {"name": name, "labels": {"t": "x"}}}).status_code == 201
        r = requests.patch(f"{base}/keep", data='{"metadata":{"labels":{"t":"x","deny":"yes"}}}',
                           headers={"Content-Type": MERGE})
        assert r.status_code == 403, r.text
        assert r.json()["message"] == f'admission webhook "{cfg}.example.com" denied the request: ' \
                                      "no configmaps named deny-me"
        assert requests.get(f"{base}/keep").json()["metadata"]["labels"] == {"t": "x"}
        unconfigure(server, "validatingwebhookconfigurations", cfg)
        assert requests.put(f"{base}/keep", json={"metadata": {"name": "keep", "labels": {"t": "x", "deny": "yes"}}}
                            ).status_code == 200
        configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/deny", hook.ca_bundle,
                  ["configmaps"], objectSelector={"matchLabels": {"deny": "yes"}})
        hook.reviews.clear()
        # each item's DELETE is admitted on its own (upstream's DeleteCollection)
        r = requests.delete(base, params={"labelSelector": "t=x"})
        assert r.status_code == 403, r.text
        assert [(q["operation"], q["name"], q["options"]["kind"]) for q in reviews(hook, ns)] == [
            ("DELETE", "keep", "DeleteOptions")]
        left = requests.get(base, params={"labelSelector": "t=x"}).json()["items"]
        assert [c["metadata"]["name"] for c in left] == ["keep"]
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_reinvocation_if_needed(server, hook, ns):
    """Webhook a (IfNeeded) runs first; b changes the object after it, so a is called once more and sees b's
    label; a webhook with the default policy (Never) is not."""
    names = [f"{ns}-1a", f"{ns}-2b", f"{ns}-3c"]
    configure(server, "mutatingwebhookconfigurations", ns, names[0], f"{hook.url}/addlabel-a", hook.ca_bundle,
              ["configmaps"], reinvocationPolicy="IfNeeded")
    configure(server, "mutatingwebhookconfigurations", ns, names[1], f"{hook.url}/addlabel-b", hook.ca_bundle,
              ["configmaps"])
    configure(server, "mutatingwebhookconfigurations", ns, names[2], f"{hook.url}/addlabel-c", hook.ca_bundle,
              ["configmaps"])
    try:
        hook.reviews.clear()
        r = requests.post(f"{server.url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "r"}})
        assert r.status_code == 201, r.text
        assert r.json()["metadata"]["labels"] == {"a": "yes", "b": "yes", "c": "yes"}
        calls = [(path.split("?")[0], sorted((body["request"]["object"]["metadata"].get("labels") or {})))
                 for path, body in hook.reviews if body["request"].get("namespace") == ns]
        assert calls == [("/addlabel-a", []), ("/addlabel-b", ["a"]), ("/addlabel-c", ["a", "b"]),
                         ("/addlabel-a", ["a", "b", "c"])]
        hook.reviews.clear()  # a PATCH is mutated too: b puts its label back
        r = requests.patch(f"{server.url}/api/v1/namespaces/{ns}/configmaps/r",
                           data='{"metadata":{"labels":{"b":null}}}', headers={"Content-Type": MERGE})
        assert r.status_code == 200 and r.json()["metadata"]["labels"] == {"a": "yes", "b": "yes", "c": "yes"}
    finally:
        for name in names:
            unconfigure(server, "mutatingwebhookconfigurations", name)


def test_binding_and_token_requests_reach_webhooks(server, hook, ns):
    cfg = f"create-subs-{ns}"
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/allow", hook.ca_bundle,
              ["pods/binding", "serviceaccounts/token"])
    base = f"{server.url}/api/v1/namespaces/{ns}"
    try:
        pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "c", "image": "busybox"}]}}
        assert requests.post(f"{base}/pods", json=pod).status_code == 201
        assert requests.post(f"{base}/serviceaccounts", json={"metadata": {"name": "sa"}}).status_code == 201
        hook.reviews.clear()
        r = requests.post(f"{base}/pods/p/binding", json={"metadata": {"name": "p"}, "target": {"name": "n1"}})
        assert r.status_code == 201, r.text
        r = requests.post(f"{base}/serviceaccounts/sa/token", json={"spec": {"audiences": ["a"]}})
        assert r.status_code == 201, r.text
        binding, token = reviews(hook, ns)
        assert (binding["operation"], binding["kind"], binding["resource"], binding["subResource"],
                binding["name"], binding["object"]["target"]["name"], binding["options"]["kind"]) == (
            "CREATE", {"group": "", "version": "v1", "kind": "Binding"},
            {"group": "", "version": "v1", "resource": "pods"}, "binding", "p", "n1", "CreateOptions")
        assert (token["kind"], token["resource"], token["subResource"], token["name"]) == (
            {"group": "authentication.k8s.io", "version": "v1", "kind": "TokenRequest"},
            {"group": "", "version": "v1", "resource": "serviceaccounts"}, "token", "sa")
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)


def test_builtin_mutating_plugins_run_before_webhooks(server, hook, ns):
    """`plugins.go` order: ServiceAccount and Priority have mutated the pod before MutatingAdmissionWebhook sees it
    (before this change the webhook saw the pod as decoded)."""
    cfg = f"order-{ns}"
    configure(server, "mutatingwebhookconfigurations", ns, cfg, f"{hook.url}/allow", hook.ca_bundle, ["pods"])
    base = f"{server.url}/api/v1/namespaces/{ns}"
    try:
        assert requests.post(f"{base}/serviceaccounts", json={"metadata": {"name": "runner"}}).status_code == 201
        hook.reviews.clear()
        pod = {"metadata": {"name": "p"}, "spec": {"serviceAccountName": "runner",
                                                   "containers": [{"name": "c", "image": "busybox"}]}}
        assert requests.post(f"{base}/pods", json=pod).status_code == 201
        (seen,) = reviews(hook, ns)
        spec = seen["object"]["spec"]
        assert (spec["priority"], spec["preemptionPolicy"]) == (0, "PreemptLowerPriority")
        assert any(v.get("name", "").startswith("kube-api-access-") for v in spec["volumes"])
    finally:
        unconfigure(server, "mutatingwebhookconfigurations", cfg)


def test_custom_resource_scale_reaches_webhooks_as_a_scale(server, hook, ns):
    """`<plural>/scale` of a custom resource (registry/crscale.py): the webhook sees the autoscaling/v1 Scale built
    from the CRD's paths, new and old; the resource is the custom resource's."""
    group, plural, cfg = f"s{ns}.example.com".replace("-", ""), "gizmos", f"crscale-{ns}"
    crd = {"metadata": {"name": f"{plural}.{group}"}, "spec": {
        "group": group, "scope": "Namespaced", "names": {"plural": plural, "kind": "Gizmo"},
        "versions": [{"name": "v1", "served": True, "storage": True,
                      "subresources": {"scale": {"specReplicasPath": ".spec.size",
                                                 "statusReplicasPath": ".status.size"}},
                      "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                          "spec": {"type": "object", "properties": {"size": {"type": "integer"}}}}}}}]}}
    crds = f"{server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    assert requests.post(crds, json=crd).status_code == 201
    wait_crd(requests, server.url, f"{plural}.{group}")
    configure(server, "validatingwebhookconfigurations", ns, cfg, f"{hook.url}/allow", hook.ca_bundle,
              [f"{plural}/scale"], operations=["UPDATE"], api_groups=[group])
    base = f"{server.url}/apis/{group}/v1/namespaces/{ns}/{plural}"
    try:
        r = requests.post(base, json={"apiVersion": f"{group}/v1", "kind": "Gizmo", "metadata": {"name": "g"},
                                      "spec": {"size": 1}})
        assert r.status_code == 201, r.text
        r = requests.patch(f"{base}/g/scale", data='{"spec":{"replicas":4}}', headers={"Content-Type": MERGE})
        assert r.status_code == 200 and r.json()["spec"]["replicas"] == 4, r.text
        (sc,) = reviews(hook, ns)
        scale = {"group": "autoscaling", "version": "v1", "kind": "Scale"}
        assert (sc["kind"], sc["resource"], sc["subResource"], sc["name"]) == (
            scale, {"group": group, "version": "v1", "resource": plural}, "scale", "g")
        assert (sc["object"]["kind"], sc["object"]["spec"]["replicas"], sc["oldObject"]["spec"]["replicas"]) == (
            "Scale", 4, 1)
        assert requests.get(f"{base}/g").json()["spec"] == {"size": 4}
    finally:
        unconfigure(server, "validatingwebhookconfigurations", cfg)
        requests.delete(f"{crds}/{plural}.{group}")
