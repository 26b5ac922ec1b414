"""`http/respond.py`: JSON bodies as kube-apiserver writes them. API objects, lists, Status errors, discovery and
watch events go through apimachinery's JSON serializer (`runtime/serializer/json/json.go` `doEncode`: Go's
`json.Encoder.Encode`, so each ends in a newline; the official client's `create_from_yaml` error text carries
it); `/version` is `responsewriters.WriteRawJSON` (`json.MarshalIndent`, two-space indent, no newline)."""
from __future__ import annotations

import json

import pytest
import requests

from ..conftest import unique

APIGROUP_DISCOVERY = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"


@pytest.mark.parametrize("path,accept", [
    ("/api/v1/namespaces/default", None),  # a GET answered from the memoised bytes
    ("/api/v1/namespaces", None),  # a list
    ("/api/v1/namespaces/absent-ns", None),  # a Status error
    ("/api", None), ("/apis/apps/v1", None),  # legacy discovery
    ("/apis", APIGROUP_DISCOVERY),  # aggregated discovery
])
def test_json_bodies_end_in_a_newline(http: requests.Session, url: str, path: str, accept: str | None) -> None:
    r = http.get(url + path, headers={"Accept": accept} if accept else {})
    assert r.headers["Content-Type"].startswith("application/json")
    assert r.content.endswith(b"}\n") and not r.content.endswith(b"\n\n")
    json.loads(r.content)


def test_created_object_and_conflict_end_in_a_newline(http: requests.Session, url: str) -> None:
    name = unique("respond")
    body = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}}
    created = http.post(f"{url}/api/v1/namespaces/default/configmaps", json=body)
    try:
        assert created.status_code == 201 and created.content.endswith(b"}\n")
        again = http.post(f"{url}/api/v1/namespaces/default/configmaps", json=body)
        assert again.status_code == 409
        assert again.content == (
            b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"'
            + name.encode() + b'\\" already exists","reason":"AlreadyExists","details":{"name":"' + name.encode()
            + b'","kind":"configmaps"},"code":409}\n')
    finally:
        http.delete(f"{url}/api/v1/namespaces/default/configmaps/{name}")


def test_watch_events_are_one_line_each(http: requests.Session, url: str) -> None:
    with http.get(f"{url}/api/v1/namespaces", params={"watch": "1", "fieldSelector": "metadata.name=default",
                                                      "timeoutSeconds": "1"}, stream=True) as r:
        raw = r.raw.read()
    assert raw.endswith(b"}\n") and b"\n\n" not in raw
    assert json.loads(raw.splitlines()[0])["type"] == "ADDED"


def test_version_is_indented_without_newline(http: requests.Session, url: str) -> None:
    r = http.get(url + "/version", headers={"Accept": "application/yaml"})  # WriteRawJSON ignores Accept
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/json"
    assert r.content.startswith(b'{\n  "major": "1",\n  "minor": "33",') and r.content.endswith(b'"\n}')
    assert r.content == json.dumps(json.loads(r.content), indent=2).encode()
