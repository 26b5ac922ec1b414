"""Protobuf answers: bytes derived by hand from upstream's generated.proto, a decode by the real descriptors
kubectl links (not our table), and the Accept negotiation that chooses them."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import descriptor_pool, message_factory

from conformance.reference_server.wire import protobuf
from conformance.reference_server.wire.negotiation import PROTOBUF, Negotiated, negotiate, not_acceptable_message
from tests.tools.proto_descriptors import extract_descriptors

TYPED = f"{PROTOBUF},application/json"


def _ld(field: int, payload: bytes) -> bytes:
    """One length-delimited field (wire type 2), lengths here all below 128 (one-byte varints)."""
    assert len(payload) < 128
    return bytes([field << 3 | 2, len(payload)]) + payload


def test_configmap_bytes_derived_by_hand_from_generated_proto() -> None:
    # core/v1 ConfigMap{metadata=1, data=2 (map<string,string>: entries {key=1, value=2}, sorted by key)};
    # meta/v1 ObjectMeta{name=1, namespace=3}; runtime.Unknown{typeMeta=1{apiVersion=1, kind=2}, raw=2,
    # contentEncoding=3, contentType=4} (gogo writes both strings even when empty); prefix "k8s\0".
    obj = {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "c", "namespace": "n"},
           "data": {"b": "2", "a": "1"}}
    raw = (_ld(1, _ld(1, b"c") + _ld(3, b"n"))
           + _ld(2, _ld(1, b"a") + _ld(2, b"1")) + _ld(2, _ld(1, b"b") + _ld(2, b"2")))
    expected = b"k8s\x00" + _ld(1, _ld(1, b"v1") + _ld(2, b"ConfigMap")) + _ld(2, raw) + b"\x1a\x00\x22\x00"
    assert protobuf.encode_response(obj) == expected


def test_watch_frame_bytes_derived_by_hand() -> None:
    # meta/v1 WatchEvent{type=1, object=2: runtime.RawExtension{raw=1}}, written raw, behind a 4-byte big-endian
    # length (framer.NewLengthDelimitedFrameWriter).
    event = _ld(1, b"ADDED") + _ld(2, _ld(1, b"xyz"))
    assert protobuf.watch_frame("ADDED", b"xyz") == len(event).to_bytes(4, "big") + event


def test_status_decoded_by_kubectls_own_descriptors(kubectl: Path) -> None:
    """The real meta/v1 Status message (from the descriptors kubectl is built with, not our table) reads our
    bytes field for field."""
    files = extract_descriptors(kubectl)
    pool = descriptor_pool.DescriptorPool()
    pending = {n: fd for n, fd in files.items() if "apimachinery" in n}
    for fd in pending.values():  # gogo.proto & co. only carry options: not needed to read messages
        kept = [d for d in fd.dependency if d in files]
        del fd.dependency[:]
        fd.dependency.extend(kept)
    while pending:  # add each file after its dependencies
        for name, fd in list(pending.items()):
            if all(dep not in pending for dep in fd.dependency):
                pool.Add(fd)
                del pending[name]
    cls = message_factory.GetMessageClass
    unknown = cls(pool.FindMessageTypeByName("k8s.io.apimachinery.pkg.runtime.Unknown"))()
    status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "NotFound",
              "message": 'namespaces "x" not found', "details": {"name": "x", "kind": "namespaces",
                                                                   "causes": [{"reason": "R", "field": "f"}]},
              "code": 404}
    body = protobuf.encode_response(status)
    unknown.ParseFromString(body[4:])
    assert (unknown.typeMeta.apiVersion, unknown.typeMeta.kind) == ("v1", "Status")
    real = cls(pool.FindMessageTypeByName("k8s.io.apimachinery.pkg.apis.meta.v1.Status"))()
    real.ParseFromString(unknown.raw)
    assert (real.status, real.reason, real.message, real.code) == ("Failure", "NotFound", status["message"], 404)
    assert (real.details.name, real.details.kind, real.details.causes[0].field) == ("x", "namespaces", "f")


def test_round_trip_of_every_answer_shape() -> None:
    ns = {"kind": "Namespace", "apiVersion": "v1",
          "metadata": {"name": "a", "creationTimestamp": "2026-01-02T03:04:05Z", "labels": {"z": "1", "a": "2"}},
          "spec": {"finalizers": ["kubernetes"]}, "status": {"phase": "Active"}}
    secret = {"kind": "Secret", "apiVersion": "v1", "metadata": {"name": "s"}, "data": {"k": "dg=="},
              "type": "Opaque"}
    items = [{k: v for k, v in ns.items() if k not in ("kind", "apiVersion")}]
    answers = [ns, secret,
               {"kind": "NamespaceList", "apiVersion": "v1", "metadata": {"resourceVersion": "7"}, "items": items},
               {"kind": "PartialObjectMetadataList", "apiVersion": "meta.k8s.io/v1", "metadata": {},
                "items": [{"metadata": ns["metadata"]}]},
               {"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1", "metadata": {},
                "status": {"userInfo": {"username": "u", "groups": ["g"], "extra": {"k": ["v1", "v2"]}}}},
               {"kind": "SelfSubjectAccessReview", "apiVersion": "authorization.k8s.io/v1", "metadata": {},
                "spec": {"resourceAttributes": {"verb": "get"}}, "status": {"allowed": False}}]
    for obj in answers:
        assert protobuf.decode_response(protobuf.encode_response(obj)) == obj


def test_answers_leave_out_what_the_go_type_does_not_have() -> None:
    obj = {"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "c", "initializers": None, "x": 1},
           "data": {"a": "b"}, "extra": True}
    assert protobuf.decode_response(protobuf.encode_response(obj)) == {
        "kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": "c"}, "data": {"a": "b"}}
    with pytest.raises(ValueError, match="no protobuf schema"):
        protobuf.encode_response({"kind": "Widget", "apiVersion": "example.com/v1"})
    with pytest.raises(ValueError, match="does not fit"):
        protobuf.encode_response({"kind": "ConfigMap", "apiVersion": "v1", "metadata": {"name": 5}})


def test_a_query_byte_that_is_not_utf8_is_written_as_its_byte() -> None:
    """gogo's marshallers copy a string's bytes (`copy(dAtA[i:], m.Message)`, meta/v1 generated.pb.go) and its
    unmarshallers read them back as they are (`string(dAtA[iNdEx:postIndex])`): a query's byte that is not UTF-8
    (surrogate-escaped, http/goquery.py) is that byte on the wire, in a string, a repeated string and a map's
    value, never the JSON answer instead."""
    status = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
              "message": "invalid selector: '\udcff'", "details": {"causes": [{"field": "a\udcfeb"}]}, "code": 400}
    raw = (_ld(1, b"") + _ld(2, b"Failure") + _ld(3, b"invalid selector: '\xff'")
           + _ld(5, _ld(4, _ld(3, b"a\xfeb"))) + bytes([6 << 3, 0x90, 0x03]))
    assert protobuf.encode_response(status) == (
        b"k8s\x00" + _ld(1, _ld(1, b"v1") + _ld(2, b"Status")) + _ld(2, raw) + b"\x1a\x00\x22\x00")
    review = {"kind": "SelfSubjectReview", "apiVersion": "authentication.k8s.io/v1", "metadata": {},
              "status": {"userInfo": {"groups": ["\udcff"], "extra": {"k": ["v\udc80"]}}}}
    user = _ld(3, b"\xff") + _ld(4, _ld(1, b"k") + _ld(2, _ld(1, b"v\x80")))
    assert protobuf.encode_response(review) == (b"k8s\x00" + _ld(1, _ld(1, b"authentication.k8s.io/v1")
                                                + _ld(2, b"SelfSubjectReview"))
                                                + _ld(2, _ld(1, b"") + _ld(2, _ld(1, user))) + b"\x1a\x00\x22\x00")


def test_a_string_no_go_byte_stands_for_is_still_refused() -> None:
    """A lone surrogate that is not an escaped byte (none reaches an answer: JSON bodies make them U+FFFD), and a
    map's key (protobuf has no bytes keys), still fail: the caller answers JSON."""
    with pytest.raises(ValueError, match="does not fit"):
        protobuf.encode_response({"kind": "Status", "apiVersion": "v1", "message": "\ud800"})
    with pytest.raises(ValueError, match="does not fit"):
        protobuf.encode_response({"kind": "ConfigMap", "apiVersion": "v1", "data": {"\udcff": "v"}})


