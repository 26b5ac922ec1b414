"""POST `pods/<name>/eviction` (registry/eviction.py, http/eviction.py; upstream's eviction.go) on the bare
server, where no disruption controller runs: each test writes the budget's status itself, as the controller
would, to reach each branch (pending pods skip the budget, unhealthy-pod policies, checkAndDecrement's 429s,
several budgets, dry runs, the request's validation)."""
from __future__ import annotations

import json
from typing import Any

import pytest
import requests

from .conftest import status_of

MERGE = {"Content-Type": "application/merge-patch+json"}
LABELS = {"app": "web"}
TOO_MANY = "Cannot evict pod as it would violate the pod's disruption budget."


@pytest.fixture
def ns(namespaces: Any) -> str:
    return namespaces.create("evict")["metadata"]["name"]


def _pod(http: requests.Session, url: str, ns: str, name: str = "p", *, phase: str = "", ready: bool = False) -> dict:
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json={"metadata": {"name": name, "labels": LABELS}, "spec": {
        "containers": [{"name": "c", "image": "nginx"}]}})
    assert r.status_code == 201, r.text
    if phase:
        status: dict[str, Any] = {"phase": phase}
        if ready:
            status["conditions"] = [{"type": "Ready", "status": "True"}]
        r = http.patch(f"{url}/api/v1/namespaces/{ns}/pods/{name}/status", data=json.dumps({"status": status}),
                       headers=MERGE)
        assert r.status_code == 200, r.text
    return r.json()


def _pdb(http: requests.Session, url: str, ns: str, name: str = "b", status: dict | None = None, **spec: Any) -> dict:
    base = f"{url}/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets"
    r = http.post(base, json={"metadata": {"name": name}, "spec": {"selector": {"matchLabels": LABELS}, **spec}})
    assert r.status_code == 201, r.text
    if status is not None:  # what the disruption controller would write
        r = http.patch(f"{base}/{name}/status", data=json.dumps({"status": {"observedGeneration": 1, **status}}),
                       headers=MERGE)
        assert r.status_code == 200, r.text
    return r.json()


def _evict(http: requests.Session, url: str, ns: str, name: str = "p", body: dict | None = None,
           **params: str) -> requests.Response:
    eviction = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": name}} if body is None else body
    return http.post(f"{url}/api/v1/namespaces/{ns}/pods/{name}/eviction", json=eviction, params=params)


def _exists(http: requests.Session, url: str, ns: str, name: str = "p") -> bool:
    return http.get(f"{url}/api/v1/namespaces/{ns}/pods/{name}").status_code == 200


SUCCESS = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success", "code": 201}


def test_a_pending_pod_is_evicted_whatever_its_budget_says(http, url, ns, watch):
    """`canIgnorePDB`: a Pending pod (every pod of a cluster without nodes) is deleted at once; the
    `DisruptionTarget` condition is written just before (`addConditionAndDeletePod`)."""
    pod = _pod(http, url, ns)
    _pdb(http, url, ns, status={"disruptionsAllowed": 0, "desiredHealthy": 1, "expectedPods": 1})
    w = watch(f"{url}/api/v1/namespaces/{ns}/pods", {"resourceVersion": pod["metadata"]["resourceVersion"]})
    r = _evict(http, url, ns)
    assert (r.status_code, r.json()) == (201, SUCCESS)
    events = w.until(lambda e: e["type"] == "DELETED", what="the pod's deletion")
    modified = [e["object"] for e in events if e["type"] == "MODIFIED"]  # the condition, then deletionTimestamp
    assert not modified[0]["metadata"].get("deletionTimestamp")
    cond = [c for c in modified[0]["status"]["conditions"] if c["type"] == "DisruptionTarget"]
    assert [(c["status"], c["reason"], c["message"]) for c in cond] == \
        [("True", "EvictionByEvictionAPI", "Eviction API: evicting")]
    assert not _exists(http, url, ns)


