"""Decode `authentication.k8s.io/v1` bodies sent as ``application/vnd.kubernetes.protobuf``: SelfSubjectReview
(`kubectl auth whoami`), TokenReview and TokenRequest (`kubectl create token`). Field numbers from upstream's
`staging/src/k8s.io/api/authentication/v1/generated.proto`; the reader is `authorization_pb`'s.
"""
from __future__ import annotations

from typing import Any

from .authorization_pb import MAGIC, _fields, _message, _object_meta, _str

KINDS = frozenset({"SelfSubjectReview", "TokenReview", "TokenRequest"})


def _token_review_spec(buf: bytes) -> dict[str, Any]:
    return _message(buf, {1: "token"}, repeated={2: ("audiences", _str)})


def _bound_object_ref(buf: bytes) -> dict[str, Any]:
    return _message(buf, {1: "kind", 2: "apiVersion", 3: "name", 4: "uid"})


def _token_request_spec(buf: bytes) -> dict[str, Any]:
    out = _message(buf, {}, {3: ("boundObjectRef", _bound_object_ref)}, {1: ("audiences", _str)})
    for num, wt, v in _fields(buf):
        if num == 4 and wt == 0:
            out["expirationSeconds"] = v
    return out


_SPECS = {"TokenReview": _token_review_spec, "TokenRequest": _token_request_spec}


def decode(body: bytes) -> dict[str, Any]:
    """`k8s\\0` + runtime.Unknown → the JSON-shaped object; ValueError for anything else."""
    if not body.startswith(MAGIC):
        raise ValueError("protobuf body does not start with the Kubernetes magic number 'k8s\\x00'")
    try:
        env = _message(body[len(MAGIC):], {3: "contentEncoding"},
                       {1: ("typeMeta", lambda b: _message(b, {1: "apiVersion", 2: "kind"}))})
        if env.get("contentEncoding"):
            raise ValueError(f"unsupported protobuf contentEncoding {env['contentEncoding']!r}")
        head = env.get("typeMeta", {})
        if head.get("kind") not in KINDS:
            raise ValueError(f"no protobuf schema for kind {head.get('kind', '')!r}")
        raw = next((v for num, wt, v in _fields(body[len(MAGIC):]) if num == 2 and wt == 2), b"")
        messages: dict[int, Any] = {1: ("metadata", _object_meta)}
        if head["kind"] in _SPECS:
            messages[2] = ("spec", _SPECS[head["kind"]])
        obj = _message(raw, {}, messages)
    except UnicodeDecodeError as exc:
        raise ValueError(f"invalid UTF-8 in protobuf string: {exc}") from None
    return {**head, **obj}
