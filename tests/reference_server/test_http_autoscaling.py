"""HorizontalPodAutoscalers in `autoscaling/v1` and `autoscaling/v2` (registry/autoscaling.py, autoscaling_v1.py,
versions.py): one stored object, readable and writable in either version with upstream's conversion (the CPU
target as v1's field, every other metric, current metric, condition and the behavior in the
`autoscaling.alpha.kubernetes.io/*` annotations), v2 defaults, validation errors in upstream's words and order,
watch in the watcher's version, `/status`, tables and protobuf, removal with the namespace."""
from __future__ import annotations

import json

from .conftest import status_of, wait_gone

V1, V2 = "autoscaling/v1", "autoscaling/v2"
REF = {"kind": "Deployment", "name": "web", "apiVersion": "apps/v1"}
MEMORY = {"type": "Resource", "resource": {"name": "memory", "target": {"type": "AverageValue",
                                                                        "averageValue": "100Mi"}}}
CPU60 = {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 60}}}
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io"
PROTOBUF = "application/vnd.kubernetes.protobuf"


def _base(url: str, version: str, ns: str) -> str:
    return f"{url}/apis/{version}/namespaces/{ns}/horizontalpodautoscalers"


def _create(http, url, ns, version, name, spec):
    r = http.post(_base(url, version, ns), json={"apiVersion": version, "kind": "HorizontalPodAutoscaler",
                                                 "metadata": {"name": name}, "spec": spec})
    assert r.status_code == 201, r.text
    return r.json()


