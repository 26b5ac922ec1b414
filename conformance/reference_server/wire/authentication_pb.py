"""Decode `authentication.k8s.io/v1` bodies sent as ``application/vnd.kubernetes.protobuf``: SelfSubjectReview
(`kubectl auth whoami`), TokenReview and TokenRequest (`kubectl create token`). Field numbers from upstream's
`staging/src/k8s.io/api/authentication/v1/generated.proto`; the reader is `authorization_pb`'s.
"""
from __future__ import annotations

from typing import Any

from .authorization_pb import _fields, _message, _object_meta, _str, decode_unknown

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
    return decode_unknown(body, KINDS, lambda kind: {
        1: ("metadata", _object_meta), **({2: ("spec", _SPECS[kind])} if kind in _SPECS else {})})
