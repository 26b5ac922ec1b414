"""The annotations' total size, judged on every create and update as kube-apiserver 1.33 judges it: apimachinery
pkg/api/validation/objectmeta.go `ValidateAnnotations` (keys, then `ValidateAnnotationsSize`: keys' and values'
bytes summed, more than `TotalAnnotationSizeLimitB` = 256 KiB refused with `field.TooLong(fldPath, "", ...)`,
`metadata.annotations: Too long: may not be more than 262144 bytes`), for built-in kinds and custom resources
alike (registry/validation.py `validate_annotations`)."""
from __future__ import annotations

import uuid
from typing import Any

import requests

from conformance.reference_server.registry.validation import validate_annotations
from tests.reference_server.conftest import NamespaceFactory
from tests.reference_server.crds import create_crd, delete_crd, schemaless_crd

LIMIT = 262144
TOO_LONG = ("metadata.annotations", f"Too long: may not be more than {LIMIT} bytes")


def _sized(total: int) -> dict[str, str]:
    """Annotations whose keys and values add up to `total` bytes (`a` is one byte; `é` in the value two)."""
    return {"a": "é" + "x" * (total - 3)}


def _causes(r: requests.Response) -> list[tuple[str, str]]:
    assert r.status_code == 422, r.text
    return [(c["field"], c["message"]) for c in r.json()["details"]["causes"]]


def test_the_limit_counts_utf8_bytes_of_keys_and_values() -> None:
    assert validate_annotations(_sized(LIMIT), "metadata.annotations") == []
    errs = validate_annotations(_sized(LIMIT + 1), "metadata.annotations")
    assert [(e.field, e.body) for e in errs] == [TOO_LONG]
    assert errs[0].type == "FieldValueTooLong"


def test_keys_then_the_size() -> None:
    errs = validate_annotations({"a b": "x" * LIMIT}, "metadata.annotations")
    assert [e.type for e in errs] == ["FieldValueInvalid", "FieldValueTooLong"]


def test_a_configmap_create_and_update(http: requests.Session, url: str, namespaces: NamespaceFactory) -> None:
    """Create: `ValidateConfigMap`'s `ValidateObjectMeta`, one cause. Update: `validateCommonFields`' two checks,
    then `ValidateObjectMetaUpdate` and `ValidateConfigMap`: four, the message naming it once."""
    ns = namespaces.create("annsz")["metadata"]["name"]
    collection = f"{url}/api/v1/namespaces/{ns}/configmaps"
    r = http.post(collection, json={"metadata": {"name": "big", "annotations": _sized(LIMIT + 1)}})
    assert _causes(r) == [TOO_LONG]
    assert r.json()["reason"] == "Invalid"
    assert r.json()["message"] == ('ConfigMap "big" is invalid: metadata.annotations: '
                                   f"Too long: may not be more than {LIMIT} bytes")
    r = http.post(collection, json={"metadata": {"name": "fits", "annotations": _sized(LIMIT)}})
    assert r.status_code == 201, r.text
    obj: dict[str, Any] = r.json()
    obj["metadata"]["annotations"] = _sized(LIMIT + 1)
    r = http.put(f"{collection}/fits", json=obj)
    assert _causes(r) == [TOO_LONG] * 4
    assert r.json()["message"] == ('ConfigMap "fits" is invalid: metadata.annotations: '
                                   f"Too long: may not be more than {LIMIT} bytes")


def test_a_custom_resource(http: requests.Session, url: str, namespaces: NamespaceFactory) -> None:
    """The custom resource strategy's `ValidateObjectMetaAccessor` on create (one cause), `validateCommonFields`
    and `ValidateObjectMetaAccessorUpdate` on update (three)."""
    ns = namespaces.create("annsz")["metadata"]["name"]
    group = f"annsz{uuid.uuid4().hex[:8]}.example.com"
    assert create_crd(http, url, schemaless_crd(group, "widgets", "Widget")).status_code == 201
    try:
        widgets = f"{url}/apis/{group}/v1/namespaces/{ns}/widgets"
        body = {"apiVersion": f"{group}/v1", "kind": "Widget",
                "metadata": {"name": "w", "annotations": _sized(LIMIT + 1)}}
        assert _causes(http.post(widgets, json=body)) == [TOO_LONG]
        body["metadata"]["annotations"] = {}
        r = http.post(widgets, json=body)
        assert r.status_code == 201, r.text
        obj = r.json()
        obj["metadata"]["annotations"] = _sized(LIMIT + 1)
        assert _causes(http.put(f"{widgets}/w", json=obj)) == [TOO_LONG] * 3
    finally:
        delete_crd(http, url, f"widgets.{group}")


def test_a_pod_template(http: requests.Session, url: str, namespaces: NamespaceFactory) -> None:
    """core `ValidatePodTemplateSpec` calls `ValidateAnnotations` on the template's annotations too."""
    ns = namespaces.create("annsz")["metadata"]["name"]
    body = {"metadata": {"name": "d"}, "spec": {
        "selector": {"matchLabels": {"a": "b"}},
        "template": {"metadata": {"labels": {"a": "b"}, "annotations": _sized(LIMIT + 1)},
                     "spec": {"containers": [{"name": "c", "image": "busybox"}]}}}}
    r = http.post(f"{url}/apis/apps/v1/namespaces/{ns}/deployments", json=body)
    assert _causes(r) == [("spec.template.annotations", TOO_LONG[1])]
