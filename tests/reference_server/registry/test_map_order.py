"""Go maps in answers, byte for byte: kube-apiserver decodes an object into its Go type, so each `map[...]`
field's keys come back sorted (`encoding/json`), in the create's answer, GET, LIST and watch alike, while a
struct keeps its fields' order; a custom resource is an unstructured map, sorted at every level, its root and
its list's root included (`unstructuredJSONScheme.doEncode`). Before, the keys came back in the order sent."""
from __future__ import annotations

import json
import re
from typing import Any, Iterator

import pytest
import requests

from tests.reference_server.conftest import unique
from tests.reference_server.crds import CRDS, create_crd

CM = "/api/v1/namespaces/default/configmaps"
JSON = {"Content-Type": "application/json"}
MERGE = {"Content-Type": "application/merge-patch+json"}


def _watched(http: requests.Session, url: str, rv: str, name: str) -> bytes:
    params = {"watch": "1", "resourceVersion": rv, "fieldSelector": f"metadata.name={name}", "timeoutSeconds": "1"}
    with http.get(url, params=params, stream=True) as r:
        return r.raw.read()


def test_configmap_maps_sorted_in_every_answer(http: requests.Session, url: str) -> None:
    name = unique("maps")
    body = ('{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s","labels":{"b":"1","a":"2"},'
            '"annotations":{"z":"1","y":"2"}},"data":{"y":"1","x":"2"},"binaryData":{"q":"AA==","p":"AQ=="}}' % name)
    created = http.post(url + CM, data=body, headers=JSON)
    assert created.status_code == 201, created.text
    labels, annotations = b'"labels":{"a":"2","b":"1"},"annotations":{"y":"2","z":"1"}', b'"annotations":{"y":"2"'
    data = b'"data":{"x":"2","y":"1"},"binaryData":{"p":"AQ==","q":"AA=="}}'
    rv = created.json()["metadata"]["resourceVersion"]
    try:
        assert labels in created.content and created.content.endswith(data + b"\n")
        for _ in range(2):  # the second GET answers the memoised bytes
            got = http.get(f"{url}{CM}/{name}").content
            assert labels in got and annotations in got and got.endswith(data + b"\n")
        listed = http.get(url + CM, params={"fieldSelector": f"metadata.name={name}"}).content
        assert labels in listed and data + b"]}" in listed
        assert data + b'}\n' in _watched(http, url + CM, "0", name)
        patched = http.patch(f"{url}{CM}/{name}", data='{"metadata":{"labels":{"0":"x"}},"data":{"a":"z"}}',
                             headers=MERGE)
        assert patched.status_code == 200, patched.text
        assert b'"labels":{"0":"x","a":"2","b":"1"}' in patched.content
        assert b'"data":{"a":"z","x":"2","y":"1"}' in patched.content
        events = _watched(http, url + CM, rv, name)
        assert b'"type":"MODIFIED"' in events and b'"data":{"a":"z","x":"2","y":"1"}' in events
        put = json.loads(patched.content)
        put["data"] = {"zz": "1", "aa": "2"}
        replaced = http.put(f"{url}{CM}/{name}", json=put)
        assert replaced.status_code == 200 and b'"data":{"aa":"2","zz":"1"}' in replaced.content
        yaml = http.get(f"{url}{CM}/{name}", headers={"Accept": "application/yaml"}).text
        assert "data:\n  aa: \"2\"\n  zz: \"1\"\n" in yaml  # go-yaml v2 sorts as well
    finally:
        http.delete(f"{url}{CM}/{name}")


def test_pod_and_secret_maps_sorted(http: requests.Session, url: str) -> None:
    name = unique("maps")
    pod = ('{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"nodeSelector":{"zone":"a",'
           '"disk":"ssd"},"containers":[{"name":"c","image":"i","resources":{"limits":{"memory":"1Gi","cpu":"1"}}}]}}'
           % name)
    created = http.post(url + "/api/v1/namespaces/default/pods", data=pod, headers=JSON)
    assert created.status_code == 201, created.text
    assert b'"nodeSelector":{"disk":"ssd","zone":"a"}' in created.content
    # requests defaulted from the limits (a map built by the server) come sorted too
    assert b'"resources":{"limits":{"cpu":"1","memory":"1Gi"},"requests":{"cpu":"1","memory":"1Gi"}}' in \
        created.content
    http.delete(f"{url}/api/v1/namespaces/default/pods/{name}", params={"gracePeriodSeconds": "0"})
    secret = ('{"apiVersion":"v1","kind":"Secret","metadata":{"name":"%s"},"data":{"b":"Yg=="},'
              '"stringData":{"c":"c","a":"a"}}' % name)
    created = http.post(url + "/api/v1/namespaces/default/secrets", data=secret, headers=JSON)
    assert created.status_code == 201, created.text
    assert b'"data":{"a":"YQ==","b":"Yg==","c":"Yw=="}' in created.content  # stringData merged, then sorted
    http.delete(f"{url}/api/v1/namespaces/default/secrets/{name}")


def test_deletion_marks_keep_metadata_order_in_watch_events(http: requests.Session, url: str) -> None:
    name = unique("maps")
    created = http.post(url + CM, json={"metadata": {"name": name, "finalizers": ["example.com/hold"]}})
    assert created.status_code == 201, created.text
    rv = created.json()["metadata"]["resourceVersion"]
    try:
        assert http.delete(f"{url}{CM}/{name}").status_code == 200
        events = _watched(http, url + CM, rv, name)
        # (and, on etcd, whose values hold no resourceVersion, the decoded object's in its place too)
        assert re.search(rb'"uid":"[^"]+","resourceVersion":"\d+","creationTimestamp":"[^"]+","deletionTimestamp":'
                         rb'"[^"]+","deletionGracePeriodSeconds":0,"finalizers":\["example.com/hold"\],"managedFields"',
                         events), events
    finally:
        http.patch(f"{url}{CM}/{name}", data='{"metadata":{"finalizers":null}}', headers=MERGE)