def test_eviction_body_versions_and_names(http, url, ns):
    _pod(http, url, ns)
    r = _evict(http, url, ns, body={"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "other"}})
    assert r.status_code == 400
    assert status_of(r)["message"] == "name in URL does not match name in Eviction object"
    # the body is decoded into policy.Eviction as upstream's decoder does: an unknown pair, a kind without
    # conversion, a field of the wrong JSON type
    # (json.go returns `Scheme.New`'s error with the kind it read: `transformDecodeError` names it)
    r = _evict(http, url, ns, body={"apiVersion": "apps/v1", "kind": "Eviction", "metadata": {"name": "p"}})
    assert (r.status_code, r.json()["message"]) == (400, 'Eviction in version "v1" cannot be handled as a Eviction: '
                                                         'no kind "Eviction" is registered for version "apps/v1" in '
                                                         'scheme "pkg/api/legacyscheme/scheme.go:30"')
    r = _evict(http, url, ns, body={"apiVersion": "policy/v2", "Kind": "Eviction", "metadata": {"name": "p"}})
    assert (r.status_code, r.json()["message"]) == (400, 'Eviction in version "v2" cannot be handled as a Eviction: '
                                                         'no kind "Eviction" is registered for version "policy/v2" in '
                                                         'scheme "pkg/api/legacyscheme/scheme.go:30"')
    r = _evict(http, url, ns, body={"Kind": "PodDisruptionBudget", "metadata": {"name": "p"}})  # (`Interpret`'s)
    assert (r.status_code, r.json()["message"]) == (400, 'PodDisruptionBudget in version "v1" cannot be handled as a '
                                                         "Eviction: converting (v1.PodDisruptionBudget) to "
                                                         "(policy.Eviction): unknown conversion")
    r = _evict(http, url, ns, body={"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}})
    assert (r.status_code, r.json()["message"]) == (400, 'Pod in version "v1" cannot be handled as a Eviction: '
                                                         "converting (v1.Pod) to (policy.Eviction): unknown conversion")
    r = _evict(http, url, ns, body={"metadata": {"name": "p"}, "deleteOptions": {"preconditions": "x"}})
    assert (r.status_code, r.json()["message"]) == (400, 'Eviction in version "v1" cannot be handled as a Eviction: '
                                                         "json: cannot unmarshal string into Go struct field "
                                                         "DeleteOptions.deleteOptions.preconditions of type "
                                                         "v1.Preconditions")
    r = _evict(http, url, ns, "missing", body={"metadata": {"name": "missing"}})
    assert (r.status_code, r.json()["message"]) == (404, 'pods "missing" not found')
    assert _exists(http, url, ns)
    r = _evict(http, url, ns, body={"apiVersion": "policy/v1beta1", "kind": "Eviction", "metadata": {"name": "p"}})
    assert (r.status_code, r.json()) == (201, SUCCESS)  # AcceptsGroupVersion: v1 and v1beta1
    assert not _exists(http, url, ns)


def test_dry_run(http, url, ns):
    _pod(http, url, ns)
    r = _evict(http, url, ns, dryRun="All")
    assert (r.status_code, r.json()) == (201, SUCCESS)
    pod = http.get(f"{url}/api/v1/namespaces/{ns}/pods/p").json()
    assert "DisruptionTarget" not in [c["type"] for c in pod["status"].get("conditions", [])]
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p"},
            "deleteOptions": {"dryRun": ["All"]}}
    assert _evict(http, url, ns, body=body).status_code == 201 and _exists(http, url, ns)
    body["deleteOptions"]["dryRun"] = ["Bogus"]
    r = _evict(http, url, ns, body=body, dryRun="All")
    assert (r.status_code, status_of(r)["message"]) == \
        (500, "Non-matching dry-run options in request and content: [All] and [Bogus]")
    assert "reason" not in r.json()


def test_a_client_precondition_is_honoured(http, url, ns):
    _pod(http, url, ns)
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p"},
            "deleteOptions": {"preconditions": {"resourceVersion": "1"}}}
    r = _evict(http, url, ns, body=body)
    assert r.status_code == 409
    assert status_of(r)["message"].startswith('Operation cannot be fulfilled on Pod "p": the ResourceVersion in the '
                                              "precondition (1) does not match the ResourceVersion in record (")
    assert _exists(http, url, ns)


def test_a_running_pod_waits_for_the_controller_to_observe_its_budget(http, url, ns):
    _pod(http, url, ns, phase="Running")
    _pdb(http, url, ns, minAvailable=1)  # status not written yet: observedGeneration 0 < generation 1
    r = _evict(http, url, ns)
    assert r.status_code == 429 and r.headers["Retry-After"] == "10"
    assert status_of(r)["reason"] == "TooManyRequests"
    assert r.json()["message"] == TOO_MANY
    assert r.json()["details"] == {"causes": [{"reason": "DisruptionBudget", "message":
                                               "The disruption budget b is still being processed by the server."}],
                                   "retryAfterSeconds": 10}
    assert _exists(http, url, ns)


def test_an_unready_running_pod_is_refused_by_a_budget_without_healthy_pods(http, url, ns):
    _pod(http, url, ns, phase="Running")
    _pdb(http, url, ns, minAvailable=1, status={"disruptionsAllowed": 0, "desiredHealthy": 1, "expectedPods": 1})
    r = _evict(http, url, ns)
    assert r.status_code == 429 and "Retry-After" not in r.headers
    assert status_of(r) == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": TOO_MANY, "reason": "TooManyRequests", "details": {"causes": [{
                                "reason": "DisruptionBudget",
                                "message": "The disruption budget b needs 1 healthy pods and has 0 currently"}]},
                            "code": 429}
    assert _exists(http, url, ns)


