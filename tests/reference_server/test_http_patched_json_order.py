"""The patched JSON a JSON or merge patch's 422 on `patch` shows, member for member as kube-apiserver writes it.

apiserver `pkg/endpoints/handlers/patch.go`: `jsonPatcher.applyPatchToCurrentObject` encodes the current object
(`runtime.Encode(p.codec, currentObject)`: `json.Marshal` of the built-in kind's Go type, struct fields in order
and maps sorted; a custom resource's `unstructured` map, keys sorted at every level), evanphx/json-patch v4.12.0
keeps each member the patch does not read as those bytes (its top-level object, read, is written sorted), and a
`DecodeInto` error shows `string(patchedObjJS)`. Each untouched member is compared with the GET's bytes of it
(the same Go object written by the same encoder), and the orders the body did not have are named."""
from __future__ import annotations

import json
from typing import Any

import requests

from .conftest import NamespaceFactory, unique
from .crds import CRDS, create_crd

JSON_PATCH = {"Content-Type": "application/json-patch+json"}
STRICT = {"fieldValidation": "Strict"}


def _written(value: Any) -> str:
    """`value` (read from a GET answer, keys in its order) written compact again: its bytes in that answer."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _shown(r: requests.Response) -> str:
    """The patched JSON of a 422 on `patch` (its cause's `Invalid value: "%q"` unquoted)."""
    assert r.status_code == 422, r.text
    message = r.json()["details"]["causes"][0]["message"]
    assert message.startswith('Invalid value: "'), message
    quoted, _, _ = message.removeprefix("Invalid value: ").rpartition('": ')
    return json.loads(quoted + '"')


def test_a_built_in_kind_s_untouched_members_are_its_go_type_s_json(http: requests.Session, url: str,
                                                                     namespaces: NamespaceFactory) -> None:
    """A ConfigMap sent members last first, its maps unsorted: `metadata` (untouched by the patch) is shown in
    ObjectMeta's field order, its labels and annotations sorted, and `data` sorted."""
    ns = namespaces.create("porder")["metadata"]["name"]
    base = f"{url}/api/v1/namespaces/{ns}/configmaps"
    body = ('{"data":{"z":"1","b":"2"},"metadata":{"annotations":{"y":"1","c":"2"},"labels":{"x":"1","d":"2"},'
            '"name":"c"},"kind":"ConfigMap","apiVersion":"v1"}')
    assert http.post(base, data=body, headers={"Content-Type": "application/json"}).status_code == 201
    current = http.get(f"{base}/c").json()
    shown = _shown(http.patch(f"{base}/c", params=STRICT, data='[{"op":"add","path":"/bogus","value":1}]',
                              headers=JSON_PATCH))
    assert shown == (f'{{"apiVersion":"v1","bogus":1,"data":{_written(current["data"])},"kind":"ConfigMap",'
                     f'"metadata":{_written(current["metadata"])}}}')
    assert '"data":{"b":"2","z":"1"}' in shown
    assert f'"metadata":{{"name":"c","namespace":"{ns}","uid":' in shown
    assert '"labels":{"d":"2","x":"1"},"annotations":{"c":"2","y":"1"},"managedFields":[{"manager":' in shown


def test_a_custom_resource_s_untouched_members_are_sorted_at_every_level(http: requests.Session, url: str,
                                                                         namespaces: NamespaceFactory) -> None:
    """A custom resource is written as `unstructuredJSONScheme` writes its map: `spec`, untouched, sorted at every
    level (a list's objects too); `metadata`, read by the patch, sorted as evanphx writes any object it read."""
    ns = namespaces.create("porder")["metadata"]["name"]
    group = f"{unique('porder')}.example.com"
    crd = {"metadata": {"name": f"gadgets.{group}"},
           "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "gadgets", "kind": "Gadget"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                        "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
    assert create_crd(http, url, crd).status_code == 201
    try:
        base = f"{url}/apis/{group}/v1/namespaces/{ns}/gadgets"
        body = ('{"spec":{"z":{"q":1,"p":[{"n":1,"m":2}]},"a":true},"metadata":{"name":"g","labels":{"y":"1",'
                '"b":"2"}},"kind":"Gadget","apiVersion":"' + group + '/v1"}')
        assert http.post(base, data=body, headers={"Content-Type": "application/json"}).status_code == 201
        shown = _shown(http.patch(f"{base}/g", params=STRICT, headers=JSON_PATCH,
                                  data='[{"op":"add","path":"/metadata/bogus","value":1}]'))
        assert shown.startswith(f'{{"apiVersion":"{group}/v1","kind":"Gadget","metadata":{{"bogus":1,'
                                '"creationTimestamp":"'), shown
        assert shown.endswith(',"spec":{"a":true,"z":{"p":[{"m":2,"n":1}],"q":1}}}'), shown
        assert '"labels":{"b":"2","y":"1"},"managedFields":[{"apiVersion":' in shown
    finally:
        http.delete(f"{url}{CRDS}/gadgets.{group}")


def test_a_crd_s_untouched_members_are_its_go_type_s_json(http: requests.Session, url: str) -> None:
    """A CRD is written through its Go types: its schema's fields in JSONSchemaProps' order, `properties` sorted,
    and a `default` (a `v1.JSON` kube-apiserver reads into the internal `interface{}` and writes again with
    `json.Marshal`, apiextensions `v1/conversion.go`) sorted at every level, not in the order it was sent."""
    group = f"{unique('porder')}.example.com"
    props = {"zeta": {"type": "string"},
             "spec": {"x-kubernetes-preserve-unknown-fields": True, "default": {"z": 1, "a": [{"y": 1, "x": 2}]},
                      "type": "object"}}
    crd = {"metadata": {"name": f"doodads.{group}"},
           "spec": {"versions": [{"schema": {"openAPIV3Schema": {"properties": props, "type": "object"}},
                                  "storage": True, "served": True, "name": "v1"}],
                    "names": {"kind": "Doodad", "plural": "doodads"}, "scope": "Namespaced", "group": group}}
    assert create_crd(http, url, crd).status_code == 201
    try:
        path = f"{url}{CRDS}/doodads.{group}"
        current = http.get(path).json()
        shown = _shown(http.patch(path, params=STRICT, data='[{"op":"add","path":"/bogus","value":1}]',
                                  headers=JSON_PATCH))
        assert shown == (f'{{"apiVersion":"apiextensions.k8s.io/v1","bogus":1,"kind":"CustomResourceDefinition",'
                         f'"metadata":{_written(current["metadata"])},"spec":{_written(current["spec"])},'
                         f'"status":{_written(current["status"])}}}')
        assert (f'"spec":{{"group":"{group}","names":{{"plural":"doodads","singular":"doodad","kind":"Doodad",'
                '"listKind":"DoodadList"},"scope":"Namespaced","versions":[{"name":"v1","served":true,'
                '"storage":true,"schema":{"openAPIV3Schema":{"type":"object","properties":{"spec":{"type":"object",'
                '"default":{"a":[{"x":2,"y":1}],"z":1},"x-kubernetes-preserve-unknown-fields":true},"zeta":'
                '{"type":"string"}}}}}]') in shown, shown
    finally:
        http.delete(f"{url}{CRDS}/doodads.{group}")
