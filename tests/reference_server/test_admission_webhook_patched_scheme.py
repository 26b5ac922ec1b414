"""A mutating webhook's JSON patch naming another version or kind of a built-in object, as the dispatcher reads it
(apiserver v0.33 pkg/admission/plugin/webhook/mutating/dispatcher.go; admission/webhooks/__init__.py `_patched`,
wire/patchedgvk.py `read`).

`jsonSerializer.Decode(patchedJS, nil, newVersionedObject)` (`New(attr.VersionedKind)`): a version the scheme does
not register is `Scheme.New`'s error, `NewInternalError` of it (500 `Internal error occurred: ...`); another kind
decodes as that kind (`UseOrCreateObject`), and `Dispatch` then converts it to the internal object
(`GetObjectConvertor().Convert`), whose error it returns bare: a 500 of reason Unknown (no reason) in its words.
Before: the object kept its own version and kind, and was stored.
"""
from __future__ import annotations

import base64
from typing import Any, Iterator

import pytest
import requests

from tests.reference_server.test_admission_webhooks import Hook, cm, ns, server  # noqa: F401 - fixtures

from .webhookconfig import MUTATING, configure, unconfigure

PATCHES = {"/v9": b'[{"op":"replace","path":"/apiVersion","value":"v9"}]',
           "/secret": b'[{"op":"replace","path":"/kind","value":"Secret"}]',
           "/noversion": b'[{"op":"remove","path":"/apiVersion"}]'}


class KindHook(Hook):
    """`/v9`, `/secret`, `/noversion`: a JSONPatch of the object's `apiVersion` or `kind`."""

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        if path not in PATCHES:
            return super().answer(path, body)
        resp = {"uid": body["request"]["uid"], "allowed": True, "patchType": "JSONPatch",
                "patch": base64.b64encode(PATCHES[path]).decode()}
        return 200, {"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview", "response": resp}


@pytest.fixture(scope="module")
def hook() -> Iterator[KindHook]:
    h = KindHook()
    yield h
    h.stop()


@pytest.mark.parametrize("path,code,status", [
    ("/v9", 500, {"message": 'Internal error occurred: no kind "ConfigMap" is registered for version "v9" in scheme '
                             '"pkg/api/legacyscheme/scheme.go:30"', "reason": "InternalError",
                  "details": {"causes": [{"message": 'no kind "ConfigMap" is registered for version "v9" in scheme '
                                                     '"pkg/api/legacyscheme/scheme.go:30"'}]}}),
    ("/secret", 500, {"message": "converting (v1.Secret) to (core.ConfigMap): unknown conversion"}),
])
def test_a_patch_naming_another_version_or_kind(server, hook, ns, path, code, status):  # noqa: F811
    cfg = configure(server, MUTATING, ns, None, f"{hook.url}{path}", hook.ca_bundle, operations=["CREATE"])
    try:
        r = cm(server, ns, path.strip("/"))
        assert (r.status_code, r.json()) == (code, {"kind": "Status", "apiVersion": "v1", "metadata": {},
                                                    "status": "Failure", **status, "code": code})
        assert requests.get(f"{server.url}/api/v1/namespaces/{ns}/configmaps/{path.strip('/')}").status_code == 404
    finally:
        unconfigure(server, MUTATING, cfg)


def test_a_patch_removing_the_version_is_the_versioned_kind_s(server, hook, ns):  # noqa: F811
    """`gvkWithDefaults` from `newVersionedObject`'s own kind (v1 ConfigMap): decoded as it."""
    cfg = configure(server, MUTATING, ns, None, f"{hook.url}/noversion", hook.ca_bundle, operations=["CREATE"])
    try:
        r = cm(server, ns, "noversion")
        assert r.status_code == 201 and (r.json()["apiVersion"], r.json()["kind"]) == ("v1", "ConfigMap"), r.text
    finally:
        unconfigure(server, MUTATING, cfg)