def test_v1_write_reads_as_v2_with_the_cpu_metric(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    created = _create(http, url, ns, V1, "a", {"scaleTargetRef": REF, "maxReplicas": 5,
                                               "targetCPUUtilizationPercentage": 50})
    assert created["apiVersion"] == V1
    assert created["spec"] == {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5,
                               "targetCPUUtilizationPercentage": 50}
    assert created["status"] == {"currentReplicas": 0, "desiredReplicas": 0}
    v2 = http.get(f"{_base(url, V2, ns)}/a").json()
    assert v2["apiVersion"] == V2
    assert v2["spec"] == {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5, "metrics": [
        {"type": "Resource", "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 50}}}]}
    assert "annotations" not in v2["metadata"]
    assert v2["metadata"]["resourceVersion"] == created["metadata"]["resourceVersion"]  # one stored object
    # without a CPU target, v1's conversion applies the old implicit default: CPU at 80%
    _create(http, url, ns, V1, "b", {"scaleTargetRef": REF, "maxReplicas": 3})
    metrics = http.get(f"{_base(url, V2, ns)}/b").json()["spec"]["metrics"]
    assert metrics == [{"type": "Resource", "resource": {"name": "cpu", "target": {
        "type": "Utilization", "averageUtilization": 80}}}]
    assert http.get(f"{_base(url, V1, ns)}/b").json()["spec"]["targetCPUUtilizationPercentage"] == 80


def test_v2_write_reads_as_v1_with_annotations_and_round_trips(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    created = _create(http, url, ns, V2, "h", {"scaleTargetRef": REF, "maxReplicas": 5, "metrics": [MEMORY, CPU60],
                                               "behavior": {"scaleDown": {"stabilizationWindowSeconds": 30}}})
    # pkg/apis/autoscaling/v2/defaults.go: minReplicas 1, every unset scaling rule field defaulted
    assert created["spec"]["minReplicas"] == 1
    assert created["spec"]["behavior"] == {
        "scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                    "policies": [{"type": "Pods", "value": 4, "periodSeconds": 15},
                                 {"type": "Percent", "value": 100, "periodSeconds": 15}]},
        "scaleDown": {"stabilizationWindowSeconds": 30, "selectPolicy": "Max",
                      "policies": [{"type": "Percent", "value": 100, "periodSeconds": 15}]}}
    v1 = http.get(f"{_base(url, V1, ns)}/h").json()
    assert v1["spec"] == {"scaleTargetRef": REF, "minReplicas": 1, "maxReplicas": 5,
                          "targetCPUUtilizationPercentage": 60}
    ann = v1["metadata"]["annotations"]
    assert list(ann) == ["autoscaling.alpha.kubernetes.io/behavior", "autoscaling.alpha.kubernetes.io/metrics"]
    assert ann["autoscaling.alpha.kubernetes.io/metrics"] == \
        '[{"type":"Resource","resource":{"name":"memory","targetAverageValue":"100Mi"}}]'
    assert json.loads(ann["autoscaling.alpha.kubernetes.io/behavior"])["ScaleDown"] == {
        "StabilizationWindowSeconds": 30, "SelectPolicy": "Max",
        "Policies": [{"Type": "Percent", "Value": 100, "PeriodSeconds": 15}], "Tolerance": None}
    # a v1 client's update (annotations included) keeps every v2 field
    v1["spec"]["maxReplicas"] = 7
    r = http.put(f"{_base(url, V1, ns)}/h", json=v1)
    assert r.status_code == 200, r.text
    assert r.json()["metadata"]["annotations"] == ann
    back = http.get(f"{_base(url, V2, ns)}/h").json()
    assert back["spec"] == {**created["spec"], "maxReplicas": 7}
    assert "annotations" not in back["metadata"]  # the round-trip annotations never reach storage
    # a v1 merge patch on the CPU target changes the v2 metric in place, the memory metric kept first
    r = http.patch(f"{_base(url, V1, ns)}/h", json={"spec": {"targetCPUUtilizationPercentage": 70}},
                   headers={"Content-Type": "application/merge-patch+json"})
    assert r.status_code == 200, r.text
    metrics = http.get(f"{_base(url, V2, ns)}/h").json()["spec"]["metrics"]
    assert [m["resource"]["name"] for m in metrics] == ["memory", "cpu"]
    assert metrics[1]["resource"]["target"]["averageUtilization"] == 70


def test_status_and_conditions_through_v1(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    obj = _create(http, url, ns, V2, "s", {"scaleTargetRef": REF, "maxReplicas": 4})
    cond = {"type": "AbleToScale", "status": "False", "lastTransitionTime": "2026-01-01T00:00:00Z",
            "reason": "FailedGetScale", "message": "the HPA controller was unable to get the target's current scale"}
    obj["status"] = {"currentReplicas": 2, "desiredReplicas": 3, "conditions": [cond],
                     "currentMetrics": [{"type": "Resource", "resource": {"name": "cpu", "current": {
                         "averageValue": "250m", "averageUtilization": 40}}}]}
    r = http.put(f"{_base(url, V2, ns)}/s/status", json=obj)
    assert r.status_code == 200, r.text
    v1 = http.get(f"{_base(url, V1, ns)}/s/status").json()
    assert v1["status"] == {"currentReplicas": 2, "desiredReplicas": 3, "currentCPUUtilizationPercentage": 40}
    ann = v1["metadata"]["annotations"]
    assert json.loads(ann["autoscaling.alpha.kubernetes.io/conditions"]) == [cond]
    assert ann["autoscaling.alpha.kubernetes.io/current-metrics"] == \
        '[{"type":"Resource","resource":{"name":"cpu","currentAverageUtilization":40,"currentAverageValue":"250m"}}]'
    # ValidateHorizontalPodAutoscalerStatusUpdate
    v1["status"]["desiredReplicas"] = -1
    r = http.put(f"{_base(url, V1, ns)}/s/status", json=v1)
    assert r.status_code == 422
    assert status_of(r)["message"] == ('HorizontalPodAutoscaler.autoscaling "s" is invalid: status.desiredReplicas: '
                                       'Invalid value: -1: must be greater than or equal to 0')


def test_validation_errors_in_upstream_order(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(_base(url, V2, ns), json={"metadata": {"name": "bad"}, "spec": {
        "minReplicas": 0, "scaleTargetRef": {"kind": "Deployment"},
        "metrics": [{"type": "Pods", "resource": {"name": "cpu", "target": {"type": "Utilization",
                                                                            "averageUtilization": 0}}}],
        "behavior": {"scaleUp": {"selectPolicy": "Sometimes", "policies": [{"type": "Pods", "value": 0,
                                                                            "periodSeconds": 1801}]}}}})
    assert r.status_code == 422
    body = status_of(r)
    assert body["details"]["group"] == "autoscaling" and body["details"]["kind"] == "HorizontalPodAutoscaler"
    assert [(c["field"], c["reason"]) for c in body["details"]["causes"]] == [
        ("spec.minReplicas", "FieldValueInvalid"), ("spec.maxReplicas", "FieldValueInvalid"),
        ("spec.scaleTargetRef.name", "FieldValueRequired"),
        ("spec.metrics[0].resource.target.averageUtilization", "FieldValueInvalid"),
        ("spec.metrics[0].pods", "FieldValueRequired"),
        ("spec.behavior.scaleUp.selectPolicy", "FieldValueNotSupported"),
        ("spec.behavior.scaleUp.policies[0].value", "FieldValueInvalid"),
        ("spec.behavior.scaleUp.policies[0].periodSeconds", "FieldValueInvalid")]
    assert body["message"].startswith(
        'HorizontalPodAutoscaler.autoscaling "bad" is invalid: [spec.minReplicas: Invalid value: 0: must be greater '
        'than or equal to 1, spec.maxReplicas: Invalid value: 0: must be greater than 0, '
        'spec.scaleTargetRef.name: Required value, ')
    assert 'spec.behavior.scaleUp.selectPolicy: Unsupported value: "Sometimes": supported values: "Disabled", ' \
           '"Max", "Min"' in body["message"]
    # a metric with a second source: only the first present (object, external, pods, resource, containerResource)
    # is validated, every other one is refused
    r = http.post(_base(url, V2, ns), json={"metadata": {"name": "two"}, "spec": {
        "scaleTargetRef": REF, "maxReplicas": 1, "metrics": [{**CPU60, "pods": MEMORY["resource"]}]}})
    assert status_of(r)["message"] == (
        'HorizontalPodAutoscaler.autoscaling "two" is invalid: [spec.metrics[0].pods.metric.name: Required value: '
        'must specify a metric name, spec.metrics[0].pods: Forbidden: must populate the given metric source only]')
    # a string where v2 has an int32 is a decoding error (400), never a validation crash
    r = http.post(_base(url, V2, ns), json={"metadata": {"name": "str"}, "spec": {
        "scaleTargetRef": REF, "maxReplicas": "5"}})
    assert r.status_code == 400
    assert status_of(r)["message"] == (
        'HorizontalPodAutoscaler in version "v2" cannot be handled as a HorizontalPodAutoscaler: json: cannot '
        'unmarshal string into Go struct field HorizontalPodAutoscalerSpec.spec.maxReplicas of type int32')
    # the same rules judge a v1 write (upstream validates the internal object)
    r = http.post(_base(url, V1, ns), json={"metadata": {"name": "bad1"}, "spec": {
        "scaleTargetRef": REF, "maxReplicas": 1, "minReplicas": 2}})
    assert status_of(r)["message"] == ('HorizontalPodAutoscaler.autoscaling "bad1" is invalid: spec.maxReplicas: '
                                       'Invalid value: 1: must be greater than or equal to `minReplicas`')


def test_watch_and_list_in_each_version(http, url, namespaces, watch):
    ns = namespaces.create()["metadata"]["name"]
    rv = http.get(_base(url, V2, ns)).json()["metadata"]["resourceVersion"]
    w1 = watch(_base(url, V1, ns), {"watch": "1", "resourceVersion": rv})
    w2 = watch(_base(url, V2, ns), {"watch": "1", "resourceVersion": rv})
    _create(http, url, ns, V2, "w", {"scaleTargetRef": REF, "maxReplicas": 2, "metrics": [MEMORY]})
    e1 = w1.until(lambda e: e["type"] == "ADDED", what="v1 ADDED")[-1]["object"]
    e2 = w2.until(lambda e: e["type"] == "ADDED", what="v2 ADDED")[-1]["object"]
    assert (e1["apiVersion"], e2["apiVersion"]) == (V1, V2)
    assert "targetCPUUtilizationPercentage" not in e1["spec"] and "metrics" not in e1["spec"]
    assert "autoscaling.alpha.kubernetes.io/metrics" in e1["metadata"]["annotations"]
    assert e2["spec"]["metrics"] == [MEMORY]
    for version in (V1, V2):
        listed = http.get(_base(url, version, ns)).json()
        assert (listed["kind"], listed["apiVersion"]) == ("HorizontalPodAutoscalerList", version)
        assert [i["apiVersion"] for i in listed["items"]] == [version]
    cross = http.get(f"{url}/apis/{V1}/horizontalpodautoscalers", params={"fieldSelector": f"metadata.namespace={ns}"})
    assert [i["metadata"]["name"] for i in cross.json()["items"]] == ["w"]


def test_table_protobuf_and_namespace_deletion(http, url, namespaces):
    ns = namespaces.create()["metadata"]["name"]
    _create(http, url, ns, V1, "t", {"scaleTargetRef": REF, "maxReplicas": 5, "targetCPUUtilizationPercentage": 50})
    _create(http, url, ns, V2, "u", {"scaleTargetRef": REF, "minReplicas": 2, "maxReplicas": 4,
                                     "metrics": [MEMORY, CPU60, {"type": "Pods", "pods": {
                                         "metric": {"name": "qps"}, "target": {"type": "AverageValue",
                                                                               "averageValue": "1k"}}}]})
    for version in (V1, V2):
        table = http.get(_base(url, version, ns), headers={"Accept": TABLE}).json()
        assert [c["name"] for c in table["columnDefinitions"]] == [
            "Name", "Reference", "Targets", "MinPods", "MaxPods", "Replicas", "Age"]
        rows = {r["cells"][0]: r["cells"][1:6] for r in table["rows"]}
        assert rows == {"t": ["Deployment/web", "cpu: <unknown>/50%", "1", 5, 0],
                        "u": ["Deployment/web", "memory: <unknown>/100Mi, cpu: <unknown>/60% + 1 more...", "2", 4, 0]}
    for version in (V1, V2):
        r = http.get(f"{_base(url, version, ns)}/t", headers={"Accept": PROTOBUF})
        assert r.status_code == 200 and r.headers["Content-Type"] == PROTOBUF
        assert r.content.startswith(b"k8s\x00") and b"HorizontalPodAutoscaler" in r.content
    assert http.delete(f"{url}/api/v1/namespaces/{ns}").status_code == 200
    wait_gone(http, url, ns)
    assert http.get(f"{_base(url, V2, ns)}/t").status_code == 404


def test_discovery_lists_both_versions_v2_preferred(http, url):
    group = http.get(f"{url}/apis/autoscaling").json()
    assert [v["version"] for v in group["versions"]] == ["v2", "v1"]
    assert group["preferredVersion"] == {"groupVersion": V2, "version": "v2"}
    hashes = set()
    for version in (V1, V2):
        res = {r["name"]: r for r in http.get(f"{url}/apis/{version}").json()["resources"]}
        assert set(res) >= {"horizontalpodautoscalers", "horizontalpodautoscalers/status"}
        hpa = res["horizontalpodautoscalers"]
        assert (hpa["shortNames"], hpa["categories"], hpa["namespaced"]) == (["hpa"], ["all"], True)
        hashes.add(hpa["storageVersionHash"])
    assert len(hashes) == 1  # the storage version's, in both lists
    assert http.get(f"{url}/apis/autoscaling/v3/horizontalpodautoscalers").status_code == 404


def test_apply_in_another_version_prunes_in_the_last_one(http, url, namespaces):
    """An applier that last applied in v2 and now applies in v1 has its v2 set pruned in v2 (structured-merge-
    diff's `prune` converts to the last set's version): the memory metric and the label it no longer applies go,
    its entry is now an `autoscaling/v1` one."""
    ns = namespaces.create()["metadata"]["name"]
    apply = {"Content-Type": "application/apply-patch+yaml"}
    v2 = {"apiVersion": V2, "kind": "HorizontalPodAutoscaler", "metadata": {"name": "p", "labels": {"x": "1"}},
          "spec": {"scaleTargetRef": REF, "minReplicas": 3, "maxReplicas": 7, "metrics": [MEMORY]}}
    r = http.patch(f"{_base(url, V2, ns)}/p?fieldManager=m", data=json.dumps(v2), headers=apply)
    assert r.status_code == 201, r.text
    v1 = {"apiVersion": V1, "kind": "HorizontalPodAutoscaler", "metadata": {"name": "p"},
          "spec": {"scaleTargetRef": REF, "maxReplicas": 8}}
    r = http.patch(f"{_base(url, V1, ns)}/p?fieldManager=m", data=json.dumps(v1), headers=apply)
    assert r.status_code == 200, r.text
    out = r.json()
    assert "labels" not in out["metadata"] and "annotations" not in out["metadata"]
    assert [(e["manager"], e["apiVersion"]) for e in out["metadata"]["managedFields"]] == [("m", V1)]
    stored = http.get(f"{_base(url, V2, ns)}/p").json()["spec"]
    assert stored["maxReplicas"] == 8 and stored["minReplicas"] == 1  # pruned, then defaulted again
    assert [m["resource"]["name"] for m in stored["metrics"]] == ["cpu"]  # v1's implicit CPU target


def test_another_versions_owner_is_compared_in_its_go_objects(http, url, namespaces):
    """An apply through v1 whose `scaleTargetRef.apiVersion: ""` empties what a v2 writer owns: that writer's
    fields are compared in v2 over the Go objects (versionconverter.go `Convert` types the converted object
    again), where an empty `apiVersion` (omitempty) is not there: removed, no conflict, the writer loses it."""
    ns = namespaces.create()["metadata"]["name"]
    r = http.post(_base(url, V2, ns), params={"fieldManager": "maker"}, json={
        "apiVersion": V2, "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
        "spec": {"scaleTargetRef": REF, "maxReplicas": 3}})
    assert r.status_code == 201, r.text
    config = {"apiVersion": V1, "kind": "HorizontalPodAutoscaler", "metadata": {"name": "h"},
              "spec": {"scaleTargetRef": {**REF, "apiVersion": ""}, "maxReplicas": 3}}
    r = http.patch(f"{_base(url, V1, ns)}/h", data=json.dumps(config), params={"fieldManager": "tool"},
                   headers={"Content-Type": "application/apply-patch+yaml"})
    assert r.status_code == 200, r.text
    maker = next(e for e in r.json()["metadata"]["managedFields"] if e["manager"] == "maker")
    assert maker["apiVersion"] == V2
    assert "f:apiVersion" not in maker["fieldsV1"]["f:spec"]["f:scaleTargetRef"]
