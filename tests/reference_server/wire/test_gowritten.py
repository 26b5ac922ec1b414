"""wire/gowritten.py: a stored object's nil pointers, slices and maps without `omitempty` written `null`, as
kube-apiserver answers what it read back from protobuf storage (an empty repeated field is nil there too)."""
from __future__ import annotations

import copy

from conformance.reference_server.wire.gowritten import written


def test_absent_and_empty_nil_written_fields_are_null() -> None:
    assert written({"metadata": {"name": "r"}}, "rbac.Role") == {"metadata": {"name": "r"}, "rules": None}
    assert written({"metadata": {"name": "r"}, "rules": []}, "rbac.ClusterRole")["rules"] is None
    rules = [{"verbs": ["get"], "resources": ["pods"]}]
    assert written({"rules": rules}, "rbac.Role") == {"rules": rules}  # (omitempty siblings left out)


def test_nested_structs_lists_and_the_original_untouched() -> None:
    body = {"addressType": "IPv4", "metadata": {"name": "e"}}
    out = written(body, "discovery.EndpointSlice")
    assert out == {**body, "endpoints": None, "ports": None}
    assert list(out) == ["addressType", "metadata", "endpoints", "ports"]  # added in Go's field order
    assert body == {"addressType": "IPv4", "metadata": {"name": "e"}}
    lr = {"spec": {}}
    assert written(lr, "core.LimitRange") == {"spec": {"limits": None}} and lr == {"spec": {}}
    fs = {"spec": {"rules": [{"subjects": [{"kind": "User", "user": {"name": "u"}}],
                              "resourceRules": [{"verbs": ["*"], "apiGroups": ["*"], "resources": ["*"]}]}]}}
    before = copy.deepcopy(fs)
    out = written(fs, "flowcontrol.FlowSchema")
    assert out["spec"]["rules"][0]["resourceRules"][0]["namespaces"] is None and fs == before


def test_nothing_to_write_keeps_the_same_object() -> None:
    cm = {"metadata": {"name": "c"}, "data": {"a": "b"}}
    assert written(cm, "core.ConfigMap") is cm
    role = {"metadata": {"name": "r"}, "rules": None}
    assert written(role, "rbac.Role") is role
    assert written({"x": 1}, None) == {"x": 1} and written({"x": 1}, "no.Such") == {"x": 1}
