"""`/status` and `/scale` of the built-in kinds (registry/subresources.py), on both storage backends:
a status write changes only status, a main-resource write keeps status, Scale reads and writes
`spec.replicas` with upstream's codes and messages, and discovery lists the subresources as upstream."""
from __future__ import annotations

import copy
import json

import pytest

from .conftest import status_of
from .test_http_workloads import DEPLOYMENT, _body

MERGE = {"Content-Type": "application/merge-patch+json"}
STATUS_KINDS = [("apps", "deployments"), ("apps", "replicasets"), ("apps", "statefulsets"), ("apps", "daemonsets"),
                ("batch", "jobs"), ("batch", "cronjobs"), ("policy", "poddisruptionbudgets")]
SCALED = [("apps", "deployments"), ("apps", "replicasets"), ("apps", "statefulsets")]
CORE = {"pods": {"spec": {"containers": [{"name": "c", "image": "nginx"}]}},
        "services": {"spec": {"ports": [{"port": 80}]}},
        "resourcequotas": {"spec": {"hard": {"pods": "10"}}}}


NAMED_STATUS = {"jobs": {"active": 1}, "cronjobs": {"lastScheduleTime": "2026-01-01T00:00:00Z"}}
# what Go writes beside the status sent (k8s.io/api types.go): numbers without `omitempty` as 0 (apps/v1
# ReplicaSetStatus.Replicas, StatefulSetStatus.AvailableReplicas, DaemonSetStatus.NumberReady, policy/v1
# PodDisruptionBudgetStatus.DisruptionsAllowed, ...), by-value structs (ServiceStatus.LoadBalancer, a condition's
# metav1.Time written `null`), metav1.Condition's `reason` and `message` as ""
GO_WRITTEN = {"replicasets": {"replicas": 0}, "statefulsets": {"replicas": 0, "availableReplicas": 0},
              "daemonsets": dict.fromkeys(("currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled",
                                           "numberReady"), 0),
              "poddisruptionbudgets": dict.fromkeys(("disruptionsAllowed", "currentHealthy", "desiredHealthy",
                                                     "expectedPods"), 0),
              "pods": {"qosClass": "BestEffort", "conditions": [{"type": "X", "status": "True", "lastProbeTime": None,
                                                                 "lastTransitionTime": None}]},
              "services": {"loadBalancer": {}, "conditions": [{"type": "X", "status": "True",
                                                               "lastTransitionTime": None, "reason": "",
                                                               "message": ""}]}}


def _make(http, url, ns, group, plural, name="obj"):
    base = f"{url}/apis/{group}/v1/namespaces/{ns}/{plural}" if group else f"{url}/api/v1/namespaces/{ns}/{plural}"
    body = _body(group, plural, name) if group else {"metadata": {"name": name}, **copy.deepcopy(CORE[plural])}
    r = http.post(base, json=body)
    assert r.status_code == 201, r.text
    return f"{base}/{name}", r.json()


@pytest.mark.parametrize("group, plural", STATUS_KINDS + [("", p) for p in CORE])
def test_status_write_changes_only_status_and_main_write_keeps_status(http, url, namespaces, group, plural):
    ns = namespaces.create()["metadata"]["name"]
    path, obj = _make(http, url, ns, group, plural)
    r = http.get(f"{path}/status")
    assert r.status_code == 200 and r.json() == http.get(path).json()
    spec_before = obj["spec"]
    obj["spec"] = {"changed": True}
    # a field of the kind's status (JobStatus and CronJobStatus have no observedGeneration: a strict decode drops it)
    obj["status"] = NAMED_STATUS.get(plural, {"observedGeneration": 5}) if group else {
        "conditions": [{"type": "X", "status": "True"}]}
    obj["metadata"]["annotations"] = {"a": "b"}
    obj["metadata"].pop("resourceVersion")  # the quota controller writes a ResourceQuota's status meanwhile
    r = http.put(f"{path}/status", json=obj)
    assert r.status_code == 200, r.text
    out = r.json()
    assert out["spec"] == spec_before and out["metadata"]["annotations"] == {"a": "b"}
    controlled = plural == "resourcequotas"  # its status is the quota controller's too
    if not controlled:
        assert out["status"] == obj["status"] | GO_WRITTEN.get(plural, {})
    assert out["metadata"].get("generation") == obj["metadata"].get("generation")
    # the main resource ignores status
    cur = http.get(path).json()
    cur["status"] = {"observedGeneration": 9} if group else {"conditions": []}
    cur["metadata"].pop("resourceVersion")
    r = http.put(path, json=cur)
    assert r.status_code == 200, r.text
    assert controlled or r.json()["status"] == out["status"]
    assert r.json()["status"] != cur["status"]
    r = http.patch(f"{path}/status", data=json.dumps({"status": None}), headers=MERGE)
    assert r.status_code == 200, r.text


