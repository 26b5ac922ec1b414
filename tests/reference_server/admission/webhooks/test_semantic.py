"""admission/webhooks/semantic.py: `apiequality.Semantic.DeepEqual` (apimachinery `pkg/api/equality/semantic.go`
over `third_party/forked/golang/reflect/deep_equal.go`) of a webhook's object before and after its patch."""
from __future__ import annotations

import copy

from conformance.reference_server.admission.webhooks import review, semantic
from conformance.reference_server.goport import gojsonraw
from conformance.reference_server.wire.textdecode import loads_json

POD = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "creationTimestamp": "2024-05-01T10:00:00Z"},
       "spec": {"containers": [{"image": "b", "name": "c",
                                "resources": {"limits": {"cpu": "1", "memory": "1Ki"}}}]}}


def _pod(**limits: str) -> dict:
    pod = copy.deepcopy(POD)
    pod["spec"]["containers"][0]["resources"]["limits"].update(limits)
    return review.encoded(pod)


def test_a_quantity_is_compared_by_its_value():
    sent = _pod()
    assert semantic.typed_equal(sent, _pod(cpu="1000m", memory="1024"))
    assert semantic.typed_equal(sent, _pod(cpu="0.001k"))
    assert not semantic.typed_equal(sent, _pod(cpu="1001m"))
    assert not semantic.typed_equal(sent, _pod(memory="1k"))  # (1000, not 1024)
    assert not semantic.typed_equal(sent, _pod(cpu="1e999999999"))  # (compared as written, not computed)


def test_a_time_is_compared_by_its_instant():
    sent = review.encoded(POD)
    other = copy.deepcopy(sent)
    other["metadata"]["creationTimestamp"] = "2024-05-01T12:00:00+02:00"
    assert semantic.typed_equal(sent, other)
    other["metadata"]["creationTimestamp"] = "2024-05-01T12:00:00+01:00"
    assert not semantic.typed_equal(sent, other)
    other["metadata"]["creationTimestamp"] = None
    assert not semantic.typed_equal(sent, other)


def test_a_nil_and_an_empty_slice_are_equal_a_nil_pointer_and_an_empty_struct_not():
    role = review.encoded({"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "Role", "metadata": {"name": "r"}})
    assert role["rules"] is None
    assert semantic.typed_equal(role, {**role, "rules": []})
    assert not semantic.typed_equal(role, {**role, "rules": [{"verbs": ["get"]}]})
    pod = review.encoded(POD)
    with_context = copy.deepcopy(pod)
    with_context["spec"]["securityContext"] = {}
    assert "securityContext" not in pod["spec"] and not semantic.typed_equal(pod, with_context)


def test_a_raw_extension_is_compared_by_its_bytes():
    def rev(data: object) -> dict:
        return review.encoded({"apiVersion": "apps/v1", "kind": "ControllerRevision", "metadata": {"name": "r"},
                               "revision": 1, "data": data})
    spaced = gojsonraw.wrap({"a": 1}, '{ "a": 1 }')
    assert semantic.typed_equal(rev(spaced), rev(gojsonraw.wrap({"a": 1}, '{ "a": 1 }')))
    assert not semantic.typed_equal(rev(spaced), rev({"a": 1}))  # (`{"a":1}`: compacted by the patch)
    assert semantic.typed_equal(rev(None), rev(None))
    assert not semantic.typed_equal(rev(None), rev({}))


def test_a_custom_resource_s_numbers_keep_their_go_types():
    one_float = loads_json(b'{"spec":{"a":1.0}}')
    assert not semantic.unstructured_equal(one_float, {"spec": {"a": 1}})
    assert semantic.unstructured_equal(one_float, loads_json(b'{"spec":{"a":1.00}}'))
    assert semantic.unstructured_equal({"spec": {"a": 1}}, {"spec": {"a": 1}})
    assert not semantic.unstructured_equal({"spec": None}, {"spec": {}})  # (a nil interface is no empty map)
    assert not semantic.unstructured_equal({"spec": {"b": True}}, {"spec": {"b": 1}})
