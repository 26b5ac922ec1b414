"""A custom resource's JSON or merge patch whose result names another version or kind, as kube-apiserver 1.33
reads it: handlers/patch.go decodes the patched bytes with the CR's `DecoderToVersion`, whose versioning codec
converts with the apiextensions `Scheme` (`UnsafeObjectConvertor`: an `Unstructured` into an `Unstructured` is a
straight copy), so the object keeps the version and kind it names; the strategy's `ValidateTypeMeta`
(registry/customresource/validator.go) then refuses it, the Invalid error naming the object's own group and kind
(`rest.BeforeUpdate`: `ObjectKinds`), and an object with no version is `ObjectKinds`' internal error."""
from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import requests

from .conftest import NamespaceFactory, unique
from .crds import CRDS, create_crd, integer_spec_schema, two_version_things

JSON_PATCH = {"Content-Type": "application/json-patch+json"}
MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}


@pytest.fixture
def things(http: requests.Session, url: str, namespaces: NamespaceFactory) -> Iterator[tuple[str, str]]:
    """`crds.two_version_things` in a namespace of its own: (its group, the v1 collection URL)."""
    with two_version_things(http, url, namespaces.create("crpv")["metadata"]["name"], "crpv") as made:
        yield made


def _cause(field: str, value: str, must: str) -> dict[str, str]:
    return {"reason": "FieldValueInvalid", "message": f"Invalid value: {json.dumps(value)}: must be {must}",
            "field": field}


def test_another_version_or_kind_is_refused_by_the_strategy(http: requests.Session, things: tuple[str, str]
                                                            ) -> None:
    """Another served version, an unknown one, another group or kind: 422 from `ValidateTypeMeta` (kind first),
    the error's group and kind the object's own; the object is left as it was."""
    group, base = things
    before = http.get(f"{base}/t").json()
    for patch, headers, qualified, details, causes in (
            ({"apiVersion": f"{group}/v2"}, MERGE_PATCH, f"Thing.{group}", {"group": group, "kind": "Thing"},
             [_cause("apiVersion", f"{group}/v2", f"{group}/v1")]),
            ([{"op": "replace", "path": "/apiVersion", "value": f"{group}/v9"}], JSON_PATCH, f"Thing.{group}",
             {"group": group, "kind": "Thing"}, [_cause("apiVersion", f"{group}/v9", f"{group}/v1")]),
            ([{"op": "replace", "path": "/kind", "value": "Other"}], JSON_PATCH, f"Other.{group}",
             {"group": group, "kind": "Other"}, [_cause("kind", "Other", "Thing")]),
            ({"apiVersion": "v9", "kind": "Other"}, MERGE_PATCH, "Other", {"kind": "Other"},
             [_cause("kind", "Other", "Thing"), _cause("apiVersion", "v9", f"{group}/v1")]),
            ({"apiVersion": "other.example.com/v1"}, MERGE_PATCH, "Thing.other.example.com",
             {"group": "other.example.com", "kind": "Thing"},
             [_cause("apiVersion", "other.example.com/v1", f"{group}/v1")])):
        r = http.patch(f"{base}/t", data=json.dumps(patch), headers=headers)
        assert r.status_code == 422, r.text
        status = r.json()
        message = "; ".join(f"{c['field']}: {c['message']}" for c in causes)
        if len(causes) > 1:
            message = "[" + ", ".join(f"{c['field']}: {c['message']}" for c in causes) + "]"
        assert status["reason"] == "Invalid"
        assert status["message"] == f'{qualified} "t" is invalid: {message}', r.text
        assert status["details"] == {"name": "t", **details, "causes": causes}, r.text
    assert http.get(f"{base}/t").json() == before


def test_a_patch_that_leaves_no_version_is_an_internal_error(http: requests.Session, things: tuple[str, str]
                                                             ) -> None:
    """No `apiVersion` (removed, `""`, a group without version): the `Unstructured` decodes (TODO(109023)), and
    `rest.BeforeUpdate`'s `ObjectKinds` refuses it with `NewMissingVersionErr`, wrapped in `NewInternalError`."""
    group, base = things
    why = "Object 'apiVersion' is missing in 'object has no apiVersion field'"
    for patch, headers in (([{"op": "remove", "path": "/apiVersion"}], JSON_PATCH), ({"apiVersion": None}, MERGE_PATCH),
                           ({"apiVersion": f"{group}/"}, MERGE_PATCH)):
        r = http.patch(f"{base}/t", data=json.dumps(patch), headers=headers)
        assert r.status_code == 500, r.text
        assert r.json() == {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                            "message": f"Internal error occurred: {why}", "reason": "InternalError",
                            "details": {"causes": [{"message": why}]}, "code": 500}, r.text


