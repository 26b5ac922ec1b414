"""controller/bootstrapsigner.py: kube-controller-manager's bootstrap signer (pkg/controller/bootstrap): the detached
JWS of cluster-info's kubeconfig per signing token, checked against upstream's jws_test.go vectors; which tokens sign;
stale signatures removed; no write when nothing changed."""
from __future__ import annotations

import base64

from conformance.reference_server.controller.bootstrapsigner import (
    BootstrapSigner,
    detached_signature,
    signing_tokens,
)
from conformance.reference_server.registry.store import DeleteOptions
from conformance.reference_server.server import build_context

CONTENT = "Hello from the other side. I must have called a thousand times."
NOW = 1_700_000_000.0  # 2023-11-14T22:13:20Z


def test_upstreams_vectors():  # staging/src/k8s.io/cluster-bootstrap/token/jws/jws_test.go
    assert detached_signature(CONTENT, "joshua", "my voice is my passcode") == \
        "eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8"
    assert detached_signature(CONTENT, "joshua", "my voice is my passcode. my voice is my passcode") == \
        "eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..SFoKn0-YxqnvpSExt4LuCZ_7pvIBdX3SoUO_NsTpkdg"


def _secret(token_id: str, name: str = "", **data: str) -> dict:
    values = {"token-id": token_id, "token-secret": "0123456789abcdef", "usage-bootstrap-signing": "true", **data}
    return {"metadata": {"name": name or f"bootstrap-token-{token_id}", "namespace": "kube-system"},
            "type": "bootstrap.kubernetes.io/token",
            "data": {k: base64.b64encode(v.encode()).decode() for k, v in values.items() if v is not None}}


def test_which_tokens_sign():
    assert signing_tokens([_secret("abcdef")], NOW) == {"abcdef": "0123456789abcdef"}
    assert signing_tokens([_secret("abcdef", expiration="2023-11-15T00:00:00Z")], NOW) == {"abcdef": "0123456789abcdef"}
    refused = [_secret("abcdef", expiration="2023-11-14T00:00:00Z"),  # expired
               _secret("abcdef", expiration="tomorrow"),               # does not parse: expired
               _secret("abcdef", **{"usage-bootstrap-signing": "false"}),
               _secret("abcdef", name="bootstrap-token-zzzzzz"),       # the name's id differs
               _secret("ABCDEF"),                                       # not a valid id
               {**_secret("abcdef"), "type": "Opaque"}]
    for s in refused:
        assert signing_tokens([s], NOW) == {}, s


def test_sync_signs_removes_stale_and_writes_only_changes():
    registry = build_context(flavor="kind").registry
    cms, secrets = registry.content("configmaps"), registry.content("secrets")
    cms.create({"metadata": {"name": "cluster-info", "namespace": "kube-public"},
                "data": {"kubeconfig": CONTENT, "jws-kubeconfig-gone00": "stale"}})
    secrets.create(_secret("abcdef"))
    signer = BootstrapSigner(registry, clock=lambda: NOW)
    signer.sync()
    cm = cms.get("kube-public", "cluster-info")
    assert cm["data"] == {"kubeconfig": CONTENT,
                          "jws-kubeconfig-abcdef": detached_signature(CONTENT, "abcdef", "0123456789abcdef")}
    signer.sync()  # nothing changed: no write
    assert cms.get("kube-public", "cluster-info")["metadata"]["resourceVersion"] == cm["metadata"]["resourceVersion"]
    secrets.delete("kube-system", "bootstrap-token-abcdef", DeleteOptions())
    signer.sync()  # the token is gone: so is its signature
    assert cms.get("kube-public", "cluster-info")["data"] == {"kubeconfig": CONTENT}
