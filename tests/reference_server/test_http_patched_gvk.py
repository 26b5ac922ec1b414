"""A JSON or merge patch whose result's version or kind the JSON serializer cannot read: handlers/patch.go's
`DecodeInto` error as a 422 on `patch` (the patched bytes shown), in the serializer's words (wire/patchedgvk.py:
`SimpleMetaFactory.Interpret`, an `Unstructured`'s `Object 'Kind' is missing in '%s'`, which quotes the patched
bytes again). Before, the server put the kind back and stored the object."""
from __future__ import annotations

import json

import requests

from .conftest import NamespaceFactory, unique
from .crds import CRDS, create_crd, schemaless_crd

JSON_PATCH = {"Content-Type": "application/json-patch+json"}
MERGE_PATCH = {"Content-Type": "application/merge-patch+json"}


def _invalid(shown: str, why: str) -> str:
    """`NewInvalid(schema.GroupKind{}, "", field.Invalid(field.NewPath("patch"), shown, why))`'s message (the
    value `%q`-quoted: JSON's quoting for these ASCII bytes)."""
    return f' "" is invalid: patch: Invalid value: {json.dumps(shown)}: {why}'


def test_a_custom_resource_patched_without_its_kind_is_refused(http: requests.Session, url: str,
                                                               namespaces: NamespaceFactory) -> None:
    """The patched map decodes into an `Unstructured` with no kind: `NewMissingKindErr(string(patchedObjJS))`,
    the bytes evanphx wrote (the custom resource's JSON, sorted at every level) shown twice; a `kind` of `""` or
    `null` (a merge patch's removal) likewise. The object is left as it was."""
    ns = namespaces.create("pgvk")["metadata"]["name"]
    group = f"{unique('pgvk')}.example.com"
    assert create_crd(http, url, schemaless_crd(group, "things", "Thing")).status_code == 201
    try:
        base = f"{url}/apis/{group}/v1/namespaces/{ns}/things"
        body = '{"spec":{"z":1,"b":{"y":2,"c":3}},"metadata":{"name":"t"},"kind":"Thing","apiVersion":"' + group + '/v1"}'
        assert http.post(base, data=body, headers={"Content-Type": "application/json"}).status_code == 201
        current = http.get(f"{base}/t").json()
        meta = json.dumps(current["metadata"], separators=(",", ":"))
        for patch, headers, kind in (('[{"op":"remove","path":"/kind"}]', JSON_PATCH, ""),
                                     ('{"kind":null}', MERGE_PATCH, ""),
                                     ('[{"op":"replace","path":"/kind","value":""}]', JSON_PATCH, '"kind":"",')):
            r = http.patch(f"{base}/t", data=patch, headers=headers)
            assert r.status_code == 422, r.text
            shown = f'{{"apiVersion":"{group}/v1",{kind}"metadata":{meta},"spec":{{"b":{{"c":3,"y":2}},"z":1}}}}'
            assert r.json()["message"] == _invalid(shown, f"Object 'Kind' is missing in '{shown}'"), r.text
        assert http.get(f"{base}/t").json() == current
    finally:
        http.delete(f"{url}{CRDS}/things.{group}")


def test_a_version_or_kind_the_serializer_cannot_read_is_refused(http: requests.Session, url: str,
                                                                 namespaces: NamespaceFactory) -> None:
    """`Interpret` reads `apiVersion` and `kind` as strings (`json: cannot unmarshal number into Go struct field
    .kind of type string`, the key matched in any case) and parses the group/version (`unexpected GroupVersion
    string`); a built-in kind's missing `kind` is its Go type's (`gvkWithDefaults`): accepted."""
    ns = namespaces.create("pgvk")["metadata"]["name"]
    cm = f"{url}/api/v1/namespaces/{ns}/configmaps/c"
    assert http.post(f"{url}/api/v1/namespaces/{ns}/configmaps", json={"metadata": {"name": "c"}}).status_code == 201
    parse = "couldn't get version/kind; json parse error: json: cannot unmarshal "
    for patch, headers, why in (
            ('{"kind":5}', MERGE_PATCH, parse + "number into Go struct field .kind of type string"),
            ('[{"op":"add","path":"/Kind","value":{}}]', JSON_PATCH,
             parse + "object into Go struct field .kind of type string"),
            ('{"apiVersion":"a/b/c"}', MERGE_PATCH, "unexpected GroupVersion string: a/b/c")):
        r = http.patch(cm, data=patch, headers=headers)
        assert r.status_code == 422, r.text
        assert r.json()["message"].startswith(' "" is invalid: patch: Invalid value: "{'), r.text
        assert r.json()["message"].endswith(f'}}": {why}'), r.text
    r = http.patch(cm, data='[{"op":"remove","path":"/kind"}]', headers=JSON_PATCH)
    assert r.status_code == 200 and r.json()["kind"] == "ConfigMap", r.text
