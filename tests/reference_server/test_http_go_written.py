"""Answers of built-in kinds as kube-apiserver writes them: the object read back from protobuf storage (k8s.io/apiserver
storage/etcd3 store.go `Create` decodes the stored bytes into the answer), written by encoding/json
(wire/gowritten.py): a by-value struct or a string or number without `omitempty` written as its zero value when the
body left it out, an empty slice or map and a zero scalar under `omitempty` left out."""
from __future__ import annotations

from typing import Any

import pytest

JSON_BODY = {"Content-Type": "application/json"}


@pytest.fixture
def ns(namespaces: Any) -> str:
    return namespaces.create()["metadata"]["name"]


def test_zero_values_go_writes_on_create_get_and_list(http, url, ns):
    """core/v1 Event: `ReportingController string json:"reportingComponent"` is written "", `EventTime
    metav1.MicroTime json:"eventTime,omitempty"` (a struct: never empty) `null` as its MarshalJSON writes zero."""
    events = f"{url}/api/v1/namespaces/{ns}/events"
    r = http.post(events, json={"metadata": {"name": "e"}, "involvedObject": {"kind": "Pod", "name": "p",
                                                                          "namespace": ns},
                                "reason": "R", "message": "m", "type": "Normal"})
    assert r.status_code == 201, r.text
    for event in (r.json(), http.get(f"{events}/e").json(), http.get(events).json()["items"][0]):
        assert {k: event[k] for k in ("source", "firstTimestamp", "lastTimestamp", "eventTime",
                                      "reportingComponent", "reportingInstance")} == {
            "source": {}, "firstTimestamp": None, "lastTimestamp": None, "eventTime": None,
            "reportingComponent": "", "reportingInstance": ""}
    assert list(r.json())[-2:] == ["reportingComponent", "reportingInstance"]  # in Go's field order


def test_a_template_s_metadata_and_an_hpa_s_status(http, url, ns):
    """A pod template's by-value ObjectMeta is `{"creationTimestamp": null}` (1.33's well-known answer); an HPA's
    `desiredReplicas` (no `omitempty`) is 0 in the status the create leaves zero."""
    r = http.post(f"{url}/apis/apps/v1/namespaces/{ns}/deployments", json={
        "metadata": {"name": "d"}, "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {
            "metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}}}})
    assert r.status_code == 201, r.text
    assert r.json()["spec"]["template"]["metadata"] == {"creationTimestamp": None, "labels": {"a": "b"}}
    assert r.json()["status"] == {}
    r = http.post(f"{url}/api/v1/namespaces/{ns}/podtemplates", json={
        "metadata": {"name": "t"}, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}})
    assert r.status_code == 201, r.text
    assert r.json()["template"]["metadata"] == {"creationTimestamp": None}
    r = http.post(f"{url}/apis/autoscaling/v2/namespaces/{ns}/horizontalpodautoscalers", json={
        "metadata": {"name": "h"}, "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment",
                                                               "name": "d"}, "maxReplicas": 3}})
    assert r.status_code == 201, r.text
    assert r.json()["status"]["desiredReplicas"] == 0


def test_empty_and_zero_omitempty_fields_are_left_out(http, url, ns):
    """`"labels": {}`, `"finalizers": []`, `"args": []` are no bytes in protobuf, nil once read back, and left out
    under `omitempty`; a `"hostname": ""` or `"stdin": false` under `omitempty` is not written (encode.go
    `isEmptyValue`); a pointer to an empty struct or a zero (`securityContext: {}`, `priority: 0`) is."""
    r = http.post(f"{url}/api/v1/namespaces/{ns}/pods", json={
        "metadata": {"name": "p", "labels": {}, "annotations": {}, "finalizers": []},
        "spec": {"hostname": "", "containers": [{"name": "c", "image": "i", "args": [], "stdin": False,
                                                 "securityContext": {}}]}})
    assert r.status_code == 201, r.text
    pod = r.json()
    assert not {"labels", "annotations", "finalizers"} & set(pod["metadata"])
    assert "hostname" not in pod["spec"] and pod["spec"]["securityContext"] == {}
    (c,) = pod["spec"]["containers"]
    assert "args" not in c and "stdin" not in c and c["securityContext"] == {}
    assert http.get(f"{url}/api/v1/namespaces/{ns}/pods/p").json()["spec"] == pod["spec"]