def test_negotiation_chooses_protobuf_only_where_the_kind_has_a_message() -> None:
    assert negotiate(TYPED, protobuf_ok=True) == Negotiated(PROTOBUF)
    assert negotiate(TYPED) == Negotiated("application/json")  # custom resources: the JSON clause
    assert negotiate(PROTOBUF) is None
    assert negotiate(f"{PROTOBUF};q=0.5,application/json", protobuf_ok=True) == Negotiated("application/json")
    assert negotiate(f"{PROTOBUF};as=Table;v=v1;g=meta.k8s.io", protobuf_ok=True) is None  # Table: JSON/YAML only
    assert negotiate(f"{PROTOBUF};as=PartialObjectMetadataList;v=v1;g=meta.k8s.io") == Negotiated(
        PROTOBUF, "PartialObjectMetadataList", "v1")
    assert not_acceptable_message(True, True) == ("only the following media types are accepted: application/json, "
                                                  "application/yaml, application/vnd.kubernetes.protobuf")


def test_controllerrevision_data_is_raw_json_bytes_as_go_marshals_them() -> None:
    """`runtime.RawExtension{raw}`: the data's JSON bytes (Go's escaping of `<`, `>`, `&`; keys as stored), and
    `revision` written even when 0 (`json:"revision"`, no omitempty)."""
    rev = {"kind": "ControllerRevision", "apiVersion": "apps/v1", "metadata": {"name": "web-1"},
           "data": {"spec": {"template": {"$patch": "replace", "metadata": {"creationTimestamp": None},
                                          "cmd": "a && b"}}}, "revision": 0}
    body = protobuf.encode_response(rev)
    assert (b'{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null},'
            b'"cmd":"a \\u0026\\u0026 b"}}}') in body
    assert protobuf.decode_response(body) == rev
    assert protobuf.decode_stored(protobuf.encode(rev), "apps/v1", "ControllerRevision") == rev  # a typed create


