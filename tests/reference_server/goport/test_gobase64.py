"""`gobase64.py`: a `[]byte` field decodes as Go's `base64.StdEncoding` does (line breaks ignored, padding
required), and a Secret's `data` / a ConfigMap's `binaryData` come back re-encoded, as upstream's decode-then-encode
stores them (found by kr8s's `test_secret_data`, which creates the Kubernetes docs' TLS Secret)."""
from __future__ import annotations

import binascii

import pytest
import requests

from conformance.reference_server.goport.gobase64 import decode_std

from ..conftest import unique


def test_line_breaks_are_ignored_padding_is_not() -> None:
    assert decode_std("aGVs\nbG8=\n") == b"hello"
    assert decode_std("aGVs\r\nbG8=") == b"hello"
    with pytest.raises(binascii.Error):
        decode_std("aGVsbG8")  # StdEncoding: padding required
    with pytest.raises(binascii.Error):
        decode_std("aGVs bG8=")  # only \r and \n are skipped


@pytest.mark.parametrize("kind,plural,field", [("Secret", "secrets", "data"),
                                               ("ConfigMap", "configmaps", "binaryData")])
def test_wrapped_base64_is_accepted_and_stored_canonical(http: requests.Session, url: str, namespaces,
                                                         kind: str, plural: str, field: str) -> None:
    ns = namespaces.create()["metadata"]["name"]
    name = unique("wrapped")
    body = {"apiVersion": "v1", "kind": kind, "metadata": {"name": name},
            field: {"pem": "LS0tLS1CRUdJTi\nBDRVJUSUZJQ0FURS0tLS0t\n"}}
    created = http.post(f"{url}/api/v1/namespaces/{ns}/{plural}", json=body)
    assert created.status_code == 201, created.text
    assert created.json()[field] == {"pem": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t"}
    got = http.get(f"{url}/api/v1/namespaces/{ns}/{plural}/{name}").json()
    assert got[field] == {"pem": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t"}
    bad = http.post(f"{url}/api/v1/namespaces/{ns}/{plural}",
                    json={**body, "metadata": {"name": name + "-bad"}, field: {"pem": "not base64!"}})
    assert bad.status_code == 400, bad.text  # Go's decoder names the first byte it cannot read (the space)
    assert bad.json()["message"] == f'{kind} in version "v1" cannot be handled as a {kind}: illegal base64 data at ' \
        "input byte 3", bad.text


WRAPPED, CANONICAL = "LS0tLS1CRUdJTi\nBDRVJUSUZJQ0FURS0tLS0t\n", "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t"


def test_every_byte_field_is_stored_canonical(http: requests.Session, url: str) -> None:
    """Not only a Secret's or ConfigMap's: a webhook's `caBundle` (a named group's kind, `format: byte`) is a Go
    `[]byte` too, decoded then encoded again, on create and on patch."""
    name = unique("wrapped-ca")
    cfg = {"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
           "metadata": {"name": name},
           "webhooks": [{"name": "a.example.com", "sideEffects": "None", "admissionReviewVersions": ["v1"],
                         "clientConfig": {"url": "https://example.com/x", "caBundle": WRAPPED}}]}
    path = f"{url}/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations"
    created = http.post(path, json=cfg)
    try:
        assert created.status_code == 201, created.text
        assert created.json()["webhooks"][0]["clientConfig"]["caBundle"] == CANONICAL
        patched = http.patch(f"{path}/{name}", data='{"metadata":{"labels":{"a":"b"}},"webhooks":[{"name":'
                             '"a.example.com","sideEffects":"None","admissionReviewVersions":["v1"],"clientConfig":'
                             '{"url":"https://example.com/x","caBundle":"%s"}}]}' % WRAPPED.replace("\n", "\\n"),
                             headers={"Content-Type": "application/merge-patch+json"})
        assert patched.status_code == 200 and patched.json()["webhooks"][0]["clientConfig"]["caBundle"] == CANONICAL
    finally:
        http.delete(f"{path}/{name}")


def test_canonical_std_leaves_unbroken_text_alone() -> None:
    from conformance.reference_server.goport.gobase64 import canonical_std
    assert canonical_std(CANONICAL) is CANONICAL and canonical_std(WRAPPED) == CANONICAL
    assert canonical_std("not base64\n") == "not base64\n"