def test_deployment_status_keeps_labels_pod_status_keeps_owner_references(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    path, dep = _make(http, url, ns, "apps", "deployments")
    r = http.patch(f"{path}/status", data=json.dumps({"metadata": {"labels": {"x": "y"}, "annotations": {"n": "m"}}}),
                   headers=MERGE)
    assert r.status_code == 200 and "labels" not in r.json()["metadata"]
    assert r.json()["metadata"]["annotations"] == {"n": "m"}
    path, pod = _make(http, url, ns, "", "pods")
    owner = [{"apiVersion": "v1", "kind": "ConfigMap", "name": "o", "uid": "1"}]
    r = http.patch(f"{path}/status", data=json.dumps({"metadata": {"ownerReferences": owner, "labels": {"l": "v"}},
                                                      "status": {"qosClass": None}}), headers=MERGE)
    assert r.status_code == 200, r.text
    assert "ownerReferences" not in r.json()["metadata"] and r.json()["metadata"]["labels"] == {"l": "v"}
    assert r.json()["status"]["qosClass"] == "BestEffort"


def test_status_of_missing_object_and_unserved_kinds(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    r = http.put(f"{url}/apis/apps/v1/namespaces/{ns}/deployments/nope/status", json=DEPLOYMENT | {
        "metadata": {"name": "nope"}})
    assert status_of(r)["message"] == 'deployments.apps "nope" not found'
    assert r.status_code == 404
    for path in (f"/api/v1/namespaces/{ns}/configmaps/x/status", f"/apis/apps/v1/namespaces/{ns}/daemonsets/x/scale",
                 f"/apis/coordination.k8s.io/v1/namespaces/{ns}/leases/x/status"):
        assert http.get(url + path).status_code == 404, path
    r = http.post(f"{url}/apis/apps/v1/namespaces/{ns}/deployments/x/scale", json={})
    assert r.status_code == 405


@pytest.mark.parametrize("group, plural", SCALED)
def test_scale_reads_and_writes_replicas(http, url, namespaces, group, plural):
    ns = namespaces.create()["metadata"]["name"]
    path, obj = _make(http, url, ns, group, plural)
    r = http.get(f"{path}/scale")
    assert r.status_code == 200, r.text
    scale = r.json()
    meta = obj["metadata"]
    assert scale == {"kind": "Scale", "apiVersion": "autoscaling/v1",
                     "metadata": {"name": "obj", "namespace": ns, "uid": meta["uid"],
                                  "resourceVersion": meta["resourceVersion"],
                                  "creationTimestamp": meta["creationTimestamp"]},
                     "spec": {"replicas": 1}, "status": {"replicas": 0, "selector": "app=web"}}
    r = http.patch(f"{path}/scale", data=json.dumps({"spec": {"replicas": 3}}), headers=MERGE)
    assert r.status_code == 200 and r.json()["spec"] == {"replicas": 3}
    stored = http.get(path).json()
    assert stored["spec"]["replicas"] == 3 and stored["metadata"]["generation"] == 2
    assert r.json()["metadata"]["resourceVersion"] == stored["metadata"]["resourceVersion"]
    entry = [m for m in stored["metadata"]["managedFields"] if m.get("subresource") == "scale"]
    assert entry and entry[0]["fieldsV1"] == {"f:spec": {"f:replicas": {}}}
    scale = r.json()
    scale["spec"]["replicas"] = 0
    r = http.put(f"{path}/scale", json=scale)
    assert r.status_code == 200 and r.json()["spec"] == {}  # autoscaling/v1 omits a zero spec.replicas
    assert http.get(path).json()["spec"]["replicas"] == 0
    r = http.put(f"{path}/scale", json=scale)  # its resourceVersion is stale now
    assert r.status_code == 409
    assert status_of(r)["message"] == (f'Operation cannot be fulfilled on {plural}.apps "obj": the object has been '
                                       "modified; please apply your changes to the latest version and try again")


def test_scale_errors(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    path, obj = _make(http, url, ns, "apps", "deployments")
    r = http.patch(f"{path}/scale", data=json.dumps({"spec": {"replicas": -1}}), headers=MERGE)
    assert r.status_code == 422
    body = status_of(r)
    assert body["message"] == ('Scale.autoscaling "obj" is invalid: spec.replicas: Invalid value: -1: must be greater '
                               "than or equal to 0")
    assert body["details"] == {"name": "obj", "group": "autoscaling", "kind": "Scale", "causes": [
        {"reason": "FieldValueInvalid", "message": "Invalid value: -1: must be greater than or equal to 0",
         "field": "spec.replicas"}]}
    r = http.patch(f"{path}/scale", data=json.dumps({"spec": {"replicas": "two"}}), headers=MERGE)
    assert r.status_code == 422 and status_of(r)["message"].endswith(  # the patched Scale does not decode
        "json: cannot unmarshal string into Go struct field ScaleSpec.spec.replicas of type int32"), r.text
    r = http.patch(f"{path}/scale", params={"fieldManager": "m"}, headers={"Content-Type": "application/apply-patch+yaml"},
                   data="apiVersion: autoscaling/v1\nkind: Scale\nmetadata: {name: obj}\nspec: {replicas: two}\n")
    assert r.status_code == 500 and status_of(r)["message"] == (
        "failed to create typed patch object (/obj; autoscaling/v1, Kind=Scale): .spec.replicas: expected numeric "
        "(int or float), got string"), r.text
    assert http.get(path).json()["spec"]["replicas"] == obj["spec"]["replicas"]
    r = http.patch(f"{path}/scale", data=json.dumps({"metadata": {"uid": "other"}, "spec": {"replicas": 2}}),
                   headers=MERGE)
    assert r.status_code == 409
    assert status_of(r)["message"] == (
        f'Operation cannot be fulfilled on deployments/scale.apps "obj": Precondition failed: UID in precondition: '
        f'other, UID in object meta: {obj["metadata"]["uid"]}')
    r = http.put(f"{path}/scale", json={"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": {"name": "x"},
                                        "spec": {"replicas": 2}})
    assert r.status_code == 400
    assert status_of(r)["message"] == "the name of the object (x) does not match the name on the URL (obj)"
    r = http.put(f"{path}/scale", json={"apiVersion": "apps/v1", "kind": "Scale", "metadata": {"name": "obj"}})
    assert r.status_code == 400
    r = http.get(f"{url}/apis/apps/v1/namespaces/{ns}/deployments/nope/scale")
    assert r.status_code == 404 and status_of(r)["message"] == 'deployments.apps "nope" not found'
    assert http.get(path).json()["spec"]["replicas"] == 1


def test_discovery_lists_subresources_as_upstream(http, url):
    apps = {r["name"]: r for r in http.get(f"{url}/apis/apps/v1").json()["resources"]}
    for plural in ("deployments", "replicasets", "statefulsets"):
        assert apps[f"{plural}/scale"] == {"name": f"{plural}/scale", "singularName": "", "namespaced": True,
                                           "group": "autoscaling", "version": "v1", "kind": "Scale",
                                           "verbs": ["get", "patch", "update"]}
    for plural, kind in (("deployments", "Deployment"), ("daemonsets", "DaemonSet")):
        assert apps[f"{plural}/status"] == {"name": f"{plural}/status", "singularName": "", "namespaced": True,
                                            "kind": kind, "verbs": ["get", "patch", "update"]}
    assert "daemonsets/scale" not in apps
    batch = {r["name"] for r in http.get(f"{url}/apis/batch/v1").json()["resources"]}
    assert {"jobs/status", "cronjobs/status"} <= batch
    assert "poddisruptionbudgets/status" in {r["name"] for r in http.get(f"{url}/apis/policy/v1").json()["resources"]}
    core = {r["name"]: r for r in http.get(f"{url}/api/v1").json()["resources"]}
    for plural, kind in (("pods", "Pod"), ("services", "Service"), ("resourcequotas", "ResourceQuota")):
        assert core[f"{plural}/status"] == {"name": f"{plural}/status", "singularName": "", "namespaced": True,
                                            "kind": kind, "verbs": ["get", "patch", "update"]}
    accept = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
    groups = http.get(f"{url}/apis", headers={"Accept": accept}).json()["items"]
    deploy = next(r for g in groups if g["metadata"]["name"] == "apps" for r in g["versions"][0]["resources"]
                  if r["resource"] == "deployments")
    assert deploy["subresources"] == [
        {"subresource": "scale", "responseKind": {"group": "autoscaling", "version": "v1", "kind": "Scale"},
         "verbs": ["get", "patch", "update"]},
        {"subresource": "status", "responseKind": {"group": "apps", "version": "v1", "kind": "Deployment"},
         "verbs": ["get", "patch", "update"]}]


def test_openapi_serves_the_subresource_paths(http, url):
    doc = http.get(f"{url}/openapi/v3/apis/apps/v1").json()
    base = "/apis/apps/v1/namespaces/{namespace}/deployments/{name}"
    scale_ref = doc["paths"][f"{base}/scale"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert scale_ref == {"$ref": "#/components/schemas/io.k8s.api.autoscaling.v1.Scale"}
    assert doc["paths"][f"{base}/scale"]["patch"]["operationId"] == "patchAppsV1NamespacedDeploymentScale"
    assert doc["paths"][f"{base}/status"]["put"]["operationId"] == "replaceAppsV1NamespacedDeploymentStatus"
    scale = doc["components"]["schemas"]["io.k8s.api.autoscaling.v1.Scale"]
    assert scale["x-kubernetes-group-version-kind"] == [{"group": "autoscaling", "kind": "Scale", "version": "v1"}]
    assert set(scale["properties"]) == {"apiVersion", "kind", "metadata", "spec", "status"}


def test_scale_in_protobuf(http, url, namespaces):
    """A typed client (client-go's scale client) asks for and may send autoscaling/v1 Scale in protobuf."""
    from conformance.reference_server.wire import protobuf

    ns = namespaces.create()["metadata"]["name"]
    path, _ = _make(http, url, ns, "apps", "deployments")
    pb = "application/vnd.kubernetes.protobuf"
    r = http.get(f"{path}/scale", headers={"Accept": f"{pb}, application/json"})
    assert r.status_code == 200 and r.headers["Content-Type"] == pb
    scale = protobuf.decode_stored(r.content, "autoscaling/v1", "Scale")
    assert scale["spec"] == {"replicas": 1} and scale["status"]["selector"] == "app=web"
    scale["spec"]["replicas"] = 5
    r = http.put(f"{path}/scale", data=protobuf.encode_response(scale),
                 headers={"Content-Type": pb, "Accept": "application/json"})
    assert r.status_code == 200, r.text
    assert r.json()["spec"] == {"replicas": 5} and http.get(path).json()["spec"]["replicas"] == 5
