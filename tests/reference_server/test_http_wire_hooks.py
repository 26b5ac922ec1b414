"""The hook points into `wire`: protobuf request bodies, Table output, OpenAPI (skipped if wire lacks them)."""
from __future__ import annotations

import pytest

from .conftest import status_of

protobuf = pytest.importorskip("conformance.reference_server.wire.protobuf")
PB = {"Content-Type": "application/vnd.kubernetes.protobuf"}


def test_protobuf_create_namespace_and_configmap(http, url, namespaces):
    name = namespaces.name()
    body = protobuf.encode({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name}})
    r = http.post(f"{url}/api/v1/namespaces", data=body, headers=PB)
    assert r.status_code == 201 and r.json()["spec"]["finalizers"] == ["kubernetes"]
    cm = protobuf.encode({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}, "data": {"a": "b"}})
    r = http.post(f"{url}/api/v1/namespaces/{name}/configmaps", data=cm, headers=PB)
    assert r.status_code == 201 and r.json()["data"] == {"a": "b"} and r.json()["metadata"]["namespace"] == name


def test_protobuf_garbage_is_400(http, url):
    st = status_of(http.post(f"{url}/api/v1/namespaces", data=b"k8s\x00\xff\xff\xff", headers=PB))
    assert st["code"] == 400 and st["message"].startswith("the object provided is unrecognized (must be of type "
                                                          "Namespace): ")
    st = status_of(http.post(f"{url}/api/v1/namespaces", data=b"nope", headers=PB))
    assert st["code"] == 400


def test_table_for_list_and_item(http, url):
    accept = {"Accept": "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"}
    lst = http.get(f"{url}/api/v1/namespaces", headers=accept).json()
    assert lst["kind"] == "Table" and any(r["cells"][0] == "default" for r in lst["rows"])
    one = http.get(f"{url}/api/v1/namespaces/default", headers=accept).json()
    assert one["kind"] == "Table" and one["rows"][0]["cells"][:2] == ["default", "Active"]
    meta = http.get(f"{url}/api/v1/namespaces", headers={
        "Accept": "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io"}).json()
    assert meta["kind"] == "PartialObjectMetadataList"


def test_openapi(http, url):
    doc = http.get(f"{url}/openapi/v2").json()
    assert "/api/v1/namespaces/{name}/finalize" in doc["paths"]
    root = http.get(f"{url}/openapi/v3").json()
    rel = root["paths"]["api/v1"]["serverRelativeURL"]
    assert http.get(url + rel).json()["openapi"].startswith("3.")


def test_openapi_v3_lists_every_group_version(http, url):
    """kube-apiserver serves an OpenAPI v3 document per group-version; without one kubectl falls back to the
    protobuf /openapi/v2 (`kubectl apply -f role.yaml`: "proto: cannot parse invalid wire-format data")."""
    root = http.get(f"{url}/openapi/v3").json()
    assert "apis/authorization.k8s.io/v1" in root["paths"]
    doc = http.get(url + root["paths"]["apis/authorization.k8s.io/v1"]["serverRelativeURL"]).json()
    op = doc["paths"]["/apis/authorization.k8s.io/v1/selfsubjectaccessreviews"]["post"]
    assert op["x-kubernetes-group-version-kind"] == {"group": "authorization.k8s.io", "kind": "SelfSubjectAccessReview",
                                                     "version": "v1"}
    assert "io.k8s.api.authorization.v1.SelfSubjectAccessReview" in doc["components"]["schemas"]


def test_openapi_v2_serves_protobuf_and_refuses_what_it_cannot_write(http, url):
    """kube-openapi serves v2 as JSON or gnostic protobuf, in the first Accept clause it can; 406 otherwise."""
    r = http.get(f"{url}/openapi/v2", headers={"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"})
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"
    assert r.content[:5] == b"\x0a\x032.0"  # Document.swagger = "2.0"
    r = http.get(f"{url}/openapi/v2", headers={"Accept": "application/yaml"})
    assert r.status_code == 406 and r.content == b""
    r = http.get(f"{url}/openapi/v2", headers={"Accept": "application/yaml, application/json"})
    assert r.status_code == 200 and r.json()["swagger"] == "2.0"