def test_strict_decoding_prunes_with_the_named_versionsinteger_spec_schema(http: requests.Session, things: tuple[str, str]
                                                               ) -> None:
    """`unstructuredSchemaCoercer.apply` prunes with `structuralSchemas[gv.Version]` when the group and kind are
    the CR's: v2's schema has no `spec.color` (an unknown field under `Strict`, before the strategy), an unknown
    version none at all (`spec` unknown); another kind is not pruned (the strategy's 422)."""
    group, base = things
    for patch, unknown in (({"apiVersion": f"{group}/v2"}, "spec.color"), ({"apiVersion": f"{group}/v9"}, "spec")):
        r = http.patch(f"{base}/t", params={"fieldValidation": "Strict"}, data=json.dumps(patch), headers=MERGE_PATCH)
        assert r.status_code == 422, r.text
        assert r.json()["message"].endswith(f'": strict decoding error: unknown field "{unknown}"'), r.text
        assert r.json()["message"].startswith(' "" is invalid: patch: Invalid value: "{'), r.text
    r = http.patch(f"{base}/t", params={"fieldValidation": "Strict"}, data=json.dumps({"kind": "Other"}),
                   headers=MERGE_PATCH)
    assert r.status_code == 422 and r.json()["details"]["kind"] == "Other", r.text


def test_through_status_the_old_objects_version_and_kind_are_kept(http: requests.Session, things: tuple[str, str]
                                                                  ) -> None:
    """status_strategy.go `PrepareForUpdate` starts from a copy of the old object (its `apiVersion` and `kind`
    too) and takes the new status only: the patch is accepted, in the request's version; an object with no
    version is refused before (`ObjectKinds`)."""
    group, base = things
    r = http.patch(f"{base}/t/status", data=json.dumps({"apiVersion": f"{group}/v2", "kind": "Other",
                                                        "status": {"ok": True}}), headers=MERGE_PATCH)
    assert r.status_code == 200, r.text
    assert (r.json()["apiVersion"], r.json()["kind"], r.json()["status"]) == (f"{group}/v1", "Thing", {"ok": True})
    r = http.patch(f"{base}/t/status", data='[{"op":"remove","path":"/apiVersion"}]', headers=JSON_PATCH)
    assert r.status_code == 500 and r.json()["reason"] == "InternalError", r.text


def test_through_another_served_version(http: requests.Session, things: tuple[str, str]) -> None:
    """A patch through v2 naming v1: refused by v2's strategy (`must be <group>/v2`)."""
    group, base = things
    r = http.patch(f"{base.replace('/v1/', '/v2/')}/t", data=json.dumps({"apiVersion": f"{group}/v1"}),
                   headers=MERGE_PATCH)
    assert r.status_code == 422, r.text
    assert r.json()["details"]["causes"] == [_cause("apiVersion", f"{group}/v1", f"{group}/v2")], r.text


def test_an_object_an_older_storage_version_wrote_is_patched_in_the_request_s_version(
        http: requests.Session, url: str, namespaces: NamespaceFactory) -> None:
    """The current object is decoded from storage and converted to the request's version before the patch
    (`applyPatchToCurrentObject` encodes it in that version): one stored as v1beta1, patched through v1 once
    v1 is the storage version, names v1 and is accepted."""
    ns = namespaces.create("crpv")["metadata"]["name"]
    group = f"{unique('crpv')}.example.com"
    body = {"metadata": {"name": f"things.{group}"},
            "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "things", "kind": "Thing"},
                     "versions": [{"name": "v1", "served": True, "storage": False, "schema": integer_spec_schema("a", "b")},
                                  {"name": "v1beta1", "served": True, "storage": True, "schema": integer_spec_schema("a", "b")}]}}
    assert create_crd(http, url, body).status_code == 201
    try:
        base = f"{url}/apis/{group}/v1/namespaces/{ns}/things"
        r = http.post(base, json={"apiVersion": f"{group}/v1", "kind": "Thing", "metadata": {"name": "t"},
                                  "spec": {"a": 1}})
        assert r.status_code == 201, r.text
        crd = http.get(f"{url}{CRDS}/things.{group}").json()
        for v in crd["spec"]["versions"]:
            v["storage"] = v["name"] == "v1"
        assert http.put(f"{url}{CRDS}/things.{group}", json=crd).status_code == 200
        for patch, headers in (({"spec": {"b": 2}}, MERGE_PATCH), ([{"op": "add", "path": "/spec/b", "value": 3}],
                                                                   JSON_PATCH)):
            r = http.patch(f"{base}/t", data=json.dumps(patch), headers=headers)
            assert r.status_code == 200, r.text
            assert r.json()["apiVersion"] == f"{group}/v1", r.text
    finally:
        http.delete(f"{url}{CRDS}/things.{group}")