@pytest.mark.parametrize("obj", [
    # IngressRule's `http` is the inlined IngressRuleValue (`json:",inline"`): nested on the protobuf side
    {"kind": "Ingress", "apiVersion": "networking.k8s.io/v1", "metadata": {"name": "i", "namespace": "n"},
     "spec": {"rules": [{"host": "a.example.com", "http": {"paths": [
         {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]},
     "status": {"loadBalancer": {}}},
    # pointers and non-omitempty fields keep their zero values: `allowVolumeExpansion: false`, `value: 0`,
    # `attached: false`
    {"kind": "StorageClass", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": "sc"},
     "provisioner": "example.com/disk", "reclaimPolicy": "Delete", "volumeBindingMode": "Immediate",
     "allowVolumeExpansion": False},
    {"kind": "PriorityClass", "apiVersion": "scheduling.k8s.io/v1", "metadata": {"name": "pc"}, "value": 0,
     "preemptionPolicy": "Never"},
    {"kind": "VolumeAttachment", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": "va"},
     "spec": {"attacher": "a", "nodeName": "n", "source": {"persistentVolumeName": "pv"}},
     "status": {"attached": False}},
    {"kind": "CSIDriver", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": "d"},
     "spec": {"attachRequired": False, "podInfoOnMount": False, "volumeLifecycleModes": ["Persistent"]}},
    {"kind": "RuntimeClass", "apiVersion": "node.k8s.io/v1", "metadata": {"name": "rc"}, "handler": "runc"},
    {"kind": "CSIStorageCapacity", "apiVersion": "storage.k8s.io/v1", "metadata": {"name": "c", "namespace": "n"},
     "storageClassName": "sc", "capacity": "1Gi"},
], ids=lambda o: o["kind"])
def test_group_kinds_round_trip(obj: dict) -> None:
    assert protobuf.decode_response(protobuf.encode_response(obj)) == obj
    assert protobuf.decode_stored(protobuf.encode(obj), obj["apiVersion"], obj["kind"]) == obj  # a typed create
