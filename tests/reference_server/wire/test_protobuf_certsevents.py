"""Protobuf of CertificateSigningRequests and events.k8s.io/v1 Events (generated.proto of certificates/v1 and
events/v1 from kubectl's descriptors): answers and typed creates round-trip, zero-keeping fields kept, and an
events/v1 Event is not read as core/v1's."""
from __future__ import annotations

import base64

import pytest

from conformance.reference_server.wire import protobuf

CSR = {"kind": "CertificateSigningRequest", "apiVersion": "certificates.k8s.io/v1", "metadata": {"name": "c"},
       "spec": {"request": base64.b64encode(b"pem").decode(), "signerName": "kubernetes.io/kube-apiserver-client",
                "expirationSeconds": 600, "usages": ["client auth"], "username": "u", "groups": ["g"],
                "extra": {"k": ["v1", "v2"]}},
       "status": {"conditions": [{"type": "Approved", "status": "True", "reason": "r",
                                  "lastUpdateTime": "2026-01-02T03:04:05Z"}],
                  "certificate": base64.b64encode(b"cert").decode()}}
EVENT = {"kind": "Event", "apiVersion": "events.k8s.io/v1", "metadata": {"name": "e", "namespace": "n"},
         "eventTime": "2026-01-02T03:04:05.123456Z", "series": {"count": 2, "lastObservedTime":
                                                               "2026-01-02T03:04:06.000000Z"},
         "reportingController": "example.com/c", "reportingInstance": "i", "action": "A", "reason": "R",
         "regarding": {"kind": "Pod", "name": "p"}, "note": "hello", "type": "Normal", "deprecatedCount": 3}


@pytest.mark.parametrize("obj", [CSR, EVENT], ids=lambda o: o["apiVersion"])
def test_round_trip(obj: dict) -> None:
    assert protobuf.decode_response(protobuf.encode_response(obj)) == obj
    assert protobuf.decode_stored(protobuf.encode(obj), obj["apiVersion"], obj["kind"]) == obj  # a typed create


def test_events_v1_is_its_own_message() -> None:
    body = protobuf.encode(EVENT)
    assert protobuf.decode_stored(body, "events.k8s.io/v1", "Event")["note"] == "hello"
    with pytest.raises(ValueError):  # core/v1 has no `note`: encoding it as core.Event is refused
        protobuf.encode({**EVENT, "apiVersion": "v1"})