@pytest.mark.parametrize("policy,status", [
    ("AlwaysAllow", {"disruptionsAllowed": 0, "desiredHealthy": 1, "expectedPods": 1}),
    ("IfHealthyBudget", {"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1, "expectedPods": 3}),
])
def test_an_unready_pod_goes_without_touching_the_budget(http, url, ns, policy, status):
    _pod(http, url, ns, phase="Running")
    pdb = _pdb(http, url, ns, minAvailable=1, unhealthyPodEvictionPolicy=policy, status=status)
    r = _evict(http, url, ns)
    assert (r.status_code, r.json()) == (201, SUCCESS)
    assert not _exists(http, url, ns)
    after = http.get(f"{url}/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/b").json()
    assert after["metadata"]["resourceVersion"] == pdb["metadata"]["resourceVersion"]


def test_a_ready_pod_takes_one_allowed_disruption(http, url, ns):
    _pod(http, url, ns, phase="Running", ready=True)
    _pdb(http, url, ns, minAvailable=1, status={"disruptionsAllowed": 1, "currentHealthy": 2, "desiredHealthy": 1,
                                                "expectedPods": 2})
    r = _evict(http, url, ns, dryRun="All")  # a dry run neither decrements nor records
    assert r.status_code == 201 and _exists(http, url, ns)
    assert "disruptedPods" not in http.get(f"{url}/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/b").json()[
        "status"]
    r = _evict(http, url, ns)
    assert (r.status_code, r.json()) == (201, SUCCESS)
    assert not _exists(http, url, ns)
    pdb = http.get(f"{url}/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets/b").json()
    status = pdb["status"]
    assert status["disruptionsAllowed"] == 0 and list(status["disruptedPods"]) == ["p"]
    assert ("kube-apiserver", "Update", "status") in [(m["manager"], m["operation"], m.get("subresource"))
                                                      for m in pdb["metadata"]["managedFields"]]
    assert [(c["type"], c["status"], c["reason"]) for c in status["conditions"]] == \
        [("DisruptionAllowed", "False", "InsufficientPods")]


def test_several_budgets_are_not_supported(http, url, ns):
    _pod(http, url, ns, phase="Running")
    _pdb(http, url, ns, "a", minAvailable=1)
    _pdb(http, url, ns, "b", maxUnavailable=1)
    r = _evict(http, url, ns)
    assert r.status_code == 500
    assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message":
                        "This pod has more than one PodDisruptionBudget, which the eviction subresource does not "
                        "support.", "code": 500}
    assert _exists(http, url, ns)


def test_a_budget_without_a_selector_covers_nothing(http, url, ns):
    _pod(http, url, ns, phase="Running")
    r = http.post(f"{url}/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets",
                  json={"metadata": {"name": "nosel"}, "spec": {"minAvailable": 1}})
    assert r.status_code == 201, r.text
    assert _evict(http, url, ns).status_code == 201 and not _exists(http, url, ns)


def test_discovery_lists_pods_eviction(http, url):
    resources = http.get(f"{url}/api/v1").json()["resources"]
    assert [r for r in resources if r["name"] == "pods/eviction"] == [{
        "name": "pods/eviction", "singularName": "", "namespaced": True, "group": "policy", "version": "v1",
        "kind": "Eviction", "verbs": ["create"]}]


@pytest.mark.parametrize("api_version", ["policy/v1", "policy/v1beta1"])
def test_a_protobuf_eviction(http, url, ns, api_version):
    """What typed clients (kubectl drain) send: the Eviction in protobuf, its deleteOptions honoured."""
    from conformance.reference_server.wire import protobuf as pb

    _pod(http, url, ns)
    raw = pb.encode_response({"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p"},
                              "deleteOptions": {"dryRun": ["All"]}})
    unknown = pb._CLASSES["runtime.Unknown"].FromString(raw[len(pb.MAGIC):])
    unknown.typeMeta.apiVersion = api_version  # the envelope's TypeMeta names the version
    raw = pb.MAGIC + unknown.SerializeToString()
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods/p/eviction", data=raw,
                  headers={"Content-Type": "application/vnd.kubernetes.protobuf"})
    assert (r.status_code, r.json()) == (201, SUCCESS)
    assert _exists(http, url, ns)  # the body's dryRun kept it
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods/p/eviction", data=b"k8s\x00garbage",
                  headers={"Content-Type": "application/vnd.kubernetes.protobuf"})
    assert r.status_code == 400
    assert r.json()["message"].startswith("the object provided is unrecognized (must be of type Eviction): ")


