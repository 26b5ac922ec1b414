"""wire/gowritten.py: a stored object as kube-apiserver writes it once read back from protobuf storage: nil
pointers, slices and maps without `omitempty` written `null` (an empty repeated field is nil there too), under
`omitempty` left out (`"finalizers": []`, `"labels": {}`), and by-value fields the body left out written as their
zero value (a struct always, `creationTimestamp: null`; a string or number without `omitempty`)."""
from __future__ import annotations

import copy

from conformance.reference_server.wire.gowritten import written

_META = {"name": "r", "creationTimestamp": "2024-01-01T00:00:00Z"}


def test_absent_and_empty_nil_written_fields_are_null() -> None:
    assert written({"metadata": _META}, "rbac.Role") == {"metadata": _META, "rules": None}
    assert written({"metadata": _META, "rules": []}, "rbac.ClusterRole")["rules"] is None
    rules = [{"verbs": ["get"], "resources": ["pods"]}]
    assert written({"metadata": _META, "rules": rules}, "rbac.Role") == {"metadata": _META, "rules": rules}


def test_nested_structs_lists_and_the_original_untouched() -> None:
    body = {"addressType": "IPv4", "metadata": _META}
    out = written(body, "discovery.EndpointSlice")
    assert out == {**body, "endpoints": None, "ports": None}
    assert list(out) == ["addressType", "metadata", "endpoints", "ports"]  # added in Go's field order
    assert body == {"addressType": "IPv4", "metadata": _META}
    lr = {"metadata": _META, "spec": {}}
    assert written(lr, "core.LimitRange") == {"metadata": _META, "spec": {"limits": None}} and lr["spec"] == {}
    fs = {"metadata": _META, "spec": {"rules": [{"subjects": [{"kind": "User", "user": {"name": "u"}}],
                                                 "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"],
                                                                    "resources": ["*"]}]}]}}
    before = copy.deepcopy(fs)
    out = written(fs, "flowcontrol.FlowSchema")
    assert out["spec"]["rules"][0]["resourceRules"][0]["namespaces"] is None and fs == before


def test_nothing_to_write_keeps_the_same_object() -> None:
    cm = {"metadata": _META, "data": {"a": "b"}}
    assert written(cm, "core.ConfigMap") is cm
    role = {"metadata": _META, "rules": None}
    assert written(role, "rbac.Role") is role
    assert written({"x": 1}, None) == {"x": 1} and written({"x": 1}, "no.Such") == {"x": 1}


def test_by_value_structs_and_non_omitempty_scalars_get_their_zero_values() -> None:
    """encode.go: a struct is never empty (`omitempty` or not), its zero value as its `MarshalJSON` writes it
    (metav1.Time and MicroTime `null`, resource.Quantity `"0"`); a string or number without `omitempty` is
    written "" or 0 (core/v1 `Event.ReportingController`, autoscaling/v2 `DesiredReplicas`)."""
    event = written({"metadata": _META, "involvedObject": {"kind": "Pod"}}, "core.Event")
    assert event == {"metadata": _META, "involvedObject": {"kind": "Pod"}, "source": {}, "firstTimestamp": None,
                     "lastTimestamp": None, "eventTime": None, "reportingComponent": "", "reportingInstance": ""}
    hpa = written({"metadata": _META, "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "d"},
                                                "maxReplicas": 3}, "status": {}},
                  "autoscalingv2.HorizontalPodAutoscaler")
    assert hpa["status"] == {"currentMetrics": None, "desiredReplicas": 0}
    template = {"metadata": _META, "template": {"spec": {"containers": [{"name": "c", "image": "i"}]}}}
    out = written(template, "core.PodTemplate")["template"]
    assert out["metadata"] == {"creationTimestamp": None}
    assert out["spec"]["containers"] == [{"name": "c", "image": "i", "resources": {}}]
    env = {"name": "e", "valueFrom": {"resourceFieldRef": {"resource": "limits.cpu"}}}
    pod = written({"metadata": _META, "spec": {"containers": [{"name": "c", "env": [env]}]}}, "core.Pod")
    assert pod["spec"]["containers"][0]["env"][0]["valueFrom"]["resourceFieldRef"]["divisor"] == "0"
    assert pod["status"] == {}
    assert written({"metadata": _META, "spec": {"containers": [{"name": "c"}]}, "status": {}},
                   "core.Pod", zeros=False) == {"metadata": _META, "spec": {"containers": [{"name": "c"}]},
                                                "status": {}}


def test_empty_omitempty_slices_and_maps_are_left_out_pointers_kept() -> None:
    """An empty slice or map is no bytes in protobuf: nil once read back, so left out under `omitempty`; a
    pointer to an empty struct is written (`securityContext: {}`), a nil one under `omitempty` left out."""
    meta = {**_META, "labels": {}, "annotations": {}, "finalizers": [], "ownerReferences": []}
    cm = written({"metadata": meta, "data": {}, "binaryData": {}, "immutable": None}, "core.ConfigMap")
    assert cm == {"metadata": _META}
    pod = written({"metadata": _META, "spec": {"containers": [{"name": "c", "args": [], "securityContext": {}}],
                                               "securityContext": {}, "tolerations": []}, "status": {}},
                  "core.Pod")
    assert pod["spec"] == {"containers": [{"name": "c", "securityContext": {}, "resources": {}}],
                           "securityContext": {}}


def test_zero_omitempty_scalars_are_left_out() -> None:
    """encode.go `isEmptyValue`: "", 0 and false under `omitempty` are not written (core/v1 `Hostname`, `Stdin`,
    `NodePort`); a pointer to one is (`*bool`); the placeholder `resourceVersion: ""` the store keeps in place
    for storage to fill stays."""
    pod = written({"metadata": {**_META, "resourceVersion": "", "generateName": ""},
                   "spec": {"hostname": "", "containers": [{"name": "c", "stdin": False, "tty": True}],
                            "automountServiceAccountToken": False, "priority": 0}, "status": {}}, "core.Pod")
    assert pod["metadata"] == {**_META, "resourceVersion": ""}
    assert pod["spec"] == {"containers": [{"name": "c", "tty": True, "resources": {}}],
                           "automountServiceAccountToken": False, "priority": 0}
    svc = written({"metadata": _META, "spec": {"ports": [{"port": 80, "nodePort": 0, "targetPort": 80}]}},
                  "core.Service")
    assert svc["spec"]["ports"] == [{"port": 80, "targetPort": 80}]