@pytest.fixture(scope="module")
def widgets(http: requests.Session, url: str) -> Iterator[tuple[str, str]]:
    group = f"{unique('maps')}.example.com"
    props = {"zeta": {"type": "string", "default": "d"},
             "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True,
                      "default": {"y": 1, "b": 2}}}
    crd: dict[str, Any] = {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": f"widgets.{group}"},
        "spec": {"group": group, "scope": "Namespaced", "names": {"plural": "widgets", "kind": "Widget"},
                 "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                     "type": "object", "x-kubernetes-preserve-unknown-fields": True, "properties": props}}},
                     {"name": "v2", "served": True, "storage": False, "schema": {"openAPIV3Schema": {
                         "type": "object", "x-kubernetes-preserve-unknown-fields": True}}}]}}
    r = create_crd(http, url, crd)
    assert r.status_code == 201, r.text
    # the CRD's schema: `properties` a Go map (sorted), `default` a v1.JSON (sorted too: the registry stores the
    # internal type, whose `JSON` is an `interface{}` written again by `json.Marshal`, apiextensions
    # v1/conversion.go), each schema's fields in JSONSchemaProps' order (wire/gostructs.py)
    assert b'"properties":{"spec":{"type":"object","default":{"b":2,"y":1},"x-kubernetes-preserve-unknown-fields":' \
           b'true},"zeta":{"type":"string","default":"d"}}' in r.content, r.content
    yield group, f"{url}/apis/{group}/%s/namespaces/default/widgets"
    http.delete(f"{url}{CRDS}/widgets.{group}")


def test_custom_resources_sorted_at_every_level(http: requests.Session, widgets: tuple[str, str]) -> None:
    group, base = widgets
    body = ('{"kind":"Widget","apiVersion":"%s/v1","metadata":{"name":"w1","labels":{"b":"1","a":"2"}},'
            '"spec":{"y":{"d":1,"c":[{"q":1,"p":2}]},"x":1},"abc":1}' % group)
    created = http.post(base % "v1", data=body, headers=JSON)
    assert created.status_code == 201, created.text
    head = b'{"abc":1,"apiVersion":"%s/%s","kind":"Widget","metadata":{"creationTimestamp":"'
    tail = b'"namespace":"default","resourceVersion":"%s","uid":"%s"},"spec":{"x":1,"y":{"c":[{"p":2,"q":1}],' \
           b'"d":1}},"zeta":"d"}'
    meta = created.json()["metadata"]
    done = tail % (meta["resourceVersion"].encode(), meta["uid"].encode())
    assert created.content.startswith(head % (group.encode(), b"v1")) and created.content.endswith(done + b"\n")
    assert b'"generation":1,"labels":{"a":"2","b":"1"},"managedFields":[{"apiVersion":"' in created.content
    for version in ("v1", "v2", "v1"):
        got = http.get(f"{base % version}/w1").content
        assert got.startswith(head % (group.encode(), version.encode())) and got.endswith(done + b"\n"), got
        events = _watched(http, base % version, "0", "w1")
        assert events.startswith(b'{"type":"ADDED","object":' + head % (group.encode(), version.encode()))
        assert events.endswith(done + b"}\n")
    second = http.post(base % "v1", json={"apiVersion": f"{group}/v1", "kind": "Widget", "metadata": {"name": "w2"}})
    assert second.status_code == 201, second.text
    assert b',"spec":{"b":2,"y":1},"zeta":"d"}' in second.content  # a schema default: a map like any other
    for version in ("v1", "v2"):
        page = http.get(base % version, params={"limit": "1"}).content
        assert page.startswith(b'{"apiVersion":"%s/%s","items":[' % (group.encode(), version.encode())), page
        assert re.search(rb'\],"kind":"WidgetList","metadata":\{"continue":"[^"]+","remainingItemCount":1,'
                         rb'"resourceVersion":"\d+"\}\}\n$', page), page
    patched = http.patch(f"{base % 'v1'}/w1", data='{"metadata":{"annotations":{"z":"1","m":"2"}},"spec":{"a":0}}',
                         headers=MERGE)
    assert patched.status_code == 200, patched.text
    assert b'"metadata":{"annotations":{"m":"2","z":"1"},"creationTimestamp":' in patched.content
    assert b'"spec":{"a":0,"x":1,"y":' in patched.content
    # the typed views of it keep the Go structs' order: ObjectMeta, ListMeta (a Table's too)
    meta_only = http.get(f"{base % 'v1'}/w1", headers={
        "Accept": "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"}).content
    assert re.search(rb'"metadata":\{"name":"w1","namespace":"default","uid":"[^"]+","resourceVersion":"\d+",'
                     rb'"generation":2,"creationTimestamp":"[^"]+","labels":\{"a":"2","b":"1"\},"annotations":'
                     rb'\{"m":"2","z":"1"\},"managedFields":\[\{"manager":"python-requests","operation":"Update",'
                     rb'"apiVersion":"[^"]+","time":"[^"]+","fieldsType":"FieldsV1","fieldsV1":\{"f:abc"', meta_only), \
        meta_only
    list_meta = rb'"metadata":\{"resourceVersion":"\d+","continue":"[^"]+","remainingItemCount":1\}'
    for accept in ("application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
                   "application/json;as=Table;g=meta.k8s.io;v=v1"):
        page = http.get(base % "v1", params={"limit": "1"}, headers={"Accept": accept}).content
        assert re.search(list_meta, page), page