def test_openapi_documents_describe_pods_eviction(http, url):
    """kube-apiserver's `createCoreV1NamespacedPodEviction` with the policy/v1 Eviction as body and answer."""
    v2 = http.get(f"{url}/openapi/v2").json()
    post = v2["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/eviction"]["post"]
    assert (post["operationId"], post["x-kubernetes-action"], post["x-kubernetes-group-version-kind"]) == (
        "createCoreV1NamespacedPodEviction", "post", {"group": "policy", "kind": "Eviction", "version": "v1"})
    assert [p["schema"] for p in post["parameters"] if p["in"] == "body"] == \
        [{"$ref": "#/definitions/io.k8s.api.policy.v1.Eviction"}]
    assert sorted(post["responses"]) == ["200", "201", "202", "401"]
    eviction = v2["definitions"]["io.k8s.api.policy.v1.Eviction"]
    assert eviction["x-kubernetes-group-version-kind"] == [{"group": "policy", "kind": "Eviction", "version": "v1"}]
    assert set(eviction["properties"]) == {"apiVersion", "kind", "metadata", "deleteOptions"}
    v3 = http.get(f"{url}/openapi/v3/api/v1").json()
    assert "io.k8s.api.policy.v1.Eviction" in v3["components"]["schemas"]
    assert "post" in v3["paths"]["/api/v1/namespaces/{namespace}/pods/{name}/eviction"]


def test_rbac_create_on_pods_eviction():
    """`--authorization rbac`: the bootstrap `edit` role may evict (`create` on `pods/eviction`), a user without a
    binding gets upstream's 403."""
    from conformance.reference_server.embedded import start_embedded

    srv = start_embedded(flavor="bare", authorization="rbac", token="admin-token")
    s = requests.Session()
    s.headers["Authorization"] = "Bearer admin-token"
    try:
        assert s.post(f"{srv.url}/api/v1/namespaces", json={"metadata": {"name": "rb"}}).status_code == 201
        _pod(s, srv.url, "rb")
        rb = {"metadata": {"name": "alice"}, "subjects": [
            {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"}],
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "edit"}}
        assert s.post(f"{srv.url}/apis/rbac.authorization.k8s.io/v1/namespaces/rb/rolebindings",
                      json=rb).status_code == 201
        s.headers["Impersonate-User"] = "bob"
        r = _evict(s, srv.url, "rb")
        assert (r.status_code, r.json()["message"]) == (403, 'pods "p" is forbidden: User "bob" cannot create resource '
                                                             '"pods/eviction" in API group "" in the namespace "rb"')
        s.headers["Impersonate-User"] = "alice"
        assert (_evict(s, srv.url, "rb").status_code, _exists(s, srv.url, "rb")) == (201, False)
    finally:
        s.close()
        srv.stop()


def test_the_evictions_delete_options_reach_the_pod(http, url, ns):
    """A pod bound to a node is deleted gracefully, with the Eviction's `gracePeriodSeconds`."""
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json={"metadata": {"name": "p", "labels": LABELS}, "spec": {
        "nodeName": "n1", "terminationGracePeriodSeconds": 30, "containers": [{"name": "c", "image": "nginx"}]}})
    assert r.status_code == 201, r.text
    body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": "p"},
            "deleteOptions": {"gracePeriodSeconds": 7}}
    assert (_evict(http, url, ns, body=body).status_code) == 201
    pod = http.get(f"{url}/api/v1/namespaces/{ns}/pods/p").json()
    assert pod["metadata"]["deletionGracePeriodSeconds"] == 7 and pod["metadata"]["deletionTimestamp"]
    assert [c["reason"] for c in pod["status"]["conditions"] if c["type"] == "DisruptionTarget"] == \
        ["EvictionByEvictionAPI"]
    body["deleteOptions"]["gracePeriodSeconds"] = 0  # a terminating pod: no budget asked, deleted at once
    assert _evict(http, url, ns, body=body).status_code == 201 and not _exists(http, url, ns)
