"""A request's `Content-Type` read as kube-apiserver 1.33 reads it: a body's through Go's `mime.ParseMediaType`
(`NegotiateInputSerializerForMediaType`: lower-cased, a malformed parameter refused), a PATCH's exactly (go-restful's
route match, then `PatchResource`'s cut at `;`), each refusal with upstream's 415."""
from __future__ import annotations

import json

import pytest
import requests

from conformance.reference_server import apierrors as E
from conformance.reference_server.embedded import RunningServer
from conformance.reference_server.http.patch import CUSTOM_RESOURCE_PATCH_TYPES, PATCH_TYPES
from conformance.reference_server.http.patchtype import patch_type

from ..conftest import unique

BODY_415 = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": "the body of the request was in an unknown format - accepted media types include: "
                       "application/json, application/yaml, application/vnd.kubernetes.protobuf",
            "reason": "UnsupportedMediaType", "code": 415}
ROUTER_415 = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
              "message": "415: Unsupported Media Type", "reason": "UnsupportedMediaType", "details": {}, "code": 415}
PATCH_415 = {**BODY_415, "message": "the body of the request was in an unknown format - accepted media types "
                                    "include: application/json-patch+json, application/merge-patch+json, "
                                    "application/strategic-merge-patch+json, application/apply-patch+yaml"}


@pytest.fixture(scope="module")
def patched(server: RunningServer) -> str:
    """A ConfigMap to patch, on the shared server (tests/reference_server/conftest.py)."""
    name = unique("patched")
    requests.post(server.url + "/api/v1/namespaces/default/configmaps", json={"metadata": {"name": name}},
                  timeout=10).raise_for_status()
    return f"{server.url}/api/v1/namespaces/default/configmaps/{name}"


def post(server: RunningServer, content_type: str) -> requests.Response:
    return requests.post(server.url + "/api/v1/namespaces/default/configmaps", headers={"Content-Type": content_type},
                         data=json.dumps({"metadata": {"generateName": "ct-"}}), timeout=10)


def patch(url: str, content_type: str) -> requests.Response:
    return requests.patch(url, data=b'{"data":{"a":"b"}}', headers={"Content-Type": content_type}, timeout=10)


@pytest.mark.parametrize("content_type", ["Application/JSON", "application/json; charset=utf-8",
                                          'application/json; charset="utf-8"; charset=utf-8', "application/json;"])
def test_body_media_types_upstream_reads(server, content_type):
    assert post(server, content_type).status_code == 201


@pytest.mark.parametrize("content_type", ["application/json; charset", "application/json; a=1; a=2",
                                          "application/json/x", "application/ json", "application/json;=1"])
def test_body_media_types_upstream_refuses(server, content_type):
    """`mime.ParseMediaType` answers an error (an invalid or repeated parameter, content after the subtype)."""
    r = post(server, content_type)
    assert (r.status_code, r.json()) == (415, BODY_415)


@pytest.mark.parametrize("content_type, status, body", [
    ("application/merge-patch+json", 200, None),
    ("application/merge-patch+json;charset=utf-8", 200, None),
    ("Application/Merge-Patch+JSON", 415, ROUTER_415),  # go-restful compares exactly
    ("", 415, ROUTER_415),  # (application/octet-stream to the router)
    ("application/merge-patch+json ;charset=utf-8", 415, PATCH_415),  # the router trims, PatchResource does not
    ("text/plain, application/merge-patch+json", 415, PATCH_415),  # the router takes any listed type
])
def test_patch_types_are_exact(patched, content_type, status, body):
    r = patch(patched, content_type)
    assert r.status_code == status
    if body is not None:
        assert r.json() == body


def test_a_custom_resource_patch_skips_the_router():
    with pytest.raises(E.StatusError) as refused:
        patch_type("Application/Merge-Patch+JSON", CUSTOM_RESOURCE_PATCH_TYPES, routed=False)
    assert refused.value.status["message"].endswith("application/merge-patch+json, application/apply-patch+yaml")
    assert patch_type("application/apply-patch+yaml; charset=utf-8", PATCH_TYPES) == "application/apply-patch+yaml"
